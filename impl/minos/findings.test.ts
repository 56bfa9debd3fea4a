// The extraction's two findings on the real node code (node.ts), with the schedules they
// need, which runs on processes reach too rarely to count on: nodes in this process, their
// messages in a queue the test delivers (reordering where the finding needs it), NVM logs
// in memory. Each runs the paper's literal behaviour (the bug flag) and the default code
// (the spec's fix) on the same schedule: the literal one must break, the fix must not.

import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../checkers/lin/index.ts';
import { checkDurability, type DurOp } from '../../checkers/durability/index.ts';
import { importHistoryText } from '../../traces/index.ts';
import { models } from '../../checkers/lin/models/index.ts';
import { MinosNode, type Model, type Msg, type Nvm } from './node.ts';

class MemNvm implements Nvm {
  readonly durable: Buffer[] = [];
  commitAsync(payloads: readonly Uint8Array[]): Promise<void> {
    for (const p of payloads) this.durable.push(Buffer.from(p));
    return new Promise((r) => setTimeout(r, 1));
  }
}

interface Queued {
  from: number;
  to: number;
  msg: Msg;
  id: string;
}

class LocalCluster {
  readonly queue: Queued[] = [];
  readonly nodes: MinosNode[];
  readonly logs: MemNvm[];
  readonly events: { node: number; action: string; args: Record<string, unknown> }[] = [];
  readonly asserts: string[] = [];
  private pump: NodeJS.Timeout | undefined;
  private next = 1;

  constructor(n: number, model: Model, bugs: string[], bgFlushMs: number) {
    this.logs = Array.from({ length: n }, () => new MemNvm());
    this.nodes = this.logs.map(
      (log, id) =>
        new MinosNode({
          id,
          n,
          model,
          offload: false,
          bugs: new Set(bugs),
          keys: ['x'],
          log,
          send: (to, msg) => {
            const mid = `n${id}:${this.next++}`;
            this.queue.push({ from: id, to, msg: structuredClone(msg), id: mid });
            return mid;
          },
          trace: (action, args) => this.events.push({ node: id, action, args }),
          bgFlushMs,
          assert: (m) => this.asserts.push(m),
        }),
    );
  }

  deliver(pick: (q: Queued) => boolean = () => true): number {
    let n = 0;
    for (let i = 0; i < this.queue.length; ) {
      if (pick(this.queue[i])) {
        const [q] = this.queue.splice(i, 1);
        this.nodes[q.to].receive(q.from, q.msg, q.id);
        n++;
      } else i++;
    }
    return n;
  }

  /** Delivers everything, in order, as it comes. */
  start(): void {
    this.pump = setInterval(() => this.deliver(), 1);
  }

  /** The power failure: every node stops; what each recovers is its own log's max-TS entry (per replica). */
  crash(): Map<string, { ts: number; v: string | null }>[] {
    clearInterval(this.pump);
    for (const n of this.nodes) n.stop();
    return this.logs.map((l) => MinosNode.recover(l.durable));
  }
}

const until = async (cond: () => boolean, what: string, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
};

