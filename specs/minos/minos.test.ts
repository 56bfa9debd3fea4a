// The MINOS spec: the default configs hold (linearizability included), every safety mutant
// is caught by the property the catalogue names, the controls hold, and the findings
// reproduce. Cases are generated from the SpecDef's tables.

import { describe, expect, it } from 'vitest';
import { exploreSync } from '../../checkers/explore/index.ts';
import type { Machine } from '../../checkers/explore/types.ts';
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

describe('minos default configs hold', () => {
  for (const c of spec.configs.filter((x) => x.tier === 'default')) {
    it(c.name, () => {
      const r = exploreSync(spec.build(c.config), { linearizability: WITHOUT_MONITOR.has(c.name) ? 'off' : 'incremental' });
      expect(r.violations.map((v) => `${v.property}: ${v.message}`)).toEqual([]);
      expect(r.status).toBe('holds');
    });
  }
});

describe('minos mutants', () => {
  for (const m of spec.mutants) {
    it(`${m.name} (${m.kind}) at ${m.config}`, () => {
      const machine = spec.build(configOf(m.config), m.name);
      if (m.kind === 'control') {
        const r = exploreSync(machine, { linearizability: 'incremental' });
        expect(r.violations.map((v) => `${v.property}: ${v.message}`)).toEqual([]);
        expect(r.status).toBe('holds');
        return;
      }
      const property = m.expect!;
      const r = exploreSync(only(machine, property), {
        linearizability: property === 'linearizability' ? 'incremental' : 'off',
        deadlock: property === 'deadlock',
      });
      expect(r.status).toBe('violation');
      expect(r.violations[0].property).toBe(property);
    });
  }
});

describe('minos findings reproduce', () => {
  for (const f of spec.findings ?? []) {
    it(`${f.name} at ${f.config}`, () => {
      const r = exploreSync(only(spec.build(configOf(f.config), f.variant), f.expect), { linearizability: 'off' });
      expect(r.status).toBe('violation');
      expect(r.violations[0].property).toBe(f.expect);
    });
  }
});
