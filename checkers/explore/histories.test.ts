import { describe, expect, it } from 'vitest';
import { specs } from '../../specs/index.ts';
import { checkHistories } from './histories.ts';
import { exploreSync, replayLabels } from './index.ts';
import { rng } from './search.ts';
import { LINEARIZABILITY } from './monitor.ts';
import { racyQueue } from './fixtures/racy-queue.ts';
import { replicatedRegister } from './fixtures/replicated-register.ts';
import type { Machine } from './types.ts';

/** The three ways of checking linearizability, and what each says. */
function modes(m: Machine, maxStates = 200_000) {
  const incremental = exploreSync(m, { maxStates, deadlock: false, linearizability: 'incremental' });
  const product = exploreSync(m, { maxStates, deadlock: false, linearizability: 'histories' });
  const collected = checkHistories(m, { maxStates });
  const lin = (r: typeof incremental) => r.violations.find((v) => v.property === LINEARIZABILITY);
  return { incremental, product, collected, lin };
}

const fixtures: [string, Machine, boolean][] = [
  ['register read-one', replicatedRegister({ clients: 2, replicas: 2, variant: 'read-one', reads: 2 }), false],
  ['register read-last', replicatedRegister({ clients: 3, replicas: 2, variant: 'read-last', reads: 1, writes: [1] }), true],
  ['register read-last, writer crashes', replicatedRegister({ clients: 2, replicas: 2, variant: 'read-last', reads: 2, writes: [1, 2], crash: true }), true],
  ['register read-one, writer crashes', replicatedRegister({ clients: 3, replicas: 2, variant: 'read-one', reads: 1, crash: true }), false],
  ['queue locked', racyQueue({ enqueuers: 2, dequeues: 2, variant: 'locked' }), true],
  ['queue racy', racyQueue({ enqueuers: 2, dequeues: 2, variant: 'racy' }), false],
];

describe('linearizability by histories', () => {
  for (const [name, m, linearizable] of fixtures) {
    it(`agrees with the incremental monitor: ${name}`, () => {
      const { incremental, product, collected, lin } = modes(m);
      for (const r of [incremental, product]) expect(r.status).toBe(linearizable ? 'holds' : 'violation');
      expect(collected.status).toBe(linearizable ? 'holds' : 'violation');
      expect(collected.checked).toBeGreaterThan(0);
      if (!linearizable) {
        // All three find a shortest path to an illegal history: the same length.
        const n = lin(incremental)!.steps.length;
        expect(lin(product)!.steps.length).toBe(n);
        expect(collected.violation!.path.length).toBe(n);
        const { states } = replayLabels(m, collected.violation!.path.map((a) => a.label), collected.violation!.init);
        expect(states).toHaveLength(n + 1);
        expect(collected.violation!.lin.verdict).toBe('illegal');
      }
    });
  }

  it('checks only maximal histories, and says when a budget stopped it', () => {
    const r = checkHistories(replicatedRegister({ clients: 2, replicas: 2, variant: 'read-last', reads: 2, writes: [1, 2] }));
    expect(r.checked).toBeLessThan(r.histories);
    const cut = checkHistories(replicatedRegister({ clients: 3, replicas: 2, variant: 'read-last', reads: 2 }), { maxStates: 50 });
    expect(cut).toMatchObject({ status: 'incomplete', states: 50 });
  });
});

// Every registered spec, its default configs and its mutants: both modes must agree. The
// histories mode explores (state, history) pairs, so both modes are compared on the
// executions of at most D steps, for the largest D in DEPTHS whose space fits the budget
// (violations within D steps must be the same, with the same shortest length); every
// case fits at D = 1. The default run compares a fixed sample of SAMPLE cases per spec,
// drawn with a fixed seed so that every run compares the same ones, whatever the load of
// the machine; INTERLEAVE_FULL=1 compares them all. Cases without a history observer are
// not generated: linearizability is not checked there.
const MONITOR_BUDGET = 2_000;
const HISTORIES_BUDGET = 6_000;
const DEPTHS = [10, 8, 6, 4, 3, 2, 1];
const SAMPLE = 4;
describe('both modes agree on the registered specs', () => {
  const perSpec = specs.map((spec) => {
    const all = [
      ...spec.configs.filter((c) => c.tier === 'default').map((c) => ({ spec, label: `${spec.name} ${c.name}`, config: c.config, variant: undefined as string | undefined })),
      ...spec.mutants.flatMap((mu) => {
        const config = spec.configs.find((c) => c.name === mu.config)?.config;
        return config === undefined ? [] : [{ spec, label: `${spec.name} ${mu.name} @ ${mu.config}`, config, variant: mu.name as string | undefined }];
      }),
    ].filter((c) => c.spec.build(c.config, c.variant).history !== undefined);
    return process.env.INTERLEAVE_FULL ? all : sample(all, SAMPLE, 16);
  });
  const cases = perSpec.flat();
  it('has specs with a history observer to compare', () => {
    expect(perSpec.filter((l) => l.length > 0).length).toBeGreaterThan(0);
  });
  for (const c of cases) {
    it(c.label, () => {
      const m = c.spec.build(c.config, c.variant);
      for (const maxDepth of DEPTHS) {
        const incremental = exploreSync(m, { maxStates: MONITOR_BUDGET, maxDepth, all: true, deadlock: false, livelock: false });
        if (incremental.incompleteReason?.startsWith('state budget')) continue;
        const collected = checkHistories(m, { maxStates: HISTORIES_BUDGET, maxDepth });
        if (collected.incompleteReason?.startsWith('state budget')) continue;
        const found = incremental.violations.find((v) => v.property === LINEARIZABILITY);
        expect(collected.status === 'violation').toBe(found !== undefined);
        if (found) expect(collected.violation!.path.length).toBe(found.steps.length);
        return;
      }
      throw new Error(`no depth of ${DEPTHS.join(', ')} fits ${MONITOR_BUDGET} monitored states and ${HISTORIES_BUDGET} (state, history) pairs`);
    });
  }
});

/** k items of xs, the same ones on every run: a shuffle by a fixed seed, then the first k. */
function sample<T>(xs: T[], k: number, seed: number): T[] {
  const random = rng(seed);
  const a = xs.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a.slice(0, k);
}
