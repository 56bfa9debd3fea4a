// The memory a check holds (issue 21, lin-mem): the memo's budget counts what its states
// hold, and a search that fills its share of its thread's heap ends unknown (reason
// 'memory', naming the bound) instead of V8 aborting the process. A file of its own: it
// measures the heap, which other tests' leftovers would blur.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { generateHistory } from './generate.ts';
import { checkHistory, checkHistorySync, models } from './index.ts';
import { WglSearch } from './wgl.ts';

/**
 * A FIFO queue too hard to decide in any memory here: 300 operations on 16 clients, 12
 * crashed (over 6M iterations and 2M memo entries of ~440 bytes on the heap without a verdict).
 */
const HARD = { family: 'queue', ops: 300, clients: 16, crashRate: 0.03, seed: 4 } as const;
const MB = 2 ** 20;

function heldBytes(gc: () => void): number {
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

describe('the memo budget bounds what a search holds', () => {
  it('a hard queue holds about its budget, its states counted (before: ~7x the budget on the heap)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    setFlagsFromString('--no-expose-gc');
    const { history } = generateHistory(HARD);
    const budget = 16 * MB;
    const before = heldBytes(gc);
    const search = new WglSearch(models.queue, history, { memoLimitBytes: budget });
    expect(search.run()).toBe(true);
    // The search kept alive, its memo with it.
    const held = heldBytes(gc) - before;
    expect(search.result).toMatchObject({ verdict: 'unknown', reason: 'memory', memoryLimit: { of: 'memo', bytes: budget } });
    expect(search.memoBytes()).toBeLessThanOrEqual(budget);
    expect(held).toBeGreaterThan(0.5 * budget);
    expect(held).toBeLessThan(1.5 * budget);
  });

  it('a check names the budget it reached, on worker threads as on this one', async () => {
    const hard = generateHistory(HARD).history;
    const easy = generateHistory({ family: 'queue', ops: 40, clients: 2, seed: 1 }).history;
    const keyed = [
      ...hard.map((o) => ({ ...o, input: { ...(o.input as object), key: 'a' } })),
      ...easy.map((o) => ({ ...o, client: Number(o.client) + 100, input: { ...(o.input as object), key: 'b' } })),
    ].sort((x, y) => x.call - y.call);
    const r = checkHistorySync('independent:queue', keyed, { memoLimitMB: 8 });
    expect(r.verdict).toBe('unknown');
    const a = r.partitions.find((p) => p.operations.length === hard.length)!;
    expect(a).toMatchObject({ verdict: 'unknown', reason: 'memory', memoryLimit: { of: 'memo', bytes: 8 * MB } });
    expect(r.partitions.find((p) => p !== a)!.verdict).toBe('ok');
    const strip = (x: object) => JSON.stringify({ ...x, elapsedMs: 0 });
    expect(strip(await checkHistory('independent:queue', keyed, { memoLimitMB: 8, workers: 2 }))).toBe(strip(r));
  });
});

describe('a search stops at its share of the heap', () => {
  it('in a worker thread with a small heap, at the default budget: unknown, reason memory of the heap, not ERR_WORKER_OUT_OF_MEMORY', async () => {
    const tsxRoot = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
    const api = pathToFileURL(join(tsxRoot, 'dist/esm/api/index.mjs')).href;
    const index = new URL('./index.ts', import.meta.url).href;
    const generate = new URL('./generate.ts', import.meta.url).href;
    const code = `
      const { parentPort, workerData } = await import('node:worker_threads');
      (await import(${JSON.stringify(api)})).register();
      const { checkHistorySync } = await import(${JSON.stringify(index)});
      const { generateHistory } = await import(${JSON.stringify(generate)});
      const r = checkHistorySync('queue', generateHistory(workerData).history);
      parentPort.postMessage({ verdict: r.verdict, partitions: r.partitions.map(({ reason, memoryLimit }) => ({ reason, memoryLimit })) });`;
    // 96 MB of old generation: tsx and the checker's modules take ~35 of it.
    const w = new Worker(code, { eval: true, execArgv: [], workerData: HARD, resourceLimits: { maxOldGenerationSizeMb: 96 } });
    const answer = await new Promise<{ verdict: string; partitions: { reason: string; memoryLimit: { of: string; bytes: number } }[] }>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    await w.terminate();
    expect(answer.verdict).toBe('unknown');
    expect(answer.partitions).toMatchObject([{ reason: 'memory', memoryLimit: { of: 'heap' } }]);
    // 60% of what the 96 MB had left when the search started (tsx and the modules in use), under 85% of it.
    const bound = answer.partitions[0].memoryLimit.bytes;
    expect(bound).toBeGreaterThanOrEqual(0.6 * 96 * MB);
    expect(bound).toBeLessThanOrEqual(0.85 * 96 * MB);
  });
});

