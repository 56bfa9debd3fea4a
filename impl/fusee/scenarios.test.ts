// Scripted interleavings of the real protocol code (snapshot.ts, master.ts) over in-process
// memory regions (kit/memory-node.ts), with verbs held back until the scenario releases
// them: the schedules spec counterexamples need, which runs on real processes reach too
// rarely to count on. Each scenario runs the correct code and a bug flag on the same
// schedule; the correct code must come out consistent, the bug flag must not.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryRegion } from '../kit/memory-node.ts';
import { TraceWriter } from '../kit/recorder.ts';
import { Rng } from '../kit/rng.ts';
import type { RpcClient } from '../kit/rpc.ts';
import { decodeResult, encodeVerb, MemoryClient, Op } from '../kit/verbs.ts';
import { E_VER, Layout, valueOf } from './layout.ts';
import { Master } from './master.ts';
import { Abort, Snapshot, type Env, type View } from './snapshot.ts';
import { traceShapeErrors } from './trace-shape.ts';

const dir = mkdtempSync(join(tmpdir(), 'fusee-scenario-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Verb {
  mn: number;
  op: Op;
  client: number;
  addr: number;
}

const until = async (cond: () => boolean, what: string, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
};

/** n memory nodes in this process; verbs matching a hold wait until it is released; a dead node refuses connections. */
class LocalCluster {
  readonly regions: MemoryRegion[];
  readonly dead = new Set<number>();
  private holds: { match: (v: Verb) => boolean; released: Promise<void>; hit: () => void }[] = [];
  readonly asserts: string[] = [];
  /** The clients' view, as the master broadcasts it (fixed without a master). */
  view: View = { epoch: 1, removed: new Set(), down: new Set() };
  /** Every view the master broadcast, in order. */
  readonly views: View[] = [];
  private viewWaiters: (() => void)[] = [];
  master: Master | undefined;
  /** Set at the end of a scenario: clients still running (waiting forever) give up. */
  stopped = false;
  failQueryStub: (key: string, epoch: number) => Promise<number> = () => Promise.reject(new Error('no master'));
  readonly traceFile: string;
  readonly trace: TraceWriter;
  private readonly mems: MemoryClient[];

  constructor(
    readonly layout: Layout,
    readonly bugs: string[],
  ) {
    this.regions = Array.from({ length: layout.n }, () => new MemoryRegion(layout.words));
    this.mems = this.regions.map((_, i) => this.mem(i));
    this.traceFile = join(dir, `trace-${Math.random().toString(36).slice(2)}.jsonl`);
    this.trace = new TraceWriter(this.traceFile);
  }

  /** Holds the first verb matching; `reached` resolves when it arrives, `release` lets it go. */
  hold(match: (v: Verb) => boolean): { reached: Promise<void>; release: () => void } {
    let release!: () => void;
    let hit!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const reached = new Promise<void>((r) => (hit = r));
    this.holds.push({ match, released, hit });
    return { reached, release };
  }

  mem(mn: number): MemoryClient {
    const rpc = {
      request: async (payload: Buffer) => {
        const v: Verb = { mn, op: payload.readUInt8(0), client: payload.readUInt32LE(4), addr: payload.readUInt32LE(12) };
        const h = this.holds.find((x) => x.match(v));
        if (h !== undefined) {
          this.holds = this.holds.filter((x) => x !== h);
          h.hit();
          await h.released;
        }
        await new Promise((r) => setImmediate(r));
        if (this.dead.has(mn)) return { ok: false as const, failure: 'notsent' as const };
        return { ok: true as const, payload: this.regions[mn].execute(payload) };
      },
    } as unknown as RpcClient;
    return new MemoryClient(rpc, 0);
  }


  env(): Env {
    return {
      layout: this.layout,
      bugs: new Set(this.bugs),
      trace: this.trace,
      mem: (mn) => this.mems[mn],
      view: () => this.view,
      viewChange: (ms) =>
        new Promise((r) => {
          const t = setTimeout(r, Math.min(ms, 5));
          this.viewWaiters.push(() => {
            clearTimeout(t);
            r();
          });
        }),
      failQuery: (key, epoch) => (this.master ? this.master.failQuery(key, epoch) : this.failQueryStub(key, epoch)),
      assert: (ok, message) => {
        if (!ok) this.asserts.push(message);
      },
      timeoutMs: 1000,
      pollMs: 1,
    };
  }

  client(id: number): Snapshot {
    return new Snapshot(this.env(), {
      proc: `c${id}`,
      verbId: id,
      logOwner: id,
      check: () => {
        if (this.stopped) throw new Abort();
      },
    });
  }

  /** The master in this process; `seed` steers its random choice among alive backups (Alg. 3 l.5). */
  startMaster(seed = 'scenario'): Master {
    const m = new Master({
      layout: this.layout,
      bugs: new Set(this.bugs),
      trace: this.trace,
      rng: new Rng(seed),
      mem: (mn) => this.mems[mn],
      killNode: async (mn) => {
        this.dead.add(mn);
      },
      broadcast: (msg) => {
        if (msg.type !== 'view') return;
        this.view = { epoch: Number(msg.epoch), removed: new Set(msg.removed as number[]), down: new Set(msg.down as number[]) };
        this.views.push(this.view);
        for (const w of this.viewWaiters.splice(0)) w();
      },
      assert: (ok, message) => {
        if (!ok) this.asserts.push(`master: ${message}`);
      },
      mnLeaseMs: 100,
      clientLeaseMs: 60_000,
      timeoutMs: 1000,
      pollMs: 1,
    });
    this.master = m;
    void m.run();
    return m;
  }

  slot(mn: number, k = 0): number {
    // the test's own look at the memory, past fences and leases
    const r = decodeResult(this.regions[mn].execute(encodeVerb(Op.Read, 0, 2 ** 31, this.layout.slotAddr(k), 1, []), () => 0));
    if (r.status !== 'ok') throw new Error('read failed');
    return r.values[0];
  }

  events(): { proc: string; seq: number; action: string; args?: Record<string, unknown> }[] {
    return readFileSync(this.traceFile, 'utf8')
      .trimEnd()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
  }
}

const isCas = (mn: number, client: number) => (v: Verb) => v.op === Op.Cas && v.mn === mn && v.client === client;

/** Key k0 on three memory nodes: the cluster and the key's primary and two backups. */
function oneKeyCluster(bugs: string[]) {
  const layout = new Layout(['k0'], 3, 3);
  const [p, b1, b2] = layout.replicas(0);
  return { layout, c: new LocalCluster(layout, bugs), p, b1, b2 };
}

describe('M2: the primary re-read before Rule 3 (Alg. 2 l.12-16)', () => {
  // The extraction's sketch (X§5.2): B's CAS on one backup lands in round 1, its CAS on the
  // other only after a later round; without the re-read B wins Rule 3 on a stale snapshot,
  // writes its dead value into a backup, and its primary CAS fails.
  async function run(bugs: string[]) {
    const { c, p, b1, b2 } = oneKeyCluster(bugs);
    const A = 1; // the smallest values: A wins round 1 by Rule 3
    const B = 2;
    const C = 3; // round 2's writer, values above B's
    const a = valueOf(A, 1);
    const b = valueOf(B, 1);
    const cv = valueOf(C, 1);
    const holdB2 = c.hold(isCas(b2, B));
    const holdA1 = c.hold(isCas(b1, A));
    const wB = c.client(B).write('k0', b, 1);
    await holdB2.reached;
    const wA = c.client(A).write('k0', a, 1);
    await holdA1.reached;
    await new Promise((r) => setTimeout(r, 20)); // B's CAS on b1 and A's on b2 land
    holdA1.release(); // A's CAS on b1 fails (b): A sees [b, a], re-reads, wins Rule 3
    await wA;
    expect([c.slot(p), c.slot(b1), c.slot(b2)]).toEqual([a, a, a]);
    await c.client(C).write('k0', cv, 1); // round 2: C alone, Rule 1
    holdB2.release(); // B's CAS on b2 (expects 0) returns c: B's snapshot is [b, c]
    await wB;
    expect(traceShapeErrors(c.events(), bugs)).toEqual([]);
    return { c, slots: [c.slot(p), c.slot(b1), c.slot(b2)], cv, b };
  }

  it('with the re-read, B finds the primary changed (FINISH) and the replicas stay equal', async () => {
    const { c, slots, cv } = await run([]);
    expect(slots).toEqual([cv, cv, cv]);
    expect(c.asserts).toEqual([]);
  });

  it('without it (--bug M2), B writes its dead value into a backup, and the primary-CAS assertion catches it', async () => {
    const { c, slots, cv, b } = await run(['M2']);
    expect(slots[0]).toBe(cv);
    expect(slots.slice(1)).toContain(b); // a backup holds a value older than the primary's
    expect(c.asserts).toEqual([expect.stringMatching(/last writer .* found the primary at .*, not v_old 0/)]);
  });
});

describe('M15: a client recovery must restart after a memory-node episode (§5.4, X§3.2)', () => {
  // The spec's finding (specs/fusee/README.md): c0 wins the backups and crashes; its recovery
  // starts a redo of its write; the primary fails; the master chooses c0's value,
  // writes it everywhere and commits c0's log; c1 writes anew; the redo, had it not been
  // restarted, would now install c0's value a second time.
  async function run(bugs: string[]) {
    const { layout, c, p, b1, b2 } = oneKeyCluster(bugs);
    const master = c.startMaster();
    const C0 = 1;
    const C1 = 2;
    const v0 = valueOf(C0, 1);
    const v1 = valueOf(C1, 1);
    master.heartbeat('cp0', [C0, C1], [C0, C1]);
    // c0 wins both backups (Rule 1); its log commit never leaves (c0 crashes before it)
    const commit = layout.logAddr(C0, 1) + E_VER;
    for (let i = 0; i < 3; i++) c.hold((v) => v.op === Op.Write && v.client === C0 && v.addr === commit);
    void c.client(C0).write('k0', v0, 1);
    await until(() => c.slot(b1) === v0 && c.slot(b2) === v0, "c0's backup CASes");
    // the redo's first read of the primary is held until the primary has failed
    const redoRead = c.hold((v) => v.op === Op.Read && v.client === 0 && v.mn === p && v.addr === layout.slotAddr(0));
    master.heartbeat('cp0', [C1], [C0, C1]); // c0 crashed: its process no longer lists it
    await redoRead.reached;
    c.dead.add(p); // the primary fails (SIGKILL)
    // after the episode, the redo's read of the new primary waits until c1 has written
    const newPrimaryRead = c.hold((v) => v.op === Op.Read && v.client === 0 && v.mn === b1 && master.epoch >= 2);
    redoRead.release();
    await until(() => master.epoch >= 2, 'the episode');
    expect(c.slot(b1)).toBe(v0); // the master chose c0's value
    const seenBefore = c.slot(b1);
    await c.client(C1).write('k0', v1, 1);
    const seenBetween = c.slot(b1);
    newPrimaryRead.release(); // correct code: no redo reads it (it restarted, found the log committed)
    await until(() => !master.busy(), 'the recovery', 5000);
    master.stop();
    expect(traceShapeErrors(c.events(), bugs)).toEqual([]);
    return { seen: [seenBefore, seenBetween, c.slot(b1), c.slot(b2)], v0, v1, c };
  }

  it('restarted (the default), the recovery finds c0 committed and c1\u2019s write stays', async () => {
    const { seen, v0, v1, c } = await run([]);
    expect(seen).toEqual([v0, v1, v1, v1]);
    expect(c.events().some((e) => e.action === 'recoverClient' && e.args?.case === 'committed')).toBe(true);
    expect(c.asserts).toEqual([]);
  });

  it('not restarted (--bug M15), the stale redo installs c0\u2019s value again after c1\u2019s: a read sees v0, v1, v0', async () => {
    const { seen, v0, v1 } = await run(['M15']);
    expect(seen).toEqual([v0, v1, v0, v0]);
  });

  it('the same schedule with the chosen log left uncommitted (--bug M8, Alg. 3 l.7): the restarted recovery redoes c0\u2019s write after c1\u2019s', async () => {
    const { seen, v0, v1, c } = await run(['M8']);
    expect(seen).toEqual([v0, v1, v0, v0]);
    expect(c.events().some((e) => e.action === 'recoverClient' && e.args?.case === 'c1')).toBe(true);
  });
});

describe("M4': with the primary failed, a reader checks that the alive backups agree (Alg. 4 l.4-8)", () => {
  // X§5.2: W has CASed b1 but not b2 when the primary fails; a reader that returns any one
  // backup can return W's value and then the old one.
  async function run(bugs: string[]) {
    const { c, p, b1, b2 } = oneKeyCluster(bugs);
    const W = 1;
    const w = valueOf(W, 1);
    const hold = c.hold(isCas(b2, W));
    void c.client(W).write('k0', w, 1);
    await hold.reached;
    await until(() => c.slot(b1) === w, "W's CAS on b1");
    c.dead.add(p);
    c.view = { epoch: 1, removed: new Set(), down: new Set([p]) }; // the master announced it
    const queries: string[] = [];
    c.failQueryStub = async (key) => {
      queries.push(key);
      return 0; // the master's choice, were it asked
    };
    const reader = c.client(9);
    let pick = 0;
    const first = await reader.read('k0', () => pick++);
    const second = await reader.read('k0', () => pick++);
    return { reads: [first, second], queries, w };
  }

  it('agreeing or not, the correct reader returns one value throughout (it asks the master when they differ)', async () => {
    const { reads, queries } = await run([]);
    expect(reads).toEqual([0, 0]);
    expect(queries).toEqual(['k0', 'k0']);
  });

  it("without the check (--bug M4'), it reads W's value and then the older one", async () => {
    const { reads, w } = await run(["M4'"]);
    expect(reads).toEqual([w, 0]);
  });
});

describe('M12: the master fences a decided winner too (A.4.1 [L798])', () => {
  // X§5.2: A is a Rule-3 winner about to fix up b1; the primary fails; the master chooses b
  // (B's value) and writes it to both backups, b1 becoming the primary; A's late fix-up
  // CAS(b1: b -> a) must be refused.
  async function run(bugs: string[]) {
    const { c, p, b1, b2 } = oneKeyCluster(bugs);
    const master = c.startMaster('m12-b'); // a seed with which the master chooses b1's value, B's
    const A = 1;
    const B = 2;
    const a = valueOf(A, 1);
    const b = valueOf(B, 1);
    master.heartbeat('cp0', [A, B], [A, B]);
    // a 1-1 split: B takes b1, A takes b2; A (the smaller value) wins Rule 3; B loses
    const holdB2 = c.hold(isCas(b2, B));
    const holdA1 = c.hold(isCas(b1, A));
    const holdFix = c.hold(isCas(b1, A)); // A's second CAS on b1: its fix-up, held
    const wB = c.client(B).write('k0', b, 1);
    await holdB2.reached;
    await until(() => c.slot(b1) === b, "B's CAS on b1");
    const wA = c.client(A).write('k0', a, 1);
    await holdA1.reached;
    await until(() => c.slot(b2) === a, "A's CAS on b2");
    holdB2.release();
    holdA1.release();
    await holdFix.reached; // A decided Rule 3: its fix-up of b1 is in flight
    c.dead.add(p); // the primary fails; the master chooses between b1 (b) and b2 (a)
    await until(() => master.epoch >= 2, 'the episode');
    const chosen = c.slot(b1);
    holdFix.release();
    await Promise.all([wA, wB]);
    await until(() => !master.busy(), 'the master');
    master.stop();
    return { chosen, slots: [c.slot(b1), c.slot(b2)], a, b, asserts: c.asserts };
  }

  it('fenced, A\u2019s fix-up is refused and both replicas keep the master\u2019s value', async () => {
    const { chosen, slots, b } = await run([]);
    expect(chosen).toBe(b);
    expect(slots).toEqual([b, b]);
  });

  it('unfenced (--bug M12), A\u2019s fix-up lands after the master\u2019s decision: the replicas differ', async () => {
    const { chosen, slots, a } = await run(['M12']);
    expect(chosen).not.toBe(a);
    expect(slots[0]).toBe(a);
    expect(slots[1]).toBe(chosen);
  });
});

describe('M5: a Rule-2/3 winner fixes the backups up before it CASes the primary (Alg. 1 l.14-15)', () => {
  // X§5.2: the winner CASes the primary while a backup still holds the loser's value; the
  // primary fails; the master picks that backup's value: readers saw the winner's value,
  // then the loser's, whose write had returned before (a loser returns once the primary
  // changed, so it is linearized before the winner).
  async function run(bugs: string[]) {
    const { c, p, b1, b2 } = oneKeyCluster(bugs);
    const master = c.startMaster('m12-b'); // the master chooses b1's value
    const A = 1;
    const B = 2;
    const a = valueOf(A, 1);
    const b = valueOf(B, 1);
    master.heartbeat('cp0', [A, B, 9], [A, B, 9]);
    const holdB2 = c.hold(isCas(b2, B));
    const holdA1 = c.hold(isCas(b1, A));
    const holdFix = c.hold(isCas(b1, A)); // A's fix-up of b1 (b -> a), held
    const wB = c.client(B).write('k0', b, 1);
    await holdB2.reached;
    await until(() => c.slot(b1) === b, "B's CAS on b1");
    const wA = c.client(A).write('k0', a, 1);
    await holdA1.reached;
    await until(() => c.slot(b2) === a, "A's CAS on b2");
    holdB2.release();
    holdA1.release();
    await holdFix.reached;
    await new Promise((r) => setTimeout(r, 30)); // whatever A does before its fix-up is done
    const reader = c.client(9);
    const before = await reader.read('k0', () => 0);
    c.dead.add(p);
    await until(() => master.epoch >= 2, 'the episode');
    holdFix.release();
    await Promise.all([wA, wB]);
    const after = await reader.read('k0', () => 0);
    await until(() => !master.busy(), 'the master');
    master.stop();
    return { reads: [before, after], a, b };
  }

  it('fix-up first: the primary still held the old value when it failed; reads see 0, then the master\u2019s choice', async () => {
    const { reads, b } = await run([]);
    expect(reads).toEqual([0, b]);
  });

  it('primary first (--bug M5): a read sees the winner\u2019s value, then the loser\u2019s', async () => {
    const { reads, a, b } = await run(['M5']);
    expect(reads).toEqual([a, b]);
  });
});

describe('M10: the log commit comes after the fix-up ([L276], A.4.2)', () => {
  // X§5.2: a Rule-3 winner commits its log, then crashes before its fix-up; recovery sees
  // a complete old value and CASes the primary (c2) while a backup still holds the loser's
  // value; the next writer's snapshot then holds that stale value and nobody wins.
  async function run(bugs: string[]) {
    const { c, p, b1, b2 } = oneKeyCluster(bugs);
    const master = c.startMaster();
    const A = 1;
    const B = 2;
    const C = 3;
    const a = valueOf(A, 1);
    const b = valueOf(B, 1);
    master.heartbeat('cp0', [A, B, C], [A, B, C]);
    const holdB2 = c.hold(isCas(b2, B));
    const holdA1 = c.hold(isCas(b1, A));
    c.hold(isCas(b1, A)); // A's fix-up of b1 never leaves: A crashes
    const wB = c.client(B).write('k0', b, 1);
    await holdB2.reached;
    await until(() => c.slot(b1) === b, "B's CAS on b1");
    void c.client(A).write('k0', a, 1);
    await holdA1.reached;
    await until(() => c.slot(b2) === a, "A's CAS on b2");
    holdB2.release();
    holdA1.release();
    await new Promise((r) => setTimeout(r, 30)); // A decides Rule 3 (and, with M10, commits)
    master.heartbeat('cp0', [B, C], [A, B, C]); // A crashed
    await until(() => !master.busy(), 'the recovery');
    await wB;
    const recovered = [c.slot(p), c.slot(b1), c.slot(b2)];
    const cw = c.client(C).write('k0', valueOf(C, 1), 1);
    const done = await Promise.race([cw.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 500))]);
    c.stopped = true;
    await cw.catch((e: unknown) => {
      if (!(e instanceof Abort)) throw e;
    });
    master.stop();
    return { recovered, done, a, b };
  }

  it('commit after the fix-up: the crashed winner is redone (c1) and the next write goes through', async () => {
    const { recovered, done, a } = await run([]);
    expect(recovered).toEqual([a, a, a]);
    expect(done).toBe(true);
  });

  it('commit before it (--bug M10): recovery\u2019s c2 leaves a backup at the loser\u2019s value, and the next writer waits forever', async () => {
    const { recovered, done, a, b } = await run(['M10']);
    expect(recovered).toEqual([a, b, a]);
    expect(done).toBe(false);
  });
});

