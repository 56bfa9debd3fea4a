import { describe, expect, it } from 'vitest';
import { exploreSync } from '../../checkers/explore/index.ts';
import type { Action, Machine, ObservedEvent } from '../../checkers/explore/types.ts';
import { UNKNOWN, type Model } from '../../checkers/lin/types.ts';
import { buildMachine, type SwarmConfig } from './machine.ts';
import { valOf } from './tuple.ts';
import { spec } from './index.ts';
import type { Baseline } from './equivalence.ts';
import recorded from './equivalence.json' with { type: 'json' };
import { monInit, monInvoke, monReturn, registerSlot, type Mon } from '../kit/object-ghost.ts';
import { freezing } from '../kit/state.ts';

const config = (name: string) => {
  const c = spec.configs.find((x) => x.name === name);
  if (!c) throw new Error(`no config ${name}`);
  return c.config;
};
// SG-Lin is checked by the spec's own ghost monitor; the engine's monitor cross-checks it below.
const run = (m: Machine, options = {}) => exploreSync(m, { linearizability: 'off', ...options });
/** A linearizable max register, the object App. A's construction is NOT (§7.2). */
const maxRegister: Model<number, { f: string; value?: number }, unknown> = {
  name: 'max-register',
  init: () => 0,
  step: (s, input, output) =>
    input.f === 'write' ? { ok: true, state: Math.max(s, input.value!) } : { ok: output === UNKNOWN || output === s, state: s },
  hash: (s) => s,
  describeOperation: (input, output) => (input.f === 'write' ? `write(${input.value})` : `read() -> ${String(output)}`),
  describeState: (s) => String(s),
};
/** A swarm config on the plain machine (machine.ts), whichever machine the spec runs it on. */
function plainMachine(name: string, mutant?: string): Machine {
  const c = config(name);
  if (c.layer !== 'swarm') throw new Error(`${name} is not a swarm-layer config`);
  const { layer: _, ...cfg } = c;
  return buildMachine(cfg, mutant) as unknown as Machine;
}
const readsOf = (labels: string[]) => labels.filter((l) => l.startsWith('R11_READ')).length;
// The numbers recorded before the spec moved onto specs/kit (equivalence.ts): every run
// below that the baseline covers must reproduce them exactly (issue 22, equivalence first).
const baseline = recorded as Baseline;
const configRecord = (name: string) => baseline.configs.find((c) => c.config === name)!;
const mutantRecord = (name: string) => baseline.mutants.find((m) => m.mutant === name)!;

