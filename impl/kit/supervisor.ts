// Starting, signalling and always stopping the processes of a cluster.
//
// Each child runs in its own process group (so a signal reaches anything it forks, and a
// Ctrl-C on the terminal reaches only the harness, which then stops them in order) with
// an IPC channel to the parent. Four lines of defence keep any process from outliving
// the harness:
//  1. stop() / stopAll() on the normal path (and in tests' afterEach);
//  2. an 'exit' hook and SIGINT/SIGTERM/SIGHUP handlers in the harness that SIGKILL every
//     live process group synchronously;
//  3. in each child, childRuntime() exits when the IPC channel closes (parent gone);
//  4. a reaper process, in a group of its own, that SIGKILLs every registered group when
//     its channel to the harness closes: it covers a SIGKILLed harness whose children
//     are paused (a stopped child cannot run its own watchdog).

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

export class SpawnError extends Error {
  constructor(
    readonly child: string,
    message: string,
  ) {
    super(message);
    this.name = 'SpawnError';
  }
}

export interface SpawnSpec {
  /** A unique name: "mn0", "master", "cp1". */
  name: string;
  /** A JavaScript file node runs (a bundle from bundle.ts). */
  script: string;
  /** Passed to the child as one JSON argument (childRuntime().config). */
  config: Record<string, unknown>;
  /** The child's stdout and stderr are appended here. */
  logFile?: string;
  /** Time to wait for the child's ready message (ms). */
  readyTimeoutMs?: number;
  /** Extra node flags (e.g. --max-old-space-size). */
  nodeArgs?: string[];
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class Child {
  readonly pid: number;
  info: Record<string, unknown> = {};
  exit: ChildExit | undefined;
  paused = false;
  readonly exited: Promise<ChildExit>;
  private readonly listeners = new Set<(m: Record<string, unknown>) => void>();

  constructor(
    readonly name: string,
    readonly proc: ChildProcess,
    readonly logFile: string | undefined,
  ) {
    this.pid = proc.pid!;
    this.exited = new Promise((resolve) =>
      proc.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      }),
    );
    proc.on('message', (m) => {
      for (const l of this.listeners) l(m as Record<string, unknown>);
    });
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  send(message: Record<string, unknown>): void {
    if (this.alive && this.proc.connected) this.proc.send(message, () => undefined);
  }

