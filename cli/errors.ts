// The one place where a failure becomes an exit code. A verdict is 0, 1 or 2; a failure
// never is: bad usage 64, bad input 65, an output that cannot be written 73, and anything
// else is a bug of ours, internal error 70, reported in one line (the stack only under
// --debug or INTERLEAVE_DEBUG=1) so that no caller mistakes a crash for a verdict.
import { CommanderError, type Command } from 'commander';
import { InputError, ReadTimeout } from '../traces/index.ts';
import { EXIT, UsageError } from './exit.ts';
import { OutputError } from './output.ts';

/** Prints what went wrong and returns the exit code it gives. */
export function reportError(e: unknown, err: (s: string) => void, debug = false): number {
  if (e instanceof UsageError) {
    err(`interleave: ${e.message}\n`);
    return EXIT.usage;
  }
  if (e instanceof InputError) {
    err(`interleave: ${e.message}\n`);
    return EXIT.badData;
  }
  if (e instanceof OutputError) {
    err(`interleave: ${e.message}\n`);
    return EXIT.cannotCreate;
  }
  if (e instanceof ReadTimeout) {
    err(`interleave: ${e.message}; no verdict (exit 2)\n`);
    return EXIT.inconclusive;
  }
  const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  const firstLine = what.split('\n', 1)[0]!.slice(0, 300);
  err(`interleave: internal error: ${firstLine}\n`);
  if (debug && e instanceof Error && e.stack) err(`${e.stack}\n`);
  else err('interleave: this is a bug in interleave, not a verdict; run again with --debug for the stack, and please report it\n');
  return EXIT.internal;
}

/**
 * Runs the program on argv and returns the exit code. `--debug` may stand anywhere on the
 * command line. Errors thrown outside the command's promise (a timer, a stream) are
 * reported the same way, and exit 70.
 */
export async function runCli(
  program: Command,
  argv: readonly string[],
  { err = (s: string) => void process.stderr.write(s), guardProcess = true }: { err?: (s: string) => void; guardProcess?: boolean } = {},
): Promise<number> {
  const debug = argv.includes('--debug') || process.env.INTERLEAVE_DEBUG === '1';
  const args = argv.filter((a, i) => i < 2 || a !== '--debug');
  program.option('--debug', 'on an internal error (exit 70), print its stack');
  for (const command of [program, ...program.commands]) command.configureOutput({ writeErr: err });
  const stray = (e: unknown) => {
    process.exitCode = reportError(e, err, debug);
    process.exit();
  };
  if (guardProcess) {
    process.on('uncaughtException', stray);
    process.on('unhandledRejection', stray);
  }
  process.exitCode = undefined;
  try {
    await program.parseAsync(args);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.holds;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.holds : EXIT.usage;
    return reportError(e, err, debug);
  } finally {
    process.off('uncaughtException', stray);
    process.off('unhandledRejection', stray);
  }
}
