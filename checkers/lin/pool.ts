// Partitions searched on worker threads, each worker taking its share of the partitions
// in rounds (check.ts Rounds). When a partition is illegal in round r, every worker stops
// after round r and the answers of later rounds are dropped: the report is exactly the
// one a single thread gives. Workers run TypeScript through tsx's loader, resolved from
// this package, so this works under `tsx`, `node --import tsx` and vitest; the package's
// JavaScript needs no loader.

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Plan } from './check.ts';
import type { SearchResult } from './wgl.ts';
import type { Job, WorkerMessage } from './worker.ts';

const NO_ROUND = 0x7fffffff;

/**
 * From the package's JavaScript, a worker running worker.js. From the TypeScript sources,
 * a worker that registers tsx's loader (its ESM API, the "import" target of
 * `tsx/esm/api`), then imports worker.ts. The worker does not inherit the parent's loader
 * flags: they differ between `tsx`, `node --import tsx` and vitest, and on Node 20 an
 * inherited `--import` does not reach the worker's entry module.
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./worker.js', import.meta.url), { execArgv: [] });
  const tsxRoot = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const api = pathToFileURL(join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  const entry = new URL('./worker.ts', import.meta.url).href;
  const code = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(code, { eval: true, execArgv: [] });
}

/** Shares of the partitions: the largest first, each to the least loaded worker. */
function share(parts: readonly number[][], workers: number): number[][] {
  const shares: number[][] = Array.from({ length: workers }, () => []);
  const load = new Array<number>(workers).fill(0);
  const bySize = parts.map((_, i) => i).sort((a, b) => parts[b].length - parts[a].length || a - b);
  for (const i of bySize) {
    const w = load.indexOf(Math.min(...load));
    shares[w].push(i);
    load[w] += parts[i].length;
  }
  return shares.map((s) => s.sort((a, b) => a - b));
}

export async function searchInWorkers(p: Plan, workers: number): Promise<(SearchResult | undefined)[]> {
  const found: { round: number; index: number; result: SearchResult }[] = [];
  const stopAfterBuffer = new SharedArrayBuffer(4);
  const stopAfter = new Int32Array(stopAfterBuffer);
  stopAfter[0] = NO_ROUND;

  const run = (mine: number[]): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const w = startWorker();
      const parts: Record<number, unknown[]> = {};
      for (const i of mine) {
        parts[i] = p.parts[i].map((h) => {
          const { client, input, call, ret, output } = p.history[h];
          // A crashed operation's output is never read (the searches take UNKNOWN for it), and an
          // API user's UNKNOWN in it, a symbol, cannot be posted to a worker.
          return { client, input, call, ret, output: ret === undefined ? undefined : output };
        });
      }
      w.on('message', (msg: WorkerMessage) => {
        if (msg.kind === 'done') {
          w.terminate().then(() => resolve(), reject);
          return;
        }
        for (const f of msg.finished) found.push({ round: msg.round, ...f });
      });
      w.on('error', (err) => {
        w.terminate().finally(() => reject(err));
      });
      const job: Job = { model: p.registered!, parts: parts as Job['parts'], mine, deadline: p.deadline, verbose: p.verbose, memoLimitBytes: p.memoLimitBytes, stopAfter: stopAfterBuffer };
      w.postMessage(job);
    });

  const shares = share(p.parts, Math.min(workers, p.parts.length)).filter((s) => s.length > 0);
  await Promise.all(shares.map(run));

  const lastRound = Math.min(NO_ROUND, ...found.filter((f) => f.result.verdict === 'illegal').map((f) => f.round));
  const results: (SearchResult | undefined)[] = new Array(p.parts.length);
  for (const f of found) if (f.round <= lastRound) results[f.index] = f.result;
  return results;
}
