// Checking a whole history: resolve the model, split the history into partitions
// (P-compositionality, Horn & Kroening §3), search each, and put the answers together in
// terms of the caller's history indices.
//
// Partitions take turns: in each round every unfinished partition advances by a slice of
// iterations of its search, the slices growing round by round. The first round in which
// some partition is illegal ends the check (one illegal partition cancels the rest, as in
// Porcupine), without waiting for a hard partition that happens to come first. What
// finished by that round is reported; the rest is cancelled. Rounds count iterations, not
// time, so the report is the same on one thread or many.

import { findModel, models } from './models/index.ts';
import { badHistory, badOperation, checkModelObject } from './inputs.ts';
import { fromNondeterministic } from './nondeterministic.ts';
import type { CheckOptions, LinResult, Model, NondeterministicModel, Operation, PartitionReport, Refutation, Verdict } from './types.ts';
import { ILLEGAL, nextOf, UNKNOWN } from './types.ts';
import { smallSearch } from './small.ts';
import { feedbackFor } from './v8-feedback.ts';
import { WglSearch, type SearchResult } from './wgl.ts';

export type ModelArg = Model | NondeterministicModel | string;

/** A prepared check: the model, the partitions as history indices, the time budget. */
export interface Plan {
  model: Model;
  /** The registry name, when worker threads can find the model by it. */
  registered?: string;
  history: readonly Operation[];
  parts: number[][];
  /** One partition, the whole history in its order (parts[0][i] === i). */
  whole: boolean;
  /** The model's partitions themselves, when made here: partOps[c][k] === history[parts[c][k]]. */
  partOps?: readonly (readonly Operation[])[];
  start: number;
  /** Date.now() at which searches give up (Infinity: never). */
  readonly deadline: number;
  verbose: boolean;
  memoLimitBytes: number;
  /**
   * The check cannot be run as planned: the model's partition function threw or broke its
   * contract (operation -1), or an operation names a key the model has none of (noKeys).
   */
  planError?: { operation: number; message: string };
}

/**
 * A Plan whose deadline is read from the clock when first needed: a check that small.ts
 * decides never needs it (a clock read is a few percent of a 10-operation check). The
 * deadline is the check's start plus the timeout all the same.
 *
 * Its fields are declared, not initialised in the class body, and set in the constructor
 * in one order: with ES2022 class fields every field is first defined (one define-own
 * store each, every parameter property too) and then assigned, and in a fresh process each
 * of those stores is a first execution (a new map each): `new CheckPlan` took 11-15 us of
 * a 95-165-us first 10-operation check under `--no-lazy` (RESULTS-issue21.md, lin-interp).
 */
class CheckPlan implements Plan {
  declare readonly model: Model;
  declare readonly registered: string | undefined;
  declare readonly history: readonly Operation[];
  declare readonly start: number;
  declare readonly verbose: boolean;
  declare readonly memoLimitBytes: number;
  declare parts: number[][];
  declare whole: boolean;
  declare partOps: readonly (readonly Operation[])[] | undefined;
  declare planError: { operation: number; message: string } | undefined;
  declare private readonly timeoutMs: number | undefined;
  declare private fixed: number | undefined;

  constructor(
    model: Model,
    registered: string | undefined,
    history: readonly Operation[],
    start: number,
    timeoutMs: number | undefined,
    verbose: boolean,
    memoLimitBytes: number,
    parts: number[][],
    whole: boolean,
  ) {
    this.model = model;
    this.registered = registered;
    this.history = history;
    this.start = start;
    this.verbose = verbose;
    this.memoLimitBytes = memoLimitBytes;
    this.parts = parts;
    this.whole = whole;
    this.partOps = undefined;
    this.planError = undefined;
    this.timeoutMs = timeoutMs;
    this.fixed = undefined;
  }

  get deadline(): number {
    if (this.fixed === undefined) this.fixed = this.timeoutMs === undefined ? Infinity : Date.now() - (performance.now() - this.start) + this.timeoutMs;
    return this.fixed;
  }
}

export function resolveModel(arg: ModelArg): { model: Model; registered?: string } {
  if (typeof arg === 'string') return { model: named(arg), registered: arg };
  checkModelObject(arg);
  if ('nondeterministic' in arg && arg.nondeterministic === true) {
    return { model: fromNondeterministic(arg as NondeterministicModel) };
  }
  const model = arg as Model;
  return findModel(model.name) === model ? { model, registered: model.name } : { model };
}

