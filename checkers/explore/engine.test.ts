// Direct tests of the search engines, so that a bug written into one while optimising it
// fails a test even where no verdict changes: exact state and transition counts and
// depths under every strategy, store, worker count and table size, at and around the
// depth bound; and canonical encodings, so that one state built in two insertion orders
// is one state.

import { describe, expect, it } from 'vitest';
import { bag, bagStates, grid, gridStates, tree, treeStates } from './fixtures/shapes.ts';
import { explore, exploreSync, SpecError } from './index.ts';
import { referenceBfs } from './reference.ts';
import type { Action, ExploreOptions, Machine } from './types.ts';

const FULL = process.env.INTERLEAVE_FULL === '1';
const shapes = new URL('./fixtures/shapes.ts', import.meta.url).href;
const racyPacked = new URL('./fixtures/racy-counter-packed.ts', import.meta.url).href;

/** Every single-threaded way of searching exhaustively. */
const SYNC: [string, ExploreOptions][] = [
  ['bfs', { strategy: 'bfs' }],
  ['bfs, exact store', { strategy: 'bfs', store: 'exact' }],
  ['dfs', { strategy: 'dfs' }],
  ['dfs, exact store', { strategy: 'dfs', store: 'exact' }],
];
/** Parallel BFS: worker counts × initial table sizes (a small table forces growth and resume rounds). */
const PARALLEL: ExploreOptions[] = (FULL ? [2, 3, 4, 5] : [2, 3]).flatMap((workers) =>
  (FULL ? [16, 64, 256, 1024, 4096, undefined] : [16, 64, 256, undefined]).map((tableCapacity) => ({ workers, ...(tableCapacity ? { tableCapacity } : {}) })),
);
const label = (o: ExploreOptions) => `${o.workers} workers, table ${o.tableCapacity ?? 'default'}`;

describe('exact counts and depths at and around the depth bound', () => {
  const H = 7;
  for (const [name, options] of SYNC) {
    it(`${name}: a tree of height ${H}, bounded at every depth`, () => {
      for (let D = 0; D <= H + 1; D++) {
        const r = exploreSync(tree(H), { ...options, maxDepth: D });
        const h = Math.min(D, H);
        expect({ D, states: r.states, transitions: r.transitions, depth: r.depth, status: r.status }).toEqual({
          D,
          states: treeStates(h),
          transitions: 2 * (treeStates(h) - 2 ** h),
          depth: h,
          status: D < H ? 'incomplete' : 'holds',
        });
        if (D < H) expect(r.incompleteReason).toBe(`depth bound of ${D} reached: deeper states were not explored`);
      }
    });

    it(`${name}: a violation at depth k is found with a bound of k, not with k − 1`, () => {
      for (const k of [0, 1, 4]) {
        const at = exploreSync(tree(6, { violateAt: k }), { ...options, maxDepth: k });
        expect(at.status).toBe('violation');
        expect(at.violations[0].steps).toHaveLength(k);
        if (k > 0) expect(exploreSync(tree(6, { violateAt: k }), { ...options, maxDepth: k - 1 }).status).toBe('incomplete');
      }
    });

    it(`${name}: a grid, where states are reached again by other paths`, () => {
      for (const D of [0, 3, 6, 12]) {
        const r = exploreSync(grid(6), { ...options, maxDepth: D });
        expect([D, r.states, r.depth]).toEqual([D, gridStates(6, D), Math.min(D, 12)]);
      }
      expect(exploreSync(grid(6), options)).toMatchObject({ status: 'holds', states: 49, transitions: 84, depth: 12 });
    });
  }

  it('simulation: every walk ends at the depth given, never one step later', () => {
    for (const depth of [1, 3, 5]) {
      const r = exploreSync(tree(8), { strategy: 'simulate', simulate: { runs: 50, depth, seed: 3 } });
      expect(r.depth).toBe(depth);
      expect(r.transitions).toBe(50 * depth);
    }
    expect(exploreSync(tree(2), { strategy: 'simulate', simulate: { runs: 20, depth: 10, seed: 3 } }).depth).toBe(2);
  });

  for (const options of PARALLEL) {
    it(`parallel BFS, ${label(options)}: the same counts as the reference BFS, bounded or not`, async () => {
      const tenth = await explore({ module: shapes, export: 'tree', args: [10] }, options);
      expect(tenth).toMatchObject({ status: 'holds', states: treeStates(10), transitions: 2 * (treeStates(10) - 2 ** 10), depth: 10 });
      const cut = await explore({ module: shapes, export: 'tree', args: [10] }, { ...options, maxDepth: 6 });
      expect(cut).toMatchObject({ status: 'incomplete', states: treeStates(6), transitions: 2 * (treeStates(6) - 2 ** 6), depth: 6 });
      const ref = referenceBfs(bag(4, 3));
      const shared = await explore({ module: shapes, export: 'bag', args: [4, 3] }, options);
      expect(shared).toMatchObject({ status: 'holds', states: ref.states, transitions: ref.transitions, depth: ref.depth });
      // Wide levels: workers use up their quota mid-level, wait for the table to grow and resume.
      const racy = await explore({ module: racyPacked, export: 'racyCounterPacked', args: [3, 3] }, options);
      expect(racy).toMatchObject({ status: 'holds', states: 7646, transitions: 18843, depth: 18 });
    }, 60_000);
  }
});

