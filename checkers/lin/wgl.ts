// The WGL search for one (sub-)history: Wing & Gong's backtracking over minimal
// operations, with Lowe's memo of configurations and Horn & Kroening's linked-list lift /
// unlift (FORTE'15, §4, Algorithm 1). Indeterminate operations have no return entry: they
// may be linearized at any time after their call, or never, and the search succeeds once
// every determinate operation is linearized.
//
// Indeterminate operations (crashes, timeouts) are where a search explodes: each may be
// slotted in anywhere after its call, so every dead end would try every subset of them in
// every order. Three reductions keep them from multiplying the configurations, each sound
// on its own (the tests hold them to plain WGL and to a brute-force enumerator):
// - read-only ones are ignored, and those the model's `unobserved` says no operation could
//   have seen are dropped: both are as good as never having happened;
// - indeterminate operations with equal inputs are interchangeable, so only the earliest
//   called one not yet linearized is a candidate (the one called first can stand in for
//   any later one wherever the later one fits);
// - they are tried only after every determinate candidate (just in time, Lowe 2017).

import { ENTRY_BYTES, entriesOf, smallTimesBase, type EntryList, type TimeArray } from './entries.ts';
import { fmix32, hashValue, valueEqual } from './hash.ts';
import { HeapWatch } from './heap.ts';
import { Memo, MemoFull } from './memo.ts';
import { Slab } from './slab.ts';
import { ILLEGAL, nextOf, UNKNOWN, type Illegal, type MemoryLimit, type Model, type Operation, type Refutation, type Verdict } from './types.ts';

export interface SearchOptions {
  /** Absolute time (Date.now()) at which the search gives up with unknown. */
  deadline?: number;
  /** Polled now and then; true stops the search with unknown (another partition failed). */
  cancelled?: () => boolean;
  /** Record the longest partial linearization through every operation. */
  verbose?: boolean;
  /** Memory budget of the memo (bitsets, table); past it the verdict is unknown. */
  memoLimitBytes?: number;
  /**
   * Use the order and the reductions of `kinds` (default true). False: plain WGL, every
   * candidate tried in call order; the tests hold the two to the same verdicts.
   */
  reductions?: boolean;
  /** Lazy frames (default true; false for the tests, which hold the two to the same search). */
  lazyFrames?: boolean;
  /**
   * Order determinate updates by the model's `conditional` hint where it gives one
   * (`updateKey`; default false: by return). check.ts's second search of a hard partition.
   */
  conditional?: boolean;
  /**
   * Iterations after the first dead end before the model's proof is asked for (default:
   * the history's length; the tests ask at once, to reach what a proof does mid-search).
   */
  refuteAfter?: number;
}

/** The search's answer; operation numbers are indices into the ops it was given. */
export interface SearchResult {
  verdict: Verdict;
  reason?: 'timeout' | 'cancelled' | 'model-error' | 'memory';
  /** With reason 'memory': the bound reached. */
  memoryLimit?: MemoryLimit;
  linearization?: number[];
  /** Longest partial linearizations, longest first (illegal or unknown verdicts). */
  longest?: number[][];
  modelError?: { operation: number; message: string };
  /** The model's proof of illegal (operation: an index into the ops), when it gave one. */
  proof?: Refutation;
  /** The proof ended the search before it had tried everything. */
  cutShort?: boolean;
  /** Configurations the search stepped into, and memo entries kept. */
  explored: number;
  cached: number;
}

/**
 * Operation kinds, which order the candidates at each configuration (a kind's candidates
 * all come before the next kind's):
 * - READ_ONLY: determinate, and the model says the step never changes the state. If one
 *   fits now, some linearization (if any) puts it now: it is linearized without trying
 *   the alternatives (a backtrack over it is a dead end of the configuration). The
 *   model's `advice` names more such steps, in a given state, and steps that are useless.
 * - UPDATE: other determinate operations.
 * - INDETERMINATE: tried only when no determinate operation fits, linearized just in time.
 * - IGNORED: indeterminate and read-only: it constrains nothing and is never linearized.
 * Within a kind, candidates go by the model's priority hint, then by call; without a hint,
 * determinate updates go by return (in a search with `options.conditional`, those the model
 * calls conditional by the middle of their interval: `updateKey`), except that when the operation whose return is first
 * pending does not fit, the updates after which it fits come first. Of twin updates
 * (equal input and output) only the first to return is a candidate. Plain WGL puts every
 * operation in one kind (UPDATE), in call order.
 */
const READ_ONLY = 0;
const UPDATE = 1;
const INDETERMINATE = 2;
const IGNORED = 3;
/** Indeterminate, and the model says no operation could have observed it. */
const DROPPED = 4;

/** The twin arrays until they are made (one empty array for every search). */
const NO_INTS = new Int32Array(0);

/** Frames of at most this many candidates to order by hint are sorted in place, not natively. */
const SORT_BY_INSERTION = 32;

/** stackPos of a lazy frame (one not built: its candidate was found without it). */
const LAZY = -2;

/** Poll the clock, the cancel flag and the heap (HeapWatch.full: 0.6 us) every 1024 iterations. */
const POLL_EVERY = 1023;
/**
 * With the model's proof of illegal, the iterations the search still takes, for a
 * longest partial linearization to show (it goes deep first), unless its longest cannot
 * grow (proofBound).
 */
const AFTER_PROOF = 1 << 14;

/**
 * Per-operation random words: the bitset's hash is the XOR of its members' words. One
 * stream for every search (a prefix of it for n operations), grown as needed and never
 * written again once made.
 */
let zobristWords = new Int32Array(0);
function zobrist(n: number): Int32Array {
  if (n > zobristWords.length) {
    const z = new Int32Array(Math.max(n, 2 * zobristWords.length, 1024));
    let x = 0x9e3779b9 | 0;
    for (let i = 0; i < z.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      z[i] = x;
    }
    zobristWords = z;
  }
  return zobristWords.subarray(0, n);
}

/** Bytes a search's own arrays take per operation, roughly (Slab's first buffer). */
const SEARCH_BYTES = 100;

/**
 * One partition's search, resumable: `run(budget)` advances it by at most `budget`
 * iterations, so that several partitions can take turns (check.ts) and the first
 * illegal one found does not wait behind a hard one. The iteration count, not the clock,
 * decides the turns, so the outcome is deterministic.
 *
 * Operations are numbered for the search: determinate ones first, in call order, then the
 * indeterminate ones it may linearize; ignored and dropped ones are not in it at all. The
 * set of linearized operations is a bitset with the determinate part first, so that the
 * memo can keep it without the words every configuration shares (memo.ts).
 *
 * Each configuration on the stack has a frame: its candidates (the calls before the
 * first return still in the list, Horn & Kroening's minimal operations), in the order
 * they are tried, and how far the trying got.
 */
