// The memo of WGL (Lowe's refinement): configurations (set of linearized operations,
// model state) already explored. A configuration is a bitset in Uint32Array words plus a
// model state; its key is the bitset's hash XOR the state's hash. Entries live in flat
// typed arrays, indexed by an open-addressing table with linear probing: no string keys,
// no per-entry objects besides the states themselves.

export class Memo<S> {
  private readonly words: number;
  private table: Int32Array; // entry id + 1, 0 = empty
  private mask: number;
  private keys: Int32Array;
  private bits: Uint32Array;
  private readonly states: S[] = [];
  size = 0;

  constructor(
    words: number,
    private readonly equal: (a: S, b: S) => boolean,
  ) {
    this.words = words;
    this.table = new Int32Array(1 << 12);
    this.mask = this.table.length - 1;
    this.keys = new Int32Array(1 << 11);
    this.bits = new Uint32Array((1 << 11) * Math.max(1, words));
  }

  /**
   * Adds (bitset, state) under `key` unless an equal configuration is already there.
   * Returns true when it was added (the configuration is new).
   */
  add(key: number, bitset: Uint32Array, state: S): boolean {
    const words = this.words;
    const table = this.table;
    const mask = this.mask;
    let slot = key & mask;
    for (;;) {
      const e = table[slot];
      if (e === 0) break;
      const id = e - 1;
      if (this.keys[id] === key) {
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
    if (id >= this.keys.length) this.growEntries();
    this.keys[id] = key;
    this.bits.set(bitset, id * words);
    this.states.push(state);
    table[slot] = id + 1;
    if (this.size * 2 > table.length) this.growTable();
    return true;
  }

  private growEntries(): void {
    const keys = new Int32Array(this.keys.length * 2);
    keys.set(this.keys);
    this.keys = keys;
    const bits = new Uint32Array(this.bits.length * 2);
    bits.set(this.bits);
    this.bits = bits;
  }

  private growTable(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let id = 0; id < this.size; id++) {
      let slot = this.keys[id] & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = id + 1;
    }
    this.table = table;
    this.mask = mask;
  }
}
