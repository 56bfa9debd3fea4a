// A FIFO queue (Knossos's fifo-queue): enqueue v; dequeue returns the oldest value, or
// null when the queue is empty.

import { fmix32, hashValue, show, valueEqual, ValueMap } from '../hash.ts';
import { ILLEGAL_STEP, UNKNOWN, type Model, type Operation, type Refutation } from '../types.ts';

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
 * hash(items) = sum of hashValue(items[i]) * B^(length - 1 - i), mod 2^32: an enqueue
 * multiplies by B and adds, a dequeue subtracts the head's term, both in O(1).
 */
const B = 0x01000193;
const powers = [1];

function power(k: number): number {
  while (powers.length <= k) powers.push(Math.imul(powers[powers.length - 1], B));
  return powers[k];
}

function hashItems(items: readonly unknown[]): number {
  let h = 0;
  for (const x of items) h = (Math.imul(h, B) + hashValue(x)) | 0;
  return h;
}

/**
 * Crashed enqueues of a value no dequeue returned. Such a value, if it was enqueued, was
 * never at the head when a dequeue with a known output ran; removing it, and the crashed
 * dequeue that may have taken it, leaves every other dequeue its result.
 */
function unobserved(history: readonly Operation<QueueInput, unknown>[]): boolean[] {
  const returned = new ValueMap<true>();
  for (const op of history) {
    if (op.ret === undefined || op.input.f !== 'dequeue' || op.output === null) continue;
    returned.set(op.output, true);
  }
  return history.map((op) => op.ret === undefined && op.input.f === 'enqueue' && returned.get(op.input.value) === undefined);
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
  for (const op of history) {
    if (op.input.f !== 'dequeue') continue;
    if (op.ret === undefined) crashedDequeues.push(op.call);
    if (op.ret === undefined || op.output === null) continue;
    const at = taken.get(op.output);
    if (at === undefined || op.call < at) taken.set(op.output, op.call);
  }
  crashedDequeues.sort((a, b) => a - b);
  return history.map((op) => {
    if (op.input.f !== 'enqueue') return op.ret === undefined ? Infinity : op.call;
    const at = taken.get(op.input.value);
    return at === undefined ? firstFrom(crashedDequeues, op.call) : at;
  });
}

/**
 * The first of the sorted times at or after t (Infinity: none). Functions the hooks use
 * are the module's, not closures made per call: run from source (tsx keeps names), every
 * named closure costs a defineProperty where it is made, and the hooks run at every small
 * check that backtracks.
 */
function firstFrom(sorted: readonly number[], t: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length ? sorted[lo] : Infinity;
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
  const returned = new ValueCounts();
  const enqueued = new ValueCounts();
  /** Per value: the return of the one dequeue that returned it, the earliest call of one. */
  const takenBy = new ValueTimes();
  let crashedDequeues = false;
  let firstCrashedDequeue = Infinity;
  for (const op of history) {
    if (op.input.f === 'enqueue') enqueued.add(op.input.value);
    else if (op.input.f === 'dequeue' && op.ret === undefined) {
      crashedDequeues = true;
      if (op.call < firstCrashedDequeue) firstCrashedDequeue = op.call;
    } else if (op.input.f === 'dequeue' && op.output !== null) {
      returned.add(op.output);
      takenBy.add(op.output, op.call, op.ret!);
    }
  }
  const facts = new Leaving(returned, enqueued, takenBy, firstCrashedDequeue);
  return (q, input, output) => {
    if (input.f === 'enqueue') {
      if (q.items.length === 0) return undefined;
      const by = facts.mustLeaveBy(input.value);
      if (by === Infinity) return undefined;
      // Some value already queued cannot leave before D's return.
      return facts.latestLeave(q.items) > by ? 'dead' : undefined;
    }
    if (input.f === 'dequeue' && output !== UNKNOWN && output !== null) {
      // The dequeue D that returned x (enqueued once, returned once): every value ahead of x
      // (the whole queue while x is not in it) must leave before D, so before D's return.
      const by = facts.mustLeaveBy(output);
      if (by === Infinity || q.items.length === 0) return undefined;
      const items = q.items;
      for (let i = 0; i < items.length; i++) {
        if (valueEqual(items[i], output)) return undefined;
        if (facts.leavesFrom(items[i]) > by) return 'dead';
      }
      return undefined;
    }
    if (!crashedDequeues || input.f !== 'dequeue' || output !== UNKNOWN) return undefined;
    if (q.items.length === 0) return 'useless';
    const head = q.items[0];
    if (returned.count(head) === 0) return 'forced';
    return enqueued.count(head) === 1 ? 'useless' : undefined;
  };
}

/** When values may leave the queue, and when they must have (advice's facts), remembered per primitive value. */
class Leaving {
  private readonly leaves = new Map<unknown, number>();
  private readonly leaveBy = new Map<unknown, number>();

  constructor(
    private readonly returned: ValueCounts,
    private readonly enqueued: ValueCounts,
    private readonly takenBy: ValueTimes,
    private readonly firstCrashedDequeue: number,
  ) {}

