// The coordinator of a distributed breadth-first search through Redis. The fingerprint
// space is split into partitions; level by level, the partitions with successors sent to
// them are grouped into jobs (bfs-task.ts) that any worker takes from the run's BullMQ
// queue. The level barrier is the set of jobs that committed; a level with a violation is
// the last (without `all`). Counts, verdicts and the depth are those of the single-machine
// search: every distinct state is stored by exactly one partition, at the level BFS first
// reaches it, and expanded once, whatever the grouping.
//
// Counterexamples are shortest: the violating state is the one with the smallest
// fingerprint among those at the first violating level, and each state's parent link is
// the smallest fingerprint (then action index) among the states of the previous level that
// reach it, so the path does not depend on the number of workers or on timing. It is a
// shortest path, not necessarily the one exploreSync prints (that one depends on the
// single-machine order).
//
// A worker that dies mid-task commits nothing; BullMQ finds its job stalled when the lease
// runs out and gives it to another worker. A job that keeps failing, or no live worker for
// `noWorkerMs`, ends the run inconclusive with the counts committed so far.

import type { Redis } from 'ioredis';
import { fingerprint, makeEncoder, Words } from '../explore/encode.ts';
import { checkEnabled } from '../explore/errors.ts';
import { UnsupportedOption } from '../explore/errors.ts';
import { prepare } from '../explore/prepare.ts';
import { collisionProbability } from '../explore/store.ts';
import { replayIndices } from '../explore/trace.ts';
import type { Action, Counterexample, ExploreOptions, ExploreResult, ExploreTarget, Machine } from '../explore/types.ts';
import { coordinate } from './jobs.ts';
import { isConnectionError, keys, shownUrl, unavailable } from './redis.ts';
import { compareFp, fpFromHex, fpKey, owner, plainMachine, plainOptions, Records, unpackLink, type FoundViolation, type RunDescriptor, type TaskReport } from './run.ts';
import { guardSpec } from './spec-calls.ts';

export interface DistributedOptions {
  url: string;
  /**
   * Partitions of the fingerprint space (default 16): each is a job per level, so more
   * partitions spread a level over more workers but add a fixed cost per job (measured:
   * fusee/A2 ran 1,047 jobs at 64 partitions). About 4 per worker process.
   */
  partitions?: number;
  /**
   * A level's partitions are grouped into jobs of at least this many incoming successor
   * records (default 1,000), at most one job per partition: a narrow level is one or a few
   * jobs instead of one per partition, as each job costs a few Redis round trips.
   */
  recordsPerJob?: number;
  /** A job's lease: a worker silent this long is presumed dead and its job retried (default 10 s). */
  leaseMs?: number;
  /** With no live worker for this long, the run ends inconclusive (default 30 s). */
  noWorkerMs?: number;
}

/** What the run cost, beside the explorer's result. */
export interface DistributedStats {
  runId: string;
  partitions: number;
  /** Jobs committed (one per partition with work, per level). */
  tasks: number;
  /** Worker processes that committed work. */
  workers: number;
  /** Successor records sent to their owners (after each task's own duplicates were merged). */
  statesSent: number;
  /** Bytes the tasks wrote for other tasks: successor records, and states stored for one level. */
  bytesSent: number;
  /** Bytes of stored states the tasks read back to rebuild their new states from their parents. */
  bytesFetched: number;
  /** Commands Redis processed during the run (all clients: coordinator and workers). */
  redisCommands: number;
  /** Tasks a worker found held by another, live one (its lease had run out) and waited for. */
  waits: number;
  /** Redis memory the run held at its end (stored fingerprints and parent links, mostly). */
  redisBytes: number;
}

