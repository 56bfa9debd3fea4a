// The equivalence table: for every bundled spec, every config's distinct states,
// transitions, depth and verdict, and every mutant's and finding's outcome, violated
// property and counterexample length, each explored as `interleave check` explores it
// (breadth-first, fingerprint store, default options, one thread). `--record` writes
// specs/<spec>/equivalence.json; `--check` explores again and names every number that
// changed. A refactor of a spec or of the engine keeps the table identical, config by
// config; a number that changes is a semantic change, which the spec's README explains.
//
// Full-tier configs (and mutants at them) run with a state budget (--budget, default
// 200,000): those that stop at it are recorded as left out, with the reason, and are
// skipped by --check. Default-tier runs have no budget: `interleave check` runs them whole.
//
// Usage: npm run equivalence -- --record|--check [--spec fusee,rowan] [--budget N] [--default-only]
// (--default-only: --check only the default tier's configs and the mutants at them, quickly.)
// Exit 0: recorded, or every number is as recorded; 1: some number changed (listed);
// 64: bad usage; 65: a table file that cannot be read.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { conformanceJobs, jobMachine, runJob, type ConformanceJob, type Outcome } from '../checkers/explore/conformance.ts';
import type { ExploreResult, SpecDef } from '../checkers/explore/types.ts';
import { specs } from './index.ts';

export interface ConfigEntry {
  tier: 'default' | 'full';
  status?: ExploreResult['status'];
  states?: number;
  transitions?: number;
  depth?: number;
  /** The properties violated (the run stops at the first). */
  violated?: string[];
  /** Why the config is not in the table (a full-tier config over the budget). */
  leftOut?: string;
}

export interface MutantEntry {
  kind: 'safety' | 'control' | 'finding';
  config: string;
  /** killed / survived, passes / fails, reproduces / gone, as `interleave mutants` says. */
  outcome?: string;
  property?: string | null;
  length?: number | null;
  leftOut?: string;
}

export interface Table {
  spec: string;
  explored: string;
  budget: number;
  configs: Record<string, ConfigEntry>;
  mutants: Record<string, MutantEntry>;
}

const HOW = 'as `interleave check` explores: breadth-first, fingerprint store, default options, one thread; full-tier runs within the state budget';

function fail(code: number, message: string): never {
  process.stderr.write(`equivalence: ${message}\n`);
  process.exit(code);
}

const leftOut = (o: Outcome) => (o.status === 'incomplete' ? (o.incompleteReason ?? 'incomplete') : undefined);

/** One job, judged by the conformance runner; full-tier ones within the budget. */
function entry(spec: SpecDef, job: ConformanceJob, budget: number): ConfigEntry | MutantEntry {
  const full = job.tier === 'full';
  const o = runJob(job, jobMachine(spec, job), full ? { maxStates: budget } : {});
  if (job.kind === 'config') {
    const left = full ? leftOut(o) : undefined;
    if (left) return { tier: job.tier, leftOut: left };
    return { tier: job.tier, status: o.status, states: o.states, transitions: o.transitions, depth: o.depth, violated: o.violated };
  }
  const base = { kind: job.kind, config: job.config };
  if (full && o.property === undefined && leftOut(o)) return { ...base, leftOut: leftOut(o) };
  return { ...base, outcome: o.outcome, property: o.property ?? null, length: o.counterexampleLength ?? null };
}

export function measure(spec: SpecDef, budget: number, log: (s: string) => void = () => {}, defaultOnly = false): Table {
  const table: Table = { spec: spec.name, explored: HOW, budget, configs: {}, mutants: {} };
  // Every config (both tiers), then every mutant and finding.
  for (const job of conformanceJobs(spec, { full: true })) {
    if (defaultOnly && job.tier === 'full') continue;
    const t = performance.now();
    const e = entry(spec, job, budget);
    if (job.kind === 'config') table.configs[job.name] = e as ConfigEntry;
    else table.mutants[job.name] = e as MutantEntry;
    log(`${spec.name} ${job.kind === 'config' ? 'config' : 'mutant'} ${job.name}: ${describe(e)} (${((performance.now() - t) / 1000).toFixed(1)} s)\n`);
  }
  return table;
}

function describe(e: ConfigEntry | MutantEntry): string {
  if (e.leftOut) return `left out (${e.leftOut})`;
  return 'states' in e ? `${e.status}, ${e.states} states, ${e.transitions} transitions, depth ${e.depth}` : `${(e as MutantEntry).outcome}, ${(e as MutantEntry).property ?? '-'}, ${(e as MutantEntry).length ?? '-'} steps`;
}

