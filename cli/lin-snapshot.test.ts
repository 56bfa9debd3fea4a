// `interleave lin` from its startup snapshot (bin/lin-snapshot.js) against `interleave lin`
// as it runs without one: the same output, the same exit code, on histories of every model
// and on bad input; and a blob that does not match what it was built from is never run.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot, SNAPSHOT_NODE_ARGS, usableSnapshot } from '../bin/lin-snapshot.js';
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
    for (const f of ['checkers/lin/check.ts', 'checkers/lin/small.ts', 'cli/lin.ts', 'traces/import.ts', 'package.json', 'node_modules/commander/package.json']) expect(stamp.inputs).toContain(f);
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
      ['../shared/corpora/porcupine/jepsen/etcd_000.log', '--model', 'etcd-cas-register', '--json'],
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
    rmSync(join(stale, 'stamp.json'));
    expect(usableSnapshot(stale).reason).toMatch(/no snapshot/);
    // NODE_OPTIONS would make V8 refuse the blob (exit 14): the command does not try it.
    const flagged = await spawnCli(['lin', file, '--model', model], { env: { INTERLEAVE_LIN_SNAPSHOT: blobDir, NODE_OPTIONS: '--max-old-space-size=1000' } });
    expect(flagged.code).toBe(70);
    expect(flagged.stderr).toMatch(/NODE_OPTIONS is set/);
  });
});
