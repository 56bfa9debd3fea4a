// A FIFO queue (Knossos's fifo-queue): enqueue v; dequeue returns the oldest value, or
// null when the queue is empty.

import { fmix32, hashValue, show, valueEqual, ValueMap } from '../hash.ts';
import { ILLEGAL, stepFrom, UNKNOWN, type Illegal, type Model, type Operation, type Refutation } from '../types.ts';

export interface QueueInput {
  f: 'enqueue' | 'dequeue';
  value?: unknown;
}

/**
 * The queue's contents, oldest first, with its hash kept alongside. Plain data, copied at
 * every step: the explorer's monitor compares model states by their canonical JSON, so a
 * state may not share a buffer that a later step extends (tried: Go-slice sharing made the
 * monitor and WGL disagree).
 */
export interface QueueState {
  readonly items: readonly unknown[];
  readonly hash: number;
}

/**
 * hash(items) = sum of term(items[i]) * B^(length - 1 - i), mod 2^32 (an item's term: see
 * `next`): an enqueue multiplies by B and adds, a dequeue subtracts the head's term, both
 * in O(1).
 */
const B = 0x01000193;
const powers = [1];

function power(k: number): number {
  while (powers.length <= k) powers.push(Math.imul(powers[powers.length - 1], B));
  return powers[k];
}

// The powers a queue of up to 256 items needs, made once (the startup snapshot holds them):
// `next` reads them without a call (below).
power(256);

/**
 * Crashed enqueues of a value no dequeue returned. Such a value, if it was enqueued, was
 * never at the head when a dequeue with a known output ran; removing it, and the crashed
 * dequeue that may have taken it, leaves every other dequeue its result.
 */
function unobserved(history: readonly Operation<QueueInput, unknown>[]): boolean[] {
  const n = history.length;
  const out = new Array<boolean>(n).fill(false);
  // The crashed enqueues' values (most histories have a few, or none): only the dequeues
  // of those are looked for, not every value returned kept in a map. Indexed loops: a
  // first check runs this in V8's interpreter, where for-of makes an iterator result per
  // operation.
  const crashed = new ValueMap<boolean>();
  let any = false;
  for (let i = 0; i < n; i++) {
    const op = history[i];
    if (op.ret !== undefined || op.input.f !== 'enqueue') continue;
    crashed.set(op.input.value, false);
    any = true;
  }
  if (!any) return out;
  for (let i = 0; i < n; i++) {
    const op = history[i];
    if (op.ret === undefined || op.input.f !== 'dequeue' || op.output === null) continue;
    if (crashed.get(op.output) === false) crashed.set(op.output, true);
  }
  for (let i = 0; i < n; i++) {
    const op = history[i];
    out[i] = op.ret === undefined && op.input.f === 'enqueue' && crashed.get(op.input.value) === false;
  }
  return out;
}

/**
 * The order to try, in dequeue time: a dequeue at its call; an enqueue at the call of the
 * first dequeue that returned its value, so that concurrent enqueues are tried in the order
 * their values left. A value no dequeue returned either left through a crashed dequeue (at
 * the call of the first one after the enqueue's) or never left, behind every value that did
 * (none after it: last). A crashed dequeue comes last: `advice` puts it where it is needed.
 */
function priority(history: readonly Operation<QueueInput, unknown>[]): number[] {
  const taken = new ValueMap<number>();
  const crashedDequeues: number[] = [];
  // "Last": after every call, and a small integer when the calls are (Infinity would make
  // the hints an array of doubles, each read of which makes a heap number in a first
  // check); only the hints' order matters.
  let latest = -Infinity;
  for (let i = 0; i < history.length; i++) {
    const op = history[i];
    if (op.call > latest) latest = op.call;
    if (op.input.f !== 'dequeue') continue;
    if (op.ret === undefined) crashedDequeues.push(op.call);
    if (op.ret === undefined || op.output === null) continue;
    const at = taken.get(op.output);
    if (at === undefined || op.call < at) taken.set(op.output, op.call);
  }
  crashedDequeues.sort((a, b) => a - b);
  const last = latest + 1 > latest ? latest + 1 : Infinity;
  const out = new Array<number>(history.length);
  for (let i = 0; i < history.length; i++) {
    const op = history[i];
    if (op.input.f !== 'enqueue') out[i] = op.ret === undefined ? last : op.call;
    else {
      const at = taken.get(op.input.value);
      out[i] = at === undefined ? firstFrom(crashedDequeues, op.call, last) : at;
    }
  }
  return out;
}

