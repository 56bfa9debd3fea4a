// The search for small (sub-)histories: WGL over at most SMALL_MAX operations, with a
// bounded number of iterations, tried before the general search (wgl.ts). On a
// 10-operation history the general search's setup (its typed arrays, the entry list, the
// model's hints, the memo) costs several times the search itself; here the set of
// linearized operations is a few 32-bit words, the candidates of a configuration are the
// operations not yet linearized that were called by the first return still pending
// (ops sorted by call: a scan of a linked list of those not linearized), and every array is
// this module's, reused by the next search of the thread. No Maps, no closures, no
// hooks but `readOnly`, `unobserved` (only with crashed operations) and, for an illegal
// verdict, `refute` (for the proof the report shows). The search runs on words of bits by
// rank (`tiny` on one word, at most 32 operations; `wide` on up to eight) until the model's
// hint or advice makes it restart in `restarted`'s loop: the same search, without the linked
// list and the frame arrays.
//
// The search is plain WGL with the reductions that need no hint: a read-only operation
// that fits is linearized without trying the alternatives (forced, as in wgl.ts), crashed
// read-only operations and those the model's `unobserved` drops are left out, and
// determinate updates go by return (just in time). It gives up after BUDGET iterations
// (undefined): the history then goes to the general search, whose hints, twins and
// refutations are built for the hard ones. So a history decided here is decided by a
// search the tests hold to brute force and to the general search; one that is not costs
// at most BUDGET iterations more.

import { NEVER, smallTimesBase, type TimeArray } from './entries.ts';
import { fmix32 } from './hash.ts';
import { ILLEGAL, nextOf, UNKNOWN, type Model, type Next, type Operation, type Refutation } from './types.ts';
import { adviceOf, priorities, refutation, unobservedOf, type SearchResult } from './wgl.ts';

/**
 * Operations in a (sub-)history this search takes on; longer ones go to wgl.ts directly. 256,
 * not 128: a kv check of 1,000 operations has keys of 129-150, which paid wgl.ts's first run
 * (~2 ms from the snapshot) on top of this one's (RESULTS-issue21.md).
 */
export const SMALL_MAX = 256;

/** Iterations (steps tried and dead ends met) before giving up, for n operations. */
function budget(n: number): number {
  return n <= LONG ? 1024 + 16 * n : 1024 + 4 * n;
}

/**
 * Past this many operations the budget grows by 4 an operation, not 16 (1,540 at 129, not
 * 3,088): such a history went to wgl.ts directly when SMALL_MAX was 128, and one this search
 * gives up pays wgl.ts's search on top of the budget spent here (kv's 64-client keys of
 * 129-150 operations: 2,362-2,941 model steps each before wgl.ts decided them), while those
 * it decides took 422-1,414 steps (RESULTS-issue21.md, lin-kv2).
 */
const LONG = 128;

const MAX_BUDGET = Math.max(budget(LONG), budget(SMALL_MAX));
const WORDS = SMALL_MAX >>> 5;

// The search's arrays, for SMALL_MAX operations; a search on this thread reuses them.
/** Per operation (search numbering: kept operations by call): index in the ops given. */
const origin = new Int32Array(SMALL_MAX);
/**
 * Call and return times: small integers rebased to the least in Int32Arrays when a history's
 * are (no heap number per read: TimeArray in entries.ts), else in Float64Arrays. An
 * indeterminate operation's return is `never`, after every other time.
 */
const callAt32 = new Int32Array(SMALL_MAX);
const retAt32 = new Int32Array(SMALL_MAX);
const callAt64 = new Float64Array(SMALL_MAX);
const retAt64 = new Float64Array(SMALL_MAX);
let callAt: TimeArray = callAt32;
let retAt: TimeArray = retAt32;
/** 0 read-only, 1 determinate update, 2 indeterminate. */
const kindOf = new Uint8Array(SMALL_MAX);
/** The order of candidates in a frame: kind first; updates by return, the others by call. */
const sortKey = new Int32Array(SMALL_MAX);
/** Per operation a random word: a set's hash is the XOR of its members' words. */
const zob = new Int32Array(SMALL_MAX);
for (let o = 0; o < SMALL_MAX; o++) zob[o] = fmix32(Math.imul(o + 1, 0x9e3779b1));
/** Determinate operations by return. */
const byRet = new Int32Array(SMALL_MAX);
/** The set of linearized operations (and a copy of it, kept while rememberStack works). */
const lin = new Uint32Array(WORDS);
const savedLin = new Uint32Array(WORDS);
// Per depth: the operation linearized there, where it sits in its frame, the state before
// it; the frame (cand[frameStart .. frameEnd), forced ones up to frameForced); the first
// operation by call, and by return, that may not be linearized yet.
const stackOp = new Int32Array(SMALL_MAX + 1);
const stackPos = new Int32Array(SMALL_MAX + 1);
const stackState: unknown[] = new Array(SMALL_MAX + 1).fill(undefined);
const frameStart = new Int32Array(SMALL_MAX + 2);
const frameEnd = new Int32Array(SMALL_MAX + 2);
const frameForced = new Int32Array(SMALL_MAX + 2);
const firstByRet = new Int32Array(SMALL_MAX + 2);
/**
 * The operations not linearized, in call order: a doubly linked list (from HEAD, ending at
 * n), unlinked as an operation is linearized and linked again as the search backtracks
 * over it (in reverse order, so each goes back where it was). A frame's scan then skips
 * the linearized ones: a crashed operation left out early would otherwise make every
 * later frame scan all operations since it.
 */
