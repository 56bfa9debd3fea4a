import { describe, expect, it } from 'vitest';
import { exploreSync } from '../../checkers/explore/index.ts';
import { spec } from './index.ts';

const config = (name: string) => {
  const c = spec.configs.find((x) => x.name === name);
  if (!c) throw new Error(`no config ${name}`);
  return c.config;
};

describe('shadowfax', () => {
  for (const c of spec.configs.filter((x) => x.tier === 'default')) {
    it(`holds at ${c.name}, linearizability included`, () => {
      const r = exploreSync(spec.build(c.config));
      expect(r.violations.map((v) => `${v.property}: ${v.message}`)).toEqual([]);
      expect(r.status).toBe('holds');
    });
  }

  for (const m of spec.mutants) {
    it(`${m.name} ${m.kind === 'safety' ? `is killed at ${m.config}` : `passes at ${m.config}`}`, () => {
      const r = exploreSync(spec.build(config(m.config), m.name));
      if (m.kind === 'control') {
        expect(r.status).toBe('holds');
        return;
      }
      expect(r.status).toBe('violation');
      if (m.expect) expect(r.violations[0].property).toBe(m.expect);
    });
  }

  it('answers the H1 question with a lost write: the indirection shadows the RMW done at the target', () => {
    const r = exploreSync(spec.build(config('B1'), 'H1'));
    const labels = r.violations[0].steps.map((s) => s.action.label);
    expect(labels).toContain('tgtRecvControl(TransferedOwnership)');
    expect(labels.at(-1)).toBe('tgtRecvData(s1)');
    expect(r.violations[0].message).toMatch(/inserted a migrated k = 7 over the latest value 8/);
  });
});