export async function distributedBfs(given: ExploreTarget, options: ExploreOptions, d: DistributedOptions): Promise<{ result: ExploreResult; stats: DistributedStats }> {
  const started = performance.now();
  // POR's cycle proviso remembers the states one process expanded: not sound across workers.
  if (options.por) throw new UnsupportedOption('partial-order reduction runs on one thread: not with --redis');
  if (options.store === 'exact' || (options.strategy ?? 'bfs') !== 'bfs') throw new UnsupportedOption('the distributed search is a BFS over fingerprints (for other searches through Redis, swarm)');
  const { target, machine: loaded } = await plainMachine(given);
  const machine: Machine<unknown, Action> = prepare(guardSpec(loaded), options);
  const partitions = d.partitions ?? 16;
  const recordsPerJob = d.recordsPerJob ?? 1000;
  const desc: RunDescriptor = { kind: 'bfs', target, options: plainOptions(options), partitions, leaseMs: d.leaseMs ?? 10_000 };
  const c = await coordinate(d.url, desc, d);
  const { redis, queue, runId } = c;
  const k = c.keys;
  try {
    // Level 0: the initial states, sent to their partitions as records like any successor's
    // (the owner rebuilds an initial state from its index).
    const encode = makeEncoder(machine);
    const words = new Words();
    const fp = new Int32Array(2);
    const inits = machine.init();
    // The contract, here, where a SpecError is the run's (65): in a worker's job it would
    // only fail the job (inconclusive). Every later actions() list is checked by the jobs.
    for (const s of inits) checkEnabled(machine.actions(s));
    const level0 = Array.from({ length: partitions }, () => new Records());
    const seen = new Set<string>();
    inits.forEach((s, i) => {
      encode(s, words);
      fingerprint(words.buf, words.length, fp);
      const key = `${fp[0]}:${fp[1]}`;
      if (seen.has(key)) return;
      seen.add(key);
      level0[owner(fp[0], partitions)].push(fp[0], fp[1], 0, 0, -1 - i);
    });
    // Partition -> records sent to it for the level.
    let work = new Map<number, number>();
    const push = redis.pipeline();
    level0.forEach((r, q) => {
      if (r.length === 0) return;
      work.set(q, r.count);
      push.rpush(k.inbox(0, q), r.pack());
    });
    await push.exec();

    const maxStates = options.maxStates ?? Infinity;
    const deadline = options.timeLimitMs === undefined ? Infinity : started + options.timeLimitMs;
    const total = { states: 0, transitions: 0, sent: 0, bytesSent: 0, bytesFetched: 0, depthCut: false, cover: new Map<string, number>(), workers: new Set<string>() };
    const add = (reports: Record<string, string>): Map<number, number> => {
      const next = new Map<number, number>();
      for (const raw of Object.values(reports)) {
        const r = JSON.parse(raw) as TaskReport;
        total.states += r.states;
        total.transitions += r.transitions;
        total.sent += r.sent;
        total.bytesSent += r.bytesSent;
        total.bytesFetched += r.bytesFetched;
        total.depthCut ||= r.depthCut;
        for (const [family, n] of Object.entries(r.cover)) total.cover.set(family, (total.cover.get(family) ?? 0) + n);
        total.workers.add(r.worker);
        for (const [q, n] of r.to) next.set(q, (next.get(q) ?? 0) + n);
      }
      return next;
    };
    let depth = 0;
    let tasks = 0;
    let stopReason: string | undefined;
    const firstViolations = new Map<string, FoundViolation>();

    for (let level = 0; work.size > 0; level++) {
      const groups = groupPartitions(work, recordsPerJob);
      await queue.addBulk(groups.map((g) => ({ name: 'level', data: { level, partitions: g }, opts: { jobId: `${level}-${g[0]}`, removeOnComplete: true, removeOnFail: 1000 } })));
      // The barrier: every group of the level committed.
      const n = groups.length;
      stopReason = await c.wait(async () => (await redis.hlen(k.report(level))) === n, deadline, options.timeLimitMs);
      const before = total.states;
      const next = add(await redis.hgetall(k.report(level)));
      if (total.states > before) depth = level;
      if (stopReason !== undefined) {
        // The counts are what was committed: whole levels up to this one, and part of it.
        stopReason += ` at level ${level}: the counts cover the levels before it and part of it`;
        await c.cancel();
        break;
      }
      tasks += n;
      // This level's inboxes and claims, and the states stored at the level before (their
      // successors are rebuilt), are no longer needed.
      await redis.unlink(k.report(level), ...[...work.keys()].map((p) => k.inbox(level, p)), ...groups.map((g) => k.claim(level, g[0])), ...(level > 0 ? Array.from({ length: partitions }, (_, p) => k.front(level - 1, p)) : []));
      await redis.hset(k.stat, 'states', total.states, 'level', level);
      for (const raw of await redis.lrange(k.violations(level), 0, -1)) {
        const v = JSON.parse(raw) as FoundViolation;
        const known = firstViolations.get(v.property);
        if (!known || v.depth < known.depth || (v.depth === known.depth && smallerFp(v.fp, known.fp))) firstViolations.set(v.property, v);
      }
      options.onProgress?.({ states: total.states, transitions: total.transitions, depth, queue: total.sent, elapsedMs: performance.now() - started });
      if (firstViolations.size > 0 && !options.all) break;
      work = next;
      if (total.states >= maxStates) {
        if (work.size > 0) stopReason = `state budget of ${options.maxStates} reached (checked at the end of each level: the count may exceed it)`;
        break;
      }
    }

    const states = total.states;
    const violations = await counterexamples(redis, runId, machine, partitions, firstViolations, options.all === true);
    const coverage = new Map<string, number>((machine.actionNames ?? []).map((n) => [n, 0]));
    for (const [family, n] of total.cover) coverage.set(family, (coverage.get(family) ?? 0) + n);
    const list = [...coverage].map(([family, enabled]) => ({ family, enabled })).sort((a, b) => (a.family < b.family ? -1 : a.family > b.family ? 1 : 0));
    const reason = stopReason ?? (total.depthCut ? `depth bound of ${options.maxDepth} reached: deeper states were not explored` : undefined);
    const workers = total.workers.size;
    const { bytesSent, bytesFetched } = total;
    const statesSent = total.sent;
    const redisCommands = await c.commands();
    const redisBytes = await c.memory();
    const waits = Number((await redis.hget(k.stat, 'waits')) ?? 0);
    const result: ExploreResult = {
      status: violations.length > 0 ? 'violation' : reason !== undefined ? 'incomplete' : 'holds',
      ...(reason !== undefined ? { incompleteReason: reason } : {}),
      strategy: 'bfs',
      store: 'fingerprint',
      workers,
      states,
      transitions: total.transitions,
      depth,
      elapsedMs: performance.now() - started,
      violations,
      coverage: list,
      neverEnabled: list.filter((c) => c.enabled === 0).map((c) => c.family),
      collisionProbability: collisionProbability(states),
      notes: [
        `distributed BFS through Redis (${shownUrl(d.url)}): ${partitions} partitions, ${tasks} tasks, ${workers} worker process(es); ` +
          `${statesSent.toLocaleString('en')} successor records sent; per distinct state ${perState(bytesSent, states)} bytes written and ${perState(bytesFetched, states)} read (records, and states stored for one level), ${perState(redisCommands, states, 2)} Redis commands`,
        ...(violations.length > 0 ? ['counterexample: a shortest path, rebuilt from the partitions\' parent links (the smallest fingerprint at each step)'] : []),
      ],
    };
    return { result, stats: { runId, partitions, tasks, workers, statesSent, bytesSent, bytesFetched, waits, redisCommands, redisBytes } };
  } catch (e) {
    if (isConnectionError(e)) throw unavailable(d.url, e);
    throw e;
  } finally {
    await c.close();
  }
}