const HEAD = SMALL_MAX + 1;
const nextOp = new Int32Array(SMALL_MAX + 2);
const prevOp = new Int32Array(SMALL_MAX + 2);

/** Every operation of 0 .. n) in the list again. */
function linkAll(n: number): void {
  for (let o = 0; o < n; o++) {
    nextOp[o] = o + 1;
    prevOp[o] = o - 1;
  }
  nextOp[HEAD] = 0;
  if (n > 0) prevOp[0] = HEAD;
  prevOp[n] = n === 0 ? HEAD : n - 1;
}
/** Frames stack up: at depth d at most n - d candidates. */
const cand = new Int32Array(((SMALL_MAX + 1) * (SMALL_MAX + 2)) / 2);
/** Each candidate's place in the order (lower first); a frame is put in order lazily. */
const candKey = new Int32Array(cand.length);
/** The model's priority hint per operation (search numbering), and the operations by it. */
const hintOf = new Float64Array(SMALL_MAX);
const byHint = new Int32Array(SMALL_MAX);
const best = new Int32Array(SMALL_MAX);

// The memo: configurations (linearized set, state) explored, made at the first dead end
// (until the search backtracks none can repeat). Open addressing; a slot is empty unless
// it carries this search's stamp, so nothing is cleared between searches.
// One entry per iteration, and rememberStack's up to one per operation on the stack besides.
const MAX_ENTRIES = MAX_BUDGET + SMALL_MAX;
const SLOTS = 1 << (32 - Math.clz32(2 * MAX_ENTRIES));
const slotStamp = new Int32Array(SLOTS);
const slotKey = new Int32Array(SLOTS);
const slotEntry = new Int32Array(SLOTS);
const entryWords = new Uint32Array(MAX_ENTRIES * WORDS);
const entryState: unknown[] = new Array(MAX_ENTRIES).fill(undefined);
/** The search's stamp: 1 at first, as no slot (all 0) carries it. */
let stamp = 1;
let entries = 0;

/**
 * Search `ops` (a partition) within the budget: the answer in indices into `ops`, or
 * undefined when the history is not small, the budget ran out, or the model threw (the
 * general search then reports what happened).
 */
export function smallSearch<S>(model: Model<S>, ops: readonly Operation[]): SearchResult | undefined {
  const all = ops.length;
  if (all > SMALL_MAX) return undefined;
  try {
    return search(model, ops, all);
  } catch {
    return undefined;
  } finally {
    // Let go of the states and values this search held, and empty the memo for the next one
    // (which so starts without a call of its own: a function's first call costs ~1.5 us in a
    // first check, RESULTS-issue21.md, lin-10c). By `fill`, one call, not a loop: a first
    // check runs every loop in the interpreter without feedback (~0.5 us an iteration), and
    // this one ran over every operation of every partition.
    stackState.fill(undefined, 0, used + 1);
    used = 0;
    // No entry made (most small searches): no slot carries this stamp, so the next search
    // may keep it, without forget's first call.
    if (entries > 0) forget();
  }
}

let used = 0;

/**
 * An empty memo (a new stamp: no slot is this search's). Its values let go by `fill` only when
 * a memo was made (most small searches make none): a builtin call's first execution costs
 * ~1-1.5 us in a first check, its later ones ~0.15 (RESULTS-issue21.md, lin-plan).
 */
function forget(): void {
  if (entries > 0) entryState.fill(undefined, 0, entries);
  entries = 0;
  stamp = (stamp + 1) | 0;
  if (stamp === 0) {
    slotStamp.fill(0);
    stamp = 1;
  }
}

