// `interleave check [--full]`: everything bundled must give its expected verdict — every
// spec at its default configs (--full: all configs) holds, every safety mutant is killed,
// every control passes, every finding reproduces, and the bundled histories
// (cli/check-traces.ts) give their expected verdicts. Exit 0 when all of that is so, 1 if not.
import type { Command } from 'commander';
import type { ExploreResult } from '../checkers/explore/types.ts';
import { specs } from '../specs/index.ts';
import { checkBundledTraces, renderTraceTable } from './check-traces.ts';
import { EXIT } from './exit.ts';
import { exploreSpec } from './explore.ts';
import { capWorkers, workers } from './flags.ts';
import { mutantSummary, renderMutantTable, runMutants } from './mutants.ts';

/** Runs the bundled traces, prints their table, and returns whether all passed. */
export async function checkTraces(out: (s: string) => void): Promise<boolean> {
  const rows = await checkBundledTraces();
  const failed = rows.filter((r) => !r.pass).length;
  out(`Bundled histories (traces/bundled/)\n${renderTraceTable(rows)}\n`);
  out(failed === 0 ? `all ${rows.length} histories give their expected verdict\n` : `${failed} of ${rows.length} histories do not give their expected verdict\n`);
  return failed === 0;
}

function verdictOf(r: ExploreResult): string {
  if (r.status === 'holds') return 'holds';
  if (r.status === 'violation') return `VIOLATION (${r.violations.map((v) => v.property).join(', ')})`;
  return `INCOMPLETE (${r.incompleteReason})`;
}

/** Explores every spec config of the tier, printing each row as it is done; returns whether all hold. */
export async function checkSpecs(out: (s: string) => void, full: boolean, workers: number): Promise<boolean> {
  const widths = [10, 14, 12, 9];
  const line = (cells: string[]) => cells.map((x, i) => (i === 2 || i === 3 ? x.padStart(widths[i]) : i < widths.length ? x.padEnd(widths[i]) : x)).join('  ').trimEnd();
  out(`Specs (${full ? 'all' : 'default'} configs)\n${line(['spec', 'config', 'states', 'time', 'verdict'])}\n`);
  let ok = true;
  for (const spec of specs) {
    for (const c of spec.configs) {
      if (!full && c.tier !== 'default') continue;
      const r = await exploreSpec(spec.name, c.name, undefined, { workers });
      ok &&= r.status === 'holds';
      out(`${line([spec.name, c.name, r.states.toLocaleString('en-US'), `${(r.elapsedMs / 1000).toFixed(1)} s`, verdictOf(r)])}\n`);
    }
  }
  return ok;
}

export function register(program: Command): void {
  program
    .command('check')
    .description('check everything bundled: specs hold at their default configs, mutants are killed, controls pass, bundled histories give their expected verdicts')
    .option('--full', 'every config, not only the default ones')
    .option('--workers <n>', "worker threads per exploration (default 1; at most the machine's parallelism)", workers)
    .action(async (o: { full?: boolean; workers?: number }) => {
      const out = (s: string) => process.stdout.write(s);
      const threads = capWorkers(o.workers, (s) => process.stderr.write(s));
      const specsOk = await checkSpecs(out, o.full ?? false, threads);
      const rows = await runMutants(specs, { workers: threads });
      out(`\nMutants\n${renderMutantTable(rows)}${mutantSummary(rows)}\n`);
      const tracesOk = await checkTraces(out);
      const ok = specsOk && rows.every((r) => r.ok) && tracesOk;
      out(ok ? 'check: everything gives its expected verdict\n' : 'check: FAILED (see the rows marked above)\n');
      process.exitCode = ok ? EXIT.holds : EXIT.violation;
    });
}
