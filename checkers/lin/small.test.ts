// small.ts held to brute force and to the general search (wgl.ts) on generated histories
// of every family, ok and corrupted, with crashed operations; and the whole check with the
// small search (the default) against the general search alone (verbose skips it).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bruteForce, historyShape, isLinearization, referenceModel, replays, wholeModel as whole } from './brute-force.ts';
import { FAMILIES, generateHistory } from './generate.ts';
import { checkHistorySync, models } from './index.ts';
import { SMALL_MAX, smallSearch } from './small.ts';
import type { Model, Operation } from './types.ts';
import { type SearchResult, wglSearch } from './wgl.ts';

const CRASH_RATES = [0, 0.1, 0.3];

/** `check` on generated histories of any family, up to SMALL_MAX operations and 16 clients. */
function onSmallHistories(numRuns: number, seed: number, check: (model: Model, history: Operation[]) => void): void {
  const shape = fc.constantFrom(...FAMILIES).chain((f) => historyShape(f, { maxOps: SMALL_MAX, maxClients: 16, crashRates: CRASH_RATES }));
  fc.assert(
    fc.property(shape, (s) => {
      const { history } = generateHistory(s);
      check(models[whole[s.family]], history);
    }),
    { numRuns, seed },
  );
}

/**
 * A legal partial linearization: distinct operations, real-time order kept (nothing in it
 * returned before the call of an operation placed earlier, nor left out while returning
 * before the call of one placed), every step legal.
 */
function isPartial(model: Model, history: readonly Operation[], order: readonly number[]): boolean {
  if (new Set(order).size !== order.length) return false;
  const placed = new Set(order);
  for (let b = 0; b < order.length; b++) {
    const call = history[order[b]].call;
    for (let i = 0; i < history.length; i++) {
      const ret = history[i].ret;
      if (ret !== undefined && ret < call && (!placed.has(i) || order.indexOf(i) > b)) return false;
    }
  }
  return replays(model, history, order);
}

