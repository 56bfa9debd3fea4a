// A map from a pair of int32 to a non-negative int32, open addressing over typed arrays:
// no boxed numbers and no per-entry objects, for tables that grow to millions of entries.

import { fmix32 } from './hash.ts';

export class IntPairMap {
  private a = new Int32Array(1024);
  private b = new Int32Array(1024);
  private v = new Int32Array(1024).fill(-1);
  private mask = 1023;
  size = 0;

  /** The value at (a, b), or -1. */
  get(a: number, b: number): number {
    const mask = this.mask;
    let slot = fmix32(Math.imul(a, 0x9e3779b1) ^ b) & mask;
    for (;;) {
      const v = this.v[slot];
      if (v === -1 || (this.a[slot] === a && this.b[slot] === b)) return v;
      slot = (slot + 1) & mask;
    }
  }

  /** Sets (a, b) to v >= 0; (a, b) must not be in the map. */
  add(a: number, b: number, v: number): void {
    if ((this.size + 1) * 2 > this.v.length) this.grow();
    this.size++;
    this.place(a, b, v);
  }

  /** Sets (a, b), present in the map, to v >= 0. */
  set(a: number, b: number, v: number): void {
    const mask = this.mask;
    let slot = fmix32(Math.imul(a, 0x9e3779b1) ^ b) & mask;
    while (this.a[slot] !== a || this.b[slot] !== b || this.v[slot] === -1) slot = (slot + 1) & mask;
    this.v[slot] = v;
  }

  private place(a: number, b: number, v: number): void {
    const mask = this.mask;
    let slot = fmix32(Math.imul(a, 0x9e3779b1) ^ b) & mask;
    while (this.v[slot] !== -1) slot = (slot + 1) & mask;
    this.a[slot] = a;
    this.b[slot] = b;
    this.v[slot] = v;
  }

  private grow(): void {
    const { a, b, v } = this;
    const capacity = v.length * 2;
    this.a = new Int32Array(capacity);
    this.b = new Int32Array(capacity);
    this.v = new Int32Array(capacity).fill(-1);
    this.mask = capacity - 1;
    for (let i = 0; i < v.length; i++) if (v[i] !== -1) this.place(a[i], b[i], v[i]);
  }
}