export class WglSearch<S> {
  /** Where the search's arrays come from; given back when it finishes. */
  private readonly slab: Slab;
  private readonly list: EntryList;
  /** For each search operation, its index in the ops the search was given. */
  private readonly origin: Int32Array;
  private readonly inputs: unknown[];
  private readonly outputs: unknown[];
  private readonly kind: Uint8Array;
  /** The passes over the candidates that build a frame: each a mask of kinds (1 << kind). */
  private passes: number[] = [];
  /**
   * With the model's priority hint: each operation's place in the order of (hint,
   * operation number), and the operation at each place. A frame's candidates are sorted
   * as these small integers (a native sort; frames grow with the clients).
   */
  private hintRank: Int32Array | undefined;
  private opOfRank: Int32Array | undefined;
  /**
   * The hint is asked for when a frame first has two candidates to order (a history
   * without concurrency never pays for it); until then false.
   */
  private hinted: boolean;
  /** Which kinds occur. */
  private readonly present: boolean[];
  /**
   * Indeterminate operations with equal inputs form a group, linearized in call order:
   * for each, the next member of its group (-1: none). Only each group's first member not
   * yet linearized is in the indeterminate list, a linked list in call order apart from
   * the entries (they have no return, and would be walked past at every step): `indNext`,
   * `indPrev`, with the sentinel at index n.
   */
  private readonly nextInGroup: Int32Array;
  private readonly indNext: Int32Array;
  private readonly indPrev: Int32Array;
  private readonly call: TimeArray;
  /** For each stack frame: the member put in the list when its operation left it (-1: none). */
  private readonly indSwap: Int32Array;
  /** The frames: candidates cand[frameStart[d] .. frameEnd[d]) of the configuration at depth d. */
  private cand: Int32Array;
  private readonly frameStart: Int32Array;
  private readonly frameEnd: Int32Array;
  /** For each stack frame: where in its candidates the operation linearized there is. */
  private readonly stackPos: Int32Array;
  /**
   * For each frame, the end of its forced candidates (frameStart .. frameForced): read-only
   * ones, and those the model's advice forces in the frame's state.
   */
  private readonly frameForced: Int32Array;
  /** A frame's candidates as gathered, before they are ordered (buildFrame's scratch). */
  private scratch = new Int32Array(16);
  /**
   * Twins: determinate updates with equal input and equal output (two writes of one value).
   * Of the twins among a frame's candidates only the one that returns first is tried: a
   * linearization that puts a later-returning twin b first becomes one that puts the
   * earlier-returning twin a first by swapping the two (every step sees the same states,
   * and whatever came between them came before a's return, so before b's). For each
   * operation its class (-1: not computed yet; classes are found when a frame first has
   * two update candidates), and each class's stamp and place in the frame being built.
   */
  private readonly twinClass: Int32Array | undefined;
  /**
   * The classes found so far, an open-addressing table of each class's first operation
   * (+1; 0: empty) by the hash of its input and output, and each classified operation's
   * hash. Typed arrays made at the first classify, not a Map of arrays: a queue's or a
   * set's first check classifies nearly every update (~1,000 at 1,000 operations), and a
   * Map entry and an array per class filled fresh heap pages (a page fault each few
   * classes, the most of classify's cost).
   */
  private twinTable = NO_INTS;
  private twinHashOf = NO_INTS;
  private twinStamp = NO_INTS;
  private twinAt = NO_INTS;
  private frames = 0;
  /** For each determinate operation, its return. */
  private readonly retTime: TimeArray;
  /**
   * For each determinate operation, the time by which it goes among a frame's updates
   * without a hint: its return (Lowe's just in time: a blind update, a write, fits in any
   * state and can wait for its return), or, with `options.conditional`, for one the model
   * calls conditional (a cas that succeeded, which fits only where the register holds
   * `from`) the middle of its interval: tried by its return, it is tried after the blind
   * updates that return sooner, and each of them can move the state away from the one it
   * needs (seed 11's `cas-register 1000/64 bad`: 593,465 configurations by return, 1,275
   * so). Neither order is the better on every history (a fresh 1,000-operation one: 371,779
   * by return, 5,774,293 so), hence check.ts's two searches (RESULTS-issue21.md, lin-cas3).
   * The same array as retTime when no update is conditional.
   */
  private readonly updateKey: TimeArray;
  /**
   * Some frame may order its updates otherwise than by return (`mayReorder`): without it
   * (no `options.conditional`, or no conditional update that can meet a pair it reorders)
   * the search is the one by return. Its lazy frames try read-only calls only (the first
   * return is not the first update when a conditional one is keyed before it).
   */
  readonly keyed: boolean;
  /** Determinate updates go by return (the reductions on, and no priority hint). */
  private byReturn = false;
  /**
   * The model's abstraction of states for this history, if it gives one (Model.abstraction).
   * Asked for with the refutation (and only without a proof), once the search has
   * backtracked as many iterations as the history has operations (the hook is a pass over
   * it, and only the memo gains from it): states met before stay as they are, each still
   * equivalent to the model's own.
   */
  private abstract: ((state: S) => S) | undefined;
  /**
   * The model's advice for this history, if it gives any, as the model made it: buildFrame
   * reads its answers itself ('forced', 'useless', 'dead'; anything else, or a throw, is
   * no advice), without a wrapper's call per candidate.
   */
  private readonly advise: ((state: S, input: unknown, output: unknown) => unknown) | undefined;
  /** For each stack frame: 1 when its operation was a forced one. */
  private readonly stackForced: Uint8Array;
  private readonly bitset: Uint32Array;
  /** Determinate operations, and the words their bits take. */
  private readonly det: number;
  private readonly detWords: number;
  /** Bit of indeterminate operation o: o + gap (their part starts on a word). */
  private readonly gap: number;
  private readonly zob: Int32Array;
  /**
   * Made at the first dead end: until the search backtracks, every configuration it steps
   * into holds one more operation than the last, so none can be met twice. A history
   * decided without backtracking never pays for a memo; at the first dead end the
   * configurations on the stack (all explored so far) go in.
   */
  private memo: Memo<S> | undefined;
  /** shareMemo's budget and hook, once set. */
  private memoLimit: number | undefined;
  private memoMore: (() => number | undefined) | undefined;
  /** Words of a bitset: the determinate part, then the indeterminate part. */
  private readonly words: number;
  private readonly stackOp: Int32Array;
  private readonly stackState: S[];
  /** For each stack depth: the highest word holding a determinate bit (-1: none). */
  private readonly topWord: Int32Array;
  private readonly verbose: boolean;
  private readonly longestThrough: (Int32Array | undefined)[];
  /** `best[0..bestLength)`: the partial linearization with the most determinate operations. */
  private readonly best: Int32Array;
  private bestLength = 0;
  private bestDeterminate = 0;
  /**
   * The depth at which the stack last held a new best, not yet copied to `best` (-1: none).
   * The copy waits for the next backtrack (the stack only grows until then), and copies
   * only what changed since the last copy: the stack above the lowest depth it was popped
   * to since (`lowWater`). Copying the whole stack at every new best would make a long
   * linear history quadratic.
   */
  private bestSp = -1;
  private lowWater = 0;
  private sp = 0;
  /** The candidate being tried in the current frame (-1: the frame is not built yet). */
  private pos = -1;
  private linearizedDeterminate = 0;
  private bitHash = 0;
  /** Leading determinate words whose operations are all linearized. */
  private fullWords = 0;
  private state: S;
  /** Iterations so far: steps tried and dead ends met. */
  iterations = 0;
  private explored = 0;
  private current = -1;
  private outcome: SearchResult | undefined;
  /** The heap it may fill, set from the heap in use as it starts (heap.ts HeapWatch). */
  private readonly heap = new HeapWatch();
  /**
   * The model's proof that there is no linearization (Model.refute), if it gave one. Asked
   * for once the search has backtracked for as many iterations as the history has
   * operations since its first dead end (the hook is a pass over the history: a search
   * that backtracks little never pays for it), or before it answers illegal; then the
   * search stops AFTER_PROOF iterations later (proofAt), or as soon as its longest holds
   * proofBound determinate operations.
   */
  private proof: Refutation | undefined;
  private refuteAsked: boolean;
  private proofAt = Infinity;
  private proofBound = Infinity;
  /** The iteration of the first dead end (-1: none yet). */
  private firstDeadEnd = -1;
  /**
   * The model's step (Model.next, or step read back into its form) and hash, and the
   * options' cancel flag, read once: the loop's
   * compiled code loads fields of WglSearch only, so a process that checks several
   * models does not deoptimize it at a load from another model's or another check's
   * object (each new model did, and its search went on in the interpreter until the
   * loop was compiled again).
   */
  private readonly step: (state: S, input: unknown, output: unknown) => S | Illegal;
  private readonly hashState: ((state: S) => number) | undefined;
  private readonly cancelled: (() => boolean) | undefined;
  private readonly priorityHook: Model<S>['priority'];

