// The coordinator's side of a run's jobs: the run's queue, and the wait for its jobs to
// commit, which ends early (inconclusive, with the reason) when a job failed for good, the
// time limit passed, or no worker has beaten its heartbeat for too long.

import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { connect, deleteRun, HEARTBEAT_WITHIN_MS, keys, liveWorkers, newRunId, queueName, QUEUE_PREFIX, RUN_ALIVE_MS, RUNS, shownUrl, sweepDeadRuns } from './redis.ts';
import type { RunDescriptor } from './run.ts';
import { SpecError, SpecThrew } from '../explore/errors.ts';

/**
 * How a job that found the spec breaking the contract (a SpecError: actions() not an array
 * of labelled actions, ...) says so in its failed reason, so that the coordinator throws the
 * SpecError (exit 65, said of the spec's file) as a search on one host does, rather than
 * calling the run inconclusive because a job failed.
 */
const SPEC_ERROR = 'interleave SpecError: ';
/** Likewise an exception the spec's own code threw (SpecThrew, spec-calls.ts): its name and message as JSON. */
const SPEC_THREW = 'interleave SpecThrew: ';

/** What a job throws for `e` (worker.ts): a SpecError or a SpecThrew tagged for the coordinator's wait. */
export function jobFailure(e: unknown): unknown {
  if (e instanceof SpecError) return new Error(`${SPEC_ERROR}${e.message}`);
  if (e instanceof SpecThrew) return new Error(`${SPEC_THREW}${JSON.stringify(e.thrown)}`);
  return e;
}

/** The SpecError or SpecThrew a job's failed reason carries, else undefined. */
export function specFailure(why: string): Error | undefined {
  if (why.startsWith(SPEC_ERROR)) return new SpecError(why.slice(SPEC_ERROR.length));
  if (why.startsWith(SPEC_THREW)) {
    try {
      const t = JSON.parse(why.slice(SPEC_THREW.length)) as { name?: unknown; message?: unknown };
      if (typeof t.name === 'string' && typeof t.message === 'string') return new SpecThrew({ name: t.name, message: t.message });
    } catch {
      // not ours after all: the job failed
    }
  }
  return undefined;
}

export interface Coordinator {
  runId: string;
  redis: Redis;
  queue: Queue;
  keys: ReturnType<typeof keys>;
  /**
   * Waits until `finished()` (checked whenever a job commits, and every 250 ms); returns
   * undefined then, or why the run cannot finish; throws the SpecError a job failed with.
   */
  wait(finished: () => Promise<boolean>, deadline: number, timeLimitMs?: number): Promise<string | undefined>;
  /** Removes the run's jobs that no worker took yet, and marks the run cancelled. */
  cancel(): Promise<void>;
  /** Deletes the run's queue and keys, and closes the connections. */
  close(): Promise<void>;
  /** Commands Redis has processed since the run began (every client's). */
  commands(): Promise<number>;
  /** Bytes of Redis memory used now beyond what it used when the run began. */
  memory(): Promise<number>;
}

export async function coordinate(url: string, desc: RunDescriptor, o: { noWorkerMs?: number } = {}): Promise<Coordinator> {
  const noWorkerMs = o.noWorkerMs ?? 30_000;
  const redis = await connect(url);
  let waiter: Redis | undefined;
  let queue: Queue | undefined;
  let queueConnection: Redis | undefined;
  const runId = newRunId();
  const k = keys(runId);
  let renew: ReturnType<typeof setInterval> | undefined;
  try {
    waiter = await connect(url, { blocking: true });
    // Runs whose coordinator was killed left their keys: they go now.
    await sweepDeadRuns(redis);
    const before = await processedCommands(redis);
    const memoryBefore = await usedMemory(redis);
    await redis.set(k.alive, '1', 'PX', RUN_ALIVE_MS);
    renew = setInterval(() => void redis.set(k.alive, '1', 'PX', RUN_ALIVE_MS).catch(() => {}), RUN_ALIVE_MS / 4);
    renew.unref();
    await redis.set(k.desc, JSON.stringify(desc));
    // BullMQ leaves a connection it was given open: this one is closed with the run.
    queueConnection = redis.duplicate();
    queueConnection.on('error', () => {});
    queue = new Queue(queueName(runId), { connection: queueConnection, prefix: QUEUE_PREFIX });
    queue.on('error', () => {});
    await redis.sadd(RUNS, runId);
    const q = queue;
    const w = waiter;
    let lastAlive = Date.now();
    return {
      runId,
      redis,
      queue: q,
      keys: k,
      async wait(finished, deadline, timeLimitMs) {
        for (;;) {
          if (await finished()) return undefined;
          if ((await redis.exists(k.alive)) === 0) throw new Error(`run ${runId} was removed from Redis: its coordinator (this process) did not renew it for ${RUN_ALIVE_MS / 1000} s`);
          const failed = await q.getFailed(0, 0);
          if (failed.length > 0) {
            const why = failed[0].failedReason ?? 'no reason given';
            const spec = specFailure(why);
            if (spec !== undefined) throw spec;
            return `a job failed (${why})`;
          }
          if (performance.now() > deadline) return `time limit of ${timeLimitMs} ms reached`;
          if ((await liveWorkers(redis, HEARTBEAT_WITHIN_MS)) > 0) lastAlive = Date.now();
          else if (Date.now() - lastAlive > noWorkerMs) return `no live worker for ${Math.round(noWorkerMs / 1000)} s (start some with \`interleave worker --redis ${shownUrl(url)}\`)`;
          await w.blpop(k.tick, 0.25);
        }
      },
      async cancel() {
        await redis.set(k.cancel, '1');
        await q.drain(true);
      },
      async close() {
        clearInterval(renew);
        await redis.srem(RUNS, runId).catch(() => {});
        await q.obliterate({ force: true }).catch(() => {});
        await deleteRun(redis, runId).catch(() => {});
        await q.close().catch(() => {});
        queueConnection?.disconnect();
        w.disconnect();
        redis.disconnect();
      },
      async commands() {
        return (await processedCommands(redis)) - before;
      },
      async memory() {
        return (await usedMemory(redis)) - memoryBefore;
      },
    };
  } catch (e) {
    clearInterval(renew);
    await deleteRun(redis, runId).catch(() => {});
    await queue?.close().catch(() => {});
    queueConnection?.disconnect();
    waiter?.disconnect();
    redis.disconnect();
    throw e;
  }
}

async function processedCommands(redis: Redis): Promise<number> {
  const info = await redis.info('stats');
  const m = /total_commands_processed:(\d+)/.exec(info);
  return m ? Number(m[1]) : 0;
}

async function usedMemory(redis: Redis): Promise<number> {
  const m = /used_memory:(\d+)/.exec(await redis.info('memory'));
  return m ? Number(m[1]) : 0;
}
