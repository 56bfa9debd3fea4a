// The `interleave` program: every subcommand, each in its own module, registered here once
// for cli/main.ts and for the tests that run the command in their own process. A command
// line that names a command loads only that command's module (the others import the
// explorer, esbuild, the specs: hundreds of milliseconds of start-up that `interleave lin`
// never uses); `--version` alone loads none; help, a bare or unknown command loads them all.
import type { Command } from 'commander';
import { programOf, type CommandModule } from './program-root.ts';
import { applyCheckV8Flags } from './v8-flags.ts';

/** Each command's module, in the order help lists them. */
const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  check: () => import('./check.ts'),
  explore: () => import('./explore.ts'),
  mutants: () => import('./mutants.ts'),
  lin: () => import('./lin.ts'),
  list: () => import('./list.ts'),
  run: () => import('./run.ts'),
  validate: () => import('./validate.ts'),
  serve: () => import('./serve.ts'),
  init: () => import('./init.ts'),
  worker: () => import('./worker.ts'),
};

/**
 * The command `argv` (node, script, args...) runs, if its first word names one. The
 * program's own options (--version, --help, --debug) take no value, so the first word
 * that is not an option is the command.
 */
function commandOf(argv: readonly string[]): string | undefined {
  const word = argv.slice(2).find((a) => !a.startsWith('-'));
  return word !== undefined && Object.hasOwn(COMMANDS, word) ? word : undefined;
}

/** Only asks for the version: `interleave -V` / `--version` (and --debug), no command word, no help. */
function versionOnly(argv: readonly string[]): boolean {
  const args = argv.slice(2).filter((a) => a !== '--debug');
  return args.length > 0 && args.every((a) => a === '-V' || a === '--version');
}

/** The program; with `argv`, only the command it names when it names one. */
export async function buildProgram(argv?: readonly string[]): Promise<Command> {
  const named = argv === undefined ? undefined : commandOf(argv);
  // check's explorations run with V8 flags of their own (v8-flags.ts), set before its module
  // loads; only when the command line names it, since the flags last for the process
  if (named === 'check') applyCheckV8Flags();
  const names = argv !== undefined && versionOnly(argv) ? [] : named === undefined ? Object.keys(COMMANDS) : [named];
  return programOf(await Promise.all(names.map((name) => COMMANDS[name]())));
}