  constructor(
    private readonly model: Model<S>,
    private readonly ops: readonly Operation[],
    private readonly options: SearchOptions = {},
  ) {
    const reduce = options.reductions !== false;
    const all = ops.length;
    this.step = nextOf(model).bind(model);
    this.hashState = model.hash === undefined ? undefined : model.hash.bind(model);
    this.cancelled = options.cancelled;
    this.priorityHook = model.priority;
    const slab = (this.slab = new Slab(SEARCH_BYTES * all + ENTRY_BYTES * (2 * all + 1) + 64));
    const dropped = reduce ? unobserved(model, ops, options.deadline) : undefined;
    const readOnly = reduce ? readOnlyFlags(model, ops, slab) : undefined;
    // Search order: determinate operations, then the indeterminate ones kept, each by call.
    const kindOf = slab.u8(all);
    let det = 0;
    let kept = 0;
    let inCallOrder = true;
    for (let i = 0; i < all; i++) {
      const op = ops[i];
      if (i > 0 && op.call < ops[i - 1].call) inCallOrder = false;
      let k: number = UPDATE;
      if (op.ret !== undefined) {
        det++;
        if (readOnly !== undefined && readOnly[i] === 1) k = READ_ONLY;
      } else if (reduce) {
        k = readOnly![i] === 1 ? IGNORED : dropped !== undefined && dropped[i] === true ? DROPPED : INDETERMINATE;
      }
      kindOf[i] = k;
      if (k !== IGNORED && k !== DROPPED) kept++;
    }
    const n = kept;
    const origin = slab.i32(n);
    let d = 0;
    let x = det;
    for (let i = 0; i < all; i++) {
      if (ops[i].ret !== undefined) origin[d++] = i;
      else if (kindOf[i] !== IGNORED && kindOf[i] !== DROPPED) origin[x++] = i;
    }
    if (!inCallOrder) {
      const byCall = (a: number, b: number): number => ops[a].call - ops[b].call || a - b;
      origin.subarray(0, det).sort(byCall);
      origin.subarray(det).sort(byCall);
    }
    this.origin = origin;
    this.det = det;
    this.detWords = (det + 31) >>> 5;
    this.gap = this.detWords * 32 - det;
    // One pass over the search's operations (a first check runs this in V8's interpreter).
    const inputs = (this.inputs = new Array(n));
    const outputs = (this.outputs = new Array(n));
    const kind = (this.kind = slab.u8(n));
    // Times less the least when that makes them small integers (exact: integers below 2^53
    // less an integer); only their order and equalities matter to the search.
    const small = smallTimesBase(ops);
    const base = small ?? 0;
    const retTime = (this.retTime = small === undefined ? slab.f64(det) : slab.i32(det));
    const call = (this.call = small === undefined ? slab.f64(n) : slab.i32(n));
    const present = [false, false, false];
    // And what the entry list needs of the determinate operations' times (entriesOf's `known`).
    let min = Infinity;
    let max = -Infinity;
    let integers = true;
    for (let o = 0; o < n; o++) {
      const op = ops[origin[o]];
      const c = op.call - base;
      inputs[o] = op.input;
      call[o] = c;
      if (o < det) {
        const r = op.ret! - base;
        outputs[o] = op.output;
        retTime[o] = r;
        if (c < min) min = c;
        if (r > max) max = r;
        if (c > max) max = c;
        if (c % 1 !== 0 || r % 1 !== 0) integers = false;
      } else outputs[o] = UNKNOWN;
      const k = kindOf[origin[o]];
      kind[o] = k;
      present[k] = true;
    }
    this.list = entriesOf(call, retTime, det, slab, { min, max, integers });
    // With a priority hint the keys are not used (the hint orders the updates): none.
    const conditional = reduce && options.conditional === true && model.priority === undefined ? conditionalFlags(model, ops, origin, kind, det) : undefined;
    let key: TimeArray = retTime;
    if (conditional !== undefined) {
      key = slab.f64(det);
      for (let o = 0; o < det; o++) key[o] = conditional[o] === 1 ? (call[o] + retTime[o]) / 2 : retTime[o];
      if (!mayReorder(conditional, key, retTime, kind, det)) key = retTime;
    }
    this.updateKey = key;
    this.keyed = key !== retTime;
    this.twinClass = reduce && present[UPDATE] ? slab.i32(det).fill(-1) : undefined;
    this.present = present;
    this.hinted = !reduce || model.priority === undefined;
    this.lazyFrames = reduce && options.lazyFrames !== false && model.advice === undefined;
    if (this.lazyFrames) {
      // Determinate operations whose return time another's shares (1).
      // The list is in entry order here: entry e is the e-th.
      const tied = (this.tiedReturn = slab.u8(det));
      const { isCall, time, op } = this.list;
      let last = -1;
      for (let e = 0; e < isCall.length; e++) {
        if (isCall[e] === 1) continue;
        if (last >= 0 && time[last] === time[e]) tied[op[last]] = tied[op[e]] = 1;
        last = e;
      }
    }
    this.orderBy(undefined);
    this.refuteAsked = !reduce;
    // Groups of interchangeable indeterminate operations: equal inputs (plain WGL: none).
    this.nextInGroup = slab.i32(n).fill(-1);
    this.indNext = slab.i32(n + 1);
    this.indPrev = slab.i32(n + 1);
    this.indSwap = slab.i32(n).fill(-1);
    const groups = reduce && n > det ? new Map<number, number[]>() : undefined;
    const last: number[] = [];
    let tail = n;
    for (let o = det; o < n; o++) {
      let first = true;
      if (reduce) {
        const h = hashValue(this.inputs[o]);
        let members = groups!.get(h);
        if (members === undefined) groups!.set(h, (members = []));
        const g = members.find((m) => valueEqual(this.inputs[m], this.inputs[o]));
        if (g === undefined) members.push(o);
        else {
          this.nextInGroup[last[g]] = o;
          first = false;
        }
        last[g ?? o] = o;
      }
      if (first) {
        this.indNext[tail] = o;
        this.indPrev[o] = tail;
        tail = o;
      }
    }
    this.indNext[tail] = -1;
    // A frame at depth d holds at most n - d candidates: n(n + 1) / 2 in all.
    this.cand = slab.i32(Math.max(16, Math.min((n * (n + 1)) / 2, Math.max(64, 4 * n))));
    this.frameStart = slab.i32(n + 1);
    this.frameEnd = slab.i32(n + 1);
    this.frameForced = slab.i32(n + 1);
    this.enablerGoal = slab.i32(n + 1);
    this.enablerAt = slab.i32(n + 1);
    this.scanAt = slab.i32(n + 1);
    this.scanEnd = slab.i32(n + 1);
    this.advise = reduce ? adviceOf(model, ops, model.advice) : undefined;
    this.stackPos = slab.i32(n);
    this.stackForced = slab.u8(n);
    this.words = this.detWords + ((n - this.det + 31) >>> 5);
    this.bitset = slab.u32(Math.max(1, this.words));
    this.zob = zobrist(n);
    this.stackOp = slab.i32(n);
    this.best = slab.i32(n);
    this.stackState = new Array(n);
    this.topWord = slab.i32(n + 1);
    this.topWord[0] = -1;
    this.verbose = options.verbose === true;
    this.longestThrough = this.verbose ? new Array(n) : [];
    this.state = undefined as S;
    try {
      this.state = model.init();
    } catch (err) {
      this.fail(err);
    }
  }

  /** The answer, once `run` has returned true. */
  get result(): SearchResult {
    return this.outcome!;
  }

  /** Advance by at most `budget` iterations; true when the search has an answer. */
  run(budget = Infinity): boolean {
    if (this.outcome) return true;
    try {
      // A hook past the deadline gave up (its answer missing); the loop's first look at the
      // clock, after POLL_EVERY iterations, ends the search (illegal if a proof is in hand).
      return this.loop(budget, this.options.deadline ?? Infinity);
    } catch (err) {
      if (err instanceof MemoFull) this.outOfMemory(err);
      else this.fail(err);
      return true;
    }
  }

  /** Bytes its memo holds (0 before it starts). */
  memoBytes(): number {
    return this.memo === undefined ? 0 : this.memo.bytes();
  }

  /**
   * Its memo's budget from now on, in place of `memoLimitBytes`, and `more` to ask for a
   * larger one when it is reached (Memo.more): check.ts's two searches of a partition
   * share the partition's budget.
   */
  shareMemo(bytes: number, more?: () => number | undefined): void {
    this.memoLimit = bytes;
    this.memoMore = more;
    if (this.memo !== undefined) {
      this.memo.more = more;
      this.memo.limit(bytes);
    }
  }

  /** Give up with unknown (the time budget ran out, or the search was cancelled). */
  stop(reason: 'timeout' | 'cancelled'): SearchResult {
    if (!this.outcome) {
      if (reason === 'timeout') this.outOfTime();
      else this.finish('unknown', reason);
    }
    return this.outcome!;
  }