/** A registered model by name (the answer of resolveModel for a string, without its object). */
function named(name: string): Model {
  const model = findModel(name);
  if (model === undefined) {
    throw new Error(`unknown model ${JSON.stringify(name)}; known: ${Object.keys(models).join(', ')}, and independent:<model> for each`);
  }
  return model;
}

/**
 * Call and return times are finite numbers, returns not before calls. `x - x === 0` holds
 * for exactly the finite numbers (NaN and the infinities give NaN): no Number.isFinite call
 * per time, two per operation in the interpreter on a first check. With `noKeys` (the
 * model's, Model.noKeys), the first operation whose input names a key, in the same loop
 * (a first check runs it in the interpreter); else, or when none does, -1. An operation
 * that is no object (null, a number) is a TypeError naming it: one `== null` test per
 * operation, a primitive's kind looked at only once its call time has failed.
 */
function validate(history: readonly Operation[], noKeys: boolean): number {
  let keyed = -1;
  for (let i = 0; i < history.length; i++) {
    const op = history[i];
    if (op == null) badOperation(i, op);
    const { call, ret, input } = op;
    if (noKeys && keyed < 0 && input != null && (input as { key?: unknown }).key !== undefined) keyed = i;
    if (typeof call !== 'number' || call - call !== 0) {
      if (typeof op !== 'object') badOperation(i, op);
      throw new RangeError(`operation ${i}${where(history[i])}: call time must be a finite number`);
    }
    if (ret !== undefined && (typeof ret !== 'number' || ret - ret !== 0 || ret < call)) {
      throw new RangeError(`operation ${i}${where(history[i])}: return time must be a finite number not before its call`);
    }
  }
  return keyed;
}

function where(op: Operation): string {
  return op.origin?.file ? ` (${op.origin.file}${op.origin.line ? `:${op.origin.line}` : ''})` : '';
}

export function plan(arg: ModelArg, history: readonly Operation[], options: CheckOptions = {}): Plan {
  const start = performance.now();
  let model: Model;
  let registered: string | undefined;
  if (typeof arg === 'string') {
    // The registry's entry read here, findModel only for the other names (independent:<model>,
    // or an unknown one): a first check from the snapshot pays ~1.5 us for each function it
    // calls for the first time and ~2.5 for a builtin's (Object.hasOwn), and `models` has no
    // prototype, so a key it lacks reads as undefined (RESULTS-issue21.md, lin-10c).
    model = models[arg] ?? named(arg);
    registered = arg;
  } else ({ model, registered } = resolveModel(arg));
  if (typeof history !== 'object' || history === null || typeof history.length !== 'number') badHistory(history);
  // A model that partitions the history itself (a user's spread of a built-in with its own
  // partition by key) says how its keys are handled: noKeys is the built-in's, not its own.
  const keyed = validate(history, model.noKeys === true && !model.partition);
  // One partition, the whole history, unless the model partitions it: then its parts are
  // set below (and the whole history again if its partition function fails).
  if (options.partition === false && model.partition !== undefined && model.partitionOptional !== true) {
    throw new Error(
      `partition: false: ${model.name}'s step is for one of its partitions (its partition function splits the history, e.g. by key), so it cannot check the history whole; leave partition on, or use a model whose one state covers every partition (kv-append-unpartitioned for kv-append)`,
    );
  }
  const partitioned = options.partition !== false && !!model.partition && history.length > 0;
  const memoLimitMB = options.memoLimitMB;
  const memoLimitBytes = memoLimitMB == null ? DEFAULT_MEMO_LIMIT_BYTES : memoLimitMB * 2 ** 20;
  const n = history.length;
  const p = new CheckPlan(model, registered, history, start, options.timeoutMs, options.verbose === true, memoLimitBytes, partitioned ? [] : [n <= IDENTITY_MAX ? IDENTITY.slice(0, n) : identity(n)], !partitioned);
  if (keyed >= 0) {
    const by = registered !== undefined && models[registered] === model ? `independent:${registered}` : 'independent(model) (checkers/lin/models/independent.ts)';
    p.planError = { operation: keyed, message: `${model.name} has no keys, but this operation names one (input.key): check a history of many keys with ${by}` };
    return p;
  }
  if (partitioned) {
    try {
      partitionIndices(model, history, p);
    } catch (err) {
      p.planError = { operation: -1, message: `partition: ${err instanceof Error ? err.message : String(err)}` };
      p.parts = [identity(history.length)];
      p.whole = true;
    }
  }
  return p;
}

