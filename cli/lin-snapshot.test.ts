// `interleave lin` from its startup snapshot (bin/lin-snapshot.js) against `interleave lin`
// as it runs without one: the same output, the same exit code, on histories of every model
// and on bad input; and a blob that does not match what it was built from is never run.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot, snapshotCommand, SNAPSHOT_NODE_ARGS, usableSnapshot } from '../bin/lin-snapshot.js';
import { FAMILIES, generateHistory } from '../checkers/lin/generate.ts';
import { jsonlLines } from '../traces/write-jsonl.ts';
import { ROOT, runInProcess, spawnCli, type CliRun } from './in-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'interleave-lin-snapshot-'));
const blobDir = join(dir, 'blob');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  await buildSnapshot({ dir: blobDir });
});

/** NODE_OPTIONS (which a test runner may set) would send the command the old way. */
const env = (snapshot: string): NodeJS.ProcessEnv => ({ INTERLEAVE_LIN_SNAPSHOT: snapshot, NODE_OPTIONS: '' });
const fromSnapshot = (...args: string[]) => spawnCli(['lin', ...args], { env: env(blobDir) });
const withoutSnapshot = (...args: string[]) => spawnCli(['lin', ...args], { env: env('off') });

/** What may differ between two runs of one check: how long it took. */
function timeless(run: CliRun): CliRun {
  const strip = (s: string) =>
    s
      .replace(/^(time: +)\d+(\.\d+)? ms.*$/gm, '$1<ms>')
      .replace(/"(importMs|checkMs|elapsedMs|ms)": *\d+(\.\d+)?/g, '"$1": 0');
  return { code: run.code, stdout: strip(run.stdout), stderr: strip(run.stderr) };
}

const histories: { file: string; model: string }[] = [];
let seed = 7;
for (const family of FAMILIES) {
  for (const [ops, clients] of [[12, 3], [80, 8]] as const) {
    for (const corrupt of [0, 1]) {
      const g = generateHistory({ family, ops, clients, corrupt, crashRate: 0.1, seed: seed++ });
      const file = join(dir, `${family}-${ops}-${corrupt ? 'bad' : 'ok'}.jsonl`);
      histories.push({ file, model: g.model });
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, jsonlLines(g.history).join('\n') + '\n');
    }
  }
}

