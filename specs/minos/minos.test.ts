// The MINOS spec: the default configs hold (linearizability included), every safety mutant
// is caught by the property the catalogue names, the controls hold, and the findings
// reproduce. Cases are generated from the SpecDef's tables.

import { describe, expect, it } from 'vitest';
import { exploreSync } from '../../checkers/explore/index.ts';
import type { Machine } from '../../checkers/explore/types.ts';
import { conformanceJobs, describeOutcome, jobMachine, runJob } from '../../checkers/explore/conformance.ts';
import { freezing } from '../kit/state.ts';
import { sameStates } from '../kit/words.ts';
import { encode } from './state.ts';
import { spec } from './index.ts';

const configOf = (name: string) => {
  const c = spec.configs.find((x) => x.name === name);
  if (!c) throw new Error(`no config ${name}`);
  return c.config;
};

/** The machine with only the named invariant, so the expected property is the one that must fail. */
function only(m: Machine, property: string): Machine {
  if (property === 'linearizability') return { ...m, invariants: {} };
  if (!(property in m.invariants)) throw new Error(`no invariant ${property}`);
  return { ...m, invariants: { [property]: m.invariants[property] } };
}

// H-Lin-TS holding implies linearizability (writes in TS order, each read right after the
// write it returned, is a linearization), so the largest default config skips the monitor,
// which doubles its states; the monitor checks every other config (README, Properties).
const WITHOUT_MONITOR = new Set(['B-synch']);

// The conformance runner judges (checkers/explore/conformance.ts), as interleave check does,
// on the machine narrowed to the property the catalogue names.
const jobs = conformanceJobs(spec);

describe('minos default configs hold', () => {
  for (const job of jobs.filter((j) => j.kind === 'config')) {
    it(job.name, () => {
      const o = runJob(job, jobMachine(spec, job), { linearizability: WITHOUT_MONITOR.has(job.name) ? 'off' : 'incremental' });
      expect(o.ok, describeOutcome(o)).toBe(true);
    });
  }
});

describe('minos mutants', () => {
  for (const job of jobs.filter((j) => j.kind === 'safety' || j.kind === 'control')) {
    it(`${job.name} (${job.kind}) at ${job.config}`, () => {
      const machine = jobMachine(spec, job);
      const property = job.expect!;
      const o =
        job.kind === 'control'
          ? runJob(job, machine, { linearizability: 'incremental' })
          : runJob(job, only(machine, property), { linearizability: property === 'linearizability' ? 'incremental' : 'off', deadlock: property === 'deadlock' });
      expect(o.ok, describeOutcome(o)).toBe(true);
    });
  }
});

describe('minos findings reproduce', () => {
  for (const job of jobs.filter((j) => j.kind === 'finding')) {
    it(`${job.name} at ${job.config}`, () => {
      const o = runJob(job, only(jobMachine(spec, job), job.expect!), { linearizability: 'off' });
      expect(o.ok, describeOutcome(o)).toBe(true);
    });
  }
});

// The step's copy is copy-on-write by action (machine.ts writesOf): with every state
// deep-frozen, a step that changed a record or thread it shares with the state before throws.
describe('minos steps change only what their copy owns', () => {
  for (const name of ['B2-synch', 'F-strict', 'F-renf', 'F-scope']) {
    it(name, () => {
      const r = exploreSync(freezing(spec.build(configOf(name))), { linearizability: 'off' });
      expect(r.status).toBe('holds');
    });
  }
  // Steps only mutants take (a persist after its ACK, the split read's load), which share
  // their record with the state before (machine.ts `readsRecord`): a write to it would throw.
  for (const [variant, name] of [['M2', 'A-synch'], ['M10', 'A-synch'], ['M14', 'A-strict'], ['M21', 'A-synch']]) {
    it(`${variant} on ${name}`, () => {
      const r = exploreSync(freezing(spec.build(configOf(name), variant)), { linearizability: 'off', all: true });
      expect(r.states).toBeGreaterThan(30);
      expect(r.violations.map((v) => v.message).join('; ')).not.toMatch(/read.only|not extensible/);
    });
  }
});

// The engine keys states by encodeWords (byte-packed, parts' words kept by identity): it
// must tell states apart exactly as the plain string view does, over every transition.
describe('minos encodeWords tells states apart as encode does', () => {
  for (const name of ['A-synch', 'B2-synch', 'F-strict', 'F-renf', 'F-scope']) {
    it(name, () => {
      const m = spec.build(configOf(name));
      const r = sameStates(m, encode, m.encode!);
      expect(r.mismatch?.why).toBeUndefined();
      expect(r.states).toBeGreaterThan(50);
    });
  }
});
