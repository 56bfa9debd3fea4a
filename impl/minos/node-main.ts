// A MINOS node as a process: the protocol (node.ts) over the kit's MessageNode (every link
// through the fault proxy), its NVM a kit DurableLog, and the node's logical clients (each
// sequential and bound to this node, extraction §1.1), which record the history in the
// vocabulary of checkers/lin's kv model (put, get; '' is a key never written) plus Scope's
// `persist` (its value: the scope).
//
// Lifecycle, steered over IPC by cluster.ts:
//   ready {port}      listening; the log is open and recovered (its records read back)
//   connect {ports}   the proxy's port for each peer
//   local-reads {client}
//                     after a crash: one read per key of what this node's own log recovered
//                     (per-replica recovery, the durability check's reads), before it rejoins
//   recover           (node 0 only) system-level recovery (extraction §1.5): pull every
//                     node's max-TS entry per key, install the max everywhere, durably
//   reads {client}    after the merge: one read per key through the protocol (REnf's recovery reads)
//   start {clients}   the workload
//   stop              no new operations; `drained` once none is in flight
//   exit

import { childRuntime, type ProcessConfig } from '../kit/child.ts';
import { DurableLog } from '../kit/durable-log.ts';
import { MessageNode, type Envelope } from '../kit/message-node.ts';
import { HistoryWriter, TraceWriter } from '../kit/recorder.ts';
import { Rng } from '../kit/rng.ts';
import { MinosNode, type Model, type Msg } from './node.ts';

export interface NodeConfig extends ProcessConfig {
  id: number;
  n: number;
  model: Model;
  offload: boolean;
  bugs: string[];
  keys: string[];
  port: number;
  nvmFile: string;
  historyFile: string;
  /** The trace's process name (n0, n0.2 after a restart: a fresh sequence). */
  proc: string;
  readRatio: number;
  opIntervalMs: number;
  /** Scope: writes per scope before the client's [PERSIST]sc (1 to this many). */
  scopeWrites: number;
  bgFlushMs: number;
  /** Restarted after a power failure: the log loses what was not fsynced (kit durable-log.ts). */
  powerLoss: boolean;
  /**
   * Restarted: the id of the message the nemesis's last `crashNode` line sent this node, which
   * the incarnation's first line receives (the trace's order: the restarted node after the crash).
   */
  crashRecv?: string;
}

const rt = childRuntime();
const cfg = rt.config as unknown as NodeConfig;
const { log, recovered: own, lostBytes } = DurableLog.open(cfg.nvmFile, { powerLoss: cfg.powerLoss });
const traceFile = new TraceWriter(cfg.traceFile, cfg.t0);
/** The incarnation's first line receives the nemesis's crash message (NodeConfig.crashRecv). */
let crashRecv = cfg.crashRecv;
const trace = {
  step(proc: string, action: string, args: Record<string, unknown>, _order?: undefined, extra?: { send?: string[]; recv?: string }): void {
    if (crashRecv !== undefined) {
      extra = { ...extra, recv: crashRecv };
      crashRecv = undefined;
    }
    traceFile.step(proc, action, args, undefined, extra);
  },
  close: () => traceFile.close(),
};
const history = new HistoryWriter(cfg.historyFile);
// Named after the incarnation (n0.2): its message ids must not repeat those of n0 in the trace.
const mn = new MessageNode(cfg.proc, { port: cfg.port, timeoutMs: cfg.timeoutMs });
let node: MinosNode | undefined;
let stopping = false;
let stopped = false;
const inflight = new Map<number, number>();
let ok = 0;

const assert = (message: string) => rt.send({ type: 'assert', proc: cfg.proc, message });

/**
 * Reliable point-to-point delivery (the paper's network, §1.4): resend until the peer has it,
 * under the same message id (a delivery that timed out may have arrived: the receiver drops
 * the repeat, and the trace names one message).
 */
function sendTo(to: number, msg: Msg): string {
  const peer = `n${to}`;
  const p = mn.post(peer, msg as unknown as Envelope['msg']);
  const retry = (d: { ok: boolean }): void => {
    if (!d.ok && !stopped) setTimeout(() => void mn.resend(peer, p.id, msg as unknown as Envelope['msg']).then(retry), 20);
  };
  void p.delivery.then(retry);
  return p.id;
}

/** Message ids delivered to this incarnation (each sender's ids are `<its incarnation>:<n>`): a resent one is dropped. */
const delivered = new Set<string>();

function makeNode(recovered: Map<string, { ts: number; v: string | null }>): MinosNode {
  return new MinosNode({
    id: cfg.id,
    n: cfg.n,
    model: cfg.model,
    offload: cfg.offload,
    bugs: new Set(cfg.bugs),
    keys: cfg.keys,
    log,
    recovered,
    send: sendTo,
    trace: (action, args, extra) => trace.step(cfg.proc, action, args, undefined, extra),
    bgFlushMs: cfg.bgFlushMs,
    assert,
  });
}

const fromIndex = (from: string) => Number.parseInt(from.slice(1), 10);
for (const t of ['INV', 'ACK', 'ACK_C', 'ACK_P', 'VAL', 'VAL_C', 'VAL_P', 'PERSIST']) {
  mn.on(t, (env) => {
    // before recovery installed the state nothing can arrive (every node restarted); drop it: the sender retries
    if (node === undefined || delivered.has(env.id)) return undefined;
    delivered.add(env.id);
    node.receive(fromIndex(env.from), env.msg as unknown as Msg, env.id);
    return undefined;
  });
}

