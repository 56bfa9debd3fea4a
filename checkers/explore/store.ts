// Visited-state stores. Both map a state's encoding to "seen before?" and count distinct
// states; neither keeps JS objects or string keys.
// - FingerprintStore keeps only 64-bit fingerprints, in one Int32Array (grown in place) used as an
//   open-addressing table with linear probing (0 marks an empty slot). Two distinct
//   states may share a fingerprint and the second would be wrongly taken as seen: the
//   result reports the probability of that, as TLC does.
// - ExactStore keeps whole encodings in an arena and compares them word by word: no
//   collisions, more memory. Tests use it to validate the fingerprint store.

export interface StateStore {
  /** Adds the state with encoding words[0..n) and fingerprint fp; true when it is new. */
  add(words: Int32Array, n: number, fp: Int32Array): boolean;
  /** Whether the state is stored, without adding it. */
  has(words: Int32Array, n: number, fp: Int32Array): boolean;
  readonly size: number;
  /** Bytes allocated by the store. */
  bytes(): number;
}

/** The slot for fingerprint high half h in a table of `capacity` slots (any capacity). */
function home(h: number, capacity: number): number {
  const i = Math.floor(((h >>> 0) * capacity) / 4294967296);
  return i < capacity ? i : capacity - 1;
}

/**
 * Copies every fingerprint of table `from` into the empty table `to` of `capacity` slots,
 * with plain writes (one writer). The home slot grows with the fingerprint and linear
 * probing keeps each one near its home, so scanning `from` in order writes `to` almost in
 * order: the copy streams through memory rather than missing the cache at every insert.
 */
export function rehash(from: Int32Array, to: Int32Array, capacity: number): void {
  for (let j = 0; j < from.length; j += 2) {
    const hi = from[j];
    if (hi === 0) continue;
    let i = home(hi, capacity);
    while (to[2 * i] !== 0) i = i + 1 === capacity ? 0 : i + 1;
    to[2 * i] = hi;
    to[2 * i + 1] = from[j + 1];
  }
}

/** Address space reserved per table buffer: growing within it reuses the same mapping. */
const RESERVE_BYTES = 2 ** 32;

function growable(bytes: number): SharedArrayBuffer {
  const Sab = SharedArrayBuffer as unknown as new (bytes: number, options: { maxByteLength: number }) => SharedArrayBuffer;
  return new Sab(bytes, { maxByteLength: Math.max(bytes, RESERVE_BYTES) });
}

/**
 * The memory of a growing table: two growable buffers that it alternates between. Each
 * growth rehashes into the older one, cleared and grown in place, so only the part beyond
 * that buffer's last size is memory never touched before. In a virtual machine the first
 * touch of a page can cost more than the copy into it: a table that grows by 1.5 from a
 * small start touches about 3 times its final size in fresh pages when every growth
 * allocates anew, under 2 times this way. The spare holds no states (the table does); it
 * is as large as the table before the last growth, as the old table was during it.
 */
export class TableMemory {
  private current: SharedArrayBuffer;
  private spare: SharedArrayBuffer | undefined;

  constructor(bytes: number) {
    this.current = growable(bytes);
  }

  get buffer(): SharedArrayBuffer {
    return this.current;
  }

  /** A zeroed buffer of at least `bytes` for the next table, which becomes the current one. */
  next(bytes: number): SharedArrayBuffer {
    let b = this.spare;
    if (b === undefined || bytes > (b as unknown as { maxByteLength: number }).maxByteLength) {
      b = growable(bytes);
    } else {
      new Int32Array(b, 0, Math.min(b.byteLength, bytes) >> 2).fill(0);
      if (bytes > b.byteLength) (b as unknown as { grow(n: number): void }).grow(bytes);
    }
    this.spare = this.current;
    this.current = b;
    return b;
  }
}

export const MAX_LOAD = 0.75;
const GROWTH = 1.5;

/**
 * Grows a table of `from` slots, t[0 .. 2·from), to `to` slots in place (t is `to` slots
 * long, the slots past `from` empty): no second table, so the table's peak memory is its own
 * size rather than its size plus the old one's. A slot's new home is never below its old
 * one, so the slots are taken from the top down, each put back at or above where it was,
 * over slots already done: no entry is moved over one not yet moved, and the slots cleared
 * later all lie below every placed entry's home, so no probe path is broken. The entries that
 * cannot go that way (one whose new home lies below its slot, having been pushed far from
 * home; one whose probe would wrap past the end; those of the cluster at slot 0, which may
 * have wrapped there) are set aside and inserted last, into the finished table.
 */
