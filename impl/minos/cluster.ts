// MINOS as the harness runs it: n node processes (each with its logical clients and its NVM
// log file), every node-to-node link through the fault proxy (one link per ordered pair).
//
// Faults: `power` SIGKILLs every node at once, then restarts them all: each recovers its own
// log and reads every key once from it (per-replica recovery: the reads the durability
// check judges; REnf reads after the merge), then node 0 merges the logs (system-level
// recovery, extraction §1.5: the max-TS entry per key, installed durably everywhere) and
// the workload resumes with fresh clients. `kill`
// SIGKILLs one node; MINOS has no per-node rejoin (the paper leaves recovery to future
// work; a node's reinsertion needs a membership protocol it does not give, §1.5), so the
// others stall on its ACKs until the restart, which is a full-system restart: the rest are
// killed too and everything recovers as after a power failure. `pause` and `partition` hit
// one node; the reliable network (retries) carries the protocol through them.

import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { bundle } from '../kit/bundle.ts';
import type { LinkSpec } from '../kit/proxy.ts';
import { steerProxy } from '../kit/proxy-steer.ts';
import { drainProcesses, type Stuck } from '../kit/drain.ts';
import type { Child } from '../kit/supervisor.ts';
import { startTraceFile, TraceWriter } from '../kit/recorder.ts';
import { monoNs } from '../kit/verbs.ts';
import type { Cluster, ClusterContext, CrashMarker, FaultRecord, Implementation, Progress, RunOptions, Target } from '../harness/types.ts';
import { bugByName, BUGS } from './bugs.ts';
import type { NodeConfig } from './node-main.ts';
import { MAX_NODES, MODELS, type Model } from './node.ts';

const entry = (f: string) => fileURLToPath(new URL(import.meta.url.endsWith('.js') ? f.replace(/\.ts$/, '.js') : f, import.meta.url));

/** Background persists are group-committed this often (ms): the Event/Scope/REnf durability lag. */
export const BG_FLUSH_MS = 20;

export const minos: Implementation = {
  name: 'minos',
  description: 'MINOS (HPCA 2024): <Lin, Synch|Strict|REnf|Event|Scope>, MINOS-B or MINOS-O (--offload), leaderless nodes with NVM logs',
  bugs: BUGS,
  bug: (name) => bugByName(name)?.name,
  nemeses: ['none', 'power', 'kill', 'pause', 'partition'],
  spec: 'minos',
  model: 'kv-append',
  everyKeyOnEveryNode: true,
  persistencies: MODELS,
  durability: (o) => o.persistency ?? 'synch',
  // The nodes, then a proxy link for each ordered pair of nodes (MinosCluster.start).
  portsTaken: (o) => o.nodes * o.nodes,
  validate(o: RunOptions) {
    if (o.nodes < 2 || o.nodes > 5) return '--nodes must be between 2 and 5 for minos';
    if (o.nodes > MAX_NODES) return `--nodes must be at most ${MAX_NODES}`;
    if (o.persistency !== undefined && !MODELS.includes(o.persistency as Model)) return `--model must be one of ${MODELS.join(', ')}`;
    if (o.keys > 10_000) return '--keys must be at most 10000';
    if (o.clients > 256) return '--clients must be at most 256';
    const b = o.bug === undefined ? undefined : bugByName(o.bug);
    if (b?.models !== undefined && !b.models.includes(o.persistency ?? 'synch')) return `bug ${b.name} changes nothing under --model ${o.persistency ?? 'synch'}; it applies to ${b.models.join(', ')}`;
    if (b?.offload === true && o.offload !== true) return `bug ${b.name} needs --offload`;
    return undefined;
  },
  start: (ctx) => MinosCluster.start(ctx),
};

interface NodeProc {
  i: number;
  child: Child | undefined;
  incarnation: number;
  port: number;
  clients: number[];
  progress: { ok: number; inflight: { id: number; ms: number }[] };
  okBefore: number;
  drained: boolean;
}

class MinosCluster implements Cluster {
  readonly targets: Target[] = [];
  readonly serverFaultBudget: number;
  private proxy!: Child;
  private proxyPorts: Record<string, number> = {};
  private readonly nodes: NodeProc[] = [];
  private readonly traceFiles: string[] = [];
  private readonly historyFiles: string[] = [];
  private readonly asserts: string[] = [];
  private readonly marks: CrashMarker[] = [];
  private nextClient = 1;
  /** The nemesis's own trace lines (the power failures: `crashNode`), process `nemesis`. */
  private nemesisTrace: TraceWriter | undefined;
  private powerFailures = 0;
  private script = '';
  private stopping = false;

  private constructor(private readonly ctx: ClusterContext) {
    this.serverFaultBudget = ctx.options.nodes;
  }

  static async start(ctx: ClusterContext): Promise<MinosCluster> {
    const c = new MinosCluster(ctx);
    await c.boot();
    return c;
  }

  private get model(): Model {
    return (this.ctx.options.persistency ?? 'synch') as Model;
  }