  /**
   * Out of time: unknown, unless the model's proof is in hand (as outOfMemory). Not for a
   * cancel: a worker cancelled because another partition was illegal reports as one thread would.
   */
  private outOfTime(): void {
    if (this.proof !== undefined) {
      this.finish('illegal');
      this.outcome!.cutShort = true;
      return;
    }
    this.finish('unknown', 'timeout');
  }

  /**
   * Out of memory: unknown, unless the model's proof is in hand (the search was only
   * looking for a longer partial linearization to show): then illegal, cut short.
   */
  private outOfMemory(full: MemoFull): void {
    if (this.proof !== undefined) {
      this.finish('illegal');
      this.outcome!.cutShort = true;
      return;
    }
    this.finish('unknown', 'memory');
    this.outcome!.memoryLimit = { of: full.of, bytes: full.limitBytes };
  }

  private fail(err: unknown): void {
    const operation = this.current < 0 ? -1 : this.origin[this.current];
    this.finish('unknown', 'model-error');
    this.outcome!.modelError = { operation, message: err instanceof Error ? err.message : String(err) };
  }

  private finish(verdict: Verdict, reason?: SearchResult['reason']): void {
    const result: SearchResult = { verdict, explored: this.explored, cached: this.memo === undefined ? this.explored : this.memo.size };
    if (reason) result.reason = reason;
    if (verdict === 'illegal' && this.proof !== undefined) result.proof = this.proof;
    const origin = this.origin;
    // A loop, not Array.from with a function (a call per operation in the interpreter).
    const back = (seq: ArrayLike<number>): number[] => {
      const out = new Array<number>(seq.length);
      for (let k = 0; k < seq.length; k++) out[k] = origin[seq[k]];
      return out;
    };
    if (verdict === 'ok') {
      result.linearization = back(this.stackOp.subarray(0, this.sp));
    } else {
      this.snapshotBest();
      const best = this.best.subarray(0, this.bestLength);
      result.longest = (this.verbose ? distinctLongest(this.longestThrough, best) : [Array.from(best)]).map(back);
    }
    this.outcome = result;
    // Nothing reads the arrays once there is an outcome (the result holds copies).
    this.slab.release();
  }

  private snapshotBest(): void {
    if (this.bestSp < 0) return;
    this.best.set(this.stackOp.subarray(this.lowWater, this.bestSp), this.lowWater);
    this.bestLength = this.bestSp;
    this.lowWater = this.bestSp;
    this.bestSp = -1;
  }

  /**
   * With a proof that operation `refuted` (an index into the ops) is in no linearization:
   * the most determinate operations a partial linearization without it can hold, those
   * called by its return but itself (a call after a pending return is never a candidate).
   * Past that the search only looks for a longest it cannot find. Infinity when the
   * refuted operation has no return.
   */
  private longestPossible(refuted: number): number {
    const { origin, det, call, retTime } = this;
    let r = -1;
    for (let o = 0; o < det && r < 0; o++) if (origin[o] === refuted) r = o;
    if (r < 0) return Infinity;
    let count = 0;
    for (let o = 0; o < det; o++) if (o !== r && call[o] <= retTime[r]) count++;
    return count;
  }

  /** The memo, holding the configurations on the stack (depth sp, current state `state`). */
  private startMemo(sp: number, state: S): Memo<S> {
    const { model, det, detWords, words, zob, stackOp, stackState, hashState } = this;
    const memo = new Memo<S>(detWords, words, model.equal ? model.equal.bind(model) : Object.is, this.memoLimit ?? this.options.memoLimitBytes, 4 * this.origin.length, this.memoMore);
    const bits = new Uint32Array(Math.max(1, words));
    const lastMask = det % 32 === 0 ? 0xffffffff : 2 ** (det % 32) - 1;
    let hash = 0;
    let low = 0;
    let top = -1;
    for (let k = 0; k < sp; k++) {
      const o = stackOp[k];
      const b = o < det ? o : o + this.gap;
      bits[b >>> 5] |= 1 << (b & 31);
      hash ^= zob[o];
      if (o < det) {
        while (low < detWords && bits[low] === (low === detWords - 1 ? lastMask : 0xffffffff)) low++;
        if (b >>> 5 > top) top = b >>> 5;
      }
      const after = k + 1 < sp ? stackState[k + 1] : state;
      memo.add(hashState === undefined ? hash : hash ^ hashState(after), bits, low, top, after);
    }
    this.memo = memo;
    return memo;
  }

  /** Verbose mode: credit the current stack to every operation on it (Porcupine's rule). */
  private recordThrough(sp: number): void {
    let copy: Int32Array | undefined;
    for (let k = 0; k < sp; k++) {
      const o = this.stackOp[k];
      const prevBest = this.longestThrough[o];
      if (prevBest === undefined || prevBest.length < sp) {
        copy ??= this.stackOp.slice(0, sp);
        this.longestThrough[o] = copy;
      }
    }
  }

  /**
   * Build the frame of the configuration at depth sp (model state `state`) on top of the
   * candidate stack: the calls before the first return in the list; the forced ones first,
   * then by kind, then by hint; of a group of interchangeable indeterminate operations
   * only the first unused one; none the model's advice calls useless here. Returns its end.
   */
  private buildFrame(sp: number, state: S): number {
    const { next, isCall, head, time } = this.list;
    const entryOp = this.list.op;
    const { kind, advise, inputs, outputs, indNext, call } = this;
    const ind = this.indNext.length - 1;
    const start = sp === 0 ? 0 : this.frameEnd[sp - 1];
    let top = start;
    // Indeterminate operations are candidates when called before the first return left.
    let until = Infinity;
    let firstReturn = -1;
    for (let e = next[head]; e !== -1; e = next[e]) {
      if (isCall[e] === 0) {
        until = time[e];
        firstReturn = entryOp[e];
        break;
      }
    }
    // The candidates, gathered once: the calls in the list, then the indeterminate ones.
    let scratch = this.scratch;
    let count = 0;
    for (let e = next[head], x = indNext[ind]; ; ) {
      let o: number;
      if (e !== -1 && isCall[e] === 1) {
        o = entryOp[e];
        e = next[e];
      } else if (x !== -1 && call[x] <= until) {
        o = x;
        x = indNext[x];
      } else break;
      if (count === scratch.length) {
        const grown = new Int32Array(scratch.length * 2);
        grown.set(scratch);
        this.scratch = scratch = grown;
      }
      scratch[count++] = o;
    }
    if (this.twinClass !== undefined && count > 1) this.dropLaterTwins(scratch, count);
    if (!this.hinted && count > 1) {
      let orderable = 0;
      for (let k = 0; k < count; k++) if (scratch[k] >= 0 && kind[scratch[k]] !== READ_ONLY) orderable++;
      if (orderable > 1) {
        this.hinted = true;
        this.orderBy(priorities(this.model, this.ops, this.priorityHook, this.options.deadline));
      }
    }
    const { passes, hintRank, opOfRank } = this;
    // With advice: the forced operations first, and the useless ones left out (-1 in the
    // scratch). Read-only ones are forced anyway, and come first in the next pass. The
    // advice is called here, not through a wrapper: a
    // queue's is asked for every candidate of every frame, and a first check in a fresh
    // process runs this in V8's interpreter, where each call costs.
    if (advise !== undefined) {
      // The operation whose return is first pending, if the advice calls it dead here:
      // no linearization of the rest, so no candidates.
      if (firstReturn >= 0 && kind[firstReturn] !== READ_ONLY) {
        let a: unknown;
        try {
          a = advise(state, inputs[firstReturn], outputs[firstReturn]);
        } catch {
          a = undefined;
        }
        if (a === 'dead') count = 0;
      }
      for (let k = 0; k < count; k++) {
        const o = scratch[k];
        if (o < 0 || kind[o] === READ_ONLY) continue;
        let a: unknown;
        try {
          a = advise(state, inputs[o], outputs[o]);
        } catch {
          // A hook that throws only costs the reduction.
          continue;
        }
        if (a !== 'forced' && a !== 'useless' && a !== 'dead') continue;
        scratch[k] = -1;
        if (a !== 'forced') continue;
        if (top === this.cand.length) this.growCandidates();
        this.cand[top++] = o;
      }
    }
    let forcedEnd = top;
    this.scanEnd[sp] = 0;
    for (let p = 0; p < passes.length; p++) {
      const mask = passes[p];
      const from = top;
      for (let k = 0; k < count; k++) {
        const o = scratch[k];
        if (o < 0 || (mask & (1 << kind[o])) === 0) continue;
        if (top === this.cand.length) this.growCandidates();
        this.cand[top++] = o;
      }
      if (mask === 1 << READ_ONLY) forcedEnd = top;
      // Determinate then indeterminate candidates, each in call order; a hint reorders,
      // determinate operations first among equal hints.
      if (hintRank !== undefined && top - from > 1) {
        const cand = this.cand;
        if (top - from <= SORT_BY_INSERTION) {
          // Ranks are distinct: the same order as the native sort's, without a subarray
          // and a call into the runtime per frame (most frames hold a few candidates).
          for (let i = from + 1; i < top; i++) {
            const o = cand[i];
            const r = hintRank[o];
            let j = i - 1;
            while (j >= from && hintRank[cand[j]] > r) {
              cand[j + 1] = cand[j];
              j--;
            }
            cand[j + 1] = o;
          }
        } else {
          for (let i = from; i < top; i++) cand[i] = hintRank[cand[i]];
          cand.subarray(from, top).sort();
          for (let i = from; i < top; i++) cand[i] = opOfRank![cand[i]];
        }
      } else if (this.byReturn && mask === 1 << UPDATE && top - from > 1) {
        // No hint: the update that must return first goes first (Lowe's just in time: an
        // update is linearized when the first pending return needs it). Frames are small
        // and nearly sorted already: an insertion sort.
        const cand = this.cand;
        const rt = this.updateKey;
        for (let i = from + 1; i < top; i++) {
          const o = cand[i];
          let j = i - 1;
          while (j >= from && rt[cand[j]] > rt[o]) {
            cand[j + 1] = cand[j];
            j--;
          }
          cand[j + 1] = o;
        }
        if (firstReturn >= 0) this.enablersFirst(sp, from, top, state, firstReturn);
      }
    }
    this.frameStart[sp] = start;
    this.frameEnd[sp] = top;
    this.frameForced[sp] = forcedEnd;
    return top;
  }

