// The default configs hold (with linearizability per key checked at every state) and
// enable the steps they exist for, every safety mutant of the catalogue whose config is a
// default one is killed by the property it names, both findings reproduce, the split-DMA
// window is reached, and M23's counterexample replays. Cases come from the spec's own
// tables. Full configs and their mutants run in `interleave check --full` and
// `interleave mutants`, and here with INTERLEAVE_FULL=1.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The default configs take tens of seconds each on a loaded machine.
const SLOW = 900_000;
import { exploreSync, replayLabels } from '../../checkers/explore/index.ts';
import { referenceBfs } from '../../checkers/explore/reference.ts';
import type { ExploreResult, Machine } from '../../checkers/explore/types.ts';
import { conformanceJobs, describeOutcome, jobMachine, runJob, type ConformanceJob, type Outcome } from '../../checkers/explore/conformance.ts';
import { sameStates } from '../kit/words.ts';
import { spec } from './index.ts';
import type { RowanConfig, RowanState } from './state.ts';

const configOf = (name: string) => {
  const c = spec.configs.find((x) => x.name === name);
  if (!c) throw new Error(`no config ${name}`);
  return c;
};

/** The steps a config exists to exercise; each must be enabled somewhere in its space. */
const mustEnable = (c: RowanConfig) => [
  'putFinish',
  ...(c.failures > 0 ? ['promoFinish'] : []),
  ...(c.gc > 0 ? ['cleanFix'] : []),
  ...(c.dma ? ['allocSlot', 'dmaDone', 'retry'] : []),
  ...(c.tailSkip ? ['rnicLandNext'] : []),
];
const enabled = (r: ExploreResult) => r.coverage.filter((x) => x.enabled > 0).map((x) => x.family);

// Every config, mutant and finding job, judged by the conformance runner as interleave check does.
const jobs = conformanceJobs(spec, { full: true });
const descriptionOf = (job: ConformanceJob) => (job.kind === 'config' ? configOf(job.name).description : spec.mutants.find((m) => m.name === job.name)?.description ?? '');

// One exploration per job: a later test that looks at the same run (CV-OFF-BY-ONE's
// counterexample) reads it from here.
const outcomes = new Map<string, Outcome>();
function outcome(job: ConformanceJob): Outcome {
  let o = outcomes.get(job.name);
  if (!o) outcomes.set(job.name, (o = runJob(job, jobMachine(spec, job))));
  return o;
}
const jobNamed = (name: string) => jobs.find((j) => j.name === name)!;

function conforms(job: ConformanceJob) {
  const o = outcome(job);
  expect(o.ok, describeOutcome(o)).toBe(true);
  if (job.kind === 'config') expect(enabled(o.result!)).toEqual(expect.arrayContaining(mustEnable(configOf(job.name).config)));
  // The catalogue's property is the first one violated.
  if (job.kind === 'safety') expect(o.violated[0]).toBe(job.expect);
}

describe('rowan: default configs hold', () => {
  for (const job of jobs.filter((j) => j.kind === 'config' && j.tier === 'default')) it(`${job.name}: ${descriptionOf(job)}`, () => conforms(job), SLOW);
});

// Mutants whose recorded config (RK-0, RK-1) is large are killed here at a reduction of it
// with fewer clients or failure kinds, by the same property in as many steps as the
// equivalence table records at their config (npm run equivalence checks that); their
// recorded configs run with INTERLEAVE_FULL=1, and in `interleave check` and `mutants`.
const recorded = JSON.parse(readFileSync(new URL('./equivalence.json', import.meta.url), 'utf8')) as { mutants: Record<string, { length?: number }> };
const op = (f: 'put' | 'del' | 'get') => ({ f, k: 0 });
const rk0 = configOf('RK-0').config;
const rk1 = configOf('RK-1').config;
const reduced: Record<string, { name: string; config: RowanConfig }> = {};
for (const m of ['M6a', 'M8']) reduced[m] = { name: 'RK-0 with c0 PUT;GET alone', config: { ...rk0, clients: [[op('put'), op('get')]] } };
reduced.M10 = { name: 'RK-0 with c0 PUT ∥ c1 DEL and crashes only', config: { ...rk0, clients: [[op('put')], [op('del')]], failKinds: ['crash'] } };
for (const m of ['M6b', 'M7', 'M26']) reduced[m] = { name: 'RK-1 with c0 PUT alone', config: { ...rk1, clients: [[op('put')]] } };