  /**
   * A value leaves no earlier than this: a dequeue that returned it, or a crashed one,
   * unless the value is enqueued once and a dequeue returned it (then no crashed dequeue
   * may take it: that dequeue could never come).
   */
  leavesFrom(u: unknown): number {
    const primitive = u === null || typeof u !== 'object';
    let t = primitive ? this.leaves.get(u) : undefined;
    if (t !== undefined) return t;
    const taken = this.takenBy.get(u);
    t = taken === undefined ? this.firstCrashedDequeue : this.enqueued.count(u) === 1 ? taken.firstCall : Math.min(taken.firstCall, this.firstCrashedDequeue);
    if (primitive) this.leaves.set(u, t);
    return t;
  }

  private lastItems: readonly unknown[] | undefined;
  private lastLatest = -Infinity;

  /**
   * The latest time at which a value in the queue can start to leave (the most of
   * leavesFrom over its items), kept for the last state asked about: a frame asks about
   * each of its candidates in one state, and states are never changed once made.
   */
  latestLeave(items: readonly unknown[]): number {
    if (items !== this.lastItems) {
      let latest = -Infinity;
      for (let i = 0; i < items.length; i++) {
        const t = this.leavesFrom(items[i]);
        if (t > latest) latest = t;
      }
      this.lastItems = items;
      this.lastLatest = latest;
    }
    return this.lastLatest;
  }

  /** Per enqueued value v that one enqueue and one known dequeue D carry: D's return (else Infinity). */
  mustLeaveBy(v: unknown): number {
    const primitive = v === null || typeof v !== 'object';
    let t = primitive ? this.leaveBy.get(v) : undefined;
    if (t !== undefined) return t;
    t = this.enqueued.count(v) !== 1 || this.returned.count(v) !== 1 ? Infinity : this.takenBy.get(v)!.lastRet;
    if (primitive) this.leaveBy.set(v, t);
    return t;
  }
}

/** Per value (structural equality): the earliest call and the latest return of the dequeues that returned it. */
class ValueTimes {
  private readonly times = new ValueMap<{ firstCall: number; lastRet: number }>();

  add(v: unknown, call: number, ret: number): void {
    const e = this.times.get(v);
    if (e === undefined) this.times.set(v, { firstCall: call, lastRet: ret });
    else {
      e.firstCall = Math.min(e.firstCall, call);
      e.lastRet = Math.max(e.lastRet, ret);
    }
  }

  get(v: unknown): { firstCall: number; lastRet: number } | undefined {
    return this.times.get(v);
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
  const byValue = new ValueMap<{ enqueueCalls: number[]; dequeues: number[] }>();
  let any = false;
  for (let i = 0; i < history.length; i++) {
    const op = history[i];
    if (op.input.f === 'dequeue' && op.ret !== undefined && op.output !== null) {
      let e = byValue.get(op.output);
      if (e === undefined) byValue.set(op.output, (e = { enqueueCalls: [], dequeues: [] }));
      e.dequeues.push(i);
      any = true;
    }
  }
  if (!any) return undefined;
  for (const op of history) {
    if (op.input.f !== 'enqueue') continue;
    byValue.get(op.input.value)?.enqueueCalls.push(op.call);
  }
  let found: { at: number; operation: number; why: string } | undefined;
  for (const [value, { enqueueCalls, dequeues }] of byValue.entries()) {
    enqueueCalls.sort((x, y) => x - y);
    dequeues.sort((x, y) => history[x].ret! - history[y].ret! || x - y);
    for (let k = 0; k < dequeues.length; k++) {
      const ret = history[dequeues[k]].ret!;
      if (k < enqueueCalls.length && enqueueCalls[k] <= ret) continue;
      if (found === undefined || ret < found.at) {
        const enqueued = enqueueCalls.filter((c) => c <= ret).length;
        found = {
          at: ret,
          operation: dequeues[k],
          why: `by its return ${k + 1} dequeue${k === 0 ? '' : 's'} returned ${show(value)}, which ${enqueued === 0 ? 'no enqueue had put in the queue' : `only ${enqueued} enqueue${enqueued === 1 ? '' : 's'} had been called to put in the queue`}`,
        };
      }
      break;
    }
  }
  return found === undefined ? undefined : { operation: found.operation, why: found.why };
}

/** How many times each value occurs (structural equality). */
class ValueCounts {
  private readonly counts = new ValueMap<number>();

  add(v: unknown): void {
    this.counts.set(v, (this.counts.get(v) ?? 0) + 1);
  }

  count(v: unknown): number {
    return this.counts.get(v) ?? 0;
  }
}

const EMPTY: QueueState = { items: [], hash: hashItems([]) };

export const queue: Model<QueueState, QueueInput, unknown> = {
  name: 'queue',
  init: () => EMPTY,
  step(q, input, output) {
    if (input.f === 'enqueue') {
      const items = [...q.items, input.value];
      return { ok: true, state: { items, hash: (Math.imul(q.hash, B) + hashValue(input.value)) | 0 } };
    }
    if (input.f === 'dequeue') {
      if (q.items.length === 0) return output === UNKNOWN || output === null ? { ok: true, state: q } : ILLEGAL_STEP;
      if (output !== UNKNOWN && !valueEqual(output, q.items[0])) return ILLEGAL_STEP;
      const items = q.items.slice(1);
      return { ok: true, state: { items, hash: (q.hash - Math.imul(hashValue(q.items[0]), power(items.length))) | 0 } };
    }
    throw new Error(`queue: unknown operation ${show((input as { f: unknown }).f)}`);
  },
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
  describeState: (q) => `[${q.items.map(show).join(', ')}]`,
};