describe('swarm', () => {
  for (const c of spec.configs.filter((x) => x.tier === 'default')) {
    it(`holds at ${c.name}`, () => {
      const r = run(spec.build(c.config));
      expect(r.violations.map((v) => `${v.property}: ${v.message}`)).toEqual([]);
      expect(r.status).toBe('holds');
      const { status, states, transitions, depth } = configRecord(c.name);
      expect({ status: r.status, states: r.states, transitions: r.transitions, depth: r.depth }).toEqual({ status, states, transitions, depth });
    });
  }

  // Mutants at a full-tier config are hunted by seeded random walks, checking only the
  // expected property (README: their shortest counterexamples, measured by BFS).
  const tierOf = (name: string) => spec.configs.find((x) => x.name === name)!.tier;
  for (const m of spec.mutants) {
    it(`${m.name} ${m.kind === 'safety' ? `is killed at ${m.config}` : `passes at ${m.config}`}`, () => {
      const machine = spec.build(config(m.config), m.name);
      const walk = m.kind === 'safety' && tierOf(m.config) === 'full';
      const r = walk
        ? run({ ...machine, invariants: { [m.expect!]: machine.invariants[m.expect!] } }, { strategy: 'simulate', simulate: { runs: 20000, depth: 60, seed: 1 } })
        : run(machine);
      const rec = mutantRecord(m.name);
      const v = r.violations[0];
      const got = { status: r.status, property: v?.property ?? null, length: v ? v.steps.length : null };
      if (walk) expect(got).toEqual(rec.walk);
      else expect({ ...got, states: r.states }).toEqual({ status: rec.status, property: rec.property, length: rec.length, states: rec.states });
      if (m.kind === 'control') {
        expect(r.violations.map((v) => `${v.property}: ${v.message}`)).toEqual([]);
        expect(r.status).toBe('holds');
        return;
      }
      expect(r.status).toBe('violation');
      if (m.expect) expect(r.violations[0].property).toBe(m.expect);
    });
  }

  // A white-box ghost catches these first; the register history must show the bug too.
  for (const m of spec.mutants.filter((x) => x.kind === 'safety' && x.config.startsWith('sg-') && x.expect?.startsWith('SG-') && !['SG-Lin', 'SG-WF-R'].includes(x.expect))) {
    it(`${m.name} is killed at ${m.config} by SG-Lin alone`, () => {
      const machine = spec.build(config(m.config), m.name);
      const search = tierOf(m.config) === 'full' ? { strategy: 'simulate', simulate: { runs: 20000, depth: 60, seed: 1 } } : { strategy: 'dfs' };
      const r = run({ ...machine, invariants: { 'SG-Lin': machine.invariants['SG-Lin'] } }, search);
      expect(r.status).toBe('violation');
      expect(r.violations[0].property).toBe('SG-Lin');
    });
  }

  it('RESP-OVERWRITE survives when a read is answered in the step that applies it, and dies once responses are split', () => {
    // fused, a response is never older than the cache entry it updates (the gap issue 22 closed)
    expect(run(spec.build(config('maxreg-n3-rr'), 'RESP-OVERWRITE')).status).toBe('holds');
    const r = run(spec.build(config('maxreg-n3-rr-split'), 'RESP-OVERWRITE'));
    expect(r.status).toBe('violation');
    const labels = r.violations[0].steps.map((s) => s.action.label);
    // the lowering response is a late one of B's first M.READ, delivered during its second
    expect(labels.filter((l) => l.startsWith('M.READ(B)'))).toHaveLength(2);
    expect(labels.at(-2)).toBe('readResp(mn1→B,⊥₀)');
  });

  it('shows the §7.1 hazard: a write retried without the lock makes reads oscillate v1, v2, v1', () => {
    const r = run(spec.build(config('sg-n1-3r'), 'HAZARD'), { all: true });
    const osc = r.violations.find((v) => v.property === 'Oscillation')!;
    expect(osc.message).toBe("C's reads returned v1, v2, v1");
    const labels = osc.steps.map((s) => s.action.label);
    expect(readsOf(labels)).toBe(3);
    // the retry: A's rewrite with a timestamp above B's lands before the third read
    expect(labels).toContain('A8_write(A→mn0,((2,1),V,v1))');
    expect(r.violations.find((v) => v.property === 'SG-Lin')).toBeDefined();
  });

  it('N3 (strict fast path) keeps every safety property; only the 2P+1 bound breaks', () => {
    const m = spec.build(config('sg-n1-stale'), 'N3');
    const { ['SG-WF-R']: _bound, ...safety } = m.invariants;
    const r = run({ ...m, invariants: safety });
    expect(r.violations.map((v) => v.property)).toEqual([]);
    expect(r.status).toBe('holds');
  });

  it('the engine\'s linearizability monitor agrees with the ghost SG-Lin', () => {
    const ok = exploreSync(spec.build(config('sg-n1-stale')), { linearizability: 'incremental' });
    expect(ok.status).toBe('holds');
    const m = spec.build(config('sg-n1-stale'), 'M6');
    const { ['SG-Lin']: _ghost, ...rest } = m.invariants;
    const bad = exploreSync({ ...m, invariants: rest }, { linearizability: 'incremental' });
    expect(bad.status).toBe('violation');
    expect(bad.violations[0].property).toBe('linearizability');
  });

  it('§7.2: the reliable max register meets its weak spec but is not a linearizable max register', () => {
    // The same maxreg-n3 machine that holds MR-Valid/RR/WR, observed as a max-register
    // history: the engine's monitor finds the Figure-2 trace (a READ concurrent with the
    // write of 7 returns 5 after 7 completed and 5 was written).
    // (maxreg-n3 runs on words, mreg.ts: a process is busy while its M.READ or M.WRITE is.)
    type Words = { pc: Int32Array; mr: Int32Array; mw: Int32Array; last: Int32Array };
    const m = spec.build(config('maxreg-n3')) as Machine<Words, Action & { t: string; p: number }>;
    const scripts = (config('maxreg-n3') as SwarmConfig).scripts;
    const busy = (s: Words, p: number) => s.mr[p] !== 0 || s.mw[p] !== 0;
    const observe = (b: Words, a: Action & { t: string; p: number }, after: Words) => {
      const out: ObservedEvent[] = [];
      if (a.t === 'invoke') {
        const op = scripts[a.p][b.pc[a.p]];
        out.push({ kind: 'invoke', client: a.p, input: op.f === 'mwrite' ? { f: 'write', value: valOf(op.v) } : { f: 'read' } });
      }
      for (let p = 0; p < scripts.length; p++) {
        if (busy(b, p) && !busy(after, p)) out.push({ kind: 'return', client: p, output: scripts[p][after.pc[p] - 1].f === 'mread' ? valOf(after.last[p]) : null });
      }
      return out;
    };
    const r = exploreSync({ ...m, history: { model: maxRegister, clients: 3, observe } }, { linearizability: 'incremental' });
    expect(r.status).toBe('violation');
    expect(r.violations[0].property).toBe('linearizability');
    const labels = r.violations[0].steps.map((s) => s.action.label);
    expect(labels.indexOf('M.WRITE(A,((5,0),V,v5))')).toBeGreaterThan(labels.findIndex((l) => l.startsWith('writeAck') && l.includes('v7')));
  });

  it('the ghost monitor rejects a, b, a and accepts a pending write taking effect late', () => {
    const inv = (g: Mon, c: number, v: number) => monInvoke(registerSlot, g, { c, f: v ? 'write' : 'read', k: 0, v, x: false });
    const ret = (g: Mon, c: number, out: number) => monReturn(registerSlot, g, c, out);
    let g = inv(monInit(registerSlot), 0, 1);
    g = ret(g, 0, 0);
    g = ret(inv(g, 2, 0), 2, 1);
    g = ret(inv(g, 1, 2), 1, 0);
    g = ret(inv(g, 2, 0), 2, 2);
    expect(g.bad).toBe('');
    expect(ret(inv(g, 2, 0), 2, 1).bad).toMatch(/no linearization/);
    let h = inv(monInit(registerSlot), 0, 1); // never returns
    h = ret(inv(h, 1, 0), 1, 0);
    expect(ret(inv(h, 1, 0), 1, 1).bad).toBe('');
  });
});

