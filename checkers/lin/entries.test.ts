// The entry list and the memo: their fast paths against plain definitions.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEntries, entriesOf } from './entries.ts';
import { Memo, MemoFull } from './memo.ts';
import type { Operation } from './types.ts';

describe('entries', () => {
  // Times drawn small (integers, ties), huge (integers far apart: exact keys up to 2^53, the
  // counting sort by ranks past that) and fractional (ranked by the numeric sort), with
  // indeterminate operations among them.
  const time = fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 2 ** 52 }), fc.double({ min: 0, max: 100, noNaN: true }));
  const history = fc.array(fc.record({ a: time, b: time, indeterminate: fc.boolean() }), { maxLength: 40 }).map((rows) =>
    rows.map(({ a, b, indeterminate }): Operation => (indeterminate ? { client: 0, input: null, call: a } : { client: 0, input: null, call: Math.min(a, b), ret: Math.max(a, b) })),
  );

  // The search numbers its operations in call order: the calls need no sorting then.
  const inCallOrder = history.map((ops) => [...ops].sort((x, y) => x.call - y.call));

  it('sorts entries by time, calls before returns at equal times, then by operation', () => {
    fc.assert(
      fc.property(fc.oneof(history, inCallOrder), (ops) => {
        const expected: [number, number, number][] = [];
        ops.forEach((o, i) => {
          expected.push([o.call, 0, i]);
          if (o.ret !== undefined) expected.push([o.ret, 1, i]);
        });
        expected.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
        const list = buildEntries(ops);
        const walked: [number, number][] = [];
        for (let e = list.next[list.head]; e !== -1; e = list.next[e]) walked.push([list.op[e], list.isCall[e] === 1 ? 0 : 1]);
        expect(walked).toEqual(expected.map(([, kind, op]) => [op, kind]));
        ops.forEach((o, i) => {
          expect(list.op[list.callEntry[i]]).toBe(i);
          expect(list.returnEntry[i] === -1).toBe(o.ret === undefined);
        });
        expect(list.determinate).toBe(ops.filter((o) => o.ret !== undefined).length);
      }),
      { numRuns: 2000, seed: 5 },
    );
  });

  it('makes the same list from the times the search passes it (every operation returned, in call order; small integers rebased)', () => {
    const returned = inCallOrder.map((ops) => ops.filter((o) => o.ret !== undefined));
    fc.assert(
      fc.property(returned, (ops) => {
        const call = Float64Array.from(ops, (o) => o.call);
        const ret = Float64Array.from(ops, (o) => o.ret!);
        const plain = entriesOf(call, ret, ops.length);
        const times = [...call, ...ret];
        const integers = times.every(Number.isInteger);
        const lo = Math.min(...times);
        const small = integers && ops.length > 0 && Math.max(...times) - lo <= 0x7fffffff;
        const base = small ? lo : 0;
        const as = (t: Float64Array) => (small ? Int32Array.from(t, (x) => x - base) : t.map((x) => x - base));
        const [c, r] = [as(call), as(ret)];
        const known = { min: Math.min(...c), max: Math.max(...c, ...r), integers };
        const given = entriesOf(c, r, ops.length, undefined, known);
        expect(given.time instanceof Int32Array).toBe(small);
        for (const k of ['next', 'prev', 'op', 'isCall', 'callEntry', 'returnEntry', 'head', 'determinate'] as const) expect(given[k]).toEqual(plain[k]);
        expect(Array.from(given.time, (t) => t + base)).toEqual(Array.from(plain.time));
      }),
      { numRuns: 2000, seed: 6 },
    );
  });
});

describe('memo', () => {
  /** The memo's encoding of a set over `det` determinate and `ind` indeterminate bits. */
  function encode(det: number, ind: number, members: number[]): { bits: Uint32Array; low: number; high: number } {
    const detWords = (det + 31) >>> 5;
    const bits = new Uint32Array(detWords + ((ind + 31) >>> 5) || 1);
    let high = -1;
    for (const m of members) {
      const b = m < det ? m : detWords * 32 + (m - det);
      bits[b >>> 5] |= 1 << (b & 31);
      if (m < det) high = Math.max(high, m >>> 5);
    }
    let low = 0;
    const full = (w: number) => (w === detWords - 1 && det % 32 !== 0 ? 2 ** (det % 32) - 1 : 0xffffffff);
    while (low < detWords && bits[low] === full(low)) low++;
    return { bits, low, high };
  }

  it('finds a configuration again exactly when its set and state are equal, whatever the key collisions', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.tuple(fc.array(fc.nat(139), { maxLength: 12 }), fc.nat(2)), { minLength: 1, maxLength: 60 }),
        fc.boolean(),
        (det, ind, configs, collide) => {
          const memo = new Memo<number>((det + 31) >>> 5, ((det + 31) >>> 5) + ((ind + 31) >>> 5) || 1, (a, b) => a === b);
          const seen = new Set<string>();
          for (const [raw, state] of configs) {
            const members = [...new Set(raw.filter((m) => m < det + ind))].sort((a, b) => a - b);
            const { bits, low, high } = encode(det, ind, members);
            const id = `${members.join(',')}|${state}`;
            // Colliding keys (all 7) must cost only comparisons, never a wrong answer.
            const key = collide ? 7 : members.reduce((h, m) => Math.imul(h ^ m, 0x9e3779b1), state);
            expect(memo.add(key, bits, low, high, state)).toBe(!seen.has(id));
            seen.add(id);
          }
          expect(memo.size).toBe(seen.size);
        },
      ),
      { numRuns: 500, seed: 9 },
    );
  });

  it('keeps a set in a few words when most operations are done', () => {
    const det = 100_000;
    const memo = new Memo<number>((det + 31) >>> 5, (det + 31) >>> 5, (a, b) => a === b);
    const members = Array.from({ length: 50_000 }, (_, i) => i).concat([50_003]);
    const { bits, low, high } = encode(det, 0, members);
    for (let s = 0; s < 1000; s++) memo.add(s, bits, low, high, s);
    // 1000 entries of a 100,000-operation set: kilobytes, not the 12 MB of whole bitsets.
    expect(memo.bytes()).toBeLessThan(200_000);
  });

  it('stops at its byte budget', () => {
    const memo = new Memo<number>(1, 1, (a, b) => a === b, 64 * 1024);
    const bits = new Uint32Array(1);
    expect(() => {
      for (let s = 0; s < 100_000; s++) memo.add(s, bits, 0, -1, s);
    }).toThrow(MemoFull);
  });
});