  /**
   * Lowe's just in time, for the operation whose return is first pending (`goal`): when it
   * does not fit in `state`, the updates after which it fits go first (stably; the rest
   * keep their order). The order only: no candidate is dropped. Each enabler is found when
   * the search reaches its place (nextEnabler): the same order, as far as it is tried.
   */
  private enablersFirst(sp: number, from: number, top: number, state: S, goal: number): void {
    try {
      if (this.step(state, this.inputs[goal], this.outputs[goal]) !== ILLEGAL) return;
    } catch {
      return;
    }
    this.enablerGoal[sp] = goal;
    this.enablerAt[sp] = from;
    this.scanAt[sp] = from;
    this.scanEnd[sp] = top;
  }

  /**
   * The search is at enablerAt[sp] of the frame at depth sp (model state `state`): the next
   * update after which the goal fits is moved there, ahead of the updates told not to
   * (which keep their order); if none is left, the order is complete as it stands.
   */
  private nextEnabler(sp: number, state: S): void {
    const { step, inputs, outputs } = this;
    const cand = this.cand;
    const goal = this.enablerGoal[sp];
    const at = this.enablerAt[sp];
    const end = this.scanEnd[sp];
    for (let j = this.scanAt[sp]; j < end; j++) {
      const o = cand[j];
      let enables = false;
      try {
        const s = step(state, inputs[o], outputs[o]);
        enables = s !== ILLEGAL && step(s, inputs[goal], outputs[goal]) !== ILLEGAL;
      } catch {
        enables = false;
      }
      if (enables) {
        for (let k = j; k > at; k--) cand[k] = cand[k - 1];
        cand[at] = o;
        this.enablerAt[sp] = at + 1;
        this.scanAt[sp] = j + 1;
        return;
      }
    }
    this.scanAt[sp] = end;
  }

  /**
   * enablersFirst's order, made as the search needs it (most frames of a long history take
   * their first candidate and are never come back to; a 64-client cas-register frame
   * holds dozens of updates, two steps each to tell an enabler): for each depth whose
   * updates are being put in that order, the goal, where its next enabler goes, and the
   * updates not yet told, scanAt .. scanEnd (scanAt < scanEnd: some left). Between
   * enablerAt and scanAt, the updates told not to enable, in their order.
   */
  private readonly enablerGoal: Int32Array;
  private readonly enablerAt: Int32Array;
  private readonly scanAt: Int32Array;
  private readonly scanEnd: Int32Array;

  /**
   * Lazy frames (no hint, no advice): most configurations of a long history take the first
   * candidate of their frame and never come back, so the frame is not built until the
   * search backtracks into it. Its first candidate is found without it: the first
   * read-only call that fits (forced, so the frame is never needed), else the operation
   * whose return is first pending when it is an update that fits (first by return, the
   * first of its twins, and no reordering since it fits; not in the keyed order). Otherwise the frame is built.
   * The same candidates in the same order: the same search. The loop finds it itself (a
   * call per configuration costs, in V8's interpreter and baseline code, where a first
   * check runs the whole search); with a hint, firstByHint.
   */
  private lazyFrames: boolean;
  private lazyMisses = 0;
  private tiedReturn: Uint8Array | undefined;
  /** The step of the candidate firstByHint found, and the steps it tried (iterations). */
  private lazyStep: S | Illegal = ILLEGAL;
  private lazyTried = 0;
  /** The candidate a lazy frame tried, when the search comes back to build it (-1: none). */
  private resume = -1;

  /**
   * With the model's hint, the first of the frame after its read-only candidates (none
   * fits; `firstReturn` the first return entry): the update or indeterminate candidate
   * first by hint, unless a twin of it is a candidate too (the frame drops one of them).
   */
  private firstByHint(state: S, firstReturn: number, tried: number): number {
    const { next, head, time } = this.list;
    const entryOp = this.list.op;
    const { kind, indNext, call } = this;
    const hintRank = this.hintRank!;
    const until = time[firstReturn];
    let best = -1;
    let bestRank = Infinity;
    for (let e = next[head]; e !== firstReturn; e = next[e]) {
      const o = entryOp[e];
      if (kind[o] !== READ_ONLY && hintRank[o] < bestRank) {
        best = o;
        bestRank = hintRank[o];
      }
    }
    for (let x = indNext[indNext.length - 1]; x !== -1 && call[x] <= until; x = indNext[x]) {
      if (hintRank[x] < bestRank) {
        best = x;
        bestRank = hintRank[x];
      }
    }
    if (best < 0) return -1;
    if (kind[best] === UPDATE && this.twinClass !== undefined) {
      const twinClass = this.twinClass;
      const c = twinClass[best] < 0 ? this.classify(best) : twinClass[best];
      for (let e = next[head]; e !== firstReturn; e = next[e]) {
        const o = entryOp[e];
        if (o === best || kind[o] !== UPDATE) continue;
        if ((twinClass[o] < 0 ? this.classify(o) : twinClass[o]) === c) return -1;
      }
    }
    this.current = best;
    const r = this.step(state, this.inputs[best], this.outputs[best]);
    if (r === ILLEGAL) return -1;
    this.lazyTried = tried;
    this.lazyStep = r;
    return best;
  }

  /** Of each class of twins among the gathered candidates, all but the first to return become -1. */
  private dropLaterTwins(scratch: Int32Array, count: number): void {
    const { kind, retTime } = this;
    const twinClass = this.twinClass!;
    const stamp = ++this.frames;
    let updates = 0;
    for (let k = 0; k < count && updates < 2; k++) if (kind[scratch[k]] === UPDATE) updates++;
    if (updates < 2) return;
    for (let k = 0; k < count; k++) {
      const o = scratch[k];
      if (kind[o] !== UPDATE) continue;
      let c = twinClass[o];
      if (c < 0) c = this.classify(o);
      if (this.twinStamp[c] !== stamp) {
        this.twinStamp[c] = stamp;
        this.twinAt[c] = k;
        continue;
      }
      const j = this.twinAt[c];
      if (retTime[o] < retTime[scratch[j]]) {
        scratch[j] = -1;
        this.twinAt[c] = k;
      } else scratch[k] = -1;
    }
  }

