// The fingerprint tables against a JS Set, through many growths: the single-threaded
// store, and the shared table as the parallel search grows it (rehash into TableMemory).

import { describe, expect, it } from 'vitest';
import { FingerprintStore, MAX_LOAD, rehash, sharedAdd, TableMemory } from './store.ts';

/** Fingerprints with repeats: hi never 0 (0 marks an empty slot), lo never 0 (a slot being written). */
function fingerprints(n: number, distinct: number): [number, number][] {
  let x = 0x2545f491;
  const rnd = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x;
  };
  const pool = Array.from({ length: distinct }, (): [number, number] => [rnd() | 1, rnd() | 1]);
  return Array.from({ length: n }, () => pool[(rnd() >>> 0) % distinct]);
}

describe('fingerprint tables', () => {
  const fps = fingerprints(60_000, 20_000);
  const absent = fingerprints(2_000, 2_000).map(([h, l]): [number, number] => [h ^ 0x40000000, l]);

  it('the store answers as a Set does, across growths that reuse their memory', () => {
    const store = new FingerprintStore(16);
    const seen = new Set<string>();
    const fp = new Int32Array(2);
    const none = new Int32Array(0);
    let wrong = 0;
    for (const [h, l] of fps) {
      fp[0] = h;
      fp[1] = l;
      const key = `${h},${l}`;
      if (store.add(none, 0, fp) === seen.has(key)) wrong++;
      seen.add(key);
    }
    for (const [h, l] of [...fps, ...absent]) {
      fp[0] = h;
      fp[1] = l;
      if (store.has(none, 0, fp) !== seen.has(`${h},${l}`)) wrong++;
    }
    expect(wrong).toBe(0);
    expect(store.size).toBe(seen.size);
    expect(seen.size).toBeGreaterThan(15_000);
  });

  it('the shared table, grown as the parallel search grows it, answers as a Set does', () => {
    let capacity = 16;
    const memory = new TableMemory(8 * capacity);
    let table = new Int32Array(memory.buffer, 0, 2 * capacity);
    const seen = new Set<string>();
    let wrong = 0;
    let growths = 0;
    for (const [h, l] of [...fps, ...absent]) {
      const key = `${h},${l}`;
      if (sharedAdd(table, capacity, h, l) === seen.has(key)) wrong++;
      seen.add(key);
      if (seen.size > capacity * MAX_LOAD) {
        const bigger = Math.ceil(capacity * 1.4);
        const next = new Int32Array(memory.next(8 * bigger), 0, 2 * bigger);
        rehash(table, next, bigger);
        table = next;
        capacity = bigger;
        growths++;
      }
    }
    for (const [h, l] of [...fps, ...absent]) if (sharedAdd(table, capacity, h, l)) wrong++;
    expect(wrong).toBe(0);
    expect(growths).toBeGreaterThan(10);
  });

  it('TableMemory hands out zeroed memory, also when it reuses a buffer', () => {
    const memory = new TableMemory(64);
    for (const bytes of [64, 128, 96, 256, 512]) {
      const b = new Int32Array(memory.next(bytes), 0, bytes >> 2);
      expect(b.every((w) => w === 0)).toBe(true);
      b.fill(-1);
    }
  });
});
