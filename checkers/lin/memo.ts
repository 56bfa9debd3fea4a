// The memo of WGL (Lowe's refinement): configurations (set of linearized operations,
// model state) already explored. Its key is the set's hash XOR the state's hash; a hit
// compares the sets exactly and then the states with the model's `equal`, so a hash
// collision costs time, never a verdict.
//
// A set is stored compactly and canonically (wgl.ts numbers determinate operations in
// call order, then indeterminate ones): the determinate part without its leading words
// that are all ones (everything called long ago is linearized) and its trailing words
// that are all zeros (nothing called later is), then the indeterminate part whole. In a
// history of n operations with c clients an entry takes a few words instead of n/32:
// memory grows with the configurations, not with configurations times history length.
// Entries live in one growable arena of words, indexed by an open-addressing table with
// linear probing: no string keys, no per-entry objects besides the states themselves.

import { heapLimit } from './heap.ts';

/**
 * Thrown when a search reaches a memory bound: its memo's byte budget (`memo`: the
 * partition's budget, CheckOptions.memoLimitMB), or the heap its thread may fill (`heap`:
 * heap.ts HeapWatch). The search ends unknown, reason 'memory', naming it.
 */
export class MemoFull extends Error {
  constructor(
    readonly limitBytes: number,
    readonly of: 'memo' | 'heap' = 'memo',
  ) {
    super(
      of === 'memo'
        ? `the search's memo reached its limit of ${mb(limitBytes)} MB`
        : `the heap held more than ${mb(limitBytes)} MB after a full collection (node's old generation: ${mb(heapLimit())} MB)`,
    );
  }
}

function mb(bytes: number): number {
  return Math.round(bytes / 2 ** 20);
}

/** Bytes counted per state kept besides its own (ownBytes): its slot in the states array, which grows by doubling. */
const STATE_BYTES = 16;

/**
 * A state's own size is measured on every SAMPLE_EVERY-th entry and stands for the states
 * added until the next: ownBytes walks the state's fields, too much for every entry on a
 * search's hot path, and a search's consecutive states are alike.
 */
const SAMPLE_EVERY = 16;

/**
 * Bytes a state holds of its own, roughly (V8 on 64 bits, no pointer compression): an
 * object's header and fields, and the slots of the arrays (and the bytes of the typed
 * arrays) it holds directly, an array at 12 bytes a slot (one grown by push keeps spare
 * capacity: a queue's `slice(); push()` keeps 1.5x). Not what it may share with other
 * states (an object it points to: a kv value's parent, a set's table of members), nor
 * strings (the history's own, or pieces of them). A queue's items were what the memo left
 * uncounted (issue 21 lin-mem: 442 bytes an entry on the heap against 16 counted); a
 * primitive state (a register's) adds nothing.
 */
function ownBytes(state: unknown): number {
  if (typeof state !== 'object' || state === null) return 0;
  if (Array.isArray(state)) return arrayBytes(state.length);
  if (ArrayBuffer.isView(state)) return 64 + state.byteLength;
  let bytes = 24;
  for (const key in state) {
    const value = (state as Record<string, unknown>)[key];
    bytes += 8;
    if (Array.isArray(value)) bytes += arrayBytes(value.length);
    else if (ArrayBuffer.isView(value)) bytes += 64 + value.byteLength;
  }
  return bytes;
}

function arrayBytes(length: number): number {
  return 48 + 12 * length;
}

export class Memo<S> {
  /** Per slot: the entry's key, and its id + 1 (0: empty). Keys in the slots spare a
   *  look at the entry for most mismatches. */
  private slotKey: Int32Array;
  private slotId: Int32Array;
  private mask: number;
  /** Entries: [low, length, ...words]; `offsets[id]` is where entry id starts. */
  private arena: Uint32Array;
  private used = 0;
  private offsets: Int32Array;
  private readonly states: S[] = [];
  size = 0;
  /** Bytes counted for the states kept: STATE_BYTES and the last sample's ownBytes each. */
  private statesBytes = 0;
  /** What the next state counts (STATE_BYTES + ownBytes of the last state sampled). */
  private perState = STATE_BYTES;
  /**
   * The most statesBytes the budget holds with the tables as they are, recomputed when a
   * table grows: the check per entry is a comparison, not a sum over the tables (a call per
   * configuration on a first check).
   */
  private statesMax = Infinity;

  constructor(
    /** Words of the determinate part of a set; the indeterminate part follows it. */
    private readonly detWords: number,
    private readonly totalWords: number,
    private readonly equal: (a: S, b: S) => boolean,
    /** Budget for the typed arrays and the states (STATE_BYTES and ownBytes each); past it, `more`, then MemoFull. */
    private limitBytes = Infinity,
    /** A hint of the entries to expect, to size the first tables. */
    expected = 1024,
    /**
     * Asked when the budget is reached: a larger one to go on with, if any (check.ts: the
     * first search of a partition takes back what its second search held, dropping it).
     */
    public more?: () => number | undefined,
  ) {
    const slots = Math.min(1 << 12, Math.max(16, nextPow2(expected * 2)));
    this.slotKey = new Int32Array(slots);
    this.slotId = new Int32Array(slots);
    this.mask = slots - 1;
    this.offsets = new Int32Array(slots >>> 1);
    this.arena = new Uint32Array(Math.max(64, (slots >>> 1) * (4 + totalWords - detWords)));
    this.budget();
  }