describe('recovery of a client with no log entry (a loaded `net` run: the master declared a reading client dead)', () => {
  // The run's trace had `recoverClient {client, case: c0}` without a key; the validator
  // routes every recovery to its key's slot (specs/fusee/README.md, "The trace vocabulary": recoverClient names its key)
  // and rejected the whole trace as malformed: exit 1 on a correct, linearizable run.
  it('recovers it without a trace step, and every step the master logs names a key', async () => {
    const layout = new Layout(['k0', 'k1'], 3, 3);
    const c = new LocalCluster(layout, []);
    const master = c.startMaster();
    const W = 1; // wrote k1: its recovery has a key
    const R = 2; // only read: no log entry anywhere
    master.heartbeat('cp0', [W, R], [W, R]);
    const w = valueOf(W, 1);
    await c.client(W).write('k1', w, 1);
    expect(await c.client(R).read('k0', () => 0)).toBe(0);
    master.heartbeat('cp0', [], [W, R]); // both crashed: their process no longer lists them
    await until(() => master.stats.recoveries === 2 && !master.busy(), 'both recoveries');
    master.stop();
    const events = c.events();
    expect(events.filter((e) => e.action === 'recoverClient')).toEqual([
      expect.objectContaining({ proc: 'master/c1', args: expect.objectContaining({ client: 'c1', key: 'k1', value: w, case: 'c3' }) }),
    ]);
    for (const e of events) if (!['prepare', 'crashMN', 'crashClient'].includes(e.action)) expect(layout.keys, `${e.proc} ${e.action}`).toContain(e.args?.key);
    expect(c.asserts).toEqual([]);
  });
});