describe('finding TS-COLLISION: two concurrent client-writes at one node (extraction §3.4, M18)', () => {
  async function run(bugs: string[]) {
    const c = new LocalCluster(2, 'synch', bugs, 20);
    const h: string[] = [];
    let t = 0;
    const op = (client: number, f: string, value: string, out?: string, call = ++t, ret = ++t) =>
      h.push(JSON.stringify({ client, input: { f, key: 'x', value }, call, return: ret, output: out, status: 'ok' }));
    // node A's two clients write at once; B receives the two INVs in the reverse order
    const call1 = ++t;
    const w1 = c.nodes[0].write('x', 'a1');
    const w2 = c.nodes[0].write('x', 'a2');
    await until(() => c.queue.filter((q) => q.msg.type === 'INV').length === 2, 'both INVs');
    const invs = c.queue.filter((q) => q.msg.type === 'INV');
    c.deliver((q) => q === invs[1]);
    c.deliver((q) => q === invs[0]);
    c.start();
    const [r1, r2] = await Promise.all([w1, w2]);
    op(0, 'put', 'a1', undefined, call1);
    op(1, 'put', 'a2', undefined, call1);
    await until(() => c.nodes.every((n) => n.threads === 0), 'the transactions to end');
    const atA = await c.nodes[0].read('x');
    const atB = await c.nodes[1].read('x');
    op(2, 'get', '', atA ?? '');
    op(3, 'get', '', atB ?? '');
    op(2, 'get', '', (await c.nodes[0].read('x')) ?? '');
    c.crash();
    const ops = importHistoryText(`${h.map((l) => l.replace(',"value":""', '')).join('\n')}\n`, 'scenario', { model: models['kv-append'], format: 'jsonl' }).operations;
    return { ts: [r1.ts, r2.ts], atA, atB, lin: (await checkHistory('kv-append', ops)).verdict, asserts: c.asserts };
  }

  it('literal GenTS (volatileTS + 1): both writes get <1,A>; the replicas diverge; not linearizable', async () => {
    const r = await run(['TS-COLLISION']);
    expect(r.ts[0]).toBe(r.ts[1]);
    expect(r.atA).not.toBe(r.atB);
    expect(r.lin).toBe('illegal');
  });

  it('fixed GenTS (atomic per key): distinct timestamps, one value everywhere, linearizable', async () => {
    const r = await run([]);
    expect(r.ts[0]).not.toBe(r.ts[1]);
    expect(r.atA).toBe(r.atB);
    expect(r.lin).toBe('ok');
    expect(r.asserts).toEqual([]);
  });
});

describe('finding S-GAP: Scope loses a write after its PERSIST returned (extraction §3.2, §4.4)', () => {
  async function run(bugs: string[]) {
    const c = new LocalCluster(2, 'scope', bugs, 150);
    // B writes x outside the scope; its INV reaches A right after A's scope write took its TS,
    // so A's write is cut short as obsolete (no INVs, no persist anywhere)
    const wB = c.nodes[1].write('x', 'b', 'other');
    await until(() => c.queue.some((q) => q.msg.type === 'INV'), "B's INV");
    const w1 = c.nodes[0].write('x', 'a', 's1');
    c.deliver((q) => q.msg.type === 'INV');
    c.start();
    const { ts } = await w1;
    await wB;
    const cut = c.events.some((e) => e.node === 0 && (e.action === 'obsoleteCheck_L5' || e.action === 'localWrite_L9_16') && e.args.obsolete === true);
    await c.nodes[0].persistScope('s1', [['x', ts]]);
    const recovered = c.crash(); // at once: B's write is still in the background-persist queues
    // the crash history: W(a) in scope s1, PERSIST(s1) returned, crash, a recovery read per node
    const ops: DurOp[] = [
      { client: 0, f: 'write', key: 'x', value: 'a', call: 1, ret: 2, version: ts },
      { client: 0, f: 'persist', value: 's1', call: 3, ret: 4 },
      { client: 1, f: 'write', key: 'x', value: 'b', call: 1, ret: 2 },
      ...recovered.map((m, i) => ({ client: 10 + i, f: 'read', key: 'x', output: m.get('x')?.v ?? null, call: 20, ret: 21 })),
    ];
    const bVersion = c.events.find((e) => e.node === 1 && e.action === 'clientWrite_L4')!.args.ts as number;
    ops[2].version = bVersion;
    const d = checkDurability('scope', ops, [
      { event: 'crash', time: 10 },
      { event: 'recovered', time: 15 },
    ]);
    return { cut, recovered: recovered.map((m) => m.get('x')?.v ?? null), verdict: d.verdict };
  }

  it("the paper's PERSIST: returns with the cut-short write neither durable nor superseded durably; lost", async () => {
    const r = await run(['S-GAP']);
    expect(r.cut).toBe(true);
    expect(r.recovered).toEqual([null, null]);
    expect(r.verdict).toBe('violation');
  });

  it("the fix (PERSIST waits for a durable version >= each scope write's TS): kept", async () => {
    const r = await run([]);
    expect(r.cut).toBe(true);
    expect(r.recovered).toEqual(['b', 'b']);
    expect(r.verdict).toBe('durable');
  });
});
