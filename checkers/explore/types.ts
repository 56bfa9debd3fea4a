// The spec contract: what a protocol spec gives the explorer. Plain data and pure
// functions; the explorer never imports a spec, and a spec imports only these types and
// specs/kit.

import type { Model as SequentialModel } from '../lin/types.ts';
import type { TraceSpec } from '../validate/types.ts';

/** A step a state enables: a plain object whose label reads well in a counterexample. */
export interface Action {
  readonly label: string;
}

/** An invariant's answer: `true` when it holds, otherwise a message saying what broke. */
export type Check = true | string;

/**
 * What one transition did to the client history, for linearizability checking while
 * exploring. Clients are small integers 0..n-1; a client has at most one pending
 * operation.
 * - invoke: the client calls an operation.
 * - return: its pending operation completes with this output.
 * - crash:  its pending operation becomes indeterminate: it may take effect (once) at any
 *           later time, or never. The client may invoke again afterwards.
 * - fail:   its pending operation definitely did not take effect.
 */
export type ObservedEvent =
  | { kind: 'invoke'; client: number; input: unknown }
  | { kind: 'return'; client: number; output: unknown }
  | { kind: 'crash'; client: number }
  | { kind: 'fail'; client: number };

export interface HistoryObserver<S, A extends Action> {
  /**
   * The sequential model the client history must be linearizable against. Its step must read
   * nothing but its arguments: the engine keeps, per model object, the monitor states it met
   * and their successors, and uses them again in later searches against the same object.
   */
  model: SequentialModel;
  /** Number of clients (ids 0..clients-1). */
  clients: number;
  observe(before: S, action: A, after: S): readonly ObservedEvent[];
}

/**
 * Interchangeable ids (clients, replicas): `permute(s, p)` renames id i to p[i]
 * everywhere in s. The explorer keeps one representative per orbit.
 */
export interface Symmetry<S> {
  name: string;
  size: number;
  permute(state: S, perm: readonly number[]): S;
  /**
   * Whether the group's ids are history clients: id i is client `firstClient + i`, and a
   * renaming makes client firstClient + i client firstClient + perm[i]; the
   * linearizability monitor then renames them in its own state too. Required when the
   * machine has a history observer.
   */
  clients?: boolean;
  /** The history client that is the group's id 0 (default 0). */
  firstClient?: number;
}

/**
 * What an action touches, for partial-order reduction: the names of the variables it reads
 * (its guard included) and writes. A name `<actor>.<rest>`, where `<actor>` is
 * `machine.actor(a)`, is private to that actor: the spec promises that no other actor's
 * action ever reads or writes it. Every other name is shared.
 */
export interface Footprint {
  reads: readonly string[];
  writes: readonly string[];
}

/** A spec instantiated at one config (and possibly one mutant): a state machine. */
export interface Machine<S = any, A extends Action = Action> {
  init(): S[];
  /**
   * The actions enabled in s. Nondeterminism (values, crashes, deliveries) is actions.
   * Engines only read the list and may keep it (the layout search counts a list met again
   * as the same actions): return a new list, or one never changed after it is returned.
   */
  actions(s: S): A[];
  /** Pure: must not modify s. */
  next(s: S, a: A): S;
  invariants: Record<string, (s: S) => Check>;
  /**
   * Deadlock detection: a state with no enabled action is a deadlock unless this returns
   * true. Without it, every terminal state is allowed.
   */
  mayStop?(s: S): boolean;
  /**
   * Livelock detection: transitions that count as progress (usually a client operation
   * completing). A reachable cycle without one is reported as a lasso counterexample.
   */
  progress?(before: S, a: A, after: S): boolean;
  /**
   * Weak fairness for the livelock search: the class an action belongs to (a process, a
   * channel, a step), or undefined for none. A class that stays enabled (some action of it
   * enabled in every state) is eventually taken, so a non-progress cycle that keeps one
   * enabled and never takes it is no livelock. Without it, no fairness is assumed.
   */
  fairness?(a: A): string | undefined;
  history?: HistoryObserver<S, A>;
  symmetry?: Symmetry<S>[];
  /** The part of a state that identifies it (default: all of it). Must be plain data. */
  view?(s: S): unknown;
  /** The process an action belongs to (client, memory node, server), for sequence views. */
  actor?(a: A): string;
  /**
   * Top-level state fields that are the spec's own bookkeeping (ghost and monitor state for
   * its properties), not the protocol's: reports hide them unless the reader asks.
   */
  internal?: readonly string[];
  /**
   * Optional fast path for hashing: write an injective encoding of the view of s (equal
   * views give equal words, different views different words) into out and return the
   * number of words written, or -1 when out is too small (the engine retries with a larger
   * buffer). Without it, the engine encodes view(s) (or s) as plain data.
   */
  encode?(s: S, out: Int32Array): number;
  /**
   * The action families (label up to '(') the spec can enable, so that coverage lists the
   * ones never enabled. Without it, only families seen are reported.
   */
  actionNames?: string[];
  /**
   * Partial-order reduction (opt-in, with `actor`): what a in s reads and writes. Steps
   * whose footprint is private to their actor are explored in one order only.
   */
  footprint?(s: S, a: A): Footprint;
  /**
   * Set by the engine's transformers (monitors), not by specs: the spec's own state inside
   * a wrapped state, which is what counterexamples show.
   */
  inner?(s: S): unknown;
  /**
   * Optional fast path (specs/kit/layout.ts): every state is a fixed number of 32-bit words.
   * The breadth-first search then keeps its frontier as words and steps a reused state in
   * place (copy the words, apply the effect, hash the words): no encoding, no allocation.
   */
  layout?: WordLayout<S, A>;
}

