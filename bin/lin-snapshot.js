// `interleave lin` started from a V8 startup snapshot (cli/README.md, "How `interleave lin`
// starts"): the blob holds the command's modules evaluated and the checker's functions
// compiled by a warm-up (cli/lin-snapshot.ts), so that neither the modules' loading (tsx in
// a source checkout) nor V8's lazy compilation is paid again by every `interleave lin`.
//
// Plain JavaScript with built-ins only: bin/interleave.js imports it before anything else.
// The blob is tied to what it was built from (the stamp beside it): this node binary, the
// node arguments below, the package's place, the content of every source file bundled
// into it, this script, tsconfig.json, esbuild's version, and the blob's size. When
// anything differs, or the blob is missing, `interleave lin` runs as before.
//
//   node bin/lin-snapshot.js [--dir DIR] [--if-possible]   build the blob (npm run build does, and npm's postinstall)
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The node arguments a blob is built with and started with, the one place to add a V8
 * flag: V8 refuses (exit 14) a snapshot started under other V8 flags than it was built with.
 * --always-sparkplug: a first 10-operation check from the blob 0.54-0.61 -> 0.20-0.21 ms
 * (geomean of 30 histories; 100 operations 1.41 -> 1.31 ms), RESULTS-issue21.md.
 * --interrupt-budget at 4x V8's default (67,584): TurboFan is asked for a function after 4x
 * as much of it has run. At the default a first check of 100 to 10,000 operations asks for
 * its search loops early and spends 1.5-3x its own CPU compiling them on V8's background
 * threads, which on a 2-core machine take the check's core (a cas-register check of 1,000
 * operations: 26 ms on the main thread, 95-160 ms of CPU, 150-500 ms wall); most of those
 * compiles finish after the check. With it: wall 1.36-1.52x faster at 1,000 operations,
 * 1.53x at 10,000, 1.41x at 100, the same at 10 (RESULTS-issue21.md, lin-1k5).
 * --interrupt-budget-factor-for-feedback-allocation=32 (V8's default 8): a 10-operation
 * first check makes fewer feedback vectors, 1.20x wall; checks of 20 operations on set it
 * back to 8 (checkers/lin/v8-feedback.ts).
 * A flag that helps some sizes and not others is set at run time by the history's size
 * instead (checkers/lin/v8-feedback.ts: feedback from the first call for 20-399 operations).
 */
export const SNAPSHOT_NODE_ARGS = ['--always-sparkplug', '--interrupt-budget=270336', '--interrupt-budget-factor-for-feedback-allocation=32'];

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where `interleave lin` looks for its blob; INTERLEAVE_LIN_SNAPSHOT=DIR names another (and requires it). */
export const DEFAULT_DIR = join(ROOT, '.lin-snapshot');

/**
 * The signals whose default action ends a process and that node lets a process catch: sent
 * to the launcher, each is passed on to its child (left out: SIGUSR1, node's inspector;
 * SIGPROF and SIGTRAP, profilers' and debuggers'; SIGPIPE, which node ignores; SIGKILL,
 * which the child notices through its parent's pid, cli/lin-snapshot.ts).
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR2', 'SIGALRM', 'SIGVTALRM', 'SIGXCPU', 'SIGXFSZ', 'SIGABRT', 'SIGSYS', 'SIGIO', 'SIGPWR', 'SIGSTKFLT'].filter(
  (s) => s in constants.signals,
);

/** The entry a blob is built from: the sources in a checkout, dist/ in the package (as bin/interleave.js chooses). */
export function cliEntry(root = ROOT) {
  return existsSync(join(root, 'cli/main.ts')) ? join(root, 'cli/lin-snapshot-entry.ts') : join(root, 'dist/cli/lin-snapshot-entry.js');
}

/** What a blob must have been built with to run in this process. */
function wanted(root, entry, args) {
  return { node: process.version, v8: process.versions.v8, execPath: process.execPath, arch: process.arch, args, root, entry: relative(root, entry) };
}

/** `read(file)`: the content the hash stands for; the file on disk unless told. */
function inputsHash(root, inputs, read = (file) => readFileSync(resolve(root, file))) {
  const hash = createHash('sha256');
  for (const file of inputs) hash.update(`${file}\0`).update(read(file)).update('\0');
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
  if (!existsSync(blob)) return { reason: `no ${blob}` };
  // A blob cut short (a full disk, a copy) with a valid stamp would crash node (exit 139).
  const size = statSync(blob).size;
  return size === stamp.blobSize ? { blob, args } : { reason: `${blob} has ${size} bytes, not the ${stamp.blobSize} it was built with` };
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
    const watcher = watchFor(child);
    child.on('error', (e) => {
      watcher?.kill();
      process.stderr.write(`interleave: cannot start ${command}: ${e.message}\n`);
      done(70);
    });
    child.on('exit', (code, signal) => {
      watcher?.kill();
      for (const s of SIGNALS) process.off(s, forward);
      if (signal !== null) process.kill(process.pid, signal);
      else done(code);
    });
  });
}

