import { describe, expect, it } from 'vitest';
import { Slab } from './slab.ts';

describe('Slab', () => {
  it('hands out disjoint zeroed arrays, also from a buffer another slab released', () => {
    const a = new Slab(256);
    const x = a.i32(10).fill(-1);
    const y = a.f64(3).fill(2.5);
    const z = a.u8(7).fill(9);
    expect(Array.from(x)).toEqual(new Array(10).fill(-1));
    expect(Array.from(y)).toEqual([2.5, 2.5, 2.5]);
    expect(y.byteOffset % 8).toBe(0);
    a.release();
    // The next slab may get the same buffer: it must read as fresh memory.
    const b = new Slab(256);
    const arrays = [b.i32(10), b.f64(3), b.u8(7), b.u32(40)];
    for (const arr of arrays) expect(Array.from(arr).every((v) => v === 0)).toBe(true);
    // Past its first buffer a slab allocates another.
    const big = b.u32(1000);
    expect(big.length).toBe(1000);
    expect(big.every((v) => v === 0)).toBe(true);
    // The first slab's arrays are no longer its owner's to use; the new ones are independent.
    arrays[0][0] = 5;
    expect(z.length).toBe(7);
  });
});
