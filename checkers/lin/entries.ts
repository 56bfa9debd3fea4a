// The history as WGL walks it (Lowe 2017, §3; Horn & Kroening 2015, §4): call and return
// entries sorted by time, calls before returns at equal times because intervals are
// closed, threaded on a doubly linked list held in typed arrays. An indeterminate
// operation has a call entry and no return entry: nothing forces it to be linearized.

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
  /** For operation i: its call entry and its return entry (-1: indeterminate). */
  callEntry: Int32Array;
  returnEntry: Int32Array;
  /** Number of operations with a return (they must all be linearized). */
  determinate: number;
}

export function buildEntries(ops: readonly Operation[]): EntryList {
  const n = ops.length;
  let determinate = 0;
  for (const o of ops) if (o.ret !== undefined) determinate++;
  const count = n + determinate;
  const time = new Float64Array(count);
  const op = new Int32Array(count);
  const isCall = new Uint8Array(count);
  let e = 0;
  for (let i = 0; i < n; i++) {
    time[e] = ops[i].call;
    op[e] = i;
    isCall[e] = 1;
    e++;
    const ret = ops[i].ret;
    if (ret !== undefined) {
      time[e] = ret;
      op[e] = i;
      e++;
    }
  }
  const order = Array.from({ length: count }, (_, k) => k);
  order.sort((a, b) => time[a] - time[b] || isCall[b] - isCall[a] || op[a] - op[b]);

  const head = count;
  const next = new Int32Array(count + 1);
  const prev = new Int32Array(count + 1);
  const sortedOp = new Int32Array(count);
  const sortedIsCall = new Uint8Array(count);
  const callEntry = new Int32Array(n);
  const returnEntry = new Int32Array(n).fill(-1);
  for (let k = 0; k < count; k++) {
    const src = order[k];
    sortedOp[k] = op[src];
    sortedIsCall[k] = isCall[src];
    if (isCall[src]) callEntry[op[src]] = k;
    else returnEntry[op[src]] = k;
    next[k] = k + 1 < count ? k + 1 : -1;
    prev[k] = k === 0 ? head : k - 1;
  }
  next[head] = count > 0 ? 0 : -1;
  prev[head] = -1;
  return { head, next, prev, op: sortedOp, isCall: sortedIsCall, callEntry, returnEntry, determinate };
}