function search<S>(model: Model<S>, ops: readonly Operation[], all: number): SearchResult | undefined {
  // The model's functions, read once here: the search meets every model of a process at
  // these few sites, and a load of a hook deep in the loop that sees a new model's shape
  // deoptimized the whole search again and again (600 times over one set history in the bench).
  const readOnly = model.readOnly;
  const next = nextOf(model);
  const init = model.init;
  const hashState = model.hash;
  const equal = model.equal;
  const priorityHook = model.priority;
  const adviceHook = model.advice;
  const refuteHook = model.refute;
  // Which operations take part: determinate ones, and crashed ones that may have changed
  // something someone saw; those kept by call (then index), in the same pass (a first check
  // runs each pass over the operations in the interpreter, ~0.5 us an iteration): an
  // insertion sort, as histories come nearly so. Each one's return time (`never`:
  // indeterminate) and kind go with it, so that the next passes read neither an operation
  // nor a scratch by index in the ops given again: a first check runs these loops without
  // feedback, where each load or store costs ~0.1 us (RESULTS-issue21.md, lin-plan).
  const small = smallTimesBase(ops);
  const base = small ?? 0;
  const never = small === undefined ? Infinity : NEVER;
  callAt = small === undefined ? callAt64 : callAt32;
  retAt = small === undefined ? retAt64 : retAt32;
  let crashed = false;
  let n = 0;
  for (let i = 0; i < all; i++) {
    const op = ops[i];
    const ret = op.ret;
    const indeterminate = ret === undefined;
    if (indeterminate) crashed = true;
    let ro = false;
    if (readOnly !== undefined) {
      try {
        ro = readOnly.call(model, op.input, indeterminate ? UNKNOWN : op.output) === true;
      } catch {
        ro = false;
      }
    }
    if (ro && indeterminate) continue;
    const c = op.call - base;
    let j = n - 1;
    while (j >= 0 && callAt[j] > c) {
      origin[j + 1] = origin[j];
      callAt[j + 1] = callAt[j];
      retAt[j + 1] = retAt[j];
      kindOf[j + 1] = kindOf[j];
      j--;
    }
    origin[j + 1] = i;
    callAt[j + 1] = c;
    retAt[j + 1] = indeterminate ? never : ret - base;
    kindOf[j + 1] = indeterminate ? 2 : ro ? 0 : 1;
    n++;
  }
  if (crashed) {
    // And those the model's `unobserved` drops, taken out of the order (which stays by call, then index).
    const dropped = unobservedOf(model, ops);
    if (dropped !== undefined) {
      let kept = 0;
      for (let o = 0; o < n; o++) {
        if (kindOf[o] === 2 && dropped[origin[o]] === true) continue;
        origin[kept] = origin[o];
        callAt[kept] = callAt[o];
        retAt[kept] = retAt[o];
        kindOf[kept] = kindOf[o];
        kept++;
      }
      n = kept;
    }
  }
  used = n;
  let det = 0;
  for (let o = 0; o < n; o++) {
    if (kindOf[o] === 2) {
      sortKey[o] = 2 * SMALL_MAX + o;
      continue;
    }
    const r = retAt[o];
    let j = det - 1;
    while (j >= 0 && retAt[byRet[j]] > r) {
      byRet[j + 1] = byRet[j];
      j--;
    }
    byRet[j + 1] = o;
    det++;
  }
  const words = (n + 31) >>> 5;
  for (let w = 0; w < words; w++) lin[w] = 0;
  // The memo is empty: the last search's end (smallSearch) forgot it.

  const state = init.call(model) as unknown;
  const r =
    n <= TINY_MAX
      ? tiny(model, ops, n, det, state, next, hashState, equal, priorityHook, adviceHook, refuteHook)
      : wide(model, ops, n, det, words, state, next, hashState, equal, priorityHook, adviceHook, refuteHook);
  // An answer has a verdict, a Restart none: a load, not `instanceof` (a builtin, whose first
  // execution costs ~1.5 us in a first check; RESULTS-issue21.md, lin-10c).
  if (r === undefined || (r as SearchResult).verdict !== undefined) return r as SearchResult | undefined;
  return restarted(model, ops, n, det, words, r as Restart, init, next, hashState, equal);
}

/**
 * The search once the tiny (or wide) one met the model's hint or advice: from here the
 * search is this one's, restarted with them, with what the tiny one found so far. A function
 * of its own so that a check that never restarts (every partition of a model without advice)
 * never compiles it: V8 compiles a function on its first call, and this is the largest one of
 * a first check on 10 operations (0.20-0.27 ms of its ~0.8, RESULTS-issue21.md).
 */
