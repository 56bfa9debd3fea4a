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

  it('answers the H1 question: the indirection shadows the RMW done at the target, and the acknowledged write is lost', () => {
    const r = exploreSync(spec.build(config('B1'), 'H1'), { all: true });
    const insert = r.violations.find((v) => v.property === 'INV-COND-INSERT')!;
    const labels = insert.steps.map((s) => s.action.label);
    expect(labels).toContain('tgtRecvControl(TransferedOwnership)');
    expect(labels.at(-1)).toBe('tgtRecvData(s1)');
    expect(insert.message).toMatch(/inserted a migrated k = 7 over the latest value 8/);
    const lost = r.violations.find((v) => v.property === 'INV-NOLOST')!;
    expect(lost.message).toMatch(/T resolves k to 7, but the latest write left 8/);
    expect(lost.steps.some((s) => /clientRecv\(c1←T\)/.test(s.action.label))).toBe(true);
  });
});
