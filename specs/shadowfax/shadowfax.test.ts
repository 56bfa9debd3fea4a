import { describe, expect, it } from 'vitest';
import { exploreSync, type Counterexample, type Machine } from '../../checkers/explore/index.ts';
import { conformanceJobs, describeOutcome, exploreFor, jobMachine, runJob, type Outcome } from '../../checkers/explore/conformance.ts';
import { encodeValue, Words } from '../../checkers/explore/encode.ts';
import { freezing } from '../kit/state.ts';
import { sameStates } from '../kit/words.ts';
import { spec } from './index.ts';

const config = (name: string) => {
  const c = spec.configs.find((x) => x.name === name);
  if (!c) throw new Error(`no config ${name}`);
  return c.config;
};

/** A livelock lasso: its cycle ends in the state it starts from, and no step of it is progress. */
function cycleOf(m: Machine, v: Counterexample) {
  expect(v.property).toBe('livelock');
  const start = v.lassoStart!;
  const states = [v.initial, ...v.steps.map((x) => x.state)];
  expect(start).toBeLessThan(v.steps.length);
  expect(states.at(-1)).toEqual(states[start]);
  for (let i = start; i < v.steps.length; i++) expect(m.progress!(states[i], v.steps[i].action, states[i + 1])).toBe(false);
  return { states: states.slice(start), actions: v.steps.slice(start).map((x) => x.action) };
}

// Each job explored once: the tests below that look into a mutant's counterexample (M16, H1)
// reuse the run the conformance test judged.
const outcomes = new Map<string, Outcome>();
function outcome(name: string): Outcome {
  let o = outcomes.get(name);
  if (!o) {
    const job = conformanceJobs(spec).find((j) => j.name === name)!;
    o = runJob(job, jobMachine(spec, job));
    outcomes.set(name, o);
  }
  return o;
}

