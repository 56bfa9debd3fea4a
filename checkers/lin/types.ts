// The shared vocabulary of linearizability checking: histories and sequential models.
// The WGL checker, the explorer's incremental monitor, the importers and the CLI all
// speak these types.

/** Where an operation came from, so that messages can point at a file and line. */
export interface Origin {
  file?: string;
  line?: number;
}

/**
 * One operation of a history. The interval [call, ret] is closed: two operations that
 * share an endpoint are concurrent.
 *
 * `ret === undefined` marks an indeterminate operation (Jepsen `:info`, a crash, a
 * timeout, no completion by the end of the history): it may take effect at any time after
 * `call`, or never, and its output is unknown. Failed operations (`:fail`) are dropped by
 * the importers unless the model gives them a meaning (a failed cas).
 */
export interface Operation<I = unknown, O = unknown> {
  client: number | string;
  input: I;
  call: number;
  ret?: number;
  output?: O;
  origin?: Origin;
}

/** The ordered-event form of a history; list position is time. */
export type HistoryEvent<I = unknown, O = unknown> =
  | { kind: 'call'; id: number; client: number | string; input: I; origin?: Origin }
  | { kind: 'return'; id: number; client: number | string; output: O; origin?: Origin };

/**
 * The output a model's step receives for an indeterminate operation: the step must accept
 * it as "any output" and return the state the operation leaves if it took effect. The
 * checker itself covers "never took effect" by letting such operations stay unlinearized.
 */
export const UNKNOWN: unique symbol = Symbol.for('interleave.lin.unknown');
export type Unknown = typeof UNKNOWN;

/** A step's outcome. When `ok` is false the state is ignored (a model may return any state). */
export interface StepResult<S> {
  ok: boolean;
  state: S;
}

/**
 * The result of an illegal step, shared (its state is never looked at): a search tries
 * many steps that fail, and a result made per step is garbage at once.
 */
export const ILLEGAL_STEP: StepResult<never> = Object.freeze({ ok: false, state: undefined as never });

/**
 * What Model.next returns for an illegal step (no state is this symbol). A registered
 * symbol, as UNKNOWN is: two copies of this module loaded in one process (a model built
 * against another copy of the package) agree on both.
 */
export const ILLEGAL: unique symbol = Symbol.for('interleave.lin.illegal');
export type Illegal = typeof ILLEGAL;

/** The `next` a step made by stepFrom wraps (nextOf trusts a model's `next` only so). */
const WRAPS: unique symbol = Symbol('next wrapped');

/**
 * Model.step made from a Model.next (a model written as `next` gets its `step` so), calling
 * `next` with its own `this` (a class's step calls its next with the instance). The result
 * of a legal step is made per call: only the callers of `step` pay for it. The step is
 * tagged with the `next` it wraps, so that nextOf knows the two agree.
 */
export function stepFrom<S, I, O>(next: (state: S, input: I, output: O | Unknown) => S | Illegal): (state: S, input: I, output: O | Unknown) => StepResult<S> {
  const step = function (this: unknown, state: S, input: I, output: O | Unknown): StepResult<S> {
    const s = next.call(this, state, input, output);
    return s === ILLEGAL ? ILLEGAL_STEP : { ok: true, state: s as S };
  };
  Object.defineProperty(step, WRAPS, { value: next });
  return step;
}

/** A step in Model.next's form, called with its model as `this`. */
export type Next<S> = (this: Model<S>, state: S, input: unknown, output: unknown) => S | Illegal;

/**
 * The step the searches (and an illegal report's replay) call, with the model as `this`: the
 * model's `next` when its `step` is stepFrom of that same `next`, else `step`'s answer read
 * back into next's form (one call more per step). Only so: a model's `next` may be a helper
 * of its own step (which checks the output, then calls it), not a function at all, or
 * left over from a spread model whose `step` was replaced.
 */