/**
 * SIGKILL cannot be caught or passed on, and the child's search holds its main thread for
 * its whole length (a thread of its own to watch its parent fails in a process started from
 * a snapshot: node 20's worker threads need process.cwd's shared counter, which the blob
 * lacks). So a shell holds a pipe from this process, whose end closes when this process
 * dies however it dies, and then ends the child; this process ends the shell when the child
 * ends (+1.0 ms CPU of a ~67 ms `interleave lin`, cli/README.md). None where there is no /bin/sh.
 */
function watchFor(child) {
  if (child.pid === undefined || !existsSync('/bin/sh')) return undefined;
  const watcher = spawn('/bin/sh', ['-c', 'read _ || kill -KILL "$1" 2>/dev/null', 'interleave-lin-watch', String(child.pid)], { stdio: ['pipe', 'ignore', 'ignore'] });
  watcher.on('error', () => {});
  watcher.stdin.on('error', () => {});
  watcher.unref();
  watcher.stdin.unref?.();
  return watcher;
}

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

/** A file of a dependency (an absolute path: a hoisted one is at ../x/ from the root): its package.json; else the file. */
function packageOf(file) {
  const at = file.lastIndexOf('node_modules/');
  if (at < 0) return file;
  const [scope, name] = file.slice(at + 'node_modules/'.length).split('/');
  return `${file.slice(0, at)}node_modules/${scope.startsWith('@') ? `${scope}/${name}` : scope}/package.json`;
}

/** Records what esbuild bundles of each source, read once, so that the stamp hashes that content and not the file read later. */
function loadedContent(loaded) {
  return {
    name: 'loaded-content',
    setup(build) {
      build.onLoad({ filter: /\.([cm]?[jt]s|json)$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        loaded.set(args.path, text);
        if (!text.includes('import.meta')) return { contents: text, loader: args.path.endsWith('.json') ? 'json' : /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
        // A CommonJS bundle has no import.meta: each file's own url (and dirname) instead.
        const contents = text
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
          .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)));
        return { contents, loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
      });
    },
  };
}

/** The environment a blob is built and tried in: NODE_OPTIONS' V8 flags would be built into it, and V8 would refuse it without them (exit 14). */
function withoutNodeOptions(env = process.env) {
  const { NODE_OPTIONS: _, ...rest } = env;
  return rest;
}

/**
 * Builds the blob into `dir`: `entry` bundled by esbuild into one CommonJS script (what
 * --build-snapshot requires), `node --build-snapshot` on it (its warm-up runs then), one
 * start of the new blob (`--version`, exit 0 expected), and the stamp that ties the blob to
 * this node, these args, the bundled files' content and the blob's size. Every file is
 * written under a name of this build's own and renamed into place, so that builds at once
 * never mix; no stamp when a source changed during the build or the blob does not start.
 */
