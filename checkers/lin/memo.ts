// The memo of WGL (Lowe's refinement): configurations (set of linearized operations,
// model state) already explored. A configuration is a bitset in Uint32Array words plus a
// model state; its key is the bitset's hash XOR the state's hash. Entries live in flat
// typed arrays, indexed by an open-addressing table with linear probing: no string keys,
// no per-entry objects besides the states themselves.

/** Thrown when the memo would outgrow its byte budget. */
export class MemoFull extends Error {
  constructor(readonly limitBytes: number) {
    super(`the search's memo reached its limit of ${Math.round(limitBytes / 2 ** 20)} MB`);
  }
}

export class Memo<S> {
  private readonly words: number;
  /** Per slot: the entry's key, and its id + 1 (0: empty). Keys in the slots spare a
   *  look at the entry for most mismatches. */
  private slotKey: Int32Array;
  private slotId: Int32Array;
  private mask: number;
  private bits: Uint32Array;
  private readonly states: S[] = [];
  size = 0;

  constructor(
    words: number,
    private readonly equal: (a: S, b: S) => boolean,
    /** Budget for the typed arrays (bitsets and slots); states are counted 16 bytes each. */
    private readonly limitBytes = Infinity,
  ) {
    this.words = words;
    this.slotKey = new Int32Array(1 << 12);
    this.slotId = new Int32Array(1 << 12);
    this.mask = (1 << 12) - 1;
    this.bits = new Uint32Array((1 << 11) * Math.max(1, words));
  }

  /**
   * Adds (bitset, state) under `key` unless an equal configuration is already there.
   * Returns true when it was added (the configuration is new).
   */
  add(key: number, bitset: Uint32Array, state: S): boolean {
    const words = this.words;
    const slotKey = this.slotKey;
    const slotId = this.slotId;
    const mask = this.mask;
    let slot = key & mask;
    for (;;) {
      const e = slotId[slot];
      if (e === 0) break;
      if (slotKey[slot] === key) {
        const id = e - 1;
        const bits = this.bits;
        const base = id * words;
        let same = true;
        for (let w = 0; w < words; w++) {
          if (bits[base + w] !== bitset[w]) {
            same = false;
            break;
          }
        }
        if (same && this.equal(this.states[id], state)) return false;
      }
      slot = (slot + 1) & mask;
    }
    const id = this.size++;
    if ((id + 1) * words > this.bits.length) {
      if (this.bytes() + this.bits.length * 4 > this.limitBytes) throw new MemoFull(this.limitBytes);
      const bits = new Uint32Array(this.bits.length * 2);
      bits.set(this.bits);
      this.bits = bits;
    }
    this.bits.set(bitset, id * words);
    this.states.push(state);
    slotKey[slot] = key;
    slotId[slot] = id + 1;
    if (this.size * 2 > slotId.length) this.grow();
    return true;
  }

  /** Bytes held: bitsets, slots and (roughly) the states array. */
  bytes(): number {
    return this.bits.length * 4 + this.slotId.length * 8 + this.size * 16;
  }

  private grow(): void {
    if (this.bytes() + this.slotId.length * 8 > this.limitBytes) throw new MemoFull(this.limitBytes);
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
  }
}