  /** The twin class of determinate operation o (equal input and output: one class). */
  private classify(o: number): number {
    const input = this.inputs[o];
    const output = this.outputs[o];
    const twinClass = this.twinClass!;
    if (this.twinTable.length === 0) this.makeTwinTable();
    const table = this.twinTable;
    const hash = this.twinHashOf;
    const h = fmix32(Math.imul(twinHash(input), 31) + twinHash(output));
    const mask = table.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const r = table[i] - 1;
      if (r < 0) {
        table[i] = o + 1;
        hash[o] = h;
        return (twinClass[o] = this.classes++);
      }
      if (hash[r] === h && valueEqual(this.inputs[r], input) && valueEqual(this.outputs[r], output)) return (twinClass[o] = twinClass[r]);
    }
  }

  private classes = 0;

  /** The class table, at most half full (a class per determinate operation at most), and the per-class arrays. */
  private makeTwinTable(): void {
    const det = this.det;
    let size = 16;
    while (size < 2 * det) size *= 2;
    const all = new Int32Array(size + 3 * det);
    this.twinTable = all.subarray(0, size);
    this.twinHashOf = all.subarray(size, size + det);
    this.twinStamp = all.subarray(size + det, size + 2 * det);
    this.twinAt = all.subarray(size + 2 * det);
  }

  /** The order of a frame's candidates, by the model's hint (undefined: none). */
  private orderBy(priority: number[] | undefined): void {
    const n = this.origin.length;
    if (priority !== undefined) {
      // By (hint, operation), without a comparator: the hints sorted natively, each distinct
      // hint's first place in a Map (-0 and 0 one hint, as the sort keeps them together),
      // and the operations in order each take the next place of their hint. A Map's get per
      // operation, not a binary search over the distinct hints (a first check runs the loop
      // in V8's interpreter: ~10 iterations an operation with a queue's ~n/2 distinct hints).
      // Small integers (the models' hints are) in Int32Arrays: a Float64Array's element read
      // in V8's interpreter makes a heap number, and so does a double Map key.
      const { origin, slab } = this;
      let ints = true;
      for (let o = 0; o < n && ints; o++) {
        const h = priority[origin[o]];
        ints = (h | 0) === h;
      }
      const hint = ints ? slab.i32(n) : slab.f64(n);
      for (let o = 0; o < n; o++) hint[o] = priority[origin[o]];
      const sorted = ints ? slab.i32(n) : slab.f64(n);
      sorted.set(hint);
      sorted.sort();
      const place = new Map<number, number>();
      for (let r = 0; r < n; r++) if (r === 0 || sorted[r] !== sorted[r - 1]) place.set(sorted[r], r);
      const opOfRank = (this.opOfRank = slab.i32(n));
      const hintRank = (this.hintRank = slab.i32(n));
      for (let o = 0; o < n; o++) {
        const h = hint[o];
        const r = place.get(h)!;
        place.set(h, r + 1);
        opOfRank[r] = o;
        hintRank[o] = r;
      }
    }
    this.byReturn = this.options.reductions !== false && this.hintRank === undefined;
    // With a hint, the model says where each update goes, indeterminate ones too (an
    // observed crashed enqueue belongs where its value left the queue, not where the search
    // first needs it): they share one pass, by hint.
    const present = this.present;
    const passes: number[] = [];
    if (present[READ_ONLY]) passes.push(1 << READ_ONLY);
    if (this.hintRank !== undefined) {
      if (present[UPDATE] || present[INDETERMINATE]) passes.push((1 << UPDATE) | (1 << INDETERMINATE));
    } else {
      if (present[UPDATE]) passes.push(1 << UPDATE);
      if (present[INDETERMINATE]) passes.push(1 << INDETERMINATE);
    }
    this.passes = passes;
  }

  private growCandidates(): void {
    const grown = new Int32Array(this.cand.length * 2);
    grown.set(this.cand);
    this.cand = grown;
  }

  /**
   * At a dead end (depth sp): the model's refutation, a pass over the history, asked once
   * the search has spent as many iterations backtracking as the history has operations (a
   * search that backtracks a little and succeeds never pays for it), or when the search is
   * about to say illegal without it (sp 0). With a proof the search only looks for a
   * longest, which it need not look past proofBound for; without one, the model's
   * abstraction of states from then on. True when asked. A method of its own: the loop's
   * compiled code stays small, and loads no field of the model (see `step`).
   */
  private askRefutation(sp: number, iterations: number): boolean {
    if (this.firstDeadEnd < 0) this.firstDeadEnd = iterations;
    if (sp > 0 && iterations - this.firstDeadEnd < (this.options.refuteAfter ?? this.ops.length)) return false;
    const model = this.model;
    this.refuteAsked = true;
    this.proof = refutation(model, this.ops, model.refute);
    if (sp > 0 && this.proof === undefined) this.abstract = abstraction(model, this.ops, model.abstraction, this.options.deadline);
    if (this.proof !== undefined) {
      this.proofAt = iterations + AFTER_PROOF;
      // A pair: a partial linearization lacks one of the two, so the bound is the larger.
      if (!this.verbose) this.proofBound = Math.max(this.longestPossible(this.proof.operation), this.proof.and === undefined ? 0 : this.longestPossible(this.proof.and));
    }
    return true;
  }

  /** The loop's registers, kept between runs (a closure would box them in a context). */
  private save(sp: number, pos: number, linearizedDeterminate: number, bitHash: number, state: S, iterations: number, explored: number, bestDeterminate: number, fullWords: number, resume: number): void {
    this.resume = resume;
    this.sp = sp;
    this.pos = pos;
    this.linearizedDeterminate = linearizedDeterminate;
    this.bitHash = bitHash;
    this.state = state;
    this.iterations = iterations;
    this.explored = explored;
    this.bestDeterminate = bestDeterminate;
    this.fullWords = fullWords;
  }

  private loop(budget: number, deadline: number): boolean {
    const { bitset, zob, stackOp, stackState, stackForced, stackPos, inputs, outputs, verbose, det, detWords, gap, topWord, frameStart, frameEnd, frameForced, indNext, indPrev, nextInGroup, indSwap, call } = this;
    const { next, prev, callEntry, returnEntry, isCall, head } = this.list;
    const entryOp = this.list.op;
    const { kind, tiedReturn, enablerAt, scanAt, scanEnd } = this;
    const mustLinearize = this.list.determinate;
    const { cancelled, step, hashState } = this;
    let { sp, pos, linearizedDeterminate, bitHash, state, iterations, explored, fullWords } = this;
    const stopAt = iterations + budget;
    let proofAt = this.proofAt;
    let proofBound = this.proofBound;
    let bestDeterminate = this.bestDeterminate;
    let abstract = this.abstract;
    // The last determinate word is full when its `det % 32` low bits are set.
    const lastMask = det % 32 === 0 ? 0xffffffff : 2 ** (det % 32) - 1;
    let current = -1;
    let end = pos < 0 ? 0 : frameEnd[sp];
    let resume = this.resume;
    let cand = this.cand;
    let memo = this.memo;
    try {
      for (;;) {
        if (iterations >= stopAt) {
          this.save(sp, pos, linearizedDeterminate, bitHash, state, iterations, explored, bestDeterminate, fullWords, resume);
          return false;
        }
        if ((++iterations & POLL_EVERY) === 0) {
          if (iterations >= proofAt || bestDeterminate >= proofBound) {
            this.save(sp, pos, linearizedDeterminate, bitHash, state, iterations, explored, bestDeterminate, fullWords, resume);
            this.finish('illegal');
            this.outcome!.cutShort = true;
            return true;
          }
          if (Date.now() > deadline || (cancelled !== undefined && cancelled())) {
            this.save(sp, pos, linearizedDeterminate, bitHash, state, iterations, explored, bestDeterminate, fullWords, resume);
            if (Date.now() > deadline) this.outOfTime();
            else this.finish('unknown', 'cancelled');
            return true;
          }
          const heapBound = this.heap.full();
          if (heapBound !== undefined) {
            this.save(sp, pos, linearizedDeterminate, bitHash, state, iterations, explored, bestDeterminate, fullWords, resume);
            this.outOfMemory(new MemoFull(heapBound, 'heap'));
            return true;
          }
        }
        if (linearizedDeterminate === mustLinearize) {
          this.save(sp, pos, linearizedDeterminate, bitHash, state, iterations, explored, bestDeterminate, fullWords, resume);
          if (verbose) this.recordThrough(sp);
          this.finish('ok');
          return true;
        }
        // A lazy frame: its first candidate found without building it (see lazyFrames):
        // the first read-only call that fits, else (no hint) the operation whose return is
        // first pending, an update without a tied return, if it fits.
        let lazy = -1;
        let lazyStep: S | Illegal = ILLEGAL;
        if (pos < 0) {
          if (resume < 0 && this.lazyFrames && this.hinted) {
            let tried = 0;
            let e = next[head];
            for (; e !== -1 && isCall[e] === 1; e = next[e]) {
              const o = entryOp[e];
              if (kind[o] !== READ_ONLY) continue;
              tried++;
              current = o;
              const r = step(state, inputs[o], outputs[o]);
              if (r !== ILLEGAL) {
                lazy = o;
                lazyStep = r;
                iterations += tried - 1;
                break;
              }
            }
            // Otherwise the frame is built and tries them again, counting them then.
            if (lazy < 0 && e !== -1) {
              if (this.hintRank !== undefined) {
                current = -2; // firstByHint names the operation a model error comes from
                lazy = this.firstByHint(state, e, tried);
                if (lazy >= 0) {
                  lazyStep = this.lazyStep;
                  iterations += this.lazyTried;
                }
              } else {
                const f = entryOp[e];
                // Returns tied with another's would be ordered by call in the frame, and in
                // the conditional order (keyed) one keyed before f's return may go first: built then.
                if (kind[f] === UPDATE && tiedReturn![f] === 0 && !this.keyed) {
                  current = f;
                  const r = step(state, inputs[f], outputs[f]);
                  if (r !== ILLEGAL) {
                    lazy = f;
                    lazyStep = r;
                    iterations += tried;
                  }
                }
              }
            }
            // Where the first candidate seldom fits, the frame is built anyway after the
            // scan: give lazy frames up (the search stays the same).
            if (lazy < 0 && ++this.lazyMisses >= 64 && 2 * this.lazyMisses > explored) this.lazyFrames = false;
          }
          if (lazy < 0) {
            end = this.buildFrame(sp, state);
            cand = this.cand;
            pos = frameStart[sp];
            if (resume >= 0) {
              // Back in a frame that was lazy: on after the candidate it tried (in the
              // frame's whole order).
              while (scanAt[sp] < scanEnd[sp]) this.nextEnabler(sp, state);
              for (let k = pos; k < end; k++) {
                if (cand[k] === resume) {
                  pos = k + 1;
                  break;
                }
              }
              resume = -1;
            }
          }
        }
        let deadEnd = true;
        if (lazy < 0 && pos === enablerAt[sp] && scanAt[sp] < scanEnd[sp]) this.nextEnabler(sp, state);
        if (lazy >= 0 || pos < end) {
          const o = lazy >= 0 ? lazy : cand[pos];
          current = o;
          const r = lazy >= 0 ? lazyStep : step(state, inputs[o], outputs[o]);
          deadEnd = false;
          if (r !== ILLEGAL) {
            const after = abstract === undefined ? r : abstract(r);
            const isDet = o < det;
            const b = isDet ? o : o + gap;
            const w = b >>> 5;
            const bit = 1 << (b & 31);
            bitset[w] |= bit;
            let low = fullWords;
            if (isDet && w === low) while (low < detWords && bitset[low] === (low === detWords - 1 ? lastMask : 0xffffffff)) low++;
            const top = isDet && w > topWord[sp] ? w : topWord[sp];
            const nextHash = bitHash ^ zob[o];
            if (memo === undefined || memo.add(hashState === undefined ? nextHash : nextHash ^ hashState(after), bitset, low, top, after)) {
              explored++;
              stackOp[sp] = o;
              stackState[sp] = state;
              if (lazy >= 0) {
                // Nothing of the frame is on the candidate stack; a read-only candidate is forced.
                const at = sp === 0 ? 0 : frameEnd[sp - 1];
                frameStart[sp] = frameEnd[sp] = frameForced[sp] = at;
                stackPos[sp] = LAZY;
                stackForced[sp] = kind[o] === READ_ONLY ? 1 : 0;
              } else {
                stackPos[sp] = pos;
                stackForced[sp] = pos < frameForced[sp] ? 1 : 0;
              }
              sp++;
              topWord[sp] = top;
              fullWords = low;
              state = after;
              bitHash = nextHash;
              if (isDet) {
                linearizedDeterminate++;
                if (linearizedDeterminate > bestDeterminate) {
                  bestDeterminate = linearizedDeterminate;
                  this.bestSp = sp;
                }
                // lift: unlink the call entry, then the return entry
                const c = callEntry[o];
                next[prev[c]] = next[c];
                if (next[c] !== -1) prev[next[c]] = prev[c];
                const rt = returnEntry[o];
                next[prev[rt]] = next[rt];
                if (next[rt] !== -1) prev[next[rt]] = prev[rt];
              } else {
                // Out of the indeterminate list; the next of its group in, in call order.
                indNext[indPrev[o]] = indNext[o];
                if (indNext[o] !== -1) indPrev[indNext[o]] = indPrev[o];
                const m = nextInGroup[o];
                indSwap[sp - 1] = m;
                if (m !== -1) {
                  let at = indNext.length - 1;
                  while (indNext[at] !== -1 && call[indNext[at]] <= call[m]) at = indNext[at];
                  indNext[m] = indNext[at];
                  indPrev[m] = at;
                  if (indNext[at] !== -1) indPrev[indNext[at]] = m;
                  indNext[at] = m;
                }
              }
              pos = -1;
              continue;
            }
            bitset[w] &= ~bit;
            if (lazy >= 0) {
              // Explored before. Read-only: forced, so the frame fails with it; an update:
              // the frame is built and tried on after it.
              if (kind[o] !== READ_ONLY) {
                resume = o;
                continue;
              }
              deadEnd = true;
            } else {
              // A forced operation that fits leads to an explored configuration: this one is
              // as good as that one, which failed.
              deadEnd = pos < frameForced[sp];
            }
          }
          if (!deadEnd) {
            pos++;
            continue;
          }
        }
        // A dead end: every candidate failed here.
        if (memo === undefined) memo = this.startMemo(sp, state);
        if (!this.refuteAsked && this.askRefutation(sp, iterations)) {
          abstract = this.abstract;
          proofAt = this.proofAt;
          proofBound = this.proofBound;
          if (bestDeterminate >= proofBound) {
            this.save(sp, pos, linearizedDeterminate, bitHash, state, iterations, explored, bestDeterminate, fullWords, resume);
            this.finish('illegal');
            this.outcome!.cutShort = true;
            return true;
          }
        }
        if (verbose) this.recordThrough(sp);
        if (this.bestSp >= 0) this.snapshotBest();
        for (;;) {
          if (sp === 0) {
            if (!this.refuteAsked) this.askRefutation(sp, iterations);
            this.save(sp, pos, linearizedDeterminate, bitHash, state, iterations, explored, bestDeterminate, fullWords, resume);
            this.finish('illegal');
            return true;
          }
          sp--;
          if (sp < this.lowWater) this.lowWater = sp;
          const o = stackOp[sp];
          state = stackState[sp];
          stackState[sp] = undefined as S;
          const b = o < det ? o : o + gap;
          bitset[b >>> 5] &= ~(1 << (b & 31));
          bitHash ^= zob[o];
          if (o < det) {
            linearizedDeterminate--;
            if (b >>> 5 < fullWords) fullWords = b >>> 5;
            // unlift: relink in the reverse order of lift
            const rt = returnEntry[o];
            next[prev[rt]] = rt;
            if (next[rt] !== -1) prev[next[rt]] = rt;
            const c = callEntry[o];
            next[prev[c]] = c;
            if (next[c] !== -1) prev[next[c]] = c;
          } else {
            const m = indSwap[sp];
            if (m !== -1) {
              indNext[indPrev[m]] = indNext[m];
              if (indNext[m] !== -1) indPrev[indNext[m]] = indPrev[m];
            }
            indNext[indPrev[o]] = o;
            if (indNext[o] !== -1) indPrev[indNext[o]] = o;
          }
          pos = stackPos[sp] + 1;
          end = frameEnd[sp];
          // Backtracking over a forced operation: its configuration failed too.
          if (stackForced[sp] === 0) {
            if (stackPos[sp] === LAZY) {
              pos = -1;
              resume = o;
            }
            break;
          }
        }
      }
    } catch (err) {
      if (current !== -2) this.current = current;
      throw err;
    }
  }
}