export function nextOf<S>(model: Model<S>): Next<S> {
  const next = model.next;
  // A model with `next` and no `step` (JavaScript callers; the type asks for step) is checked by its next.
  if (typeof next === 'function' && (typeof model.step !== 'function' || (model.step as { [WRAPS]?: unknown })[WRAPS] === next)) return next;
  return nextByStep;
}

function nextByStep<S>(this: Model<S>, state: S, input: unknown, output: unknown): S | Illegal {
  const r = this.step(state, input, output);
  return r.ok ? r.state : ILLEGAL;
}

/**
 * A sequential specification, shaped like Porcupine's. `step` (and `next`) must be pure. States equal
 * under `equal` must have equal `hash`es. Without `equal`, states are compared with
 * `Object.is` after a hash match; without `hash`, every state hashes to 0.
 */
export interface Model<S = any, I = any, O = any> {
  name: string;
  init(): S;
  step(state: S, input: I, output: O | Unknown): StepResult<S>;
  /**
   * Optional: the same step without a result object, the next state or ILLEGAL, called
   * with the model as `this`. The searches call it instead of `step` when `step` is
   * `stepFrom(next)` of this same function (nextOf; any other `next` is the model's own
   * business): a step runs for every configuration tried, and in a first check (V8's
   * interpreter and baseline code, without feedback) each object literal is made in the
   * runtime, 0.4 us more per step than returning the state (RESULTS-issue21.md, lin-step).
   */
  next?(state: S, input: I, output: O | Unknown): S | Illegal;
  /**
   * Its inputs name no key: an operation whose input has a `key` is refused (a model error
   * naming it and independent:<name>) rather than checked as if every key were one object.
   * Checked once per operation as the check is planned (check.ts), never per step; not for a
   * model that has a `partition` of its own (a spread of a built-in that splits by key).
   */
  noKeys?: true;
  /**
   * Split a history into independent sub-histories (P-compositionality). The model's step
   * may then assume it sees one of them (kv-append's state is one key's string, and its
   * step ignores the key): CheckOptions.partition false is refused for such a model.
   */
  partition?(history: readonly Operation<I, O>[]): Operation<I, O>[][];
  /**
   * With a `partition`: its step is right on the whole history too (the partition only
   * makes the check faster), so CheckOptions.partition false may check the history whole.
   */
  partitionOptional?: true;
  /**
   * The same sub-histories as `partition` (which must be given too), each as the indices of
   * its operations in the history; when given, the checker uses it and not `partition` (a
   * model that replaces one replaces both). The checker then need not find every
   * operation of partition's answer in the history again (a scan of the parts per
   * operation: 7-13% of a first kv check of 10 or 100 operations).
   */
  partitionIndices?(history: readonly Operation<I, O>[]): number[][];
  /** A 32-bit integer hash of a state. */
  hash?(state: S): number;
  equal?(a: S, b: S): boolean;
  describeOperation?(input: I, output: O | Unknown): string;
  describeState?(state: S): string;
  /**
   * When a failed completion (Jepsen `:fail`) of this input means something, the output to
   * record for it (an etcd cas that failed: `false`). Otherwise undefined: the operation
   * did not happen and the importer drops it.
   */
  failedOutput?(input: I): O | undefined;
  /**
   * True only when step(s, input, output) leaves every state s unchanged wherever it is
   * legal (a read, a failed cas). The checker may then linearize such an operation as
   * soon as it fits, without trying the alternatives, and ignore it when indeterminate.
   */
  readOnly?(input: I, output: O | Unknown): boolean;
  /**
   * A hint for the search's order when the model gives no `priority`, never for its
   * verdict: true for a determinate update that fits in some states only, so that where it
   * can go depends on the state, as a read's does (a cas that succeeded: only where the
   * register holds `from`). A hard history's second search (check.ts `secondAfter`) tries
   * such an update by the middle of its interval rather than by its return, as it tries the
   * blind ones (a write: it fits anywhere, and waits for its return).
   */
  conditional?(input: I, output: O): boolean;
  /**
   * Of a (sub-)history's indeterminate operations, those whose effect no operation of the
   * history could have observed (true at their index; other entries are ignored). The
   * checker drops them, as if they never took effect, so that a crashed write that no read
   * saw does not widen every later step of the search. The model guarantees: the history
   * is linearizable if and only if it is without them. (With unique values this is a
   * scan: an append whose value no get returned may be dropped.)
   *
   * `deadline` (Date.now(); Infinity or absent: none), also given to `priority` and
   * `abstraction`: a hook whose work grows with the history's strings should look at the
   * clock now and then and throw once it passed; the search then does without the hook's
   * answer and gives up with unknown (timeout).
   */
  unobserved?(history: readonly Operation<I, O>[], deadline?: number): boolean[];
  /**
   * A hint for the search's order, never for its verdict: for each operation of a
   * (sub-)history a number; among the operations that may come next the search tries
   * those with lower numbers first (ties: call order). A queue numbers an enqueue after
   * the dequeue that returned its value, so the enqueues are tried in the order the
   * dequeues saw them.
   */
  priority?(history: readonly Operation<I, O>[], deadline?: number): number[];
  /**
   * Advice for the search, for a (sub-)history: a function of (state, input, output) for an
   * operation that may come next in a configuration with that state. 'forced' only when,
   * if the rest of the history can be linearized from there at all, it can starting with
   * this operation (as for a read-only one that fits): the search tries nothing else
   * there. 'useless' only when no linearization of the rest starts with it: the search
   * skips it there. Anything else: no advice. A queue forces a crashed dequeue when its head
   * holds a value no dequeue returned (nothing else can remove it), and calls it useless
   * when the head holds a value enqueued once that a dequeue returns. 'dead': useless, and
   * more: if this operation's return comes first among the operations not yet linearized,
   * no linearization of the rest exists (the search gives up the configuration at once).
   */
  advice?(history: readonly Operation<I, O>[]): ((state: S, input: I, output: O | Unknown) => 'forced' | 'useless' | 'dead' | undefined) | undefined;
  /**
   * A proof, found without searching, that a (sub-)history has no linearization: an
   * operation with a known output that no linearization can include (its index), and why.
   * Undefined unless it is a proof. The search then stops early with illegal, after a
   * short search for a readable longest partial linearization. A queue refutes a dequeue
   * whose value had not been enqueued as often as it was dequeued by then: a value
   * dequeued twice but enqueued once, or never enqueued.
   */
  refute?(history: readonly Operation<I, O>[]): Refutation | undefined;
  /**
   * For this history, a map from a state to one that is equivalent for every step to come
   * (the same steps legal, and their states equivalent), applied after each step: states
   * that differ only in what the history can never observe become one, and the memo meets
   * them as one. Undefined: none. A kv key's string holding a value no get returns fails
   * every get until the next put, whatever else it holds.
   */
  abstraction?(history: readonly Operation<I, O>[], deadline?: number): ((state: S) => S) | undefined;
}

