// The Redis side of a distributed run: connections (with a clear error when Redis cannot be
// reached), the key names of a run, the registry of runs that workers watch, worker
// heartbeats, and the cleanup that leaves nothing of a run behind. Jobs travel through
// BullMQ queues (one per run); everything else is plain Redis data under the run's prefix.

import { randomBytes } from 'node:crypto';
// ioredis is loaded on the first connection: commands without --redis never pay for it.
import type { Redis, RedisOptions } from 'ioredis';

/** Redis cannot be reached, or the connection was lost mid-run: no verdict (exit 69). */
export class RedisUnavailable extends Error {
  override name = 'RedisUnavailable';
}

/** A --redis value that is not a redis:// URL (bad usage, not a lost server). */
export class RedisUrlError extends Error {
  override name = 'RedisUrlError';
}

export function checkRedisUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new RedisUrlError(`--redis ${JSON.stringify(url)}: expected a URL such as redis://127.0.0.1:6379`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new RedisUrlError(`--redis ${JSON.stringify(url)}: expected a redis:// or rediss:// URL, not ${u.protocol}`);
}

/** Where Redis lives, for messages (the URL without its password). */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

const RETRIES = 3;

/**
 * A connected client. Connecting retries a few times, then fails with RedisUnavailable;
 * a connection lost later is retried as many times before commands fail. `blocking`
 * clients (BullMQ's workers, blocking pops) never give up on a single command.
 */
export async function connect(url: string, o: { blocking?: boolean } = {}): Promise<Redis> {
  checkRedisUrl(url);
  const options: RedisOptions = {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: o.blocking ? null : RETRIES,
    enableOfflineQueue: true,
    retryStrategy: (times) => (times > RETRIES ? null : 200 * times),
  };
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, options);
  let last: unknown;
  redis.on('error', (e) => {
    last = e;
  });
  try {
    await redis.connect();
  } catch (e) {
    redis.disconnect();
    throw unavailable(url, last ?? e);
  }
  return redis;
}

/** The error a failed Redis command becomes when the cause is the connection. */
export function unavailable(url: string, cause: unknown): RedisUnavailable {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new RedisUnavailable(`cannot reach Redis at ${shownUrl(url)}: ${why.split('\n', 1)[0]}`);
}

/** Whether an error is a lost or refused connection rather than a bug. */
export function isConnectionError(e: unknown): boolean {
  if (e instanceof RedisUnavailable) return true;
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: string }).code;
  return (
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    code === 'ETIMEDOUT' ||
    code === 'ENOTFOUND' ||
    e.name === 'MaxRetriesPerRequestError' ||
    /Connection is closed|Stream isn't writeable|connect ECONNREFUSED|Reached the max retries/i.test(e.message)
  );
}

/** Active runs: workers poll this set and take jobs from each run's queue. */
export const RUNS = 'interleave:runs';
/** Worker heartbeats: a sorted set of worker ids scored by the time of their last beat. */
export const WORKERS = 'interleave:workers';
/** BullMQ's key prefix for interleave's queues. */
export const QUEUE_PREFIX = 'interleave:q';

export function newRunId(): string {
  return randomBytes(8).toString('hex');
}

export function queueName(runId: string): string {
  return `run-${runId}`;
}

/** The keys of one run. */
export function keys(runId: string) {
  const r = `interleave:run:${runId}`;
  return {
    prefix: r,
    /** JSON: what the run is (RunDescriptor). */
    desc: `${r}:desc`,
    /** Set by the coordinator to cancel the run's remaining jobs. */
    cancel: `${r}:cancel`,
    /** Present while the run's coordinator lives (it renews the expiry): a run without it is removed. */
    alive: `${r}:alive`,
    /** Counters the coordinator keeps at each barrier (states so far), for watchers. */
    stat: `${r}:stat`,
    /** A list a commit pushes to, so that the coordinator wakes up (blocking pop). */
    tick: `${r}:tick`,
    /** Worker ids that committed work for the run (swarm, linearizability). */
    workers: `${r}:workers`,
    /** BFS: successor records sent to partition p for level l (a list of batches). */
    inbox: (l: number, p: number) => `${r}:in:${l}:${p}`,
    /** BFS: the states partition p stored at level l (fingerprint -> state), kept for one level. */
    front: (l: number, p: number) => `${r}:front:${l}:${p}`,
    /** BFS: partition p's stored fingerprints -> parent fingerprint and action index. */
    seen: (p: number) => `${r}:seen:${p}`,
    /** BFS: the worker (id and token) that holds task (l, p). */
    claim: (l: number, p: number) => `${r}:claim:${l}:${p}`,
    /** BFS: the reports (JSON) of the partitions of level l whose task committed. */
    report: (l: number) => `${r}:report:${l}`,
    /** BFS: violations found at level l (JSON). */
    violations: (l: number) => `${r}:viol:${l}`,
    /** Jobs (swarm, linearizability): the indices of the jobs done. */
    done: `${r}:done`,
    /** Jobs (swarm, linearizability): job i's input and result. */
    input: (i: number) => `${r}:input:${i}`,
    result: (i: number) => `${r}:result:${i}`,
  };
}

/** Deletes every key of a run and its queue (SCAN, not KEYS: the server stays responsive). */
export async function deleteRun(redis: Redis, runId: string): Promise<void> {
  await redis.srem(RUNS, runId);
  for (const pattern of [`${keys(runId).prefix}:*`, `${QUEUE_PREFIX}:${queueName(runId)}:*`]) {
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (found.length > 0) await redis.unlink(...found);
    } while (cursor !== '0');
  }
}

/**
 * A run lives while its coordinator renews `alive` (every RUN_ALIVE_MS / 4). A coordinator
 * killed without a word leaves its keys: the next coordinator or any worker that finds a
 * registered run without `alive` deletes it, so nothing accumulates.
 */
export const RUN_ALIVE_MS = 60_000;

/**
 * Deletes the runs whose coordinator is gone; returns their ids. A run is gone when it has
 * no `alive` key: registered runs, and also keys of runs no longer registered, which a
 * worker still busy with a removed run's task (or its queue's housekeeping) can write after
 * the run was deleted. A coordinator sets `alive` before it writes any other key of its run,
 * so a run being started is never taken for a gone one.
 */
export async function sweepDeadRuns(redis: Redis): Promise<string[]> {
  const ids = new Set(await redis.smembers(RUNS));
  const runKey = new RegExp(`^(?:${escape(keys('').prefix)}|${escape(`${QUEUE_PREFIX}:${queueName('')}`)})([^:]+):`);
  for (const pattern of [`${keys('').prefix}*`, `${QUEUE_PREFIX}:${queueName('')}*`]) {
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      for (const key of found) {
        const id = runKey.exec(key)?.[1];
        if (id !== undefined) ids.add(id);
      }
    } while (cursor !== '0');
  }
  if (ids.size === 0) return [];
  const runs = [...ids];
  const alive = await Promise.all(runs.map((id) => redis.exists(keys(id).alive)));
  const dead = runs.filter((_, i) => alive[i] === 0);
  for (const id of dead) await deleteRun(redis, id);
  return dead;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A worker beats at least this often; one silent for longer is presumed dead. */
export const HEARTBEAT_WITHIN_MS = 3000;

/** Workers whose last heartbeat is at most `withinMs` old. */
export async function liveWorkers(redis: Redis, withinMs: number): Promise<number> {
  return redis.zcount(WORKERS, Date.now() - withinMs, '+inf');
}