describe('the small search', () => {
  for (const family of FAMILIES) {
    it(`${family}: brute force's verdict whenever it decides; ok with a linearization, illegal with a legal longest prefix`, () => {
      const model = models[whole[family]];
      const oracle = referenceModel(family);
      const seen = { ok: 0, illegal: 0, crashed: 0, undecided: 0, proof: 0 };
      fc.assert(
        fc.property(historyShape(family, { maxOps: 10, maxClients: 4, crashRates: CRASH_RATES }), (s) => {
          const { history } = generateHistory(s);
          const expected = bruteForce(oracle, history).linearizable ? 'ok' : 'illegal';
          if (history.some((o) => o.ret === undefined)) seen.crashed++;
          const r = smallSearch(model, history);
          if (r === undefined) {
            seen.undecided++;
            return;
          }
          seen[r.verdict as 'ok' | 'illegal']++;
          expect(r.verdict).toBe(expected);
          if (r.verdict === 'ok') expect(isLinearization(model, history, r.linearization!)).toBe(true);
          else {
            expect(isPartial(model, history, r.longest![0])).toBe(true);
            if (r.proof !== undefined) seen.proof++;
          }
        }),
        { numRuns: 300, seed: 20261123 },
      );
      expect(seen.ok).toBeGreaterThan(40);
      expect(seen.illegal).toBeGreaterThan(40);
      expect(seen.crashed).toBeGreaterThan(80);
      expect(seen.undecided).toBeLessThan(20);
    });
  }

  for (const family of FAMILIES.filter((f) => models[whole[f]].refute !== undefined)) {
    it(`${family}: a proof ends the search only where the longest cannot grow (the longest without the proof)`, () => {
      const model = models[whole[family]];
      const without = { ...model, refute: undefined };
      let shorter = 0;
      fc.assert(
        fc.property(historyShape(family, { maxOps: 40, maxClients: 8, crashRates: CRASH_RATES }), (s) => {
          const { history } = generateHistory(s);
          const a = smallSearch(model, history);
          const b = smallSearch(without, history);
          if (a?.proof === undefined || b === undefined) return;
          expect(a.verdict).toBe('illegal');
          expect(b.verdict).toBe('illegal');
          expect(a.longest).toEqual(b.longest);
          if (a.explored < b.explored) shorter++;
        }),
        { numRuns: 300, seed: 20261126 },
      );
      expect(shorter).toBeGreaterThan(5);
    });
  }

  it("kv-append on one key: brute force's verdict; its hint is asked before its proof, which legal keys then mostly never need", () => {
    const model = models['kv-append'];
    const oracle = referenceModel('kv');
    const seen = { hintedOnly: 0, proved: 0, illegal: 0 };
    fc.assert(
      fc.property(historyShape('kv', { maxOps: 14, maxClients: 16, crashRates: CRASH_RATES }), (s) => {
        const { history } = generateHistory({ ...s, keys: 1 });
        const calls = { priority: 0, refute: 0 };
        const counted: Model = {
          ...model,
          priority: (h) => (calls.priority++, model.priority!(h)),
          refute: (h) => (calls.refute++, model.refute!(h)),
        };
        const r = smallSearch(counted, history);
        if (r === undefined) return;
        expect(r.verdict).toBe(bruteForce(oracle, history, { memo: true }).linearizable ? 'ok' : 'illegal');
        if (r.verdict === 'ok' && calls.priority > 0 && calls.refute === 0) seen.hintedOnly++;
        if (r.verdict === 'illegal') {
          seen.illegal++;
          if (r.proof !== undefined) seen.proved++;
        }
      }),
      { numRuns: 300, seed: 20261127 },
    );
    expect(seen.hintedOnly).toBeGreaterThan(5);
    expect(seen.illegal).toBeGreaterThan(40);
    expect(seen.proved).toBeGreaterThan(20);
  });

  it('agrees with the general search on up to SMALL_MAX operations and 16 clients, and leaves some to it', () => {
    const seen = { decided: 0, undecided: 0, illegal: 0, crashed: 0 };
    onSmallHistories(60, 20261124, (model, history) => {
      if (history.some((o) => o.ret === undefined)) seen.crashed++;
      const r = smallSearch(model, history);
      if (r === undefined) {
        seen.undecided++;
        return;
      }
      seen.decided++;
      const g = wglSearch(model, history, { deadline: Date.now() + 20_000 });
      if (g.verdict !== 'unknown') expect(r.verdict).toBe(g.verdict);
      if (r.verdict === 'ok') expect(isLinearization(model, history, r.linearization!)).toBe(true);
      else {
        seen.illegal++;
        expect(isPartial(model, history, r.longest![0])).toBe(true);
      }
    });
    expect(seen.decided).toBeGreaterThan(45);
    expect(seen.illegal).toBeGreaterThan(15);
    expect(seen.crashed).toBeGreaterThan(20);
    expect(seen.undecided).toBeGreaterThan(0);
  });

  it('searches the same way whatever the times: small integers, integers far apart, fractions', () => {
    // Both searches keep small integer times in Int32Arrays (rebased), others as doubles.
    const shifted = (h: readonly Operation[], f: (t: number) => number): Operation[] => h.map((o) => ({ ...o, call: f(o.call), ...(o.ret === undefined ? {} : { ret: f(o.ret) }) }));
    const same = (a: SearchResult | undefined, b: SearchResult | undefined): void => {
      expect(b?.verdict).toBe(a?.verdict);
      expect(b?.explored).toBe(a?.explored);
      expect(b?.linearization).toEqual(a?.linearization);
      expect(b?.longest).toEqual(a?.longest);
    };
    let paths = 0;
    onSmallHistories(40, 20261125, (model, history) => {
      const small = smallSearch(model, history);
      const general = wglSearch(model, history, { deadline: Date.now() + 20_000 });
      for (const f of [(t: number) => t + 2 ** 40, (t: number) => t * 2 ** 33 - 7, (t: number) => t / 4 + 0.5]) {
        const other = shifted(history, f);
        same(small, smallSearch(model, other));
        same(general, wglSearch(model, other, { deadline: Date.now() + 20_000 }));
        paths++;
      }
    });
    expect(paths).toBe(120);
  });

  it('the whole check gives the verdict of the general search alone, partition by partition', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FAMILIES).chain((f) => historyShape(f, { maxOps: 40, maxClients: 8, crashRates: CRASH_RATES })),
        (s) => {
          const g = generateHistory(s);
          const quick = checkHistorySync(g.model, g.history);
          // verbose takes the general search only
          const plain = checkHistorySync(g.model, g.history, { verbose: true });
          expect(quick.verdict).toBe(plain.verdict);
          expect(quick.partitions.map((p) => p.operations)).toEqual(plain.partitions.map((p) => p.operations));
          for (const p of quick.partitions) {
            if (p.verdict === 'ok') expect(isLinearization(models[g.model], p.operations.map((i) => g.history[i]), p.linearization!.map((i) => p.operations.indexOf(i)))).toBe(true);
            if (p.verdict === 'illegal') {
              expect(p.stuck).toBeDefined();
              expect(p.longest![0].every((i) => p.operations.includes(i))).toBe(true);
            }
          }
        },
      ),
      { numRuns: 80, seed: 20261125 },
    );
  });
});