describe('a round\u2019s parallel backup CASes are logged in the order the nodes executed them', () => {
  // cli/run.test.ts on a loaded machine: W's two backup CASes executed tens of ms apart,
  // another writer's whole round in between; logged in backup order, W's b1 line (which
  // saw X's change) came before its b2 line (whose change X saw before making it): the
  // trace's order had a cycle and the validator called a correct run INVALID.
  it('W\u2019s CAS on b2 executes first, X writes, W\u2019s CAS on b1 sees X\u2019s change: W logs b2, then b1', async () => {
    const { c, p, b1, b2 } = oneKeyCluster([]);
    const X = 1; // the smaller value: X wins Rule 3
    const W = 2;
    const x = valueOf(X, 1);
    const w = valueOf(W, 1);
    const holdW1 = c.hold(isCas(b1, W));
    const wW = c.client(W).write('k0', w, 1);
    await holdW1.reached;
    await until(() => c.slot(b2) === w, "W's CAS on b2");
    await c.client(X).write('k0', x, 1); // [x, w]: X re-reads the primary, wins Rule 3, fixes b2 up
    holdW1.release(); // W's CAS on b1 fails (x): the primary changed, W finishes
    await wW;
    expect([c.slot(p), c.slot(b1), c.slot(b2)]).toEqual([x, x, x]);
    const events = c.events();
    const cas = (proc: string) => events.filter((e) => e.proc === proc && e.action === 'casBackup').map((e) => e.args?.mn);
    expect(cas('c2')).toEqual([b2, b1]); // W: the order of execution (backup order would be b1, b2)
    expect(cas('c1')).toEqual([b1, b2]);
    expect(traceShapeErrors(events)).toEqual([]);
    expect(c.asserts).toEqual([]);
  });
});

