// A client process (a compute node): several logical clients, as FUSEE's coroutines
// [L329], sharing one connection to each memory node (their verbs issued in the same tick
// leave in one write, as doorbell batching does) and one to the master. Each logical
// client runs the workload: uniformly random keys, reads with probability readRatio,
// writes of fresh unique values, one operation at a time, paced to its share of the rate.
//
// A logical client that must stop as crashed (an unknown outcome, or the master revoked
// it) logs crashClient itself, records its operation as indeterminate, and is replaced by
// a fresh client id from the harness (ids are never reused).
//
// IPC: {cmd: 'stop'} stop issuing operations and report {type: 'drained'} once every
// logical client is idle; {cmd: 'exit'}; {type: 'id', id} answers {type: 'need-id'}.

import { childRuntime, type ProcessConfig } from '../kit/child.ts';
import { HistoryWriter, TraceWriter } from '../kit/recorder.ts';
import { decodeJson, encodeJson } from '../kit/json.ts';
import { Rng } from '../kit/rng.ts';
import { RpcClient } from '../kit/rpc.ts';
import { MemoryClient } from '../kit/verbs.ts';
import { Layout, OP_BITS, valueOf } from './layout.ts';
import { Abort, Crash, type Env, Snapshot, type View } from './snapshot.ts';

export interface ClientConfig extends ProcessConfig {
  proc: string;
  ids: number[];
  keys: string[];
  n: number;
  r: number;
  /** Proxy ports of this process's links to each memory node, and to the master. */
  mnPorts: number[];
  masterPort: number;
  bugs: string[];
  pollMs: number;
  readRatio: number;
  /** Pause between one logical client's operations (ms); 0: none. */
  opIntervalMs: number;
  /** Bound on each logical client's operations. */
  maxOps: number;
  historyFile: string;
}

const rt = childRuntime();
const cfg = rt.config as unknown as ClientConfig;
const layout = new Layout(cfg.keys, cfg.n, cfg.r);
const bugs = new Set(cfg.bugs);
const trace = new TraceWriter(cfg.traceFile, cfg.t0);
const history = new HistoryWriter(cfg.historyFile);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// ---- the view, as the master tells it ---------------------------------------------------------

let view: View = { epoch: 1, removed: new Set(), down: new Set() };
let waiters: (() => void)[] = [];
function setView(m: { epoch?: unknown; removed?: unknown; down?: unknown }): void {
  if (typeof m.epoch !== 'number' || m.epoch < view.epoch) return;
  const removed = new Set(Array.isArray(m.removed) ? (m.removed as number[]) : []);
  const down = new Set(Array.isArray(m.down) ? (m.down as number[]) : []);
  if (m.epoch === view.epoch && removed.size === view.removed.size && down.size === view.down.size) return;
  view = { epoch: m.epoch, removed, down };
  for (const w of waiters.splice(0)) w();
}
const viewChange = (ms: number) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    waiters.push(() => {
      clearTimeout(t);
      resolve();
    });
  });

const master = new RpcClient({
  port: cfg.masterPort,
  timeoutMs: 2000,
  keepConnected: true,
  onPush: (p) => {
    const m = decodeJson(p) as Record<string, unknown> | undefined;
    if (m?.type === 'view') setView(m);
  },
});
const mems = cfg.mnPorts.map((port) => new MemoryClient(new RpcClient({ port, timeoutMs: cfg.timeoutMs, connectTimeoutMs: 500 }), 0));

// ---- logical clients ----------------------------------------------------------------------------

/** Ids this process has run, and those that crashed (self-declared or revoked). */
const allIds: number[] = [];
const crashed = new Set<number>();
const revoked = new Set<number>();
let running = true;
let hardStop = false;
const active = new Map<number, { since: number } | undefined>();
const counts = { ok: 0, info: 0, reads: 0, writes: 0, crashes: 0, asserts: 0 };

function assert(ok: boolean, message: string): void {
  if (ok) return;
  counts.asserts++;
  process.stderr.write(`assertion failed: ${message}\n`);
  rt.send({ type: 'assert', proc: cfg.proc, message });
}

async function failQuery(id: number, key: string, epoch: number): Promise<number> {
  for (;;) {
    if (revoked.has(id)) throw new Crash('revoked by the master while waiting for its decision');
    if (hardStop) throw new Abort();
    const out = await master.request(encodeJson({ type: 'failQuery', client: id, key, epoch }), 5000);
    if (out.ok) {
      const m = decodeJson(out.payload) as { s?: unknown } | undefined;
      if (typeof m?.s === 'number') return m.s;
    }
    await sleep(50);
  }
}