  private async boot(): Promise<void> {
    const o = this.ctx.options;
    const [nodeScript, proxyScript] = await Promise.all([bundle(entry('./node-main.ts')), bundle(entry('../kit/proxy-main.ts'))]);
    this.script = nodeScript;
    for (let i = 0; i < o.nodes; i++) {
      const p: NodeProc = { i, child: undefined, incarnation: 0, port: o.basePort === 0 ? 0 : o.basePort + i, clients: [], progress: { ok: 0, inflight: [] }, okBefore: 0, drained: false };
      this.nodes.push(p);
      this.targets.push({ name: `n${i}`, role: 'server' });
    }
    await Promise.all(this.nodes.map((p) => this.spawn(p)));
    const links: LinkSpec[] = [];
    let next = o.nodes;
    for (const a of this.nodes) {
      for (const b of this.nodes) {
        if (a !== b) links.push({ name: `n${a.i}>n${b.i}`, from: `n${a.i}`, to: `n${b.i}`, port: b.port, listen: o.basePort === 0 ? 0 : o.basePort + next++ });
      }
    }
    this.proxy = await this.ctx.supervisor.spawn({ name: 'proxy', script: proxyScript, config: { links, seed: o.seed }, logFile: join(this.ctx.workDir, 'proxy.log') });
    this.proxyPorts = this.proxy.info.ports as Record<string, number>;
    await this.bringUp(false);
  }

  private clientCount(i: number): number {
    const o = this.ctx.options;
    return Math.floor(o.clients / o.nodes) + (i < o.clients % o.nodes ? 1 : 0);
  }

  private async spawn(p: NodeProc, powerLoss = false): Promise<void> {
    const o = this.ctx.options;
    p.incarnation++;
    const proc = this.procName(p);
    const traceFile = this.traceFile(proc);
    const historyFile = join(this.ctx.workDir, `history-${proc}.jsonl`);
    this.historyFiles.push(historyFile);
    const perClientRate = o.rate > 0 ? o.rate / o.clients : 0;
    const cfg: NodeConfig = {
      id: p.i,
      n: o.nodes,
      model: this.model,
      offload: o.offload === true,
      bugs: o.bug ? [o.bug] : [],
      keys: Array.from({ length: o.keys }, (_, i) => `k${i}`),
      port: p.port,
      nvmFile: join(this.ctx.workDir, `nvm-n${p.i}.log`),
      traceFile,
      historyFile,
      proc,
      t0: this.ctx.t0,
      seed: `${o.seed}/${proc}`,
      readRatio: o.readRatio,
      opIntervalMs: perClientRate > 0 ? 1000 / perClientRate : 0,
      scopeWrites: 3,
      bgFlushMs: BG_FLUSH_MS,
      timeoutMs: Math.max(200, o.timeoutMs),
      powerLoss,
      ...(p.incarnation > 1 ? { crashRecv: this.crashMessage(p.i) } : {}),
    };
    p.okBefore += p.progress.ok;
    p.progress = { ok: 0, inflight: [] };
    p.drained = false;
    const child = await this.ctx.supervisor.spawn({ name: `n${p.i}`, script: this.script, config: cfg as unknown as Record<string, unknown>, logFile: join(this.ctx.workDir, `${proc}.log`) });
    p.child = child;
    p.port = Number(child.info.port);
    child.onMessage((m) => {
      if (m.type === 'progress') p.progress = { ok: Number(m.ok), inflight: m.inflight as { id: number; ms: number }[] };
      else if (m.type === 'assert') this.asserts.push(`${String(m.proc)}: ${String(m.message)}`);
      else if (m.type === 'drained') p.drained = true;
    });
  }

  private waitFor(child: Child, type: string, send?: Record<string, unknown>): Promise<void> {
    return new Promise((resolve) => {
      const off = child.onMessage((m) => {
        if (m.type === type) {
          off();
          resolve();
        }
      });
      void child.exited.then(() => {
        off();
        resolve();
      });
      if (send) child.send(send);
    });
  }

  /** Connects the nodes, runs the recovery from their logs, starts their clients (after the recovery reads, on a restart). */
  private async bringUp(restart: boolean): Promise<void> {
    for (const p of this.nodes) {
      const ports: Record<string, number> = {};
      for (const q of this.nodes) if (q !== p) ports[q.i] = this.proxyPorts[`n${p.i}>n${q.i}`];
      await this.waitFor(p.child!, 'connected', { cmd: 'connect', ports });
    }
    // Every node has recovered its own log. The durability check reads each replica's state
    // (per-replica recovery) before the system-level merge, except under REnf, whose
    // coordinator persists in the background and is promised only system-level durability
    // (extraction §3.2, REnf-literal): its recovery reads come after the merge.
    const perReplica = this.model !== 'renf';
    if (restart) {
      this.marks.push({ event: 'recovered', time: this.now() });
      if (perReplica) await Promise.all(this.nodes.map((p) => this.waitFor(p.child!, 'local-read-done', { cmd: 'local-reads', client: this.nextClient++ })));
    }
    await this.waitFor(this.nodes[0].child!, 'recovered', { cmd: 'recover' });
    if (restart && !perReplica) await Promise.all(this.nodes.map((p) => this.waitFor(p.child!, 'reads-done', { cmd: 'reads', client: this.nextClient++ })));
    await Promise.all(
      this.nodes.map((p) => {
        p.clients = Array.from({ length: this.clientCount(p.i) }, () => this.nextClient++);
        return this.waitFor(p.child!, 'started', { cmd: 'start', clients: this.stopping ? [] : p.clients });
      }),
    );
  }