export async function buildSnapshot({ dir = DEFAULT_DIR, root = ROOT, entry = cliEntry(root), args = SNAPSHOT_NODE_ARGS } = {}) {
  const { build } = await import('esbuild');
  mkdirSync(dir, { recursive: true });
  const own = (name) => join(dir, `${name}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const [bundle, newBlob, newStamp] = [own('lin.cjs'), own('lin.blob'), own('stamp.json')];
  try {
    return await buildInto({ build, dir, root, entry, args, bundle, newBlob, newStamp });
  } finally {
    for (const f of [bundle, newBlob, newStamp]) rmSync(f, { force: true });
  }
}

async function buildInto({ build, dir, root, entry, args, bundle, newBlob, newStamp }) {
  const loaded = new Map();
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
    plugins: [leftOut, loadedContent(loaded)],
  });
  // package.json too: cli/package-root.ts reads the version from it when the bundle loads;
  // and what else makes the bundle: this script, tsconfig.json, esbuild (its version).
  // A dependency's files are stood for by its package.json (its version): ~100 of zod's
  // files otherwise, read at every start.
  const files = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('left-out:'));
  const esbuild = createRequire(join(root, 'package.json')).resolve('esbuild/package.json');
  const makers = [fileURLToPath(import.meta.url), esbuild, ...['package.json', 'tsconfig.json'].map((f) => join(root, f)).filter(existsSync)];
  const inputs = [...new Set([...files.map((f) => packageOf(resolve(root, f))), ...makers].map((f) => relative(root, f)))].sort();
  // What esbuild bundled of a source, else (a package.json, this script) the file as it is now.
  const content = new Map(inputs.map((f) => [f, loaded.get(resolve(root, f)) ?? readFileSync(resolve(root, f))]));
  const hash = inputsHash(root, inputs, (f) => content.get(f));
  const env = withoutNodeOptions();
  execFileSync(process.execPath, [...args, '--snapshot-blob', newBlob, '--build-snapshot', bundle], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const [command, tryArgs] = snapshotCommand({ blob: newBlob, args }, 'interleave', ['--version']);
  execFileSync(command, tryArgs, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  if (inputsHash(root, inputs) !== hash) throw new Error('a source changed during the build: run it again');
  const stamp = { ...wanted(root, entry, args), inputs, inputsHash: hash, blobSize: statSync(newBlob).size };
  writeFileSync(newStamp, `${JSON.stringify(stamp, null, 1)}\n`);
  // The blob first: a stamp beside another build's blob is refused by its size or its sources.
  const blob = join(dir, 'lin.blob');
  renameSync(newBlob, blob);
  renameSync(newStamp, join(dir, 'stamp.json'));
  return blob;
}

/** The command line of `node bin/lin-snapshot.js`: `{ dir, ifPossible }`; throws a UsageError on anything else. */
export class UsageError extends Error {}
export function parseBuildArgs(args) {
  const options = { dir: DEFAULT_DIR, ifPossible: false };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--if-possible') options.ifPossible = true;
    else if (args[i] === '--dir' && args[i + 1] !== undefined && !args[i + 1].startsWith('--')) options.dir = resolve(args[++i]);
    else if (args[i] === '--dir') throw new UsageError('--dir needs a directory');
    else throw new UsageError(`unknown argument ${JSON.stringify(args[i])}`);
  }
  return options;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const t0 = performance.now();
  try {
    const { dir } = parseBuildArgs(args);
    const blob = await buildSnapshot({ dir });
    process.stderr.write(`interleave: built ${relative(process.cwd(), blob) || blob} for \`interleave lin\` (${Math.round(performance.now() - t0)} ms)\n`);
  } catch (e) {
    // npm's postinstall: without the blob `interleave lin` runs as before, so an install never fails here.
    if (e instanceof UsageError) process.stderr.write(`interleave: ${e.message}\nusage: node bin/lin-snapshot.js [--dir DIR] [--if-possible]\n`);
    else process.stderr.write(`interleave: could not build the startup snapshot of \`interleave lin\` (it runs without): ${e.stderr ? String(e.stderr).trim().split('\n').slice(-3).join(' | ') : e.message}\n`);
    if (!args.includes('--if-possible')) process.exitCode = e instanceof UsageError ? 64 : 1;
  }
}