function restarted<S>(
  model: Model<S>,
  ops: readonly Operation[],
  n: number,
  det: number,
  words: number,
  r: Restart,
  init: Model<S>['init'],
  next: Next<S>,
  hashState: Model<S>['hash'],
  equal: Model<S>['equal'],
): SearchResult | undefined {
  // The loop's order (tiny's ranks), unless hint() gave updates theirs.
  if (!r.hinted) {
    for (let k = 0; k < det; k++) {
      const o = byRet[k];
      sortKey[o] = kindOf[o] === 0 ? o : SMALL_MAX + k;
    }
  } else for (let o = 0; o < n; o++) if (kindOf[o] === 0) sortKey[o] = o;
  const advise = r.advise as Advise<S> | undefined;
  let state = init.call(model) as unknown;
  for (let w = 0; w < words; w++) lin[w] = 0;
  forget();
  let sp = 0;
  let pos = -1;
  let linDet = 0;
  let setHash = 0;
  let memo = false;
  // What the tiny search found so far; the budget counts again from the restart (n
  // iterations after the first dead end).
  let { iterations, explored, bestDet, bestLength } = r;
  // With a proof, no partial linearization holds more determinate operations than
  // proofBound (wgl.ts's): a longest that reaches it ends the search. Nothing after it was
  // left untried that could matter (every one would make it longer), so the report is the
  // exhaustive search's: the same longest (kept only when longer), stuck worked out from it
  // (not cut short), only fewer configurations explored.
  const { proof, proofBound } = r;
  const limit = iterations + budget(n);
  firstByRet[0] = 0;
  linkAll(n);
  for (;;) {
    if (linDet === det) {
      const linearization = new Array<number>(sp);
      for (let k = 0; k < sp; k++) linearization[k] = origin[stackOp[k]];
      return new Linearized(linearization, explored, memo ? entries : explored);
    }
    if (pos < 0) {
      // The frame: not linearized, called by the first return pending. Forced ones first
      // (the model's advice, then read-only), then updates by return (or by the model's
      // hint, indeterminate ones among them), then indeterminate ones by call.
      let fr = firstByRet[sp];
      while (fr < det && (lin[byRet[fr] >>> 5] & (1 << (byRet[fr] & 31))) !== 0) fr++;
      firstByRet[sp + 1] = fr;
      const until = fr < det ? retAt[byRet[fr]] : Infinity;
      const start = sp === 0 ? 0 : frameEnd[sp - 1];
      let top = start;
      let forced = start;
      for (let o = nextOp[HEAD]; o < n && callAt[o] <= until; o = nextOp[o]) {
        let key = sortKey[o];
        if (advise !== undefined && kindOf[o] !== 0) {
          const op = ops[origin[o]];
          // The model's answer read here, not through a wrapper (a call per candidate of
          // every frame, in V8's interpreter on a first check): 'dead' is read as useless
          // (this loop does not track the first pending return), anything else but the
          // three, or a throw, as no advice.
          let a: unknown;
          try {
            a = advise(state as S, op.input, kindOf[o] === 2 ? UNKNOWN : op.output);
          } catch {
            a = undefined;
          }
          if (a === 'useless' || a === 'dead') continue;
          if (a === 'forced') key = o - 4 * SMALL_MAX;
        }
        cand[top] = o;
        candKey[top++] = key;
        if (key < SMALL_MAX) forced++;
      }
      frameStart[sp] = start;
      frameEnd[sp] = top;
      frameForced[sp] = forced;
      pos = start;
    }
    if (++iterations > limit) {
      // Out of budget: with the model's proof the verdict is known, and the longest partial
      // linearization found so far is shown (as wgl.ts does after AFTER_PROOF iterations).
      if (proof === undefined) return undefined;
      if (linDet > bestDet) {
        bestLength = sp;
        for (let k = 0; k < sp; k++) best[k] = stackOp[k];
      }
      return illegal(bestLength, explored, proof, true);
    }
    const end = frameEnd[sp];
    if (pos < end) {
      // The next candidate in order: most frames try one or two of theirs, so they are
      // ordered by selection as they are tried, not sorted when built.
      let m = pos;
      for (let k = pos + 1; k < end; k++) if (candKey[k] < candKey[m]) m = k;
      if (m !== pos) {
        const c = cand[m];
        const ck = candKey[m];
        cand[m] = cand[pos];
        candKey[m] = candKey[pos];
        cand[pos] = c;
        candKey[pos] = ck;
      }
      const o = cand[pos];
      const op = ops[origin[o]];
      const after = next.call(model, state as S, op.input, kindOf[o] === 2 ? UNKNOWN : op.output);
      if (after === ILLEGAL) {
        pos++;
        continue;
      }
      const w = o >>> 5;
      const bit = 1 << (o & 31);
      lin[w] |= bit;
      const nextHash = setHash ^ zob[o];
      if (memo && !remember(hashState === undefined ? nextHash : nextHash ^ hashState.call(model, after), words, after, equal, model)) {
        lin[w] &= ~bit;
        // A forced operation into an explored configuration: this one failed as that one did.
        if (pos < frameForced[sp]) pos = frameEnd[sp];
        else pos++;
        continue;
      }
      explored++;
      nextOp[prevOp[o]] = nextOp[o];
      prevOp[nextOp[o]] = prevOp[o];
      stackOp[sp] = o;
      stackPos[sp] = pos;
      stackState[sp] = state;
      sp++;
      state = after;
      setHash = nextHash;
      if (kindOf[o] !== 2) linDet++;
      pos = -1;
      continue;
    }
    // A dead end: every candidate failed here.
    if (linDet > bestDet) {
      bestDet = linDet;
      bestLength = sp;
      for (let k = 0; k < sp; k++) best[k] = stackOp[k];
      if (bestDet >= proofBound) return illegal(bestLength, explored, proof, false);
    }
    if (!memo) {
      memo = true;
      rememberStack(sp, state, words, model, equal, stackOp);
    }
    for (;;) {
      if (sp === 0) {
        // The report of an illegal verdict carries the model's proof when it has one.
        return illegal(bestLength, explored, proof, false);
      }
      sp--;
      const o = stackOp[sp];
      state = stackState[sp];
      stackState[sp] = undefined;
      lin[o >>> 5] &= ~(1 << (o & 31));
      nextOp[prevOp[o]] = o;
      prevOp[nextOp[o]] = o;
      setHash ^= zob[o];
      if (kindOf[o] !== 2) linDet--;
      pos = stackPos[sp] + 1;
      // Backtracking over a forced operation: its configuration failed too.
      if (stackPos[sp] >= frameForced[sp]) break;
    }
  }
}

/** The model's advice as its hook made it (wgl.ts adviceOf): restarted's loop reads the answer. */
type Advise<S> = (state: S, input: unknown, output: unknown) => unknown;

/** Operations in a (sub-)history the tiny search takes on: its sets are one 32-bit word. */
const TINY_MAX = 32;
/** budget(n) for the tiny search's n: a load, not a call (a function's first call costs ~1.5 us in a first check). */
const TINY_BUDGET = new Int32Array(TINY_MAX + 1);
for (let n = 0; n <= TINY_MAX; n++) TINY_BUDGET[n] = budget(n);
/**
 * Iterations past the first dead end after which the tiny search asks the model's advice
 * (and restarts in `restarted`'s loop with it): at least n (the memo, the proof and the hint
 * come at n), and no earlier than what advice and the loop's restart cost on a 10-operation
 * queue (queue's advice ~0.3 us, asked for every candidate of every frame after it).
 */
const ADVICE_AFTER = 32;
/** Per rank (the order of candidates: read-only by call, updates by return, indeterminate by call): the operation. */
const opAt = new Int32Array(TINY_MAX);
/** Per operation (search numbering): its rank. */
const rankOf = new Int32Array(TINY_MAX);
/** Per determinate operation by return: the ranks of the operations called by its return. */
const calledBy = new Int32Array(TINY_MAX);
/** Per determinate operation by return: its rank's bit. */
const retBit = new Int32Array(TINY_MAX);
/** Per depth: the candidates of the frame not tried yet, and the rank linearized there. */
const untried = new Int32Array(TINY_MAX + 1);
const stackRank = new Int32Array(TINY_MAX + 1);