/**
 * The first of the sorted times at or after t (`none` if there is none). Functions the hooks use
 * are the module's, not closures made per call: run from source (tsx keeps names), every
 * named closure costs a defineProperty where it is made, and the hooks run at every small
 * check that backtracks.
 */
function firstFrom(sorted: readonly number[], t: number, none: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length ? sorted[lo] : none;
}

/**
 * Where a crashed dequeue goes, and where an enqueue cannot go.
 *
 * A crashed dequeue is forced when the head holds a value that no dequeue returned: the
 * dequeues after it can only be crashed ones (a known output would have to be that value),
 * the first of them can come now instead (removing the head commutes with enqueues), and
 * if none comes, removing the head now is seen by no one. Useless when the queue is empty
 * (it would change nothing), or when the head holds a value enqueued once that a dequeue
 * returns (that dequeue could then never come).
 *
 * An enqueue of v is useless now when v is enqueued once and returned by one dequeue D
 * with a known output, and some value u already in the queue cannot leave before D
 * returns: every dequeue that could take u (one that returned u, or a crashed one) is
 * called after D's return. Enqueued now, v sits behind u, and D must take v before
 * anything takes u. This is what keeps the search from trying every order of concurrent
 * enqueues on a history that turns out illegal: a wrong order dies at the enqueue, not
 * at the dequeue that finds it wrong.
 *
 * That enqueue is 'dead', not just useless: when its return is the first pending, every
 * dequeue that could take u is called after D's return, so after the enqueue's (D comes
 * after the enqueue, so its return is pending too): none of them can come before the
 * enqueue, and u never leaves in time. The same holds for D itself (x its value): a value
 * ahead of x (the whole queue while x is not in it) that cannot leave before D returns.
 */
function advice(history: readonly Operation<QueueInput, unknown>[]): ((q: QueueState, input: QueueInput, output: unknown) => 'forced' | 'useless' | 'dead' | undefined) | undefined {
  const facts = new Leaving();
  for (let i = 0; i < history.length; i++) {
    const op = history[i];
    if (op.input.f === 'enqueue') facts.of(op.input.value).enqueued++;
    else if (op.input.f === 'dequeue' && op.ret === undefined) {
      facts.crashedDequeues = true;
      if (op.call < facts.firstCrashedDequeue) facts.firstCrashedDequeue = op.call;
    } else if (op.input.f === 'dequeue' && op.output !== null) {
      const v = facts.of(op.output);
      v.returned++;
      if (op.call < v.firstCall) v.firstCall = op.call;
      if (op.ret! > v.lastRet) v.lastRet = op.ret!;
    }
  }
  const crashedDequeues = facts.crashedDequeues;
  return (q, input, output) => {
    const items = q.items;
    if (input.f === 'enqueue') {
      if (items.length === 0) return undefined;
      const by = facts.mustLeaveBy(input.value);
      if (by === Infinity) return undefined;
      // Some value already queued cannot leave before D's return.
      return facts.latestLeave(items) > by ? 'dead' : undefined;
    }
    if (input.f === 'dequeue' && output !== UNKNOWN && output !== null) {
      // The dequeue D that returned x (enqueued once, returned once): every value ahead of x
      // (the whole queue while x is not in it) must leave before D, so before D's return.
      // Nothing is ahead of x at the head (the dequeue that fits: no pass over the queue),
      // and none is late when no value in the queue is (the state's latest leave, which
      // the frame's enqueues ask for too).
      const by = facts.mustLeaveBy(output);
      if (by === Infinity || items.length === 0) return undefined;
      const primitive = typeof output !== 'object' && output === output;
      if (items[0] === output || (!primitive && valueEqual(items[0], output)) || facts.latestLeave(items) <= by) return undefined;
      for (let i = 0; i < items.length; i++) {
        const u = items[i];
        if (u === output || (!primitive && valueEqual(u, output))) return undefined;
        if (facts.leavesFrom(u) > by) return 'dead';
      }
      return undefined;
    }
    if (!crashedDequeues || input.f !== 'dequeue' || output !== UNKNOWN) return undefined;
    if (items.length === 0) return 'useless';
    const head = facts.known(items[0]);
    if (head === undefined || head.returned === 0) return 'forced';
    return head.enqueued === 1 ? 'useless' : undefined;
  };
}

