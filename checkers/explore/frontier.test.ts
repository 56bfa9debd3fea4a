// Packed states (encode.ts's packState, pack and unpack; frontier.ts): what the breadth-first
// search queues is rebuilt exactly, and what it hashes and stores is canonical — the same
// words exactly when encodeValue gives the same words. Fixed seeds: the same cases always.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeValue, NOT_CANONICAL, NOT_UNPACKABLE, pack, packState, unpack, unpacked, Words } from './encode.ts';
import { Frontier } from './frontier.ts';
import { exploreSync } from './index.ts';
import { referenceBfs } from './reference.ts';
import type { Action, Machine } from './types.ts';

/** Everything a value is, in order: keys and Map and Set entries as inserted, prototypes, -0, NaN. */
function exactly(v: unknown): unknown {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : Number.isNaN(v) ? 'NaN' : v;
  if (typeof v === 'bigint') return `${v}n`;
  if (v === undefined) return '<undefined>';
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return ['array', Object.getPrototypeOf(v) === Array.prototype, v.length, Object.keys(v).map((k) => [k, exactly(v[Number(k)])])];
  if (v instanceof Map) return ['map', [...v].map(([k, x]) => [exactly(k), exactly(x)])];
  if (v instanceof Set) return ['set', [...v].map(exactly)];
  const proto = Object.getPrototypeOf(v);
  return ['object', proto === null ? 'null' : proto === Object.prototype ? 'Object' : 'other', Object.keys(v).map((k) => [k, exactly((v as Record<string, unknown>)[k])])];
}

const longString = 'x'.repeat(70);
const key = fc.constantFrom('a', 'b', 'c', 'ab', '__proto__', '0', '10', 'constructor');

/** Values pack must rebuild: plain objects (Object's prototype or null), arrays, Maps, Sets, every primitive. */
const { packable } = fc.letrec<{ packable: unknown }>((tie) => ({
  packable: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, undefined, true, false, 0, -0, 1, -1, 2 ** 28, -(2 ** 28), 2 ** 28 - 1, -(2 ** 28) - 1, 2 ** 31, 0.5, Number.NaN, -Infinity, '', 'a', 'ab', 'é\u{1F600}', longString, 1n, -(2n ** 70n)),
    fc.array(tie('packable'), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie('packable')), { maxLength: 3 }).map((entries) => {
      const o: Record<string, unknown> = {};
      for (const [k, x] of entries) Object.defineProperty(o, k, { value: x, writable: true, enumerable: true, configurable: true });
      return o;
    }),
    fc.array(fc.tuple(key, tie('packable')), { maxLength: 3 }).map((entries) => {
      const o: Record<string, unknown> = Object.create(null);
      for (const [k, x] of entries) o[k] = x;
      return o;
    }),
    fc.array(fc.tuple(tie('packable'), tie('packable')), { maxLength: 3 }).map((entries) => new Map(entries)),
    fc.array(tie('packable'), { maxLength: 3 }).map((items) => new Set(items)),
  ),
}));

function packed(v: unknown): { words: number[]; headers: number[]; verdict: number } {
  const out = new Words();
  const headers = new Words();
  const verdict = packState(out, v, headers);
  return { words: Array.from(out.buf.subarray(0, out.length)), headers: Array.from(headers.buf.subarray(0, headers.length)), verdict };
}

function canonical(v: unknown): string {
  const out = new Words();
  encodeValue(out, v);
  return Array.from(out.buf.subarray(0, out.length)).join();
}

const hasCollection = (v: unknown): boolean =>
  v instanceof Map || v instanceof Set || (v !== null && typeof v === 'object' && Object.values(v as object).some(hasCollection));