/**
 * The level's jobs: the partitions with work, in ceil(records / recordsPerJob) groups (at
 * most one per partition) balanced by their records, largest first; deterministic.
 */
export function groupPartitions(work: Map<number, number>, recordsPerJob: number): number[][] {
  let records = 0;
  for (const n of work.values()) records += n;
  const jobs = Math.max(1, Math.min(work.size, Math.ceil(records / recordsPerJob)));
  const groups = Array.from({ length: jobs }, () => ({ load: 0, parts: [] as number[] }));
  const byLoad = [...work].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  for (const [q, n] of byLoad) {
    let least = groups[0];
    for (const g of groups) if (g.load < least.load) least = g;
    least.load += n;
    least.parts.push(q);
  }
  return groups.map((g) => g.parts.sort((a, b) => a - b)).sort((a, b) => a[0] - b[0]);
}

function perState(n: number, states: number, digits = 1): string {
  return (states === 0 ? 0 : n / states).toFixed(digits);
}

function smallerFp(a: string, b: string): boolean {
  const [ahi, alo] = fpFromHex(a);
  const [bhi, blo] = fpFromHex(b);
  return compareFp(ahi, alo, bhi, blo) < 0;
}

/**
 * The counterexamples: without `all`, every property the chosen state violates (the state
 * with the smallest fingerprint at the first violating level); with it, each property's
 * own first violation. Paths follow the parent links back to an initial state and are
 * replayed on the machine.
 */
async function counterexamples(redis: Redis, runId: string, machine: Machine<unknown, Action>, partitions: number, first: Map<string, FoundViolation>, all: boolean): Promise<Counterexample[]> {
  if (first.size === 0) return [];
  let chosen = [...first.values()];
  if (!all) {
    const minDepth = Math.min(...chosen.map((v) => v.depth));
    const atDepth = chosen.filter((v) => v.depth === minDepth);
    const state = atDepth.reduce((a, b) => (smallerFp(b.fp, a.fp) ? b : a)).fp;
    // The chosen state's own violations, in its check order (a property's first violation
    // may lie in another state of the level: that state's message is then read back).
    const level = await redis.lrange(keys(runId).violations(minDepth), 0, -1);
    chosen = level.map((raw) => JSON.parse(raw) as FoundViolation).filter((v) => v.fp === state);
    chosen.sort((a, b) => a.order - b.order);
  } else {
    chosen.sort((a, b) => a.depth - b.depth || (a.property < b.property ? -1 : 1));
  }
  const k = keys(runId);
  const out: Counterexample[] = [];
  for (const v of chosen) {
    let [hi, lo] = fpFromHex(v.fp);
    const path: number[] = [];
    for (let guard = 0; ; guard++) {
      if (guard > v.depth) throw new Error(`distributed BFS: the parent links of ${v.fp} do not lead to an initial state within ${v.depth} steps`);
      const raw = await redis.hgetBuffer(k.seen(owner(hi, partitions)), fpKey(hi, lo));
      if (raw === null) throw new Error(`distributed BFS: state ${v.fp} on the path has no parent link`);
      const link = unpackLink(raw);
      if (link.via < 0) {
        out.push(replayIndices(machine, -1 - link.via, path.reverse(), v.property, v.message));
        break;
      }
      path.push(link.via);
      hi = link.hi;
      lo = link.lo;
    }
  }
  return out;
}