/** The tiny search stopped to restart with the model's hint or advice: what it had found. */
class Restart {
  constructor(
    readonly iterations: number,
    readonly explored: number,
    readonly bestDet: number,
    readonly bestLength: number,
    readonly proof: Refutation | undefined,
    readonly proofBound: number,
    readonly advise: Advise<unknown> | undefined,
    /** hint() put the model's order of updates in sortKey. */
    readonly hinted: boolean,
  ) {}
}

/**
 * The search of `restarted`'s loop before the model's advice, on at most TINY_MAX operations,
 * with the set of linearized operations one word of bits by rank: a frame is the operations
 * called by the first pending return (a mask made once per history) less those linearized,
 * tried lowest rank first, which is the loop's order (sortKey) without advice, by return or,
 * once the model's hint is asked, by it (the search then starts again on the hint's ranks).
 * No linked list, no frame arrays, no selection scan. When the model gives advice (the loop
 * restarts with it), it hands over what it found (Restart).
 */
function tiny<S>(
  model: Model<S>,
  ops: readonly Operation[],
  n: number,
  det: number,
  state: unknown,
  next: Next<S>,
  hashState: Model<S>['hash'],
  equal: Model<S>['equal'],
  priorityHook: Model<S>['priority'],
  adviceHook: Model<S>['advice'],
  refuteHook: Model<S>['refute'],
): SearchResult | undefined | Restart {
  let readOnlyRanks = rankTiny(n, det, 0);
  let limit = TINY_BUDGET[n];
  const initial = state;
  let linearized = 0;
  let sp = 0;
  let linDet = 0;
  let bestDet = -1;
  let bestLength = 0;
  let setHash = 0;
  let iterations = 0;
  let explored = 0;
  let memo = false;
  let deadEnd = false;
  let proved = false;
  let hinted = false;
  let hooked = false;
  let memoAt = Infinity;
  let hookAt = Infinity;
  let proof: Refutation | undefined;
  let proofBound = Infinity;
  let fresh = true;
  firstByRet[0] = 0;
  for (;;) {
    if (linDet === det) {
      const linearization = new Array<number>(sp);
      for (let k = 0; k < sp; k++) linearization[k] = origin[opAt[stackRank[k]]];
      return new Linearized(linearization, explored, memo ? entries : explored);
    }
    if (fresh) {
      // linDet < det: some determinate operation is pending, so fr < det.
      let fr = firstByRet[sp];
      while ((linearized & retBit[fr]) !== 0) fr++;
      firstByRet[sp + 1] = fr;
      untried[sp] = calledBy[fr] & ~linearized;
      fresh = false;
    }
    if (++iterations > limit) {
      if (!proved) proof = refutation(model, ops, refuteHook);
      if (proof === undefined) return undefined;
      if (linDet > bestDet) keepBest((bestLength = sp));
      return illegal(bestLength, explored, proof, true);
    }
    const left = untried[sp];
    if (left !== 0) {
      const bit = left & -left;
      untried[sp] = left ^ bit;
      const r = 31 - Math.clz32(bit);
      const o = opAt[r];
      const op = ops[origin[o]];
      const after = next.call(model, state as S, op.input, kindOf[o] === 2 ? UNKNOWN : op.output);
      if (after === ILLEGAL) continue;
      const nextHash = setHash ^ zob[r];
      if (memo) {
        lin[0] = linearized | bit;
        if (!remember(hashState === undefined ? nextHash : nextHash ^ hashState.call(model, after), 1, after, equal, model)) {
          // A forced operation into an explored configuration: this one failed as that one did.
          if ((bit & readOnlyRanks) !== 0) untried[sp] = 0;
          continue;
        }
      }
      explored++;
      stackRank[sp] = r;
      stackState[sp] = state;
      sp++;
      linearized |= bit;
      state = after;
      setHash = nextHash;
      if (kindOf[o] !== 2) linDet++;
      fresh = true;
      continue;
    }
    // A dead end: every candidate failed here.
    if (linDet > bestDet) {
      bestDet = linDet;
      keepBest((bestLength = sp));
      if (bestDet >= proofBound) return illegal(bestLength, explored, proof, false);
    }
    if (!deadEnd) {
      // The memo, the model's proof and its hint come n iterations past the first dead end,
      // its advice ADVICE_AFTER: a search that backtracks a little pays for none of them (on
      // small histories they cost more than the search: the memo's entries, one hash of a
      // state each, cost as much as the steps they would save). Until the memo is made, a
      // configuration may be explored again, at most n iterations' worth, never wrongly.
      deadEnd = true;
      memoAt = iterations + n;
      if (hookAt === Infinity) hookAt = iterations + ADVICE_AFTER;
    }
    if (!memo && iterations >= memoAt) {
      // A model that partitions histories by key (kv) gives its hint first and its proof
      // only at the hinted search's dead end: most keys of an illegal history are legal, and
      // a hinted search mostly ends without another (kv, 100 operations on 64 clients: the
      // proofs of 5-6 of 5-7 keys were never used). One partition (a queue's, a set's): the
      // proof first, as it ends an illegal one at once. With advice too, the proof first:
      // the restart for advice carries it. (A hint that fails leaves the proof to the end.)
      if (!proved && (hinted || priorityHook === undefined || adviceHook !== undefined || model.partition === undefined)) {
        proved = true;
        proof = refutation(model, ops, refuteHook);
        if (proof !== undefined) {
          proofBound = boundOf(proof, n);
          if (bestDet >= proofBound) return illegal(bestLength, explored, proof, false);
        }
      }
      if (!hinted && priorityHook !== undefined && hint(model, ops, n, priorityHook)) {
        // The hint orders the ranks (updates and indeterminate operations by it, as the
        // loop's sortKey): the same search starts again on them, with a new memo (set
        // hashes are by rank) and what it found so far (longest, proof, iterations).
        hinted = true;
        readOnlyRanks = rankTiny(n, det, n - bitCount(readOnlyRanks));
        limit = iterations + TINY_BUDGET[n];
        for (let k = 0; k < sp; k++) stackState[k] = undefined;
        sp = 0;
        linearized = 0;
        linDet = 0;
        setHash = 0;
        state = initial;
        fresh = true;
        deadEnd = false;
        memoAt = Infinity;
        forget();
        continue;
      }
      memo = true;
      lin[0] = linearized;
      rememberStack(sp, state, 1, model, equal, stackRank);
    }
    if (!hooked && iterations >= hookAt) {
      // With advice the search starts again in `restarted`'s loop, so that every frame has
      // it, with a new memo (this one holds the configurations since it was made, not all
      // explored).
      hooked = true;
      const advise = adviceOf(model, ops, adviceHook);
      if (advise !== undefined) {
        for (let k = 0; k < sp; k++) stackState[k] = undefined;
        return new Restart(iterations, explored, bestDet, bestLength, proof, proofBound, advise as Advise<unknown> | undefined, hinted);
      }
    }
    for (;;) {
      if (sp === 0) {
        if (!proved) proof = refutation(model, ops, refuteHook);
        return illegal(bestLength, explored, proof, false);
      }
      sp--;
      const r = stackRank[sp];
      state = stackState[sp];
      stackState[sp] = undefined;
      linearized &= ~(1 << r);
      setHash ^= zob[r];
      if (kindOf[opAt[r]] !== 2) linDet--;
      // Backtracking over a forced operation: its configuration failed too.
      if (((1 << r) & readOnlyRanks) === 0) break;
    }
  }
}

