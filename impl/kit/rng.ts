// A small seeded generator (sfc32), so that a run's workload and fault schedule follow
// from its seed. Streams are derived by label: adding a consumer does not shift others.

function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(readonly seed: string | number) {
    const s = String(seed);
    this.a = hash32(`a${s}`);
    this.b = hash32(`b${s}`);
    this.c = hash32(`c${s}`);
    this.d = 1;
    for (let i = 0; i < 15; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 0x1_0000_0000;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform in [lo, hi). */
  range(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }

  /** An independent stream for one consumer. */
  fork(label: string): Rng {
    return new Rng(`${String(this.seed)}/${label}`);
  }
}

/** FNV-1a of a string: the fixed hash placement uses (a key's primary). */
export function fnv1a(s: string): number {
  return hash32(s);
}