/** Every number and verdict of `now` that differs from `then`, named. */
export function compare(then: Table, now: Table, defaultOnly = false): string[] {
  const out: string[] = [];
  type Entries = Record<string, ConfigEntry | MutantEntry>;
  const sections: [string, Entries, Entries][] = [['config', then.configs, now.configs], ['mutant', then.mutants, now.mutants]];
  for (const [section, a, b] of sections) {
    for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const x = a[name] as (ConfigEntry | MutantEntry) & Record<string, unknown>;
      const y = b[name] as (ConfigEntry | MutantEntry) & Record<string, unknown>;
      if (defaultOnly && x && !y && (('tier' in x && x.tier === 'full') || ('config' in x && tierOfName(then, x.config as string) === 'full'))) continue;
      if (!x || !y) {
        out.push(`${then.spec} ${section} ${name}: ${x ? 'no longer exists' : 'is new (not in the table)'}`);
        continue;
      }
      if (x.leftOut || y.leftOut) {
        if (!x.leftOut !== !y.leftOut) out.push(`${then.spec} ${section} ${name}: ${x.leftOut ? `was left out (${String(x.leftOut)}), now ${describe(y)}` : `was ${describe(x)}, now left out (${String(y.leftOut)})`}`);
        continue;
      }
      for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
        if (JSON.stringify(x[key]) !== JSON.stringify(y[key])) out.push(`${then.spec} ${section} ${name} ${key}: ${JSON.stringify(x[key])} -> ${JSON.stringify(y[key])}`);
      }
    }
  }
  return out;
}

const tierOfName = (t: Table, config: string) => t.configs[config]?.tier;

export const tablePath = (name: string) => resolve(import.meta.dirname, name, 'equivalence.json');

const recorded = new Map<string, Map<string, number>>();

/** The distinct states each config of a bundled spec explored when its table was recorded (none for a config left out). */
export function recordedStates(spec: string): Map<string, number> {
  let states = recorded.get(spec);
  if (states === undefined) {
    states = new Map();
    const path = tablePath(spec);
    if (/^[\w-]+$/.test(spec) && existsSync(path)) {
      const table = JSON.parse(readFileSync(path, 'utf8')) as Table;
      if (!Array.isArray(table.configs)) for (const [name, e] of Object.entries(table.configs)) if (e.states !== undefined) states.set(name, e.states);
    }
    recorded.set(spec, states);
  }
  return states;
}

function main(argv: string[]): void {
  const record = argv.includes('--record');
  const check = argv.includes('--check');
  if (record === check) fail(64, 'give one of --record, --check');
  const arg = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const names = arg('--spec')?.split(',');
  for (const n of names ?? []) if (!specs.some((s) => s.name === n)) fail(64, `unknown spec ${JSON.stringify(n)}; bundled: ${specs.map((s) => s.name).join(', ')}`);
  const budgetArg = arg('--budget');
  if (budgetArg !== undefined && !/^\d+$/.test(budgetArg)) fail(64, '--budget takes a number of states');
  const list = specs.filter((s) => !names || names.includes(s.name));
  const defaultOnly = argv.includes('--default-only');
  if (record && defaultOnly) fail(64, '--default-only goes with --check (a table records both tiers)');
  const log = (s: string) => void process.stderr.write(s);
  let changed = 0;
  for (const spec of list) {
    const path = tablePath(spec.name);
    if (record) {
      const table = measure(spec, Number(budgetArg ?? 200_000), log);
      writeFileSync(path, `${JSON.stringify(table, null, 1)}\n`);
      process.stdout.write(`recorded ${path}\n`);
      continue;
    }
    let then: Table;
    try {
      then = JSON.parse(readFileSync(path, 'utf8')) as Table;
    } catch (e) {
      fail(65, `${path}: a table written by --record (${(e as Error).message})`);
    }
    if (Array.isArray(then.configs)) {
      // swarm's table predates this script: specs/swarm/equivalence.ts recorded it before its move onto the kit, and checks it.
      process.stdout.write(`${spec.name}: recorded by specs/${spec.name}/equivalence.ts, checked there (INTERLEAVE_FULL=1 npx vitest run specs/${spec.name}/equivalence.test.ts)\n`);
      continue;
    }
    const diffs = compare(then, measure(spec, budgetArg === undefined ? then.budget : Number(budgetArg), log, defaultOnly), defaultOnly);
    changed += diffs.length;
    process.stdout.write(diffs.length === 0 ? `${spec.name}: every number as recorded\n` : `${spec.name}: ${diffs.length} changed\n${diffs.map((d) => `  ${d}\n`).join('')}`);
  }
  if (check) process.exitCode = changed === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main(process.argv.slice(2));
