// Linearizability of a history too large for one machine: the model's partitions (per
// key, P-compositionality) are jobs that any worker takes; each is searched by the same
// WGL search as on one machine, and the answers are put together by the same code
// (checkers/lin's plan and assemble), so the verdict is the one machine's. The first
// illegal partition cancels the jobs not yet taken, as one machine stops at it.

import { deserialize, serialize } from 'node:v8';
import type { Redis } from 'ioredis';
import { assemble, plan } from '../lin/check.ts';
import { findModel } from '../lin/models/index.ts';
import type { CheckOptions, LinResult, Operation } from '../lin/types.ts';
import { wglSearch, type SearchResult } from '../lin/wgl.ts';
import type { DistributedOptions } from './bfs.ts';
import { coordinate } from './jobs.ts';
import { isConnectionError, keys, unavailable } from './redis.ts';
import type { RunDescriptor } from './run.ts';

export class UnregisteredModel extends Error {
  override name = 'UnregisteredModel';
}

export async function runLinJob(redis: Redis, runId: string, desc: Extract<RunDescriptor, { kind: 'lin' }>, job: { index: number }, workerId: string): Promise<{ verdict: string }> {
  const k = keys(runId);
  const model = findModel(desc.model);
  if (model === undefined) throw new Error(`unknown model ${desc.model}`);
  const raw = await redis.getBuffer(k.input(job.index));
  if (raw === null) throw new Error(`partition ${job.index} has no operations in Redis`);
  const ops = deserialize(raw) as Operation[];
  const r = wglSearch(model, ops, {
    ...(desc.deadline !== undefined ? { deadline: desc.deadline } : {}),
    verbose: desc.verbose,
    memoLimitBytes: desc.memoLimitBytes,
  });
  const tx = redis.multi().set(k.result(job.index), serialize(r)).sadd(k.done, String(job.index)).sadd(k.workers, workerId);
  if (r.verdict === 'illegal') tx.set(k.cancel, '1');
  await tx.rpush(k.tick, '1').exec();
  return { verdict: r.verdict };
}

/** Checks a history with a registered model, its partitions as jobs of the run's workers. */
export async function distributedLin(modelName: string, history: readonly Operation[], options: CheckOptions, d: DistributedOptions): Promise<{ result: LinResult; jobs: number; workers: number }> {
  if (findModel(modelName) === undefined) throw new UnregisteredModel(`--redis needs a registered model (workers find it by name), not ${JSON.stringify(modelName)}`);
  const p = plan(modelName, history, options);
  if (p.planError !== undefined || p.parts.length === 0) return { result: assemble(p, []), jobs: 0, workers: 0 };
  const desc: RunDescriptor = {
    kind: 'lin',
    model: modelName,
    ...(Number.isFinite(p.deadline) ? { deadline: p.deadline } : {}),
    verbose: p.verbose,
    memoLimitBytes: p.memoLimitBytes,
    leaseMs: d.leaseMs ?? 10_000,
  };
  const c = await coordinate(d.url, desc, d);
  const k = c.keys;
  try {
    const n = p.parts.length;
    for (let i = 0; i < n; i += 256) {
      const tx = c.redis.multi();
      for (let j = i; j < Math.min(n, i + 256); j++) tx.set(k.input(j), serialize(p.parts[j].map((op) => history[op])));
      await tx.exec();
    }
    await c.queue.addBulk(p.parts.map((_, i) => ({ name: 'lin', data: { index: i }, opts: { jobId: `part-${i}`, removeOnComplete: true, removeOnFail: 1000 } })));
    let cancelled = false;
    const stop = await c.wait(
      async () => {
        if ((await c.redis.scard(k.done)) === n) return true;
        if (!cancelled && (await c.redis.exists(k.cancel)) === 1) {
          cancelled = true;
          await c.cancel();
        }
        return cancelled && (await c.queue.getActiveCount()) === 0;
      },
      Number.isFinite(p.deadline) ? performance.now() + (p.deadline - Date.now()) + 1000 : Infinity,
      options.timeoutMs,
    );
    if (stop !== undefined) await c.cancel();
    const results: (SearchResult | undefined)[] = new Array(n);
    for (const i of await c.redis.smembers(k.done)) {
      const raw = await c.redis.getBuffer(k.result(Number(i)));
      if (raw) results[Number(i)] = deserialize(raw) as SearchResult;
    }
    const result = assemble(p, results);
    return { result, jobs: n, workers: await c.redis.scard(k.workers) };
  } catch (e) {
    if (isConnectionError(e)) throw unavailable(d.url, e);
    throw e;
  } finally {
    await c.close();
  }
}
