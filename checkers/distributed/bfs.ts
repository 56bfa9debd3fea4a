// The coordinator of a distributed breadth-first search through Redis. The fingerprint
// space is split into partitions; level by level, each partition with states sent to it
// is a job (bfs-task.ts) that any worker takes from the run's BullMQ queue. The level
// barrier is the set of partitions whose task committed; a level with a violation is the
// last (without `all`). Counts, verdicts and the depth are those of the single-machine
// search: every distinct state is stored by exactly one partition, at the level BFS first
// reaches it, and expanded once.
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
import { UnsupportedOption } from '../explore/errors.ts';
import { loadMachine, normalizeTarget } from '../explore/load.ts';
import { prepare } from '../explore/prepare.ts';
import { collisionProbability } from '../explore/store.ts';
import { replayIndices } from '../explore/trace.ts';
import type { Action, Counterexample, ExploreOptions, ExploreResult, ExploreTarget, Machine } from '../explore/types.ts';
import { coordinate } from './jobs.ts';
import { isConnectionError, keys, shownUrl, unavailable } from './redis.ts';
import { compareFp, fpFromHex, fpKey, owner, packBatch, plainOptions, unpackLink, type FoundViolation, type RunDescriptor } from './run.ts';

export interface DistributedOptions {
  url: string;
  /**
   * Partitions of the fingerprint space (default 16): each is a job per level, so more
   * partitions spread a level over more workers but add a fixed cost per job (measured:
   * fusee/A2 ran 1,047 jobs at 64 partitions). About 4 per worker process.
   */
  partitions?: number;
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
  /** States sent to their owners (after each task's own duplicates were merged). */
  statesSent: number;
  /** Bytes of state batches pushed to Redis. */
  bytesSent: number;
  /** Commands Redis processed during the run (all clients: coordinator and workers). */
  redisCommands: number;
  /** Redis memory the run held at its end (stored fingerprints and parent links, mostly). */
  redisBytes: number;
}