/**
 * Tiny's ranks (the order of candidates): read-only operations by call, then updates by
 * return and indeterminate ones by call, or, with `hinted` (their count) > 0, these by the
 * model's hint (hint()'s byHint). Fills opAt, rankOf, calledBy, retBit; the read-only
 * ranks' bits.
 */
function rankTiny(n: number, det: number, hinted: number): number {
  // Each operation's rank set as it is placed, `rankOf[(opAt[rank] = o)] = rank++` (no pass of
  // its own: a first check runs every pass in the interpreter, ~0.4 us an iteration); the
  // read-only ones are ranks 0 .. readOnly - 1.
  let rank = 0;
  for (let o = 0; o < n; o++) if (kindOf[o] === 0) rankOf[(opAt[rank] = o)] = rank++;
  const readOnly = rank;
  if (hinted > 0) for (let r = 0; r < hinted; r++) rankOf[(opAt[rank] = byHint[r])] = rank++;
  else {
    for (let k = 0; k < det; k++) if (kindOf[byRet[k]] === 1) rankOf[(opAt[rank] = byRet[k])] = rank++;
    // The indeterminate ones, when there are (det counts the others): a pass fewer in most.
    if (det < n) for (let o = 0; o < n; o++) if (kindOf[o] === 2) rankOf[(opAt[rank] = o)] = rank++;
  }
  const readOnlyRanks = readOnly === 32 ? -1 : ((1 << readOnly) - 1) | 0; // (1 << 32 is 1; | 0 keeps 31 a small integer)
  let calledSoFar = 0;
  for (let k = 0, o = 0; k < det; k++) {
    const until = retAt[byRet[k]];
    for (; o < n && callAt[o] <= until; o++) calledSoFar |= 1 << rankOf[o];
    calledBy[k] = calledSoFar;
    retBit[k] = 1 << rankOf[byRet[k]];
  }
  return readOnlyRanks;
}

/** Bits set in a 32-bit word. */
function bitCount(x: number): number {
  let c = 0;
  for (let v = x; v !== 0; v &= v - 1) c++;
  return c;
}

/** Per rank (wide): the operation, and per operation its rank. */
const wideOpAt = new Int32Array(SMALL_MAX);
const wideRankOf = new Int32Array(SMALL_MAX);
/** Per determinate operation by return (wide): `words` words of the ranks called by its return. */
const wideCalledBy = new Int32Array(SMALL_MAX * WORDS);
/** Per determinate operation by return (wide): its rank. */
const wideRetRank = new Int32Array(SMALL_MAX);
/** Per depth (wide): `words` words of the frame's candidates not tried yet, and the rank linearized there. */
const wideUntried = new Int32Array((SMALL_MAX + 1) * WORDS);
const wideStackRank = new Int32Array(SMALL_MAX + 1);

/**
 * The tiny search on TINY_MAX < n <= SMALL_MAX operations: the set of linearized operations
 * (`lin`, by rank) and each frame `words` words of bits, tried lowest rank first (the first
 * word with a bit left, then its lowest bit). A separate function, so the one-word search
 * keeps its registers. Ranks as tiny's: read-only ones first (rank < readOnlyCount: the
 * forced ones), then updates by return, then indeterminate ones (rank >= det).
 */