describe('rowan: mutants', () => {
  for (const job of jobs.filter((j) => j.kind === 'safety' && j.tier === 'default')) {
    const small = reduced[job.name];
    if (!small || process.env.INTERLEAVE_FULL) it(`${job.name} at ${job.config}: ${descriptionOf(job)}`, () => conforms(job), SLOW);
    if (small)
      it(`${job.name} at ${small.name}: ${descriptionOf(job)}, in the steps recorded at ${job.config}`, () => {
        const o = runJob(job, spec.build(small.config, job.variant));
        expect(o.ok, describeOutcome(o)).toBe(true);
        expect(o.violated[0]).toBe(job.expect);
        expect(o.counterexampleLength).toBe(recorded.mutants[job.name].length);
      }, SLOW);
  }
  it('each reduced config is smaller than the config it reduces', () => {
    for (const [m, small] of Object.entries(reduced)) {
      const full = configOf(jobNamed(m).config).config;
      expect(small.config.clients.flat().length + small.config.failKinds.length, m).toBeLessThan(full.clients.flat().length + full.failKinds.length);
      expect({ ...small.config, clients: full.clients, failKinds: full.failKinds }, m).toEqual(full);
    }
  });
});

// Generated only under INTERLEAVE_FULL=1 (not skipped otherwise): they take minutes.
if (process.env.INTERLEAVE_FULL) describe('rowan: full configs hold and their mutants are killed (INTERLEAVE_FULL=1)', () => {
  for (const job of jobs.filter((j) => (j.kind === 'config' || j.kind === 'safety') && j.tier === 'full')) it(`${job.name}${job.kind === 'config' ? '' : ` at ${job.config}`}: ${descriptionOf(job)}`, () => conforms(job), 3 * SLOW);
});

describe('rowan: split DMA (§6.3) and recycled segments', () => {
  it('RK-DMA: a write whose DMA outlasts the 2 ms wait was retried; the digest skips its slot, and the write is acked on the strength of the retry', () => {
    const m = spec.build(configOf('RK-DMA').config);
    const skippedAndAcked = (s: RowanState) =>
      s.acked.length > 0 && s.srv[1].segs.some((g) => g.dg && (g.bad?.length ?? 0) > 0) ? 'reached' : true;
    const r = exploreSync({ ...m, invariants: { ...m.invariants, window: skippedAndAcked } } as Machine, { linearizability: 'off' });
    expect(r.status).toBe('violation');
    expect(r.violations[0].property).toBe('window');
    const labels = r.violations[0].steps.map((x) => x.action.label);
    expect(labels.indexOf('retry(0, 1, 0)')).toBeGreaterThanOrEqual(0);
    expect(labels.indexOf('retry(0, 1, 0)')).toBeLessThan(labels.findIndex((l) => l.startsWith('markUsed')));
  });

  // M23's shortest counterexample at RK-REUSE (measure.ts mutants --only M23 --trace): v1 =
  // PUT k0 and v2 = DEL k0 land in segment 0 in the order v2, v1 (two QPs); segment 0 is
  // committed and cleaned, its tombstone reclaimed (nothing older of k0 is left outside it),
  // and it is posted again; a CommitVer record lands in its first slot, the next one pops
  // the next buffer, and the digest of segment 0 reads on into its old slot 1.
  const m23 = [
    'invoke(0)', 'putStart(0, 0)', 'invoke(1)', 'putStart(0, 1)', 'rnicLand(1, 0.1>1)', 'putFinish(0, 16)', 'rnicLand(1, 0.0>1)',
    'putFinish(0, 0)', 'sendCommitVer(0, 0)', 'sendCommitVer(0, 0)', 'sendCommitVer(0, 0)', 'sendCommitVer(0, 0)', 'rnicLand(1, 0.0>1)',
    'rnicLand(1, 0.0>1)', 'markUsed(1, 0)', 'digest(1, 0)', 'commitSegment(1, 0)', 'cleanCopy(1, 0)', 'cleanFix(1, 0)',
    'rnicLandNext(1, 0.0>1)', 'markUsed(1, 1)', 'digest(1, 1)', 'commitSegment(1, 1)', 'cleanCopy(1, 1)', 'cleanFix(1, 1)',
    'rnicLandNext(1, 0.0>1)', 'markUsed(1, 0)', 'digest(1, 0)',
  ];
  const failing = (m: Machine, s: unknown) => Object.entries(m.invariants).flatMap(([p, f]) => (f(s) === true ? [] : [p]));
  it('M23 resurrects the deleted key at the last step of its counterexample (I11)', () => {
    const m = frozen(spec.build(configOf('RK-REUSE').config, 'M23') as Machine);
    const { states } = replayLabels(m, m23);
    expect(states.slice(0, -1).map((s) => failing(m, s)).flat()).toEqual([]);
    expect(failing(m, states.at(-1))).toEqual(['I11']);
    expect((states.at(-1) as RowanState).srv[1].idx[0]).toMatchObject({ v: 1, d: false });
  });
  it('the same steps with the whole recycled segment zeroed leave k0 deleted', () => {
    const m = frozen(spec.build(configOf('RK-REUSE').config) as Machine);
    const { states } = replayLabels(m, m23);
    expect(states.map((s) => failing(m, s)).flat()).toEqual([]);
    const b = (states.at(-1) as RowanState).srv[1];
    expect(b.tomb[0]).toBe(2);
    expect(b.idx[0]).toBeNull();
  });
});