describe('a memory node declared dead while an episode runs is handled by the next episode (Alg. 3)', () => {
  // A harsh-stall `net` run: the episode for mn0's crash decided k0 with mn1 as its
  // primary (it wrote k0's value into mn1), then mn1 was declared dead before the episode
  // ended, and the reconfiguration dropped both. The epoch-2 view named mn2 as k0's
  // primary, which no decision had made it: a writer of that epoch reads a primary the
  // protocol's view does not have. Now mn1 stays down until the next episode, which runs at
  // once, and clients go from epoch 1 to epoch 3.
  it('k0 is decided with the node alive, the node dies before the episode ends: clients never get the intermediate view', async () => {
    const layout = new Layout(['k0', 'k1'], 3, 3);
    const c = new LocalCluster(layout, []);
    const [p, b1, b2] = layout.replicas(0);
    const master = c.startMaster();
    const W = 1;
    master.heartbeat('cp0', [W], [W]);
    const w1 = valueOf(W, 1);
    await c.client(W).write('k0', w1, 1);
    // the master's first read of k1 in the episode waits until k0's primary has been declared dead
    const k1Read = c.hold((v) => v.op === Op.Read && v.client === 0 && v.addr === layout.slotAddr(1));
    c.dead.add(b2); // mn b2's crash: the episode (epoch 2)
    await k1Read.reached;
    expect(c.events().filter((e) => e.action === 'decide').map((e) => e.args?.key)).toEqual(['k0']); // k0 decided with p alive
    c.dead.add(p);
    await until(() => master.down.has(p), "the primary's death");
    k1Read.release();
    await until(() => master.epoch >= 2 && !master.busy(), 'the episodes');
    expect(c.view.epoch).toBe(3);
    expect([...c.view.removed].sort()).toEqual([p, b2].sort());
    expect(c.views.map((v) => v.epoch).filter((e) => e === 2)).toEqual([]); // epoch 2 never reached a client
    expect(c.views.some((v) => v.epoch === 1 && v.down.has(p))).toBe(true); // but p's death did, as down (FAIL)
    const w2 = valueOf(W, 2);
    await c.client(W).write('k0', w2, 2); // epoch 3: b1 is k0's primary, no backup left
    master.stop();
    expect(c.slot(b1)).toBe(w2);
    const events = c.events();
    expect(events.filter((e) => e.action === 'prepare').map((e) => e.args?.epoch)).toEqual([2, 3]);
    expect(events.filter((e) => e.action === 'readPrimary').map((e) => [e.args?.mn, e.args?.epoch])).toEqual([
      [p, 1],
      [b1, 3],
    ]);
    expect(traceShapeErrors(events)).toEqual([]);
    expect(c.asserts).toEqual([]);
  });
});