/**
 * A hash of an operation's input or output for its twin class: equal values (valueEqual)
 * hash equal, and the class is then decided by valueEqual, so it need not be hashValue.
 * An object's values (for-in: of a JSON value, its own keys) are summed, key order not
 * mattering, a small integer as itself: no Object.keys array, no key's hash and no
 * finalizer per key, which a first check pays for in V8's interpreter at nearly every
 * update of a queue or a set history. A value whose hash misses its twin's (an inherited
 * key) only loses the reduction: twins are never made of values that differ.
 */
function twinHash(v: unknown): number {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return hashValue(v);
  let h = 0x61c88647;
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    h = (h + (typeof x === 'number' && (x | 0) === x ? x : hashValue(x))) | 0;
  }
  return h;
}

/** The model's advice function for these operations; undefined when it gives none or the hook throws. */
export function adviceOf<S>(model: Model<S>, ops: readonly Operation[], hook: Model<S>['advice']): ((state: S, input: unknown, output: unknown) => unknown) | undefined {
  if (hook === undefined) return undefined;
  try {
    const advice = hook.call(model, ops);
    return typeof advice === 'function' ? advice : undefined;
  } catch {
    return undefined;
  }
}

// The hooks' helpers take the hook (model.priority, .refute, .advice, .abstraction) as read by the
// caller: small.ts reads a model's hooks once, before its loop, where a load of them that
// sees another model's shape cannot deoptimize the loop's (on-stack replaced) code.