export function growInPlace(t: Int32Array, from: number, to: number): void {
  const aside: number[] = [];
  let first = 0;
  for (; t[2 * first] !== 0; first++) {
    aside.push(t[2 * first], t[2 * first + 1]);
    t[2 * first] = 0;
    t[2 * first + 1] = 0;
  }
  for (let p = from - 1; p > first; p--) {
    const hi = t[2 * p];
    if (hi === 0) continue;
    const lo = t[2 * p + 1];
    t[2 * p] = 0;
    t[2 * p + 1] = 0;
    let i = home(hi, to);
    if (i >= p) while (i < to && t[2 * i] !== 0) i++;
    if (i < p || i === to) {
      aside.push(hi, lo);
      continue;
    }
    t[2 * i] = hi;
    t[2 * i + 1] = lo;
  }
  for (let k = 0; k < aside.length; k += 2) {
    let i = home(aside[k], to);
    while (t[2 * i] !== 0) i = i + 1 === to ? 0 : i + 1;
    t[2 * i] = aside[k];
    t[2 * i + 1] = aside[k + 1];
  }
}

export class FingerprintStore implements StateStore {
  private readonly buffer: SharedArrayBuffer;
  private table: Int32Array;
  private capacity: number;
  private limit: number;
  size = 0;

  /** Small at first (64 slots): the first search of a process (a small one, in `interleave check`) then runs its growth while this code is still interpreted, so V8's optimised search loop, which inlines it, has seen it: a first growth inside the optimised loop threw the loop's code away (fill, insertAll and insert each compiled again, minos README "Speed, tenth pass"); growing is amortised, 1.5x a time. */
  constructor(initialCapacity = 1 << 6) {
    this.capacity = initialCapacity;
    this.buffer = growable(8 * initialCapacity);
    this.table = new Int32Array(this.buffer, 0, 2 * initialCapacity);
    this.limit = Math.floor(initialCapacity * MAX_LOAD);
  }

  add(_words: Int32Array, _n: number, fp: Int32Array): boolean {
    return this.addFingerprint(fp[0], fp[1]);
  }

  /**
   * Where has() last found a fingerprint missing (its empty slot), until the next add: a
   * search asks has() and then adds the new state, which then takes that slot without a
   * second probe.
   */
  private missHi = 0;
  private missLo = 0;
  private missAt = -1;

  has(_words: Int32Array, _n: number, fp: Int32Array): boolean {
    const t = this.table;
    const cap = this.capacity;
    const hi = fp[0];
    const lo = fp[1];
    let i = home(hi, cap);
    for (; t[2 * i] !== 0; i = i + 1 === cap ? 0 : i + 1) {
      if (t[2 * i] === hi && t[2 * i + 1] === lo) return true;
    }
    this.missHi = hi;
    this.missLo = lo;
    this.missAt = i;
    return false;
  }

  /**
   * Reads the home slot of each of his[0..n) and returns a value made of them: a batch of
   * independent loads whose cache misses overlap, so that the inserts that follow hit cache.
   */
  touch(his: Int32Array, n: number): number {
    const t = this.table;
    const cap = this.capacity;
    let x = 0;
    for (let k = 0; k < n; k++) x ^= t[2 * home(his[k], cap)];
    return x;
  }

  addFingerprint(hi: number, lo: number): boolean {
    const t = this.table;
    const cap = this.capacity;
    let i = this.missAt;
    this.missAt = -1;
    if (i < 0 || hi !== this.missHi || lo !== this.missLo) {
      for (i = home(hi, cap); ; i = i + 1 === cap ? 0 : i + 1) {
        const j = 2 * i;
        const h = t[j];
        if (h === 0) break;
        if (h === hi && t[j + 1] === lo) return false;
      }
    }
    t[2 * i] = hi;
    t[2 * i + 1] = lo;
    if (++this.size > this.limit) this.grow();
    return true;
  }

  private grow(): void {
    const cap = Math.ceil(this.capacity * GROWTH);
    (this.buffer as unknown as { grow(n: number): void }).grow(8 * cap);
    const t = new Int32Array(this.buffer, 0, 2 * cap);
    growInPlace(t, this.capacity, cap);
    this.table = t;
    this.capacity = cap;
    this.limit = Math.floor(cap * MAX_LOAD);
  }

  bytes(): number {
    return this.table.byteLength;
  }
}

export class ExactStore implements StateStore {
  /** slot -> state number + 1 (0: empty) */
  private slots = new Int32Array(1 << 12);
  private his = new Int32Array(1 << 10);
  private los = new Int32Array(1 << 10);
  private starts = new Float64Array((1 << 10) + 1);
  private arena = new Int32Array(1 << 16);
  private used = 0;
  size = 0;

