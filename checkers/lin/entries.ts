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
  /** For entry e: its time. */
  time: Float64Array;
  /** For operation i: its call entry and its return entry (-1: indeterminate). */
  callEntry: Int32Array;
  returnEntry: Int32Array;
  /** Number of operations with a return (they must all be linearized). */
  determinate: number;
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
 * As buildEntries, for operations 0 .. n-1 given by their call and return times (NaN: no
 * return): one pass over plain arrays, no property reads.
 */
export function entriesOf(call: Float64Array, ret: Float64Array, n: number, slab?: Slab): EntryList {
  let determinate = 0;
  for (let i = 0; i < n; i++) if (ret[i] === ret[i]) determinate++;
  const count = n + determinate;
  const mem = slab ?? new Slab(ENTRY_BYTES * (count + 1));
  // The order is (time, calls first, operation): a stable counting sort on
  // rank(time) * 2 + (return ? 1 : 0), taking operations in index order. Integer times in
  // a range not much larger than the history are their own ranks; other times are ranked
  // by a native numeric sort (a comparator sort costs several times more).
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
    const distinct = times.slice().sort();
    let d = 0;
    for (let k = 0; k < count; k++) if (k === 0 || distinct[k] !== distinct[d - 1]) distinct[d++] = distinct[k];
    ranks = d;
    for (let k = 0; k < count; k++) {
      const t = times[k];
      let lo = 0;
      let hi = d - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (distinct[mid] < t) lo = mid + 1;
        else hi = mid;
      }
      keyOf[k] = 2 * lo;
    }
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

  const head = count;
  const next = mem.i32(count + 1);
  const prev = mem.i32(count + 1);
  const sortedOp = mem.i32(count);
  const sortedIsCall = mem.u8(count);
  const sortedTime = mem.f64(count);
  const callEntry = mem.i32(n);
  const returnEntry = mem.i32(n).fill(-1);
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
  for (let k = 0; k < count; k++) {
    next[k] = k + 1 < count ? k + 1 : -1;
    prev[k] = k === 0 ? head : k - 1;
  }
  next[head] = count > 0 ? 0 : -1;
  prev[head] = -1;
  return { head, next, prev, op: sortedOp, isCall: sortedIsCall, time: sortedTime, callEntry, returnEntry, determinate };
}