// The hooks that may take long on large strings are given the search's deadline (Date.now();
// Infinity: none): past it they throw, which costs what a throw costs, and the search, at
// its next look at the clock, gives up with unknown.

/** The model's priority hints; a hook that throws or answers badly only costs the order. */
export function priorities(model: Model, ops: readonly Operation[], hook: Model['priority'], deadline = Infinity): number[] | undefined {
  if (hook === undefined) return undefined;
  try {
    const r = hook.call(model, ops, deadline);
    if (!Array.isArray(r) || r.length !== ops.length) return undefined;
    for (let i = 0; i < r.length; i++) if (typeof r[i] !== 'number' || r[i] !== r[i]) return undefined;
    return r;
  } catch {
    return undefined;
  }
}

/** The model's abstraction of states; a hook that throws only costs the reduction. */
function abstraction<S>(model: Model<S>, ops: readonly Operation[], hook: Model<S>['abstraction'], deadline = Infinity): ((state: S) => S) | undefined {
  if (hook === undefined) return undefined;
  try {
    const f = hook.call(model, ops, deadline);
    return typeof f === 'function' ? f : undefined;
  } catch {
    return undefined;
  }
}

/** The model's refutation; a hook that throws or answers badly is no proof. */
export function refutation(model: Model, ops: readonly Operation[], hook: Model['refute']): Refutation | undefined {
  if (hook === undefined) return undefined;
  try {
    const r = hook.call(model, ops);
    if (r === undefined || !Number.isInteger(r.operation) || r.operation < 0 || r.operation >= ops.length) return undefined;
    const and = r.and;
    if (and === undefined) return { operation: r.operation, why: String(r.why) };
    // A pair's second operation that is not one is no proof (the bound needs both).
    if (!Number.isInteger(and) || and < 0 || and >= ops.length || and === r.operation) return undefined;
    return { operation: r.operation, and, why: String(r.why) };
  } catch {
    return undefined;
  }
}

/** The model's unobserved verdicts; a hook that throws or answers badly only costs the reduction. */
export function unobserved(model: Model, ops: readonly Operation[], deadline = Infinity): boolean[] | undefined {
  if (model.unobserved === undefined) return undefined;
  // A loop, not `some` and a closure: a call per operation in the interpreter on a first check.
  let crashed = false;
  for (let i = 0; i < ops.length && !crashed; i++) crashed = ops[i].ret === undefined;
  return crashed ? unobservedOf(model, ops, deadline) : undefined;
}

/** As unobserved, for ops known to have a crashed operation (small.ts's pass saw one). */
export function unobservedOf(model: Model, ops: readonly Operation[], deadline = Infinity): boolean[] | undefined {
  if (model.unobserved === undefined) return undefined;
  try {
    const r = model.unobserved(ops, deadline);
    return Array.isArray(r) && r.length === ops.length ? r : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether keys (a conditional update b keyed by the middle of its interval, the others by
 * return) may order some frame's updates otherwise than their returns. Two updates a, b
 * share a frame only while both are called and neither has returned; ordered otherwise,
 * one of them is conditional (b, say, keyed before its return), and the other returns
 * between b's key and b's return (returning before b but keyed no earlier, or the other
 * way round, which is that case seen from the other one). So: false when no conditional
 * update has another update's return in [key(b), ret(b)] (sorted returns, a binary search
 * each); the search with these keys is then the search by return, step for step.
 */
function mayReorder(conditional: Uint8Array, key: TimeArray, retTime: TimeArray, kind: Uint8Array, det: number): boolean {
  let m = 0;
  for (let o = 0; o < det; o++) if (kind[o] === UPDATE) m++;
  const rets = new Float64Array(m);
  m = 0;
  for (let o = 0; o < det; o++) if (kind[o] === UPDATE) rets[m++] = retTime[o];
  rets.sort();
  for (let b = 0; b < det; b++) {
    if (conditional[b] !== 1) continue;
    // The first return at or after key(b): another one up to ret(b) besides b's own?
    let lo = 0;
    let hi = m;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (rets[mid] < key[b]) lo = mid + 1;
      else hi = mid;
    }
    let within = 0;
    for (let k = lo; k < m && rets[k] <= retTime[b] && within < 2; k++) within++;
    if (within > 1) return true;
  }
  return false;
}

/**
 * The model's `conditional` for each determinate update (search numbering: `origin`, `kind`;
 * 1: conditional), or undefined when none is (or the model has no such hook); a hook that
 * throws only costs the order.
 */
function conditionalFlags(model: Model, ops: readonly Operation[], origin: Int32Array, kind: Uint8Array, det: number): Uint8Array | undefined {
  const hook = model.conditional;
  if (hook === undefined) return undefined;
  let flags: Uint8Array | undefined;
  for (let o = 0; o < det; o++) {
    if (kind[o] !== UPDATE) continue;
    const op = ops[origin[o]];
    let c = false;
    try {
      c = hook.call(model, op.input, op.output) === true;
    } catch {
      c = false;
    }
    if (c) (flags ??= new Uint8Array(det))[o] = 1;
  }
  return flags;
}

/**
 * The model's readOnly for every operation (1: read-only), with its output or UNKNOWN; a
 * readOnly that throws only costs the reduction for that operation.
 */
function readOnlyFlags(model: Model, ops: readonly Operation[], slab: Slab): Uint8Array {
  const flags = slab.u8(ops.length);
  const readOnly = model.readOnly;
  if (readOnly === undefined) return flags;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    try {
      flags[i] = readOnly.call(model, op.input, op.ret === undefined ? UNKNOWN : op.output) === true ? 1 : 0;
    } catch {
      flags[i] = 0;
    }
  }
  return flags;
}

/** Search one (sub-)history to the end (or the deadline). */
export function wglSearch<S>(model: Model<S>, ops: readonly Operation[], options: SearchOptions = {}): SearchResult {
  const search = new WglSearch(model, ops, options);
  search.run();
  return search.result;
}

/** The distinct per-operation longest sequences, longest first, then by first operation. */
function distinctLongest(through: (Int32Array | undefined)[], best: Int32Array): number[][] {
  const seen = new Set<Int32Array>();
  const seqs: Int32Array[] = [];
  for (const s of through) {
    if (s !== undefined && !seen.has(s)) {
      seen.add(s);
      seqs.push(s);
    }
  }
  if (seqs.length === 0) seqs.push(best);
  const byContent = new Map<string, Int32Array>();
  for (const s of seqs) byContent.set(s.join(','), s);
  return [...byContent.values()]
    .sort((a, b) => b.length - a.length || compareSeq(a, b))
    .map((s) => Array.from(s));
}

function compareSeq(a: Int32Array, b: Int32Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}
