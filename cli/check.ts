// `interleave check`: everything bundled must give its expected verdict. For now that is
// the bundled histories (cli/check-traces.ts); the specs join later as a separate part.
import type { Command } from 'commander';
import { checkBundledTraces, renderTraceTable } from './check-traces.ts';
import { EXIT } from './exit.ts';

/** Runs the bundled traces, prints their table, and returns whether all passed. */
export async function checkTraces(out: (s: string) => void): Promise<boolean> {
  const rows = await checkBundledTraces();
  const failed = rows.filter((r) => !r.pass).length;
  out(`Bundled histories (traces/bundled/)\n${renderTraceTable(rows)}\n`);
  out(failed === 0 ? `all ${rows.length} histories give their expected verdict\n` : `${failed} of ${rows.length} histories do not give their expected verdict\n`);
  return failed === 0;
}

export function register(program: Command): void {
  program
    .command('check')
    .description('check everything bundled: the bundled histories give their expected verdicts')
    .action(async () => {
      const ok = await checkTraces((s) => process.stdout.write(s));
      process.exitCode = ok ? EXIT.holds : EXIT.violation;
    });
}