/**
 * 0 .. IDENTITY_MAX - 1, made once: the indices of a whole history of up to that many
 * operations are a slice of it (one builtin call), not a loop, which a first check runs in
 * the interpreter without feedback (~0.4 us an iteration). Holey, as `new Array(n)` filled
 * in a loop is (the indices of longer histories, and of partitions): one elements kind
 * wherever a partition's indices are read.
 */
const IDENTITY_MAX = 256;
const IDENTITY = new Array<number>(IDENTITY_MAX);
for (let i = 0; i < IDENTITY_MAX; i++) IDENTITY[i] = i;

/** [0, 1, .. n - 1], a new array (up to IDENTITY_MAX, plan slices IDENTITY itself: a call fewer). */
function identity(n: number): number[] {
  if (n <= IDENTITY_MAX) return IDENTITY.slice(0, n);
  const ids = new Array<number>(n);
  for (let i = 0; i < n; i++) ids[i] = i;
  return ids;
}

/** The model's partitions (those not empty) as history indices, and as operations (kept: the search's input). */
function partitionIndices(model: Model, history: readonly Operation[], p: CheckPlan): void {
  if (model.partitionIndices !== undefined) {
    const all = model.partitionIndices(history);
    // The registry's own (kv's indicesByKey, held to its contract by its tests) taken as given:
    // the check is for a user's model, and costs a first check a call, a `fill` and a pass
    // over the history in the interpreter (RESULTS-issue21.md, lin-10d).
    p.parts = p.registered !== undefined && models[p.registered] === model ? all : checkedIndices(model, history.length, all);
    return;
  }
  const all = model.partition!(history);
  let parts = all;
  for (let c = 0; c < all.length; c++) {
    if (all[c].length === 0) {
      parts = all.filter((part) => part.length > 0);
      break;
    }
  }
  p.parts = inHistoryOrder(history, parts) ?? byIdentity(model, history, parts);
  p.partOps = parts;
}

/**
 * The parts' indices when each part keeps the history's order (as a partition by key
 * does): then every operation of the history is the next one of some part, found by
 * comparing it with the parts' next operations, the part last matched first. No Map
 * over the operations (an identity hash per object, ~1 µs an operation). Undefined when
 * the parts are in another order or too many parts are tried per operation.
 */
function inHistoryOrder(history: readonly Operation[], parts: readonly (readonly Operation[])[]): number[][] | undefined {
  const p = parts.length;
  const at = new Int32Array(p);
  // Each part's next operation (undefined: none left), so that a part passed over costs one
  // load: a first check runs this loop in the interpreter (~20 of a 10-operation kv check's
  // ~280 us when each step read the part, its length and its next one).
  const next = new Array<Operation | undefined>(p);
  const ids = new Array<number[]>(p);
  for (let c = 0; c < p; c++) {
    ids[c] = new Array<number>(parts[c].length);
    next[c] = parts[c][0];
  }
  let budget = 16 * history.length + 64;
  let last = 0;
  for (let i = 0; i < history.length; i++) {
    const op = history[i];
    let c = last;
    while (next[c] !== op) {
      if (--budget < 0) return undefined;
      if (++c === p) c = 0;
      if (c === last) return undefined;
    }
    const k = at[c]++;
    ids[c][k] = i;
    next[c] = k + 1 < parts[c].length ? parts[c][k + 1] : undefined;
    last = c;
  }
  for (let c = 0; c < p; c++) if (at[c] !== parts[c].length) return undefined;
  return ids;
}

let seenScratch = new Uint8Array(256);