// The step's copy shares the network, the other processes, a process's cache and the
// ghost's lists (state.ts copy): with every state deep-frozen, a step that changed one of
// them in place throws. Two small configs (the Safe-Guess ones take seconds frozen): split
// requests and responses, CASes and the lock ghost; the max register's cache and writes.
// (lock-n1 on the plain machine, which Safe-Guess's locks run on: the spec runs it on words, lock.ts.)
describe('swarm steps change only what their copy owns', () => {
  for (const name of ['lock-n1', 'maxreg-n3-rr']) {
    it(name, () => {
      const r = run(freezing(plainMachine(name)));
      expect([r.status, r.states]).toEqual(['holds', configRecord(name).states]);
    });
  }
});

// The lock-* and maxreg-* configs run on words (lock.ts, mreg.ts); the plain machine
// (machine.ts) is the one Safe-Guess's locks and M run on. Both, breadth- and depth-first,
// with and without the layers' mutants: the same counts and the same counterexamples, step by step.
describe('the lock and max-register configs on words are the plain machine', () => {
  const summary = (r: ReturnType<typeof run>) => ({
    status: r.status, states: r.states, transitions: r.transitions, depth: r.depth,
    violations: r.violations.map((v) => ({ property: v.property, message: v.message, labels: v.steps.map((s) => s.action.label) })),
  });
  const cases: [string, string | undefined][] = [
    ['lock-spec', undefined], ['lock-n1', undefined], ['lock-n3-split-rw', undefined], ['lock-n1', 'M12'], ['lock-n1', 'M13'], ['lock-n1', 'M14'],
    ['lock-n3', 'M15'], ['lock-n3-split-rw', 'M12'], ['lock-n3-split-rw', 'M14'], ['lock-spec', 'M13'],
    ['maxreg-n3', undefined], ['maxreg-n3-rr', undefined], ['maxreg-n3-rr-split', undefined], ['maxreg-n3', 'M16'], ['maxreg-n3-rr', 'M17'],
    ['maxreg-n3', 'M18'], ['maxreg-n3', 'M19'], ['maxreg-n3', 'N5'], ['maxreg-n3-rr-split', 'RESP-OVERWRITE'], ['maxreg-n3-rr-split', 'M19'], ['maxreg-n3-rr', 'M18'],
  ];
  for (const [name, mutant] of cases) {
    it(`${name}${mutant ? ` with ${mutant}` : ''}`, () => {
      const words = spec.build(config(name), mutant);
      expect(words.layout).toBeDefined();
      for (const strategy of ['bfs', 'dfs'] as const) expect(summary(run(words, { strategy }))).toEqual(summary(run(plainMachine(name, mutant), { strategy })));
    });
  }
});

