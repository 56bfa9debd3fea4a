// The WGL search for one (sub-)history: Wing & Gong's backtracking over minimal
// operations, with Lowe's memo of configurations and Horn & Kroening's linked-list lift /
// unlift (FORTE'15, §4, Algorithm 1). Indeterminate operations have no return entry: they
// may be linearized at any time after their call, or never, and the search succeeds once
// every determinate operation is linearized.

import { buildEntries } from './entries.ts';
import { Memo, MemoFull } from './memo.ts';
import { UNKNOWN, type Model, type Operation, type Verdict } from './types.ts';

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
}

/** The search's answer; operation numbers are indices into the ops it was given. */
export interface SearchResult {
  verdict: Verdict;
  reason?: 'timeout' | 'cancelled' | 'model-error' | 'memory';
  linearization?: number[];
  /** Longest partial linearizations, longest first (illegal or unknown verdicts). */
  longest?: number[][];
  modelError?: { operation: number; message: string };
  /** Configurations the search stepped into, and memo entries kept. */
  explored: number;
  cached: number;
}

/**
 * Operation kinds, which are also the passes over the candidates at each configuration:
 * - READ_ONLY: determinate, and the model says the step never changes the state. If one
 *   fits now, some linearization (if any) puts it now: it is linearized without trying
 *   the alternatives (a backtrack over it is a dead end of the configuration).
 * - UPDATE: other determinate operations.
 * - INDETERMINATE: tried only when no determinate operation fits, linearized just in time.
 * - IGNORED: indeterminate and read-only: it constrains nothing and is never linearized.
 * Plain WGL puts every operation in one pass (UPDATE), in call order.
 */
const READ_ONLY = 0;
const UPDATE = 1;
const INDETERMINATE = 2;
const IGNORED = 3;

const POLL_EVERY = 1023; // poll the clock and the cancel flag every 1024 iterations

/** Per-operation random words: the bitset's hash is the XOR of its members' words. */
function zobrist(n: number): Int32Array {
  const z = new Int32Array(n);
  let x = 0x9e3779b9 | 0;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    z[i] = x;
  }
  return z;
}

/**
 * One partition's search, resumable: `run(budget)` advances it by at most `budget`
 * iterations, so that several partitions can take turns (check.ts) and the first
 * illegal one found does not wait behind a hard one. The iteration count, not the clock,
 * decides the turns, so the outcome is deterministic.
 */
export class WglSearch<S> {
  private readonly list: ReturnType<typeof buildEntries>;
  private readonly inputs: unknown[];
  private readonly outputs: unknown[];
  private readonly determinate: Uint8Array;
  private readonly kind: Uint8Array;
  /** For each pass, the next pass that has operations (-1: none). */
  private readonly nextPass: Int8Array;
  private readonly firstPass: number;
  /** For each stack frame: 1 when its operation was linearized as READ_ONLY. */
  private readonly stackForced: Uint8Array;
  private readonly bitset: Uint32Array;
  private readonly zob: Int32Array;
  private readonly memo: Memo<S>;
  private readonly stackOp: Int32Array;
  private readonly stackState: S[];
  private readonly verbose: boolean;
  private readonly longestThrough: (Int32Array | undefined)[];
  /**
   * The partial linearization with the most determinate operations (the first found):
   * it ends with a determinate operation, not with optional indeterminate ones.
   */
  private best = new Int32Array(0);
  private bestDeterminate = 0;
  private sp = 0;
  private linearizedDeterminate = 0;
  private bitHash = 0;
  private state: S;
  private entry: number;
  /** The pass over the candidates (an operation kind) the search is in. */
  private pass: number;
  /** Iterations so far: steps tried and dead ends met. */
  iterations = 0;
  private explored = 0;
  private current = -1;
  private outcome: SearchResult | undefined;

