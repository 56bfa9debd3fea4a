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
    /** Counters: states, transitions, bytes sent, depth cut, ... */
    stat: `${r}:stat`,
    /** Coverage: action family -> times enabled. */
    cover: `${r}:cover`,
    /** A list a commit pushes to, so that the coordinator wakes up (blocking pop). */
    tick: `${r}:tick`,
    /** Worker ids that committed work for the run. */
    workers: `${r}:workers`,
    /** BFS: states sent to partition p for level l (a list of batches). */
    inbox: (l: number, p: number) => `${r}:in:${l}:${p}`,
    /** BFS: partition p's stored fingerprints -> parent fingerprint and action index. */
    seen: (p: number) => `${r}:seen:${p}`,
    /** BFS: the worker token that holds task (l, p). */
    claim: (l: number, p: number) => `${r}:claim:${l}:${p}`,
    /** BFS: the partitions of level l whose task committed. */
    done: (l: number) => `${r}:done:${l}`,
    /** BFS: violations found at level l (JSON). */
    violations: (l: number) => `${r}:viol:${l}`,
    /** Jobs (swarm, linearizability): job i's input and result. */
    input: (i: number) => `${r}:input:${i}`,
    result: (i: number) => `${r}:result:${i}`,
  };
}

/** Deletes every key of a run (SCAN, not KEYS: the server stays responsive). */
export async function deleteRun(redis: Redis, runId: string): Promise<void> {
  const { prefix } = keys(runId);
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (found.length > 0) await redis.unlink(...found);
  } while (cursor !== '0');
  await redis.srem(RUNS, runId);
}

/** Workers whose last heartbeat is at most `withinMs` old. */
export async function liveWorkers(redis: Redis, withinMs: number): Promise<number> {
  return redis.zcount(WORKERS, Date.now() - withinMs, '+inf');
}
