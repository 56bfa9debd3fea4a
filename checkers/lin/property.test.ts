// WGL against the brute-force enumerator on thousands of random small histories, and the
// checker's modes against each other (partitioned or not, one thread or two).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bruteForce, bruteForceNondeterministic, isLinearization } from './brute-force.ts';
import { checkHistory, checkHistorySync, fromNondeterministic, models } from './index.ts';
import { buildHistory, historyPlan, type Family } from './random-history.ts';
import type { NondeterministicModel, Operation } from './types.ts';
import { wglSearch } from './wgl.ts';

const families: [Family, string][] = [
  ['register', 'register'],
  ['cas-register', 'cas-register'],
  ['kv', 'kv-append-unpartitioned'],
  ['queue', 'queue'],
];

describe('WGL agrees with brute force', () => {
  for (const [family, modelName] of families) {
    it(`${modelName}: same verdict, and every ok comes with a valid linearization`, () => {
      const model = models[modelName];
      const seen = { ok: 0, illegal: 0, indeterminate: 0 };
      fc.assert(
        fc.property(historyPlan(), (plan) => {
          const history = buildHistory(family, plan);
          const expected = bruteForce(model, history).linearizable ? 'ok' : 'illegal';
          seen[expected]++;
          if (history.some((o) => o.ret === undefined)) seen.indeterminate++;
          for (const reductions of [true, false]) {
            const r = wglSearch(model, history, { reductions });
            expect(r.verdict).toBe(expected);
            if (r.verdict === 'ok') expect(isLinearization(model, history, r.linearization!)).toBe(true);
          }
          const full = checkHistorySync(model, history, { verbose: true });
          expect(full.verdict).toBe(expected);
        }),
        { numRuns: 1000, seed: 20261121 },
      );
      // The generator must exercise both verdicts and indeterminate operations.
      expect(seen.ok).toBeGreaterThan(50);
      expect(seen.illegal).toBeGreaterThan(50);
      expect(seen.indeterminate).toBeGreaterThan(100);
    });
  }
});

describe('partitioned and unpartitioned kv agree', () => {
  it('kv-append (by key) gives the verdict of kv-append-unpartitioned', () => {
    fc.assert(
      fc.property(historyPlan(), (plan) => {
        const history = buildHistory('kv', plan);
        const whole = checkHistorySync('kv-append-unpartitioned', history);
        const byKey = checkHistorySync('kv-append', history);
        const unsplit = checkHistorySync('kv-append', history, { partition: false });
        expect(byKey.verdict).toBe(whole.verdict);
        expect(byKey.partitions.length).toBe(new Set(history.map((o) => (o.input as { key: string }).key)).size);
        expect(unsplit.partitions.length).toBe(history.length > 0 ? 1 : 1);
      }),
      { numRuns: 1000, seed: 7 },
    );
  });
});

describe('one thread and two agree', () => {
  it('checkHistory with 2 workers gives the same report as checkHistorySync', async () => {
    // Larger multi-key histories, so that there are partitions to share.
    const plans = fc.sample(historyPlan(40), { numRuns: 4, seed: 11 }).map((p) => ({ ...p, keys: 3, clients: 4 }));
    for (const plan of plans) {
      const history = buildHistory('kv', plan, 40);
      const one = checkHistorySync('kv-append', history);
      const two = await checkHistory('kv-append', history, { workers: 2 });
      expect({ ...two, elapsedMs: 0 }).toEqual({ ...one, elapsedMs: 0 });
    }
  });
});

describe('nondeterministic models', () => {
  // A register whose write may be lost (the write returns, but the value may stay).
  const lossy: NondeterministicModel<number | null, { f: string; value?: number }, unknown> = {
    name: 'lossy-register',
    nondeterministic: true,
    init: () => [null],
    step(s, input, output) {
      if (input.f === 'write') return input.value === s ? [s] : [input.value!, s];
      return output === s || typeof output === 'symbol' ? [s] : [];
    },
    hash: (s) => (s === null ? -1 : s),
  };

  it('the power-set construction agrees with brute force over all successor states', () => {
    const model = fromNondeterministic(lossy);
    fc.assert(
      fc.property(historyPlan(8), (plan) => {
        const history = buildHistory('register', plan, 8);
        const expected = bruteForceNondeterministic(lossy, history).linearizable ? 'ok' : 'illegal';
        expect(checkHistorySync(model, history).verdict).toBe(expected);
        expect(checkHistorySync(lossy, history).verdict).toBe(expected);
      }),
      { numRuns: 500, seed: 3 },
    );
  });

  it('a lost write explains a stale read that a register cannot', () => {
    const h: Operation[] = [
      { client: 0, input: { f: 'write', value: 1 }, call: 0, ret: 1, output: null },
      { client: 0, input: { f: 'read' }, call: 2, ret: 3, output: null },
    ];
    expect(checkHistorySync(lossy, h).verdict).toBe('ok');
    expect(checkHistorySync('register', h).verdict).toBe('illegal');
  });
});
