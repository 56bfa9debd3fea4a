// `interleave check [spec...] [--full]`: everything must give its expected verdict — every
// spec at its default configs (--full: all configs) holds, every safety mutant is killed,
// every control passes, every finding reproduces, and (for the bundled run, without specs)
// the bundled histories (cli/check-traces.ts) give their expected verdicts. Each row is
// printed as it finishes, with progress on a terminal. Exit 0 when all of that is so, 1 if
// not, 64 bad usage (also a spec without a default config, without --full), 65 a spec
// module's error, 73 the --junit file cannot be written.
import type { Command } from 'commander';
import type { Outcome } from '../checkers/explore/conformance.ts';
import { propertiesChecked } from '../checkers/explore/prepare.ts';
import { userSpecErrors } from './errors.ts';
import type { ExploreResult } from '../checkers/explore/types.ts';
import { checkBundledTraces, renderTraceTable, type TraceRow } from './check-traces.ts';
import { EXIT, UsageError } from './exit.ts';
import { checkExpects, runSpecJobs, specJobs } from './conformance.ts';
import { capWorkers, workers } from './flags.ts';
import { JSON_HELP, withHelp } from './help.ts';
import { printJson } from './envelope.ts';
import { junitXml, type JunitSuite } from './junit.ts';
import { mutantRow, mutantSuite, mutantSummary, MutantTable, writeJunit, type MutantRow } from './mutants.ts';
import { checkOutputPath } from './output.ts';
import { terminalProgress } from './progress.ts';
import { bundledSpecs, resolveSpec, specInputs, type ResolvedSpec } from './specs.ts';

export interface ConfigRow {
  spec: string;
  config: string;
  status: ExploreResult['status'];
  ok: boolean;
  /** The properties violated. */
  properties: string[];
  incompleteReason?: string;
  states: number;
  elapsedMs: number;
}

/** Runs the bundled traces, prints their table, and returns the rows. */
export async function checkTraces(out: ((s: string) => void) | undefined): Promise<TraceRow[]> {
  const rows = await checkBundledTraces();
  const failed = rows.filter((r) => !r.pass).length;
  out?.(`Bundled histories (traces/bundled/)\n${renderTraceTable(rows)}\n`);
  out?.(failed === 0 ? `all ${rows.length} histories give their expected verdict\n` : `${failed} of ${rows.length} histories do not give their expected verdict\n`);
  return rows;
}

function verdictOf(r: ConfigRow): string {
  if (r.status === 'holds') return 'holds';
  if (r.status === 'violation') return `VIOLATION (${r.properties.join(', ')})`;
  return `INCOMPLETE (${r.incompleteReason})`;
}

/** The row of a config job. */
export function configRow(o: Outcome): ConfigRow {
  return {
    spec: o.job.spec,
    config: o.job.config,
    status: o.status,
    ok: o.ok,
    properties: o.violated,
    ...(o.incompleteReason !== undefined ? { incompleteReason: o.incompleteReason } : {}),
    states: o.states,
    elapsedMs: o.elapsedMs,
  };
}

/**
 * Runs every config of the tier and every mutant, control and finding of the specs (one
 * queue: with threads, the longest first), printing the configs' table, then the mutants'.
 */
export async function checkSpecs(list: readonly ResolvedSpec[], out: ((s: string) => void) | undefined, full: boolean, threads: number): Promise<{ configs: ConfigRow[]; mutants: MutantRow[] }> {
  const jobs = specJobs(list, { full });
  await checkExpects(jobs);
  const configJobs = jobs.filter((j) => j.job.kind === 'config');
  const mutantJobs = jobs.filter((j) => j.job.kind !== 'config');
  const widths = [Math.max(10, ...configJobs.map((j) => j.spec.name.length)), Math.max(14, ...configJobs.map((j) => j.job.config.length)), 12, 9];
  const line = (cells: string[]) => cells.map((x, i) => (i === 2 || i === 3 ? x.padStart(widths[i]) : i < widths.length ? x.padEnd(widths[i]) : x)).join('  ').trimEnd();
  const table = new MutantTable(mutantJobs.map((j) => j.job));
  out?.(`Specs (${full ? 'all' : 'default'} configs)\n${line(['spec', 'config', 'states', 'time', 'verdict'])}\n`);
  const configs: ConfigRow[] = [];
  const mutants: MutantRow[] = [];
  const mutantsHeader = () => out?.(`\nMutants\n${table.header()}`);
  if (configJobs.length === 0) mutantsHeader();
  // Configs first, then mutants, so that the rows come in the tables' order.
  await runSpecJobs([...configJobs, ...mutantJobs], {}, threads, {
    progress: terminalProgress(),
    onOutcome: (o, i) => {
      if (o.job.kind === 'config') {
        const row = configRow(o);
        configs.push(row);
        out?.(`${line([row.spec, row.config, row.states.toLocaleString('en-US'), `${(row.elapsedMs / 1000).toFixed(1)} s`, verdictOf(row)])}\n`);
        if (i === configJobs.length - 1) mutantsHeader();
        return;
      }
      const row = mutantRow(o);
      mutants.push(row);
      out?.(table.row(row));
    },
  });
  out?.(MutantTable.notes(mutants) + mutantSummary(mutants));
  return { configs, mutants };
}

