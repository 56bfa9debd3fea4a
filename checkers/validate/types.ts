// The trace-validation contract: what a spec gives the validator so that an
// implementation's protocol trace (traces/protocol-trace.ts) can be checked against it,
// and what the validator answers. Plain data and pure functions, like the explorer's
// contract; the validator never imports a spec, and a spec imports only these types.

import type { Action } from '../explore/types.ts';
import type { TraceEvent } from '../../traces/protocol-trace.ts';

export type { TraceEvent };

/** What the trace says about itself: the header's params (merged over the files) and the chosen config. */
export interface TraceInfo {
  /** The header's `spec`, when a file names one. */
  spec?: string;
  /** The header's `params` (null-prototype object; empty when no file has a header). */
  params: Record<string, unknown>;
  /** A validation config the spec offers (`TraceSpec.configs`), by name. */
  config: string;
}

/**
 * A step's place at a shared object: it changed `obj` as its `seq`-th change, or read it
 * after its `saw`-th change (0: before any).
 */
export type Access = { obj: string; seq: number; saw?: undefined } | { obj: string; saw: number; seq?: undefined };

/** How a spec reads protocol traces: `SpecDef.trace`. */
export interface TraceSpec {
  /** Validation configs (e.g. a per-backup CAS order); the first is the default. */
  configs: readonly { name: string; description: string }[];
  /**
   * The mapping for one trace. Throws a `TraceSpecError` when the header lacks what the
   * mapping needs (the CLI reports it as bad input, exit 65).
   */
  open(info: TraceInfo): TraceMapping;
}

/** A mapping's complaint about the trace as a whole (its header), reported as bad input. */
export class TraceSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceSpecError';
  }
}

/**
 * The events of one trace, read against one spec. Events are checked once (`check`), routed
 * to partitions that are validated independently (FUSEE: one per key), and matched there
 * against the partition's state machine.
 */
export interface TraceMapping<S = any, A extends Action = Action> {
  /**
   * Refuses an event the mapping cannot read: an unknown action, missing or ill-typed
   * args, an unknown key. Returns what was expected, or undefined when the event is fine.
   */
  check(ev: TraceEvent): string | undefined;
  /** Every partition, known from the header (a global event goes to each). */
  readonly partitions: readonly string[];
  /** The partitions an event belongs to, or 'all' (a global event: a crash, a fence). */
  route(ev: TraceEvent): readonly string[] | 'all';
  /**
   * The shared objects the event accessed, for ordering. Default: `obj` with `objSeq` or
   * `objSaw`. An event may access several objects (a read of every backup, a master's
   * write to every replica). Objects belong to one partition.
   */
  accesses?(ev: TraceEvent): readonly Access[];
  /** The process this event ends (a crash): it comes after every event of that process. */
  ends?(ev: TraceEvent): string | undefined;
  /**
   * Whether a process may access shared objects (default: yes). The validator waits for a
   * process that may before it lets an object change past what it could still read.
   */
  accessesObjects?(proc: string): boolean;
  /**
   * Whether an event is local: it acts only on its own process's part of the spec state
   * and on the objects it names. The search takes an enabled local event as soon as it is
   * ready and branches only over the other events, so the mapping promises: for a local
   * event e ready at a state t and any event f of another process that the trace leaves
   * unordered with e, if f then e is a valid path from t and e is enabled at t, then e then
   * f is valid from t and ends in the same state (checkers/validate/README.md).
   */
  local(ev: TraceEvent): boolean;
  /** The state machine that validates one partition. */
  partition(name: string): PartitionSpec<S, A>;
}

/** One partition's spec: its states, what an event denotes in a state, and the steps. */
export interface PartitionSpec<S = any, A extends Action = Action> {
  init(): S;
  /** What identifies a state, for deduplicating candidates (default: the state). */
  view?(s: S): unknown;
  /** The spec's own state inside a partition state: observation paths are read there (default: the state). */
  inner?(s: S): unknown;
  /** The state as people should read it (default: `inner`). */
  show?(s: S): unknown;
  /** Is `a` enabled in s? true, or the guard that is false, in words. */
  enabled(s: S, a: A): true | string;
  next(s: S, a: A): S;
  /**
   * The ways an event can be matched in s: usually one; several when the event leaves a
   * spec choice open. A string says why none applies (the event names a process or value
   * the state does not have).
   */
  denote(s: S, ev: TraceEvent): readonly Denotation<S, A>[] | string;
  /**
   * Steps the implementation never logs (internal steps), that the search may insert
   * before an event that matches nothing as it stands (at most `maxUnlogged` of them).
   */
  unlogged?(s: S): readonly A[];
}

/**
 * One way to match an event: optionally rewrite the state first (a process joining the
 * partition), take `steps` in order (none: the event is a stutter of the spec), compare
 * the observations, and optionally rewrite the state after (a process leaving).
 */
export interface Denotation<S = any, A extends Action = Action> {
  before?(s: S): S;
  steps: readonly A[];
  observe?: readonly Observation[];
  after?(s: S): S;
  /** What the alternative is, when there are several ("c3 lost casBackup(c3, r1) with its crash"). */
  note?: string;
  /** How many of `steps` no event logged (a step lost with a crashed process). */
  filled?: number;
  /**
   * The event is no step of this partition, in this state and in every state it could
   * meet here (a crash of a node that holds none of the partition's objects): the search
   * takes it at once, like a local event. Only with no steps, no `before` and no `after`.
   */
  inert?: boolean;
}

