// The one place where a failure becomes an exit code. A verdict is 0, 1 or 2; a failure
// never is: bad usage 64, bad input 65, an output that cannot be written 73, and anything
// else is a bug of ours, internal error 70, reported in one line (the stack only under
// --debug or INTERLEAVE_DEBUG=1) so that no caller mistakes a crash for a verdict.
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommanderError, type Command } from 'commander';
import { SpecError, SpecThrew, UnsupportedOption } from '../checkers/explore/errors.ts';
import { InputError, ReadTimeout } from '../traces/errors.ts';
import { EXIT, UsageError } from './exit.ts';
import { envelopeMade, envelopeText, startClock } from './envelope.ts';
import { OutputError, writeOutput, type OutputGuard } from './output.ts';
import { PACKAGE_ROOT } from './package-root.ts';

/** What a user's spec module threw: its error, not ours (exit 65); --debug prints the stack. */
export class SpecModuleError extends InputError {
  constructor(
    file: string,
    doing: string,
    override readonly cause: unknown,
  ) {
    const what = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    super(file, undefined, `a spec that does not throw; it threw while ${doing}: ${what.split('\n', 1)[0]!.slice(0, 300)}`);
  }
}

function ours(e: unknown): boolean {
  return e instanceof UsageError || e instanceof InputError || e instanceof OutputError || e instanceof ReadTimeout || e instanceof SpecError || e instanceof UnsupportedOption;
}

/**
 * Runs f on a spec; when the spec is a user's module, an exception that is not one of
 * interleave's own errors is the module's (a SpecModuleError, exit 65).
 */
export async function userSpecErrors<T>(spec: { module?: { file: string } }, doing: string, f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    const contract = contractOfFile(spec, doing, e);
    if (contract !== e || spec.module === undefined || ours(e)) throw contract;
    throw new SpecModuleError(spec.module.file, doing, e);
  }
}

/**
 * Runs f on a spec; a SpecError (the spec breaks the contract) of a user's module is said of
 * its file, as userSpecErrors says it, and so is what the module's own functions threw (a
 * SpecThrew: the search marked it as the spec's, checkers/distributed/spec-calls.ts); any
 * other exception is left as it is (explore --redis: what fails there may be Redis or the
 * queue, not the spec).
 */
export async function userSpecContract<T>(spec: { module?: { file: string } }, doing: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (spec.module !== undefined && e instanceof SpecThrew) {
      const thrown = new Error(e.thrown.message);
      thrown.name = e.thrown.name;
      throw new SpecModuleError(spec.module.file, doing, e.cause ?? thrown);
    }
    throw contractOfFile(spec, doing, e);
  }
}

/** A user's module that breaks the contract: the SpecError said of its file (from a worker thread or a --redis job it comes back as an Error named SpecError); else e. */
function contractOfFile(spec: { module?: { file: string } }, doing: string, e: unknown): unknown {
  if (spec.module !== undefined && e instanceof Error && (e instanceof SpecError || e.name === 'SpecError')) return new InputError(spec.module.file, undefined, `${e.message} (${doing})`);
  return e;
}

/** A path or file URL as a path. */
function pathOf(location: string): string {
  try {
    return location.startsWith('file:') ? fileURLToPath(location) : location;
  } catch {
    return location;
  }
}

/** interleave's own code, a package's or Node's: not a user's module. */
function notUsers(path: string): boolean {
  return path.startsWith(PACKAGE_ROOT + sep) || path.includes(`${sep}node_modules${sep}`) || !path.startsWith(sep);
}

/**
 * Where in a user's own modules (a spec and what it imports, not interleave's code, a
 * package's or Node's) an error comes from: the file and line of the first frame of its
 * stack that has one, the module that does not parse, or the module whose import() of
 * another could not be resolved ("imported from"); undefined when it comes from elsewhere.
 */
export function userCodeSite(e: unknown): { file: string; line?: number } | undefined {
  if (!(e instanceof Error)) return undefined;
  const importer = /imported from (\S+)\s*$/.exec(e.message)?.[1];
  if (typeof (e as { code?: unknown }).code === 'string' && importer !== undefined) {
    const file = pathOf(importer);
    return notUsers(file) ? undefined : { file };
  }
  const stack = e.stack ?? '';
  // a module that does not parse: its URL and line head the stack; else the first frame with a file
  const at =
    /^((?:file:\/\/)?\/[^\s]*?):(\d+)\n/.exec(stack) ??
    stack
      .split('\n')
      .map((l) => /^\s+at (?:.*\()?((?:file:\/\/)?\/[^\s()]*?):(\d+):\d+\)?$/.exec(l))
      .find((m) => m !== null);
  if (!at) return undefined;
  const file = pathOf(at[1]);
  return notUsers(file) ? undefined : { file, line: Number(at[2]) };
}

/**
 * An error that escaped a user's module outside interleave's calls (a promise it did not
 * await, an import() of a module that fails, a timer): the module's error said of where it
 * was thrown (exit 65; --debug prints its stack), not an internal error; undefined when it
 * is not the user's.
 */
function escapedFromUserCode(e: unknown): SpecModuleError | undefined {
  const site = userCodeSite(e);
  if (site === undefined) return undefined;
  return new SpecModuleError(`${site.file}${site.line === undefined ? '' : `:${site.line}`}`, "running outside interleave's calls (a promise not awaited, an import() that failed, a timer)", e);
}

/** The last failure reported on this command line: the `error` of a --json error envelope. */
let lastFailure: string | undefined;

/** Prints a failure's one line (`interleave: <message>`) on err, and notes it for --json. */
export function reportFailure(message: string, err: (s: string) => void): void {
  lastFailure = message;
  err(`interleave: ${message}\n`);
}