/** A state kept as `words` 32-bit words; see Machine.layout. */
export interface WordLayout<S, A extends Action = Action> {
  readonly words: number;
  /** A fresh state (all words 0); the engine reuses a few as cursors. */
  make(): S;
  /** The words of s (`words` long; the state reads and writes them). */
  wordsOf(s: S): Int32Array;
  /** A new state holding a copy of the given words (states sent between threads). */
  fromWords(w: ArrayLike<number>): S;
  /**
   * The effect of a, applied in place to d, a copy of `from`, the state a was enabled in
   * (unchanged: a wrapper's step reads it, as the monitor's observer does).
   */
  step(d: S, a: A, from: S): void;
  /**
   * A state whose words are w itself, not a copy (w a view into a wrapper's longer words,
   * which the wrapper's own part follows). Lets a monitor keep its part beside the words.
   */
  over?(w: Int32Array): S;
  /**
   * Set when the words hold numbers that only this process knows (the monitor numbers its
   * states as it meets them): such states are not sent between threads.
   */
  readonly local?: boolean;
  /**
   * Properties whose message a state on words cannot give (the monitor's names the history
   * that led to the state, which the words do not hold): when one fails, the engine takes
   * its message from the plain state the counterexample's path replays to.
   */
  readonly replayed?: readonly string[];
  /** The machine's view when it has one (the words are then an injective encoding of it). */
  view?(s: S): unknown;
  /**
   * The machine members the layout was made with. The engine takes the fast path only
   * while the machine's own are these: a transformer (monitor, symmetry, POR) that replaced
   * one of them searches states of another kind, through the plain path.
   */
  next(s: S, a: A): S;
  actions(s: S): A[];
  encode(s: S, out: Int32Array): number;
}

export interface ConfigDef<C> {
  name: string;
  description: string;
  config: C;
  /** 'default' configs run in `interleave check` and the tests; 'full' only with --full. */
  tier: 'default' | 'full';
}

export interface MutantDef {
  /** As in the extraction's catalogue, e.g. "M3". */
  name: string;
  description: string;
  /** The paper's section (and line) the mutant breaks. */
  breaks: string;
  /** 'safety': some property must be violated. 'control': benign, every property holds. */
  kind: 'safety' | 'control';
  /** The smallest config expected to expose it (or the one a control is checked in). */
  config: string;
  /** The property expected to catch it, when known. */
  expect?: string;
  /**
   * The class of the property it breaks: 'liveness' when that is a bounded-liveness check
   * (an iteration bound checked as an invariant), a deadlock or a fair livelock, although
   * the mutant is killed like any other. Absent: safety.
   */
  breaksClass?: 'safety' | 'liveness';
}

/**
 * A variant modelling the paper as literally written, where the checker shows a claimed
 * property violated. `check` passes while it reproduces.
 */
export interface FindingDef {
  name: string;
  description: string;
  /** The variant flag passed to build(), like a mutant's name. */
  variant: string;
  config: string;
  /** The property whose violation is the finding. */
  expect: string;
}

/** What SpecDef.build is asked for beside the config and the variant. */
export interface BuildOptions {
  /**
   * `false`: the plain machine, without Machine.layout. Asked by the search that carries
   * states between processes (checkers/distributed's BFS: states stored with v8.serialize, which
   * drops a layout state's accessors, and rebuilt elsewhere, where the words' numbers given
   * as met are not the same). A spec whose build takes the kit's word layout gives the
   * plain machine the layout reproduces state for state (same states, transitions, action
   * order, labels); a spec with no plain machine returns its layout machine, and that
   * search then refuses it. Absent or `true`: the spec's fastest machine.
   */
  layout?: boolean;
}

