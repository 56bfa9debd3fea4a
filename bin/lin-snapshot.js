// `interleave lin` started from a V8 startup snapshot (cli/README.md, "How `interleave lin`
// starts"): the blob holds the command's modules evaluated and the checker's functions
// compiled by a warm-up (cli/lin-snapshot.ts), so that neither the modules' loading (tsx in
// a source checkout) nor V8's lazy compilation is paid again by every `interleave lin`.
//
// Plain JavaScript with built-ins only: bin/interleave.js imports it before anything else.
// The blob is tied to what it was built from (the stamp beside it): this node binary, the
// node arguments below, the package's place, and the content of every source file bundled
// into it. When anything differs, or the blob is missing, `interleave lin` runs as before.
//
//   node bin/lin-snapshot.js [--dir DIR] [--if-possible]   build the blob (npm run build does, and npm's postinstall)
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The node arguments a blob is built with and started with, the one place to add a V8
 * flag: V8 refuses (exit 14) a snapshot started under other V8 flags than it was built with.
 * --always-sparkplug: a first 10-operation check from the blob 0.54-0.61 -> 0.20-0.21 ms
 * (geomean of 30 histories; 100 operations 1.41 -> 1.31 ms), RESULTS-issue21.md.
 */
export const SNAPSHOT_NODE_ARGS = ['--always-sparkplug'];

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where `interleave lin` looks for its blob; INTERLEAVE_LIN_SNAPSHOT=DIR names another (and requires it). */
export const DEFAULT_DIR = join(ROOT, '.lin-snapshot');

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];

/** The entry a blob is built from: the sources in a checkout, dist/ in the package (as bin/interleave.js chooses). */
export function cliEntry(root = ROOT) {
  return existsSync(join(root, 'cli/main.ts')) ? join(root, 'cli/lin-snapshot-entry.ts') : join(root, 'dist/cli/lin-snapshot-entry.js');
}

/** What a blob must have been built with to run in this process. */
function wanted(root, entry, args) {
  return { node: process.version, v8: process.versions.v8, execPath: process.execPath, arch: process.arch, args, root, entry: relative(root, entry) };
}

function inputsHash(root, inputs) {
  const hash = createHash('sha256');
  for (const file of inputs) hash.update(`${file}\0`).update(readFileSync(resolve(root, file))).update('\0');
  return hash.digest('hex');
}

/**
 * The blob in `dir`, if this process may start it: `{ blob, args }`; else `{ reason }`.
 * Reads every source file the blob was bundled from (~50, ~1 ms), so that an edited
 * source is never run from a stale blob.
 */
export function usableSnapshot(dir = DEFAULT_DIR, { root = ROOT, entry = cliEntry(root), args = SNAPSHOT_NODE_ARGS } = {}) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(dir, 'stamp.json'), 'utf8'));
  } catch {
    return { reason: `no snapshot in ${dir}` };
  }
  const want = wanted(root, entry, args);
  for (const [key, value] of Object.entries(want)) {
    if (JSON.stringify(stamp[key]) !== JSON.stringify(value)) return { reason: `built with ${key} ${JSON.stringify(stamp[key])}, not ${JSON.stringify(value)}` };
  }
  try {
    if (inputsHash(root, stamp.inputs) !== stamp.inputsHash) return { reason: 'built from other sources' };
  } catch (e) {
    return { reason: `a file it was built from cannot be read (${e.message})` };
  }
  const blob = join(dir, 'lin.blob');
  return existsSync(blob) ? { blob, args } : { reason: `no ${blob}` };
}

/** The command line that starts `blob` as if `node <script> <args...>` had been run. */
export function snapshotCommand({ blob, args }, script, userArgs) {
  return [process.execPath, [...args, '--snapshot-blob', blob, '--', script, ...userArgs]];
}

/**
 * The command line's program word is `lin` (the first word not an option, as cli/program.ts
 * reads it), and nothing in it asks for what the snapshot leaves out: --workers (the
 * checker's worker threads load their module by URL) and --redis (bullmq and ioredis).
 */
function runsFromSnapshot(args) {
  if (args.find((a) => !a.startsWith('-')) !== 'lin') return false;
  return !args.some((a) => a.startsWith('--workers') || a.startsWith('--redis'));
}

/**
 * Runs `interleave lin ...` (argv as process.argv) from the snapshot in a child process
 * that shares this one's stdin, stdout and stderr, and returns its exit code; undefined
 * when this command line runs as before. A signal that ends the child ends this process
 * the same way; the signals sent to this process alone are passed on to the child.
 * INTERLEAVE_LIN_SNAPSHOT=off: never; =DIR: that blob, and exit 70 if it cannot be used.
 */