/**
 * What advice knows of one value: how often it is enqueued and returned, the earliest call
 * and the latest return of the dequeues that returned it.
 */
interface ValueFacts {
  enqueued: number;
  returned: number;
  firstCall: number;
  lastRet: number;
}

/**
 * When values may leave the queue, and when they must have (advice's facts): one record
 * per value (structural equality), so that a question about a value is one lookup.
 */
class Leaving {
  private readonly values = new ValueMap<ValueFacts>();
  /**
   * leavesFrom and mustLeaveBy per value, asked at every candidate: one Map lookup. An object
   * is kept by identity (SameValueZero): a queue's items are the enqueues' own values, so an
   * object met again is the same object, and one equal to it but not it only gets an entry
   * of its own with the same answer (its record is the ValueMap's, by structure).
   */
  private readonly leaves = new Map<unknown, number>();
  private readonly leaveBy = new Map<unknown, number>();
  crashedDequeues = false;
  firstCrashedDequeue = Infinity;
  private lastItems: readonly unknown[] | undefined = undefined;
  private lastLatest = -Infinity;

  /** The value's record, made when first asked for. */
  of(v: unknown): ValueFacts {
    let f = this.values.get(v);
    if (f === undefined) this.values.set(v, (f = { enqueued: 0, returned: 0, firstCall: Infinity, lastRet: -Infinity }));
    return f;
  }

  /** The value's record, if it has one. */
  known(v: unknown): ValueFacts | undefined {
    return this.values.get(v);
  }

  /**
   * A value leaves no earlier than this: a dequeue that returned it, or a crashed one,
   * unless the value is enqueued once and a dequeue returned it (then no crashed dequeue
   * may take it: that dequeue could never come).
   */
  leavesFrom(u: unknown): number {
    let t = this.leaves.get(u);
    if (t !== undefined) return t;
    const f = this.values.get(u);
    t = f === undefined || f.returned === 0 ? this.firstCrashedDequeue : f.enqueued === 1 ? f.firstCall : Math.min(f.firstCall, this.firstCrashedDequeue);
    this.leaves.set(u, t);
    return t;
  }

  /**
   * The latest time at which a value in the queue can start to leave (the most of
   * leavesFrom over its items), kept for the last state asked about: a frame asks about
   * each of its candidates in one state, and states are never changed once made.
   */
  latestLeave(items: readonly unknown[]): number {
    if (items !== this.lastItems) {
      let latest = -Infinity;
      const leaves = this.leaves;
      for (let i = 0; i < items.length; i++) {
        // leavesFrom's lookup first: a call per item only for a value not asked about yet.
        let t = leaves.get(items[i]);
        if (t === undefined) t = this.leavesFrom(items[i]);
        if (t > latest) latest = t;
      }
      this.lastItems = items;
      this.lastLatest = latest;
    }
    return this.lastLatest;
  }

  /** Per enqueued value v that one enqueue and one known dequeue D carry: D's return (else Infinity). */
  mustLeaveBy(v: unknown): number {
    let t = this.leaveBy.get(v);
    if (t !== undefined) return t;
    const f = this.values.get(v);
    t = f === undefined || f.enqueued !== 1 || f.returned !== 1 ? Infinity : f.lastRet;
    this.leaveBy.set(v, t);
    return t;
  }
}

/**
 * A dequeue whose value had not been enqueued often enough. Of the dequeues with a known
 * output that returned v, the k that returned first each took an enqueue of v of their
 * own, linearized before them, so before the k-th return: at least k enqueues of v (known
 * or crashed) must be called by then. The first dequeue that breaks this (in return
 * order) is refuted; a value dequeued twice but enqueued once, or never enqueued, does.
 */