// --- system-level recovery (§1.5: "a designated node sends the log") -------------------
const mine = MinosNode.recover(own.records);
type Table = [string, number, string | null][];
const table = (m: Map<string, { ts: number; v: string | null }>): Table => [...m].map(([k, e]) => [k, e.ts, e.v]);
mn.on('PULL', () => ({ type: 'TABLE', entries: table(mine) }));
mn.on('INSTALL', (env) => {
  install(env.msg.entries as Table);
  return { type: 'INSTALLED' };
});

function install(entries: Table): void {
  if (node !== undefined) return;
  const missing = entries.filter(([k, ts]) => (mine.get(k)?.ts ?? 0) < ts);
  if (missing.length > 0) log.commit(missing.map(([k, ts, v]) => Buffer.from(JSON.stringify({ k, ts, v })))); // durable before the node serves
  for (const [k, ts, v] of missing) mine.set(k, { ts, v });
  // `table`: per key, the TS this node serves from now on (the merged max), for the validator
  const recoveredTs: Record<string, number> = {};
  for (const [k, e] of mine) recoveredTs[k] = e.ts;
  trace.step(cfg.proc, 'recover', { entries: entries.length, adopted: missing.length, truncatedBytes: own.truncatedBytes, lostBytes, table: recoveredTs });
  node = makeNode(mine);
}

async function recoverAll(): Promise<void> {
  const merged = new Map(mine);
  for (let j = 0; j < cfg.n; j++) {
    if (j === cfg.id) continue;
    for (;;) {
      const d = await mn.call(`n${j}`, { type: 'PULL' }, 2000);
      if (d.ok && d.reply?.type === 'TABLE') {
        for (const [k, ts, v] of d.reply.entries as Table) if ((merged.get(k)?.ts ?? 0) < ts) merged.set(k, { ts, v });
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const entries = table(merged);
  for (let j = 0; j < cfg.n; j++) {
    if (j === cfg.id) continue;
    for (;;) {
      const d = await mn.call(`n${j}`, { type: 'INSTALL', entries }, 2000);
      if (d.ok && d.reply?.type === 'INSTALLED') break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  install(entries);
  rt.send({ type: 'recovered' });
}

// --- the clients -------------------------------------------------------------------------
async function recoveryReads(client: number): Promise<void> {
  for (const k of cfg.keys) {
    history.invoke(client, 'get', k, undefined);
    inflight.set(client, Date.now());
    const v = await node!.read(k, client);
    history.ok(client, v ?? '');
    inflight.delete(client);
  }
}

async function runClient(c: number): Promise<void> {
  const rng = new Rng(`${cfg.seed}/c${c}`);
  let seq = 0;
  let scope = 0;
  let inScope: [string, number][] = [];
  let scopeLen = 1 + rng.int(cfg.scopeWrites);
  const pause = () => new Promise((r) => (cfg.opIntervalMs > 0 ? setTimeout(r, cfg.opIntervalMs * (0.5 + rng.next())) : setImmediate(r)));
  while (!stopping) {
    const k = rng.pick(cfg.keys);
    inflight.set(c, Date.now());
    if (cfg.model === 'scope' && inScope.length >= scopeLen) {
      const sc = `s${c}.${scope}`;
      history.invoke(c, 'persist', undefined, sc);
      await node!.persistScope(sc, inScope, c);
      history.ok(c);
      scope++;
      inScope = [];
      scopeLen = 1 + rng.int(cfg.scopeWrites);
    } else if (rng.next() < cfg.readRatio) {
      history.invoke(c, 'get', k, undefined);
      history.ok(c, (await node!.read(k, c)) ?? '');
    } else {
      const v = `${c}.${++seq}`;
      history.invoke(c, 'put', k, v);
      const { ts } = await node!.write(k, v, cfg.model === 'scope' ? `s${c}.${scope}` : undefined, c);
      history.ok(c, ts); // the write's version: its TS_WR (checkers/durability orders writes by it)
      if (cfg.model === 'scope') inScope.push([k, ts]);
    }
    inflight.delete(c);
    ok++;
    await pause();
  }
}

let clients: Promise<void>[] = [];
rt.onMessage((m) => {
  switch (m.cmd) {
    case 'connect':
      for (const [j, port] of Object.entries(m.ports as Record<string, number>)) mn.connect(`n${j}`, port);
      return rt.send({ type: 'connected' });
    case 'local-reads':
      for (const k of cfg.keys) {
        history.invoke(m.client as number, 'get', k, undefined);
        history.ok(m.client as number, mine.get(k)?.v ?? '');
      }
      trace.step(cfg.proc, 'recoveredRead', { keys: cfg.keys.length });
      return rt.send({ type: 'local-read-done' });
    case 'recover':
      void recoverAll();
      return;
    case 'reads':
      void recoveryReads(m.client as number).then(() => rt.send({ type: 'reads-done' }));
      return;
    case 'start':
      void (async () => {
        rt.send({ type: 'started' });
        clients = (m.clients as number[]).map((c) => runClient(c));
        await Promise.all(clients);
        rt.send({ type: 'drained' });
      })();
      return;
    case 'stop':
      stopping = true;
      if (clients.length === 0) rt.send({ type: 'drained' });
      return;
    case 'exit':
      stopped = true;
      node?.stop();
      log.close();
      trace.close();
      history.close();
      process.exit(0);
  }
});

setInterval(() => {
  const now = Date.now();
  rt.send({ type: 'progress', ok, inflight: [...inflight].map(([id, t]) => ({ id, ms: now - t })), threads: node?.threads ?? 0 });
}, 500).unref();

const port = await mn.listen();
rt.ready({ port });
