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

/** Thrown when the memo would outgrow its byte budget. */
export class MemoFull extends Error {
  constructor(readonly limitBytes: number) {
    super(`the search's memo reached its limit of ${Math.round(limitBytes / 2 ** 20)} MB`);
  }
}

/** Bytes counted per state kept (the reference and, roughly, a small state object). */
const STATE_BYTES = 16;

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
  /**
   * The most entries the budget holds with the tables as they are (bytes() + STATE_BYTES
   * <= limitBytes while size <= this), recomputed when a table grows: the check per entry
   * is a comparison, not a sum over the tables (a call per configuration on a first check).
   */
  private sizeMax = Infinity;

  constructor(
    /** Words of the determinate part of a set; the indeterminate part follows it. */
    private readonly detWords: number,
    private readonly totalWords: number,
    private readonly equal: (a: S, b: S) => boolean,
    /** Budget for the typed arrays and the states (STATE_BYTES each); past it, `more`, then MemoFull. */
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
    this.sizeMax = (this.limitBytes - (this.bytes() - this.size * STATE_BYTES) - STATE_BYTES) / STATE_BYTES;
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
    if (this.size > this.sizeMax && !(this.raised() && this.size <= this.sizeMax)) throw new MemoFull(this.limitBytes);
    const arena = this.arena;
    let at = this.used;
    this.offsets[id] = at;
    arena[at++] = low;
    arena[at++] = length;
    for (let w = low; w < low + detLength; w++) arena[at++] = bitset[w];
    for (let w = this.detWords; w < this.totalWords; w++) arena[at++] = bitset[w];
    this.used = at;
    this.states.push(state);
    this.size++;
    slotKey[slot] = key;
    slotId[slot] = id + 1;
    if (this.size * 2 > slotId.length) this.rehash();
    return true;
  }

  /** Bytes held: the arena, the slots, the offsets and (roughly) the states. */
  bytes(): number {
    return this.arena.length * 4 + this.slotId.length * 8 + this.offsets.length * 4 + this.size * STATE_BYTES;
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