  private now(): number {
    return Math.max(0, monoNs() - this.ctx.t0);
  }

  private procName(p: NodeProc): string {
    return p.incarnation === 1 ? `n${p.i}` : `n${p.i}.${p.incarnation}`;
  }

  /** The message the last `crashNode` line of the latest power failure sends to node i's next incarnation. */
  private crashMessage(i: number): string {
    return `nemesis:power${this.powerFailures}>n${i}`;
  }

  /**
   * Every node SIGKILLed at once (a full-system power failure). The trace gets one
   * `crashNode` line per node (each ends that node's incarnation; a node killed earlier
   * ends there too), the last one sending each node's next incarnation the message its
   * `recover` line receives: the spec's crash comes after every step of the nodes that
   * died and before every step of those that restart (impl/minos/README.md, "The trace").
   */
  async powerFail(): Promise<void> {
    const live = this.nodes.filter((p) => p.child?.alive);
    for (const p of live) p.child!.signal('SIGKILL');
    this.marks.push({ event: 'crash', time: this.now() });
    await Promise.all(live.map((p) => p.child!.exited));
    this.powerFailures++;
    this.nemesisTrace ??= this.openNemesisTrace();
    this.nodes.forEach((p, j) => {
      const last = j === this.nodes.length - 1;
      this.nemesisTrace!.step('nemesis', 'crashNode', { node: p.i, proc: this.procName(p) }, undefined, last ? { send: this.nodes.map((q) => this.crashMessage(q.i)) } : undefined);
    });
  }

  private openNemesisTrace(): TraceWriter {
    return new TraceWriter(this.traceFile('nemesis'), this.ctx.t0);
  }

  /** A new per-process trace file, started with the run's header (kept for the merge). */
  private traceFile(name: string): string {
    const file = startTraceFile(this.ctx.workDir, name, this.ctx.traceHeader(this.traceParams()));
    this.traceFiles.push(file);
    return file;
  }

  /** Every node restarted; recovery from the logs; recovery reads; the workload resumes. */
  async powerRestore(): Promise<void> {
    await Promise.all(this.nodes.map((p) => this.spawn(p, true)));
    await this.bringUp(true);
  }

  markers(): CrashMarker[] {
    return [...this.marks];
  }

  async kill(target: string): Promise<void> {
    const p = this.nodes.find((q) => `n${q.i}` === target);
    if (p?.child?.alive) await this.ctx.supervisor.kill(`n${p.i}`);
  }

  /** A killed node comes back only through a full-system restart (no per-node rejoin in MINOS). */
  async restart(): Promise<void> {
    await this.powerFail();
    await this.powerRestore();
  }

  pause(target: string): void {
    this.ctx.supervisor.pause(target);
  }

  resume(target: string): void {
    this.ctx.supervisor.resume(target);
  }

  isolate(target: string): Promise<void> {
    return steerProxy(this.proxy, { cmd: 'isolate', procs: [target] });
  }

  heal(): Promise<void> {
    return steerProxy(this.proxy, { cmd: 'heal' });
  }

  degrade(f: { delayMs: number; jitterMs: number; drop: number; duplicate: number }): Promise<void> {
    return steerProxy(this.proxy, { cmd: 'net', faults: f });
  }

  restore(): Promise<void> {
    return steerProxy(this.proxy, { cmd: 'clear-net' });
  }

  progress(): Progress {
    const sum: Progress = { ok: 0, info: 0, crashes: 0, asserts: this.asserts.length, oldestMs: 0 };
    for (const p of this.nodes) {
      sum.ok += p.okBefore + p.progress.ok;
      for (const f of p.progress.inflight) sum.oldestMs = Math.max(sum.oldestMs, f.ms);
    }
    return sum;
  }

  assertions(): string[] {
    return [...this.asserts];
  }

  drain(drainMs: number): Promise<{ stuck: Stuck[] }> {
    this.stopping = true;
    return drainProcesses(this.nodes, drainMs);
  }

  async stop(): Promise<void> {
    this.nemesisTrace?.close();
    await this.ctx.supervisor.stopAll({ cmd: 'exit' }, 2000);
  }

  files(): { traces: string[]; histories: string[] } {
    return { traces: [...this.traceFiles], histories: [...this.historyFiles] };
  }

  traceParams(): Record<string, unknown> {
    const o = this.ctx.options;
    return { n: o.nodes, model: this.model, offload: o.offload === true, keys: o.keys, bugs: o.bug ? [o.bug] : [] };
  }

  faults(): FaultRecord[] {
    return [];
  }
}