/** The model's partitionIndices, without empty parts: every index of the history in exactly one part, or an error. */
function checkedIndices(model: Model, n: number, all: number[][]): number[][] {
  // A scratch of this module's, as stuckAfter's (a typed array is costly to make on a small
  // history's first check), cleared before it is used: an error leaves it as it was.
  if (seenScratch.length < n) seenScratch = new Uint8Array(Math.max(n, 2 * seenScratch.length));
  const seen = seenScratch.fill(0, 0, n);
  let count = 0;
  let empty = false;
  for (let c = 0; c < all.length; c++) {
    const ids = all[c];
    if (ids.length === 0) empty = true;
    for (let k = 0; k < ids.length; k++) {
      const i = ids[k];
      // `i >>> 0 !== i`: not an integer in 0 .. 2^32 - 1 (a string, a fraction, a negative).
      if (i >>> 0 !== i || i >= n) throw new Error(`${model.name}: partitionIndices must give indices of the history (0 .. ${n - 1}), not ${JSON.stringify(i)}`);
      if (seen[i] !== 0) throw new Error(`${model.name}: partition must return each operation of the history exactly once`);
      seen[i] = 1;
    }
    count += ids.length;
  }
  if (count !== n) throw new Error(`${model.name}: partition left out some operations`);
  return empty ? all.filter((ids) => ids.length > 0) : all;
}

function byIdentity(model: Model, history: readonly Operation[], parts: readonly (readonly Operation[])[]): number[][] {
  const index = new Map<Operation, number>();
  for (let i = 0; i < history.length; i++) index.set(history[i], i);
  const seen = new Uint8Array(history.length);
  const out: number[][] = [];
  for (const part of parts) {
    const ids = new Array<number>(part.length);
    for (let k = 0; k < part.length; k++) {
      const i = index.get(part[k]);
      if (i === undefined || seen[i] === 1) {
        throw new Error(`${model.name}: partition must return each operation of the history exactly once`);
      }
      seen[i] = 1;
      ids[k] = i;
    }
    out.push(ids);
  }
  if (seen.includes(0)) throw new Error(`${model.name}: partition left out some operations`);
  return out;
}

/** The memo budget of each partition when CheckOptions.memoLimitMB is not given (`interleave lin --memo-budget`). */
export const DEFAULT_MEMO_LIMIT_MB = 2048;
const DEFAULT_MEMO_LIMIT_BYTES = DEFAULT_MEMO_LIMIT_MB * 2 ** 20;

/** What every partition's search is given. */
export interface RoundOptions {
  deadline: number;
  verbose: boolean;
  memoLimitBytes: number;
}

/**
 * Iterations a partition's search advances in round r (from 1): small at first, so that an
 * easy illegal partition is found before the others have searched much, then doubling, so
 * that a hard partition costs at most twice its own search in turns taken.
 */
export function slice(round: number): number {
  return 2 ** Math.min(16, 9 + round);
}

/**
 * Iterations of a partition's search (n operations) after which a second search of it in
 * the other order starts (a model with `conditional`: SearchOptions.conditional), with a
 * quarter of the turns and at most a quarter of the memo budget, which the two share; the
 * first of the two to decide answers. Each order has histories the other takes 10-1,000x
 * as long on (generated cas-registers of 1,000 operations on 64 clients: 593,465
 * configurations against 1,275; 371,779 against 5,774,293): with I1 and I2 each order's
 * iterations alone, the two cost about min(1.25 I1, secondAfter(n) + 5 I2) (to a round's
 * slice), up to 5x the second's own where it is the better one. Not sooner: an illegal
 * history is decided by exhausting its configurations, in either order, and so never by
 * the second search, which only costs there (Porcupine's etcd logs, 51k-172k iterations:
 * 1.1-1.2x configurations with a start after 4,096 + 8n; RESULTS-issue21.md, lin-cas3).
 */
export function secondAfter(n: number): number {
  return (1 << 17) + 8 * n;
}

/** The searches of some partitions, taking turns round by round. */
export class Rounds {
  /** The searches of the partitions started, by partition index. */
  private readonly searches: (WglSearch<unknown> | undefined)[] = [];
  /**
   * Their second searches (secondAfter), once started; null: none (it gave up, or its order
   * is the first's), and none again.
   */
  private readonly seconds: (WglSearch<unknown> | null | undefined)[] = [];
  /** The answer of a second search that gave up or was dropped: its counts go in the partition's. */
  private readonly spent: (SearchResult | undefined)[] = [];
  /** Unfinished partitions, in partition order. */
  private active: number[];
  round = 0;

  constructor(
    private readonly model: Model,
    private readonly parts: readonly (readonly Operation[])[],
    indices: readonly number[],
    private readonly options: RoundOptions,
    /** small.ts was tried on these partitions already (and gave up): straight to wgl.ts. */
    private readonly smallTried = false,
  ) {
    this.active = [...indices];
  }

