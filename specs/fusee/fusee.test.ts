// The default configs hold, every safety mutant of the catalogue is killed at its config
// by the property it names, the benign controls hold, and the M15 finding reproduces. The
// cases come from the spec's own tables; no verdict is written here by hand.

import { describe, expect, it } from 'vitest';
import { exploreSync } from '../../checkers/explore/index.ts';
import { referenceBfs } from '../../checkers/explore/reference.ts';
import { conformanceJobs, describeOutcome, jobMachine, runJob, type ConformanceJob } from '../../checkers/explore/conformance.ts';
import { freezing } from '../kit/state.ts';
import { spec } from './index.ts';
import { buildMachine } from './machine.ts';
import recorded from './explore-counts.json' with { type: 'json' };

// The counts, verdicts and counterexample lengths of every config, mutant and finding,
// recorded before the open workload (trace.ts) was added: the closed configs must explore
// exactly as they did.
type Counts = { status: string; states: number; transitions: number; depth: number; property: string | null; length: number | null };
const counts = (r: ReturnType<typeof exploreSync>): Counts => ({
  status: r.status,
  states: r.states,
  transitions: r.transitions,
  depth: r.depth,
  property: r.violations[0]?.property ?? null,
  length: r.violations[0] ? r.violations[0].steps.length : null,
});
const before = (key: string): Counts => {
  const { status, states, transitions, depth, property, length } = (recorded as Record<string, Counts>)[key];
  return { status, states, transitions, depth, property, length };
};

const configOf = (name: string) => {
  const c = spec.configs.find((x) => x.name === name);
  if (!c) throw new Error(`no config ${name}`);
  return c.config;
};
// The spec carries its own linearizability monitor (the LIN invariant), so the engine's is off.
const run = (config: string, variant?: string) => exploreSync(spec.build(configOf(config), variant), { linearizability: 'off' });

const WIN = ['', 'Rule 1', 'Rule 2', 'Rule 3', 'LOSE', 'FINISH', 'FAIL'];

describe('fusee: default configs hold', () => {
  // Every decision of Alg. 2 and every recovery case of Fig. 9 is reached somewhere.
  const reached = new Set<string>();
  for (const c of spec.configs.filter((x) => x.tier === 'default')) {
    it(`${c.name}: ${c.description}`, () => {
      const machine = buildMachine(c.config);
      const next = machine.next;
      machine.next = (s, a) => {
        const after = next(s, a);
        if (a.step === 'recoverClient') reached.add(a.label.replace(/^.*, /, '').replace(')', ''));
        if (a.c >= 0 && s.cl[a.c].win !== after.cl[a.c].win && after.cl[a.c].win) reached.add(WIN[after.cl[a.c].win]);
        if (a.step === 'decide') reached.add('master decides');
        return after;
      };
      const r = exploreSync(machine, { linearizability: 'off' });
      expect(r.violations.map((v) => `${v.property}: ${v.message}`)).toEqual([]);
      expect(r.status).toBe('holds');
      expect(r.states).toBeGreaterThan(50);
      expect(counts(r)).toEqual(before(`config ${c.name}`));
    });
  }
  it('reaches every rule, every loser outcome and every recovery case', () => {
    expect([...reached].sort()).toEqual(
      ['FAIL', 'FINISH', 'LOSE', 'Rule 1', 'Rule 2', 'Rule 3', 'c0', 'c1 redo', 'c2', 'c3', 'committed', 'master decides'].sort(),
    );
  });
});

// Mutants and findings judged by the conformance runner, as interleave check does (with the
// spec's own LIN in place of the engine's monitor); full-tier configs run in `check --full`.
const jobs = conformanceJobs(spec, { configs: false }).filter((j) => j.tier === 'default');
const judged = (job: ConformanceJob) => {
  const o = runJob(job, jobMachine(spec, job), { linearizability: 'off' });
  expect(o.ok, describeOutcome(o)).toBe(true);
  // The catalogue's property is the first one violated.
  if (job.kind !== 'control') expect(o.violated[0]).toBe(job.expect);
  return o.result!;
};

