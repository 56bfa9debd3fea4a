import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { conformanceJobs, jobMachine, runJob, type Outcome } from './conformance.ts';
import { counterSpec } from './fixtures/counter-spec.ts';
import { exploreSync } from './index.ts';
import { runPool } from './pool.ts';

const module = pathToFileURL(new URL('./fixtures/counter-spec.ts', import.meta.url).pathname).href;
const plain = ({ result: _r, elapsedMs: _t, ...o }: Outcome) => o;

describe('the conformance runner', () => {
  const jobs = conformanceJobs(counterSpec, { full: true });

  it('lists the configs (by tier), then every mutant and finding at its config', () => {
    expect(conformanceJobs(counterSpec).map((j) => `${j.kind} ${j.name} ${j.tier}`)).toEqual(['config N2K2 default', 'safety late default', 'safety blind full', 'control calm default', 'finding lost default']);
    expect(jobs.filter((j) => j.kind === 'config').map((j) => j.name)).toEqual(['N2K2', 'N3K2']);
  });

  it('finds the expected property after another one, as a search with `all` does', () => {
    const job = jobs.find((j) => j.name === 'late')!;
    const machine = jobMachine(counterSpec, job);
    const o = runJob(job, machine);
    expect(o.violated[0]).toBe('small');
    expect(o.ok).toBe(true);
    expect(o.property).toBe('noLostUpdate');
    const all = exploreSync(machine, { all: true }).violations.find((v) => v.property === 'noLostUpdate')!;
    const found = o.result!.violations.find((v) => v.property === 'noLostUpdate')!;
    expect(found.steps.map((s) => s.action.label)).toEqual(all.steps.map((s) => s.action.label));
    expect(found.message).toBe(all.message);
    // and stops there rather than covering the whole space
    expect(o.states).toBeLessThan(exploreSync(machine).states + exploreSync(machine, { all: true }).states);
  });

  it('judges each kind', () => {
    const outcomes = jobs.map((job) => runJob(job, jobMachine(counterSpec, job)));
    expect(outcomes.map((o) => `${o.job.name}: ${o.outcome} ${o.ok}`)).toEqual(['N2K2: holds true', 'N3K2: holds true', 'late: killed true', 'blind: killed true', 'calm: passes true', 'lost: reproduces true']);
    const survived = runJob({ ...jobs[2], variant: undefined }, jobMachine(counterSpec, { ...jobs[2], variant: undefined }));
    expect([survived.outcome, survived.ok]).toEqual(['survived', false]);
    const gone = runJob({ ...jobs[5], expect: 'nothing' }, jobMachine(counterSpec, jobs[5]));
    expect([gone.outcome, gone.ok]).toEqual(['gone', false]);
  });

  it('gives the same outcomes on a pool of threads as here', async () => {
    const here = jobs.map((job) => plain(runJob(job, jobMachine(counterSpec, job))));
    const items = jobs.map((job) => ({ job, target: { module, export: 'counterSpec', args: job.variant === undefined ? [job.config] : [job.config, job.variant] } }));
    const started: number[] = [];
    const pooled = await runPool(items, {}, 2, { onStart: (_item, i) => started.push(i) });
    expect(pooled.map(plain)).toEqual(here);
    expect(started.sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
