// Conformance of a spec to its own tables: its configs hold, each safety mutant is killed
// (by the property it names, when it names one), each control passes, each finding
// reproduces its property. One runner for `interleave check` and `interleave mutants`, the
// specs' tests and their measure scripts, so that all of them judge alike. It knows a spec
// only as the SpecDef data it is given; building the machine is the caller's.

import { exploreSync } from './index.ts';
import { livelockAfter } from './livelock.ts';
import { prepare } from './prepare.ts';
import { bfs } from './search.ts';
import type { ExploreOptions, ExploreResult, Machine, SpecDef } from './types.ts';

export type JobKind = 'config' | 'safety' | 'control' | 'finding';

export interface ConformanceJob {
  spec: string;
  /** The config's name for a config job; else the mutant's or finding's. */
  name: string;
  kind: JobKind;
  config: string;
  tier: 'default' | 'full';
  /** The build() variant: a mutant's name or a finding's variant. */
  variant?: string;
  /** The property expected to catch a mutant, or that a finding reproduces. */
  expect?: string;
}

/** What a job found: plain data (it crosses threads), plus the whole result when run here. */
export interface Outcome {
  job: ConformanceJob;
  /** The expected verdict was given. */
  ok: boolean;
  /** config: holds, violation or incomplete; safety: killed or survived; control: passes or fails; finding: reproduces or gone. */
  outcome: 'holds' | 'violation' | 'incomplete' | 'killed' | 'survived' | 'passes' | 'fails' | 'reproduces' | 'gone';
  status: ExploreResult['status'];
  incompleteReason?: string;
  states: number;
  transitions: number;
  depth: number;
  /** Every run of the job together. */
  elapsedMs: number;
  /** The properties the run violated (config jobs). */
  violated: string[];
  /** The violation judged (mutants and findings): the expected property's when found. */
  property?: string;
  message?: string;
  counterexampleLength?: number;
  note?: string;
  /** The result judged; absent when the job ran on another thread. */
  result?: ExploreResult;
}

export interface JobFilter {
  /** Config jobs for every config, not only the default tier. */
  full?: boolean;
  configs?: boolean;
  mutants?: boolean;
}

/** The jobs of a spec: its configs (default tier, or all), then its mutants and findings (all of them, each at its config). */
export function conformanceJobs(spec: SpecDef, filter: JobFilter = {}): ConformanceJob[] {
  const tierOf = (config: string) => spec.configs.find((c) => c.name === config)?.tier ?? 'default';
  const configs: ConformanceJob[] =
    filter.configs === false ? [] : spec.configs.filter((c) => filter.full || c.tier === 'default').map((c) => ({ spec: spec.name, name: c.name, kind: 'config', config: c.name, tier: c.tier }));
  if (filter.mutants === false) return configs;
  return [
    ...configs,
    ...spec.mutants.map((m): ConformanceJob => ({ spec: spec.name, name: m.name, kind: m.kind, config: m.config, tier: tierOf(m.config), variant: m.name, ...(m.expect !== undefined ? { expect: m.expect } : {}) })),
    ...(spec.findings ?? []).map((f): ConformanceJob => ({ spec: spec.name, name: f.name, kind: 'finding', config: f.config, tier: tierOf(f.config), variant: f.variant, expect: f.expect })),
  ];
}

/** The machine a spec's job explores. */
export function jobMachine(spec: SpecDef, job: ConformanceJob): Machine {
  const c = spec.configs.find((x) => x.name === job.config);
  if (!c) throw new Error(`spec ${spec.name} has no config ${JSON.stringify(job.config)}`);
  return spec.build(c.config, job.variant);
}

/**
 * Looks for one property alone, as a search with `all` would find it: the same machine
 * (monitor included), checking only that property, stopping at its first violation. A
 * breadth-first search's state order does not depend on the properties checked, so that
 * first violation and its counterexample are the ones `all` reports, without covering the
 * rest of the space. (parallel.ts rebuilds its counterexamples the same way.)
 */
