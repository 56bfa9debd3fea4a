// The swarm spec's equivalence baseline (issue 22, "equivalence first"): for every config,
// distinct states, transitions, depth and verdict; for every mutant and control, its
// verdict, the property its shortest counterexample breaks and that counterexample's
// length (breadth-first, every invariant on), plus the seeded random walk the tests use at
// full-tier configs and, for Safe-Guess mutants a white-box ghost catches first, the
// shortest counterexample of SG-Lin alone. `equivalence.json` holds the numbers recorded
// before the spec moved onto specs/kit; `equivalence.test.ts` checks them.
//
//   npx tsx specs/swarm/equivalence.ts            # print the numbers as JSON
//   npx tsx specs/swarm/equivalence.ts --write    # record them in equivalence.json
//
// Runs are bounded by a state count, not by time, so that an incomplete run stops at the
// same state on a busy machine and an idle one. Temporary: once the shared conformance
// runner's `npm run equivalence` covers swarm, this file goes.

import { writeFileSync } from 'node:fs';
import { exploreSync } from '../../checkers/explore/index.ts';
import type { ExploreOptions, ExploreResult, Machine } from '../../checkers/explore/types.ts';
import { spec } from './index.ts';

/** Full-tier configs stop here (the five that do not finish in 90 s; the others finish below it). */
export const FULL_MAX_STATES = 250_000;
/** The tests' hunt at full-tier configs (swarm.test.ts). */
export const WALK = { strategy: 'simulate', simulate: { runs: 20000, depth: 60, seed: 1 } } as const;

export interface ConfigRecord {
  config: string;
  tier: 'default' | 'full';
  status: ExploreResult['status'];
  states: number;
  transitions: number;
  depth: number;
  /** With the engine's own linearizability monitor on (Safe-Guess configs, default tier). */
  incremental?: { status: ExploreResult['status']; states: number; transitions: number; depth: number };
}

export interface MutantRecord {
  mutant: string;
  config: string;
  status: ExploreResult['status'];
  property: string | null;
  length: number | null;
  states: number;
  /** The seeded walk of the tests at a full-tier config, checking the expected property only. */
  walk?: { status: ExploreResult['status']; property: string | null; length: number | null };
  /** Shortest counterexample with SG-Lin as the only invariant (BFS; dfs in the tests). */
  sgLinAlone?: { status: ExploreResult['status']; length: number | null };
}

export interface Baseline {
  configs: ConfigRecord[];
  mutants: MutantRecord[];
}

const cfg = (name: string) => spec.configs.find((c) => c.name === name)!;
const only = (m: Machine, prop: string): Machine => ({ ...m, invariants: { [prop]: m.invariants[prop] } });
const first = (r: ExploreResult) => r.violations[0];

export function recordConfig(name: string): ConfigRecord {
  const c = cfg(name);
  const opts: ExploreOptions = { linearizability: 'off', ...(c.tier === 'full' ? { maxStates: FULL_MAX_STATES } : {}) };
  const r = exploreSync(spec.build(c.config), opts);
  const rec: ConfigRecord = { config: name, tier: c.tier, status: r.status, states: r.states, transitions: r.transitions, depth: r.depth };
  if (c.tier === 'default' && name.startsWith('sg-')) {
    const i = exploreSync(spec.build(c.config), { linearizability: 'incremental' });
    rec.incremental = { status: i.status, states: i.states, transitions: i.transitions, depth: i.depth };
  }
  return rec;
}

export function recordMutant(name: string): MutantRecord {
  const m = spec.mutants.find((x) => x.name === name)!;
  const c = cfg(m.config);
  const machine = spec.build(c.config, m.name);
  const r = exploreSync(machine, { linearizability: 'off' });
  const v = first(r);
  const rec: MutantRecord = {
    mutant: m.name, config: m.config, status: r.status, property: v?.property ?? null, length: v ? v.steps.length : null, states: r.states,
  };
  if (m.kind === 'safety' && c.tier === 'full') {
    const w = exploreSync(only(machine, m.expect!), { linearizability: 'off', ...WALK });
    rec.walk = { status: w.status, property: first(w)?.property ?? null, length: first(w) ? first(w).steps.length : null };
  }
  if (m.kind === 'safety' && m.config.startsWith('sg-') && v && v.property !== 'SG-Lin' && machine.invariants['SG-Lin']) {
    const a = exploreSync(only(machine, 'SG-Lin'), { linearizability: 'off' });
    rec.sgLinAlone = { status: a.status, length: first(a) ? first(a).steps.length : null };
  }
  return rec;
}

export function recordAll(): Baseline {
  return { configs: spec.configs.map((c) => recordConfig(c.name)), mutants: spec.mutants.map((m) => recordMutant(m.name)) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const t0 = Date.now();
  const b = recordAll();
  const text = `${JSON.stringify(b, null, 1)}\n`;
  if (process.argv.includes('--write')) writeFileSync(new URL('./equivalence.json', import.meta.url), text);
  else process.stdout.write(text);
  console.error(`recorded ${b.configs.length} configs and ${b.mutants.length} mutants in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}