  onMessage(listener: (m: Record<string, unknown>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Signals the child's whole process group. False if it is already gone. */
  signal(sig: NodeJS.Signals): boolean {
    if (!this.alive) return false;
    try {
      process.kill(-this.pid, sig);
      return true;
    } catch {
      return false;
    }
  }

  /** The last lines of the child's log, for error messages. */
  logTail(lines = 8): string {
    if (this.logFile === undefined) return '';
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}

// ---- the harness-wide safety net --------------------------------------------------------

const liveGroups = new Set<number>();
let reaper: ChildProcess | undefined;
let hooksInstalled = false;

function killAllNow(): void {
  for (const pgid of liveGroups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  liveGroups.clear();
}

// The reaper is a few lines of plain JavaScript, run with `node -e`: nothing to bundle.
const REAPER = `
const groups = new Set();
const parent = process.ppid;
const reap = () => { for (const g of groups) { try { process.kill(-g, 'SIGKILL'); } catch {} } process.exit(0); };
process.on('message', (m) => { if (m.watch) groups.add(m.watch); if (m.unwatch) groups.delete(m.unwatch); if (m.exit) process.exit(0); });
process.on('disconnect', reap);
setInterval(() => { if (process.ppid !== parent) reap(); }, 250);
`;

function watch(pgid: number): void {
  liveGroups.add(pgid);
  if (reaper === undefined || reaper.exitCode !== null) {
    reaper = spawn(process.execPath, ['-e', REAPER], { detached: true, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    reaper.unref();
    reaper.channel?.unref();
    reaper.on('error', () => undefined);
  }
  if (reaper.connected) reaper.send({ watch: pgid }, () => undefined);
  if (!hooksInstalled) {
    hooksInstalled = true;
    process.on('exit', () => {
      killAllNow();
      if (reaper?.connected) reaper.send({ exit: true }, () => undefined);
    });
  }
}

function unwatch(pgid: number): void {
  liveGroups.delete(pgid);
  if (reaper?.connected) reaper.send({ unwatch: pgid }, () => undefined);
}

let signalsInstalled = false;

/**
 * For the command-line harness: on SIGINT, SIGTERM or SIGHUP kill every child at once, run
 * `onSignal` (say what happened) and exit with 128 + the signal number.
 */
export function installSignalHandlers(onSignal: (sig: NodeJS.Signals) => void): void {
  if (signalsInstalled) return;
  signalsInstalled = true;
  const numbers: Record<string, number> = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      killAllNow();
      try {
        onSignal(sig);
      } finally {
        process.exit(128 + numbers[sig]);
      }
    });
  }
}

/** Pids of every process group the supervisors of this process started and have not reaped. */
export function liveProcessGroups(): number[] {
  return [...liveGroups];
}

// ---- supervisor -------------------------------------------------------------------------

export class Supervisor {
  readonly children = new Map<string, Child>();

  /** Starts a child and waits for its ready message; a child that exits first is a SpawnError. */
  async spawn(spec: SpawnSpec): Promise<Child> {
    const old = this.children.get(spec.name);
    if (old?.alive) throw new SpawnError(spec.name, `${spec.name} is already running (pid ${old.pid})`);
    const log = spec.logFile === undefined ? 'ignore' : openSync(spec.logFile, 'a');
    let proc: ChildProcess;
    try {
      // INTERLEAVE_CHILD_NODE_ARGS: node flags for every child (profiling: --cpu-prof ...)
      const extra = process.env.INTERLEAVE_CHILD_NODE_ARGS?.split(' ').filter((a) => a !== '') ?? [];
      proc = spawn(process.execPath, [...extra, ...(spec.nodeArgs ?? []), spec.script, JSON.stringify(spec.config)], {
        detached: true,
        stdio: ['ignore', log, log, 'ipc'],
      });
    } finally {
      if (typeof log === 'number') closeSync(log);
    }
    if (proc.pid === undefined) {
      throw new SpawnError(spec.name, `cannot start ${spec.name}: ${await new Promise<string>((r) => proc.once('error', (e) => r(e.message)))}`);
    }
    proc.on('error', () => undefined);
    proc.channel?.unref();
    const child = new Child(spec.name, proc, spec.logFile);
    this.children.set(spec.name, child);
    watch(child.pid);
    void child.exited.then(() => unwatch(child.pid));
    const timeoutMs = spec.readyTimeoutMs ?? 15_000;
    let off = (): void => undefined;
    let timer: NodeJS.Timeout | undefined;
    const ready = await new Promise<Record<string, unknown> | ChildExit | 'timeout'>((resolve) => {
      off = child.onMessage((m) => {
        if (m.type === 'ready') resolve(m);
      });
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
      void child.exited.then(resolve);
    });
    off();
    clearTimeout(timer);
    if (ready === 'timeout') {
      child.signal('SIGKILL');
      throw new SpawnError(spec.name, `${spec.name} did not report ready within ${timeoutMs} ms${tail(child)}`);
    }
    if ('code' in ready && !('type' in ready)) {
      const how = ready.signal !== null ? `was killed by ${ready.signal}` : `exited with code ${ready.code}`;
      throw new SpawnError(spec.name, `${spec.name} ${how} while starting${tail(child)}`);
    }
    child.info = ready as Record<string, unknown>;
    return child;
  }

  get(name: string): Child | undefined {
    return this.children.get(name);
  }

  /** kill -9 of a child (its process group). Resolves when it has exited. */
  async kill(name: string): Promise<void> {
    const c = this.children.get(name);
    if (c === undefined || !c.alive) return;
    c.signal('SIGKILL');
    await c.exited;
  }

  pause(name: string): boolean {
    const c = this.children.get(name);
    if (c === undefined || !c.signal('SIGSTOP')) return false;
    c.paused = true;
    return true;
  }

  resume(name: string): boolean {
    const c = this.children.get(name);
    if (c === undefined || !c.signal('SIGCONT')) return false;
    c.paused = false;
    return true;
  }

  /**
   * Stops every child: those that are running get `message` (if given) and `graceMs` to
   * exit on their own, then every survivor (paused ones included) is SIGKILLed.
   */
  async stopAll(message?: Record<string, unknown>, graceMs = 2000): Promise<void> {
    const live = [...this.children.values()].filter((c) => c.alive);
    for (const c of live) {
      if (c.paused) c.signal('SIGCONT');
      if (message) c.send(message);
    }
    if (message) await Promise.race([Promise.all(live.map((c) => c.exited)), new Promise((r) => setTimeout(r, graceMs))]);
    for (const c of live) c.signal('SIGKILL');
    await Promise.all(live.map((c) => c.exited));
  }
}

function tail(child: Child): string {
  const t = child.logTail();
  return t === '' ? '' : `; its last output:\n${t}`;
}
