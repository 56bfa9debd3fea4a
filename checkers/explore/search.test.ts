import { describe, expect, it } from 'vitest';
import { exploreSync } from './index.ts';
import { racyCounter } from './fixtures/racy-counter.ts';
import type { Machine } from './types.ts';
import { racyCounterPacked } from './fixtures/racy-counter-packed.ts';

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

  it('counts the packed racy counter like the plain one', () => {
    for (const [n, k] of [[2, 2], [3, 3], [2, 4]]) {
      const a = exploreSync(racyCounter(n, k));
      const b = exploreSync(racyCounterPacked(n, k));
      expect([b.states, b.transitions, b.depth]).toEqual([a.states, a.transitions, a.depth]);
      expect(b.coverage).toEqual(a.coverage);
    }
    const bug = exploreSync(racyCounterPacked(3, 1, { lostUpdateIsBug: true }));
    expect(bug.violations[0].steps.map((s) => s.action.label)).toEqual(
      exploreSync(racyCounter(3, 1, { lostUpdateIsBug: true })).violations[0].steps.map((s) => s.action.label),
    );
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

  it('simulates reproducibly by seed and finds a replayable lost update', async () => {
    const { replayLabels } = await import('./index.ts');
    const m = racyCounter(3, 1, { lostUpdateIsBug: true });
    const options = { strategy: 'simulate' as const, simulate: { runs: 200, depth: 20, seed: 3 } };
    const a = exploreSync(m, options);
    expect(a.status).toBe('violation');
    expect(a.violations[0].seed).toBe(3);
    expect(exploreSync(m, options).violations).toEqual(a.violations);
    const path = a.violations[0].steps.map((s) => s.action.label);
    const replayed = replayLabels(m, path);
    expect(m.invariants.noLostUpdate(replayed.states[replayed.states.length - 1])).not.toBe(true);
    expect(() => replayLabels(m, ['p0.write'])).toThrow(/step 1 "p0.write" is not enabled/);
    const clean = exploreSync(racyCounter(3, 2), options);
    expect(clean.status).toBe('incomplete');
  });

  it('stops at the time limit as incomplete', () => {
    const r = exploreSync(racyCounter(3, 3), { timeLimitMs: 0 });
    expect(r.status).toBe('incomplete');
    expect(r.incompleteReason).toMatch(/time limit/);
    expect(r.states).toBeLessThan(7646);
  });

  it('batches BFS levels without changing what it finds (the exact store runs the plain loop)', () => {
    const same = (m: Machine<any, any>, options = {}) => {
      const a = exploreSync(m, { ...options, store: 'exact' });
      const b = exploreSync(m, options);
      expect([b.status, b.states, b.transitions, b.depth, b.coverage]).toEqual([a.status, a.states, a.transitions, a.depth, a.coverage]);
      expect(b.violations.map((v) => v.steps.map((s) => s.action.label))).toEqual(a.violations.map((v) => v.steps.map((s) => s.action.label)));
      return b;
    };
    same(racyCounter(3, 3), { maxStates: 1000 });
    same(racyCounter(3, 3), { maxDepth: 7 });
    same(racyCounter(3, 2, { lostUpdateIsBug: true }), { all: true });
    // A wide level where state 10 leads to a violation and states above `bad` throw when
    // expanded: within one batch, the violation is found first as in the plain loop; a
    // throw met first is thrown as in the plain loop.
    const wide = (bad: number): Machine<number, { label: string; to: number }> => ({
      init: () => [0],
      actions: (s) => (s === 0 ? Array.from({ length: 100 }, (_, i) => ({ label: `go(${i + 1})`, to: i + 1 })) : s <= 100 ? [{ label: 'step', to: s + 1000 }] : []),
      next: (s, a) => {
        if (s > bad && s <= 100) throw new Error(`step from ${s}`);
        return a.to;
      },
      invariants: { below1010: (s) => (s === 1010 ? 'reached 1010' : true) },
    });
    expect(same(wide(20)).violations[0].property).toBe('below1010');
    for (const store of ['exact', 'fingerprint'] as const) expect(() => exploreSync(wide(5), { store })).toThrow('step from 6');
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

describe('explore on worker threads', () => {
  const plain = new URL('./fixtures/racy-counter.ts', import.meta.url).href;
  const packed = new URL('./fixtures/racy-counter-packed.ts', import.meta.url).href;

  it('gives the same counts and counterexample with 2 workers as with 1', async () => {
    const { explore } = await import('./index.ts');
    const r = await explore({ module: plain, export: 'racyCounter', args: [3, 3] }, { workers: 2 });
    expect(r).toMatchObject({ status: 'holds', states: 7646, transitions: 18843, depth: 18, workers: 2 });
    expect(r.coverage).toEqual(exploreSync(racyCounter(3, 3)).coverage);
    const p = await explore({ module: packed, export: 'racyCounterPacked', args: [3, 3] }, { workers: 2, maxDepth: 10 });
    const one = exploreSync(racyCounter(3, 3), { maxDepth: 10 });
    expect(p).toMatchObject({ status: 'incomplete', states: one.states, transitions: one.transitions, depth: 10 });
    const bug = await explore({ module: plain, export: 'racyCounter', args: [2, 1, { lostUpdateIsBug: true }] }, { workers: 2 });
    expect(bug.violations).toEqual(exploreSync(racyCounter(2, 1, { lostUpdateIsBug: true })).violations);
  }, 60_000);

  it('grows the shared table mid-level, keeps going with all, and honours the state budget', async () => {
    const { explore } = await import('./index.ts');
    const grown = await explore({ module: packed, export: 'racyCounterPacked', args: [3, 3] }, { workers: 2, tableCapacity: 512 });
    expect(grown).toMatchObject({ status: 'holds', states: 7646, transitions: 18843, depth: 18 });
    const args = [3, 2, { lostUpdateIsBug: true }];
    const all = await explore({ module: plain, export: 'racyCounter', args }, { workers: 2, all: true });
    const one = exploreSync(racyCounter(3, 2, { lostUpdateIsBug: true }), { all: true });
    expect(all).toMatchObject({ status: 'violation', states: one.states, transitions: one.transitions, depth: one.depth });
    expect(all.violations).toEqual(one.violations);
    const cut = await explore({ module: packed, export: 'racyCounterPacked', args: [3, 3] }, { workers: 2, maxStates: 1000 });
    expect(cut.status).toBe('incomplete');
    expect(cut.incompleteReason).toMatch(/state budget/);
    const late = await explore({ module: packed, export: 'racyCounterPacked', args: [4, 3] }, { workers: 2, timeLimitMs: 1 });
    expect(late.status).toBe('incomplete');
    expect(late.incompleteReason).toMatch(/time limit/);
  }, 60_000);

  it('runs workers from a bundle, or through tsx when the module cannot be bundled', async () => {
    const { workerCode } = await import('./parallel.ts');
    const here = new URL('./fixtures/racy-counter-here.ts', import.meta.url).href;
    const bundled = await workerCode({ module: plain, export: 'racyCounter', args: [] });
    expect(bundled).toContain('interleaveTarget');
    expect(bundled).not.toContain('tsx');
    expect(await workerCode({ module: here, export: 'racyCounterHere', args: [] })).toContain('tsx.register()');
    const { explore } = await import('./index.ts');
    const r = await explore({ module: here, export: 'racyCounterHere', args: [3, 3] }, { workers: 2 });
    expect(r).toMatchObject({ status: 'holds', states: 7646, transitions: 18843, depth: 18, workers: 2 });
  }, 60_000);
});

describe('the README example', () => {
  interface State {
    x: number;
    pc: number[];
    t: number[];
  }
  interface Step {
    label: string;
    p: number;
  }
  const counter = (): Machine<State, Step> => ({
    init: () => [{ x: 0, pc: [0, 0], t: [0, 0] }],
    actionNames: ['read', 'write'],
    actions: (s) => s.pc.flatMap((pc, p): Step[] => (pc === 0 ? [{ label: `read(p${p})`, p }] : pc === 1 ? [{ label: `write(p${p})`, p }] : [])),
    next(s, a) {
      const pc = s.pc.slice();
      const t = s.t.slice();
      let x = s.x;
      if (pc[a.p] === 0) t[a.p] = x;
      else x = t[a.p] + 1;
      pc[a.p]++;
      return { x, pc, t };
    },
    invariants: {
      noLostUpdate: (s) => (s.pc.every((pc) => pc === 2) && s.x !== 2 ? `x = ${s.x} after 2 increments` : true),
    },
    mayStop: (s) => s.pc.every((pc) => pc === 2),
  });

  it('finds the lost update as the README says', () => {
    const r = exploreSync(counter());
    expect(r.status).toBe('violation');
    expect(r.violations[0].steps.map((s) => s.action.label)).toEqual(['read(p0)', 'read(p1)', 'write(p0)', 'write(p1)']);
    expect(r.coverage.map((c) => c.family)).toEqual(['read', 'write']);
  });
});