describe('interleave lin from its startup snapshot', () => {
  it('the blob is tied to this node, its arguments and the sources bundled into it', () => {
    const stamp = JSON.parse(readFileSync(join(blobDir, 'stamp.json'), 'utf8')) as { inputs: string[]; args: string[]; node: string };
    expect(stamp.args).toEqual(SNAPSHOT_NODE_ARGS);
    expect(stamp.node).toBe(process.version);
    // A dependency by its package.json, wherever npm put it.
    const commander = relative(ROOT, join(dirname(createRequire(join(ROOT, 'package.json')).resolve('commander')), 'package.json'));
    const esbuild = relative(ROOT, createRequire(join(ROOT, 'package.json')).resolve('esbuild/package.json'));
    const made = ['bin/lin-snapshot.js', 'tsconfig.json', esbuild];
    for (const f of ['checkers/lin/check.ts', 'checkers/lin/small.ts', 'cli/lin.ts', 'traces/import.ts', 'package.json', commander, ...made]) expect(stamp.inputs).toContain(f);
    expect(stamp.inputs.filter((f) => f.includes('node_modules/') && !f.endsWith('/package.json'))).toEqual([]);
    expect(usableSnapshot(blobDir)).toMatchObject({ blob: join(blobDir, 'lin.blob') });
  });

  it('the same output and exit code as without it, on histories of every model', async () => {
    const seen = new Set<number | null>();
    for (const [i, { file, model }] of histories.entries()) {
      const args = [file, '--model', model, ...(i % 2 ? ['--json'] : [])];
      const [snap, today] = await Promise.all([fromSnapshot(...args), runInProcess('lin', ...args)]);
      expect(timeless(snap), `${file}${i % 2 ? ' --json' : ''}`).toEqual(timeless(today));
      seen.add(snap.code);
    }
    // Both verdicts were met (a corrupted history may still be linearizable).
    expect(seen).toEqual(new Set([0, 1]));
  });

  it('the same answers as the real command without it: verdicts, --html, bad input, bad usage, help', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"client":0,"input":{"f":"read"},"call":0,"return":1,"output":1,"status":"ok"}\n{"client":0,"input":{"f":"read"},"call":2}\n');
    const html = (name: string) => join(dir, `${name}.html`);
    const cases = [
      [histories[1]!.file, '--model', histories[1]!.model, '--html'],
      [bad, '--model', 'register'],
      [join(dir, 'missing.jsonl'), '--model', 'register'],
      [histories[0]!.file, '--model', 'nope'],
      [histories[0]!.file, '--model', 'register', '--timeout', 'soon'],
      [histories[0]!.file],
      ['--help'],
      [histories[2]!.file, '--model', histories[2]!.model, '--workers', '2'],
      ['traces/bundled/etcd-ok.log', '--model', 'etcd-cas-register', '--json'],
      ['traces/bundled/etcd-failed-cas.log', '--model', 'etcd-cas-register'],
    ];
    for (const args of cases) {
      const at = args.indexOf('--html');
      const [snap, today] = [
        await fromSnapshot(...(at < 0 ? args : [...args, html('snap')])),
        await withoutSnapshot(...(at < 0 ? args : [...args, html('today')])),
      ];
      const rename = (r: CliRun) => ({ ...r, stderr: r.stderr.replace(html('snap'), html('today')) });
      expect(timeless(rename(snap)), args.join(' ')).toEqual(timeless(today));
      if (at >= 0) expect(readFileSync(html('snap'), 'utf8').length).toBeGreaterThan(1000);
    }
  });

  it('ends as the command ends without it when signalled (the launcher passes SIGTERM on)', async () => {
    // A search that runs for seconds (64 clients, 50 values, one corrupted read).
    const g = generateHistory({ family: 'register', ops: 600, clients: 64, values: 50, corrupt: 1, seed: 1 });
    const file = join(dir, 'long.jsonl');
    writeFileSync(file, jsonlLines(g.history).join('\n') + '\n');
    const killed = (snapshot: string) =>
      new Promise<[number | null, NodeJS.Signals | null, number]>((done) => {
        const t0 = performance.now();
        const p = spawn(process.execPath, ['bin/interleave.js', 'lin', file, '--model', g.model, '--timeout', '100'], { cwd: ROOT, env: { ...process.env, ...env(snapshot) }, stdio: 'ignore' });
        setTimeout(() => p.kill('SIGTERM'), 2500);
        p.on('exit', (code, signal) => done([code, signal, performance.now() - t0]));
      });
    const [snap, today] = [await killed(blobDir), await killed('off')];
    expect(snap.slice(0, 2)).toEqual([null, 'SIGTERM']);
    expect(today.slice(0, 2)).toEqual([null, 'SIGTERM']);
    // Killed, not ended by the check: the launcher waited for its child to end.
    expect(snap[2]).toBeLessThan(20_000);

    // Any other signal that ends a process is passed on too, and SIGKILL (which cannot be)
    // ends the child within a second: no check runs on, orphaned, to its timeout.
    const child = (launcher: number): number | undefined => {
      const out = spawnSync('ps', ['-o', 'pid=', '--ppid', String(launcher)], { encoding: 'utf8' }).stdout.trim();
      return out === '' ? undefined : Number(out.split('\n')[0]);
    };
    const alive = (pid: number) => {
      const stat = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim();
      return stat !== '' && !stat.startsWith('Z');
    };
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    for (const signal of ['SIGUSR2', 'SIGALRM', 'SIGKILL'] as const) {
      const p = spawn(process.execPath, ['bin/interleave.js', 'lin', file, '--model', g.model, '--timeout', '100'], { cwd: ROOT, env: { ...process.env, ...env(blobDir) }, stdio: 'ignore' });
      const ended = new Promise<NodeJS.Signals | null>((done) => p.on('exit', (_code, s) => done(s)));
      let pid: number | undefined;
      for (let i = 0; i < 100 && pid === undefined; i++) {
        await sleep(100);
        pid = child(p.pid!);
      }
      expect(pid, signal).toBeDefined();
      await sleep(300);
      p.kill(signal);
      expect(await ended).toBe(signal);
      let gone = false;
      for (let i = 0; i < 50 && !gone; i++) {
        gone = !alive(pid!);
        if (!gone) await sleep(100);
      }
      if (!gone) process.kill(pid!, 'SIGKILL');
      expect(gone, `the child after ${signal}`).toBe(true);
    }
  });

  it('a blob that does not match is never run: INTERLEAVE_LIN_SNAPSHOT=DIR says why (exit 70)', async () => {
    const stale = join(dir, 'stale');
    mkdirSync(stale);
    copyFileSync(join(blobDir, 'lin.blob'), join(stale, 'lin.blob'));
    const stamp = JSON.parse(readFileSync(join(blobDir, 'stamp.json'), 'utf8')) as Record<string, unknown>;
    const { file, model } = histories[0]!;
    const tries: [Record<string, unknown>, RegExp][] = [
      [{ ...stamp, inputsHash: '0'.repeat(64) }, /built from other sources/],
      [{ ...stamp, node: 'v0.0.0' }, /built with node "v0\.0\.0", not/],
      [{ ...stamp, args: ['--max-old-space-size=100'] }, /built with args/],
      [{ ...stamp, inputs: [...(stamp.inputs as string[]), 'checkers/lin/gone.ts'] }, /cannot be read/],
    ];
    for (const [changed, why] of tries) {
      writeFileSync(join(stale, 'stamp.json'), JSON.stringify(changed));
      expect(usableSnapshot(stale).reason).toMatch(why);
      const run = await spawnCli(['lin', file, '--model', model], { env: env(stale) });
      expect(run.code).toBe(70);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(why);
    }
    // A blob cut short beside a valid stamp would crash node (exit 139).
    writeFileSync(join(stale, 'stamp.json'), JSON.stringify(stamp));
    expect(usableSnapshot(stale)).toMatchObject({ blob: join(stale, 'lin.blob') });
    writeFileSync(join(stale, 'lin.blob'), readFileSync(join(blobDir, 'lin.blob')).subarray(0, 100_000));
    const cut = await spawnCli(['lin', file, '--model', model], { env: env(stale) });
    expect([cut.code, cut.stderr]).toEqual([70, expect.stringMatching(/lin\.blob has 100000 bytes, not the \d+ it was built with/)]);
    rmSync(join(stale, 'stamp.json'));
    expect(usableSnapshot(stale).reason).toMatch(/no snapshot/);
    // NODE_OPTIONS would make V8 refuse the blob (exit 14): the command does not try it.
    const flagged = await spawnCli(['lin', file, '--model', model], { env: { INTERLEAVE_LIN_SNAPSHOT: blobDir, NODE_OPTIONS: '--max-old-space-size=1000' } });
    expect(flagged.code).toBe(70);
    expect(flagged.stderr).toMatch(/NODE_OPTIONS is set/);
  });
});

