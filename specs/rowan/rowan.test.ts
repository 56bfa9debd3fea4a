// The default configs hold (with linearizability per key checked at every state), every
// safety mutant of the catalogue whose config is a default one is killed by the property
// it names, and the M22 finding reproduces. Cases come from the spec's own tables.
// Mutants and findings at 'full' configs run in `interleave check --full`.
import { describe, expect, it } from 'vitest';

// The default configs take tens of seconds each on a loaded machine.
const SLOW = 900_000;
import { exploreSync } from '../../checkers/explore/index.ts';
import { referenceBfs } from '../../checkers/explore/reference.ts';
import type { Machine } from '../../checkers/explore/types.ts';
import { spec } from './index.ts';

const configOf = (name: string) => {
  const c = spec.configs.find((x) => x.name === name);
  if (!c) throw new Error(`no config ${name}`);
  return c;
};
const isDefault = (name: string) => configOf(name).tier === 'default';

describe('rowan: default configs hold', () => {
  for (const c of spec.configs.filter((x) => x.tier === 'default')) {
    it(`${c.name}: ${c.description}`, () => {
      const r = exploreSync(spec.build(c.config));
      expect(r.violations.map((v) => `${v.property}: ${v.message}`)).toEqual([]);
      expect(r.status).toBe('holds');
      expect(r.neverEnabled).not.toContain('putFinish');
      expect(r.neverEnabled).not.toContain('promoFinish');
    }, SLOW);
  }
});

describe('rowan: mutants', () => {
  for (const m of spec.mutants.filter((x) => isDefault(x.config))) {
    it(`${m.name} (${m.kind}) at ${m.config}: ${m.description}`, () => {
      const r = exploreSync(spec.build(configOf(m.config).config, m.name));
      if (m.kind === 'control') {
        expect(r.status).toBe('holds');
      } else {
        expect(r.status).toBe('violation');
        expect(r.violations[0].property).toBe(m.expect);
      }
    }, SLOW);
  }
});

describe('rowan: findings', () => {
  // the findings are the point of RK-MIG, so they run here although RK-MIG is a 'full' config
  for (const f of spec.findings ?? []) {
    it(`${f.name} reproduces at ${f.config} as a ${f.expect} violation`, () => {
      const r = exploreSync(spec.build(configOf(f.config).config, f.variant));
      expect(r.status).toBe('violation');
      expect(r.violations[0].property).toBe(f.expect);
    }, SLOW);
  }
});

// States share unchanged servers, segments and entries with their predecessors (next()
// copies only what a step writes); a step that wrote into a shared object would corrupt
// other states. Frozen states make any such write throw.
function deepFreeze<T>(x: T): T {
  if (x && typeof x === 'object' && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const k of Object.keys(x)) deepFreeze((x as Record<string, unknown>)[k]);
  }
  return x;
}

describe('rowan: sharing discipline and engines agree', () => {
  const rk0 = configOf('RK-0').config;
  const small = { ...rk0, failKinds: ['crash' as const], clients: rk0.clients.map((c) => c.slice(0, 1)) };
  it('next() never writes into a previous state (frozen states, every step of a small config)', () => {
    const m = spec.build(small) as Machine;
    const frozen: Machine = { ...m, init: () => m.init().map(deepFreeze), next: (s, a) => deepFreeze(m.next(s, a)) };
    const plain = exploreSync(m, { linearizability: 'off' });
    const cold = exploreSync(frozen, { linearizability: 'off' });
    expect(cold.status).toBe('holds');
    expect(cold.states).toBe(plain.states);
  });
  it('the compact view is injective: the same count as encoding the whole state', () => {
    const m = spec.build({ ...configOf('RK-CV').config });
    const { view: _view, ...whole } = m;
    const a = exploreSync(m, { linearizability: 'off' });
    const b = exploreSync(whole as Machine, { linearizability: 'off' });
    expect(a.status).toBe('holds');
    expect(a.states).toBe(b.states);
  });
  it('the explorer and the plain BFS count the same states', () => {
    const m = spec.build({ ...small, failures: 0 });
    const fast = exploreSync(m, { linearizability: 'off' });
    const slow = referenceBfs(m);
    expect(fast.status).toBe('holds');
    expect(slow.violation).toBeUndefined();
    expect(fast.states).toBe(slow.states);
  });
});
