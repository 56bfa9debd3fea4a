// The history as WGL walks it (Lowe 2017, §3; Horn & Kroening 2015, §4): call and return
// entries sorted by time, calls before returns at equal times because intervals are
// closed, threaded on a doubly linked list held in typed arrays. An indeterminate
// operation has a call entry and no return entry: nothing forces it to be linearized.

import { Slab } from './slab.ts';
import type { Operation } from './types.ts';

export interface EntryList {
  /** The sentinel; the list's first entry is next[head]. */
  head: number;
  next: Int32Array;
  prev: Int32Array;
  /** For entry e: its operation. */
  op: Int32Array;
  /** For entry e: 1 when it is a call. */
  isCall: Uint8Array;
  /** For entry e: its time (an array of the kind the times came in). */
  time: TimeArray;
  /** For operation i: its call entry and its return entry (-1: indeterminate). */
  callEntry: Int32Array;
  returnEntry: Int32Array;
  /** Number of operations with a return (they must all be linearized). */
  determinate: number;
}

/**
 * Times: small integers in an Int32Array when they are (the search rebases them to the
 * least: wgl.ts), else a Float64Array. An Int32Array's element is a small integer to V8's
 * unoptimised code; a Float64Array's is a new heap number at every read, and a first check
 * runs in that code.
 */
export type TimeArray = Float64Array | Int32Array;

/** Past the greatest time rebased into a TimeArray of small integers (small.ts: an indeterminate return). */
export const NEVER = 0x7fffffff;

/**
 * The least of the operations' call and return times when they are all integers less than
 * NEVER apart (the searches then keep them less it, in Int32Arrays), else undefined.
 */
export function smallTimesBase(ops: readonly Operation[]): number | undefined {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    const c = op.call;
    const r = op.ret;
    if (c < lo) lo = c;
    if (c > hi) hi = c;
    // x % 1 === 0: an integer (finite), without a call per time.
    if (c % 1 !== 0) return undefined;
    if (r === undefined) continue;
    if (r < lo) lo = r;
    if (r > hi) hi = r;
    if (r % 1 !== 0) return undefined;
  }
  return lo <= hi && hi - lo < NEVER ? lo : undefined;
}

/** Bytes the entry arrays take per entry, roughly (the time buckets vary). */
export const ENTRY_BYTES = 72;

/** The entry list of `ops`; its arrays come from `slab` (the search's; default one of its own). */
export function buildEntries(ops: readonly Operation[], slab?: Slab): EntryList {
  const n = ops.length;
  const call = new Float64Array(n);
  const ret = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    call[i] = ops[i].call;
    ret[i] = ops[i].ret ?? NaN;
  }
  return entriesOf(call, ret, n, slab);
}

/**
 * What entriesOf learns of the times in a pass of its own, when its caller has it from its
 * own pass over them (the search's constructor): every operation returned, the calls in
 * call order, and the least and greatest time, and whether every time is an integer.
 */
export interface TimeRange {
  min: number;
  max: number;
  integers: boolean;
}

/**
 * As buildEntries, for operations 0 .. n-1 given by their call and return times (NaN: no
 * return): one pass over plain arrays, no property reads; none when `known` is given.
 */
export function entriesOf(call: TimeArray, ret: TimeArray, n: number, slab?: Slab, known?: TimeRange): EntryList {
  let determinate = n;
  let min = Infinity;
  let max = -Infinity;
  let integers = true;
  let callsSorted = true;
  if (known !== undefined) ({ min, max, integers } = known);
  else {
    determinate = 0;
    for (let i = 0; i < n; i++) {
      const c = call[i];
      const r = ret[i];
      if (c < min) min = c;
      // x % 1 === 0: an integer (finite), without a call per time.
      if (r === r) {
        determinate++;
        if (r > max) max = r;
        if (r % 1 !== 0) integers = false;
      }
      if (c > max) max = c;
      if (c % 1 !== 0) integers = false;
      if (i > 0 && c < call[i - 1]) callsSorted = false;
    }
  }
  const count = n + determinate;
  const mem = slab ?? new Slab(ENTRY_BYTES * (count + 1));
  const head = count;
  const next = mem.i32(count + 1);
  const prev = mem.i32(count + 1);
  const sortedOp = mem.i32(count);
  const sortedIsCall = mem.u8(count);
  const sortedTime = call instanceof Int32Array ? mem.i32(count) : mem.f64(count);
  const callEntry = mem.i32(n);
  const returnEntry = mem.i32(n).fill(-1);
  next[head] = count > 0 ? 0 : -1;
  prev[head] = -1;
  const list = { head, next, prev, op: sortedOp, isCall: sortedIsCall, time: sortedTime, callEntry, returnEntry, determinate };
  // The order is (time, calls first, operation), threaded as it is made. Integer times
  // whose keys (time - min) * n + operation stay exact: the returns' keys (and the calls',
  // unless the calls come in call order, as the search numbers them) sorted by the native
  // numeric sort, then merged with the calls, calls first at equal times: no pass over the
  // range of times.
  // The keys in an Int32Array when they fit (no heap number per key: TimeArray's note).
  const range = (max - min + 1) * n;
  if (count > 0 && integers && range <= Number.MAX_SAFE_INTEGER) sortByKeys(list, call, ret, n, min, callsSorted, range <= 0x7fffffff ? mem.i32.bind(mem) : mem.f64.bind(mem));
  else sortByRanks(list, call, ret, n, mem);
  if (count > 0) {
    next[count - 1] = -1;
    prev[0] = head;
  }
  return list;
}

