// Runs conformance jobs (checkers/explore/conformance.ts) for `check` and `mutants`: on this
// thread with one worker, else on a pool of threads that each explore whole jobs
// (checkers/explore/pool.ts), the longest first. The rows are the same either way; with a
// pool they are reported in job order as soon as every earlier one is done.
import { conformanceJobs, judge, runJob, type ConformanceJob, type Outcome } from '../checkers/explore/conformance.ts';
import { explore } from '../checkers/explore/index.ts';
import { propertiesChecked } from '../checkers/explore/prepare.ts';
import { runPool } from '../checkers/explore/pool.ts';
import type { ExploreOptions } from '../checkers/explore/types.ts';
import { recordedStates } from '../specs/equivalence.ts';
import { InputError } from '../traces/index.ts';
import { userSpecErrors } from './errors.ts';
import type { TerminalProgress } from './progress.ts';
import type { ResolvedSpec } from './specs.ts';

export interface SpecJob {
  spec: ResolvedSpec;
  job: ConformanceJob;
}

export function specJobs(list: readonly ResolvedSpec[], filter: { full?: boolean; configs?: boolean; mutants?: boolean }): SpecJob[] {
  return list.flatMap((spec) => conformanceJobs(spec.def, filter).map((job) => ({ spec, job })));
}

/**
 * A user's mutant or finding must expect a property a search of its machine can report:
 * one of its invariants, linearizability (a machine with a history), deadlock (with
 * mayStop) or livelock (with progress or a history). Another name is a typo in the module (65, said as the SpecDef's
 * field, as a wrong `config` is when the module loads), not a mutant that survived or a
 * finding that is gone. Checked before any run; the machine is built for it, so it is
 * done here rather than at load. Bundled specs' names are checked by their own tests.
 */
export async function checkExpects(jobs: readonly SpecJob[]): Promise<void> {
  for (const { spec, job } of jobs) {
    if (spec.module === undefined || job.expect === undefined || job.kind === 'config') continue;
    const machine = await userSpecErrors(spec, `building ${job.config}${job.variant === undefined ? '' : ` with ${job.variant}`}`, () => spec.machine(job.config, job.variant));
    const properties = propertiesChecked(machine, { livelock: machine.progress !== undefined || machine.history !== undefined });
    if (properties.includes(job.expect)) continue;
    const [field, list] = job.kind === 'finding' ? ['findings', spec.def.findings ?? []] : ['mutants', spec.def.mutants];
    const index = list.findIndex((m) => m.name === job.name);
    throw new InputError(spec.module.file, undefined, `${spec.module.export}.${field}.${index}.expect: one of the spec's properties (${properties.map((p) => JSON.stringify(p)).join(', ')}), not ${JSON.stringify(job.expect)}`);
  }
}

export interface RunHooks {
  /** Each outcome, in job order, as soon as it and every earlier one are done. */
  onOutcome?(o: Outcome, index: number): void;
  progress?: TerminalProgress;
}

/**
 * The cost of a job, for handing out the longest first: the states its config explores,
 * as the spec's equivalence table recorded them (a bundled spec); a mutant's run usually
 * stops early, so it weighs half. Unknown: first, as the longest may be among them.
 */
function cost({ spec, job }: SpecJob): number {
  if (spec.module) return Infinity;
  const states = recordedStates(spec.name).get(job.config);
  if (states === undefined) return Infinity;
  return job.kind === 'config' || job.kind === 'control' ? states : states / 2;
}

export async function runSpecJobs(jobs: readonly SpecJob[], options: ExploreOptions, threads: number, hooks: RunHooks = {}): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(jobs.length);
  let reported = 0;
  const finished = (o: Outcome, i: number) => {
    outcomes[i] = o;
    while (reported < jobs.length && outcomes[reported] !== undefined) {
      hooks.progress?.done();
      hooks.onOutcome?.(outcomes[reported], reported);
      reported++;
    }
  };
  const progress = hooks.progress;
  if (threads > 1 && jobs.length === 1 && jobs[0].job.kind === 'config') {
    // One exploration alone: its threads search it together (parallel BFS).
    const { spec, job } = jobs[0];
    progress?.doing(`${spec.name}/${job.name}`);
    const r = await userSpecErrors(spec, `exploring ${job.config}`, () => explore(spec.target(job.config), { ...options, workers: threads, ...(progress?.onProgress ? { onProgress: progress.onProgress } : {}) }));
    finished(judge(job, r), 0);
    progress?.done();
    return outcomes;
  }
  if (threads <= 1 || jobs.length <= 1) {
    for (const [i, { spec, job }] of jobs.entries()) {
      progress?.doing(`[${i + 1}/${jobs.length}] ${spec.name}/${job.name}${job.kind === 'config' ? '' : ` @ ${job.config}`}`);
      const o = await userSpecErrors(spec, `exploring ${job.config}`, () => runJob(job, spec.machine(job.config, job.variant), { ...options, ...(progress?.onProgress ? { onProgress: progress.onProgress } : {}) }));
      finished(o, i);
    }
    progress?.done();
    return outcomes;
  }
  // One pool per module the machines come from (the bundled specs share one).
  const groups = new Map<string, number[]>();
  jobs.forEach(({ spec, job }, i) => {
    const module = spec.target(job.config, job.variant).module;
    groups.set(module, [...(groups.get(module) ?? []), i]);
  });
  let done = 0;
  for (const indices of groups.values()) {
    const order = [...indices].sort((a, b) => cost(jobs[b]) - cost(jobs[a]) || a - b);
    const items = order.map((i) => ({ job: jobs[i].job, target: jobs[i].spec.target(jobs[i].job.config, jobs[i].job.variant) }));
    const running = new Set<string>();
    const show = () => progress?.doing(`[${done}/${jobs.length} done] ${[...running].join(', ')}`);
    await userSpecErrors(jobs[indices[0]].spec, 'exploring', () =>
      runPool(items, options, threads, {
        onStart: (item) => {
          running.add(`${item.job.spec}/${item.job.name}`);
          show();
        },
        onOutcome: (o, k) => {
          running.delete(`${o.job.spec}/${o.job.name}`);
          done++;
          finished(o, order[k]);
          show();
        },
      }),
    );
  }
  progress?.done();
  return outcomes;
}
