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
// Usage: npm run equivalence -- --record|--check [--spec fusee,rowan] [--budget N]
// Exit 0: recorded, or every number is as recorded; 1: some number changed (listed);
// 64: bad usage; 65: a table file that cannot be read.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { exploreSync } from '../checkers/explore/index.ts';
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

function explore(spec: SpecDef, config: string, variant: string | undefined, budget: number | undefined, all = false): ExploreResult {
  const c = spec.configs.find((x) => x.name === config);
  if (!c) fail(70, `${spec.name}: no config ${config}`);
  return exploreSync(spec.build(c.config, variant), { ...(budget !== undefined ? { maxStates: budget } : {}), ...(all ? { all: true } : {}) });
}

const tierOf = (spec: SpecDef, config: string) => spec.configs.find((c) => c.name === config)?.tier ?? 'default';
const over = (r: ExploreResult) => (r.status === 'incomplete' ? (r.incompleteReason ?? 'incomplete') : undefined);

function configEntry(spec: SpecDef, name: string, budget: number): ConfigEntry {
  const tier = tierOf(spec, name);
  const r = explore(spec, name, undefined, tier === 'full' ? budget : undefined);
  const left = tier === 'full' ? over(r) : undefined;
  if (left) return { tier, leftOut: left };
  return { tier, status: r.status, states: r.states, transitions: r.transitions, depth: r.depth, violated: r.violations.map((v) => v.property) };
}

/** As `interleave mutants` judges a mutant: the first violation, or the expected one when the run shows another first. */
function mutantEntry(spec: SpecDef, m: { kind: MutantEntry['kind']; variant: string; config: string; expect?: string }, budget: number): MutantEntry {
  const full = tierOf(spec, m.config) === 'full';
  let r = explore(spec, m.config, m.variant, full ? budget : undefined);
  if (m.expect !== undefined && r.status === 'violation' && !r.violations.some((x) => x.property === m.expect)) r = explore(spec, m.config, m.variant, full ? budget : undefined, true);
  const v = m.expect !== undefined ? (r.violations.find((x) => x.property === m.expect) ?? r.violations[0]) : r.violations[0];
  const base = { kind: m.kind, config: m.config };
  if (full && !v && over(r)) return { ...base, leftOut: over(r) };
  const matches = v !== undefined && (m.expect === undefined || v.property === m.expect);
  const outcome = m.kind === 'control' ? (r.status === 'holds' ? 'passes' : 'fails') : m.kind === 'safety' ? (v ? 'killed' : 'survived') : matches ? 'reproduces' : 'gone';
  return { ...base, outcome, property: v?.property ?? null, length: v ? v.steps.length : null };
}

export function measure(spec: SpecDef, budget: number, log: (s: string) => void = () => {}): Table {
  const table: Table = { spec: spec.name, explored: HOW, budget, configs: {}, mutants: {} };
  for (const c of spec.configs) {
    const t = performance.now();
    table.configs[c.name] = configEntry(spec, c.name, budget);
    log(`${spec.name} config ${c.name}: ${describe(table.configs[c.name])} (${((performance.now() - t) / 1000).toFixed(1)} s)\n`);
  }
  const jobs = [
    ...spec.mutants.map((m) => ({ name: m.name, kind: m.kind as MutantEntry['kind'], variant: m.name, config: m.config, expect: m.expect })),
    ...(spec.findings ?? []).map((f) => ({ name: f.name, kind: 'finding' as const, variant: f.variant, config: f.config, expect: f.expect })),
  ];
  for (const j of jobs) {
    const t = performance.now();
    table.mutants[j.name] = mutantEntry(spec, j, budget);
    log(`${spec.name} mutant ${j.name}: ${describe(table.mutants[j.name])} (${((performance.now() - t) / 1000).toFixed(1)} s)\n`);
  }
  return table;
}

function describe(e: ConfigEntry | MutantEntry): string {
  if (e.leftOut) return `left out (${e.leftOut})`;
  return 'states' in e ? `${e.status}, ${e.states} states, ${e.transitions} transitions, depth ${e.depth}` : `${(e as MutantEntry).outcome}, ${(e as MutantEntry).property ?? '-'}, ${(e as MutantEntry).length ?? '-'} steps`;
}

/** Every number and verdict of `now` that differs from `then`, named. */
export function compare(then: Table, now: Table): string[] {
  const out: string[] = [];
  type Entries = Record<string, ConfigEntry | MutantEntry>;
  const sections: [string, Entries, Entries][] = [['config', then.configs, now.configs], ['mutant', then.mutants, now.mutants]];
  for (const [section, a, b] of sections) {
    for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const x = a[name] as (ConfigEntry | MutantEntry) & Record<string, unknown>;
      const y = b[name] as (ConfigEntry | MutantEntry) & Record<string, unknown>;
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

export const tablePath = (name: string) => resolve(import.meta.dirname, name, 'equivalence.json');

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
    const diffs = compare(then, measure(spec, budgetArg === undefined ? then.budget : Number(budgetArg), log));
    changed += diffs.length;
    process.stdout.write(diffs.length === 0 ? `${spec.name}: every number as recorded\n` : `${spec.name}: ${diffs.length} changed\n${diffs.map((d) => `  ${d}\n`).join('')}`);
  }
  if (check) process.exitCode = changed === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main(process.argv.slice(2));
