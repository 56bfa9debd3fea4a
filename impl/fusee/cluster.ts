// FUSEE as the harness runs it: n memory nodes, the master, client processes hosting the
// logical clients, and the fault proxy every connection passes through (links: each client
// process to each node and to the master, the master to each node).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { bundle } from '../kit/bundle.ts';
import { startTraceFile, TraceWriter } from '../kit/recorder.ts';
import type { LinkSpec } from '../kit/proxy.ts';
import { steerProxy } from '../kit/proxy-steer.ts';
import { drainProcesses, type Stuck } from '../kit/drain.ts';
import type { Child } from '../kit/supervisor.ts';
import type { Cluster, ClusterContext, FaultRecord, Implementation, Progress, RunOptions, Target } from '../harness/types.ts';
import { bugByName, BUGS } from './bugs.ts';
import type { ClientConfig } from './client-main.ts';
import { Layout, MAX_CLIENTS } from './layout.ts';
import type { MasterConfig } from './master-main.ts';

// The processes' entry points: the .ts sources in a checkout, their .js in the installed package (dist/).
const entry = (f: string) => fileURLToPath(new URL(import.meta.url.endsWith('.js') ? f.replace(/\.ts$/, '.js') : f, import.meta.url));

/** Timing of the membership service (ms). */
export const TIMING = { mnLeaseMs: 1000, clientLeaseMs: 1500, pollMs: 1 };

export const fusee: Implementation = {
  name: 'fusee',
  description: "FUSEE's SNAPSHOT replication (FAST '23): memory nodes, a master, clients",
  bugs: BUGS,
  bug: (name) => bugByName(name)?.name,
  nemeses: ['none', 'kill-mn', 'kill-client', 'pause', 'partition', 'net'],
  spec: 'fusee',
  model: 'kv-append',
  validate(o: RunOptions) {
    // The spec (specs/fusee), which a run's trace is validated against, needs a primary and a
    // backup per key: with no backup EVALUATE_RULES has no v_list (Alg. 2 is undefined for
    // m = 0; /work/shared/protocols/fusee-snapshot.md, open question 5). Refused here rather
    // than run and then judged by a validation that cannot read the trace.
    if (o.replicas < 2) return '--replicas must be at least 2 for fusee (a primary and a backup per key: the spec its trace is validated against has no rule for r = 1)';
    if (o.replicas > o.nodes) return `--replicas must be between 2 and --nodes (${o.nodes})`;
    if (o.clients > 512) return '--clients must be at most 512';
    if (o.keys > 10_000) return '--keys must be at most 10000';
    return undefined;
  },
  // The memory nodes and the master, then one proxy link from the master to each memory node
  // and from each client process to each memory node and the master (FuseeCluster.start).
  portsTaken: (o) => o.nodes + 1 + o.nodes + o.clientProcs * (o.nodes + 1),
  start: (ctx) => FuseeCluster.start(ctx),
};

interface ClientProc {
  slot: string;
  child: Child | undefined;
  incarnation: number;
  ids: number[];
  traceFile: string;
  historyFile: string;
  progress: Progress & { inflight: { id: number; ms: number }[] };
  drained: boolean;
}

class FuseeCluster implements Cluster {
  readonly targets: Target[] = [];
  readonly serverFaultBudget: number;
  private proxy!: Child;
  private master!: Child;
  private readonly procs = new Map<string, ClientProc>();
  private readonly traceFiles: string[] = [];
  private readonly historyFiles: string[] = [];
  private readonly asserts: string[] = [];
  private readonly faultLog: FaultRecord[] = [];
  private readonly nemesisTrace: TraceWriter;
  private readonly layout: Layout;
  private nextId = 1;
  private proxyPorts: Record<string, number> = {};
  private readonly deadNodes = new Set<number>();
  private readonly finished: ClientProc[] = [];

  private constructor(private readonly ctx: ClusterContext) {
    const o = ctx.options;
    this.layout = new Layout(Array.from({ length: o.keys }, (_, i) => `k${i}`), o.nodes, o.replicas);
    this.serverFaultBudget = o.replicas - 1;
    this.nemesisTrace = new TraceWriter(this.traceFile('nemesis'), ctx.t0);
  }