  add(words: Int32Array, n: number, fp: Int32Array): boolean {
    const hi = fp[0];
    const mask = this.slots.length - 1;
    let i = (hi ^ fp[1]) & mask;
    for (;;) {
      const id = this.slots[i] - 1;
      if (id < 0) break;
      if (this.his[id] === hi && this.equal(id, words, n)) return false;
      i = (i + 1) & mask;
    }
    const id = this.size++;
    if (id === this.his.length) {
      this.his = grow(this.his, 2 * id);
      this.los = grow(this.los, 2 * id);
      this.starts = grow(this.starts, 2 * id + 1);
    }
    if (this.used + n > this.arena.length) this.arena = grow(this.arena, 2 * (this.used + n));
    this.arena.set(words.subarray(0, n), this.used);
    this.his[id] = hi;
    this.los[id] = fp[1];
    this.starts[id] = this.used;
    this.used += n;
    this.starts[id + 1] = this.used;
    this.slots[i] = id + 1;
    if (this.size * 2 > this.slots.length) this.rehash();
    return true;
  }

  has(words: Int32Array, n: number, fp: Int32Array): boolean {
    const mask = this.slots.length - 1;
    for (let i = (fp[0] ^ fp[1]) & mask; this.slots[i] !== 0; i = (i + 1) & mask) {
      const id = this.slots[i] - 1;
      if (this.his[id] === fp[0] && this.equal(id, words, n)) return true;
    }
    return false;
  }

  private equal(id: number, words: Int32Array, n: number): boolean {
    const start = this.starts[id];
    if (this.starts[id + 1] - start !== n) return false;
    const a = this.arena;
    for (let k = 0; k < n; k++) if (a[start + k] !== words[k]) return false;
    return true;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 0; id < this.size; id++) {
      let i = (this.his[id] ^ this.los[id]) & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = id + 1;
    }
    this.slots = slots;
  }

  bytes(): number {
    return this.slots.byteLength + this.his.byteLength + this.los.byteLength + this.starts.byteLength + this.arena.byteLength;
  }
}

function grow<T extends Int32Array | Float64Array>(a: T, size: number): T {
  const b = (a instanceof Int32Array ? new Int32Array(size) : new Float64Array(size)) as T;
  b.set(a);
  return b;
}

/**
 * The probability that some two of n distinct states share a 64-bit fingerprint (so that
 * one of them was never checked), by the birthday bound n(n−1)/2^65 for uniform
 * fingerprints. TLC prints a smaller, "optimistic" figure, d·(g−d)/2^64 for d distinct and
 * g generated states; this one does not depend on how often states were regenerated.
 */
export function collisionProbability(distinct: number): number {
  return Math.min(1, (distinct * (distinct - 1)) / 2 ** 65);
}

/**
 * The fingerprint table shared by the workers of a parallel search: the layout of
 * FingerprintStore (hi, lo pairs; hi 0 = empty) in a SharedArrayBuffer. A slot is claimed
 * by a compare-and-swap on its high half; its low half is written next and is never 0, so
 * a reader that sees a claimed slot with low half 0 waits for the writer to finish.
 * Returns true when this call inserted the fingerprint.
 *
 * Slots are first read with plain loads: a slot only ever goes from empty to claimed to
 * complete, so a stale read is either 0 (and the compare-and-swap then sees the truth) or
 * the final value, and an aligned Int32Array read never tears. Plain loads matter for
 * speed: V8 serialises Atomics.load, so each probe would pay a whole memory latency,
 * while plain loads of a batch overlap (sharedTouch).
 */
export function sharedAdd(t: Int32Array, capacity: number, hi: number, lo: number): boolean {
  let i = home(hi, capacity);
  for (;;) {
    const j = 2 * i;
    let h = t[j];
    if (h === 0) {
      h = Atomics.compareExchange(t, j, 0, hi);
      if (h === 0) {
        Atomics.store(t, j + 1, lo);
        return true;
      }
    }
    if (h === hi) {
      let l = t[j + 1];
      while (l === 0) l = Atomics.load(t, j + 1);
      if (l === lo) return false;
    }
    i = i + 1 === capacity ? 0 : i + 1;
  }
}

/** FingerprintStore.touch for the shared table. */
export function sharedTouch(t: Int32Array, capacity: number, his: Int32Array, n: number): number {
  let x = 0;
  for (let k = 0; k < n; k++) x ^= t[2 * home(his[k], capacity)];
  return x;
}