export function exploreFor(machine: Machine, options: ExploreOptions, property: string): ExploreResult {
  const prepared = prepare(machine, options);
  const only: Machine = {
    ...prepared,
    invariants: property in prepared.invariants ? { [property]: prepared.invariants[property] } : {},
    ...(property === 'deadlock' ? {} : { mayStop: undefined }),
  };
  const r = bfs(only, { ...options, all: false });
  return property === 'livelock' ? livelockAfter(r, machine, { ...options, livelock: true }) : r;
}

/**
 * Runs one job on this thread: explores the machine breadth-first and judges the result.
 * A mutant or finding whose run stopped at another property first is looked at again for
 * the expected one alone (exploreFor).
 */
export function runJob(job: ConformanceJob, machine: Machine, options: ExploreOptions = {}): Outcome {
  const first = exploreSync(machine, options);
  if (job.kind === 'config') return judge(job, first, first.elapsedMs);
  let r = first;
  let elapsed = first.elapsedMs;
  if (job.expect !== undefined && first.status === 'violation' && !first.violations.some((v) => v.property === job.expect)) {
    const again = (options.strategy ?? 'bfs') === 'bfs' ? exploreFor(machine, options, job.expect) : exploreSync(machine, { ...options, all: true });
    elapsed += again.elapsedMs;
    // The focused run found it: its counterexample. Otherwise the first run's violation stands.
    if (again.violations.some((v) => v.property === job.expect)) r = { ...again, violations: [...first.violations, ...again.violations] };
  }
  return judge(job, r, elapsed);
}

/** The verdict of a job from its result. */
export function judge(job: ConformanceJob, r: ExploreResult, elapsedMs = r.elapsedMs): Outcome {
  const base = {
    job,
    status: r.status,
    ...(r.incompleteReason !== undefined ? { incompleteReason: r.incompleteReason } : {}),
    states: r.states,
    transitions: r.transitions,
    depth: r.depth,
    elapsedMs,
    violated: r.violations.map((v) => v.property),
    result: r,
  };
  if (job.kind === 'config') return { ...base, ok: r.status === 'holds', outcome: r.status };
  const v = job.expect !== undefined ? (r.violations.find((x) => x.property === job.expect) ?? r.violations[0]) : r.violations[0];
  const found = v ? { property: v.property, message: v.message, counterexampleLength: v.steps.length } : {};
  const matches = v !== undefined && (job.expect === undefined || v.property === job.expect);
  const note = r.status === 'incomplete' ? `incomplete: ${r.incompleteReason}` : v && !matches ? `violated ${v.property}, expected ${job.expect}` : undefined;
  const withNote = note ? { note } : {};
  if (job.kind === 'control') return { ...base, ...found, outcome: r.status === 'holds' ? 'passes' : 'fails', ok: r.status === 'holds', ...withNote };
  if (job.kind === 'safety') return { ...base, ...found, outcome: v ? 'killed' : 'survived', ok: matches, ...withNote };
  return { ...base, ...found, outcome: matches ? 'reproduces' : 'gone', ok: matches, ...withNote };
}

/** What `expect(...)` in a test shows when a job does not give its verdict. */
export function describeOutcome(o: Outcome): string {
  const what = `${o.job.spec}/${o.job.name}${o.job.kind === 'config' ? '' : ` (${o.job.kind} at ${o.job.config})`}`;
  const why = o.property ? `${o.property}${o.counterexampleLength !== undefined ? ` in ${o.counterexampleLength} steps` : ''}` : o.violated.join(', ');
  return `${what}: ${o.outcome}${why ? ` (${why})` : ''}${o.note ? `; ${o.note}` : ''}${o.incompleteReason ? `; ${o.incompleteReason}` : ''}`;
}

/** Runs jobs in order on this thread (tests, measure scripts). */
export function runJobsSync(spec: SpecDef, jobs: readonly ConformanceJob[], options: ExploreOptions = {}, onOutcome?: (o: Outcome) => void): Outcome[] {
  return jobs.map((job) => {
    const o = runJob(job, jobMachine(spec, job), options);
    onOutcome?.(o);
    return o;
  });
}