export interface SpecDef<C = any> {
  /** The folder name under specs/, used on the command line. */
  name: string;
  title: string;
  /** The source, e.g. "FUSEE (FAST '23), §3.3, Algorithms 1-4". */
  paper: string;
  configs: ConfigDef<C>[];
  mutants: MutantDef[];
  findings?: FindingDef[];
  /**
   * `variant` is a mutant or finding name, or undefined for the protocol as specified.
   * `options` (BuildOptions) asks for a kind of machine; a spec that has only one kind
   * ignores it.
   */
  build(config: C, variant?: string, options?: BuildOptions): Machine;
  /** How implementation traces read against this spec (checkers/validate); absent: the spec cannot validate. */
  trace?: TraceSpec;
}

// ---------------------------------------------------------------------------------------
// The explorer's API (checkers/explore/index.ts): options, results, counterexamples.

/**
 * Where a worker thread finds the machine: `(await import(module))[export](...args)`, or
 * for a SpecDef export, its build at the config (and variant) args names (load.ts).
 */
export interface ExploreTarget {
  /** A file URL (or specifier) of an ES module. */
  module: string;
  export: string;
  args: unknown[];
  /** For a SpecDef export: the options its build is given (a Machine factory export is called with args only). */
  build?: BuildOptions;
}

export interface ExploreOptions {
  /** 'bfs' (default: shortest counterexamples), 'dfs' (low memory) or seeded random walks. */
  strategy?: 'bfs' | 'dfs' | 'simulate';
  /** Stop (incomplete) rather than store more distinct states than this. */
  maxStates?: number;
  /** Do not expand states at this depth (incomplete if any has an enabled action). */
  maxDepth?: number;
  timeLimitMs?: number;
  /** 'fingerprint' (default): 64-bit fingerprints; 'exact': whole encodings. */
  store?: 'fingerprint' | 'exact';
  /** Keep going after a violation: one shortest counterexample per violated property. */
  all?: boolean;
  /** Report terminal states the spec does not allow to be final (default: on). */
  deadlock?: boolean;
  livelock?: boolean;
  /** Default 'incremental' when the machine has a history observer. */
  linearizability?: 'incremental' | 'histories' | 'off';
  symmetry?: boolean;
  por?: boolean;
  /** Worker threads for parallel BFS (explore() only; exploreSync is one thread). */
  workers?: number;
  simulate?: { runs: number; depth: number; seed: number };
  /** Initial slots of the fingerprint table (tuning; tests use a small one to force growth). */
  tableCapacity?: number;
  /** Called about every 100 ms with the search's progress (the CLI draws it on a TTY). */
  onProgress?: (p: Progress) => void;
}

export interface Progress {
  states: number;
  transitions: number;
  depth: number;
  queue: number;
  elapsedMs: number;
}

export interface Change {
  /** Where in the state, e.g. "nodes[1].log" or "x". */
  path: string;
  before: unknown;
  after: unknown;
}

export interface CounterexampleStep {
  action: Action;
  state: unknown;
  changes: Change[];
}

export interface Counterexample {
  property: string;
  message: string;
  initial: unknown;
  steps: CounterexampleStep[];
  /** Livelock: the cycle starts at this step index. */
  lassoStart?: number;
  /** Simulation: the seed of the run that found it. */
  seed?: number;
}

export interface CoverageEntry {
  /** The action family: the label up to '('. */
  family: string;
  /** How many times an action of this family was enabled in an expanded state. */
  enabled: number;
}

export interface ExploreResult {
  status: 'holds' | 'violation' | 'incomplete';
  /** Why the run did not cover the whole space (budget, depth bound, time, simulation). */
  incompleteReason?: string;
  strategy: 'bfs' | 'dfs' | 'simulate';
  store: 'fingerprint' | 'exact';
  workers: number;
  /** Distinct states stored; with statesSummedOverJobs, the sum of each job's distinct states. */
  states: number;
  /**
   * Set by a swarm (checkers/distributed/swarm.ts): `states` is the sum over this many
   * jobs of the states each visited, distinct within a job but not across jobs (a state
   * two jobs met is counted twice), so not a count of distinct states.
   */
  statesSummedOverJobs?: number;
  /** Transitions generated (successor computations). */
  transitions: number;
  /** Largest depth reached (BFS: the diameter when complete). */
  depth: number;
  elapsedMs: number;
  violations: Counterexample[];
  coverage: CoverageEntry[];
  neverEnabled: string[];
  /** Fingerprint mode: an estimate of the probability that two distinct states shared a fingerprint. */
  collisionProbability?: number;
  /** Bytes of the state store and the trace log (parent links), per distinct state. */
  bytesPerState?: number;
  /** Bytes of the state store alone (fingerprint table or exact arena), per distinct state. */
  storeBytesPerState?: number;
  /** Parallel BFS: of elapsedMs, the time to start the workers (each loads TypeScript and the spec). */
  startupMs?: number;
  /** Reductions and monitors that ran, with their own figures. */
  notes?: string[];
}