describe('a step whose log write reached a replica is logged, also when an episode then aborts the redo', () => {
  // A harsh-stall `net` run (seed 10): the master's redo of c2's write lost its round and
  // reset its used bit; the reset reached two log replicas, the third hung (its node was
  // being declared dead), and the episode aborted the redo before the loserReturn line.
  // The restarted recovery found used = 0 and logged case c0; the trace had no step that
  // took the entry there (the validator: the case of c2's log entry is "c1 redo", not c0).
  it('the redo FINISHes, its reset reaches two replicas, the third node dies: loserReturn is logged before the restarted recovery\u2019s c0', async () => {
    const layout = new Layout(['k0'], 3, 3);
    const c = new LocalCluster(layout, []);
    const [p, b1, b2] = layout.replicas(0);
    const master = c.startMaster();
    const [A, B, X] = [1, 2, 3]; // A's value is the smallest: A wins the Rule-3 split against X's redo
    master.heartbeat('cp0', [A, B, X], [A, B, X]);
    await c.client(B).write('k0', valueOf(B, 1), 1);
    // X writes its log entry and reads the primary; its backup CASes never leave; then it crashes
    c.hold(isCas(b1, X));
    c.hold(isCas(b2, X));
    void c.client(X).write('k0', valueOf(X, 1), 1).catch(() => undefined);
    await until(() => c.events().some((e) => e.proc === 'c3' && e.action === 'readPrimary'), "X's primary read");
    const redoB2 = c.hold(isCas(b2, 0));
    master.heartbeat('cp0', [A, B], [A, B, X]); // X crashed: its process no longer lists it
    await redoB2.reached; // the redo (case c1) CASed b1 to X's value; its CAS on b2 waits
    await c.client(A).write('k0', valueOf(A, 1), 1); // [x, a]: A re-reads, wins Rule 3, fixes b1 up
    const logNode = layout.logReplicas(X)[2];
    const reset = c.hold((v) => v.op === Op.Write && v.client === 0 && v.mn === logNode && v.addr === layout.logAddr(X, 1) + E_VER);
    redoB2.release(); // the redo sees [x, a], re-reads the primary (a): FINISH, resets its used bit
    await reset.reached;
    c.dead.add(logNode); // the third log replica's node dies: an episode aborts the redo
    await until(() => master.stats.episodes >= 1, 'the episode');
    reset.release();
    await until(() => master.stats.recoveries >= 1 && !master.busy(), 'the recovery');
    master.stop();
    c.stopped = true;
    const steps = c.events().filter((e) => e.proc === 'master/c3').map((e) => (e.action === 'recoverClient' ? `${e.action} ${e.args?.case}` : e.action));
    expect(steps).toEqual(['recoverClient c1', 'readPrimary', 'casBackup', 'casBackup', 'reRead', 'loserReturn', 'recoverClient c0']);
    expect([c.slot(p), c.slot(b1), c.slot(b2)].filter((_, i) => [p, b1, b2][i] !== logNode)).toEqual(Array(2).fill(valueOf(A, 1)));
    expect(c.asserts).toEqual([]);
  });
});