/**
 * A value the event reports, compared with the spec state: `path` is read in the spec
 * state (`PartitionSpec.inner`) before the first step or after the last one (`at`).
 */
export interface Observation {
  /** The event's field ("args.prior"). */
  field: string;
  /** The value in spec terms (FUSEE: a crashed replica's "FAIL" is -1). */
  expected: unknown;
  /** Where in the state: "rep[1]", "cl[2].vOld". */
  path: string;
  /** A derived value instead of the one at `path` (which then only names it). */
  read?(inner: unknown): unknown;
  at: 'before' | 'after';
  /** How to name the path for people ("mn2/k0's slot (rep[1])"). */
  what?: string;
  /** The value as the event wrote it, when it differs from `expected` ("FAIL"). */
  raw?: unknown;
}

// ---------------------------------------------------------------------------------------
// Options and results.

/**
 * The default slack (ns): a real run's process may be stopped (`run --nemesis pause`, a
 * SIGSTOP of up to ~2.5 s; a loaded machine's scheduling) between its step and the write
 * of its line. `interleave run` and `interleave validate` use the same, so that a run's
 * trace gets the same verdict from both.
 */
export const DEFAULT_SLACK_NS = 5e9;

export interface ValidateOptions {
  /** The validation config, by name (default: the spec's first). */
  config?: string;
  /** Candidates kept per step of a partition; more makes the run inconclusive (default 10,000). */
  maxFrontier?: number;
  /** Unlogged steps inserted before one event (default 2). */
  maxUnlogged?: number;
  /** Events read ahead of the search and not yet matched; more makes the run inconclusive (default 4,000,000). */
  maxBuffered?: number;
  /** Give up (inconclusive) after this long. */
  timeLimitMs?: number;
  /** Events read between two rounds of search (default 256; tests use 1 to match as soon as an event is read). */
  readBatch?: number;
  /**
   * How long after a step its line may be written, in the unit of `time` (ns; default
   * `DEFAULT_SLACK_NS`, 5 s). Reading ahead bets on it when events carry `time` (README.md,
   * "Reading ahead").
   */
  slackNs?: number;
  /**
   * The plain search: every interleaving of ready events, no local-first reduction (for
   * cross-checks and small traces).
   */
  exhaustive?: boolean;
  /** Dead candidates described in a failure (default 3). */
  maxShown?: number;
  /** Matched events kept per candidate for the report (default 200). */
  trail?: number;
  /** Called about every 100 ms with progress. */
  onProgress?: (p: ValidateProgress) => void;
}

export interface ValidateProgress {
  events: number;
  matched: number;
  buffered: number;
  frontier: number;
  elapsedMs: number;
}

/** An event as the result names it. */
export interface EventRef {
  proc: string;
  seq: number;
  action: string;
  args?: Record<string, unknown>;
  file: string;
  line: number;
}

export type WhyNot =
  | { kind: 'guard'; step: string; message: string }
  | { kind: 'observed'; step?: string; field: string; path: string; what?: string; at: 'before' | 'after'; expected: unknown; actual: unknown; raw?: unknown }
  | { kind: 'denote'; message: string }
  /** No event can come next at all: each waits for another (the order the trace gives has a cycle). */
  | { kind: 'order'; message: string };

export interface Attempt {
  event: EventRef;
  /** Per denotation: its steps' labels (or the note), and why it failed. */
  tries: { steps: string[]; note?: string; why: WhyNot }[];
}

/** A ready event that did not match when the candidate went on with global events instead. */
export interface Missed {
  event: EventRef;
  why: WhyNot;
  /** The global steps taken then, instead. */
  then: string[];
}

export interface DeadCandidate {
  /** The state (PartitionSpec.show) where nothing more matched. */
  state: unknown;
  /** Per process of the partition: the seq of the last event matched (0: none). */
  cut: Record<string, number>;
  /** The ready events tried, and why each failed. */
  attempts: Attempt[];
  /** The next events that were not ready, and what each waits for. */
  waiting: { event: EventRef; waits: string }[];
  /** The last events matched, in the order matched (at most `trail`). */
  trail: { event: EventRef; steps: string[] }[];
  /** The earliest event that did not match where the candidate took global events instead, still unmatched. */
  missed?: Missed;
}

export interface Failure {
  partition: string;
  /** Events of the partition matched: the longest matched prefix. */
  matched: number;
  /** The event that could not be matched: the attempt that came closest. */
  event: EventRef;
  why: WhyNot;
  candidates: DeadCandidate[];
  /** Candidates at the last step (those not described too). */
  frontier: number;
}

export interface PartitionSummary {
  name: string;
  events: number;
  verdict: 'valid' | 'invalid' | 'inconclusive' | 'unfinished';
  /** Largest number of candidates at one step. */
  maxFrontier: number;
  /** Steps taken by some candidate that no event logged (internal steps, steps lost with a crash). */
  filled: number;
}

export interface ValidateResult {
  verdict: 'valid' | 'invalid' | 'inconclusive';
  /** Inconclusive: the bound that was hit. */
  reason?: string;
  spec: string;
  config: string;
  files: string[];
  processes: number;
  events: number;
  partitions: number;
  /** Events matched (over all partitions; a global event counts once per partition). */
  matched: number;
  elapsedMs: number;
  /** Largest number of candidates at one step of any partition. */
  maxFrontier: number;
  /** Largest number of events read ahead and not yet matched. */
  maxBuffered: number;
  mode: 'reduced' | 'exhaustive';
  failure?: Failure;
  /** Per partition, at most 200 (the failing one first). */
  perPartition: PartitionSummary[];
  notes: string[];
}
