// The canonical encoding of states (encode.ts) against the reference's canonical JSON
// (reference.ts, written independently): for plain data of every kind the explorer
// accepts, two values encode to the same words exactly when they are the same data,
// whatever order their objects' keys, Maps' entries and Sets' members were inserted in.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeValue, fingerprint, NotPlainData, packState, Words } from './encode.ts';
import { SpecError } from './errors.ts';
import { exploreSync } from './index.ts';
import { canonicalJson } from './reference.ts';

function words(v: unknown): number[] {
  const out = new Words();
  encodeValue(out, v);
  return Array.from(out.buf.subarray(0, out.length));
}

/** Plain data of every kind, with small domains so that equal values occur often. */
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, undefined, true, false, 0, 1, -1, 2 ** 31, -(2 ** 31) - 1, 0.5, Number.NaN, Infinity, '', 'a', 'b', 'ab', 1n, -(2n ** 70n)),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'ab'), tie('value'), { maxKeys: 3 }),
    fc.array(fc.tuple(tie('value'), tie('value')), { maxLength: 3 }).map((entries) => new Map(entries)),
    fc.array(tie('value'), { maxLength: 3 }).map((items) => new Set(items)),
  ),
}));

/** The same data rebuilt with every object, Map and Set filled in another order. */
function reorder(v: unknown, rnd: () => number): unknown {
  const shuffle = <T>(xs: T[]): T[] => {
    const a = xs.slice();
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    return a;
  };
  if (Array.isArray(v)) return v.map((x) => reorder(x, rnd));
  if (v instanceof Map) return new Map(shuffle([...v]).map(([k, x]) => [reorder(k, rnd), reorder(x, rnd)]));
  if (v instanceof Set) return new Set(shuffle([...v]).map((x) => reorder(x, rnd)));
  if (v !== null && typeof v === 'object') return Object.fromEntries(shuffle(Object.entries(v)).map(([k, x]) => [k, reorder(x, rnd)]));
  return v;
}

describe('canonical encoding of every value kind', () => {
  it('the same data in another insertion order encodes to the same words', () => {
    fc.assert(
      fc.property(value, fc.integer(), (v, seed) => {
        let x = seed | 1;
        const rnd = () => ((x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) ^ (x << 7)) >>> 0) / 2 ** 32;
        expect(words(reorder(v, rnd))).toEqual(words(v));
      }),
      { seed: 61, numRuns: 3000 },
    );
  });

  it('two values encode alike exactly when the reference calls them the same data', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        const same = canonicalJson(a) === canonicalJson(b);
        expect(words(a).join() === words(b).join()).toBe(same);
      }),
      { seed: 62, numRuns: 5000 },
    );
  });

  it('keeps apart what looks alike', () => {
    const distinct: unknown[] = [
      null, undefined, false, true, 0, 1, '1', 1n, 1.5, [], {}, new Map(), new Set(), [[]], [1, 2], [[1], [2]], [[1, 2]], ['ab'], ['a', 'b'],
      { a: 1 }, { b: 1 }, { a: undefined }, new Map([[1, 2]]), new Map([[2, 1]]), new Set([1, 2]), new Set([[1, 2]]), { '#map': [[1, 2]] }, 2 ** 31, -(2 ** 31),
    ];
    const encoded = distinct.map((v) => words(v).join());
    expect(new Set(encoded).size).toBe(distinct.length);
    // Maps and Sets: contents, not insertion order; nested ones too.
    expect(words(new Map([[1, 'a'], [2, 'b']]))).toEqual(words(new Map([[2, 'b'], [1, 'a']])));
    expect(words(new Set(['x', 'y', 'z']))).toEqual(words(new Set(['z', 'x', 'y'])));
    expect(words({ s: new Set([new Map([[1, new Set([1, 2])]]), 3]) })).toEqual(words({ s: new Set([3, new Map([[1, new Set([2, 1])]])]) }));
    expect(words({ a: 1, b: 2 })).toEqual(words({ b: 2, a: 1 }));
  });

  it('fingerprints follow the words', () => {
    const fp = (v: unknown) => {
      const w = words(v);
      const out = new Int32Array(2);
      fingerprint(Int32Array.from(w), w.length, out);
      return Array.from(out);
    };
    expect(fp(new Set([1, 2, 3]))).toEqual(fp(new Set([3, 1, 2])));
    expect(fp(new Set([1, 2, 3]))).not.toEqual(fp(new Set([1, 2])));
  });

  it('words that differ in one pair (or the odd last word) never share a fingerprint, nor its high half more often than chance', () => {
    // Each step of the fingerprint is one-to-one, so a single differing pair cannot collide;
    // over many inputs of small counters (the words states are made of) the high half, which
    // picks a state's slot in the table, collides as often as random 32-bit values would.
    fc.assert(
      fc.property(fc.array(fc.integer(), { minLength: 1, maxLength: 20 }), fc.nat(), fc.integer(), fc.integer(), (ws, at, a, b) => {
        const x = Int32Array.from(ws);
        const y = x.slice();
        const i = (at % x.length) & ~1;
        y[i] = a;
        if (i + 1 < y.length) y[i + 1] = b;
        const fx = new Int32Array(2);
        const fy = new Int32Array(2);
        fingerprint(x, x.length, fx);
        fingerprint(y, y.length, fy);
        expect(x.join() === y.join() || fx.join() !== fy.join()).toBe(true);
      }),
      { seed: 7, numRuns: 2000 },
    );
    const n = 1 << 17;
    const his = new Int32Array(n);
    const w = new Int32Array(13);
    const out = new Int32Array(2);
    for (let k = 0; k < n; k++) {
      for (let j = 0; j < 6; j++) w[(j * 5) % 13] = (k >>> (3 * j)) & 7;
      fingerprint(w, 13, out);
      his[k] = out[0];
    }
    his.sort();
    let same = 0;
    for (let k = 1; k < n; k++) if (his[k] === his[k - 1]) same++;
    // n^2 / 2^33 = 2 expected; a weak mix of small counters would give thousands.
    expect(same).toBeLessThan(12);
  });
});