// The word machines key their invoke actions by process and script position under 64: a
// longer script runs on the plain machine (before, process 0's 65th operation took process
// 1's cached action and the run threw or went wrong).
describe('lock and max-register configs past the words\' bounds run on the plain machine', () => {
  const lockCfg = config('lock-spec');
  const mregCfg = config('maxreg-n3');
  if (lockCfg.layer !== 'swarm' || mregCfg.layer !== 'swarm') throw new Error('lock-spec and maxreg-n3 are swarm-layer configs');
  const trylock = lockCfg.scripts[1][0];
  const mread = { f: 'mread' as const };
  // small shapes (one memory node, two processes) so that the plain machine's run is quick
  const cases: [string, typeof lockCfg][] = [
    ['65 TRYLOCKs in one script', { ...lockCfg, cmax: 3, scripts: [Array.from({ length: 65 }, () => trylock), [lockCfg.scripts[2][0]]] }],
    ['65 max-register READs in one script', { ...mregCfg, f: 0, n: 1, scripts: [Array.from({ length: 65 }, () => mread), [mread]] }],
  ];
  for (const [what, c] of cases) {
    it(what, () => {
      const m = spec.build(c);
      expect(m.layout).toBeUndefined();
      const { layer: _, ...cfg } = c;
      const r = run(m);
      const p = run(buildMachine(cfg) as unknown as Machine);
      expect(r.status).toBe('holds');
      expect([r.states, r.transitions, r.depth]).toEqual([p.states, p.transitions, p.depth]);
      expect(r.states).toBeGreaterThan(65);
    });
  }
});

// The Safe-Guess configs within the words' bounds run on words too (sg.ts). Each default
// and each mutant of Safe-Guess, M and TSL at a Safe-Guess config, on both machines: the
// same counts and the same counterexamples, step by step; with the engine's linearizability
// monitor (the layout path under it), and at the two smaller configs also breadth-first
// with every invariant (`all`) and depth-first.
describe('the Safe-Guess configs on words are the plain machine', () => {
  const summary = (r: ReturnType<typeof run>) => ({
    status: r.status, states: r.states, transitions: r.transitions, depth: r.depth,
    violations: r.violations.map((v) => ({ property: v.property, message: v.message, labels: v.steps.map((s) => s.action.label) })),
  });
  const defaults = spec.configs.filter((c) => c.tier === 'default' && c.name.startsWith('sg-')).map((c) => c.name);
  const cases: [string, string | undefined][] = [
    ...defaults.map((name): [string, undefined] => [name, undefined]),
    ['sg-n1', 'M1'], ['sg-n1', 'M2'], ['sg-n1', 'M3'], ['sg-n1', 'M9'], ['sg-n1', 'N4'], ['sg-n1-stale', 'M6'], ['sg-n1-stale', 'M7'],
    ['sg-n1-stale', 'N1'], ['sg-n1-stale', 'N2'], ['sg-n1-stale', 'N8'], ['sg-n1-same-writer', 'M8'], ['sg-n1-same-writer', 'N7'],
    ['sg-n1-same-writer', 'M4'], ['sg-n1-same-writer', 'M5'], ['sg-n1-same-writer', 'M10'], ['sg-spec-1r', 'M5'], ['sg-spec-1r', 'M3'],
    ['sg-n1-same-writer', 'M12'], ['sg-n1-same-writer', 'M13'], ['sg-n1-same-writer', 'M14'], ['sg-n1-same-writer', 'M15'], ['sg-n1-same-writer', 'M16'],
    ['sg-n1-same-writer', 'M17'], ['sg-n1-same-writer', 'M18'], ['sg-n1-same-writer', 'M19'], ['sg-n1-same-writer', 'N5'], ['sg-n1-same-writer', 'N6'],
    ['sg-n1-same-writer', 'RESP-OVERWRITE'], ['sg-n1-crash', 'M3'],
  ];
  for (const [name, mutant] of cases) {
    it(`${name}${mutant ? ` with ${mutant}` : ''}`, () => {
      const words = spec.build(config(name), mutant);
      expect(words.layout).toBeDefined();
      // the larger configs (25,000-60,000 states) with the monitor only, as `interleave check` runs them
      const all = [{ all: true }, { linearizability: 'incremental' as const }, { strategy: 'dfs' as const }];
      for (const options of ['sg-n1-same-writer', 'sg-n1-three-writes'].includes(name) ? all : all.slice(1, 2)) {
        expect(summary(run(words, options))).toEqual(summary(run(plainMachine(name, mutant), options)));
      }
    });
  }
  it('leaves HAZARD, the dropped leftovers and the rest to the plain machine', () => {
    expect(spec.build(config('sg-n1-3r'), 'HAZARD').layout).toBeUndefined();
    // under M11 and N3 a READ can spin sending requests without bound: past the words' request list
    expect(spec.build(config('sg-n1-stale'), 'N3').layout).toBeUndefined();
    expect(spec.build(config('sg-n1-three-writes'), 'M11').layout).toBeUndefined();
    expect(spec.build(config('sg-n3')).layout).toBeUndefined();
  });
});