describe('a reader of the backups logs values that all held at one moment (Alg. 4 l.4-8, one spec step)', () => {
  // With the primary down, R reads both backups in parallel; its read of b1 executes, W
  // (in flight since before the failure) CASes b1 then b2, then R's read of b2 executes.
  // One line saying b1 = 0 (before W's b1 CAS) and b2 = w (after W's b2 CAS) puts R's
  // step both before and after W's two steps, which W executed in that order: a cycle.
  it('the reads are collected again until no backup changed in between: R reports [w, w] and returns w', async () => {
    const { c, p, b1, b2 } = oneKeyCluster([]);
    const [W, R] = [1, 2];
    const w = valueOf(W, 1);
    const wB1 = c.hold(isCas(b1, W));
    const wB2 = c.hold(isCas(b2, W));
    const wW = c.client(W).write('k0', w, 1);
    await wB1.reached;
    await wB2.reached;
    c.view = { epoch: 1, removed: new Set(), down: new Set([p]) }; // the primary fails
    const rB2 = c.hold((v) => v.op === Op.Read && v.client === R && v.mn === b2);
    const read = c.client(R).read('k0', () => 0);
    await rB2.reached;
    await new Promise((r) => setTimeout(r, 20)); // R's read of b1 executes: 0
    wB1.release();
    await until(() => c.slot(b1) === w, "W's CAS on b1");
    wB2.release();
    await wW; // W: Rule 1, its primary CAS FAILs (ignored)
    rB2.release();
    expect(await read).toBe(w);
    const lines = c.events().filter((e) => e.proc === 'c2' && e.action === 'readBackups');
    expect(lines.map((e) => e.args?.results)).toEqual([{ [b1]: w, [b2]: w }]);
    expect(c.asserts).toEqual([]);
  });
});
