// `interleave mutants <spec|all>`: run every mutant of a spec at its config. A safety
// mutant must be killed (some property violated; its expected property, when declared);
// a control must pass; a finding must reproduce its expected property (the conformance
// runner, checkers/explore/conformance.ts, judges). Rows are printed as each run finishes,
// with progress on a terminal; with --workers, runs share the threads, the longest first.
// Exit 0 when all of that is so, 1 otherwise, 64 bad usage, 65 a spec module's error,
// 73 the --junit file cannot be written.
import type { Command } from 'commander';
import type { ConformanceJob, Outcome } from '../checkers/explore/conformance.ts';
import type { ExploreOptions } from '../checkers/explore/types.ts';
import { checkExpects, runSpecJobs, specJobs, type SpecJob } from './conformance.ts';
import { EXIT, UsageError } from './exit.ts';
import { capWorkers, workers } from './flags.ts';
import { JSON_HELP, withHelp } from './help.ts';
import { printJson } from './envelope.ts';
import { junitXml, type JunitSuite } from './junit.ts';
import { checkOutputPath } from './output.ts';
import { writeAfterVerdict } from './errors.ts';
import { terminalProgress } from './progress.ts';
import { bundledSpecs, resolveSpec, specInputs } from './specs.ts';

export interface MutantRow {
  spec: string;
  name: string;
  kind: 'safety' | 'control' | 'finding';
  config: string;
  /** killed / survived for safety mutants; passes / fails for controls; reproduces / gone for findings */
  outcome: 'killed' | 'survived' | 'passes' | 'fails' | 'reproduces' | 'gone';
  ok: boolean;
  property?: string;
  expect?: string;
  counterexampleLength?: number;
  states: number;
  elapsedMs: number;
  note?: string;
}

/** The row of a mutant, control or finding job. */
export function mutantRow(o: Outcome): MutantRow {
  const { job } = o;
  return {
    spec: job.spec,
    name: job.name,
    kind: job.kind as MutantRow['kind'],
    config: job.config,
    outcome: o.outcome as MutantRow['outcome'],
    ok: o.ok,
    ...(o.property !== undefined ? { property: o.property } : {}),
    ...(job.expect !== undefined ? { expect: job.expect } : {}),
    ...(o.counterexampleLength !== undefined ? { counterexampleLength: o.counterexampleLength } : {}),
    states: o.states,
    elapsedMs: o.elapsedMs,
    ...(o.note !== undefined ? { note: o.note } : {}),
  };
}

/**
 * The mutants table, printed a row at a time: the widths of the columns known before the
 * runs come from the jobs; the property, only known after, comes last.
 */
export class MutantTable {
  private readonly widths: number[];
  private static readonly HEADER = ['spec', 'mutant', 'kind', 'config', 'outcome', 'steps', 'states', 'time', 'property'];

  constructor(jobs: readonly ConformanceJob[]) {
    const known = (f: (j: ConformanceJob) => string, h: string) => Math.max(h.length, ...jobs.map((j) => f(j).length));
    this.widths = [known((j) => j.spec, 'spec'), known((j) => j.name, 'mutant'), 'finding'.length, known((j) => j.config, 'config'), '!! reproduces'.length, 5, 11, 8];
  }

  private line(cells: string[]): string {
    return cells.map((c, i) => (i >= this.widths.length ? c : i === 5 || i === 6 || i === 7 ? c.padStart(this.widths[i]) : c.padEnd(this.widths[i]))).join('  ').trimEnd();
  }

  header(): string {
    return `${this.line(MutantTable.HEADER)}\n`;
  }

  row(r: MutantRow): string {
    return `${this.line([
      r.spec,
      r.name,
      r.kind,
      r.config,
      `${r.ok ? '' : '!! '}${r.outcome}`,
      r.counterexampleLength === undefined ? '-' : String(r.counterexampleLength),
      r.states.toLocaleString('en-US'),
      `${(r.elapsedMs / 1000).toFixed(1)} s`,
      r.property ?? '-',
    ])}\n`;
  }

  static notes(rows: readonly MutantRow[]): string {
    const notes = rows.filter((r) => r.note).map((r) => `  ${r.spec}/${r.name}: ${r.note}`);
    return notes.length ? `notes:\n${notes.join('\n')}\n` : '';
  }
}

export function mutantSummary(rows: readonly MutantRow[]): string {
  const safety = rows.filter((r) => r.kind === 'safety');
  const controls = rows.filter((r) => r.kind === 'control');
  const findings = rows.filter((r) => r.kind === 'finding');
  return (
    `mutants killed: ${safety.filter((r) => r.ok).length}/${safety.length}; ` +
    `controls passing: ${controls.filter((r) => r.ok).length}/${controls.length}; ` +
    `findings reproducing: ${findings.filter((r) => r.ok).length}/${findings.length}\n`
  );
}

