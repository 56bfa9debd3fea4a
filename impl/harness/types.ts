// What the harness (`interleave run`) needs of an implementation: the options it runs
// with, and a Cluster it can drive. An implementation starts its own processes (with the
// kit's Supervisor and FaultProxy) and exposes them through this interface; the harness
// owns the workload clock, the nemesis, the recording merge, the checks and the report.

import type { Supervisor } from '../kit/supervisor.ts';

export interface RunOptions {
  /** Logical clients. */
  clients: number;
  /** Client processes they are spread over. */
  clientProcs: number;
  keys: number;
  /** Seconds of workload. */
  duration: number;
  /** Total operations per second over all clients; 0: as fast as they go. */
  rate: number;
  readRatio: number;
  nemesis: string[];
  bug?: string;
  seed: string;
  /** Memory nodes (FUSEE) / servers; replication factor. */
  nodes: number;
  replicas: number;
  /** First port of a fixed port range (0: ports the OS picks). */
  basePort: number;
  /** Seconds to wait for in-flight operations once the workload stops. */
  drain: number;
  /** Seconds the history check may take (0: no limit). */
  checkTimeout: number;
  /** Verb timeout (ms). */
  timeoutMs: number;
  /** The persistency model, for implementations that have several (MINOS: synch, strict, renf, event, scope). */
  persistency?: string;
  /** MINOS-O: the SmartNIC offload's ordering. */
  offload?: boolean;
}

/** A full-system crash, and the end of the recovery after it (ns since the run's start). */
export interface CrashMarker {
  event: 'crash' | 'recovered';
  time: number;
}

/** A place the nemesis can hit. */
export interface Target {
  name: string;
  role: 'server' | 'client' | 'coordinator';
}

/** Everything the harness records about a fault window, for the history and the report. */
export interface FaultRecord {
  kind: string;
  target: string;
  /** ns since the run's start. */
  start: number;
  end?: number;
  note?: string;
}

export interface Progress {
  ok: number;
  info: number;
  crashes: number;
  asserts: number;
  /** The oldest operation in flight per client process (ms). */
  oldestMs: number;
}

export interface Cluster {
  readonly targets: readonly Target[];
  /** Server faults (kills, and pauses or partitions that may end in a kill) the protocol tolerates. */
  readonly serverFaultBudget: number;
  kill(target: string): Promise<void>;
  /** Restarts a killed client process (fresh client ids). */
  restart(target: string): Promise<void>;
  pause(target: string): void;
  resume(target: string): void;
  /** Cuts a target off: a server or client process from everyone, the coordinator from the clients. */
  isolate(target: string): Promise<void>;
  heal(): Promise<void>;
  /** Delays, drops and duplicates frames on the clients' links. */
  degrade(faults: { delayMs: number; jitterMs: number; drop: number; duplicate: number }): Promise<void>;
  restore(): Promise<void>;
  progress(): Progress;
  /** Assertion failures reported by the processes. */
  assertions(): string[];
  /** Stops issuing operations; resolves with the operations still in flight after `drainMs`. */
  drain(drainMs: number): Promise<{ stuck: { proc: string; client: number; ms: number }[] }>;
  /** Stops every process (always called, also after a failure). */
  stop(): Promise<void>;
  /** Per-process trace files and raw history files, once stopped. */
  files(): { traces: string[]; histories: string[] };
  /** The trace header's params. */
  traceParams(): Record<string, unknown>;
  /** Faults the implementation itself caused (a master having a node killed). */
  faults(): FaultRecord[];
  /** Every process killed at once (the `power` nemesis), and the restart with recovery; optional. */
  powerFail?(): Promise<void>;
  powerRestore?(): Promise<void>;
  /** The full-system crashes and recoveries so far (the history's markers for checkers/durability). */
  markers?(): CrashMarker[];
}

export interface ClusterContext {
  options: RunOptions;
  /** Where per-process files go (DIR/procs). */
  workDir: string;
  /** The run's start on the monotonic clock (ns). */
  t0: number;
  supervisor: Supervisor;
  /**
   * The header line (JSON, no newline) of the run's traces for these trace params (the
   * Cluster's traceParams()): every per-process trace file starts with it (kit/recorder.ts
   * startTraceFile, before its process writes), so that the files a run leaves when it is
   * interrupted say what they are (validate reads them); the merged DIR/trace.jsonl has it once.
   */
  traceHeader(params: Record<string, unknown>): string;
}

export interface BugInfo {
  name: string;
  kind: 'safety' | 'control';
  description: string;
  breaks: string;
}

export interface Implementation {
  name: string;
  description: string;
  bugs: readonly BugInfo[];
  /** Canonical name of a bug flag (accepting aliases), or undefined. */
  bug(name: string): string | undefined;
  /** The nemeses it supports. */
  nemeses: readonly string[];
  /** The spec its traces are validated against. */
  spec: string;
  /** The checkers/lin model its history is checked with (per key). */
  model: string;
  /**
   * Every key is on every node: there is no replication factor to choose. `--replicas`
   * other than `--nodes` is refused, and the run records replicas = nodes.
   */
  everyKeyOnEveryNode?: true;
  /** The persistency models `--model` may name (none: the option is refused). */
  persistencies?: readonly string[];
  /** The checkers/durability model its crash histories are checked with (none: no durability check). */
  durability?(options: RunOptions): string;
  /** How many ports from a nonzero basePort on its cluster listens on (the CLI bounds --base-port by it). */
  portsTaken(options: Pick<RunOptions, 'nodes' | 'clientProcs'>): number;
  /** Checks options the implementation cannot run with; a message, or undefined. */
  validate(options: RunOptions): string | undefined;
  start(ctx: ClusterContext): Promise<Cluster>;
}

/** What became of the run's trace validation (the caller validates: the harness imports no spec). */
export interface TraceValidation {
  status: 'not-run' | 'valid' | 'invalid' | 'inconclusive';
  /** For people: the verdict's reason, or where and why the trace does not match. */
  detail?: string;
  /** Events matched per second, when it ran. */
  eventsPerSecond?: number;
  elapsedMs?: number;
}

/** Validates a merged trace (DIR/trace.jsonl) against a spec; `html` is written to DIR/validation.html. */
export type TraceValidator = (spec: string, traceFile: string) => Promise<{ validation: TraceValidation; html?: string }>;