export function checkSuites(configs: readonly ConfigRow[], mutants: readonly MutantRow[], traces: readonly TraceRow[]): JunitSuite[] {
  const suites: JunitSuite[] = [
    {
      name: 'configs',
      cases: configs.map((r) => ({
        classname: r.spec,
        name: `config ${r.config}`,
        seconds: r.elapsedMs / 1000,
        output: `${r.status}; ${r.states} states`,
        ...(r.ok ? {} : { failure: { message: `${r.spec}/${r.config}: ${verdictOf(r)}` } }),
      })),
    },
    mutantSuite(mutants),
  ];
  if (traces.length > 0) {
    suites.push({
      name: 'histories',
      cases: traces.map((t) => ({
        classname: 'traces.bundled',
        name: t.path,
        seconds: t.ms / 1000,
        output: `${t.model}: ${t.got} (${t.operations} operations)`,
        ...(t.pass ? {} : { failure: { message: `expected ${t.expected}, got ${t.got}${t.error ? `: ${t.error}` : ''}` } }),
      })),
    });
  }
  return suites;
}

interface CheckOptions {
  full?: boolean;
  workers?: number;
  json?: boolean;
  junit?: string;
  force?: boolean;
}

export async function runCheck(args: readonly string[], o: CheckOptions): Promise<number> {
  const list = args.length === 0 ? bundledSpecs() : await Promise.all(args.map(resolveSpec));
  // A spec without a default config would pass having checked nothing: as explore does, refuse.
  const bare = o.full ? undefined : list.find((s) => !s.def.configs.some((c) => c.tier === 'default'));
  if (bare !== undefined) throw new UsageError(`spec ${bare.name} has no default config: check every config with --full (${bare.def.configs.map((c) => c.name).join(', ')})`);
  // As `mutants` refuses it: a spec with no mutants, controls or findings would pass
  // "mutants killed: 0/0", which says nothing; `explore` checks its configs alone.
  const unmutated = list.find((s) => specJobs([s], { configs: false }).length === 0);
  if (unmutated !== undefined) {
    throw new UsageError(`spec ${unmutated.name} declares no mutants, controls or findings: check would kill none (as mutants refuses); explore its configs with \`interleave explore ${unmutated.arg}\``);
  }
  // As explore refuses it: a config of a module of yours that checks no property would "hold".
  for (const spec of list.filter((s) => s.module !== undefined)) {
    for (const c of spec.def.configs.filter((c) => o.full || c.tier === 'default')) {
      const machine = await userSpecErrors(spec, 'building the machine', () => spec.machine(c.name));
      if (propertiesChecked(machine, {}).length === 0) throw new UsageError(`${spec.name}/${c.name}: no property to check (no invariants, history, mayStop or progress): it would hold having checked nothing`);
    }
  }
  const guard = { inputs: o.junit !== undefined ? await specInputs(list) : [], force: o.force };
  if (o.junit !== undefined) checkOutputPath(o.junit, guard);
  const out = o.json ? undefined : (s: string) => void process.stdout.write(s);
  const threads = capWorkers(o.workers, (s) => process.stderr.write(s));
  const { configs, mutants } = await checkSpecs(list, out, o.full ?? false, threads);
  out?.('\n');
  const traces = args.length === 0 ? await checkTraces(out) : [];
  const ok = configs.every((r) => r.ok) && mutants.every((r) => r.ok) && traces.every((r) => r.pass);
  out?.(ok ? 'check: everything gives its expected verdict\n' : 'check: FAILED (see the rows marked above)\n');
  let code: number = ok ? EXIT.holds : EXIT.violation;
  const name = `interleave check${args.length ? ` ${args.join(' ')}` : ''}${o.full ? ' --full' : ''}`;
  const junitError = o.junit === undefined ? undefined : writeJunit(o.junit, junitXml(name, checkSuites(configs, mutants, traces)), guard);
  if (junitError !== undefined) code = EXIT.cannotCreate;
  if (o.json) printJson('check', code, { ok, configs, mutants, traces, ...(junitError ? { outputErrors: [junitError] } : {}) });
  return code;
}

export function register(program: Command): void {
  const command = program
    .command('check [spec...]')
    .description('check that everything gives its expected verdict: specs hold at their default configs, mutants are killed, controls pass, findings reproduce; without specs, every bundled spec and the bundled histories')
    .option('--full', 'every config, not only the default ones')
    .option('--workers <n>', "worker threads the explorations share, the longest first (default 1; at most the machine's parallelism)", workers)
    .option('--json', JSON_HELP)
    .option('--junit <file>', 'also write JUnit XML: one test case per config, mutant and history')
    .option('--force', 'let --junit replace an existing file')
    .action(async (args: string[], o: CheckOptions) => {
      process.exitCode = await runCheck(args, o);
    });
  withHelp(command, {
    examples: [
      ['interleave check', 'every bundled spec, mutant and history (npm start)'],
      ['interleave check --junit check.xml', 'the same, with a JUnit report for CI'],
      ['interleave check ./my-spec.ts --full', 'every config and mutant of a module of yours'],
      ['interleave check fusee swarm --json', 'two bundled specs, one JSON object'],
    ],
    exitCodes: {
      0: 'every config holds, every safety mutant is killed, every control passes, every finding reproduces, every history gives its expected verdict',
      1: 'something did not (marked in the tables)',
      64: 'also a spec with no default config, without --full (nothing would be checked), or with no mutants, controls or findings (none would be killed: explore checks its configs), or a config of a module with no property to check',
      65: 'a spec module cannot be loaded, threw, or breaks the contract',
      73: true,
    },
  });
}
