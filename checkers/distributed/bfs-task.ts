// One task of a distributed BFS, run by a worker: level l of a group of partitions (one
// partition at a wide level; several at a narrow one, so that a level of a few states is
// not a dozen jobs). A partition's inbox holds
// successor records (fingerprint, parent fingerprint, action index: run.ts), not states.
// It keeps one record per fingerprint (the smallest parent link, so that the choice does
// not depend on arrival order), drops those the owner stored before, and rebuilds each new state
// from its parent, which the parent's partition stored at level l-1 (`front`): one step
// re-executed instead of a state sent per transition. It checks the invariants on the new
// states, expands them, stores those with successors in its own `front` for level l+1, and
// sends each successor's record to the partition that owns its fingerprint.
//
// The task holds a claim (worker id and token) and writes everything in one MULTI/EXEC at
// the end, under WATCH of the claim: a task that dies commits nothing, and a task never
// commits twice. The claim is kept by the worker's heartbeat, not by the job's lease: when
// BullMQ gives the job to another worker because its lease ran out (a busy machine, an
// event loop held up), that worker waits while the holder still beats, and takes the task
// over only once the holder is silent. A slow but live worker keeps its share.

import type { Redis } from 'ioredis';
import { fingerprint, makeEncoder, Words } from '../explore/encode.ts';
import { checkEnabled } from '../explore/errors.ts';
import type { Action, Machine } from '../explore/types.ts';
import { HEARTBEAT_WITHIN_MS, keys, WORKERS } from './redis.ts';
import { compareFp, fpHex, fpKey, owner, packLink, packState, RECORD_WORDS, Records, unpackRecords, unpackState, type FoundViolation, type TaskReport } from './run.ts';

/** What a worker builds once per run: the prepared machine, its encoder and initial states. */
export interface BfsContext {
  machine: Machine<unknown, Action>;
  encode: (s: unknown, out: Words) => void;
  inits: readonly unknown[];
  partitions: number;
  maxDepth: number;
  checkDeadlock: boolean;
}

export function bfsContext(machine: Machine<unknown, Action>, partitions: number, maxDepth: number | undefined, deadlock: boolean | undefined): BfsContext {
  return { machine, encode: makeEncoder(machine), inits: machine.init(), partitions, maxDepth: maxDepth ?? Infinity, checkDeadlock: deadlock !== false && machine.mayStop !== undefined };
}

/** Work between two yields to the event loop, where BullMQ renews the job's lease and the heartbeat beats. */
const SLICE_MS = 20;
/** Fields per HMGET / HSET command. */
const CHUNK = 4096;
/** How often a worker that found the task held by a live worker looks again. */
const WAIT_MS = 200;

/** Yields to the event loop once SLICE_MS of work has passed since the last yield. */
class Slicer {
  private last = performance.now();
  async tick(): Promise<void> {
    const now = performance.now();
    if (now - this.last < SLICE_MS) return;
    await new Promise((r) => setImmediate(r));
    this.last = performance.now();
  }
}

/** Successor records bound for one partition, one per fingerprint (the smallest parent link kept). */
class Outbox {
  private readonly index = new Map<string, number>();
  readonly records = new Records();

  add(hi: number, lo: number, phi: number, plo: number, via: number): void {
    const key = `${hi}:${lo}`;
    const at = this.index.get(key);
    if (at === undefined) {
      this.index.set(key, this.records.length);
      this.records.push(hi, lo, phi, plo, via);
      return;
    }
    const w = this.records.words;
    if ((compareFp(phi, plo, w[at + 2], w[at + 3]) || via - w[at + 4]) < 0) {
      w[at + 2] = phi;
      w[at + 3] = plo;
      w[at + 4] = via;
    }
  }
}

export interface TaskOutcome {
  committed: boolean;
  newStates: number;
  transitions: number;
  bytesSent: number;
}

const NONE: TaskOutcome = { committed: false, newStates: 0, transitions: 0, bytesSent: 0 };

/**
 * Takes the claim of task (l, g) (g: the group's first partition): returns 0 when the task is done, -1 when a worker that
 * still beats its heartbeat holds it, 1 when this worker now holds it (it was free, its
 * holder is silent, or the holder is this worker's own earlier attempt).
 * A run whose coordinator is gone (no `alive`) has nothing left to do: 0, and no key is made.
 * KEYS: report(l), claim(l, g), WORKERS, alive; ARGV: g, claim value, worker id, oldest live beat.
 */
const CLAIM = `
if redis.call('EXISTS', KEYS[4]) == 0 or redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
local holder = redis.call('GET', KEYS[2])
if holder then
  local id = string.match(holder, '^(.*) [^ ]*$')
  if id ~= ARGV[3] then
    local beat = redis.call('ZSCORE', KEYS[3], id)
    if beat and tonumber(beat) >= tonumber(ARGV[4]) then return -1 end
  end
end
redis.call('SET', KEYS[2], ARGV[2])
return 1`;

