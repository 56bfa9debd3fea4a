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

/** Starts the clock of `elapsedMs` (runCli, at the start of each command line). */
export function startClock(): void {
  started = performance.now();
}

/** The envelope as text: one JSON document, ending in a newline. */
export function envelopeText(command: string, exitCode: number, result: unknown): string {
  const envelope: Envelope = { command, version: VERSION, exitCode, elapsedMs: Math.round((performance.now() - started) * 10) / 10, result };
  return `${JSON.stringify(envelope, jsonReplacer, 2)}\n`;
}

/** Prints a command's --json output on stdout. */
export function printJson(command: string, exitCode: number, result: unknown, out: (s: string) => void = (s) => void process.stdout.write(s)): void {
  out(envelopeText(command, exitCode, result));
}