  /** A new per-process trace file, started with the run's header (kept for the merge). */
  private traceFile(name: string): string {
    const file = startTraceFile(this.ctx.workDir, name, this.ctx.traceHeader(this.traceParams()));
    this.traceFiles.push(file);
    return file;
  }

  static async start(ctx: ClusterContext): Promise<FuseeCluster> {
    const c = new FuseeCluster(ctx);
    await c.boot();
    return c;
  }

  private port(i: number): number {
    return this.ctx.options.basePort === 0 ? 0 : this.ctx.options.basePort + i;
  }

  private async boot(): Promise<void> {
    const { options: o, supervisor: sup, workDir } = this.ctx;
    const bugs = o.bug ? [o.bug] : [];
    // The clients' bundle is built now too, beside the others (bundle() keeps it for their spawns).
    const [mnScript, masterScript, proxyScript] = await Promise.all([
      bundle(entry('../kit/memnode-main.ts')),
      bundle(entry('./master-main.ts')),
      bundle(entry('../kit/proxy-main.ts')),
      bundle(entry('./client-main.ts')),
    ]);
    // memory nodes
    const mnPorts: number[] = [];
    for (let i = 0; i < o.nodes; i++) {
      const child = await sup.spawn({ name: `mn${i}`, script: mnScript, config: { words: this.layout.words, port: this.port(i) }, logFile: join(workDir, `mn${i}.log`) });
      mnPorts.push(Number(child.info.port));
      this.targets.push({ name: `mn${i}`, role: 'server' });
    }
    // the master (listening), then the proxy with every link
    const masterTrace = this.traceFile('master');
    const mcfg: MasterConfig = {
      keys: [...this.layout.keys],
      n: o.nodes,
      r: o.replicas,
      port: this.port(o.nodes),
      seed: o.seed,
      t0: this.ctx.t0,
      bugs,
      traceFile: masterTrace,
      mnLeaseMs: TIMING.mnLeaseMs,
      clientLeaseMs: TIMING.clientLeaseMs,
      timeoutMs: Math.max(o.timeoutMs, 2000),
      pollMs: TIMING.pollMs,
    };
    this.master = await sup.spawn({ name: 'master', script: masterScript, config: mcfg as unknown as Record<string, unknown>, logFile: join(workDir, 'master.log') });
    this.targets.push({ name: 'master', role: 'coordinator' });
    const masterPort = Number(this.master.info.port);
    const links: LinkSpec[] = [];
    let next = o.nodes + 1;
    for (let i = 0; i < o.nodes; i++) links.push({ name: `master>mn${i}`, from: 'master', to: `mn${i}`, port: mnPorts[i], listen: this.port(next++) });
    for (let p = 0; p < o.clientProcs; p++) {
      for (let i = 0; i < o.nodes; i++) links.push({ name: `cp${p}>mn${i}`, from: `cp${p}`, to: `mn${i}`, port: mnPorts[i], listen: this.port(next++) });
      links.push({ name: `cp${p}>master`, from: `cp${p}`, to: 'master', port: masterPort, listen: this.port(next++) });
    }
    this.proxy = await sup.spawn({ name: 'proxy', script: proxyScript, config: { links, seed: o.seed }, logFile: join(workDir, 'proxy.log') });
    this.proxyPorts = this.proxy.info.ports as Record<string, number>;
    // the master starts leasing the nodes; it asks the harness to kill those whose lease lapsed
    this.master.onMessage((m) => this.fromMaster(m));
    const started = new Promise<void>((r) => {
      const off = this.master.onMessage((m) => {
        if (m.type === 'started') {
          off();
          r();
        }
      });
    });
    this.master.send({ cmd: 'start', mnPorts: Array.from({ length: o.nodes }, (_, i) => this.proxyPorts[`master>mn${i}`]) });
    await started;
    // client processes, the logical clients spread evenly
    for (let p = 0; p < o.clientProcs; p++) {
      const count = Math.floor(o.clients / o.clientProcs) + (p < o.clients % o.clientProcs ? 1 : 0);
      const slot = `cp${p}`;
      const proc: ClientProc = { slot, child: undefined, incarnation: 0, ids: [], traceFile: '', historyFile: '', progress: emptyProgress(), drained: false };
      this.procs.set(slot, proc);
      this.targets.push({ name: slot, role: 'client' });
      await this.spawnClient(proc, count);
    }
  }

