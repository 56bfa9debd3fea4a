// The heap a search may fill: a watch of its thread's V8 heap, polled by wgl.ts, and the
// full collection it forces before judging it. May import nothing of the searches.

import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * The V8 heap a search may fill (node's --max-old-space-size; a worker thread has a heap
 * of its own, with the same limit or its resourceLimits). The memo's budget counts what a
 * search keeps, roughly (ownBytes); this bounds what the whole thread holds, whatever the
 * model's states, the partitions searched side by side (check.ts Rounds) and a
 * partition's second search, so that the search ends unknown (MemoFull 'heap') instead of
 * V8 aborting the process (issue 21 lin-mem: a queue of 300 operations on 16 clients, its
 * memo at 256 MB counted, reached node's 512 MB).
 *
 * Shares of what was left when the search started (the old generation less the heap then
 * in use), not of the whole: the caller's own data (the explorer checks inside its own
 * large heap) is not the search's to give up for. Past GC_AT of that room in use (garbage
 * too), a full collection; past LIVE_MAX of it still in use after that, the search ends.
 * The gap between the two is the garbage made between two forced collections, so that a
 * search holding just under LIVE_MAX does not collect at every poll. Neither bound goes
 * past NEAR_GC / NEAR_LIVE of the whole old generation: the heap in use at the start
 * counts garbage too, and a search needs some room to end in. Whether a check ends so
 * depends on what the heap holds when it is polled (wgl.ts, every 1,024 iterations): it
 * may end a check unknown that a larger heap decides, never change a verdict.
 */
const GC_AT = 0.7;
const LIVE_MAX = 0.6;
const NEAR_GC = 0.9;
const NEAR_LIVE = 0.85;

/**
 * The young generation's share of heap_size_limit with node's default semi-spaces (3 x 16
 * MB; heap_size_limit is the old generation's limit plus it: 248 MB under
 * --max-old-space-size=200). The used heap counts both, and V8 gives up when the old one is
 * full: on a small heap (a worker's resourceLimits of 96 MB) shares of heap_size_limit let
 * the old generation fill before the watch collects.
 */
const YOUNG_BYTES = 48 * 2 ** 20;

/** This thread's old generation limit, as far as it can be told (YOUNG_BYTES). */
export function heapLimit(heapSizeLimit = getHeapStatistics().heap_size_limit): number {
  return heapSizeLimit > 2 * YOUNG_BYTES ? heapSizeLimit - YOUNG_BYTES : heapSizeLimit / 2;
}

/** One search's watch of its thread's heap, its bounds set from the heap in use when it was made (above). */
export class HeapWatch {
  private readonly gcAt: number;
  private readonly liveMax: number;

  constructor(stats = getHeapStatistics()) {
    const old = heapLimit(stats.heap_size_limit);
    const inUse = Math.min(stats.used_heap_size, old);
    this.gcAt = Math.min(inUse + GC_AT * (old - inUse), NEAR_GC * old);
    this.liveMax = Math.floor(Math.min(inUse + LIVE_MAX * (old - inUse), NEAR_LIVE * old));
  }

  /** The bound, in bytes, when the heap holds more than it after a full collection (the search then ends: MemoFull 'heap'). */
  full(): number | undefined {
    if (getHeapStatistics().used_heap_size <= this.gcAt) return undefined;
    collectGarbage();
    return getHeapStatistics().used_heap_size > this.liveMax ? this.liveMax : undefined;
  }
}

/** The full collection (collectGarbage); null: none to be had, the used heap is judged as it is. */
let gc: (() => void) | null | undefined;

/**
 * A full collection: the used heap counts the garbage not yet collected, up to the next
 * major collection, which near the limit V8 may put off to twice the live heap. Node's gc
 * function if it was exposed (--expose-gc, or --expose-gc-as=<name>: node's flags and
 * NODE_OPTIONS name it), else one taken from a context made with the flag on, which is
 * turned off again at once unless the user had it on (contexts made later get no `gc`
 * global then). Whatever fails here, there is no forced collection: the watch never fails
 * a search for it (a model error on some operation).
 */
export function collectGarbage(): void {
  if (gc === undefined) gc = findGc();
  if (gc !== null) {
    try {
      gc();
    } catch {
      gc = null;
    }
  }
}

function findGc(): (() => void) | null {
  try {
    const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
    const as = flags.find((f) => f.startsWith('--expose-gc-as='));
    const name = as === undefined ? 'gc' : as.slice('--expose-gc-as='.length);
    const exposed = (globalThis as Record<string, unknown>)[name];
    if (typeof exposed === 'function') return exposed as () => void;
    const on = as !== undefined || flags.includes('--expose-gc') || flags.includes('--expose_gc');
    if (!on) setFlagsFromString('--expose-gc');
    try {
      // The context's global of that name, if the flag made one (no ReferenceError either way).
      const made = runInNewContext(`typeof globalThis[${JSON.stringify(name)}] === 'function' ? globalThis[${JSON.stringify(name)}] : undefined`);
      return typeof made === 'function' ? (made as () => void) : null;
    } finally {
      if (!on) setFlagsFromString('--no-expose-gc');
    }
  } catch {
    return null;
  }
}