/** A model's proof that a history is not linearizable (Model.refute). */
export interface Refutation {
  /**
   * The operation no linearization can include (an index into the history given). What the
   * search takes from it (wgl.ts's proofBound): no partial linearization (a linearization of
   * operations closed under "returned before the other was called") holds more operations
   * than were called by its return, itself excepted. Most proofs give more, no partial
   * linearization holding it at all, or, with `and`, none holding both; a count (the queue's
   * "k dequeues returned v by its return, fewer enqueues of v were called") names the last
   * of the k to return, which a partial linearization may hold without one of the others.
   */
  operation: number;
  /** A second operation: no partial linearization holds both (a pair of gets whose strings disagree). */
  and?: number;
  why: string;
}

/** A model whose step may lead to several states (an empty list: the step is illegal). */
export interface NondeterministicModel<S = any, I = any, O = any> {
  name: string;
  /** Marks the model for `checkHistory`, which then applies the power-set construction. */
  nondeterministic?: true;
  init(): S[];
  step(state: S, input: I, output: O | Unknown): S[];
  partition?(history: readonly Operation<I, O>[]): Operation<I, O>[][];
  hash?(state: S): number;
  equal?(a: S, b: S): boolean;
  describeOperation?(input: I, output: O | Unknown): string;
  describeState?(state: S): string;
  /** As Model.readOnly: every successor of every state is the state itself. */
  readOnly?(input: I, output: O | Unknown): boolean;
  /** As Model.unobserved. */
  unobserved?(history: readonly Operation<I, O>[]): boolean[];
  /** As Model.priority. */
  priority?(history: readonly Operation<I, O>[]): number[];
}