  get done(): boolean {
    return this.active.length === 0;
  }

  /** Play one round; returns the partitions that finished in it, with their answers. */
  play(): { index: number; result: SearchResult }[] {
    this.round++;
    const finished: { index: number; result: SearchResult }[] = [];
    let left = 0;
    for (const index of this.active) {
      let search = this.searches[index];
      if (search === undefined) {
        // A small history first goes to small.ts's bounded search (undefined: too hard for it).
        const quick = this.options.verbose || this.smallTried ? undefined : smallSearch(this.model, this.parts[index]);
        if (quick !== undefined) {
          finished.push({ index, result: quick });
          continue;
        }
        search = this.searches[index] = new WglSearch(this.model, this.parts[index], this.options);
      }
      const limit = this.options.memoLimitBytes;
      // The two searches share the partition's memo budget, the first before the second:
      // it may fill what the second does not hold and, reaching that, takes the rest back
      // (the second dropped). So the first decides, or runs out of memory, as it would alone.
      if (this.seconds[index] !== undefined) {
        const other = this.seconds[index];
        search.shareMemo(other ? limit - other.memoBytes() : limit, other ? () => (this.dropSecond(index), limit) : undefined);
      }
      const over = Date.now() > this.options.deadline ? (search.stop('timeout'), true) : search.run(slice(this.round));
      let second = this.seconds[index];
      if (over) {
        finished.push({ index, result: this.counted(index, search.result, second) });
        this.searches[index] = undefined;
        continue;
      }
      if (second === undefined && !this.options.verbose && this.model.conditional !== undefined && search.iterations >= secondAfter(this.parts[index].length)) {
        // The options read one by one: a Plan's deadline is a getter, which a spread would lose.
        const { deadline } = this.options;
        second = this.seconds[index] = new WglSearch(this.model, this.parts[index], { deadline, memoLimitBytes: limit / 4, conditional: true });
        // The same order as the first's in every frame (Porcupine's etcd logs): no second search.
        if (!second.keyed) second = this.seconds[index] = null;
      }
      if (second) second.shareMemo(Math.min(limit / 4, limit - search.memoBytes()));
      if (second && second.run(slice(this.round) / 4)) {
        // Only a decided answer: one that gave up (its memory, a model error) leaves the first on its own.
        if (second.result.verdict !== 'unknown') {
          finished.push({ index, result: this.counted(index, second.result, search) });
          this.searches[index] = undefined;
          continue;
        }
        this.spent[index] = second.result;
        this.seconds[index] = null;
      }
      this.active[left++] = index;
    }
    this.active.length = left;
    return finished;
  }

  /** The first search takes back the memo budget its second holds: the second stops, its counts kept. */
  private dropSecond(index: number): void {
    const second = this.seconds[index];
    if (!second) return; // dropped already: the budget is the first's alone
    this.spent[index] = second.stop('cancelled');
    this.seconds[index] = null;
  }

  /**
   * A partition's answer from one of its searches, counting the other's configurations and
   * memo entries too, and a second's that gave up (the report's size is the work done); the
   * other is stopped.
   */
  private counted(index: number, result: SearchResult, other: WglSearch<unknown> | null | undefined): SearchResult {
    if (other) addCounts(result, other.stop('cancelled'));
    const spent = this.spent[index];
    if (spent !== undefined) {
      addCounts(result, spent);
      this.spent[index] = undefined;
    }
    this.seconds[index] = undefined;
    return result;
  }
}

function addCounts(result: SearchResult, other: SearchResult): void {
  result.explored += other.explored;
  result.cached += other.cached;
}

/** The partitions' operations, in partition order (the history itself when it is the one partition). */
export function partitionOps(p: Plan): (readonly Operation[])[] {
  if (p.whole) return [p.history];
  if (p.partOps !== undefined) return p.partOps as (readonly Operation[])[];
  const parts = p.parts;
  const all = new Array<Operation[]>(parts.length);
  for (let index = 0; index < parts.length; index++) {
    const ids = parts[index];
    // Pushed, not preallocated: a packed array, as the whole history is (JSON.parse, push),
    // so that the model's hooks (priority, refute, unobserved) see one elements kind and are
    // not deoptimized and compiled again when a whole history follows a partitioned one.
    const ops: Operation[] = [];
    for (let k = 0; k < ids.length; k++) ops.push(p.history[ids[k]]);
    all[index] = ops;
  }
  return all;
}

