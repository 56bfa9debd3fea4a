// A worker process of distributed runs (`interleave worker --redis URL`): it beats a
// heartbeat, watches the registry of active runs, and takes jobs from each run's BullMQ
// queue, one at a time: BFS level tasks, swarm searches, linearizability partitions. A
// job whose worker dies is found stalled by BullMQ when its lease runs out and is given
// to another worker; the tasks commit atomically, so a retried job counts nothing twice.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { loadMachine } from '../explore/load.ts';
import { prepare } from '../explore/prepare.ts';
import type { Action, Machine } from '../explore/types.ts';
import { bfsContext, runLevelTask, type BfsContext } from './bfs-task.ts';
import { jobFailure } from './jobs.ts';
import { guardSpec } from './spec-calls.ts';
import { runLinJob } from './lin.ts';
import { connect, isConnectionError, keys, queueName, QUEUE_PREFIX, RUNS, sweepDeadRuns, unavailable, WORKERS } from './redis.ts';
import type { RunDescriptor } from './run.ts';
import { runSwarmJob } from './swarm.ts';

const HEARTBEAT_MS = 1000;
const POLL_MS = 200;
/** How often a worker looks for runs whose coordinator is gone, and removes them. */
const SWEEP_MS = 5000;

export interface WorkerHandle {
  id: string;
  /** Resolves when the worker stopped (closed, or Redis lost: rejects with RedisUnavailable). */
  done: Promise<void>;
  /**
   * Stops the worker; never rejects: a failure (Redis lost) is `done`'s to report. A stop
   * asked after the worker failed (SIGTERM from `explore --redis`, which lost Redis too)
   * must not surface that failure a second time, as an unhandled rejection.
   */
  close(): Promise<void>;
}

interface RunState {
  desc: RunDescriptor;
  bullmq: Worker;
  connection: Redis;
  /** The run's own data connection: a task's WATCH/MULTI must not interleave with another run's. */
  data: Redis;
  machine?: Promise<Machine<unknown, Action>>;
  bfs?: BfsContext;
}

export async function startWorker(url: string, o: { log?: (s: string) => void } = {}): Promise<WorkerHandle> {
  const log = o.log ?? (() => {});
  const redis = await connect(url);
  const id = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const runs = new Map<string, RunState>();
  let closing = false;
  let fail: (e: unknown) => void = () => {};
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });

  const machineOf = (run: RunState): Promise<Machine<unknown, Action>> => {
    if (run.desc.kind === 'lin') throw new Error('a linearizability run has no machine');
    const { target, options } = run.desc;
    run.machine ??= loadMachine(target).then((m) => prepare(guardSpec(m), options) as Machine<unknown, Action>);
    return run.machine;
  };

  const processor = (runId: string, run: RunState) => async (job: Job) => {
    try {
      return await runJob(runId, run, job);
    } catch (e) {
      throw jobFailure(e);
    }
  };

  const runJob = async (runId: string, run: RunState, job: Job) => {
    if ((await redis.exists(keys(runId).cancel)) === 1) return { cancelled: true };
    const token = `${id}:${job.id}:${randomBytes(4).toString('hex')}`;
    const desc = run.desc;
    if (job.name === 'level' && desc.kind === 'bfs') {
      run.bfs ??= bfsContext(await machineOf(run), desc.partitions, desc.options.maxDepth, desc.options.deadlock);
      const { level, partitions } = job.data as { level: number; partitions: number[] };
      return runLevelTask(run.data, runId, run.bfs, level, partitions, token, id);
    }
    if (job.name === 'swarm' && desc.kind === 'swarm') return runSwarmJob(redis, runId, await machineOf(run), desc.options, job.data, id);
    if (job.name === 'lin' && desc.kind === 'lin') return runLinJob(redis, runId, desc, job.data, id);
    throw new Error(`unknown job ${job.name} for a ${desc.kind} run`);
  };

  const join = async (runId: string) => {
    const raw = await redis.get(keys(runId).desc);
    if (raw === null) return;
    const desc = JSON.parse(raw) as RunDescriptor;
    const run: RunState = { desc } as RunState;
    const connection = redis.duplicate({ maxRetriesPerRequest: null });
    connection.on('error', () => {});
    run.connection = connection;
    run.data = redis.duplicate();
    run.data.on('error', () => {});
    run.bullmq = new Worker(queueName(runId), processor(runId, run), {
      connection,
      prefix: QUEUE_PREFIX,
      concurrency: 1,
      lockDuration: desc.leaseMs,
      stalledInterval: Math.max(250, Math.floor(desc.leaseMs / 2)),
      // A job stalls when its worker's event loop is held up past the lease (a busy host) or
      // the worker died; either way the next taker waits for a live holder (bfs-task.ts), so
      // only a job that keeps stalling is failed.
      maxStalledCount: 10,
      removeOnComplete: { count: 0 },
      removeOnFail: { count: 1000 },
    });
    run.bullmq.on('error', (e) => log(`worker ${id}: run ${runId}: ${e.message}\n`));
    runs.set(runId, run);
    log(`worker ${id}: joined run ${runId} (${desc.kind})\n`);
  };

  const leave = async (runId: string) => {
    const run = runs.get(runId);
    runs.delete(runId);
    await run?.bullmq.close(true).catch(() => {});
    run?.connection.disconnect();
    run?.data.disconnect();
  };

  let lastSweep = 0;
  const tick = async () => {
    await redis.zadd(WORKERS, Date.now(), id);
    if (Date.now() - lastSweep > SWEEP_MS) {
      lastSweep = Date.now();
      for (const runId of await sweepDeadRuns(redis)) log(`worker ${id}: removed run ${runId}, whose coordinator is gone\n`);
    }
    const active = new Set(await redis.smembers(RUNS));
    for (const runId of active) if (!runs.has(runId)) await join(runId);
    for (const runId of [...runs.keys()]) if (!active.has(runId)) await leave(runId);
  };

  const loop = async () => {
    while (!closing) {
      try {
        await tick();
      } catch (e) {
        if (closing) break;
        if (isConnectionError(e)) {
          await shutdown();
          fail(unavailable(url, e));
          return;
        }
        throw e;
      }
      await new Promise((r) => setTimeout(r, Math.min(POLL_MS, HEARTBEAT_MS)));
    }
  };
  loop().catch((e) => fail(e));

  const shutdown = async () => {
    closing = true;
    await Promise.all([...runs.keys()].map(leave));
    await redis.zrem(WORKERS, id).catch(() => {});
    redis.disconnect();
  };
  return {
    id,
    done,
    async close() {
      if (closing) return done.catch(() => {});
      await shutdown();
      finish();
    },
  };
}