  private budget(): void {
    this.statesMax = this.limitBytes - this.tablesBytes();
  }

  /** A new budget (check.ts: what the partition's other search leaves); below what is held, the next entry is refused. */
  limit(bytes: number): void {
    this.limitBytes = bytes;
    this.budget();
  }

  /** Whether `more` raised the budget, once it was reached. */
  private raised(): boolean {
    const bytes = this.more?.();
    if (bytes === undefined || bytes <= this.limitBytes) return false;
    this.limit(bytes);
    return true;
  }

  /**
   * Adds (set, state) under `key` unless an equal configuration is already there; the set
   * is `bitset`'s determinate words low..high (the others all ones below low, all zeros
   * above high) and its indeterminate words. Returns true when it was added (new).
   */
  add(key: number, bitset: Uint32Array, low: number, high: number, state: S): boolean {
    const detLength = high >= low ? high - low + 1 : 0;
    const length = detLength + this.totalWords - this.detWords;
    const slotKey = this.slotKey;
    const slotId = this.slotId;
    const mask = this.mask;
    let slot = key & mask;
    for (;;) {
      const e = slotId[slot];
      if (e === 0) break;
      if (slotKey[slot] === key) {
        const id = e - 1;
        const arena = this.arena;
        let at = this.offsets[id];
        if (arena[at] === low && arena[at + 1] === length) {
          at += 2;
          let same = true;
          for (let w = low; w < low + detLength; w++) {
            if (arena[at++] !== bitset[w]) {
              same = false;
              break;
            }
          }
          for (let w = this.detWords; same && w < this.totalWords; w++) {
            if (arena[at++] !== bitset[w]) same = false;
          }
          if (same && this.equal(this.states[id], state)) return false;
        }
      }
      slot = (slot + 1) & mask;
    }
    const id = this.size;
    if (id === this.offsets.length) {
      this.offsets = this.grown(this.offsets, this.offsets.length * 2) as Int32Array;
      this.budget();
    }
    if (this.used + length + 2 > this.arena.length) {
      this.arena = this.grown(this.arena, Math.max(this.arena.length * 2, this.used + length + 2)) as Uint32Array;
      this.budget();
    }
    if ((id & (SAMPLE_EVERY - 1)) === 0) this.perState = STATE_BYTES + ownBytes(state);
    const statesBytes = this.statesBytes + this.perState;
    if (statesBytes > this.statesMax && !(this.raised() && statesBytes <= this.statesMax)) throw new MemoFull(this.limitBytes);
    const arena = this.arena;
    let at = this.used;
    this.offsets[id] = at;
    arena[at++] = low;
    arena[at++] = length;
    for (let w = low; w < low + detLength; w++) arena[at++] = bitset[w];
    for (let w = this.detWords; w < this.totalWords; w++) arena[at++] = bitset[w];
    this.used = at;
    this.states.push(state);
    this.statesBytes = statesBytes;
    this.size++;
    slotKey[slot] = key;
    slotId[slot] = id + 1;
    if (this.size * 2 > slotId.length) this.rehash();
    return true;
  }

  /** Bytes held: the arena, the slots, the offsets and (roughly) the states. */
  bytes(): number {
    return this.tablesBytes() + this.statesBytes;
  }

  private tablesBytes(): number {
    return this.arena.length * 4 + this.slotId.length * 8 + this.offsets.length * 4;
  }

  private grown(a: Int32Array | Uint32Array, length: number): Int32Array | Uint32Array {
    const extra = (length - a.length) * 4;
    if (this.bytes() + extra > this.limitBytes && !(this.raised() && this.bytes() + extra <= this.limitBytes)) throw new MemoFull(this.limitBytes);
    const b = a instanceof Int32Array ? new Int32Array(length) : new Uint32Array(length);
    b.set(a);
    return b;
  }

  private rehash(): void {
    const extra = this.slotId.length * 8;
    if (this.bytes() + extra > this.limitBytes && !(this.raised() && this.bytes() + extra <= this.limitBytes)) throw new MemoFull(this.limitBytes);
    const oldKey = this.slotKey;
    const oldId = this.slotId;
    const capacity = oldId.length * 2;
    const slotKey = new Int32Array(capacity);
    const slotId = new Int32Array(capacity);
    const mask = capacity - 1;
    for (let s = 0; s < oldId.length; s++) {
      if (oldId[s] === 0) continue;
      let slot = oldKey[s] & mask;
      while (slotId[slot] !== 0) slot = (slot + 1) & mask;
      slotKey[slot] = oldKey[s];
      slotId[slot] = oldId[s];
    }
    this.slotKey = slotKey;
    this.slotId = slotId;
    this.mask = mask;
    this.budget();
  }
}

function nextPow2(x: number): number {
  let p = 1;
  while (p < x) p <<= 1;
  return p;
}