function refute(history: readonly Operation<QueueInput, unknown>[]): Refutation | undefined {
  const n = history.length;
  // Each value dequeued with a known output has a number (in the order first dequeued), and
  // its dequeues and its enqueues are chained through the operations in history order:
  // first and last (an operation + 1; 0: none), then nextOp. Typed arrays, not an object and
  // two arrays per value: a first check makes each literal in V8's runtime (~500 values in
  // a queue of 1,000 operations).
  const numbers = new ValueMap<number>();
  const values: unknown[] = [];
  const firstDequeue = new Int32Array(n);
  const lastDequeue = new Int32Array(n);
  const firstEnqueue = new Int32Array(n);
  const lastEnqueue = new Int32Array(n);
  const nextOp = new Int32Array(n);
  let objects = false;
  for (let i = 0; i < n; i++) {
    const op = history[i];
    if (op.input.f !== 'dequeue' || op.ret === undefined || op.output === null) continue;
    let v = numbers.get(op.output);
    if (v === undefined) {
      v = values.length;
      values.push(op.output);
      numbers.set(op.output, v);
      if (typeof op.output === 'object') objects = true;
      firstDequeue[v] = i + 1;
    } else nextOp[lastDequeue[v] - 1] = i + 1;
    lastDequeue[v] = i + 1;
  }
  if (values.length === 0) return undefined;
  for (let i = 0; i < n; i++) {
    const op = history[i];
    if (op.input.f !== 'enqueue') continue;
    const v = numbers.get(op.input.value);
    if (v === undefined) continue;
    if (firstEnqueue[v] === 0) firstEnqueue[v] = i + 1;
    else nextOp[lastEnqueue[v] - 1] = i + 1;
    lastEnqueue[v] = i + 1;
  }
  // The values in the map's order (ties in return time go to the first), without its
  // iterator: the order first dequeued when every value is a primitive (numbered so), else
  // the primitives' and then the objects' (ValueMap.forEach). No forEach and closure for
  // the primitives: a first check pays ~1.5 us for each function it calls for the first
  // time (RESULTS-issue21.md, lin-10e).
  let order: number[] | undefined;
  if (objects) {
    const inMap: number[] = (order = []);
    numbers.forEach((v) => inMap.push(v));
  }
  const enqueueCalls: number[] = [];
  const dequeues: number[] = [];
  let found: { at: number; operation: number; why: string } | undefined;
  for (let j = 0; j < values.length; j++) {
    const v = order === undefined ? j : order[j];
    const d = firstDequeue[v] - 1;
    const e = firstEnqueue[v] - 1;
    // One dequeue and at most one enqueue (most values): no arrays.
    if (d === lastDequeue[v] - 1 && e === lastEnqueue[v] - 1 && e >= 0 && history[e].call <= history[d].ret!) continue;
    enqueueCalls.length = 0;
    dequeues.length = 0;
    for (let i = firstEnqueue[v]; i !== 0; i = nextOp[i - 1]) enqueueCalls.push(history[i - 1].call);
    for (let i = firstDequeue[v]; i !== 0; i = nextOp[i - 1]) dequeues.push(i - 1);
    // Sorted only when not in order already (most are: one or two of each, in history order).
    if (!inOrder(enqueueCalls)) enqueueCalls.sort((x, y) => x - y);
    if (!byReturn(history, dequeues)) dequeues.sort((x, y) => history[x].ret! - history[y].ret! || x - y);
    for (let k = 0; k < dequeues.length; k++) {
      const ret = history[dequeues[k]].ret!;
      if (k < enqueueCalls.length && enqueueCalls[k] <= ret) continue;
      if (found === undefined || ret < found.at) {
        const enqueued = enqueueCalls.filter((c) => c <= ret).length;
        found = {
          at: ret,
          operation: dequeues[k],
          why: `by its return ${k + 1} dequeue${k === 0 ? '' : 's'} returned ${show(values[v])}, which ${enqueued === 0 ? 'no enqueue had put in the queue' : `only ${enqueued} enqueue${enqueued === 1 ? '' : 's'} had been called to put in the queue`}`,
        };
      }
      break;
    }
  }
  return found === undefined ? undefined : { operation: found.operation, why: found.why };
}

function inOrder(xs: readonly number[]): boolean {
  for (let i = 1; i < xs.length; i++) if (xs[i] < xs[i - 1]) return false;
  return true;
}

