// The fingerprint tables against a JS Set, through many growths: the single-threaded
// store, and the shared table as the parallel search grows it (rehash into TableMemory).

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { FingerprintStore, growInPlace, MAX_LOAD, rehash, sharedAdd, TableMemory } from './store.ts';

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

  it('has() then add() (which takes the slot has() found empty) answers as a Set does, with other adds between them', () => {
    const store = new FingerprintStore(16);
    const seen = new Set<string>();
    const fp = new Int32Array(2);
    const none = new Int32Array(0);
    let wrong = 0;
    for (let i = 0; i < fps.length; i++) {
      const [h, l] = fps[i];
      fp[0] = h;
      fp[1] = l;
      const key = `${h},${l}`;
      if (store.has(none, 0, fp) !== seen.has(key)) wrong++;
      if (i % 3 === 0) {
        // Another fingerprint with the same home first (it may take the slot has() found).
        const [, l2] = fps[(i * 7) % fps.length];
        fp[1] = l2 ^ 0x55;
        if (store.add(none, 0, fp) === seen.has(`${h},${l2 ^ 0x55}`)) wrong++;
        seen.add(`${h},${l2 ^ 0x55}`);
        fp[1] = l;
      }
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

  it('growing in place keeps every fingerprint findable, also where clusters wrap past the end or sit far from home', () => {
    // Small tables filled to the load limit with high halves bunched at the top (clusters
    // that wrap to slot 0), at the bottom (entries pushed far above home) and spread.
    let x = 0x1234567;
    const rnd = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x;
    };
    const find = (t: Int32Array, cap: number, hi: number, lo: number) => {
      for (let i = Math.floor(((hi >>> 0) * cap) / 4294967296); t[2 * i] !== 0; i = i + 1 === cap ? 0 : i + 1) if (t[2 * i] === hi && t[2 * i + 1] === lo) return true;
      return false;
    };
    let wrong = 0;
    let cases = 0;
    for (const cap of [7, 16, 33, 100, 1000]) {
      for (const spread of [0x0fffffff, 0x00ffffff, 0xffffffff]) {
        for (const base of [0, 0xf0000000, 0x80000000]) {
          const to = Math.ceil(cap * 1.5);
          const t = new Int32Array(2 * to);
          const n = Math.floor(cap * MAX_LOAD);
          const fps: [number, number][] = [];
          for (let k = 0; k < n; k++) {
            const hi = ((base + ((rnd() >>> 0) % spread)) | 0) || 1;
            const lo = rnd() | 1;
            let i = Math.floor(((hi >>> 0) * cap) / 4294967296);
            while (t[2 * i] !== 0) i = i + 1 === cap ? 0 : i + 1;
            t[2 * i] = hi;
            t[2 * i + 1] = lo;
            fps.push([hi, lo]);
          }
          growInPlace(t, cap, to);
          cases++;
          let stored = 0;
          for (let i = 0; i < to; i++) if (t[2 * i] !== 0) stored++;
          if (stored !== n) wrong++;
          for (const [hi, lo] of fps) if (!find(t, to, hi, lo)) wrong++;
        }
      }
    }
    expect([cases, wrong]).toEqual([45, 0]);
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

/** A worker thread running fixtures/table-stress-worker.ts through tsx's loader. */
function stressWorker(): Worker {
  const tsxRoot = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const api = pathToFileURL(join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  const entry = new URL('./fixtures/table-stress-worker.ts', import.meta.url).href;
  return new Worker(`import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`, { eval: true, execArgv: [] });
}

// Each listener removes the other: the test waits on a worker 12 times, and listeners left
// behind pile up (Node warns past 10).
const next = (w: Worker) => new Promise<unknown>((resolve, reject) => {
  const onMessage = (m: unknown) => {
    w.off('error', onError);
    resolve(m);
  };
  const onError = (e: Error) => {
    w.off('message', onMessage);
    reject(e);
  };
  w.once('message', onMessage);
  w.once('error', onError);
});

describe('the shared table under concurrent inserts', () => {
  // Several threads insert the same ~150,000 fingerprints, in the same order, at the same
  // time: they race for the same empty slots. A thread whose compare-and-swap lost must
  // look at what the winner wrote, which may be its own fingerprint: skipping that look
  // inserts the fingerprint a second time further on (up to 9% too many states counted).
  it('counts every fingerprint exactly once, whichever thread inserted it', async () => {
    const unique = new Map(fingerprints(300_000, 200_000).map(([h, l]) => [`${h},${l}`, [h, l] as const]));
    const distinct = unique.size;
    const fps = new SharedArrayBuffer(8 * distinct);
    const f = new Int32Array(fps);
    let i = 0;
    for (const [h, l] of unique.values()) {
      f[i++] = h;
      f[i++] = l;
    }
    const threads = 4;
    const workers = Array.from({ length: threads }, stressWorker);
    const results: { round: number; inserted: number; stored: number }[] = [];
    try {
      for (let round = 0; round < 6; round++) {
        const capacity = Math.ceil(distinct / (round % 2 === 1 ? 0.74 : 0.5));
        const table = new SharedArrayBuffer(8 * capacity);
        const go = new SharedArrayBuffer(4);
        const ready = workers.map(next);
        for (const w of workers) w.postMessage({ table, capacity, fps, go });
        await Promise.all(ready);
        const counts = workers.map(next);
        Atomics.store(new Int32Array(go), 0, 1);
        Atomics.notify(new Int32Array(go), 0);
        const inserted = (await Promise.all(counts)) as number[];
        const t = new Int32Array(table);
        let stored = 0;
        for (let s = 0; s < t.length; s += 2) if (t[s] !== 0) stored++;
        results.push({ round, inserted: inserted.reduce((a, b) => a + b, 0), stored });
      }
      expect(results).toEqual(results.map(({ round }) => ({ round, inserted: distinct, stored: distinct })));
    } finally {
      await Promise.all(workers.map((w) => w.terminate()));
    }
  }, 60_000);
});