/**
 * Put the per-partition answers (undefined: not run) together into the result; `ops`: the
 * partitions' operations when the caller has them (partitionOps).
 */
export function assemble(p: Plan, results: readonly (SearchResult | undefined)[], ops?: readonly (readonly Operation[])[]): LinResult {
  const { history, parts } = p;
  if (p.planError !== undefined) {
    return {
      verdict: 'unknown',
      operations: history.length,
      partitions: [],
      elapsedMs: performance.now() - p.start,
      modelError: p.planError,
    };
  }
  let modelError: LinResult['modelError'];
  let illegal = false;
  let ok = true;
  const partitions = new Array<PartitionReport>(parts.length);
  for (let index = 0; index < parts.length; index++) {
    const ids = parts[index];
    const r = results[index];
    if (r === undefined) {
      partitions[index] = { index, operations: ids, verdict: 'unknown', reason: Date.now() > p.deadline ? 'timeout' : 'cancelled' };
      ok = false;
      continue;
    }
    if (r.verdict === 'ok') {
      // An ok answer has its linearization and never a reason or a model error (wgl.ts's
      // finish('ok'), small.ts): its report in one object, without the reads below of
      // what it lacks (each a first execution in a fresh process).
      // The linearization in history indices by a loop here, not inHistory: a call's first
      // execution costs ~1.5 us in a first check, and a function called for each of a kv
      // check's partitions runs out of its budget for feedback (8x its bytecode's length)
      // within the check: V8 then gives it feedback and queues it for Sparkplug, whose batch
      // compile (30-50 us) comes inside the check once the queue's estimated size reaches
      // 4,096 (RESULTS-issue21.md, lin-10c).
      const seq = r.linearization!;
      let linearization = seq;
      if (!p.whole) {
        linearization = new Array<number>(seq.length);
        for (let k = 0; k < seq.length; k++) linearization[k] = ids[seq[k]];
      }
      partitions[index] = new OkReport(index, ids, r.explored, r.cached, linearization);
      continue;
    }
    if (r.verdict === 'illegal') {
      // An illegal answer has its longest and never a reason, a model error or a
      // linearization (wgl.ts's finish('illegal'), small.ts's illegal): none of them read.
      illegal = true;
      const report = new IllegalReport(index, ids, r.explored, r.cached);
      partitions[index] = report;
      if (r.longest) illegalReport(p, report, r, p.whole ? history : ops !== undefined ? ops[index] : ids.map((i) => history[i]));
      continue;
    }
    const report: PartitionReport = new Report(index, ids, r.verdict, r.explored, r.cached);
    partitions[index] = report;
    ok = false;
    if (r.reason) report.reason = r.reason;
    if (r.memoryLimit) report.memoryLimit = r.memoryLimit;
    if (r.modelError && modelError === undefined) {
      modelError = { operation: r.modelError.operation < 0 ? -1 : ids[r.modelError.operation], message: r.modelError.message };
    }
    if (r.linearization) report.linearization = p.whole ? r.linearization : inHistory(r.linearization, ids);
  }
  const result: LinResult = new Result(illegal ? 'illegal' : ok ? 'ok' : 'unknown', history.length, partitions, performance.now() - p.start);
  if (modelError) result.modelError = modelError;
  return result;
}

/**
 * An illegal partition's report: its longest partial linearizations, the model's proof, the
 * operations stuck after each, the states along the first; `local`: the partition's operations.
 * Loops rather than `map` with a closure: each closure is made and each call run in the
 * interpreter on a first check.
 */