function wide<S>(
  model: Model<S>,
  ops: readonly Operation[],
  n: number,
  det: number,
  words: number,
  state: unknown,
  next: Next<S>,
  hashState: Model<S>['hash'],
  equal: Model<S>['equal'],
  priorityHook: Model<S>['priority'],
  adviceHook: Model<S>['advice'],
  refuteHook: Model<S>['refute'],
): SearchResult | undefined | Restart {
  let rank = 0;
  for (let o = 0; o < n; o++) if (kindOf[o] === 0) wideOpAt[rank++] = o;
  const readOnlyCount = rank;
  for (let k = 0; k < det; k++) if (kindOf[byRet[k]] === 1) wideOpAt[rank++] = byRet[k];
  for (let o = 0; o < n; o++) if (kindOf[o] === 2) wideOpAt[rank++] = o;
  for (let r = 0; r < n; r++) wideRankOf[wideOpAt[r]] = r;
  for (let w = 0; w < words; w++) lin[w] = 0;
  for (let k = 0, o = 0; k < det; k++) {
    const until = retAt[byRet[k]];
    for (; o < n && callAt[o] <= until; o++) {
      const r = wideRankOf[o];
      lin[r >>> 5] |= 1 << (r & 31);
    }
    for (let w = 0; w < words; w++) wideCalledBy[k * words + w] = lin[w];
    wideRetRank[k] = wideRankOf[byRet[k]];
  }
  for (let w = 0; w < words; w++) lin[w] = 0;
  const limit = budget(n);
  let sp = 0;
  let linDet = 0;
  let bestDet = -1;
  let bestLength = 0;
  let setHash = 0;
  let iterations = 0;
  let explored = 0;
  let memo = false;
  let hooked = false;
  let hookAt = Infinity;
  let proof: Refutation | undefined;
  let proofBound = Infinity;
  let fresh = true;
  firstByRet[0] = 0;
  for (;;) {
    if (linDet === det) {
      const linearization = new Array<number>(sp);
      for (let k = 0; k < sp; k++) linearization[k] = origin[wideOpAt[wideStackRank[k]]];
      return new Linearized(linearization, explored, memo ? entries : explored);
    }
    const at = sp * words;
    if (fresh) {
      // linDet < det: some determinate operation is pending, so fr < det.
      let fr = firstByRet[sp];
      for (;;) {
        const r = wideRetRank[fr];
        if ((lin[r >>> 5] & (1 << (r & 31))) === 0) break;
        fr++;
      }
      firstByRet[sp + 1] = fr;
      const from = fr * words;
      for (let w = 0; w < words; w++) wideUntried[at + w] = wideCalledBy[from + w] & ~lin[w];
      fresh = false;
    }
    if (++iterations > limit) {
      if (!hooked) proof = refutation(model, ops, refuteHook);
      if (proof === undefined) return undefined;
      if (linDet > bestDet) keepWideBest((bestLength = sp));
      return illegal(bestLength, explored, proof, true);
    }
    let w = 0;
    while (w < words && wideUntried[at + w] === 0) w++;
    if (w < words) {
      const left = wideUntried[at + w];
      const bit = left & -left;
      wideUntried[at + w] = left ^ bit;
      const r = (w << 5) | (31 - Math.clz32(bit));
      const o = wideOpAt[r];
      const op = ops[origin[o]];
      const after = next.call(model, state as S, op.input, r >= det ? UNKNOWN : op.output);
      if (after === ILLEGAL) continue;
      const nextHash = setHash ^ zob[r];
      lin[w] |= bit;
      if (memo && !remember(hashState === undefined ? nextHash : nextHash ^ hashState.call(model, after), words, after, equal, model)) {
        lin[w] &= ~bit;
        // A forced operation into an explored configuration: this one failed as that one did.
        if (r < readOnlyCount) for (let v = 0; v < words; v++) wideUntried[at + v] = 0;
        continue;
      }
      explored++;
      wideStackRank[sp] = r;
      stackState[sp] = state;
      sp++;
      state = after;
      setHash = nextHash;
      if (r < det) linDet++;
      fresh = true;
      continue;
    }
    // A dead end: every candidate failed here.
    if (linDet > bestDet) {
      bestDet = linDet;
      keepWideBest((bestLength = sp));
      if (bestDet >= proofBound) return illegal(bestLength, explored, proof, false);
    }
    if (!memo) {
      memo = true;
      rememberStack(sp, state, words, model, equal, wideStackRank);
      hookAt = iterations + n;
    }
    if (!hooked && iterations >= hookAt) {
      // As tiny does (which see).
      hooked = true;
      const hinted = priorityHook !== undefined && hint(model, ops, n, priorityHook);
      const advise = adviceOf(model, ops, adviceHook);
      proof = refutation(model, ops, refuteHook);
      if (proof !== undefined) {
        proofBound = boundOf(proof, n);
        if (bestDet >= proofBound) return illegal(bestLength, explored, proof, false);
      }
      if (hinted || advise !== undefined) {
        for (let k = 0; k < sp; k++) stackState[k] = undefined;
        return new Restart(iterations, explored, bestDet, bestLength, proof, proofBound, advise as Advise<unknown> | undefined, hinted);
      }
    }
    for (;;) {
      if (sp === 0) {
        if (!hooked) proof = refutation(model, ops, refuteHook);
        return illegal(bestLength, explored, proof, false);
      }
      sp--;
      const r = wideStackRank[sp];
      state = stackState[sp];
      stackState[sp] = undefined;
      lin[r >>> 5] &= ~(1 << (r & 31));
      setHash ^= zob[r];
      if (r < det) linDet--;
      // Backtracking over a forced operation: its configuration failed too.
      if (r >= readOnlyCount) break;
    }
  }
}

/** The wide search's stack, best[0 .. length) in search numbering. */
function keepWideBest(length: number): void {
  for (let k = 0; k < length; k++) best[k] = wideOpAt[wideStackRank[k]];
}