/** A script run by node with `flags` (tsx loaded), importing the checker's modules; its exit code and output. */
async function runNode(flags: readonly string[], body: string, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'interleave-heap-'));
  const file = join(dir, 'script.mts');
  const url = (f: string) => JSON.stringify(new URL(f, import.meta.url).href);
  writeFileSync(
    file,
    `const { checkHistorySync } = await import(${url('./index.ts')});
     const { models } = await import(${url('./index.ts')});
     const { generateHistory } = await import(${url('./generate.ts')});
     const { WglSearch } = await import(${url('./wgl.ts')});
     const { collectGarbage } = await import(${url('./heap.ts')});
     const { runInNewContext } = await import('node:vm');
     /** The caller's own live data: mb arrays of about 1 MB. */
     const hold = (mb) => Array.from({ length: mb }, (_, i) => new Array(128 * 1024).fill(i));
     ${body}`,
  );
  try {
    return await new Promise((resolve) => {
      execFile(process.execPath, [...flags, '--import', 'tsx', file], { encoding: 'utf8', timeout: 60_000, env }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the heap watch judges what the search may still take (review of lin-mem)', () => {
  it('a caller holding 150 of its 200 MB: a small check still decides (before: unknown after 352 configurations)', async () => {
    const r = await runNode(
      ['--max-old-space-size=200'],
      `const keep = hold(150);
       const r = checkHistorySync('cas-register', generateHistory({ family: 'cas-register', ops: 300, clients: 16, crashRate: 0.03, seed: 1 }).history);
       console.log(JSON.stringify({ verdict: r.verdict, held: keep.length }));`,
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ verdict: 'ok', held: 150 });
  });

  it('a caller holding 150 of its 200 MB: a hard queue still ends unknown, memory of the heap, not a V8 abort', async () => {
    const r = await runNode(
      ['--max-old-space-size=200'],
      `const keep = hold(150);
       const r = checkHistorySync('queue', generateHistory(${JSON.stringify(HARD)}).history);
       console.log(JSON.stringify({ verdict: r.verdict, partitions: r.partitions.map(({ reason, memoryLimit }) => ({ reason, of: memoryLimit?.of })), held: keep.length }));`,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ verdict: 'unknown', partitions: [{ reason: 'memory', of: 'heap' }], held: 150 });
  });

  it('a full heap after the model proved illegal: illegal, cut short (before: unknown, memory)', async () => {
    // The last read returns a value nothing writes: cas-register's refutation proves it
    // illegal, and the search goes on (up to 16,384 iterations) for a longer partial
    // linearization to show; with 175 of 200 MB held the heap is past its bound at the first poll.
    const r = await runNode(
      ['--max-old-space-size=200'],
      `const keep = hold(175);
       const { history } = generateHistory({ family: 'cas-register', ops: 300, clients: 16, crashRate: 0.03, seed: 1 });
       history[history.findLastIndex((o) => o.input.f === 'read' && o.ret !== undefined)].output = 12345;
       const s = new WglSearch(models['cas-register'], history, {});
       s.run();
       const { verdict, reason, cutShort, proof } = s.result;
       console.log(JSON.stringify({ verdict, reason, cutShort, proved: proof !== undefined, iterations: s.iterations, held: keep.length }));`,
    );
    expect(r.stderr).toBe('');
    // Ended at the first poll (iteration 1,024), the heap's doing: without the held data the proof's bound ends it at 4,096.
    expect(JSON.parse(r.stdout)).toEqual({ verdict: 'illegal', cutShort: true, proved: true, iterations: 1024, held: 175 });
  });

  it('under --expose-gc-as=<name>: the forced collection uses it, and never fails an operation (before: a model error)', async () => {
    const r = await runNode(
      ['--expose-gc-as=myGC', '--max-old-space-size=150'],
      `const r = checkHistorySync('queue', generateHistory(${JSON.stringify(HARD)}).history);
       console.log(JSON.stringify({ verdict: r.verdict, modelError: r.modelError ?? null, partitions: r.partitions.map(({ reason, memoryLimit }) => ({ reason, of: memoryLimit?.of })) }));`,
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ verdict: 'unknown', modelError: null, partitions: [{ reason: 'memory', of: 'heap' }] });
  });

  it("leaves node's --expose-gc as the user set it (before: turned off after the first forced collection)", async () => {
    const probe = `globalThis.gc = undefined;
       collectGarbage();
       console.log(runInNewContext('typeof gc'));`;
    const { NODE_OPTIONS: _, ...rest } = process.env;
    const flag = await runNode(['--expose-gc'], probe, rest);
    const options = await runNode([], probe, { ...rest, NODE_OPTIONS: '--expose-gc' });
    const none = await runNode([], probe, rest);
    expect([flag.stdout.trim(), options.stdout.trim(), none.stdout.trim()]).toEqual(['function', 'function', 'undefined']);
    expect([flag.stderr, options.stderr, none.stderr]).toEqual(['', '', '']);
  });
});