  constructor(
    private readonly model: Model<S>,
    ops: readonly Operation[],
    private readonly options: SearchOptions = {},
  ) {
    const n = ops.length;
    this.list = buildEntries(ops);
    this.inputs = ops.map((o) => o.input);
    this.outputs = ops.map((o) => (o.ret === undefined ? UNKNOWN : o.output));
    this.determinate = new Uint8Array(n);
    for (let i = 0; i < n; i++) this.determinate[i] = ops[i].ret === undefined ? 0 : 1;
    this.kind = new Uint8Array(n);
    const reduce = options.reductions !== false;
    const present = [false, false, false];
    for (let i = 0; i < n; i++) {
      const readOnly = reduce && isReadOnly(model, this.inputs[i], this.outputs[i]);
      const k = !reduce ? UPDATE : this.determinate[i] === 1 ? (readOnly ? READ_ONLY : UPDATE) : readOnly ? IGNORED : INDETERMINATE;
      this.kind[i] = k;
      if (k !== IGNORED) present[k] = true;
    }
    this.nextPass = new Int8Array(3).fill(-1);
    let later = -1;
    for (let k = 2; k >= 0; k--) {
      this.nextPass[k] = later;
      if (present[k]) later = k;
    }
    this.firstPass = later === -1 ? UPDATE : later;
    this.pass = this.firstPass;
    this.stackForced = new Uint8Array(n);
    const words = Math.max(1, (n + 31) >>> 5);
    this.bitset = new Uint32Array(words);
    this.zob = zobrist(n);
    this.memo = new Memo<S>(words, model.equal ? model.equal.bind(model) : Object.is, options.memoLimitBytes);
    this.stackOp = new Int32Array(n);
    this.stackState = new Array(n);
    this.verbose = options.verbose === true;
    this.longestThrough = this.verbose ? new Array(n) : [];
    this.state = undefined as S;
    this.entry = this.list.next[this.list.head];
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
      return this.loop(budget);
    } catch (err) {
      if (err instanceof MemoFull) this.finish('unknown', 'memory');
      else this.fail(err);
      return true;
    }
  }

  /** Give up with unknown (the time budget ran out, or the search was cancelled). */
  stop(reason: 'timeout' | 'cancelled'): SearchResult {
    if (!this.outcome) this.finish('unknown', reason);
    return this.outcome!;
  }

  private fail(err: unknown): void {
    this.finish('unknown', 'model-error');
    this.outcome!.modelError = { operation: this.current, message: err instanceof Error ? err.message : String(err) };
  }

  private finish(verdict: Verdict, reason?: SearchResult['reason']): void {
    const result: SearchResult = { verdict, explored: this.explored, cached: this.memo.size };
    if (reason) result.reason = reason;
    if (verdict === 'ok') {
      result.linearization = Array.from(this.stackOp.subarray(0, this.sp));
    } else {
      result.longest = this.verbose ? distinctLongest(this.longestThrough, this.best) : [Array.from(this.best)];
    }
    this.outcome = result;
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

  /** The loop's registers, kept between runs (a closure would box them in a context). */
  private save(sp: number, linearizedDeterminate: number, bitHash: number, state: S, entry: number, iterations: number, explored: number, pass: number, bestDeterminate: number): void {
    this.sp = sp;
    this.linearizedDeterminate = linearizedDeterminate;
    this.bitHash = bitHash;
    this.state = state;
    this.entry = entry;
    this.iterations = iterations;
    this.explored = explored;
    this.pass = pass;
    this.bestDeterminate = bestDeterminate;
  }

  private loop(budget: number): boolean {
    const { model, memo, bitset, zob, stackOp, stackState, stackForced, inputs, outputs, determinate, kind, nextPass, firstPass, verbose } = this;
    const { head, next, prev, isCall, callEntry, returnEntry } = this.list;
    const entryOp = this.list.op;
    const mustLinearize = this.list.determinate;
    const deadline = this.options.deadline ?? Infinity;
    const cancelled = this.options.cancelled;
    let { sp, linearizedDeterminate, bitHash, state, entry, iterations, explored, pass } = this;
    const stopAt = iterations + budget;
    let bestDeterminate = this.bestDeterminate;
    const hashState = model.hash === undefined ? undefined : model.hash.bind(model);
    const step = model.step.bind(model);
    let current = -1;
    try {
      for (;;) {
        if (iterations >= stopAt) {
          this.save(sp, linearizedDeterminate, bitHash, state, entry, iterations, explored, pass, bestDeterminate);
          return false;
        }
        if ((++iterations & POLL_EVERY) === 0) {
          if (Date.now() > deadline || (cancelled !== undefined && cancelled())) {
            this.save(sp, linearizedDeterminate, bitHash, state, entry, iterations, explored, pass, bestDeterminate);
            this.finish('unknown', Date.now() > deadline ? 'timeout' : 'cancelled');
            return true;
          }
        }
        if (linearizedDeterminate === mustLinearize || entry === -1) {
          this.save(sp, linearizedDeterminate, bitHash, state, entry, iterations, explored, pass, bestDeterminate);
          if (verbose) this.recordThrough(sp);
          this.finish('ok');
          return true;
        }
        let deadEnd = false;
        if (isCall[entry] === 1) {
          const o = entryOp[entry];
          if (kind[o] !== pass) {
            entry = next[entry];
            continue;
          }
          current = o;
          const r = step(state, inputs[o], outputs[o]);
          if (r.ok) {
            const w = o >>> 5;
            const bit = 1 << (o & 31);
            bitset[w] |= bit;
            const nextHash = bitHash ^ zob[o];
            if (memo.add(hashState === undefined ? nextHash : nextHash ^ hashState(r.state), bitset, r.state)) {
              explored++;
              stackOp[sp] = o;
              stackState[sp] = state;
              stackForced[sp] = pass === READ_ONLY ? 1 : 0;
              sp++;
              state = r.state;
              bitHash = nextHash;
              if (determinate[o] === 1) {
                linearizedDeterminate++;
                if (linearizedDeterminate > bestDeterminate) {
                  bestDeterminate = linearizedDeterminate;
                  this.best = stackOp.slice(0, sp);
                }
              }
              // lift: unlink the call entry, then the return entry
              const c = callEntry[o];
              next[prev[c]] = next[c];
              if (next[c] !== -1) prev[next[c]] = prev[c];
              const rt = returnEntry[o];
              if (rt !== -1) {
                next[prev[rt]] = next[rt];
                if (next[rt] !== -1) prev[next[rt]] = prev[rt];
              }
              entry = next[head];
              pass = firstPass;
              continue;
            }
            bitset[w] &= ~bit;
            // A read-only operation that fits leads to an explored configuration: this one
            // is as good as that one, which failed.
            deadEnd = pass === READ_ONLY;
          }
          if (!deadEnd) {
            entry = next[entry];
            continue;
          }
        } else if (nextPass[pass] !== -1) {
          // The candidates (calls before this return) end here: the next pass over them.
          pass = nextPass[pass];
          entry = next[head];
          continue;
        }
        // A dead end: every candidate failed here (a return whose call is not linearized).
        if (verbose) this.recordThrough(sp);
        for (;;) {
          if (sp === 0) {
            this.save(sp, linearizedDeterminate, bitHash, state, entry, iterations, explored, pass, bestDeterminate);
            this.finish('illegal');
            return true;
          }
          sp--;
          const o = stackOp[sp];
          state = stackState[sp];
          stackState[sp] = undefined as S;
          bitset[o >>> 5] &= ~(1 << (o & 31));
          bitHash ^= zob[o];
          if (determinate[o] === 1) linearizedDeterminate--;
          // unlift: relink in the reverse order of lift
          const rt = returnEntry[o];
          if (rt !== -1) {
            next[prev[rt]] = rt;
            if (next[rt] !== -1) prev[next[rt]] = rt;
          }
          const c = callEntry[o];
          next[prev[c]] = c;
          if (next[c] !== -1) prev[next[c]] = c;
          entry = next[c];
          pass = kind[o];
          // Backtracking over a forced read-only operation: its configuration failed too.
          if (stackForced[sp] === 0) break;
        }
      }
    } catch (err) {
      this.current = current;
      throw err;
    }
  }
}

/** The model's readOnly; a readOnly that throws only costs the reduction. */
function isReadOnly(model: Model, input: unknown, output: unknown): boolean {
  try {
    return model.readOnly?.(input, output) === true;
  } catch {
    return false;
  }
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