describe('time budgets', () => {
  it('a budget longer than a timer can wait (2^31 ms) is no budget, not an immediate stop', async () => {
    const r = await explore({ module: shapes, export: 'tree', args: [8] }, { workers: 2, timeLimitMs: 2 ** 32 });
    expect(r).toMatchObject({ status: 'holds', states: treeStates(8) });
    expect(exploreSync(tree(8), { timeLimitMs: 2 ** 32 })).toMatchObject({ status: 'holds', states: treeStates(8) });
  }, 60_000);
});

describe('one state, whatever order its Sets and Maps were built in', () => {
  it('every store and strategy counts the distinct states of the reference BFS', () => {
    for (const [n, k] of [[3, 2], [4, 2]]) {
      const ref = referenceBfs(bag(n, k));
      expect(ref.states).toBe(bagStates(n, k));
      for (const [, options] of SYNC) {
        expect(exploreSync(bag(n, k), options)).toMatchObject({ states: ref.states, transitions: ref.transitions, depth: ref.depth });
      }
    }
  });
});

describe('a machine that breaks the contract (review defect 3)', () => {
  const base = {
    init: () => [{ n: 0 }] as { n: number }[],
    actions: (s: { n: number }) => (s.n < 3 ? [{ label: 'inc()' }] : []),
    next: (s: { n: number }) => ({ n: s.n + 1 }),
    invariants: { ok: () => true as const },
  };
  const broken: [string, object, RegExp][] = [
    ['init() returns []', { init: () => [] }, /init\(\) must return a non-empty array of states; it returned an empty array/],
    ['init() returns a state, not an array', { init: () => ({ n: 0 }) }, /init\(\) must return a non-empty array.*an object/],
    ['actions() returns a number', { actions: () => 5 }, /actions\(state\) must return an array of actions; it returned number 5/],
    ['an action without a label', { actions: (s: { n: number }) => (s.n < 3 ? [{}] : []) }, /string label; action 0 is labelled undefined/],
    ['a later state whose actions() is not an array', { actions: (s: { n: number }) => (s.n < 2 ? [{ label: 'inc()' }] : null) }, /must return an array of actions; it returned null/],
    ['a later state with a numeric label', { actions: (s: { n: number }) => (s.n === 0 ? [{ label: 'inc()' }] : s.n < 3 ? [{ label: 7 }] : []) }, /labelled number 7/],
    // review3 defect 5: the members a JavaScript caller can leave out, before any is called
    ['no invariants', { invariants: undefined }, /invariants must be an object of named predicates \{name: \(state\) => true or a message\}; it is undefined/],
    ['an invariant that is no function', { invariants: { ok: 5 } }, /invariants\["ok"\] must be a predicate \(state\) => true or a message; it is number 5/],
    ['no next', { next: undefined }, /next must be a function \(state, action\) returning the next state; it is undefined/],
  ];
  for (const [what, patch, message] of broken) {
    it(`${what}: a SpecError, not an empty space that holds`, () => {
      const m = { ...base, ...patch } as unknown as Machine<{ n: number }, Action>;
      for (const options of [{}, { store: 'exact' as const }, { strategy: 'dfs' as const }]) {
        expect(() => exploreSync(m, options)).toThrow(SpecError);
        expect(() => exploreSync(m, options)).toThrow(message);
      }
    });
  }
});

