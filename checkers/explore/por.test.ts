import { describe, expect, it } from 'vitest';
import { specs } from '../../specs/index.ts';
import { exploreSync, replayLabels } from './index.ts';
import { withPor } from './por.ts';
import { localWork } from './fixtures/local-work.ts';
import { racyCounter, type RacyAction } from './fixtures/racy-counter.ts';
import { symmetricRacyCounter } from './fixtures/symmetric.ts';
import type { Action, ExploreResult, Machine } from './types.ts';

const properties = (r: ExploreResult) => r.violations.map((v) => v.property).sort();

/** Each counterexample replays on the unreduced machine and ends where its property fails. */
function replays<S, A extends Action>(m: Machine<S, A>, r: ExploreResult) {
  for (const v of r.violations) {
    const { states } = replayLabels(m, v.steps.map((s) => s.action.label));
    const last = states[states.length - 1];
    if (v.property === 'deadlock') expect(m.actions(last)).toHaveLength(0);
    else expect(m.invariants[v.property](last)).not.toBe(true);
  }
}

describe('partial-order reduction', () => {
  it('explores private work in one order: fewer states, same verdict', () => {
    const m = localWork(3, 1, 2);
    const full = exploreSync(m);
    const reduced = exploreSync(m, { por: true });
    expect(full.status).toBe('holds');
    expect(reduced.status).toBe('holds');
    expect(reduced.states).toBeLessThan(full.states / 2);
  });

  it('still finds the lost update and the deadlock, with real counterexamples', () => {
    for (const m of [localWork(2, 1, 2, { lostUpdateIsBug: true }), localWork(3, 1, 1, { lostUpdateIsBug: true }), localWork(2, 2, 1, { stuck: true })]) {
      const full = exploreSync(m, { all: true });
      const reduced = exploreSync(m, { all: true, por: true });
      expect(full.status).toBe('violation');
      expect(properties(reduced)).toEqual(properties(full));
      replays(m, reduced);
    }
  });

  it('changes nothing where every step is shared, or without footprints', () => {
    const shared = { ...racyCounter(3, 2), actor: (a: RacyAction) => `p${a.p}`, footprint: () => ({ reads: ['x'], writes: ['x'] }) };
    expect(exploreSync(shared, { por: true })).toMatchObject({ states: exploreSync(shared).states, transitions: exploreSync(shared).transitions });
    expect(exploreSync(racyCounter(2, 2), { por: true })).toMatchObject({ states: 57, transitions: 82 });
  });

  it('keeps a step of every actor on cycles (the proviso)', () => {
    // Actor a spins through private states forever; b's one step sets the flag the invariant checks.
    type S = { a: number; b: boolean };
    const m: Machine<S, Action & { who: string }> = {
      init: () => [{ a: 0, b: false }],
      actions: (s) => [{ label: 'spin(a)', who: 'a' }, ...(s.b ? [] : [{ label: 'flip(b)', who: 'b' }])],
      next: (s, x) => (x.who === 'a' ? { ...s, a: (s.a + 1) % 3 } : { ...s, b: true }),
      invariants: { notFlipped: (s) => (s.b ? 'b flipped' : true) },
      actor: (x) => x.who,
      footprint: (_s, x) => (x.who === 'a' ? { reads: ['a.n'], writes: ['a.n'] } : { reads: ['b.f'], writes: ['b.f'] }),
    };
    const r = exploreSync(m, { por: true });
    expect(r.status).toBe('violation');
    replays(m, r);
  });

  it('reports what it pruned', () => {
    const m = withPor(localWork(3, 1, 2));
    exploreSync(m, { linearizability: 'off' });
    expect(m.porStats.reduced).toBeGreaterThan(0);
    expect(m.porStats.pruned).toBeGreaterThan(0);
  });

  it('composes with symmetry', () => {
    const m = { ...symmetricRacyCounter(3, 2, { lostUpdateIsBug: true }), actor: (a: RacyAction) => `p${a.p}`, footprint: () => ({ reads: ['x'], writes: ['x'] }) };
    expect(properties(exploreSync(m, { por: true, symmetry: true }))).toEqual(properties(exploreSync(m)));
  });
});

// Every registered mutant whose machine declares footprints and actors (others are not
// generated: the reduction does not apply). A space too large for the budget is compared
// within the largest depth bound that fits; there a reduced search may need longer paths,
// so it must find no property the full search does not (every counterexample is real).
const porCases = specs.flatMap((spec) =>
  spec.mutants.flatMap((mu) => {
    const config = spec.configs.find((c) => c.name === mu.config)?.config;
    if (config === undefined) return [];
    const m = spec.build(config, mu.name);
    return m.footprint && m.actor ? [{ spec, label: `${spec.name} ${mu.name} @ ${mu.config}`, config, variant: mu.name as string | undefined }] : [];
  }),
);
if (porCases.length > 0) describe('partial-order reduction on the registered specs that declare footprints', () => {
  const BUDGET = 50_000;
  const DEPTHS = [undefined, 30, 20, 12, 8, 4, 2, 1];
  for (const c of porCases) {
    it(c.label, () => {
      const m = c.spec.build(c.config, c.variant);
      for (const maxDepth of DEPTHS) {
        const bound = maxDepth === undefined ? {} : { maxDepth };
        const full = exploreSync(m, { maxStates: BUDGET, all: true, livelock: false, ...bound });
        if (full.incompleteReason?.startsWith('state budget')) continue;
        const reduced = exploreSync(m, { all: true, por: true, livelock: false, ...bound });
        if (maxDepth === undefined) expect(properties(reduced)).toEqual(properties(full));
        else for (const p of properties(reduced)) expect(properties(full)).toContain(p);
        expect(reduced.states).toBeLessThanOrEqual(full.states);
        return;
      }
      throw new Error(`no depth bound of ${DEPTHS.join(', ')} fits ${BUDGET} states`);
    });
  }
});
