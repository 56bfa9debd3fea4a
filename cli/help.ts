// Every command's --help ends the same way: examples, then the exit codes it gives. A
// command declares both once, where it is registered (`withHelp`); usage (64) and internal
// error (70) are every command's and are added here. tests check every registered command.
import type { Command } from 'commander';
import { EXIT } from './exit.ts';

export interface CommandHelp {
  /** Command lines (starting with `interleave <command>`) and what each does. */
  examples: readonly (readonly [string, string])[];
  /**
   * What each exit code means for this command. 0, 1 and 2 are verdicts in the command's
   * words; 65 and 73, when the command can give them, may say `true` for the standard
   * meaning. 64, 70 and 141 (stdout closed early) are added to every command; the command's
   * own words for 64 or 70, when it gives them, follow the standard meaning.
   */
  exitCodes: { 0: string; 1?: string; 2?: string; 64?: string; 65?: string | true; 69?: string; 70?: string; 73?: string | true };
}

const STANDARD: Record<number, string> = {
  [EXIT.usage]: 'bad usage: an unknown name, a flag out of range, flags that do not go together',
  [EXIT.badData]: 'bad input: a file cannot be read as what it claims to be (the message names the file and line)',
  [EXIT.internal]: 'internal error: a bug of interleave, never a verdict (--debug prints the stack)',
  [EXIT.cannotCreate]: 'an output cannot be written (it would replace an input, or an existing file without --force)',
  [EXIT.closedPipe]: 'the reader of stdout closed it early (as `| head` does); nothing more is printed, never a verdict',
};

const registered = new WeakMap<Command, CommandHelp>();

/** The exit codes a command gives, with their meanings, in order. */
export function exitCodesOf(help: CommandHelp): [number, string][] {
  const codes: [number, string][] = [];
  for (const [code, text] of Object.entries(help.exitCodes)) {
    if (text === undefined || Number(code) === EXIT.usage || Number(code) === EXIT.internal) continue;
    codes.push([Number(code), text === true ? STANDARD[Number(code)] : text]);
  }
  for (const code of [EXIT.usage, EXIT.internal] as const) {
    const own = help.exitCodes[code];
    codes.push([code, own === undefined ? STANDARD[code] : `${STANDARD[code]}; ${own}`]);
  }
  codes.push([EXIT.closedPipe, STANDARD[EXIT.closedPipe]]);
  return codes.sort((a, b) => a[0] - b[0]);
}

export function renderHelp(help: CommandHelp): string {
  const width = Math.max(...help.examples.map(([cmd]) => cmd.length));
  const lines = ['', 'Examples:'];
  for (const [cmd, what] of help.examples) lines.push(`  ${cmd.padEnd(width)}  # ${what}`);
  lines.push('', 'Exit codes:');
  for (const [code, text] of exitCodesOf(help)) lines.push(`  ${String(code).padStart(3)}  ${text}`);
  return lines.join('\n');
}

/** Adds the examples and exit codes to the command's --help. */
export function withHelp(command: Command, help: CommandHelp): Command {
  registered.set(command, help);
  return command.addHelpText('after', renderHelp(help));
}

/** The help a command declared (for the tests that check every command). */
export function helpOf(command: Command): CommandHelp | undefined {
  return registered.get(command);
}

/** The --json option's description, the same for every command. */
export const JSON_HELP = 'print one JSON object: {command, version, exitCode, elapsedMs, result} (cli/README.md)';
