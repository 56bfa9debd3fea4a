// Writes every command's --json envelope (json.ts has its zod schemas, for consumers and
// tests). Kept apart from json.ts so that a command loads no zod to print its output: zod's
// modules were ~80 ms of `interleave lin`'s start-up (issue 21).
import type { Envelope } from './json.ts';
import { VERSION } from './package-root.ts';

/** JSON for results whose states hold Maps, Sets or bigints (written as ITF does). */
export function jsonReplacer(_key: string, v: unknown): unknown {
  if (v instanceof Map) return { '#map': [...v] };
  if (v instanceof Set) return { '#set': [...v] };
  if (typeof v === 'bigint') return { '#bigint': v.toString() };
  if (v === undefined) return null;
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<unknown>);
  return v;
}

let started = performance.now();
/** Whether this command line has made its envelope: runCli prints one for a failure when not. */
let made = false;

/** Starts the clock of `elapsedMs` (runCli, at the start of each command line). */
export function startClock(): void {
  started = performance.now();
  made = false;
}

/** Whether an envelope was made since startClock. */
export function envelopeMade(): boolean {
  return made;
}

/**
 * The envelope as text: one JSON document, ending in a newline. A failure before any
 * result (exit 64, 65, 69, 70, or 73 before the run) has `result: null` and `error`, the
 * line printed on stderr.
 */
export function envelopeText(command: string, exitCode: number, result: unknown, error?: string): string {
  made = true;
  const envelope: Envelope = { command, version: VERSION, exitCode, elapsedMs: Math.round((performance.now() - started) * 10) / 10, result, ...(error !== undefined ? { error } : {}) };
  return `${JSON.stringify(envelope, jsonReplacer, 2)}\n`;
}

/** Prints a command's --json output on stdout. */
export function printJson(command: string, exitCode: number, result: unknown, out: (s: string) => void = (s) => void process.stdout.write(s)): void {
  out(envelopeText(command, exitCode, result));
}