export async function runLevelTask(redis: Redis, runId: string, ctx: BfsContext, level: number, group: readonly number[], token: string, workerId: string): Promise<TaskOutcome> {
  const g = group[0];
  const k = keys(runId);
  const mine = `${workerId} ${token}`;
  // The claim, and the task's inbox in the same round trip (unused unless claimed).
  let batches: Buffer[];
  let waited = false;
  for (;;) {
    const pipe = redis
      .pipeline()
      .eval(CLAIM, 4, k.report(level), k.claim(level, g), WORKERS, k.alive, String(g), mine, workerId, String(Date.now() - HEARTBEAT_WITHIN_MS));
    for (const q of group) pipe.lrangeBuffer(k.inbox(level, q), 0, -1);
    const replies = (await pipe.exec())!;
    for (const [e] of replies) if (e) throw e;
    const claimed = replies[0][1] as number;
    if (claimed === 0) return NONE;
    if (claimed === 1) {
      batches = replies.slice(1).flatMap(([, b]) => b as Buffer[]);
      break;
    }
    if (!waited) await redis.hincrby(k.stat, 'waits', 1);
    waited = true;
    await new Promise((r) => setTimeout(r, WAIT_MS));
  }
  const slicer = new Slicer();

  // The records for level l, one per fingerprint: index into `cand` (5 words each).
  const byFp = new Map<string, number>();
  const cand = new Records();
  for (const buf of batches) {
    const r = unpackRecords(buf);
    for (let i = 0; i < r.length; i += RECORD_WORDS) {
      const key = `${r[i]}:${r[i + 1]}`;
      const at = byFp.get(key);
      if (at === undefined) {
        byFp.set(key, cand.length);
        cand.push(r[i], r[i + 1], r[i + 2], r[i + 3], r[i + 4]);
      } else {
        const w = cand.words;
        if ((compareFp(r[i + 2], r[i + 3], w[at + 2], w[at + 3]) || r[i + 4] - w[at + 4]) < 0) {
          w[at + 2] = r[i + 2];
          w[at + 3] = r[i + 3];
          w[at + 4] = r[i + 4];
        }
      }
    }
    await slicer.tick();
  }

  // Those their owner has not stored at an earlier level (offsets into cand.words).
  const fresh: number[] = [];
  const cw = cand.words;
  {
    const byOwner = new Map<number, number[]>();
    for (let o = 0; o < cand.length; o += RECORD_WORDS) {
      const q = owner(cw[o], ctx.partitions);
      let list = byOwner.get(q);
      if (!list) byOwner.set(q, (list = []));
      list.push(o);
    }
    const lookups = redis.pipeline();
    const asked: number[][] = [];
    for (const [q, list] of byOwner) {
      for (let i = 0; i < list.length; i += CHUNK) {
        const part = list.slice(i, i + CHUNK);
        asked.push(part);
        lookups.hmgetBuffer(k.seen(q), ...part.map((o) => fpKey(cw[o], cw[o + 1])));
      }
    }
    const replies = (await lookups.exec()) ?? [];
    replies.forEach(([e, known], i) => {
      if (e) throw e;
      (known as (Buffer | null)[]).forEach((v, j) => {
        if (v === null) fresh.push(asked[i][j]);
      });
    });
  }

  // The parents of the new states: the initial states, or those stored at level l-1 by
  // the parents' partitions, each fetched and decoded once.
  const parents = new Map<string, { state: unknown; enabled?: Action[] }>();
  let bytesFetched = 0;
  if (level > 0) {
    const wanted = new Map<number, string[]>();
    for (const o of fresh) {
      const key = `${cw[o + 2]}:${cw[o + 3]}`;
      if (parents.has(key)) continue;
      parents.set(key, { state: undefined });
      const q = owner(cw[o + 2], ctx.partitions);
      let list = wanted.get(q);
      if (!list) wanted.set(q, (list = []));
      list.push(key);
    }
    const fetch = redis.pipeline();
    const order: string[][] = [];
    for (const [q, list] of wanted) {
      for (let i = 0; i < list.length; i += CHUNK) {
        const part = list.slice(i, i + CHUNK);
        order.push(part);
        fetch.hmgetBuffer(k.front(level - 1, q), ...part.map((key) => fpKeyOf(key)));
      }
    }
    const replies = (await fetch.exec()) ?? [];
    for (let i = 0; i < replies.length; i++) {
      const [e, values] = replies[i];
      if (e) throw e;
      const part = order[i];
      const bufs = values as (Buffer | null)[];
      for (let j = 0; j < part.length; j++) {
        const b = bufs[j];
        if (b === null) throw new Error(`distributed BFS: level ${level - 1} did not store state ${fpHex(...fpOfKey(part[j]))}, the parent of a state sent to partition(s) ${group.join(', ')}`);
        bytesFetched += b.length;
        parents.get(part[j])!.state = unpackState(b);
        await slicer.tick();
      }
    }
  }

  const { machine, encode, partitions } = ctx;
  const invariants = Object.entries(machine.invariants);
  const words = new Words();
  const fp = new Int32Array(2);
  const out = Array.from({ length: partitions }, () => new Outbox());
  const violations: FoundViolation[] = [];
  const cover: Record<string, number> = {};
  const front = new Map<number, Buffer[]>();
  let transitions = 0;
  let depthCut = false;
  const expand = level < ctx.maxDepth;

  for (const o of fresh) {
    await slicer.tick();
    const hi = cw[o];
    const lo = cw[o + 1];
    const via = cw[o + 4];
    // Rebuild the state from its parent, and check that it is the state that was sent.
    let s: unknown;
    if (via < 0) s = ctx.inits[-1 - via];
    else {
      const parent = parents.get(`${cw[o + 2]}:${cw[o + 3]}`)!;
      parent.enabled ??= machine.actions(parent.state);
      s = machine.next(parent.state, parent.enabled[via]);
    }
    encode(s, words);
    fingerprint(words.buf, words.length, fp);
    if (fp[0] !== hi || fp[1] !== lo) throw new Error(`distributed BFS: state ${fpHex(hi, lo)} rebuilt from its parent has fingerprint ${fpHex(fp[0], fp[1])}: the spec's init, actions and next must be deterministic functions of the state`);

    let order = 0;
    for (const [name, inv] of invariants) {
      const verdict = inv(s);
      if (verdict !== true) violations.push({ property: name, message: verdict, depth: level, fp: fpHex(hi, lo), order });
      order++;
    }
    const enabled = machine.actions(s);
    checkEnabled(enabled);
    if (enabled.length === 0) {
      if (ctx.checkDeadlock && !machine.mayStop!(s)) violations.push({ property: 'deadlock', message: 'no action is enabled in a state that may not be final', depth: level, fp: fpHex(hi, lo), order });
      continue;
    }
    if (!expand) {
      depthCut = true;
      continue;
    }
    for (const a of enabled) {
      const paren = a.label.indexOf('(');
      const family = paren < 0 ? a.label : a.label.slice(0, paren);
      cover[family] = (cover[family] ?? 0) + 1;
    }
    for (let j = 0; j < enabled.length; j++) {
      transitions++;
      const t = machine.next(s, enabled[j]);
      encode(t, words);
      fingerprint(words.buf, words.length, fp);
      out[owner(fp[0], partitions)].add(fp[0], fp[1], hi, lo, j);
    }
    const q = owner(hi, partitions);
    let stored = front.get(q);
    if (!stored) front.set(q, (stored = []));
    stored.push(fpKey(hi, lo), packState(s));
  }

  // Commit: only while the claim is still ours, the task not already done and the run alive.
  // Only the claim is watched: other partitions commit to the same level's report meanwhile
  // (a run removed meanwhile loses the claim key too).
  const [, [, held], [, done], [, alive]] = (await redis.pipeline().watch(k.claim(level, g)).get(k.claim(level, g)).hexists(k.report(level), String(g)).exists(k.alive).exec()) as [unknown, [null, string | null], [null, number], [null, number]];
  if (held !== mine || done === 1 || alive === 0) {
    await redis.unwatch();
    return NONE;
  }
  const tx = redis.multi();
  const links = new Map<number, Buffer[]>();
  for (const o of fresh) {
    const q = owner(cw[o], partitions);
    let list = links.get(q);
    if (!list) links.set(q, (list = []));
    list.push(fpKey(cw[o], cw[o + 1]), packLink(cw[o + 2], cw[o + 3], cw[o + 4]));
  }
  for (const [q, list] of links) for (let i = 0; i < list.length; i += 2 * CHUNK) tx.hset(k.seen(q), ...list.slice(i, i + 2 * CHUNK));
  let bytesSent = 0;
  for (const [q, list] of front) {
    for (const b of list) bytesSent += b.length;
    for (let i = 0; i < list.length; i += 2 * CHUNK) tx.hset(k.front(level, q), ...list.slice(i, i + 2 * CHUNK));
  }
  let sent = 0;
  const to: [number, number][] = [];
  out.forEach((o, q) => {
    if (o.records.length === 0) return;
    const buf = o.records.pack();
    bytesSent += buf.length;
    sent += o.records.count;
    to.push([q, o.records.count]);
    tx.rpush(k.inbox(level + 1, q), buf);
  });
  if (violations.length > 0) tx.rpush(k.violations(level), ...violations.map((v) => JSON.stringify(v)));
  const report: TaskReport = { states: fresh.length, transitions, sent, bytesSent, bytesFetched, depthCut, cover, to, worker: workerId };
  tx.hset(k.report(level), String(g), JSON.stringify(report));
  tx.rpush(k.tick, '1');
  const result = await tx.exec();
  if (result === null) return NONE;
  const failed = result.find(([e]) => e !== null);
  if (failed) throw failed[0];
  return { committed: true, newStates: fresh.length, transitions, bytesSent };
}

function fpOfKey(key: string): [number, number] {
  const colon = key.indexOf(':');
  return [Number(key.slice(0, colon)), Number(key.slice(colon + 1))];
}

function fpKeyOf(key: string): Buffer {
  return fpKey(...fpOfKey(key));
}