  private clientCount(slot: string): number {
    const o = this.ctx.options;
    const p = Number(slot.slice(2));
    return Math.floor(o.clients / o.clientProcs) + (p < o.clients % o.clientProcs ? 1 : 0);
  }

  private freshId(): number | undefined {
    return this.nextId < MAX_CLIENTS ? this.nextId++ : undefined;
  }

  private async spawnClient(proc: ClientProc, count: number): Promise<void> {
    const o = this.ctx.options;
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const id = this.freshId();
      if (id !== undefined) ids.push(id);
    }
    proc.incarnation++;
    const name = proc.incarnation === 1 ? proc.slot : `${proc.slot}.${proc.incarnation}`;
    proc.ids = ids;
    proc.traceFile = this.traceFile(name);
    proc.historyFile = join(this.ctx.workDir, `history-${name}.jsonl`);
    proc.progress = emptyProgress();
    proc.drained = false;
    this.historyFiles.push(proc.historyFile);
    const perClientRate = o.rate > 0 ? o.rate / o.clients : 0;
    const cfg: ClientConfig = {
      proc: proc.slot,
      ids,
      keys: [...this.layout.keys],
      n: o.nodes,
      r: o.replicas,
      mnPorts: Array.from({ length: o.nodes }, (_, i) => this.proxyPorts[`${proc.slot}>mn${i}`]),
      masterPort: this.proxyPorts[`${proc.slot}>master`],
      seed: o.seed,
      t0: this.ctx.t0,
      bugs: o.bug ? [o.bug] : [],
      timeoutMs: o.timeoutMs,
      pollMs: TIMING.pollMs,
      readRatio: o.readRatio,
      opIntervalMs: perClientRate > 0 ? 1000 / perClientRate : 0,
      maxOps: Math.max(1000, Math.ceil((o.rate > 0 ? perClientRate : 5000) * o.duration * 4)),
      traceFile: proc.traceFile,
      historyFile: proc.historyFile,
    };
    const child = await this.ctx.supervisor.spawn({ name, script: await bundle(entry('./client-main.ts')), config: cfg as unknown as Record<string, unknown>, logFile: join(this.ctx.workDir, `${name}.log`) });
    proc.child = child;
    child.onMessage((m) => {
      if (m.type === 'progress') proc.progress = { ok: Number(m.ok), info: Number(m.info), crashes: Number(m.crashes), asserts: Number(m.asserts), oldestMs: 0, inflight: m.inflight as { id: number; ms: number }[] };
      else if (m.type === 'assert') this.asserts.push(`${String(m.proc)}: ${String(m.message)}`);
      else if (m.type === 'drained') proc.drained = true;
      else if (m.type === 'need-id') {
        const id = this.freshId();
        if (id !== undefined) {
          proc.ids.push(id);
          child.send({ type: 'id', id });
        }
      }
    });
  }

  private fromMaster(m: Record<string, unknown>): void {
    if (m.type === 'assert') this.asserts.push(`master: ${String(m.message)}`);
    if (m.type === 'kill-mn') {
      const mn = Number(m.mn);
      void (async () => {
        if (!this.deadNodes.has(mn)) {
          // a node the master declared dead (its lease lapsed: paused, cut off): killed for good
          const now = elapsed(this.ctx.t0);
          this.faultLog.push({ kind: 'kill-mn', target: `mn${mn}`, start: now, note: 'requested by the master (lease lapsed)' });
          await this.killNode(mn);
        }
        this.master.send({ type: 'mn-killed', mn });
      })();
    }
  }

  private async killNode(mn: number): Promise<void> {
    if (this.deadNodes.has(mn)) return;
    this.deadNodes.add(mn);
    await this.ctx.supervisor.kill(`mn${mn}`);
    this.nemesisTrace.step('nemesis', 'crashMN', { mn });
  }

  async kill(target: string): Promise<void> {
    if (target.startsWith('mn')) return this.killNode(Number(target.slice(2)));
    const proc = this.procs.get(target);
    if (proc?.child === undefined || !proc.child.alive) return;
    await this.ctx.supervisor.kill(proc.child.name);
    // crashClient for every logical client of the process that had not crashed by itself
    const crashedAlready = crashedIn(proc.traceFile);
    for (const id of proc.ids) if (!crashedAlready.has(`c${id}`)) this.nemesisTrace.step('nemesis', 'crashClient', { client: `c${id}` });
    this.finished.push({ ...proc });
  }

  async restart(target: string): Promise<void> {
    const proc = this.procs.get(target);
    if (proc === undefined || proc.child?.alive) return;
    await this.spawnClient(proc, this.clientCount(target));
  }

  private nameOf(target: string): string {
    return this.procs.get(target)?.child?.name ?? target;
  }

  pause(target: string): void {
    this.ctx.supervisor.pause(this.nameOf(target));
  }

  resume(target: string): void {
    this.ctx.supervisor.resume(this.nameOf(target));
  }

  isolate(target: string): Promise<void> {
    if (target === 'master') {
      // the master is replicated in the paper: cut only its clients off it
      return steerProxy(this.proxy, { cmd: 'block', links: [...this.procs.keys()].map((p) => `${p}>master`) });
    }
    return steerProxy(this.proxy, { cmd: 'isolate', procs: [target] });
  }

  heal(): Promise<void> {
    return steerProxy(this.proxy, { cmd: 'heal' });
  }

  degrade(f: { delayMs: number; jitterMs: number; drop: number; duplicate: number }): Promise<void> {
    const clientLinks = Object.keys(this.proxyPorts).filter((l) => l.startsWith('cp'));
    // the master's links get delays and duplicates but no drops: it never crashes, so an
    // unknown outcome of its own verbs could not be explained in its trace
    const masterLinks = Object.keys(this.proxyPorts).filter((l) => l.startsWith('master>'));
    return steerProxy(this.proxy, { cmd: 'net', faults: f, links: clientLinks }).then(() => steerProxy(this.proxy, { cmd: 'net', faults: { ...f, drop: 0 }, links: masterLinks }));
  }

  restore(): Promise<void> {
    return steerProxy(this.proxy, { cmd: 'clear-net' });
  }

  progress(): Progress {
    const all = [...this.procs.values(), ...this.finished];
    const sum: Progress = { ok: 0, info: 0, crashes: 0, asserts: 0, oldestMs: 0 };
    for (const p of all) {
      sum.ok += p.progress.ok;
      sum.info += p.progress.info;
      sum.crashes += p.progress.crashes;
      sum.asserts += p.progress.asserts;
    }
    for (const p of this.procs.values()) for (const f of p.progress.inflight) sum.oldestMs = Math.max(sum.oldestMs, f.ms);
    return sum;
  }

  assertions(): string[] {
    return [...this.asserts];
  }

  drain(drainMs: number): Promise<{ stuck: Stuck[] }> {
    return drainProcesses(this.procs.values(), drainMs);
  }

  async stop(): Promise<void> {
    await this.ctx.supervisor.stopAll({ cmd: 'exit' }, 2000);
    this.nemesisTrace.close();
  }

  files(): { traces: string[]; histories: string[] } {
    return { traces: [...this.traceFiles], histories: [...this.historyFiles] };
  }

  traceParams(): Record<string, unknown> {
    return { r: this.layout.r, n: this.layout.n, replicas: this.layout.replicaMap(), bugs: this.ctx.options.bug ? [this.ctx.options.bug] : [] };
  }

  faults(): FaultRecord[] {
    return [...this.faultLog];
  }
}

function emptyProgress(): Progress & { inflight: { id: number; ms: number }[] } {
  return { ok: 0, info: 0, crashes: 0, asserts: 0, oldestMs: 0, inflight: [] };
}

function elapsed(t0: number): number {
  return Math.max(0, Number(process.hrtime.bigint()) - t0);
}

/** The logical clients whose crashClient is in a trace file. */
function crashedIn(file: string): Set<string> {
  const out = new Set<string>();
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    if (!line.includes('"crashClient"')) continue;
    try {
      const e = JSON.parse(line) as { action?: string; proc?: string };
      if (e.action === 'crashClient' && e.proc !== undefined) out.add(e.proc);
    } catch {
      // a torn last line
    }
  }
  return out;
}
