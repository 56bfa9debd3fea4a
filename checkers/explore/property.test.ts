// On random explicit graphs, every search mode agrees with the plain reference BFS: the
// same reachable set, the same counts, and shortest counterexamples of the same length.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exploreSync } from './index.ts';
import { referenceBfs } from './reference.ts';
import type { Action, Machine } from './types.ts';

interface Graph {
  edges: number[][];
  inits: number[];
  bad: number[];
  worse: number[];
  stoppable: number[];
}

const graph = fc.integer({ min: 1, max: 24 }).chain((n) =>
  fc.record({
    edges: fc.array(fc.array(fc.integer({ min: 0, max: n - 1 }), { maxLength: 4 }), { minLength: n, maxLength: n }),
    inits: fc.array(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: 3 }),
    bad: fc.array(fc.integer({ min: 0, max: n - 1 }), { maxLength: 2 }),
    worse: fc.array(fc.integer({ min: 0, max: n - 1 }), { maxLength: 2 }),
    stoppable: fc.array(fc.integer({ min: 0, max: n - 1 }), { maxLength: n }),
  }),
);

interface Edge extends Action {
  to: number;
}

function machine(g: Graph, deadlock: boolean): Machine<{ node: number }, Edge> {
  return {
    init: () => g.inits.map((node) => ({ node })),
    actions: (s) => g.edges[s.node].map((to, i) => ({ label: `edge(${s.node},${i})`, to })),
    next: (_s, a) => ({ node: a.to }),
    invariants: {
      bad: (s) => (g.bad.includes(s.node) ? `reached ${s.node}` : true),
      worse: (s) => (g.worse.includes(s.node) ? `reached ${s.node}` : true),
    },
    ...(deadlock ? { mayStop: (s: { node: number }) => g.stoppable.includes(s.node) } : {}),
  };
}

/** Shortest distance from an initial node to any node satisfying p (naive BFS), or -1. */
function distanceTo(g: Graph, p: (node: number) => boolean): number {
  const dist = new Map<number, number>();
  let frontier = [...new Set(g.inits)];
  frontier.forEach((v) => dist.set(v, 0));
  for (let d = 0; frontier.length > 0; d++) {
    if (frontier.some(p)) return d;
    const next: number[] = [];
    for (const v of frontier) for (const w of g.edges[v]) if (!dist.has(w)) (dist.set(w, d + 1), next.push(w));
    frontier = next;
  }
  return -1;
}

describe('agreement with the reference BFS on random graphs', () => {
  it('same reachable set, counts and first counterexample', () => {
    fc.assert(
      fc.property(graph, fc.boolean(), (g, deadlock) => {
        const m = machine(g, deadlock);
        const ref = referenceBfs(m, { checkDeadlock: deadlock });
        const r = exploreSync(m);
        if (ref.violation) {
          expect(r.status).toBe('violation');
          expect(r.violations[0].property).toBe(ref.violation.property);
          expect(r.violations[0].steps.map((s) => s.action.label)).toEqual(ref.violation.path.map((a) => a.label));
        } else {
          expect(r).toMatchObject({ status: 'holds', states: ref.states, transitions: ref.transitions, depth: ref.depth });
          for (const store of ['fingerprint', 'exact'] as const) {
            expect(exploreSync(m, { strategy: 'dfs', store })).toMatchObject({ status: 'holds', states: ref.states, transitions: ref.transitions });
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('with all: one shortest counterexample per violated property, and the whole space', () => {
    fc.assert(
      fc.property(graph, (g) => {
        const m = machine(g, false);
        const full = referenceBfs({ ...m, invariants: {} });
        const r = exploreSync(m, { all: true });
        expect(r).toMatchObject({ states: full.states, transitions: full.transitions, depth: full.depth });
        for (const [name, set] of [['bad', g.bad], ['worse', g.worse]] as const) {
          const d = distanceTo(g, (v) => set.includes(v));
          const v = r.violations.find((x) => x.property === name);
          if (d < 0) expect(v).toBeUndefined();
          else expect(v?.steps.length).toBe(d);
        }
        for (const store of ['fingerprint', 'exact'] as const) {
          expect(exploreSync(m, { all: true, store, strategy: 'dfs' })).toMatchObject({ states: full.states, transitions: full.transitions });
        }
      }),
      { numRuns: 300 },
    );
  });

  it('simulation only visits reachable states and is reproducible by seed', () => {
    fc.assert(
      fc.property(graph, fc.integer({ min: 0, max: 1000 }), (g, seed) => {
        const m = { ...machine(g, false), invariants: {} };
        const full = referenceBfs(m);
        const options = { strategy: 'simulate' as const, simulate: { runs: 20, depth: 10, seed } };
        const a = exploreSync(m, options);
        expect(a.status).toBe('incomplete');
        expect(a.states).toBeLessThanOrEqual(full.states);
        const b = exploreSync(m, options);
        expect([b.states, b.transitions]).toEqual([a.states, a.transitions]);
      }),
      { numRuns: 100 },
    );
  });
});