function illegalReport(p: Plan, report: IllegalReport, r: SearchResult, local: readonly Operation[]): void {
  const ids = p.parts[report.index];
  const longest = r.longest!;
  const proof = r.proof;
  // A whole history's indices are the history's: the search's arrays (its own, made for
  // this answer) are the report's, as its linearization is.
  let inHistoryLongest = longest;
  if (!p.whole) {
    inHistoryLongest = new Array<number[]>(longest.length);
    for (let k = 0; k < longest.length; k++) inHistoryLongest[k] = inHistory(longest[k], ids);
  }
  report.longest = inHistoryLongest;
  if (proof !== undefined) report.proof = p.whole ? proof : inHistoryProof(proof, ids);
  const after = new Array<number[]>(longest.length);
  if (proof !== undefined && r.cutShort === true) {
    // A search the proof cut short did not try everything after its longest: the refuted
    // operation (or pair) is what cannot come next.
    const refuted = report.proof!;
    for (let k = 0; k < after.length; k++) after[k] = refuted.and === undefined ? [refuted.operation] : [refuted.operation, refuted.and];
  } else {
    for (let k = 0; k < after.length; k++) {
      const stuck = stuckAfter(local, longest[k]);
      after[k] = p.whole ? stuck : inHistory(stuck, ids);
    }
  }
  report.stuckAfter = after;
  report.stuck = after[0];
  const states = replay(p.model, p.history, inHistoryLongest[0]);
  if (states) report.states = states;
}

/** A partition's proof in history indices. */
function inHistoryProof(proof: Refutation, ids: readonly number[]): Refutation {
  return proof.and === undefined ? { operation: ids[proof.operation], why: proof.why } : { operation: ids[proof.operation], and: ids[proof.and], why: proof.why };
}

// The result and its partitions' reports as class instances rather than object literals: a
// first check from the snapshot runs without feedback, where V8 makes each object literal in
// the runtime (2.5-3 us the first, ~1 us each after), a class instance by its constructor's
// stores (1.4 us, then 0.35; RESULTS-issue21.md, lin-10b). Fields declared and set in the
// literals' order (the same JSON); the optional ones are added only when there, as before.

/** The check's result. */
class Result implements LinResult {
  declare verdict: Verdict;
  declare operations: number;
  declare partitions: PartitionReport[];
  declare elapsedMs: number;

  constructor(verdict: Verdict, operations: number, partitions: PartitionReport[], elapsedMs: number) {
    this.verdict = verdict;
    this.operations = operations;
    this.partitions = partitions;
    this.elapsedMs = elapsedMs;
  }
}

/** A partition searched, before what its verdict adds. */
class Report implements PartitionReport {
  declare index: number;
  declare operations: number[];
  declare verdict: Verdict;
  declare explored: number;
  declare cached: number;

  constructor(index: number, operations: number[], verdict: Verdict, explored: number, cached: number) {
    this.index = index;
    this.operations = operations;
    this.verdict = verdict;
    this.explored = explored;
    this.cached = cached;
  }
}

/** An illegal partition's report (as Report, then what illegalReport adds). */
class IllegalReport implements PartitionReport {
  declare index: number;
  declare operations: number[];
  declare verdict: 'illegal';
  declare explored: number;
  declare cached: number;
  declare longest: number[][];
  declare proof?: PartitionReport['proof'];
  declare stuckAfter: number[][];
  declare stuck: number[];
  declare states?: string[];

  constructor(index: number, operations: number[], explored: number, cached: number) {
    this.index = index;
    this.operations = operations;
    this.verdict = 'illegal';
    this.explored = explored;
    this.cached = cached;
  }
}

/** A linearizable partition: its report in one object (an ok answer never has a reason or a model error). */
class OkReport implements PartitionReport {
  declare index: number;
  declare operations: number[];
  declare verdict: 'ok';
  declare explored: number;
  declare cached: number;
  declare linearization: number[];

  constructor(index: number, operations: number[], explored: number, cached: number, linearization: number[]) {
    this.index = index;
    this.operations = operations;
    this.verdict = 'ok';
    this.explored = explored;
    this.cached = cached;
    this.linearization = linearization;
  }
}

/** Partition indices as history indices. */
function inHistory(seq: readonly number[], ids: readonly number[]): number[] {
  const out = new Array<number>(seq.length);
  for (let k = 0; k < seq.length; k++) out[k] = ids[seq[k]];
  return out;
}

/**
 * After a maximal partial linearization, the operations that could have come next: those
 * not in it whose call precedes the earliest return among the determinate ones left.
 * None leads to a linearization; a step of one may well fit there (an indeterminate write
 * does in every state, and the search may have dropped it as unobserved without trying).
 */