describe('rowan: CommitVer with two backups (issue 22)', () => {
  it('CV-OFF-BY-ONE survives RK-CV (one backup: the entry is always on the other replica) and dies at RK-CV3', () => {
    expect(exploreSync(spec.build(configOf('RK-CV').config, 'CV-OFF-BY-ONE')).status).toBe('holds');
    const r = outcome(jobNamed('CV-OFF-BY-ONE')).result!;
    expect(jobNamed('CV-OFF-BY-ONE').config).toBe('RK-CV3');
    expect(r.status).toBe('violation');
    expect(r.violations[0].property).toBe('I7');
    expect(r.violations[0].steps.map((s) => s.action.label).at(-1)).toBe('commitSegment(1, 0)');
  }, SLOW);
});

describe('rowan: findings', () => {
  // Both findings are found at RK-MIG1 (the default migration config, 5,860 and 3,867
  // states) with the property and counterexample length they have at RK-MIG, their
  // recorded config (58,148 states to F-M22's counterexample); RK-MIG itself runs with
  // INTERLEAVE_FULL=1. The catalogue's M22 is F-M22 (mutants.ts), so it runs once.
  const length: Record<string, number> = { 'F-M22': 16, 'F-RB-NOFENCE': 12 };
  const at = process.env.INTERLEAVE_FULL ? ['RK-MIG1', 'RK-MIG'] : ['RK-MIG1'];
  for (const f of spec.findings ?? [])
    for (const config of at)
      it(`${f.name} reproduces at ${config} as a ${f.expect} violation in ${length[f.name]} steps${config === f.config ? ' (its recorded config)' : ''}`, () => {
        const r = exploreSync(spec.build(configOf(config).config, f.variant));
        expect(r.status).toBe('violation');
        expect(r.violations[0].property).toBe(f.expect);
        expect(r.violations[0].steps.length).toBe(length[f.name]);
      }, SLOW);
  it('no finding is also a mutant at the same config (the conformance table would run it twice)', () => {
    const twice = (spec.findings ?? []).filter((f) => spec.mutants.some((m) => m.name === f.variant && m.config === f.config));
    expect(twice.map((f) => f.name)).toEqual([]);
  });
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
const frozen = (m: Machine): Machine => ({ ...m, init: () => m.init().map(deepFreeze), next: (s, a) => deepFreeze(m.next(s, a)) });

describe('rowan: sharing discipline and engines agree', () => {
  const small = { ...rk0, failKinds: ['crash' as const], clients: rk0.clients.map((c) => c.slice(0, 1)) };
  // One plain exploration per config, shared by the two tests that compare against it.
  const plainRuns = new Map<string, ExploreResult>();
  const plainRun = (name: string, c: RowanConfig) => {
    let r = plainRuns.get(name);
    if (!r) plainRuns.set(name, (r = exploreSync(spec.build(c), { linearizability: 'off' })));
    return r;
  };
  for (const [name, c] of [['a small RK-0', small], ['RK-DMA', configOf('RK-DMA').config]] as const)
    it(`next() never writes into a previous state (frozen states, every step of ${name})`, () => {
      const m = spec.build(c) as Machine;
      const plain = plainRun(name, c);
      const cold = exploreSync(frozen(m), { linearizability: 'off' });
      expect(cold.status).toBe('holds');
      expect(cold.states).toBe(plain.states);
    });
  for (const name of ['RK-CV', 'RK-DMA'])
    it(`the compact view is injective: the same count as encoding the whole state (${name})`, () => {
      const m = spec.build({ ...configOf(name).config });
      const { view: _view, encode: _encode, ...whole } = m;
      const a = plainRun(name, configOf(name).config);
      const b = exploreSync(whole as Machine, { linearizability: 'off' });
      expect(a.status).toBe('holds');
      expect(a.states).toBe(b.states);
    });
  // The engine hashes encode()'s words; the view is what reports show. Both must tell the
  // same states apart, or counts would change with the fast path.
  for (const name of ['RK-DMA', 'RK-MIG1'])
    it(`encode() as words tells states apart exactly as the string view (${name}, every transition)`, () => {
      const m = spec.build(configOf(name).config) as Machine<RowanState>;
      const r = sameStates(m, (s) => m.view!(s) as string, m.encode!.bind(m));
      expect(r.mismatch?.why).toBeUndefined();
      expect(r.states).toBe(plainRun(name, configOf(name).config).states);
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