/** The entries in order by (time, calls first, operation) through exact integer keys (entriesOf). */
function sortByKeys(list: EntryList, call: TimeArray, ret: TimeArray, n: number, min: number, callsSorted: boolean, keys: (length: number) => TimeArray): void {
  const { next, prev, op, isCall, time, callEntry, returnEntry, determinate } = list;
  const rets = keys(determinate);
  let d = 0;
  for (let i = 0; i < n; i++) if (ret[i] === ret[i]) rets[d++] = (ret[i] - min) * n + i;
  rets.sort();
  const calls = callsSorted ? undefined : keys(n);
  if (calls !== undefined) {
    for (let i = 0; i < n; i++) calls[i] = (call[i] - min) * n + i;
    calls.sort();
  }
  let c = 0;
  let r = 0;
  let nextCall = n > 0 ? (calls === undefined ? 0 : calls[0] % n) : -1;
  let nextRet = determinate > 0 ? rets[0] % n : -1;
  for (let e = 0; e < n + determinate; e++) {
    next[e] = e + 1;
    prev[e] = e - 1;
    // A call first at equal times: a return is taken only before a later call (or none left).
    if (nextCall >= 0 && (nextRet < 0 || call[nextCall] <= ret[nextRet])) {
      op[e] = nextCall;
      isCall[e] = 1;
      time[e] = call[nextCall];
      callEntry[nextCall] = e;
      c++;
      nextCall = c === n ? -1 : calls === undefined ? c : calls[c] % n;
    } else {
      op[e] = nextRet;
      time[e] = ret[nextRet];
      returnEntry[nextRet] = e;
      r++;
      nextRet = r === determinate ? -1 : rets[r] % n;
    }
  }
}

/**
 * The entries in order by (time, calls first, operation) for any times: a stable counting
 * sort on rank(time) * 2 + (return ? 1 : 0), taking operations in index order. Integer
 * times in a range not much larger than the history are their own ranks; other times are
 * ranked by a native numeric sort (a comparator sort costs several times more).
 */
function sortByRanks(list: EntryList, call: TimeArray, ret: TimeArray, n: number, mem: Slab): void {
  const { next, prev, op: sortedOp, isCall: sortedIsCall, time: sortedTime, callEntry, returnEntry, determinate } = list;
  const count = n + determinate;
  for (let k = 0; k < count; k++) {
    next[k] = k + 1;
    prev[k] = k - 1;
  }
  const times = mem.f64(count);
  let e = 0;
  let min = Infinity;
  let max = -Infinity;
  let integers = true;
  for (let i = 0; i < n; i++) {
    const c = call[i];
    const r = ret[i];
    times[e++] = c;
    if (r === r) times[e++] = r;
    if (c < min) min = c;
    const last = r === r ? r : c;
    if (last > max) max = last;
    if (!Number.isInteger(c) || (r === r && !Number.isInteger(r))) integers = false;
  }
  const keyOf = mem.i32(count);
  let ranks: number;
  if (count > 0 && integers && max - min <= 4 * count + 64) {
    ranks = max - min + 1;
    for (let k = 0; k < count; k++) keyOf[k] = 2 * (times[k] - min);
  } else {
    ranks = denseRanks(times, count, keyOf);
    for (let k = 0; k < count; k++) keyOf[k] *= 2;
  }
  const bucketStart = mem.i32(2 * ranks + 1);
  e = 0;
  for (let i = 0; i < n; i++) {
    bucketStart[keyOf[e++] + 1]++;
    if (ret[i] === ret[i]) {
      keyOf[e]++; // a return: after the calls of its time
      bucketStart[keyOf[e++] + 1]++;
    }
  }
  for (let b = 1; b <= 2 * ranks; b++) bucketStart[b] += bucketStart[b - 1];

  e = 0;
  for (let i = 0; i < n; i++) {
    const c = bucketStart[keyOf[e++]]++;
    sortedOp[c] = i;
    sortedTime[c] = call[i];
    sortedIsCall[c] = 1;
    callEntry[i] = c;
    if (ret[i] === ret[i]) {
      const r = bucketStart[keyOf[e++]]++;
      sortedOp[r] = i;
      sortedTime[r] = ret[i];
      returnEntry[i] = r;
    }
  }
}

/**
 * Each of values[0 .. n)'s rank among their distinct values (-0 and 0 one value, equal
 * infinities one), into rankOf; returns how many distinct values there are. A native
 * numeric sort of a copy and a binary search per value: no comparator call per comparison
 * (n log n calls in V8's interpreter on a first check).
 */
export function denseRanks(values: Float64Array, n: number, rankOf: Int32Array): number {
  const distinct = values.slice(0, n).sort();
  let d = 0;
  for (let k = 0; k < n; k++) if (k === 0 || distinct[k] !== distinct[d - 1]) distinct[d++] = distinct[k];
  for (let k = 0; k < n; k++) {
    const v = values[k];
    let lo = 0;
    let hi = d - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (distinct[mid] < v) lo = mid + 1;
      else hi = mid;
    }
    rankOf[k] = lo;
  }
  return d;
}