describe('values that are not plain objects (review defect 2)', () => {
  /** packState's words as the search hashes them (headers left as written: the canonical words). */
  function packed(v: unknown): number[] {
    const out = new Words();
    packState(out, v, new Words());
    return Array.from(out.buf.subarray(0, out.length));
  }
  class A {
    v = 1;
  }
  class B {
    v = 1;
  }
  const twins: [string, unknown, unknown][] = [
    ['Dates of other times', new Date(0), new Date(5)],
    ['a Date and an empty object', new Date(0), {}],
    ['an Int8Array and a Uint8Array', new Int8Array([1]), new Uint8Array([1])],
    ['a Uint8Array and a Float64Array', new Uint8Array([1]), new Float64Array([1])],
    ['a typed array and an array', new Uint8Array([1, 2]), [1, 2]],
    ['instances of two classes', new A(), new B()],
    ['an instance and a plain object', new A(), { v: 1 }],
    ['a hole and an undefined element', [1, , 3], [1, undefined, 3]],
  ];
  for (const [what, a, b] of twins) {
    it(`${what} encode apart, in both encodings`, () => {
      expect(words({ x: a })).not.toEqual(words({ x: b }));
      expect(packed({ x: a })).not.toEqual(packed({ x: b }));
      expect(words({ x: a })).toEqual(words({ x: a }));
    });
  }

  it('a class declared twice from one source is one class; equal Dates encode alike', () => {
    const make = () => new (class C { v = 2; })();
    expect(words(make())).toEqual(words(make()));
    expect(packed([make()])).toEqual(packed([make()]));
    expect(words(new Date(7))).toEqual(words(new Date(7)));
  });

  it('what cannot be told apart is refused, naming where it is', () => {
    expect(() => words({ a: [1, { f: () => 1 }] })).toThrow(new NotPlainData('a function', '.a[1].f'));
    expect(() => packed({ a: [1, { f: () => 1 }] })).toThrow(new NotPlainData('a function', '.a[1].f'));
    expect(() => words({ re: /x/ })).toThrow(/RegExp .* at \.re/);
    expect(() => packed({ m: new Map([['k', new WeakMap()]]) })).toThrow(/WeakMap .* at \.m\.get\("k"\)/);
  });

  it('a state holding a cycle is refused as a SpecError naming the reference back, not a stack overflow (round 4 D3)', () => {
    const self: Record<string, unknown> = { n: 1 };
    self.self = self;
    const inMap: { x: unknown[] } = { x: [1] };
    inMap.x.push({ m: new Map([['k', { back: inMap.x }]]) });
    const inSet = { s: new Set<unknown>() };
    inSet.s.add(inSet);
    const cases: [unknown, string][] = [
      [self, 'a cycle (a reference back to the state itself, which holds it: a state is a tree, not a graph) at .self'],
      [inMap, 'a cycle (a reference back to .x, which holds it: a state is a tree, not a graph) at .x[1].m.get("k").back'],
      [inSet, 'a cycle (a reference back to the state itself, which holds it: a state is a tree, not a graph) at .s.has(…)'],
    ];
    for (const [v, what] of cases) {
      for (const encode of [words, packed]) {
        expect(() => encode(v)).toThrow(SpecError);
        expect(() => encode(v)).toThrow(`a state must be plain data; found ${what}`);
      }
    }
    // no cycle but deeper than the stack: said so, not a stack overflow
    let deep: unknown = 0;
    for (let i = 0; i < 100_000; i++) deep = { next: deep };
    for (const encode of [words, packed]) expect(() => encode(deep)).toThrow(new NotPlainData('a value nested too deep to encode (no cycle: the stack overflowed following it; a state is a tree of modest depth)', '(the state itself)'));
    // shared (not cyclic) parts are plain data, encoded as the tree they stand for
    const shared = { z: 1 };
    expect(words({ p: shared, q: shared })).toEqual(words({ p: { z: 1 }, q: { z: 1 } }));
    // what is not plain data inside a Map is named from the state, not from the entry
    expect(() => words({ m: new Map([['k', new WeakMap()]]) })).toThrow(/WeakMap .* at \.m\.get\("k"\)/);
  });
});

describe('an explorer run over twins (review defect 2)', () => {
  it('a Date that grows reaches the violation', () => {
    const m = {
      init: () => [{ t: new Date(0) }],
      actions: () => [{ label: 'tick()' }],
      next: (s: { t: Date }) => ({ t: new Date(s.t.getTime() + 1) }),
      invariants: { before5: (s: { t: Date }) => (s.t.getTime() < 5 ? true : `t = ${s.t.getTime()}`) },
    };
    for (const store of ['fingerprint', 'exact'] as const) {
      const r = exploreSync(m, { store });
      expect(r.status).toBe('violation');
      expect(r.states).toBe(6);
    }
  });
});
