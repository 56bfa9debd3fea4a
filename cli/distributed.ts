// `--redis URL` for explore and lin: the run coordinated here through Redis, with
// `--workers-per-host N` worker processes of this host (cli/worker.ts) taking part beside
// any `interleave worker` started elsewhere. Nothing here runs without --redis.
import { distributedBfs } from '../checkers/distributed/bfs.ts';
import { distributedLin, UnregisteredModel } from '../checkers/distributed/lin.ts';
import type { RedisUnavailable } from '../checkers/distributed/redis.ts';
import { swarm } from '../checkers/distributed/swarm.ts';
import type { ExploreOptions, ExploreResult, ExploreTarget } from '../checkers/explore/types.ts';
import type { CheckOptions, LinResult, Operation } from '../checkers/lin/types.ts';
import { reportFailure } from './errors.ts';
import { EXIT, UsageError } from './exit.ts';
import { redisUrl, spawnLocalWorkers } from './worker.ts';

/** Redis unreachable or lost: one line, exit 69, never a verdict. */
export function unavailableExit(e: RedisUnavailable, err: (s: string) => void): number {
  reportFailure(`${e.message}; no verdict (exit ${EXIT.unavailable})`, err);
  return EXIT.unavailable;
}

async function withLocalWorkers<T>(url: string, n: number, f: () => Promise<T>): Promise<T> {
  const local = n > 0 ? spawnLocalWorkers(url, n) : undefined;
  try {
    return await f();
  } finally {
    await local?.stop();
  }
}

export interface RedisRun {
  url: string;
  workersPerHost: number;
  /** Swarm verification with this many jobs instead of exhaustive BFS. */
  swarmJobs?: number;
  seed?: number;
  depth?: number;
}

/**
 * Workers of this host stay up across the configs of one command. Each config's run goes
 * through its `guard` (cli/explore.ts: userSpecContract, so that a user's module that breaks
 * the contract is said of its file, as the local explore says it).
 */
export async function exploreThroughRedis(
  run: RedisRun,
  configs: { target: ExploreTarget; options: ExploreOptions; guard(f: () => Promise<ExploreResult>): Promise<ExploreResult>; done(r: ExploreResult): void }[],
): Promise<void> {
  const url = redisUrl(run.url);
  await withLocalWorkers(url, run.workersPerHost, async () => {
    for (const c of configs) {
      const r = await c.guard(async () =>
        run.swarmJobs !== undefined
          ? (await swarm(c.target, c.options, { url }, { jobs: run.swarmJobs, ...(run.seed !== undefined ? { seed: run.seed } : {}), ...(run.depth !== undefined ? { depth: run.depth } : {}) })).result
          : (await distributedBfs(c.target, c.options, { url })).result,
      );
      c.done(r);
    }
  });
}

export async function linThroughRedis(model: string, history: readonly Operation[], options: CheckOptions, url: string, workersPerHost: number): Promise<LinResult> {
  redisUrl(url);
  try {
    return await withLocalWorkers(url, workersPerHost, async () => (await distributedLin(model, history, options, { url })).result);
  } catch (e) {
    if (e instanceof UnregisteredModel) throw new UsageError(e.message);
    throw e;
  }
}