export async function distributedBfs(given: ExploreTarget, options: ExploreOptions, d: DistributedOptions): Promise<{ result: ExploreResult; stats: DistributedStats }> {
  const started = performance.now();
  // POR's cycle proviso remembers the states one process expanded: not sound across workers.
  if (options.por) throw new UnsupportedOption('partial-order reduction runs on one thread: not with --redis');
  if (options.store === 'exact' || (options.strategy ?? 'bfs') !== 'bfs') throw new UnsupportedOption('the distributed search is a BFS over fingerprints (for other searches through Redis, swarm)');
  const target = normalizeTarget(given);
  const machine: Machine<unknown, Action> = prepare(await loadMachine(target), options);
  const partitions = d.partitions ?? 16;
  const desc: RunDescriptor = { kind: 'bfs', target, options: plainOptions(options), partitions, leaseMs: d.leaseMs ?? 10_000 };
  const c = await coordinate(d.url, desc, d);
  const { redis, queue, runId } = c;
  const k = c.keys;
  try {
    // Level 0: the initial states, sent to their partitions like any successor.
    const encode = makeEncoder(machine);
    const words = new Words();
    const fp = new Int32Array(2);
    const inits = machine.init();
    const level0 = new Map<number, { fp: number[]; via: number[]; states: unknown[]; seen: Set<string> }>();
    inits.forEach((s, i) => {
      encode(s, words);
      fingerprint(words.buf, words.length, fp);
      const q = owner(fp[0], partitions);
      let b = level0.get(q);
      if (!b) level0.set(q, (b = { fp: [], via: [], states: [], seen: new Set() }));
      const key = `${fp[0]}:${fp[1]}`;
      if (b.seen.has(key)) return;
      b.seen.add(key);
      b.fp.push(fp[0], fp[1]);
      b.via.push(-1 - i);
      b.states.push(s);
    });
    for (const [q, b] of level0) {
      await redis.rpush(k.inbox(0, q), packBatch({ fp: Int32Array.from(b.fp), parent: new Int32Array(b.fp.length), via: Int32Array.from(b.via), states: b.states }));
    }
    const maxStates = options.maxStates ?? Infinity;
    const deadline = options.timeLimitMs === undefined ? Infinity : started + options.timeLimitMs;
    let depth = 0;
    let tasks = 0;
    let stopReason: string | undefined;
    const firstViolations = new Map<string, FoundViolation>();

    for (let level = 0; ; level++) {
      const lengths = await Promise.all(Array.from({ length: partitions }, (_, p) => redis.llen(k.inbox(level, p))));
      const work = lengths.map((n, p) => (n > 0 ? p : -1)).filter((p) => p >= 0);
      if (work.length === 0) break;
      await queue.addBulk(work.map((p) => ({ name: 'level', data: { level, partition: p }, opts: { jobId: `${level}-${p}`, removeOnComplete: true, removeOnFail: 1000 } })));
      // The barrier: every partition of the level committed.
      stopReason = await c.wait(async () => (await redis.scard(k.done(level))) === work.length, deadline, options.timeLimitMs);
      if (stopReason !== undefined) {
        // The counts are what was committed: whole levels up to this one, and part of it.
        stopReason += ` at level ${level}: the counts cover the levels before it and part of it`;
        await c.cancel();
        break;
      }
      tasks += work.length;
      const added = Number((await redis.hget(k.stat, `states:${level}`)) ?? 0);
      if (added > 0) depth = level;
      await redis.unlink(...work.map((p) => k.inbox(level, p)), ...work.map((p) => k.claim(level, p)));
      for (const raw of await redis.lrange(k.violations(level), 0, -1)) {
        const v = JSON.parse(raw) as FoundViolation;
        const known = firstViolations.get(v.property);
        if (!known || v.depth < known.depth || (v.depth === known.depth && smallerFp(v.fp, known.fp))) firstViolations.set(v.property, v);
      }
      const stat = await redis.hgetall(k.stat);
      options.onProgress?.({ states: Number(stat.states ?? 0), transitions: Number(stat.transitions ?? 0), depth, queue: Number(stat[`sent:${level}`] ?? 0), elapsedMs: performance.now() - started });
      if (firstViolations.size > 0 && !options.all) break;
      if (Number(stat.states ?? 0) >= maxStates) {
        const more = await Promise.all(Array.from({ length: partitions }, (_, p) => redis.llen(k.inbox(level + 1, p))));
        if (more.some((n) => n > 0)) stopReason = `state budget of ${options.maxStates} reached (checked at the end of each level: the count may exceed it)`;
        break;
      }
    }

    const stat = await redis.hgetall(k.stat);
    const cover = await redis.hgetall(k.cover);
    const states = Number(stat.states ?? 0);
    const violations = await counterexamples(redis, runId, machine, partitions, firstViolations, options.all === true);
    const coverage = new Map<string, number>((machine.actionNames ?? []).map((n) => [n, 0]));
    for (const [family, n] of Object.entries(cover)) coverage.set(family, (coverage.get(family) ?? 0) + Number(n));
    const list = [...coverage].map(([family, enabled]) => ({ family, enabled })).sort((a, b) => (a.family < b.family ? -1 : a.family > b.family ? 1 : 0));
    const reason = stopReason ?? (stat.depthCut === '1' ? `depth bound of ${options.maxDepth} reached: deeper states were not explored` : undefined);
    const workers = await redis.scard(k.workers);
    const bytesSent = Number(stat.bytes ?? 0);
    const statesSent = Number(stat.sent ?? 0);
    const redisCommands = await c.commands();
    const redisBytes = await c.memory();
    const result: ExploreResult = {
      status: violations.length > 0 ? 'violation' : reason !== undefined ? 'incomplete' : 'holds',
      ...(reason !== undefined ? { incompleteReason: reason } : {}),
      strategy: 'bfs',
      store: 'fingerprint',
      workers,
      states,
      transitions: Number(stat.transitions ?? 0),
      depth,
      elapsedMs: performance.now() - started,
      violations,
      coverage: list,
      neverEnabled: list.filter((c) => c.enabled === 0).map((c) => c.family),
      collisionProbability: collisionProbability(states),
      notes: [
        `distributed BFS through Redis (${shownUrl(d.url)}): ${partitions} partitions, ${tasks} tasks, ${workers} worker process(es); ` +
          `${statesSent.toLocaleString('en')} states sent (${(states === 0 ? 0 : bytesSent / states).toFixed(1)} bytes per distinct state), ${(states === 0 ? 0 : redisCommands / states).toFixed(2)} Redis commands per state`,
        ...(violations.length > 0 ? ['counterexample: a shortest path, rebuilt from the partitions\' parent links (the smallest fingerprint at each step)'] : []),
      ],
    };
    return { result, stats: { runId, partitions, tasks, workers, statesSent, bytesSent, redisCommands, redisBytes } };
  } catch (e) {
    if (isConnectionError(e)) throw unavailable(d.url, e);
    throw e;
  } finally {
    await c.close();
  }
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