/** The tiny search's stack, best[0 .. length) in search numbering. */
function keepBest(length: number): void {
  for (let k = 0; k < length; k++) best[k] = opAt[stackRank[k]];
}

/**
 * The ok verdict. A class instance, not an object literal: a first check from the snapshot
 * runs without feedback, where V8 makes an object literal in the runtime (2.5-3 us the first,
 * ~1 us each after) and a class instance by its constructor's stores (1.4 us, then 0.35;
 * RESULTS-issue21.md, lin-10b). Fields in the literal's order.
 */
class Linearized implements SearchResult {
  declare verdict: 'ok';
  declare linearization: number[];
  declare explored: number;
  declare cached: number;

  constructor(linearization: number[], explored: number, cached: number) {
    this.verdict = 'ok';
    this.linearization = linearization;
    this.explored = explored;
    this.cached = cached;
  }
}

/** The illegal verdict, before its proof (as Linearized, which see). */
class NotLinearizable implements SearchResult {
  declare verdict: 'illegal';
  declare longest: number[][];
  declare explored: number;
  declare cached: number;
  declare proof?: Refutation;
  declare cutShort?: boolean;

  constructor(longest: number[][], explored: number, cached: number) {
    this.verdict = 'illegal';
    this.longest = longest;
    this.explored = explored;
    this.cached = cached;
  }
}

/** The illegal verdict, with the best partial linearization best[0 .. length). */
function illegal(length: number, explored: number, proof: Refutation | undefined, cutShort: boolean): SearchResult {
  const longest = new Array<number>(length);
  for (let k = 0; k < length; k++) longest[k] = origin[best[k]];
  const result: SearchResult = new NotLinearizable([longest], explored, entries);
  if (proof !== undefined) result.proof = proof;
  if (cutShort) result.cutShort = true;
  return result;
}

/** The proof's bound on the determinate operations of a partial linearization: for a pair, the larger of the two (one of them is left out). */
function boundOf(proof: Refutation, n: number): number {
  return Math.max(longestPossible(proof.operation, n), proof.and === undefined ? 0 : longestPossible(proof.and, n));
}

/**
 * Determinate operations a partial linearization can hold when `refuted` (an index into
 * the ops given) can never be linearized: those called by its return, but itself (every
 * other one comes after it). Infinity when it is not a kept determinate operation.
 */
function longestPossible(refuted: number, n: number): number {
  let r = -1;
  for (let o = 0; o < n && r < 0; o++) if (origin[o] === refuted && kindOf[o] !== 2) r = o;
  if (r < 0) return Infinity;
  let count = 0;
  for (let o = 0; o < n; o++) if (o !== r && kindOf[o] !== 2 && callAt[o] <= retAt[r]) count++;
  return count;
}

/**
 * The model's priority hint as the frames' order of updates and indeterminate operations
 * (one pass, by hint, then by call), as wgl.ts orders them; false when the hook throws or
 * answers badly (the order stays by return).
 */
function hint(model: Model, ops: readonly Operation[], n: number, hook: Model['priority']): boolean {
  const priority = priorities(model, ops, hook);
  if (priority === undefined) return false;
  let m = 0;
  for (let o = 0; o < n; o++) {
    if (kindOf[o] === 0) continue;
    const h = priority[origin[o]];
    let j = m - 1;
    while (j >= 0 && hintOf[byHint[j]] > h) {
      byHint[j + 1] = byHint[j];
      j--;
    }
    byHint[j + 1] = o;
    hintOf[o] = h;
    m++;
  }
  for (let r = 0; r < m; r++) sortKey[byHint[r]] = SMALL_MAX + r;
  return true;
}

/** Adds the configuration (lin, state) under `key` unless it is there; true when added. */
function remember<S>(key: number, words: number, state: unknown, equal: Model<S>['equal'], model: Model<S>): boolean {
  const mask = SLOTS - 1;
  let slot = key & mask;
  for (;;) {
    if (slotStamp[slot] !== stamp) break;
    if (slotKey[slot] === key) {
      const e = slotEntry[slot];
      let same = true;
      for (let w = 0; w < words; w++) {
        if (entryWords[e * words + w] !== lin[w]) {
          same = false;
          break;
        }
      }
      if (same && (equal === undefined ? Object.is(entryState[e], state) : equal.call(model, entryState[e] as S, state as S))) return false;
    }
    slot = (slot + 1) & mask;
  }
  const e = entries++;
  for (let w = 0; w < words; w++) entryWords[e * words + w] = lin[w];
  entryState[e] = state;
  slotStamp[slot] = stamp;
  slotKey[slot] = key;
  slotEntry[slot] = e;
  return true;
}

/**
 * The memo, made at the first dead end: the configurations on the stack (all explored so far);
 * `bits`: per depth, the index (operation or rank) whose bit was set there.
 */
function rememberStack<S>(sp: number, state: unknown, words: number, model: Model<S>, equal: Model<S>['equal'], bits: Int32Array): void {
  const hashState = model.hash;
  for (let w = 0; w < words; w++) {
    savedLin[w] = lin[w];
    lin[w] = 0;
  }
  let h = 0;
  for (let k = 0; k < sp; k++) {
    const o = bits[k];
    lin[o >>> 5] |= 1 << (o & 31);
    h ^= zob[o];
    const after = k + 1 < sp ? stackState[k + 1] : state;
    remember(hashState === undefined ? h : h ^ hashState.call(model, after as S), words, after, equal, model);
  }
  for (let w = 0; w < words; w++) lin[w] = savedLin[w];
}
