// Swarm verification (Holzmann's idea: many small, diversified searches instead of one
// exhaustive one) for spaces too large to exhaust. Each job is a bounded search with its
// own seed: random walks (the explorer's simulation), or a depth-first search with a state
// budget over actions taken in a seeded order. Any worker takes any job; the first
// violation cancels the jobs not yet taken. The summary says what was covered and never
// that the spec holds: no job knows what the others visited.

import { deserialize, serialize } from 'node:v8';
import type { Redis } from 'ioredis';
import { loadMachine, normalizeTarget } from '../explore/load.ts';
import { prepare } from '../explore/prepare.ts';
import { dfs, simulate } from '../explore/search.ts';
import type { Action, Counterexample, ExploreOptions, ExploreResult, ExploreTarget, Machine } from '../explore/types.ts';
import { coordinate } from './jobs.ts';
import { isConnectionError, keys, shownUrl, unavailable } from './redis.ts';
import { plainOptions, type RunDescriptor } from './run.ts';
import { guardSpec } from './spec-calls.ts';
import type { DistributedOptions } from './bfs.ts';

export interface SwarmOptions {
  /** Jobs (default 16): even ones random walks, odd ones seeded DFS. */
  jobs?: number;
  /** First seed (default 1): job i uses seed + i. */
  seed?: number;
  /** Random walks per walk job (default 200) and steps per walk (default 100; also the DFS depth bound). */
  walks?: number;
  depth?: number;
  /** States per DFS job (default 20,000). */
  statesPerJob?: number;
}

export interface SwarmJob {
  index: number;
  kind: 'walks' | 'dfs';
  seed: number;
  walks: number;
  depth: number;
  states: number;
}

interface JobReport {
  index: number;
  kind: 'walks' | 'dfs';
  seed: number;
  status: ExploreResult['status'];
  incompleteReason?: string;
  states: number;
  transitions: number;
  depth: number;
  violations: Counterexample[];
  coverage: ExploreResult['coverage'];
}

/** The machine with each state's actions in an order drawn from the seed (deterministic, so paths replay). */
export function seededOrder<S, A extends Action>(m: Machine<S, A>, seed: number): Machine<S, A> {
  const orders = new Map<number, number[]>();
  const order = (n: number) => {
    let o = orders.get(n);
    if (o === undefined) {
      o = Array.from({ length: n }, (_, i) => i);
      let x = (seed * 0x9e3779b1) ^ (n * 0x85ebca6b) || 1;
      for (let i = n - 1; i > 0; i--) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        const j = (x >>> 0) % (i + 1);
        [o[i], o[j]] = [o[j], o[i]];
      }
      orders.set(n, o);
    }
    return o;
  };
  return {
    ...m,
    actions: (s) => {
      const enabled = m.actions(s);
      return enabled.length < 2 ? enabled : order(enabled.length).map((i) => enabled[i]);
    },
  };
}

/** A worker's run of one swarm job; its report goes to Redis, and a violation cancels the run. */
export async function runSwarmJob(redis: Redis, runId: string, machine: Machine<unknown, Action>, options: ExploreOptions, job: SwarmJob, workerId: string): Promise<{ status: string }> {
  const k = keys(runId);
  const base = { ...options, all: false, maxStates: undefined, timeLimitMs: undefined };
  const r =
    job.kind === 'walks'
      ? simulate(machine, { ...base, strategy: 'simulate', simulate: { runs: job.walks, depth: job.depth, seed: job.seed } })
      : dfs(seededOrder(machine, job.seed), { ...base, strategy: 'dfs', maxStates: job.states, maxDepth: job.depth });
  const report: JobReport = { index: job.index, kind: job.kind, seed: job.seed, status: r.status, ...(r.incompleteReason ? { incompleteReason: r.incompleteReason } : {}), states: r.states, transitions: r.transitions, depth: r.depth, violations: r.violations, coverage: r.coverage };
  const tx = redis.multi().set(k.result(job.index), serialize(report)).sadd(k.done, String(job.index)).sadd(k.workers, workerId);
  if (r.violations.length > 0) tx.set(k.cancel, '1');
  await tx.rpush(k.tick, '1').exec();
  return { status: r.status };
}

export interface SwarmSummary {
  jobs: number;
  ran: number;
  cancelled: number;
  walkJobs: number;
  dfsJobs: number;
  /** States visited, summed over jobs (distinct within a job, not across jobs). */
  statesVisited: number;
  transitions: number;
  deepest: number;
  /** DFS jobs whose state budget was not reached: each exhausted the space within the depth bound. */
  exhaustedWithinDepth: number;
}

