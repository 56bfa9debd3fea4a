// The history generator, and the checker on what it generates: verdicts against the
// brute-force oracle up to 100 operations, and against the construction (a history that
// is not corrupted is linearizable) at every size. The default run samples with fixed
// seeds; INTERLEAVE_FULL=1 adds seeds and the largest sizes.

import { describe, expect, it } from 'vitest';
import { bruteForce, referenceModel } from './brute-force.ts';
import { FAMILIES, generateHistory, type Family } from './generate.ts';
import { checkHistorySync } from './index.ts';
import type { Operation } from './types.ts';

const FULL = process.env.INTERLEAVE_FULL === '1';

describe('the generator', () => {
  it('is deterministic from its seed', () => {
    for (const family of FAMILIES) {
      const a = generateHistory({ family, ops: 300, clients: 5, seed: 42, crashRate: 0.05, corrupt: 1 });
      const b = generateHistory({ family, ops: 300, clients: 5, seed: 42, crashRate: 0.05, corrupt: 1 });
      const c = generateHistory({ family, ops: 300, clients: 5, seed: 43, crashRate: 0.05, corrupt: 1 });
      expect(JSON.stringify(b)).toBe(JSON.stringify(a));
      expect(JSON.stringify(c.history)).not.toBe(JSON.stringify(a.history));
    }
  });

  it('runs C clients one operation at a time, and replaces a crashed process by a new one', () => {
    for (const family of FAMILIES) {
      for (const clients of [1, 3, 16]) {
        const { history, crashed } = generateHistory({ family, ops: 2000, clients, seed: clients, crashRate: 0.05 });
        expect(history).toHaveLength(2000);
        expect(crashed).toBe(history.filter((o) => o.ret === undefined).length);
        expect(crashed).toBeGreaterThan(0);
        const last = new Map<number | string, Operation>();
        const crashedIds = new Set<number | string>();
        for (const op of history) {
          expect(crashedIds.has(op.client)).toBe(false);
          const prev = last.get(op.client);
          if (prev !== undefined) expect(op.call).toBeGreaterThan(prev.ret!);
          last.set(op.client, op);
          if (op.ret === undefined) crashedIds.add(op.client);
        }
        // At any time at most C operations with a return are pending.
        const events = history.filter((o) => o.ret !== undefined).flatMap((o) => [[o.call, 1], [o.ret!, -1]] as [number, number][]);
        events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        let open = 0;
        let most = 0;
        for (const [, d] of events) most = Math.max(most, (open += d));
        expect(most).toBeLessThanOrEqual(clients);
        expect(new Set(history.map((o) => o.client)).size).toBeLessThanOrEqual(clients + crashed);
      }
    }
  });

  it('corrupts exactly the outputs it says, to a stale or never-written value', () => {
    const kinds = new Set<string>();
    for (const family of FAMILIES) {
      for (let seed = 0; seed < 10; seed++) {
        const clean = generateHistory({ family, ops: 200, clients: 3, seed });
        const bad = generateHistory({ family, ops: 200, clients: 3, seed, corrupt: 2 });
        expect(bad.corruptions).toHaveLength(2);
        const changed = new Set(bad.corruptions.map((c) => c.index));
        bad.history.forEach((op, i) => {
          const was = JSON.stringify(clean.history[i].output);
          if (changed.has(i)) expect(JSON.stringify(op.output)).not.toBe(was);
          else expect(JSON.stringify(op.output)).toBe(was);
        });
        for (const c of bad.corruptions) kinds.add(c.kind);
      }
    }
    expect([...kinds].sort()).toEqual(['never-written', 'stale']);
  });
});

/**
 * The oracle's verdict (reference models, memo; kv key by key, as independent objects),
 * and the checker's, agree.
 */
function agree(family: Family, ops: number, clients: number, seed: number, corrupt: number): 'ok' | 'illegal' {
  const g = generateHistory({ family, ops, clients, seed, corrupt, crashRate: 0.03 });
  const keys = new Map<unknown, Operation[]>();
  for (const op of g.history) {
    const key = family === 'kv' ? (op.input as { key: string }).key : '';
    keys.set(key, [...(keys.get(key) ?? []), op]);
  }
  const linearizable = [...keys.values()].every((h) => bruteForce(referenceModel(family), h, { memo: true }).linearizable);
  const expected = linearizable ? 'ok' : 'illegal';
  expect(checkHistorySync(g.model, g.history).verdict, `${family} ${ops} ops ${clients} clients seed ${seed} corrupt ${corrupt}`).toBe(expected);
  if (corrupt === 0) expect(expected).toBe('ok');
  return expected;
}

describe('generated histories agree with the brute-force oracle up to 100 operations', () => {
  for (const family of FAMILIES) {
    // The oracle is exponential in the clients: 100 operations with 2 and 4 of them, fewer
    // with more.
    const shapes: [number, number][] = [
      [100, 2],
      [100, 4],
      [30, 8],
      [12, 64],
    ];
    it(`${family}: ${shapes.map(([n, c]) => `${n}/${c}`).join(', ')} (operations/clients)`, () => {
      const verdicts: string[] = [];
      const seeds = FULL ? [1, 2, 3, 4, 5] : [1, 2];
      for (const seed of seeds) {
        for (const [ops, clients] of shapes) for (const corrupt of [0, 1]) verdicts.push(agree(family, ops, clients, seed, corrupt));
      }
      expect(verdicts).toContain('illegal');
    });
  }
});

describe('a history that is not corrupted is linearizable, at every size', () => {
  // Shapes the default run decides in about a second each; the full run adds 100,000.
  const shapes: [number, number][] = [
    [1000, 2],
    [1000, 8],
    [1000, 64],
    [10_000, 2],
    [10_000, 8],
    ...(FULL ? ([[100_000, 2], [100_000, 8], [10_000, 64]] as [number, number][]) : []),
  ];
  for (const family of FAMILIES) {
    it(`${family}: ${shapes.map(([n, c]) => `${n}/${c}`).join(', ')} (operations/clients)`, () => {
      for (const [ops, clients] of shapes) {
        const g = generateHistory({ family, ops, clients, seed: ops + clients });
        const r = checkHistorySync(g.model, g.history, { timeoutMs: FULL ? 120_000 : 20_000 });
        // A budget cut is not a verdict; a wrong one would be 'illegal'.
        expect(r.verdict, `${family} ${ops}/${clients}`).not.toBe('illegal');
        if (!(family === 'register' || family === 'cas-register') || clients < 64) expect(r.verdict, `${family} ${ops}/${clients}`).toBe('ok');
      }
    });
  }
});