/**
 * A package of its own in a temporary folder (`files` beside its package.json), with the
 * repository's esbuild; `hoisted`: installed as npm hoists a dependency, at
 * node_modules/pkg, with commander beside it at node_modules/commander.
 */
function tinyPackage(name: string, files: Record<string, string>, hoisted = false): string {
  const root = hoisted ? join(dir, name, 'node_modules', 'pkg') : join(dir, name);
  const modules = hoisted ? dirname(root) : join(root, 'node_modules');
  mkdirSync(root, { recursive: true });
  mkdirSync(modules, { recursive: true });
  symlinkSync(join(ROOT, 'node_modules', 'esbuild'), join(modules, 'esbuild'));
  if (hoisted) cpSync(join(ROOT, 'node_modules', 'commander'), join(modules, 'commander'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"name": "pkg", "type": "module"}\n');
  for (const [file, text] of Object.entries(files)) writeFileSync(join(root, file), text);
  return root;
}

/** An entry whose blob prints `v` of ./v.ts (and exits with `code`); `during` runs while the blob is built. */
const entry = (during = '', code = 0) => `import { startupSnapshot } from 'node:v8';
import { appendFileSync } from 'node:fs';
import { v } from './v.ts';
startupSnapshot.setDeserializeMainFunction(() => { console.log(v); process.exitCode = ${code}; });
${during}
`;
const build = (root: string) => buildSnapshot({ dir: join(root, '.blob'), root, entry: join(root, 'entry.ts') });
const started = (root: string) => {
  const [command, args] = snapshotCommand({ blob: join(root, '.blob', 'lin.blob'), args: SNAPSHOT_NODE_ARGS }, 'x', []);
  return spawnSync(command, args, { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
};

describe('building the blob', () => {
  it('NODE_OPTIONS at the build is not built into the blob (V8 would refuse it without them, exit 14)', async () => {
    const root = tinyPackage('node-options', { 'entry.ts': entry(), 'v.ts': 'export const v = 1;\n' });
    const before = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = '--max-old-space-size=1000';
    try {
      await build(root);
    } finally {
      process.env.NODE_OPTIONS = before;
    }
    expect(usableSnapshot(join(root, '.blob'), { root, entry: join(root, 'entry.ts') })).toHaveProperty('blob');
    expect(started(root)).toMatchObject({ status: 0, stdout: '1\n' });
  });

  it('no stamp when the new blob does not start, or a source changed during the build', async () => {
    const fails = tinyPackage('fails', { 'entry.ts': entry('', 3), 'v.ts': 'export const v = 1;\n' });
    await expect(build(fails)).rejects.toThrow();
    const edited = tinyPackage('edited', { 'entry.ts': entry("appendFileSync(new URL('./v.ts', import.meta.url), '// edited during the build\\n');"), 'v.ts': 'export const v = 1;\n' });
    await expect(build(edited)).rejects.toThrow(/a source changed during the build/);
    for (const root of [fails, edited]) expect(readdirSync(join(root, '.blob'))).toEqual([]);
  });

  it('builds at once into one folder leave one whole blob and its stamp; a hoisted dependency counts by its package.json', async () => {
    const root = tinyPackage('hoisted', { 'entry.ts': `import { Command } from 'commander';\n${entry()}\nvoid Command;\n`, 'v.ts': 'export const v = 2;\n' }, true);
    await Promise.all([build(root), build(root), build(root)]);
    expect(readdirSync(join(root, '.blob')).sort()).toEqual(['lin.blob', 'stamp.json']);
    expect(usableSnapshot(join(root, '.blob'), { root, entry: join(root, 'entry.ts') })).toHaveProperty('blob');
    expect(started(root)).toMatchObject({ status: 0, stdout: '2\n' });
    const { inputs } = JSON.parse(readFileSync(join(root, '.blob', 'stamp.json'), 'utf8')) as { inputs: string[] };
    expect(inputs).toContain('../commander/package.json');
    expect(inputs.filter((f) => f.startsWith('../commander/') && f !== '../commander/package.json')).toEqual([]);
  });

  it('bad usage of bin/lin-snapshot.js says so (exit 64), and never fails with --if-possible', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, ['bin/lin-snapshot.js', ...args], { cwd: ROOT, encoding: 'utf8' });
    for (const [args, why] of [[['--dir'], /--dir needs a directory/], [['--dri', 'x'], /unknown argument "--dri"/]] as const) {
      const bad = run(...args);
      expect([bad.status, bad.stderr], args.join(' ')).toEqual([64, expect.stringMatching(why)]);
      expect(bad.stderr).not.toMatch(/^\s+at /m);
      expect(run(...args, '--if-possible').status).toBe(0);
    }
    expect(existsSync(join(ROOT, 'x'))).toBe(false);
  });
});