export type Verdict = 'ok' | 'illegal' | 'unknown';

/** One independent sub-history (P-compositionality) and what the search found for it. */
export interface PartitionReport {
  index: number;
  /** The partition's operations, as indices into the checked history. */
  operations: number[];
  verdict: Verdict;
  /**
   * Why the verdict is unknown: the time budget ran out, another partition was illegal,
   * the model failed, or the search reached a memory bound (memoryLimit).
   */
  reason?: 'timeout' | 'cancelled' | 'model-error' | 'memory';
  /** With reason 'memory': the bound the search reached. */
  memoryLimit?: MemoryLimit;
  /** A full linearization (history indices, in order), when the verdict is ok. */
  linearization?: number[];
  /** The longest partial linearizations found (history indices), longest first. */
  longest?: number[][];
  /**
   * The operations that could come next after `longest[0]` (not in it, called before the
   * earliest return left), none of which leads to a linearization: a determinate one's step
   * fails there or leads to a dead end; an indeterminate one (no return) may fit there,
   * a write does, but taking effect there does not help either. With a `proof` that cut
   * the search short: the refuted operation.
   */
  stuck?: number[];
  /** For each of `longest`, the operations that could come next after it (as `stuck`: none leads to a linearization). */
  stuckAfter?: number[][];
  /**
   * The model's proof that the partition has no linearization (Model.refute), in history
   * indices. When it stopped the search early, `longest` is the longest partial
   * linearization found until then, and `stuck` is the refuted operation.
   */
  proof?: Refutation;
  /** describeState after each step of `longest[0]` (illegal partitions only). */
  states?: string[];
  /** The search's size: configurations visited and memo entries kept. */
  explored?: number;
  cached?: number;
}

/**
 * A memory bound a search reached: `memo`, the partition's memo budget
 * (CheckOptions.memoLimitMB, `interleave lin --memo-budget`), or `heap`, the share of the
 * thread's V8 heap a search may fill (node's --max-old-space-size; checkers/lin/heap.ts
 * HeapWatch). `bytes`: that bound.
 */
export interface MemoryLimit {
  of: 'memo' | 'heap';
  bytes: number;
}

export interface LinResult {
  verdict: Verdict;
  operations: number;
  partitions: PartitionReport[];
  elapsedMs: number;
  /** A model step threw: the operation (history index) and the message. */
  modelError?: { operation: number; message: string };
}

export interface CheckOptions {
  /** Time budget for the whole check; when it runs out the verdict is unknown. */
  timeoutMs?: number;
  /** Worker threads for partitions (default 1: the calling thread). */
  workers?: number;
  /**
   * Split with the model's partition function (default true). False checks the history as
   * one partition: for a model with a partition function only if it sets
   * `partitionOptional` (its step covers the whole history); otherwise the check throws
   * (kv-append's and independent:<model>'s steps are per key: checked whole, a history of
   * several keys would get wrong verdicts; kv-append-unpartitioned is the one-state store).
   */
  partition?: boolean;
  /** Record the longest partial linearization through every operation (slower). */
  verbose?: boolean;
  /** Memory budget of each partition's memo (its two searches' together, check.ts Rounds), in MB (default 2048); past it: unknown. */
  memoLimitMB?: number;
}