describe('packed states', () => {
  it('unpack(pack(v)) is v exactly, after other values in the same words', () => {
    fc.assert(
      fc.property(packable, packable, (before, v) => {
        const w = new Words();
        expect(pack(w, before)).toBe(true);
        const at = w.length;
        expect(pack(w, v)).toBe(true);
        const back = unpack(w.buf, at);
        expect(unpacked.end).toBe(w.length);
        expect(exactly(back)).toEqual(exactly(v));
        expect(exactly(unpack(w.buf, 0))).toEqual(exactly(before));
      }),
      { seed: 71, numRuns: 1500 },
    );
  });

  it('packed words are canonical: equal exactly when encodeValue says the same data, Maps and Sets aside', () => {
    fc.assert(
      fc.property(packable, packable, (a, b) => {
        const pa = packed(a);
        const pb = packed(b);
        expect((pa.verdict & NOT_CANONICAL) !== 0).toBe(hasCollection(a));
        if (pa.verdict & NOT_CANONICAL || pb.verdict & NOT_CANONICAL) return;
        expect(pa.words.join() === pb.words.join()).toBe(canonical(a) === canonical(b));
      }),
      { seed: 72, numRuns: 2500 },
    );
    // Insertion order and prototype change the headers recorded, not the words hashed.
    const x = packed({ a: 1, b: [2, { c: 3, d: 4 }] });
    const y = packed(Object.assign(Object.create(null), { b: [2, { d: 4, c: 3 }], a: 1 }));
    expect(y.words).toEqual(x.words);
    expect(y.headers).not.toEqual(x.headers);
  });

  it('says what it cannot rebuild, and refuses what is not data', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    class List extends Array<number> {}
    const holey = [1, , 3];
    for (const v of [new Point(1), { p: [new Point(2)] }, holey, new Int32Array([1, 2]), List.from([1]), new (class extends Map {})()]) {
      expect(pack(new Words(), v)).toBe(false);
      expect(packed(v).verdict & NOT_UNPACKABLE).toBe(NOT_UNPACKABLE);
    }
    // Told apart from their plain look-alikes, as encodeValue tells them (review defect 2):
    // a hole from undefined, a typed array from an array, an instance from a plain object.
    expect(packed(holey).words).not.toEqual(packed([1, undefined, 3]).words);
    expect(packed(new Int32Array([1, 2])).words).not.toEqual(packed([1, 2]).words);
    expect(packed(new Point(1)).words).not.toEqual(packed({ x: 1 }).words);
    // A root that inherits Object as its constructor but has another prototype is not plain.
    const derived = Object.assign(Object.create({ inherited: 1 }), { a: 1 });
    expect(derived.constructor).toBe(Object);
    expect(pack(new Words(), derived)).toBe(false);
    expect(packed(derived).words).not.toEqual(packed({ a: 1 }).words);
    // A frozen state is kept as it is, so that a step changing it in place still throws.
    expect(pack(new Words(), Object.freeze({ a: [1] }))).toBe(false);
    expect(packed(Object.freeze({ a: [1] })).words).toEqual(packed({ a: [1] }).words);
    expect(() => packed({ f: () => 1 })).toThrow(/plain data/);
    expect(() => packed([Symbol('s')])).toThrow(/plain data/);
  });

  it('a string is told apart from the one last met at its place in the words', () => {
    // packState remembers the string last met at each word position; states alike but for
    // a string there, long strings (not interned) and booleans beside them, in arrays too.
    const states = [
      { s: 'a', l: ['x', true, longString], n: 1 },
      { s: 'b', l: ['y', false, longString + 'z'], n: 1 },
      { s: 'a', l: ['x', true, longString], n: 1 },
      { s: longString, l: [longString, 'x', false], n: 1 },
      { s: 'b', l: ['x', true, 'y'], n: 1 },
    ];
    const w = states.map((v) => packed(v).words.join());
    expect(w[2]).toBe(w[0]);
    expect(new Set([w[0], w[1], w[3], w[4]]).size).toBe(4);
    const all = new Words();
    for (const v of states) expect(pack(all, v)).toBe(true);
    let at = 0;
    for (const v of states) {
      expect(exactly(unpack(all.buf, at))).toEqual(exactly(v));
      at = unpacked.end;
    }
  });

  it('a frontier gives back its states in order, packed or kept', () => {
    const f = new Frontier<unknown>();
    const states = [{ a: 1 }, new Int32Array([5]), [1, , 2], new Map([[2, 'b'], [1, 'a']]), { z: -0, y: Number.NaN }];
    states.forEach((s, i) => f.push(s, 10 + i));
    const back: unknown[] = [];
    const ids: number[] = [];
    while (f.left > 0) {
      ids.push(f.id);
      back.push(f.shift());
    }
    expect(ids).toEqual([10, 11, 12, 13, 14]);
    expect(back.map(exactly)).toEqual(states.map(exactly));
    expect(back[1]).toBe(states[1]); // kept, not packed
  });
});

/**
 * States of every kind, built in varying insertion orders: the queue's states reach
 * next() exactly as next() made them (it checks), and the counts are the reference's.
 */
function mixed(n: number): Machine<Record<string, unknown>, Action & { k: number }> {
  class Tag {
    constructor(readonly v: number) {}
  }
  const make = (i: number, flip: boolean): Record<string, unknown> => {
    // A class instance and a typed array in every third state only: the others are packed.
    const parts: [string, unknown][] = [
      ['i', i],
      ['tag', i % 3 === 0 ? new Tag(i % 2) : { v: i % 2 }],
      ['bytes', i % 3 === 0 ? new Uint8Array([i % 2]) : [i % 2]],
      ['set', new Set(flip ? [1, i % 4] : [i % 4, 1])],
      ['bare', Object.assign(Object.create(null), flip ? { p: i % 2, q: -0 } : { q: -0, p: i % 2 })],
      ['big', BigInt(i % 5) * 2n ** 40n],
      ['f', (i % 3) / 2],
    ];
    return Object.fromEntries(flip ? parts.reverse() : parts);
  };
  return {
    init: () => [make(0, false)],
    actions: (s) => ((s.i as number) < n ? [{ label: 'one', k: 1 }, { label: 'two', k: 2 }, { label: 'flip', k: 0 }] : []),
    next(s, a) {
      expect(s.tag instanceof Tag).toBe((s.i as number) % 3 === 0);
      expect(s.bytes instanceof Uint8Array).toBe((s.i as number) % 3 === 0);
      expect(s.set).toBeInstanceOf(Set);
      expect(Object.getPrototypeOf(s.bare)).toBe(null);
      expect(Object.is((s.bare as { q: number }).q, -0)).toBe(true);
      const flip = Object.keys(s)[0] !== 'i';
      return make((s.i as number) + a.k, a.k === 0 ? !flip : flip);
    },
    invariants: { small: (s) => ((s.i as number) > n + 1 ? 'too far' : true) },
  };
}

describe('breadth-first search over packed states', () => {
  it('counts states of every kind as the reference does, on both stores', () => {
    const want = referenceBfs(mixed(12));
    for (const store of ['fingerprint', 'exact'] as const) {
      const r = exploreSync(mixed(12), { store });
      expect([r.states, r.transitions, r.depth]).toEqual([want.states, want.transitions, want.depth]);
    }
  });
});