describe('fusee: mutants', () => {
  for (const job of jobs.filter((j) => j.kind !== 'finding')) {
    const m = spec.mutants.find((x) => x.name === job.name)!;
    it(`${m.name} (${m.kind}) at ${m.config}: ${m.description}`, () => expect(counts(judged(job))).toEqual(before(`mutant ${m.name}`)));
  }
});

describe('fusee: M14 is benign only without client crashes', () => {
  it('at E (1 MN + 1 client crash) the c2 recovery CASes the primary over stale backups', () => {
    const r = run('E', 'M14');
    expect(r.status).toBe('violation');
    expect(r.violations[0].property).toBe('I18');
  });
});

describe('fusee: findings', () => {
  for (const job of jobs.filter((j) => j.kind === 'finding')) {
    it(`${job.name} reproduces at ${job.config} as a ${job.expect} violation`, () => expect(counts(judged(job))).toEqual(before(`finding ${job.name}`)));
  }
});

describe.runIf(process.env.INTERLEAVE_FULL === '1')('fusee: full-tier configs and their mutants explore as recorded', () => {
  for (const [key, rec] of Object.entries(recorded as Record<string, Counts & { config: string; variant: string | null; tier: string }>)) {
    if (rec.tier !== 'full') continue;
    it(key, () => expect(counts(run(rec.config, rec.variant ?? undefined))).toEqual(before(key)));
  }
});

describe('fusee: the explorer and the plain BFS agree', () => {
  for (const [config, variant] of [['A1', undefined], ['C2', undefined], ['C2', 'M7'], ['D', 'M12']] as const) {
    it(`${config}${variant ? ` ${variant}` : ''}`, () => {
      const machine = spec.build(configOf(config), variant);
      const fast = exploreSync(machine, { linearizability: 'off' });
      const plain = referenceBfs(machine);
      expect(fast.states).toBe(plain.states);
      expect(fast.violations[0]?.property).toBe(plain.violation?.property);
      if (plain.violation) expect(fast.violations[0].steps.length).toBe(plain.violation.path.length);
      else expect(fast.transitions).toBe(plain.transitions);
    });
  }
});

// Steps copy a client, the ghost or the replicas on their first change and then write in
// place (state.ts `ownClient`): with every state frozen, a write to a part the step shares
// with its parent would throw. Small configs through every kind of step: the rules, client
// recovery, the master's episode, the KV level.
describe('fusee: steps change only what they copied', () => {
  for (const [config, variant] of [['A1', undefined], ['C2', undefined], ['K2', undefined], ['D', 'M12']] as const) {
    it(`${config}${variant ? ` ${variant}` : ''}`, () => {
      const plain = exploreSync(spec.build(configOf(config), variant), { linearizability: 'off' });
      const frozen = exploreSync(freezing(spec.build(configOf(config), variant)), { linearizability: 'off' });
      expect(counts(frozen)).toEqual(counts(plain));
    });
  }
});

describe("fusee: the spec's LIN and the explorer's own linearizability monitor agree", () => {
  for (const [config, variant] of [['A0', 'M4'], ['D', 'M13'], ['K1', 'M23'], ['C2', undefined]] as const) {
    it(`${config}${variant ? ` ${variant}` : ''}`, () => {
      const machine = spec.build(configOf(config), variant);
      const own = exploreSync({ ...machine, invariants: { LIN: machine.invariants.LIN } }, { linearizability: 'off' });
      const engine = exploreSync({ ...machine, invariants: {} }, { linearizability: 'incremental' });
      expect(engine.status).toBe(own.status);
      expect(engine.violations[0]?.steps.length).toBe(own.violations[0]?.steps.length);
    });
  }
});