export async function swarm(given: ExploreTarget, options: ExploreOptions, d: DistributedOptions, s: SwarmOptions = {}): Promise<{ result: ExploreResult; summary: SwarmSummary }> {
  const started = performance.now();
  const target = normalizeTarget(given);
  const machine = prepare(guardSpec(await loadMachine(target)), options) as Machine<unknown, Action>;
  const n = s.jobs ?? 16;
  const seed = s.seed ?? 1;
  const depth = s.depth ?? 100;
  const jobs: SwarmJob[] = Array.from({ length: n }, (_, i) => ({ index: i, kind: i % 2 === 0 ? 'walks' : 'dfs', seed: seed + i, walks: s.walks ?? 200, depth, states: s.statesPerJob ?? 20_000 }));
  const desc: RunDescriptor = { kind: 'swarm', target, options: plainOptions(options), leaseMs: d.leaseMs ?? 10_000 };
  const c = await coordinate(d.url, desc, d);
  const k = c.keys;
  try {
    await c.queue.addBulk(jobs.map((j) => ({ name: 'swarm', data: j, opts: { jobId: `job-${j.index}`, removeOnComplete: true, removeOnFail: 1000 } })));
    const deadline = options.timeLimitMs === undefined ? Infinity : started + options.timeLimitMs;
    let cancelled = false;
    const stop = await c.wait(async () => {
      if ((await c.redis.scard(k.done)) === n) return true;
      if (!cancelled && (await c.redis.exists(k.cancel)) === 1) {
        cancelled = true;
        await c.cancel();
      }
      return cancelled && (await c.queue.getActiveCount()) === 0;
    }, deadline, options.timeLimitMs);
    if (stop !== undefined) await c.cancel();
    const reports: JobReport[] = [];
    for (const i of await c.redis.smembers(k.done)) {
      const raw = await c.redis.getBuffer(k.result(Number(i)));
      if (raw) reports.push(deserialize(raw) as JobReport);
    }
    reports.sort((a, b) => a.index - b.index);
    const found = reports.flatMap((r) => r.violations.map((v) => ({ v, r })));
    // The shortest counterexample found (ties: the lowest job).
    found.sort((a, b) => a.v.steps.length - b.v.steps.length || a.r.index - b.r.index);
    const coverage = new Map<string, number>((machine.actionNames ?? []).map((f) => [f, 0]));
    for (const r of reports) for (const cv of r.coverage) coverage.set(cv.family, (coverage.get(cv.family) ?? 0) + cv.enabled);
    const list = [...coverage].map(([family, enabled]) => ({ family, enabled })).sort((a, b) => (a.family < b.family ? -1 : a.family > b.family ? 1 : 0));
    const summary: SwarmSummary = {
      jobs: n,
      ran: reports.length,
      cancelled: n - reports.length,
      walkJobs: reports.filter((r) => r.kind === 'walks').length,
      dfsJobs: reports.filter((r) => r.kind === 'dfs').length,
      statesVisited: reports.reduce((a, r) => a + r.states, 0),
      transitions: reports.reduce((a, r) => a + r.transitions, 0),
      deepest: Math.max(0, ...reports.map((r) => r.depth)),
      exhaustedWithinDepth: reports.filter((r) => r.kind === 'dfs' && r.status !== 'violation' && !(r.incompleteReason ?? '').startsWith('state budget')).length,
    };
    const covered =
      `swarm of ${n} jobs through Redis (${shownUrl(d.url)}): ${summary.ran} ran (${summary.walkJobs} of ${s.walks ?? 200} random walks of at most ${depth} steps, ` +
      `${summary.dfsJobs} seeded DFS of at most ${(s.statesPerJob ?? 20_000).toLocaleString('en')} states and depth ${depth}), ${summary.cancelled} cancelled; ` +
      `${summary.statesVisited.toLocaleString('en')} states visited in all (distinct within a job, not across jobs), deepest ${summary.deepest}`;
    const why = stop ?? (found.length > 0 ? undefined : `swarm verification covers part of the space only (${summary.ran} bounded searches); it never shows that the spec holds`);
    const result: ExploreResult = {
      status: found.length > 0 ? 'violation' : 'incomplete',
      ...(why !== undefined ? { incompleteReason: why } : {}),
      strategy: 'simulate',
      store: 'fingerprint',
      workers: await c.redis.scard(k.workers),
      states: summary.statesVisited,
      statesSummedOverJobs: summary.ran,
      transitions: summary.transitions,
      depth: summary.deepest,
      elapsedMs: performance.now() - started,
      violations: found.length > 0 ? [{ ...found[0].v, seed: found[0].r.seed }] : [],
      coverage: list,
      neverEnabled: list.filter((x) => x.enabled === 0).map((x) => x.family),
      notes: [
        covered,
        ...(summary.exhaustedWithinDepth > 0 ? [`${summary.exhaustedWithinDepth} DFS job(s) ended under their state budget: the space within depth ${depth} was exhausted by each (a DFS depth bound can still hide states reachable by a longer path)`] : []),
        ...(found.length > 0 ? [`counterexample from job ${found[0].r.index} (${found[0].r.kind}, seed ${found[0].r.seed}): not necessarily a shortest one`] : []),
      ],
    };
    return { result, summary };
  } catch (e) {
    if (isConnectionError(e)) throw unavailable(d.url, e);
    throw e;
  } finally {
    await c.close();
  }
}