export async function linFromSnapshot(argv, env = process.env) {
  if (!runsFromSnapshot(argv.slice(2)) || env.INTERLEAVE_LIN_SNAPSHOT === 'off') return undefined;
  const required = env.INTERLEAVE_LIN_SNAPSHOT ? resolve(env.INTERLEAVE_LIN_SNAPSHOT) : undefined;
  // A V8 flag other than the blob's makes node refuse it with exit 14 (a heap size too).
  const flags = process.execArgv.length > 0 ? 'node was started with options' : env.NODE_OPTIONS ? 'NODE_OPTIONS is set' : undefined;
  const found = flags !== undefined ? { reason: `${flags} (V8 refuses a snapshot under other flags than it was built with)` } : usableSnapshot(required);
  if (found.blob === undefined) {
    if (required === undefined) return undefined;
    process.stderr.write(`interleave: INTERLEAVE_LIN_SNAPSHOT=${env.INTERLEAVE_LIN_SNAPSHOT}: ${found.reason}\n`);
    return 70;
  }
  const [command, args] = snapshotCommand(found, argv[1], argv.slice(2));
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    const forward = (signal) => child.kill(signal);
    for (const s of SIGNALS) process.on(s, forward);
    child.on('error', (e) => {
      process.stderr.write(`interleave: cannot start ${command}: ${e.message}\n`);
      done(70);
    });
    child.on('exit', (code, signal) => {
      for (const s of SIGNALS) process.off(s, forward);
      if (signal !== null) process.kill(process.pid, signal);
      else done(code);
    });
  });
}

/** Replaces each file's import.meta.url (and dirname) with its own file's: a CommonJS bundle has none. */
const importMetaOfFile = {
  name: 'import-meta-of-file',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta')) return undefined;
      const contents = text
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)));
      return { contents, loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
    });
  },
};

/** What `interleave lin` never runs from the snapshot (runsFromSnapshot): modules that fail if reached. */
const LEFT_OUT = [
  [/\/checkers\/lin\/pool\.[jt]s$/, 'searchInWorkers', 'worker threads (--workers)'],
  [/\/cli\/distributed\.[jt]s$/, 'linThroughRedis', '--redis'],
  [/\/checkers\/distributed\/redis\.[jt]s$/, 'RedisUnavailable', '--redis'],
];
const leftOut = {
  name: 'left-out',
  setup(build) {
    build.onResolve({ filter: /(pool|distributed|redis)\.[jt]s$/ }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      const hit = LEFT_OUT.find(([re]) => re.test(path));
      return hit === undefined ? undefined : { path, namespace: 'left-out', pluginData: hit };
    });
    build.onLoad({ filter: /.*/, namespace: 'left-out' }, ({ pluginData: [, name, what] }) => ({
      contents: `export function ${name}() { throw new Error('${what} is not in interleave lin\\'s startup snapshot'); }\nexport function unavailableExit() { ${name}(); }\n`,
      loader: 'js',
    }));
  },
};

/** A file of a dependency: its package.json; else the file. */
function packageOf(file) {
  const at = file.lastIndexOf('node_modules/');
  if (at < 0) return file;
  const [scope, name] = file.slice(at + 'node_modules/'.length).split('/');
  return `${file.slice(0, at)}node_modules/${scope.startsWith('@') ? `${scope}/${name}` : scope}/package.json`;
}

/**
 * Builds the blob into `dir`: `entry` bundled by esbuild into one CommonJS script (what
 * --build-snapshot requires), `node --build-snapshot` on it (its warm-up runs then), and
 * the stamp that ties the blob to this node, these args and the bundled files' content.
 * The bench builds its own through here from bench/lin-snapshot-entry.ts.
 */
export async function buildSnapshot({ dir = DEFAULT_DIR, root = ROOT, entry = cliEntry(root), args = SNAPSHOT_NODE_ARGS } = {}) {
  const { build } = await import('esbuild');
  mkdirSync(dir, { recursive: true });
  const bundle = join(dir, 'lin.cjs');
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node.split('.')[0]}`,
    outfile: bundle,
    metafile: true,
    logLevel: 'silent',
    plugins: [leftOut, importMetaOfFile],
  });
  // package.json too: cli/package-root.ts reads the version from it when the bundle loads.
  // A dependency's files are stood for by its package.json (its version): ~100 of zod's
  // files otherwise, read at every start.
  const files = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('left-out:'));
  const inputs = [...new Set([...files.map(packageOf), 'package.json'])].sort();
  const blob = join(dir, 'lin.blob');
  rmSync(join(dir, 'stamp.json'), { force: true });
  execFileSync(process.execPath, [...args, '--snapshot-blob', `${blob}.tmp`, '--build-snapshot', bundle], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  renameSync(`${blob}.tmp`, blob);
  const stamp = { ...wanted(root, entry, args), inputs, inputsHash: inputsHash(root, inputs) };
  writeFileSync(join(dir, 'stamp.json.tmp'), `${JSON.stringify(stamp, null, 1)}\n`);
  renameSync(join(dir, 'stamp.json.tmp'), join(dir, 'stamp.json'));
  return blob;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const dir = args.includes('--dir') ? resolve(args[args.indexOf('--dir') + 1]) : DEFAULT_DIR;
  const t0 = performance.now();
  try {
    const blob = await buildSnapshot({ dir });
    process.stderr.write(`interleave: built ${relative(process.cwd(), blob) || blob} for \`interleave lin\` (${Math.round(performance.now() - t0)} ms)\n`);
  } catch (e) {
    // npm's postinstall: without the blob `interleave lin` runs as before, so an install never fails here.
    process.stderr.write(`interleave: could not build the startup snapshot of \`interleave lin\` (it runs without): ${e.stderr ? String(e.stderr).trim().split('\n').slice(-3).join(' | ') : e.message}\n`);
    if (!args.includes('--if-possible')) process.exitCode = 1;
  }
}