describe("a JavaScript caller's machine and budgets (review3 defect 5)", () => {
  const m = { init: () => [0], actions: () => [{ label: 'inc()' }], next: (s: number) => s + 1, invariants: { ok: () => true as const } };
  it('a machine that is no object is a SpecError in the contract\'s words', () => {
    expect(() => exploreSync(null as never)).toThrow(SpecError);
    expect(() => exploreSync(null as never)).toThrow(/a machine is an object \{init, actions, next, invariants\}; it is null/);
  });
  it('budgets that are not whole numbers in range are a RangeError, not an unbounded or empty search', async () => {
    const bad: [ExploreOptions, RegExp][] = [
      [{ maxStates: NaN }, /maxStates is a whole number ≥ 1 \(or Infinity\), not number NaN/],
      [{ maxStates: -1 }, /maxStates is a whole number ≥ 1/],
      [{ maxStates: 0 }, /maxStates is a whole number ≥ 1/],
      [{ maxStates: 2.5 }, /maxStates is a whole number ≥ 1/],
      [{ maxDepth: NaN }, /maxDepth is a whole number ≥ 0/],
      [{ timeLimitMs: NaN }, /timeLimitMs is a number of milliseconds ≥ 0/],
      [{ timeLimitMs: -1 }, /timeLimitMs is a number of milliseconds ≥ 0/],
      [{ strategy: 'zzz' as never }, /strategy is bfs, dfs or simulate, not the string "zzz"/],
    ];
    for (const [options, message] of bad) {
      expect(() => exploreSync(m, options)).toThrow(RangeError);
      expect(() => exploreSync(m, options)).toThrow(message);
      await expect(explore(m, options)).rejects.toThrow(message);
    }
    // the bounds themselves still stop a search as incomplete
    expect(exploreSync(m, { maxStates: 1 })).toMatchObject({ status: 'incomplete', states: 1 });
    expect(exploreSync(m, { maxDepth: 0, maxStates: Infinity })).toMatchObject({ status: 'incomplete', states: 1 });
  });
});

describe('a counterexample rebuilt by re-execution still violates (review defect 16)', () => {
  /** next() steps by 1 for its first three calls (the search), by 2 after (the replay). */
  const drifting = (): Machine<{ n: number }, Action> => {
    let calls = 0;
    return {
      init: () => [{ n: 0 }],
      actions: (s) => (s.n < 6 ? [{ label: 'inc()' }] : []),
      next: (s) => ({ n: s.n + (calls++ < 3 ? 1 : 2) }),
      invariants: { notThree: (s) => (s.n === 3 ? 'three' : true) },
    };
  };
  it('a path whose last state no longer violates is a SpecError naming nondeterminism, not a counterexample', () => {
    expect(() => exploreSync(drifting())).toThrow(SpecError);
    expect(() => exploreSync(drifting())).toThrow(/not deterministic: re-executing the path that reached the violation of "notThree" \(3 steps\), its last state satisfies "notThree"/);
  });
  it('a deterministic machine still gets its counterexample', () => {
    let calls = 0;
    const m: Machine<{ n: number }, Action> = { ...drifting(), next: (s) => (calls++, { n: s.n + 1 }) };
    const r = exploreSync(m);
    expect(r.status).toBe('violation');
    expect(r.violations[0]!.steps.at(-1)!.state).toEqual({ n: 3 });
  });
});
