// Test support: the `interleave` command run inside the test's process, through the same
// error handling as cli/main.ts (runCli), with stdout and stderr captured. Much faster
// than spawning a process, so fuzz tests can run it hundreds of times; a few tests still
// spawn the real bin/interleave.js.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { runCli } from './errors.ts';
import { buildProgram } from './program.ts';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

let running = false;

/** Runs `interleave ...args` here; one at a time (stdout and stderr are the process's). */
export async function runInProcess(...args: string[]): Promise<CliRun> {
  if (running) throw new Error('runInProcess: one run at a time');
  running = true;
  const program = await buildProgram();
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write;
  const err = process.stderr.write;
  const exitCode = process.exitCode;
  process.stdout.write = ((s: string | Uint8Array) => ((stdout += String(s)), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string | Uint8Array) => ((stderr += String(s)), true)) as typeof process.stderr.write;
  try {
    const code = await runCli(program, ['node', 'interleave', ...args], { guardProcess: false, err: (s) => (stderr += s) });
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    process.exitCode = exitCode;
    running = false;
  }
}

export const ROOT = resolve(import.meta.dirname, '..');

/** The real command, as a user runs it: bin/interleave.js in a process of its own. */
export function spawnCli(args: string[], options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((done) => {
    execFile(process.execPath, ['bin/interleave.js', ...args], { cwd: ROOT, encoding: 'utf8', timeout: options.timeoutMs ?? 60_000, env: { ...process.env, ...options.env }, maxBuffer: 1 << 26 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

/** A stack trace line, as Node prints them. */
export const STACK_LINE = /^\s+at .+[(:]\d+/m;

/** The exit codes cli/README.md documents that a run without Redis (69) and with stdout open (141) can give. */
export const DOCUMENTED_EXIT_CODES = [0, 1, 2, 64, 65, 70, 73];