export function stuckAfter(ops: readonly Operation[], seq: readonly number[]): number[] {
  // A scratch of this module's (a typed array is costly to make on a small history's report), cleared at the end.
  if (stuckDone.length < ops.length) stuckDone = new Uint8Array(Math.max(ops.length, 2 * stuckDone.length));
  const done = stuckDone;
  for (let k = 0; k < seq.length; k++) done[seq[k]] = 1;
  // One pass over the operations: the earliest return left, and those not in the sequence
  // called by the earliest return seen so far (a superset of the answer: that return only
  // comes down), in index order; then those called by the earliest return, by call, then index
  // (an insertion sort, as histories come nearly in call order).
  let minRet = Infinity;
  const maybe: number[] = [];
  for (let i = 0; i < ops.length; i++) {
    if (done[i] === 1) continue;
    const op = ops[i];
    const r = op.ret;
    if (r !== undefined && r < minRet) minRet = r;
    if (op.call <= minRet) maybe.push(i);
  }
  const stuck: number[] = [];
  for (let m = 0; m < maybe.length; m++) {
    const i = maybe[m];
    const c = ops[i].call;
    if (!(c <= minRet)) continue;
    let j = stuck.length - 1;
    stuck.push(i);
    while (j >= 0 && ops[stuck[j]].call > c) {
      stuck[j + 1] = stuck[j];
      j--;
    }
    stuck[j + 1] = i;
  }
  for (let k = 0; k < seq.length; k++) done[seq[k]] = 0;
  return stuck;
}

let stuckDone = new Uint8Array(64);

const MAX_REPLAY = 10_000;
/** Characters of described states at most: a set's state grows with the history. */
const MAX_REPLAY_CHARS = 1 << 20;

/**
 * describeState after each step of a sequence, when the model can describe states and
 * the descriptions stay small (describing a big set at every step of a long sequence is
 * quadratic).
 */
function replay(model: Model, history: readonly Operation[], seq: readonly number[]): string[] | undefined {
  if (!model.describeState || seq.length > MAX_REPLAY) return undefined;
  // The step the search called (nextOf), so the states are those its verdict came from.
  const next = nextOf(model);
  const states: string[] = [];
  let chars = 0;
  try {
    let s = model.init();
    for (let k = 0; k < seq.length; k++) {
      const op = history[seq[k]];
      const after = next.call(model, s, op.input, op.ret === undefined ? UNKNOWN : op.output);
      // Every step of a partial linearization the search found is legal: a model that says
      // otherwise now does not agree with itself, and its states would mislead.
      if (after === ILLEGAL) return undefined;
      s = after;
      const d = model.describeState(s);
      chars += d.length;
      if (chars > MAX_REPLAY_CHARS) return undefined;
      states.push(d);
    }
  } catch {
    return undefined;
  }
  return states;
}

export function checkHistorySync(arg: ModelArg, history: readonly Operation[], options: CheckOptions = {}): LinResult {
  feedbackFor(history);
  return runInThread(plan(arg, history, options));
}

/**
 * Search the partitions, stopping after the first round with an illegal one. The first
 * round's small.ts searches come first, partition by partition: most small checks end
 * there, without the rounds' machinery; those it gives up go to the rounds (wgl.ts), which
 * play at least that first round, as they would have with small.ts in it.
 */
export function runInThread(p: Plan): LinResult {
  const n = p.parts.length;
  const results: (SearchResult | undefined)[] = new Array(n);
  if (p.planError !== undefined) return assemble(p, results);
  // The whole history's one partition is the history, without partitionOps' call or an array
  // of it (a function's first call costs ~1.5 us in a first check, an array literal ~1.5).
  const ops = p.whole ? undefined : partitionOps(p);
  let illegal = false;
  // Made only when small.ts gives a partition up (an array literal is made in the runtime on a first check).
  let left: number[] | undefined;
  for (let index = 0; index < n; index++) {
    const quick = p.verbose ? undefined : smallSearch(p.model, ops === undefined ? p.history : ops[index]);
    if (quick === undefined) (left ??= []).push(index);
    else {
      results[index] = quick;
      if (quick.verdict === 'illegal') illegal = true;
    }
  }
  if (left !== undefined) {
    const rounds = new Rounds(p.model, ops ?? [p.history], left, p, true);
    do {
      for (const { index, result } of rounds.play()) {
        results[index] = result;
        if (result.verdict === 'illegal') illegal = true;
      }
    } while (!rounds.done && !illegal);
  }
  return assemble(p, results, ops);
}
