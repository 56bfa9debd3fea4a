import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exploreSync, replayLabels } from './index.ts';
import { canonicalJson } from './reference.ts';
import { findLivelock, LIVELOCK } from './livelock.ts';
import { politeLock, type LockAction, type LockState } from './fixtures/polite-lock.ts';
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

type Edge = { from: number; to: number; progress: boolean; cls?: string };
type GAction = Action & { e: number };

/** A machine whose states are 0..n-1 and whose actions are the edges; with `fair`, edge classes are its fairness. */
function graph(n: number, edges: Edge[], fair = false): Machine<number, GAction> {
  return {
    init: () => [0],
    actions: (s) => edges.flatMap((e, i) => (e.from === s ? [{ label: `e${i}`, e: i }] : [])),
    next: (_s, a) => edges[a.e].to,
    invariants: {},
    progress: (_b, a) => edges[a.e].progress,
    ...(fair ? { fairness: (a: GAction) => edges[a.e].cls } : {}),
  };
}

/** The lasso's cycle is weakly fair: every class enabled in all its states is taken on it. */
function checkFairCycle(edges: Edge[], c: Counterexample) {
  const cycle = c.steps.slice(c.lassoStart).map((s) => edges[(s.action as GAction).e]);
  const visited = cycle.map((e) => e.from);
  const classesAt = (v: number) => new Set(edges.filter((e) => e.from === v && e.cls !== undefined).map((e) => e.cls!));
  const taken = new Set(cycle.map((e) => e.cls));
  for (const cls of classesAt(visited[0])) {
    if (visited.every((v) => classesAt(v).has(cls))) expect(taken.has(cls), `class ${cls} enabled throughout the cycle`).toBe(true);
  }
}

/**
 * Whether a weakly fair non-progress cycle is reachable, from the definition: some set X of
 * reachable states, strongly connected by its own idle edges and having one, in which every
 * class is disabled at a state of X or is the class of an idle edge inside X (the closed
 * walk over all of X's states and edges is then a fair cycle). Every subset is tried.
 */
function bruteFair(n: number, edges: Edge[]): boolean {
  const reach = new Set([0]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const e of edges) if (reach.has(e.from) && !reach.has(e.to)) (reach.add(e.to), (grew = true));
  }
  const classes = [...new Set(edges.flatMap((e) => (e.cls === undefined ? [] : [e.cls])))];
  for (let mask = 1; mask < 1 << n; mask++) {
    const X = [...Array(n).keys()].filter((v) => mask & (1 << v));
    if (!X.every((v) => reach.has(v))) continue;
    const inner = edges.filter((e) => !e.progress && mask & (1 << e.from) && mask & (1 << e.to));
    if (inner.length === 0) continue;
    const reachesAll = (from: number, forward: boolean) => {
      const seen = new Set([from]);
      for (let grew = true; grew; ) {
        grew = false;
        for (const e of inner) {
          const [a, b] = forward ? [e.from, e.to] : [e.to, e.from];
          if (seen.has(a) && !seen.has(b)) (seen.add(b), (grew = true));
        }
      }
      return seen.size === X.length;
    };
    if (!reachesAll(X[0], true) || !reachesAll(X[0], false)) continue;
    const fair = classes.every((cls) => X.some((v) => !edges.some((e) => e.from === v && e.cls === cls)) || inner.some((e) => e.cls === cls));
    if (fair) return true;
  }
  return false;
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

  describe('under weak fairness', () => {
    // 0 and 1 swap forever on class a; class b can leave to 2 from each.
    const swap: Edge[] = [
      { from: 0, to: 1, progress: false, cls: 'a' },
      { from: 1, to: 0, progress: false, cls: 'a' },
      { from: 0, to: 2, progress: false, cls: 'b' },
      { from: 1, to: 2, progress: false, cls: 'b' },
    ];

    it('excuses a cycle that never takes a class enabled throughout it', () => {
      expect(findLivelock(graph(3, swap))).toMatchObject({ status: 'violation', excused: 0 });
      expect(findLivelock(graph(3, swap, true))).toMatchObject({ status: 'holds', excused: 1 });
    });

    it('counts progress actions as enabling their class, though taking them ends the cycle', () => {
      const leave = swap.map((e) => (e.cls === 'b' ? { ...e, progress: true } : e));
      expect(findLivelock(graph(3, leave, true))).toMatchObject({ status: 'holds', excused: 1 });
    });

    it('reports a cycle that passes a state where the class is disabled', () => {
      const edges = swap.filter((e) => !(e.from === 1 && e.cls === 'b'));
      const m = graph(3, edges, true);
      const r = findLivelock(m);
      expect(r.status).toBe('violation');
      checkLasso(m, r.counterexample!);
      checkFairCycle(edges, r.counterexample!);
      expect(r.counterexample!.message).toMatch(/weakly fair: it takes a, and b is disabled in one of its states/);
    });

    it('reports a cycle that takes the class, though the shortest cycle does not', () => {
      // 0 -a-> 1 -a-> 0 is shortest, but b stays enabled on it; 0 -b-> 3 -a-> 0 takes b.
      const edges: Edge[] = [...swap, { from: 0, to: 3, progress: false, cls: 'b' }, { from: 3, to: 0, progress: false, cls: 'a' }, { from: 3, to: 2, progress: false, cls: 'b' }];
      const m = graph(4, edges, true);
      const r = findLivelock(m);
      expect(r.status).toBe('violation');
      checkLasso(m, r.counterexample!);
      checkFairCycle(edges, r.counterexample!);
      expect(r.counterexample!.steps.map((s) => s.action.label)).toContain('e4');
      expect(r.counterexample!.message).toMatch(/weakly fair: it takes a, b/);
    });

    it('assumes nothing of an action without a class', () => {
      const edges = swap.map((e) => (e.cls === 'b' ? { ...e, cls: undefined } : e));
      expect(findLivelock(graph(3, edges, true)).status).toBe('violation');
    });

    it('finds the polite lock fair: each process backs off while the other has its flag up', () => {
      const m: Machine<LockState, LockAction> = { ...politeLock('polite'), fairness: (a) => `p${a.p}` };
      const r = findLivelock(m);
      expect(r.status).toBe('violation');
      checkLasso(m, r.counterexample!);
      expect(r.counterexample!.message).toMatch(/takes p0, p1/);
    });

    it('agrees with the definition on random graphs: existence, validity and fairness of the lasso', () => {
      const arb = fc.integer({ min: 1, max: 6 }).chain((n) =>
        fc.tuple(
          fc.constant(n),
          fc.array(fc.record({ from: fc.nat(n - 1), to: fc.nat(n - 1), progress: fc.boolean(), cls: fc.constantFrom('a', 'b', 'c', undefined) }), { maxLength: 12 }),
        ),
      );
      let found = 0;
      let excused = 0;
      fc.assert(
        fc.property(arb, ([n, edges]) => {
          const m = graph(n, edges, true);
          const r = findLivelock(m);
          if (!bruteFair(n, edges)) {
            expect(r.status).toBe('holds');
            if (findLivelock(graph(n, edges)).status === 'violation') excused++;
            return;
          }
          found++;
          expect(r.status).toBe('violation');
          checkLasso(m, r.counterexample!);
          checkFairCycle(edges, r.counterexample!);
        }),
        { numRuns: 600 },
      );
      expect(found).toBeGreaterThan(40);
      expect(excused).toBeGreaterThan(20);
    });
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
