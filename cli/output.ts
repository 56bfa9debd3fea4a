// Writing what the user asked for (--html, --itf, --out DIR, ...) without losing anything:
// an output never replaces an input (compared by real path and by inode, so links do not
// hide it; the package's own files, which every run reads, are inputs of every command), never replaces an existing file unless the user said --force, and is written
// to a temporary file in the same directory, then renamed into place, so that a failed
// write leaves nothing half-written. Failures are OutputErrors: exit 73.
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { PACKAGE_ROOT } from './package-root.ts';

export class OutputError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`cannot write ${path}: ${reason}`);
    this.name = 'OutputError';
  }
}

export interface OutputGuard {
  /** The files the command reads: an output may never replace one of them. */
  inputs: readonly string[];
  /** Replace an existing file that is not an input. */
  force?: boolean;
}

function identity(path: string): { real: string; dev: number; ino: number } | undefined {
  try {
    const s = statSync(path);
    return { real: realpathSync(path), dev: s.dev, ino: s.ino };
  } catch {
    return undefined;
  }
}

/**
 * The package's files that a run reads. Installed (under node_modules), that is all of it:
 * its code, the bundled specs and histories, the startup snapshot (.lin-snapshot/). In a
 * source checkout the user's own files live next to interleave's (`init specs/raft-log`,
 * `--html specs/raft-log.html`), so there it is what the checkout is made of: the files git
 * tracks, and the build's products and tools (without git: every code or data file under the
 * package's folders). `--junit node_modules/interleave/traces/bundled/register-ok.jsonl
 * --force` would otherwise replace a history `check` reads.
 */
const BUILT = ['bin', 'dist', '.lin-snapshot', 'node_modules', 'package.json', 'package-lock.json', 'tsconfig.json', 'index.ts'];
const SOURCE_DIRS = ['checkers', 'cli', 'impl', 'specs', 'traces'];
const CODE_OR_DATA = /\.(?:[cm]?[jt]s|json|jsonl|edn|tsv|txt|log|blob|md)$/;

let packageRoot: string | undefined;
let tracked: Set<string> | null | undefined;

/** The checkout's files as git lists them (paths relative to the root), or null without git. */
function trackedFiles(root: string): Set<string> | null {
  const r = spawnSync('git', ['-C', root, 'ls-files', '-z', '--', ...SOURCE_DIRS], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0 || typeof r.stdout !== 'string') return null;
  return new Set(r.stdout.split('\0').filter((f) => f !== '').map((f) => f.split('/').join(sep)));
}

/** The package's own file at this real path, if it is one. */
function packageInput(real: string): string | undefined {
  packageRoot ??= realpathSync(PACKAGE_ROOT);
  const rel = relative(packageRoot, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  if (packageRoot.split(sep).includes('node_modules')) return real;
  const top = rel.split(sep, 1)[0]!;
  if (BUILT.includes(top)) return real;
  if (!SOURCE_DIRS.includes(top)) return undefined;
  if (tracked === undefined) tracked = trackedFiles(packageRoot);
  return (tracked === null ? CODE_OR_DATA.test(rel) : tracked.has(rel)) ? real : undefined;
}

/**
 * Refuses an output path before any work is done: one that is (a link to) an input, an
 * existing file without `force`, a directory, or one whose directory does not exist.
 */
export function checkOutputPath(path: string, guard: OutputGuard): void {
  const target = identity(path);
  if (target !== undefined) {
    for (const input of guard.inputs) {
      const id = identity(input);
      if (id !== undefined && (id.real === target.real || (id.dev === target.dev && id.ino === target.ino))) {
        throw new OutputError(path, `it is the input ${input} (an output never replaces an input)`);
      }
    }
    const own = packageInput(target.real);
    if (own !== undefined) throw new OutputError(path, `it is ${own}, a file of interleave itself, which the run reads (an output never replaces an input)`);
  }
  let exists: ReturnType<typeof lstatSync> | undefined;
  try {
    exists = lstatSync(path);
  } catch {
    exists = undefined;
  }
  if (exists !== undefined) {
    const s = statSafe(path);
    if (s?.isDirectory()) throw new OutputError(path, 'it is a directory');
    // A device, pipe or socket is never replaced by a file, --force or not (/dev/full).
    if (s !== undefined && !s.isFile()) throw new OutputError(path, 'it is not a regular file');
    if (!guard.force) throw new OutputError(path, 'the file exists (pass --force to replace it)');
  }
  const dir = dirname(resolve(path));
  const d = statSafe(dir);
  if (d === undefined) throw new OutputError(path, `no such directory ${dir}`);
  if (!d.isDirectory()) throw new OutputError(path, `${dir} is not a directory`);
}

function statSafe(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** Checks the path again (the file system may have changed), then writes atomically. */
export function writeOutput(path: string, data: string | Uint8Array, guard: OutputGuard): void {
  checkOutputPath(path, guard);
  const dir = dirname(resolve(path));
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', 0o644);
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    const code = (e as NodeJS.ErrnoException).code;
    throw new OutputError(path, code === 'ENOSPC' ? 'no space left on the device' : code ?? (e as Error).message);
  }
}

/**
 * Prepares a directory for a command's outputs: creates it, or accepts an existing empty
 * one; a non-empty one only with `force` (its files are then replaced one by one, each
 * through writeOutput).
 */
export function prepareOutputDir(dir: string, guard: OutputGuard): void {
  if (checkOutputDir(dir, guard) === 'absent') {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (e) {
      throw new OutputError(dir, (e as NodeJS.ErrnoException).code ?? (e as Error).message);
    }
  }
}

/** Refuses an output directory before any work, as prepareOutputDir would, without creating it. */
export function checkOutputDir(dir: string, guard: OutputGuard): 'absent' | 'usable' {
  const s = statSafe(dir);
  if (s === undefined) return 'absent';
  if (!s.isDirectory()) throw new OutputError(dir, 'it exists and is not a directory');
  for (const input of guard.inputs) {
    const id = identity(input);
    if (id !== undefined && id.real.startsWith(realpathSync(dir) + '/') && !guard.force) {
      throw new OutputError(dir, `it holds the input ${input}`);
    }
  }
  if (!guard.force && readdirSafe(dir).length > 0) throw new OutputError(dir, 'the directory is not empty (pass --force to write into it)');
  return 'usable';
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