/** Prints what went wrong and returns the exit code it gives. */
export function reportError(e: unknown, err: (s: string) => void, debug = false): number {
  lastFailure = e instanceof Error ? e.message : String(e);
  if (e instanceof UsageError || e instanceof UnsupportedOption) {
    err(`interleave: ${e.message}\n`);
    return EXIT.usage;
  }
  if (e instanceof InputError || e instanceof SpecError) {
    err(`interleave: ${e.message}\n`);
    if (debug && e instanceof SpecModuleError && e.cause instanceof Error && e.cause.stack) err(`${e.cause.stack}\n`);
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
  lastFailure = `internal error: ${firstLine}`;
  err(`interleave: internal error: ${firstLine}\n`);
  if (debug && e instanceof Error && e.stack) err(`${e.stack}\n`);
  else err('interleave: this is a bug in interleave, not a verdict; run again with --debug for the stack, and please report it\n');
  return EXIT.internal;
}

/**
 * Runs a command's body that prints on its own io (run, validate, lin): one of
 * interleave's errors it throws (bad usage, bad input, an output refused) is printed on
 * io.err and gives its exit code, as reportError says; anything else is a bug of ours and
 * propagates to runCli (exit 70).
 */
export async function withErrors(err: (s: string) => void, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (e) {
    if (ours(e) || e instanceof ReadTimeout) return reportError(e, err);
    throw e;
  }
}

/**
 * Writes an output once the verdict is known: a failure is returned (its message), not
 * thrown, so that the verdict is still printed; the command then exits 73.
 */
export function writeAfterVerdict(path: string, data: string | Uint8Array, guard: OutputGuard): string | undefined {
  try {
    writeOutput(path, data, guard);
    return undefined;
  } catch (e) {
    if (!(e instanceof OutputError)) throw e;
    return e.message;
  }
}

let streamsGuarded = false;

/**
 * Ends the process when stdout or stderr cannot be written: quietly with EXIT.closedPipe
 * when the reader went away (EPIPE: Node ignores SIGPIPE, so the write fails instead, and
 * the error is reported on the stream after the write returned), else (a full device: `> /dev/full`) with one line on
 * stderr and exit 73. Stays installed after runCli returns, since a write's error arrives
 * after the command's promise resolved.
 */
function guardStreams(): void {
  if (streamsGuarded) return;
  streamsGuarded = true;
  for (const [name, stream] of [['stdout', process.stdout], ['stderr', process.stderr]] as const) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(EXIT.closedPipe);
      if (name === 'stdout') {
        try {
          process.stderr.write(`interleave: cannot write stdout: ${e.code ?? e.message}\n`);
        } catch {
          // stderr is gone too
        }
      }
      process.exit(EXIT.cannotCreate);
    });
  }
}

/**
 * The command a command line names when that command takes `--json` and the line asks for
 * it: a failure then still prints one envelope on stdout.
 */
function jsonCommand(program: Command, args: readonly string[]): string | undefined {
  const word = args.slice(2).find((a) => !a.startsWith('-'));
  const command = program.commands.find((c) => c.name() === word);
  if (command === undefined || !command.options.some((o) => o.long === '--json')) return undefined;
  return args.slice(args.indexOf(word!) + 1).includes('--json') ? command.name() : undefined;
}

/**
 * Runs the program on argv and returns the exit code. `--debug` may stand anywhere on the
 * command line. Errors thrown outside the command's promise (a timer, a stream) are
 * reported the same way, and exit 70, or 65 when they come from a user's module (an
 * import() it did not await), also after the command returned. With `--json`, a failure that printed no envelope
 * (bad usage, bad input, an output refused before the run) prints one with `result: null`
 * and `error`, so that stdout is always one JSON document.
 */
export async function runCli(
  program: Command,
  argv: readonly string[],
  { err = (s: string) => void process.stderr.write(s), guardProcess = true }: { err?: (s: string) => void; guardProcess?: boolean } = {},
): Promise<number> {
  const debug = argv.includes('--debug') || process.env.INTERLEAVE_DEBUG === '1';
  const args = argv.filter((a, i) => i < 2 || a !== '--debug');
  program.option('--debug', 'on an internal error (exit 70), print its stack');
  const json = jsonCommand(program, args);
  let usage: string | undefined;
  const writeErr = (s: string) => {
    usage ??= s.trim().split('\n', 1)[0]!.replace(/^error: /, '');
    err(s);
  };
  for (const command of [program, ...program.commands]) command.configureOutput({ writeErr });
  const withEnvelope = (code: number): number => {
    if (json !== undefined && !envelopeMade()) process.stdout.write(envelopeText(json, code, null, lastFailure ?? usage ?? `exit ${code}`));
    return code;
  };
  const stray = (e: unknown) => {
    process.exitCode = withEnvelope(reportError(escapedFromUserCode(e) ?? e, err, debug));
    process.exit();
  };
  if (guardProcess) {
    guardStreams();
    process.on('uncaughtException', stray);
    process.on('unhandledRejection', stray);
  }
  process.exitCode = undefined;
  lastFailure = undefined;
  startClock();
  try {
    await program.parseAsync(args);
    return withEnvelope(typeof process.exitCode === 'number' ? process.exitCode : EXIT.holds);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.holds : withEnvelope(EXIT.usage);
    return withEnvelope(reportError(e, err, debug));
  }
  // The handlers stay (guardProcess: the process is the command's): an error that escapes
  // after the command returned (a user's import() that fails once the verdict is printed)
  // is reported the same way, never a raw stack trace with exit 1, which reads as a violation.
}