/** A value as the KV object it names holds it (M16's re-allocated objects hold the same value). */
const userValue = (v: number): number => (v % OP_BITS >= OP_BITS / 2 ? v - OP_BITS / 2 : v);

async function logical(id: number): Promise<void> {
  allIds.push(id);
  const rng = new Rng(`${cfg.seed}/c${id}`);
  const proc = `c${id}`;
  const check = () => {
    if (revoked.has(id)) throw new Crash('revoked by the master');
    if (hardStop) throw new Abort();
  };
  const env: Env = {
    layout,
    bugs,
    trace,
    mem: (mn) => mems[mn],
    view: () => view,
    viewChange,
    failQuery: (key, epoch) => failQuery(id, key, epoch),
    assert,
    timeoutMs: cfg.timeoutMs,
    pollMs: cfg.pollMs,
  };
  const snap = new Snapshot(env, { proc, verbId: id, logOwner: id, check });
  let writes = 0;
  let next = Date.now();
  try {
    // The master knows a client before its first step, so that it can recover it.
    for (;;) {
      if (hardStop) throw new Abort();
      const out = await master.request(encodeJson({ type: 'register', proc: cfg.proc, client: id }), 1000);
      if (out.ok) break;
      await sleep(50);
    }
    for (let i = 0; i < cfg.maxOps && running; i++) {
      if (cfg.opIntervalMs > 0) {
        next += cfg.opIntervalMs * (0.5 + rng.next());
        const wait = next - Date.now();
        if (wait > 0) await sleep(wait);
        else next = Date.now();
        if (!running) break;
      }
      check();
      const key = cfg.keys[rng.int(cfg.keys.length)];
      const read = rng.next() < cfg.readRatio;
      active.set(id, { since: Date.now() });
      if (read) {
        history.invoke(id, 'get', key, undefined);
        const v = await snap.read(key, () => rng.u32());
        history.ok(id, v === 0 ? '' : String(userValue(v)));
        counts.reads++;
      } else {
        writes++;
        const vNew = valueOf(id, writes);
        history.invoke(id, 'put', key, String(vNew));
        await snap.write(key, vNew, writes);
        history.ok(id);
        counts.writes++;
      }
      counts.ok++;
      active.set(id, undefined);
    }
  } catch (e) {
    if (e instanceof Crash) {
      crashed.add(id);
      counts.crashes++;
      counts.info++;
      trace.step(proc, 'crashClient', { client: proc });
      history.info(id, e.why);
      active.delete(id);
      if (running) rt.send({ type: 'need-id', crashed: id });
    } else if (!(e instanceof Abort)) {
      throw e;
    }
  } finally {
    active.delete(id);
    maybeDrained();
  }
}

/** Revoked clients that will run no further step: their crash is logged here. */
function logRevoked(): void {
  for (const id of revoked) {
    if (crashed.has(id) || active.get(id) !== undefined) continue;
    crashed.add(id);
    trace.step(`c${id}`, 'crashClient', { client: `c${id}` });
  }
}

function maybeDrained(): void {
  if (running || [...active.values()].some((a) => a !== undefined)) return;
  logRevoked();
  rt.send({ type: 'drained' });
}

// ---- lease (heartbeats) and IPC ------------------------------------------------------------------

async function heartbeats(): Promise<void> {
  while (!hardStop) {
    const live = allIds.filter((id) => !crashed.has(id) && !revoked.has(id));
    const out = await master.request(encodeJson({ type: 'heartbeat', proc: cfg.proc, live, all: allIds }), 1000);
    if (out.ok) {
      const m = decodeJson(out.payload) as { dead?: unknown; epoch?: unknown; removed?: unknown; down?: unknown };
      setView(m);
      if (Array.isArray(m.dead)) for (const id of m.dead as number[]) if (!crashed.has(id)) revoked.add(id);
    }
    await sleep(100);
  }
}

setInterval(() => {
  const now = Date.now();
  const inflight = [...active.entries()].filter(([, a]) => a !== undefined).map(([id, a]) => ({ id, ms: now - a!.since }));
  rt.send({ type: 'progress', proc: cfg.proc, ...counts, inflight });
}, 500).unref();

rt.onMessage((m) => {
  if (m.cmd === 'stop') {
    running = false;
    maybeDrained();
  } else if (m.cmd === 'exit') {
    hardStop = true;
    logRevoked();
    trace.close();
    history.close();
    process.exit(0);
  } else if (m.type === 'id' && typeof m.id === 'number') {
    void logical(m.id);
  }
});

void heartbeats();
for (const id of cfg.ids) void logical(id);
rt.ready({});
