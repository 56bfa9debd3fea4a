// Jobs (conformance.ts) spread over worker threads, each job explored whole on one thread:
// for many small and middling explorations, as `interleave check` runs, this keeps every
// core busy without a parallel search's per-run costs (starting threads, level barriers,
// and rerunning a violation on one thread for its deterministic counterexample). Each
// job's outcome is exactly what runJob gives on the main thread.

import { Worker } from 'node:worker_threads';
import type { ConformanceJob, Outcome } from './conformance.ts';
import { OWN_EXTENSION } from './load.ts';
import { workerCode } from './parallel.ts';
import type { ExploreOptions, ExploreTarget } from './types.ts';

const ENTRY = new URL(`./pool-worker${OWN_EXTENSION}`, import.meta.url).href;

export interface PoolRequest {
  id: number;
  job: ConformanceJob;
  target: ExploreTarget;
  options: ExploreOptions;
}

export type PoolReply = { id: number; outcome?: Omit<Outcome, 'result'>; error?: { name: string; message: string; stack?: string } };

export interface PoolItem {
  job: ConformanceJob;
  /** Where a thread builds the job's machine; every item's module must be the same. */
  target: ExploreTarget;
}

export interface PoolHooks {
  onStart?(item: PoolItem, index: number): void;
  /** Called as each job finishes, in the order they finish. */
  onOutcome?(outcome: Outcome, index: number): void;
}

/** An error a job threw on its thread, rebuilt here with its name and message. */
export class JobError extends Error {
  constructor(name: string, message: string, readonly threadStack?: string) {
    super(message);
    this.name = name;
  }
}

/**
 * Runs the items on `threads` worker threads, handing them out in the order given (put the
 * longest first, so that no thread is left with a long job at the end), and returns their
 * outcomes in that order. The first job that throws stops the pool and its error is thrown.
 */
export async function runPool(items: readonly PoolItem[], options: ExploreOptions, threads: number, hooks: PoolHooks = {}): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(items.length);
  if (items.length === 0) return outcomes;
  const { onProgress: _local, ...plain } = options;
  const code = await workerCode(items[0].target, ENTRY);
  const n = Math.max(1, Math.min(threads, items.length));
  const workers = Array.from({ length: n }, () => new Worker(code, { eval: true }));
  let next = 0;
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((done, fail) => {
            const give = () => {
              if (next >= items.length) return done();
              const id = next++;
              hooks.onStart?.(items[id], id);
              w.postMessage({ id, job: items[id].job, target: items[id].target, options: plain } satisfies PoolRequest);
            };
            w.on('message', (m: PoolReply) => {
              if (m.id < 0) return give();
              if (m.error) return fail(new JobError(m.error.name, m.error.message, m.error.stack));
              outcomes[m.id] = m.outcome as Outcome;
              hooks.onOutcome?.(outcomes[m.id], m.id);
              give();
            });
            w.on('error', fail);
            w.on('exit', (c) => (next < items.length || c !== 0 ? fail(new Error(`a pool thread exited (code ${c}) before its jobs were done`)) : undefined));
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return outcomes;
}
