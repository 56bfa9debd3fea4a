// The memory a check holds (issue 21, lin-mem): the memo's budget counts what its states
// hold, and a search that fills its share of its thread's heap ends unknown (reason
// 'memory', naming the bound) instead of V8 aborting the process. A file of its own: it
// measures the heap, which other tests' leftovers would blur.
import { createRequire } from 'node:module';
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
    expect(answer.partitions).toEqual([{ reason: 'memory', memoryLimit: { of: 'heap', bytes: Math.floor(0.6 * 96 * MB) } }]);
  });
});
