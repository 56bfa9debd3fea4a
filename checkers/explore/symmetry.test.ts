import { describe, expect, it } from 'vitest';
import { specs } from '../../specs/index.ts';
import { exploreSync, replayLabels } from './index.ts';
import { withMonitor } from './monitor.ts';
import { canonicalJson } from './reference.ts';
import { permutations, withSymmetry } from './symmetry.ts';
import { symmetricRacyCounter, symmetricRegister } from './fixtures/symmetric.ts';
import type { Action, ExploreResult, Machine } from './types.ts';

/** The reachable states of a machine, by plain breadth-first search. */
function reachable<S, A extends Action>(m: Machine<S, A>): S[] {
  const seen = new Map<string, S>();
  const queue = m.init();
  for (const s of queue) seen.set(canonicalJson(s), s);
  for (let i = 0; i < queue.length; i++) {
    for (const a of m.actions(queue[i])) {
      const t = m.next(queue[i], a);
      const k = canonicalJson(t);
      if (!seen.has(k)) {
        seen.set(k, t);
        queue.push(t);
      }
    }
  }
  return queue;
}

/** What must not change under a sound reduction: the verdict per property and the shortest counterexample length. */
function verdicts(r: ExploreResult) {
  return { status: r.status, found: Object.fromEntries(r.violations.map((v) => [v.property, v.steps.length])) };
}

/** Checks that every counterexample replays on the unreduced machine and ends in a violating state. */
function replays<S, A extends Action>(m: Machine<S, A>, r: ExploreResult) {
  for (const v of r.violations) {
    const { states } = replayLabels(m, v.steps.map((s) => s.action.label));
    const last = states[states.length - 1];
    if (v.property !== 'deadlock') expect(m.invariants[v.property](last)).not.toBe(true);
  }
}

describe('symmetry reduction', () => {
  it('lists every permutation once', () => {
    expect(permutations(3)).toHaveLength(6);
    expect(new Set(permutations(4).map((p) => p.join())).size).toBe(24);
    expect(permutations(3)[0]).toEqual([0, 1, 2]);
  });

  it('stores exactly one state per orbit of the racy counter', () => {
    for (const [n, k] of [
      [2, 2],
      [3, 2],
    ]) {
      const m = symmetricRacyCounter(n, k);
      const g = m.symmetry![0];
      const orbits = new Set(reachable(m).map((s) => permutations(n).map((p) => canonicalJson(g.permute(s, p))).sort()[0]));
      const r = exploreSync(withSymmetry(m), { store: 'exact' });
      expect(r).toMatchObject({ status: 'holds', states: orbits.size });
      expect(exploreSync(withSymmetry(m)).states).toBe(orbits.size);
    }
  });

  it('reduces N=3,K=3 and keeps the verdict and the shortest lost update', () => {
    const full = exploreSync(symmetricRacyCounter(3, 3));
    const reduced = exploreSync(withSymmetry(symmetricRacyCounter(3, 3)));
    expect(full.states).toBe(7646);
    expect(reduced.states).toBeLessThan(full.states / 4);
    expect(reduced.status).toBe('holds');
    const bug = symmetricRacyCounter(3, 3, { lostUpdateIsBug: true });
    const a = exploreSync(bug);
    const b = exploreSync(withSymmetry(bug));
    expect(verdicts(b)).toEqual(verdicts(a));
    expect(b.status).toBe('violation');
    replays(bug, b);
  });

  it('renames clients in the linearizability monitor too', () => {
    for (const variant of ['read-one', 'read-last'] as const) {
      const spec = symmetricRegister({ clients: 3, replicas: 2, variant, reads: 2, crash: true });
      const m = withMonitor(spec);
      const a = exploreSync(spec, { all: true });
      const b = exploreSync(spec, { all: true, symmetry: true });
      expect(verdicts(b)).toEqual(verdicts(a));
      expect(b.states).toBeLessThan(a.states);
      replays(m, b);
    }
  });

  it('refuses a group of unknown kind when linearizability is monitored', () => {
    const m = symmetricRegister({ clients: 3, replicas: 2, variant: 'read-one' });
    const unknown = { ...m, symmetry: m.symmetry!.map((g) => ({ ...g, clients: undefined })) };
    expect(() => withMonitor(unknown)).toThrow(/must say whether it renames history clients/);
  });
});

// Every registered spec config and mutant whose machine declares symmetry (cases without
// it are not generated: the reduction does not apply). A space too large for the budget
// is compared within the largest depth bound that fits: symmetric states lie at the same
// depth, so the violated properties within the bound must be the same.
const symmetryCases = specs.flatMap((spec) =>
  [
    ...spec.configs.filter((c) => c.tier === 'default').map((c) => ({ spec, label: `${spec.name} ${c.name}`, config: c.config, variant: undefined as string | undefined })),
    ...spec.mutants.flatMap((mu) => {
      const config = spec.configs.find((c) => c.name === mu.config)?.config;
      return config === undefined ? [] : [{ spec, label: `${spec.name} ${mu.name} @ ${mu.config}`, config, variant: mu.name as string | undefined }];
    }),
  ].filter((c) => (c.spec.build(c.config, c.variant).symmetry?.length ?? 0) > 0),
);
if (symmetryCases.length > 0) describe('symmetry reduction on the registered specs that declare symmetry', () => {
  const BUDGET = 50_000;
  const DEPTHS = [undefined, 30, 20, 12, 8, 4, 2, 1];
  for (const c of symmetryCases) {
    it(c.label, () => {
      const m = c.spec.build(c.config, c.variant);
      for (const maxDepth of DEPTHS) {
        const bound = maxDepth === undefined ? {} : { maxDepth };
        const full = exploreSync(m, { maxStates: BUDGET, all: true, livelock: false, ...bound });
        if (full.incompleteReason?.startsWith('state budget')) continue;
        const reduced = exploreSync(m, { all: true, symmetry: true, livelock: false, ...bound });
        expect(verdicts(reduced)).toEqual(verdicts(full));
        expect(reduced.states).toBeLessThanOrEqual(full.states);
        return;
      }
      throw new Error(`no depth bound of ${DEPTHS.join(', ')} fits ${BUDGET} states`);
    });
  }
});
