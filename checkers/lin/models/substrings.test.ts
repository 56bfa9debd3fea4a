// absentFrom (kv's unobserved, abstraction and priority): never calls a present value
// absent, exact while cheap, and linear work on the review's shape (round 2, defect 1).

import { describe, expect, it } from 'vitest';
import { prng } from '../generate.ts';
import { checkHistorySync } from '../index.ts';
import type { Operation } from '../types.ts';
import { WglSearch } from '../wgl.ts';
import { kvAppend, type KvInput } from './kv.ts';
import { absentFrom, HookTimeout, maximal, scanned } from './substrings.ts';

/** Uniform in [0, 1), from the generator's seeded stream. */
function rng(seed: number): () => number {
  const next = prng(seed);
  return () => next() / 2 ** 32;
}

const word = (r: () => number, n: number, alphabet: string): string => Array.from({ length: n }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');

/** The definition (main's unobserved): in the maximal strings joined by newlines. */
const reference = (texts: string[], v: string): boolean => !maximal(texts).join('\n').includes(v);

/** The review's shape: one get of `chars` x 'a', then n crashed appends of 'a' x 400 + 'b<i>'. */
function reviewShape(chars: number, n: number): Operation<KvInput, unknown>[] {
  const ops: Operation<KvInput, unknown>[] = [{ client: 0, input: { f: 'get', key: 'k' }, call: 0, ret: 1, output: 'a'.repeat(chars) }];
  for (let i = 0; i < n; i++) ops.push({ client: i + 1, input: { f: 'append', key: 'k', value: `${'a'.repeat(400)}b${i}` }, call: i + 2 });
  return ops;
}

describe('absentFrom', () => {
  it.each([Infinity, 0])('agrees with the definition where it answers absent, exactly while under its budget (budget %s)', (budget) => {
    const r = rng(973);
    let absent = 0;
    let missed = 0;
    for (let round = 0; round < 300; round++) {
      const alphabet = round % 3 === 0 ? 'ab' : round % 3 === 1 ? 'abc\n' : 'xyz0123456789';
      const texts = Array.from({ length: 1 + Math.floor(r() * 4) }, () => word(r, Math.floor(r() * 400), alphabet));
      // Substrings of the texts (present), random words (mostly absent), many of one length (the windowed pass).
      const values: string[] = [];
      for (let k = 0; k < 40; k++) {
        const t = texts[Math.floor(r() * texts.length)];
        const from = Math.floor(r() * t.length);
        values.push(r() < 0.5 ? t.slice(from, from + 1 + Math.floor(r() * 30)) : word(r, 1 + Math.floor(r() * (round % 2 ? 6 : 30)), alphabet));
      }
      for (let k = 0; k < 20; k++) values.push(word(r, 12, alphabet));
      const got = absentFrom(texts, values, Infinity, budget === Infinity, budget);
      values.forEach((v, i) => {
        const want = reference(texts, v);
        // Never absent when present; under the budget with short texts, the exact answer.
        if (got[i]) expect(want).toBe(true);
        if (budget === Infinity) expect(got[i]).toBe(want);
        if (want) (got[i] ? absent++ : missed++);
      });
    }
    expect(absent).toBeGreaterThan(0);
    if (budget === Infinity) expect(missed).toBe(0);
    // The filters still find most absent values (a hash collision or a present window keeps a few).
    else expect(absent).toBeGreaterThan(3 * missed);
  });

  it('reads the deadline: past it, HookTimeout before the work', () => {
    const before = scanned.chars;
    expect(() => absentFrom(['a'.repeat(1 << 20)], ['b'], Date.now() - 1)).toThrow(HookTimeout);
    expect(scanned.chars).toBe(before);
  });
});

describe('kv hooks on many crashed appends and a long get (review round 2, defect 1)', () => {
  it('unobserved, priority and abstraction scan characters in proportion to the history, with the answers of the definition', () => {
    const chars = 1 << 18;
    const n = 2000;
    const ops = reviewShape(chars, n);
    const size = chars + n * 405;
    const before = scanned.chars;
    const gone = kvAppend.unobserved!(ops);
    kvAppend.priority!(ops);
    const abstract = kvAppend.abstraction!(ops);
    // main: n x chars = 2000 x 2^18 (50 x size) characters searched by each of unobserved and priority.
    expect(scanned.chars - before).toBeLessThan(16 * size);
    expect(gone).toEqual(ops.map((o) => o.ret === undefined && reference([ops[0].output as string], o.input.value!)));
    expect(gone.filter(Boolean)).toHaveLength(n);
    expect(abstract).toBeDefined();
  });

  it('unobserved: the definition on generated multi-key histories with crashed updates', () => {
    const r = rng(11);
    for (let round = 0; round < 200; round++) {
      const ops: Operation<KvInput, unknown>[] = [];
      const keys = ['k', 'j', '__proto__'];
      for (let i = 0; i < 60; i++) {
        const key = keys[Math.floor(r() * keys.length)];
        const x = r();
        const long = round % 4 === 0 ? 'q'.repeat(300) : '';
        if (x < 0.4) ops.push({ client: i, input: { f: 'get', key }, call: i, ret: i + 1, output: long + word(r, Math.floor(r() * 40), 'abc') });
        else ops.push({ client: i, input: { f: x < 0.5 ? 'put' : 'append', key, value: word(r, 1 + Math.floor(r() * 4), 'abcd') }, call: i, ...(r() < 0.6 ? {} : { ret: i + 1, output: null }) });
      }
      const gone = kvAppend.unobserved!(ops);
      const want = ops.map((o) => {
        if (o.ret !== undefined || o.input.f === 'get') return false;
        return reference(ops.filter((g) => g.input.key === o.input.key && g.input.f === 'get').map((g) => g.output as string), o.input.value!);
      });
      expect(gone).toEqual(want);
    }
  });

  it('a deadline passed before the setup: the hook is given it and gives up before its work (main: 3,000 x 1 MB searched)', () => {
    const ops = reviewShape(1 << 20, 3000);
    let calls = 0;
    const deadlines: (number | undefined)[] = [];
    // No refute: with its proof in hand a search out of time answers illegal, cut short.
    const model = {
      ...kvAppend,
      refute: undefined,
      unobserved(h: readonly Operation<KvInput, unknown>[], deadline?: number) {
        calls++;
        deadlines.push(deadline);
        return kvAppend.unobserved!(h, deadline);
      },
    };
    const before = scanned.chars;
    const search = new WglSearch(model, ops, { deadline: Date.now() - 1 });
    search.run();
    // The hook gave up at once (no characters scanned); the search, without its answer,
    // finds the get of a million 'a's illegal before its first look at the clock, or gives up.
    expect(['illegal', 'unknown']).toContain(search.result.verdict);
    expect(calls).toBe(1);
    expect(deadlines[0]).toBeLessThan(Date.now());
    expect(scanned.chars).toBe(before);
    expect(checkHistorySync(model, ops, { timeoutMs: 0 }).verdict).not.toBe('ok');
  });
});