describe('shadowfax', () => {
  // The conformance runner (checkers/explore/conformance.ts) judges, as interleave check does.
  for (const job of conformanceJobs(spec).filter((j) => j.kind !== 'finding')) {
    const title = job.kind === 'config' ? `holds at ${job.name}, linearizability included` : `${job.name} ${job.kind === 'safety' ? `is killed at ${job.config}` : `passes at ${job.config}`}`;
    it(title, () => {
      const o = outcome(job.name);
      expect(o.ok, describeOutcome(o)).toBe(true);
      // L1-L5: the livelock search ran under weak fairness and found no fair non-progress cycle
      if (job.kind === 'config') expect(o.result!.notes?.find((n) => n.startsWith('livelock:'))).toMatch(/none of them weakly fair/);
    });
  }

  it('M16 loops forever under weak fairness: the client resends to S with its old tag after the migration has finished', () => {
    const m = spec.build(config('B0'), 'M16');
    const v = outcome('M16').result!.violations.find((x) => x.property === 'livelock')!;
    const { actions } = cycleOf(m, v);
    expect(actions.map((a) => a.label)).toEqual(['serverRecvBatch(c2→S)', 'clientRecv(c2←S)', 'handleViewChange(c2)']);
    expect(v.steps.map((x) => x.action.label)).toContain('tgtRecvControl(CompleteMigration)');
    expect(v.message).toMatch(/weakly fair: it takes S→c2, c2, c2→S/);
  });

  it('L4: the reject-retry loop of a client that refreshed early exists in B0, and only weak fairness ends it', () => {
    const m = spec.build(config('B0'));
    const r = exploreSync({ ...m, fairness: undefined }, { linearizability: 'off' });
    const v = r.violations.find((x) => x.property === 'livelock')!;
    const { states, actions } = cycleOf(m, v);
    expect(actions.map((a) => a.label)).toEqual(['serverRecvBatch(c1→T)', 'clientRecv(c1←T)', 'handleViewChange(c1)']);
    // what weak fairness forbids: a class enabled in every state of the cycle and never taken on it
    const classes = (s: unknown) => new Set(m.actions(s).map((a) => m.fairness!(a)));
    const starved = [...classes(states[0])].filter((c) => c !== undefined && states.every((s) => classes(s).has(c)) && !actions.some((a) => m.fairness!(a) === c));
    expect(starved).toContain('S→T control'); // T would receive PrepForTransfer and adopt the new view
  });

  it('B4: S takes R back on the return trip, where serving its leftover of the first ownership loses a write', () => {
    const r = exploreSync(spec.build(config('B4'), 'stale-leftover'));
    const v = r.violations[0];
    expect(v.property).toBe('INV-COND-INSERT');
    expect(v.message).toBe('S inserted a migrated k = 0 over the latest value 1');
    const labels = v.steps.map((x) => x.action.label);
    expect(labels.indexOf('migrate(R, T→S)')).toBeGreaterThan(labels.indexOf('tgtRecvControl(CompleteMigration)'));
    expect(labels.slice(-3)).toEqual(['tgtRecvControl(TransferedOwnership)', 'serverRecvBatch(c1→S)', 'tgtRecvData(t1)']);
  });

  it('answers the H1 question: the indirection shadows the RMW done at the target, and the acknowledged write is lost', () => {
    // the counterexamples a search with `all` reports: INV-COND-INSERT's is the one the H1 job
    // stopped at; INV-NOLOST's, the first one a search for it alone finds (exploreFor)
    const insert = outcome('H1').result!.violations.find((v) => v.property === 'INV-COND-INSERT')!;
    const labels = insert.steps.map((s) => s.action.label);
    expect(labels).toContain('tgtRecvControl(TransferedOwnership)');
    expect(labels.at(-1)).toBe('tgtRecvData(s1)');
    expect(insert.message).toMatch(/inserted a migrated k = 7 over the latest value 8/);
    const lost = exploreFor(spec.build(config('B1'), 'H1'), {}, 'INV-NOLOST').violations.find((v) => v.property === 'INV-NOLOST')!;
    expect(lost.message).toMatch(/T resolves k to 7, but the latest write left 8/);
    expect(lost.steps.some((s) => /clientRecv\(c1←T\)/.test(s.action.label))).toBe(true);
  });

  // The state discipline (specs/kit/state.ts): no step changes a part of a state that the
  // copy shares. Random runs (fixed seed) through every config and the mutants with steps of
  // their own, on deep-frozen states, so that such a change throws.
  it('keeps the state discipline: no step changes in place what the copy shares', () => {
    const runs = [...spec.configs.map((c) => [c.name, undefined] as const), ['B0-batch', 'M18'], ['B0', 'M20'], ['B3', 'M21b'], ['B3', 'M24'], ['B1', 'M11'], ['B2', 'M27']] as const;
    for (const [name, variant] of runs) {
      const r = exploreSync(freezing(spec.build(config(name), variant)), { strategy: 'simulate', simulate: { runs: 25, depth: 60, seed: 7 }, linearizability: 'off' });
      expect(r.depth, `${name} ${variant ?? ''}`).toBeGreaterThan(10);
    }
  });

  // The engine hashes encode()'s words instead of encoding the state object generically:
  // both must tell the same states apart, or counts would change with the fast path. Configs
  // with pipelining, tiers and compaction, and B3's crash with one RMW (checkpoints, recovery).
  it('encode() as words tells states apart exactly as the generic encoding of the whole state (every transition)', () => {
    const w = new Words();
    const plain = (x: unknown) => {
      w.reset();
      encodeValue(w, x);
      return w.buf.subarray(0, w.length).join(',');
    };
    const b3 = config('B3');
    const crash1 = { ...b3, clients: b3.clients.map((c) => ({ ...c, script: c.script.slice(0, 1) })) };
    for (const [name, c] of [['B0-pipe', config('B0-pipe')], ['B1-io', config('B1-io')], ['B3, one RMW', crash1]] as const) {
      const m = spec.build(c);
      const r = sameStates(m, plain, m.encode!.bind(m));
      expect(r.mismatch?.why, name).toBeUndefined();
      expect(r.states, name).toBeGreaterThan(1000);
    }
  });
});
