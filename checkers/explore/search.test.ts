import { describe, expect, it } from 'vitest';
import { exploreSync } from './index.ts';
import { racyCounter } from './fixtures/racy-counter.ts';
import type { Machine } from './types.ts';

describe('exploreSync on the racy counter', () => {
  it('counts N=2,K=2 and N=3,K=3 exactly with both stores, BFS and DFS', () => {
    for (const store of ['fingerprint', 'exact'] as const) {
      for (const strategy of ['bfs', 'dfs'] as const) {
        expect(exploreSync(racyCounter(2, 2), { store, strategy })).toMatchObject({ status: 'holds', states: 57, transitions: 82 });
        expect(exploreSync(racyCounter(3, 3), { store, strategy })).toMatchObject({ status: 'holds', states: 7646, transitions: 18843 });
      }
      expect(exploreSync(racyCounter(3, 3), { store })).toMatchObject({ depth: 18 });
      expect(exploreSync(racyCounter(2, 2), { store })).toMatchObject({ depth: 8 });
    }
  });

  it('finds the shortest lost update and replays it', () => {
    const r = exploreSync(racyCounter(2, 1, { lostUpdateIsBug: true }));
    expect(r.status).toBe('violation');
    const [v] = r.violations;
    expect(v.property).toBe('noLostUpdate');
    expect(v.steps.map((s) => s.action.label)).toEqual(['p0.read', 'p1.read', 'p0.write', 'p1.write']);
    expect(v.steps[2].changes).toContainEqual({ path: 'x', before: 0, after: 1 });
  });

  it('reports budgets as incomplete, never holds', () => {
    expect(exploreSync(racyCounter(3, 3), { maxStates: 100 })).toMatchObject({ status: 'incomplete', states: 100 });
    expect(exploreSync(racyCounter(3, 3), { maxDepth: 5 })).toMatchObject({ status: 'incomplete', depth: 5 });
    expect(exploreSync(racyCounter(3, 3), { strategy: 'dfs', maxDepth: 5 }).status).toBe('incomplete');
    expect(exploreSync(racyCounter(2, 2), { maxStates: 57 }).status).toBe('holds');
  });

  it('finds a deadlock and can be told not to', () => {
    const m: Machine<number> = {
      init: () => [0],
      actions: (s) => (s < 3 ? [{ label: `inc(${s})` }] : []),
      next: (s) => s + 1,
      invariants: {},
      mayStop: (s) => s === 0,
      actionNames: ['inc', 'dec'],
    };
    const r = exploreSync(m);
    expect(r.status).toBe('violation');
    expect(r.violations[0].property).toBe('deadlock');
    expect(r.violations[0].steps).toHaveLength(3);
    expect(r.neverEnabled).toEqual(['dec']);
    expect(exploreSync(m, { deadlock: false })).toMatchObject({ status: 'holds', states: 4 });
  });
});