/**
 * Runs the mutant jobs, printing the table row by row (unless JSON is asked for) with
 * progress on a terminal.
 */
export async function runMutantsPrinted(jobs: readonly SpecJob[], options: ExploreOptions, threads: number, out: ((s: string) => void) | undefined): Promise<MutantRow[]> {
  const table = new MutantTable(jobs.map((j) => j.job));
  out?.(table.header());
  const rows: MutantRow[] = [];
  await runSpecJobs(jobs, options, threads, {
    progress: terminalProgress(),
    onOutcome: (o) => {
      const row = mutantRow(o);
      rows.push(row);
      out?.(table.row(row));
    },
  });
  out?.(MutantTable.notes(rows) + mutantSummary(rows));
  return rows;
}

export function mutantSuite(rows: readonly MutantRow[]): JunitSuite {
  return {
    name: 'mutants',
    cases: rows.map((r) => ({
      classname: r.spec,
      name: `${r.kind} ${r.name} @ ${r.config}`,
      seconds: r.elapsedMs / 1000,
      output: `${r.outcome}${r.property ? ` by ${r.property}` : ''}${r.counterexampleLength !== undefined ? ` in ${r.counterexampleLength} steps` : ''}; ${r.states} states${r.note ? `; ${r.note}` : ''}`,
      ...(r.ok ? {} : { failure: { message: `${r.kind} ${r.name} ${r.outcome}${r.expect ? ` (expected ${r.expect})` : ''}${r.note ? `: ${r.note}` : ''}` } }),
    })),
  };
}

/** Writes the --junit file after the run; a failure is reported and gives 73. */
export function writeJunit(path: string, xml: string, guard: { inputs: string[]; force?: boolean }): string | undefined {
  const error = writeAfterVerdict(path, xml, guard);
  if (error !== undefined) process.stderr.write(`interleave: ${error}\n`);
  return error;
}

export function register(program: Command): void {
  const command = program
    .command('mutants <spec>')
    .description('run every mutant of a spec (bundled, a module of yours, or all bundled ones) at its config: safety mutants must be killed, controls must pass, findings must reproduce')
    .option('--workers <n>', "worker threads the runs share (default 1; at most the machine's parallelism)", workers)
    .option('--json', JSON_HELP)
    .option('--junit <file>', 'also write the rows as JUnit XML, one test case per mutant')
    .option('--force', 'let --junit replace an existing file')
    .action(async (name: string, o: { workers?: number; json?: boolean; junit?: string; force?: boolean }) => {
      const list = name === 'all' ? bundledSpecs() : [await resolveSpec(name)];
      const guard = { inputs: o.junit !== undefined ? await specInputs(list) : [], force: o.force };
      if (o.junit !== undefined) checkOutputPath(o.junit, guard);
      const jobs = specJobs(list, { configs: false });
      // As `check` refuses a spec with no default config: a pass of no mutants says nothing.
      if (jobs.length === 0) throw new UsageError(`${name === 'all' ? 'the bundled specs declare' : `spec ${list[0]!.name} declares`} no mutants, controls or findings: nothing to run`);
      await checkExpects(jobs);
      const threads = capWorkers(o.workers, (s) => process.stderr.write(s));
      const rows = await runMutantsPrinted(jobs, {}, threads, o.json ? undefined : (s) => process.stdout.write(s));
      const ok = rows.every((r) => r.ok);
      let code: number = ok ? EXIT.holds : EXIT.violation;
      const junitError = o.junit === undefined ? undefined : writeJunit(o.junit, junitXml(`interleave mutants ${name}`, [mutantSuite(rows)]), guard);
      if (junitError !== undefined) code = EXIT.cannotCreate;
      if (o.json) printJson('mutants', code, { ok, rows, ...(junitError ? { outputErrors: [junitError] } : {}) });
      process.exitCode = code;
    });
  withHelp(command, {
    examples: [
      ['interleave mutants rowan', "every mutant of a bundled spec, each at its own config"],
      ['interleave mutants all --junit mutants.xml', 'every bundled spec; a JUnit test case per mutant for CI'],
      ['interleave mutants ./my-spec.ts --json', 'the mutants a module of yours declares'],
    ],
    exitCodes: {
      0: 'every safety mutant is killed, every control passes, every finding reproduces',
      1: 'some mutant survived, control failed or finding is gone (marked !! in the table)',
      64: 'also a spec with no mutants, controls or findings (nothing to run)',
      65: 'a spec module cannot be loaded, threw, or breaks the contract',
      73: true,
    },
  });
}