/** Whether the operations (indices, ascending) are in order of their returns already. */
function byReturn(history: readonly Operation[], ids: readonly number[]): boolean {
  for (let i = 1; i < ids.length; i++) if (history[ids[i]].ret! < history[ids[i - 1]].ret!) return false;
  return true;
}

/**
 * A state as made by a step: a class, not an object literal (a first check runs the
 * steps in V8's interpreter and baseline code, where a literal is made in the runtime,
 * 2-3x the cost of a class's instance). Fields declared and set in the constructor (as
 * kv.ts's KvValue, which says why).
 */
class Queue implements QueueState {
  declare readonly items: readonly unknown[];
  declare readonly hash: number;

  constructor(items: readonly unknown[], hash: number) {
    this.items = items;
    this.hash = hash;
  }
}

const EMPTY: QueueState = new Queue([], 0);

function next(q: QueueState, input: QueueInput, output: unknown): QueueState | Illegal {
  if (input.f === 'enqueue') {
    // A dequeue's null is the empty queue's answer (readOnly, advice, refute read it so):
    // a null item could not be told from it, so it is refused rather than judged.
    if (input.value == null) throw new Error(`queue: enqueue(${input.value}): null is what a dequeue of an empty queue returns, so no item can be null or missing`);
    // slice and push, not a spread: 0.5 against 0.7 us in a first check (no feedback).
    const items = q.items.slice();
    const v = input.value;
    items.push(v);
    // An item's part of the hash: a 32-bit integer is its own (the usual value: no call into
    // hashValue and its finalizer at every step), anything else its hashValue; equal items get
    // equal terms either way, and the state's hash is mixed once, in `hash`. Written out here
    // and below, not a function: a first check runs this in V8's interpreter and pays ~1.5 us
    // for each function it calls for the first time (RESULTS-issue21.md, lin-10e).
    return new Queue(items, (Math.imul(q.hash, B) + (typeof v === 'number' && (v | 0) === v ? v : hashValue(v))) | 0);
  }
  if (input.f === 'dequeue') {
    if (q.items.length === 0) return output === UNKNOWN || output === null ? q : ILLEGAL;
    // valueEqual, without the call for a primitive other than NaN (only === can match it).
    const head = q.items[0];
    if (output !== UNKNOWN && output !== head && ((typeof output !== 'object' && output === output) || !valueEqual(output, head))) return ILLEGAL;
    const items = q.items.slice(1);
    const k = items.length;
    const term = typeof head === 'number' && (head | 0) === head ? head : hashValue(head);
    return new Queue(items, (q.hash - Math.imul(term, k < powers.length ? powers[k] : power(k))) | 0);
  }
  throw new Error(`queue: unknown operation ${show((input as { f: unknown }).f)}`);
}

/**
 * The queue's items as show renders them, in brackets. An illegal report describes the state
 * after every step of its longest partial linearization (a queue of 100 operations: ~1,200
 * items shown), in V8's interpreter on a first check: a loop that adds a finite number to the
 * text itself, not a call of show per item through `map`.
 */
function describeState(q: QueueState): string {
  const items = q.items;
  let text = '[';
  for (let i = 0; i < items.length; i++) {
    const v = items[i];
    if (i > 0) text += ', ';
    // A finite number (v - v is NaN for NaN and the infinities, which show renders as null)
    // added as it is: its text is String's, as show's.
    text += typeof v === 'number' && v - v === 0 ? v : show(v);
  }
  return text + ']';
}

export const queue: Model<QueueState, QueueInput, unknown> = {
  name: 'queue',
  noKeys: true,
  init: () => EMPTY,
  step: stepFrom(next),
  next,
  // A dequeue that saw an empty queue changes nothing.
  readOnly: (input, output) => input.f === 'dequeue' && output === null,
  unobserved,
  priority,
  advice,
  refute,
  hash: (q) => fmix32(q.hash ^ q.items.length),
  equal: (a, b) => a.hash === b.hash && valueEqual(a.items, b.items),
  describeOperation: (input, output) =>
    input.f === 'enqueue'
      ? `enqueue(${show(input.value)})${output === UNKNOWN ? ' -> ?' : ''}`
      : `dequeue() -> ${output === UNKNOWN ? '?' : show(output)}`,
  describeState,
};
