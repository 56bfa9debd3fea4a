// The layout fast path (layout-search.ts, specs/kit/layout.ts) against the plain search on
// the same model written with plain objects, and against the reference BFS: the same
// counts, depths, verdicts and counterexamples, under budgets, bounds and both stores; and
// layout states through the paths that cannot step them in place (a monitor, workers).

import { describe, expect, it } from 'vitest';
import { racyCounter } from '../../checkers/explore/fixtures/racy-counter.ts';
import { racyCounterLayout } from './racy-counter-layout.ts';
import { explore, exploreSync } from '../../checkers/explore/index.ts';
import { layoutOf } from '../../checkers/explore/layout-search.ts';
import { referenceBfs } from '../../checkers/explore/reference.ts';
import type { ExploreOptions, ExploreResult } from '../../checkers/explore/types.ts';

const summary = (r: ExploreResult) => ({
  status: r.status,
  states: r.states,
  transitions: r.transitions,
  depth: r.depth,
  incompleteReason: r.incompleteReason,
  violations: r.violations.map((v) => ({ property: v.property, message: v.message, labels: v.steps.map((s) => s.action.label), states: v.steps.map((s) => s.state) })),
  coverage: r.coverage,
});

describe('the typed state layout', () => {
  it('takes the fast path, and steps exactly as the plain racy counter under every option', () => {
    expect(layoutOf(racyCounterLayout(2, 2))).toBeDefined();
    const options: ExploreOptions[] = [{}, { store: 'exact' }, { maxStates: 100 }, { maxDepth: 5 }, { maxDepth: 0 }, { strategy: 'dfs' }];
    // (3, 2) and the budgets cover growth of the frontier and the batch boundaries.
    for (const [n, k] of [
      [2, 2],
      [3, 2],
    ]) {
      for (const o of options) expect(summary(exploreSync(racyCounterLayout(n, k), o))).toEqual(summary(exploreSync(racyCounter(n, k), o)));
      expect(exploreSync(racyCounterLayout(n, k)).states).toBe(referenceBfs(racyCounter(n, k)).states);
    }
    // Levels of 879, 1,217, 924 and 1,035 states: a frontier (1,024 at first) grows while
    // the other, reused from two levels back, still holds an older level's words.
    expect(summary(exploreSync(racyCounterLayout(3, 3)))).toEqual(summary(exploreSync(racyCounter(3, 3))));
  });

  it('finds the same shortest counterexamples, shown as plain data', () => {
    for (const o of [{}, { all: true }, { store: 'exact' as const }]) {
      const fast = summary(exploreSync(racyCounterLayout(3, 1, { lostUpdateIsBug: true }), o));
      expect(fast).toEqual(summary(exploreSync(racyCounter(3, 1, { lostUpdateIsBug: true }), o)));
      expect(fast.violations[0].labels).toEqual(referenceBfs(racyCounter(3, 1, { lostUpdateIsBug: true })).violation!.path.map((a) => a.label));
    }
  });

  it('gives the same counts through the plain path (a reduction replaced actions)', () => {
    const m = racyCounterLayout(3, 2);
    const wrapped = { ...m, actions: (s: Parameters<typeof m.actions>[0]) => m.actions(s) };
    expect(layoutOf(wrapped)).toBeUndefined();
    expect(summary(exploreSync(wrapped))).toEqual(summary(exploreSync(racyCounter(3, 2))));
  });

  // Worker start-up costs seconds: the full tier only.
  it.runIf(process.env.INTERLEAVE_FULL === '1')('sends layout states between worker threads as words', async () => {
    const module = new URL('./racy-counter-layout.ts', import.meta.url).href;
    const r = await explore({ module, export: 'racyCounterLayout', args: [3, 3] }, { workers: 2, tableCapacity: 64 });
    expect([r.status, r.states, r.transitions, r.depth, r.workers]).toEqual(['holds', 7646, 18843, 18, 2]);
  });
});
