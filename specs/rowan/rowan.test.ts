// The default configs hold (with linearizability per key checked at every state) and
// enable the steps they exist for, every safety mutant of the catalogue whose config is a
// default one is killed by the property it names, both findings reproduce, the split-DMA
// window is reached, and M23's counterexample replays. Cases come from the spec's own
// tables. Full configs and their mutants run in `interleave check --full` and
// `interleave mutants`, and here with INTERLEAVE_FULL=1.
import { describe, expect, it } from 'vitest';

// The default configs take tens of seconds each on a loaded machine.
const SLOW = 900_000;
import { exploreSync, replayLabels } from '../../checkers/explore/index.ts';
import { referenceBfs } from '../../checkers/explore/reference.ts';
import type { ExploreResult, Machine } from '../../checkers/explore/types.ts';
import { conformanceJobs, describeOutcome, jobMachine, runJob, type ConformanceJob } from '../../checkers/explore/conformance.ts';
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

function conforms(job: ConformanceJob) {
  const o = runJob(job, jobMachine(spec, job));
  expect(o.ok, describeOutcome(o)).toBe(true);
  if (job.kind === 'config') expect(enabled(o.result!)).toEqual(expect.arrayContaining(mustEnable(configOf(job.name).config)));
  // The catalogue's property is the first one violated.
  if (job.kind === 'safety') expect(o.violated[0]).toBe(job.expect);
}

describe('rowan: default configs hold', () => {
  for (const job of jobs.filter((j) => j.kind === 'config' && j.tier === 'default')) it(`${job.name}: ${descriptionOf(job)}`, () => conforms(job), SLOW);
});

describe('rowan: mutants', () => {
  for (const job of jobs.filter((j) => j.kind === 'safety' && j.tier === 'default')) it(`${job.name} at ${job.config}: ${descriptionOf(job)}`, () => conforms(job), SLOW);
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
    const r = exploreSync(spec.build(configOf('RK-CV3').config, 'CV-OFF-BY-ONE'));
    expect(r.status).toBe('violation');
    expect(r.violations[0].property).toBe('I7');
    expect(r.violations[0].steps.map((s) => s.action.label).at(-1)).toBe('commitSegment(1, 0)');
  }, SLOW);
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
const frozen = (m: Machine): Machine => ({ ...m, init: () => m.init().map(deepFreeze), next: (s, a) => deepFreeze(m.next(s, a)) });

describe('rowan: sharing discipline and engines agree', () => {
  const rk0 = configOf('RK-0').config;
  const small = { ...rk0, failKinds: ['crash' as const], clients: rk0.clients.map((c) => c.slice(0, 1)) };
  for (const [name, c] of [['a small RK-0', small], ['RK-DMA', configOf('RK-DMA').config]] as const)
    it(`next() never writes into a previous state (frozen states, every step of ${name})`, () => {
      const m = spec.build(c) as Machine;
      const plain = exploreSync(m, { linearizability: 'off' });
      const cold = exploreSync(frozen(m), { linearizability: 'off' });
      expect(cold.status).toBe('holds');
      expect(cold.states).toBe(plain.states);
    });
  for (const name of ['RK-CV', 'RK-DMA'])
    it(`the compact view is injective: the same count as encoding the whole state (${name})`, () => {
      const m = spec.build({ ...configOf(name).config });
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
