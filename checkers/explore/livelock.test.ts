import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exploreSync, replayLabels } from './index.ts';
import { canonicalJson } from './reference.ts';
import { findLivelock, LIVELOCK } from './livelock.ts';
import { politeLock } from './fixtures/polite-lock.ts';
import { replicatedRegister } from './fixtures/replicated-register.ts';
import type { Action, Counterexample, Machine } from './types.ts';

/** The lasso replays from an initial state, its cycle closes, and no step of the cycle is progress. */
function checkLasso<S, A extends Action>(m: Machine<S, A>, c: Counterexample, initIndex = 0) {
  expect(c.property).toBe(LIVELOCK);
  const { states } = replayLabels(m, c.steps.map((s) => s.action.label), initIndex);
  const start = c.lassoStart!;
  expect(start).toBeGreaterThanOrEqual(0);
  expect(start).toBeLessThan(c.steps.length);
  const key = (s: S) => canonicalJson(m.view ? m.view(s) : s);
  expect(key(states[states.length - 1])).toBe(key(states[start]));
  for (let i = start; i < c.steps.length; i++) expect(m.progress!(states[i], c.steps[i].action as A, states[i + 1])).toBe(false);
}

type Edge = { from: number; to: number; progress: boolean };
type GAction = Action & { e: number };

function graph(n: number, edges: Edge[]): Machine<number, GAction> {
  return {
    init: () => [0],
    actions: (s) => edges.flatMap((e, i) => (e.from === s ? [{ label: `e${i}`, e: i }] : [])),
    next: (_s, a) => edges[a.e].to,
    invariants: {},
    progress: (_b, a) => edges[a.e].progress,
  };
}

/** The shortest lasso length by brute force: min over reachable v of dist(0, v) + shortest idle cycle through v; or -1. */
function bruteLasso(n: number, edges: Edge[]): number {
  const bfs = (from: number, idleOnly: boolean) => {
    const d = Array(n).fill(Infinity);
    d[from] = 0;
    const q = [from];
    for (let i = 0; i < q.length; i++) for (const e of edges) if (e.from === q[i] && (!idleOnly || !e.progress) && d[e.to] === Infinity) (d[e.to] = d[q[i]] + 1), q.push(e.to);
    return d;
  };
  const dist = bfs(0, false);
  let best = Infinity;
  for (let v = 0; v < n; v++) {
    if (dist[v] === Infinity) continue;
    for (const e of edges) {
      if (e.progress || e.to !== v) continue;
      const back = bfs(v, true)[e.from];
      if (back !== Infinity) best = Math.min(best, dist[v] + back + 1);
    }
  }
  return best === Infinity ? -1 : best;
}

describe('livelock detection', () => {
  it('finds the polite lock backing off forever, as a valid lasso', () => {
    const m = politeLock('polite');
    const r = findLivelock(m);
    expect(r.status).toBe('violation');
    checkLasso(m, r.counterexample!);
    // raise(p0), then the cycle raise(p1), back-off(p1): a lasso of 3 steps.
    expect(r.counterexample!.steps.map((s) => s.action.label)).toEqual(['raise(p0)', 'raise(p1)', 'back-off(p1)']);
    expect(r.counterexample!.lassoStart).toBe(1);
  });

  it('finds none in Peterson lock, where every cycle enters the critical section', () => {
    expect(findLivelock(politeLock('peterson'))).toMatchObject({ status: 'holds' });
  });

  it('counts a completed client operation as progress when the spec declares none', () => {
    const m = { ...replicatedRegister({ clients: 2, replicas: 2, variant: 'read-last', reads: 2 }), progress: undefined };
    expect(findLivelock(m).status).toBe('holds');
    const spin: Machine<number> = { init: () => [0], actions: () => [{ label: 'spin' }], next: () => 0, invariants: {} };
    expect(() => findLivelock(spin)).toThrow(/needs Machine.progress/);
  });

  it('says when a budget stopped it', () => {
    expect(findLivelock(politeLock('peterson'), { maxStates: 5 })).toMatchObject({ status: 'incomplete', states: 5 });
  });

  it('runs from exploreSync with options.livelock, after the safety search', () => {
    const r = exploreSync(politeLock('polite'), { livelock: true });
    expect(r.status).toBe('violation');
    const v = r.violations.find((x) => x.property === LIVELOCK)!;
    checkLasso(politeLock('polite'), v);
    expect(exploreSync(politeLock('peterson'), { livelock: true }).status).toBe('holds');
  });

  it('agrees with brute force on random graphs: existence, validity and shortest length', () => {
    const arb = fc.integer({ min: 1, max: 7 }).chain((n) =>
      fc.tuple(fc.constant(n), fc.array(fc.record({ from: fc.nat(n - 1), to: fc.nat(n - 1), progress: fc.boolean() }), { maxLength: 14 })),
    );
    let found = 0;
    fc.assert(
      fc.property(arb, ([n, edges]) => {
        const m = graph(n, edges);
        const r = findLivelock(m);
        const expected = bruteLasso(n, edges);
        if (expected < 0) expect(r.status).toBe('holds');
        else {
          found++;
          expect(r.status).toBe('violation');
          checkLasso(m, r.counterexample!);
          expect(r.counterexample!.steps).toHaveLength(expected);
        }
      }),
      { numRuns: 400 },
    );
    expect(found).toBeGreaterThan(40);
  });
});
