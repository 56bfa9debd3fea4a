// One task of a distributed BFS, run by a worker: level l of partition p. It reads the
// states sent to p for level l, keeps those p has not stored before (one per fingerprint,
// with the smallest parent link, so that the choice does not depend on arrival order),
// checks the invariants on them, expands them, and sends each successor to the partition
// that owns its fingerprint. Everything it writes is written in one MULTI/EXEC at the end,
// under WATCH of its claim: a task that dies, or whose lease passed to another worker,
// commits nothing, so a retried task never counts a state twice.

import type { Redis } from 'ioredis';
import { fingerprint, makeEncoder, Words } from '../explore/encode.ts';
import type { Action, Machine } from '../explore/types.ts';
import { keys } from './redis.ts';
import { compareFp, fpHex, fpKey, owner, packBatch, packLink, unpackBatch, type FoundViolation } from './run.ts';

/** What a worker builds once per run: the prepared machine and its encoder. */
export interface BfsContext {
  machine: Machine<unknown, Action>;
  encode: (s: unknown, out: Words) => void;
  partitions: number;
  maxDepth: number;
  checkDeadlock: boolean;
}

export function bfsContext(machine: Machine<unknown, Action>, partitions: number, maxDepth: number | undefined, deadlock: boolean | undefined): BfsContext {
  return { machine, encode: makeEncoder(machine), partitions, maxDepth: maxDepth ?? Infinity, checkDeadlock: deadlock !== false && machine.mayStop !== undefined };
}

/** States expanded between two yields to the event loop (BullMQ renews the job's lock there). */
const SLICE = 512;
/** Fields per HMGET / HSET command. */
const CHUNK = 4096;

interface Candidate {
  hi: number;
  lo: number;
  phi: number;
  plo: number;
  via: number;
  state: unknown;
}

/** Successors bound for one partition, one per fingerprint (the smallest parent link kept). */
class Outbox {
  readonly index = new Map<string, number>();
  fp: number[] = [];
  parent: number[] = [];
  via: number[] = [];
  states: unknown[] = [];

  add(hi: number, lo: number, phi: number, plo: number, via: number, state: unknown): void {
    const key = `${hi}:${lo}`;
    const at = this.index.get(key);
    if (at === undefined) {
      this.index.set(key, this.states.length);
      this.fp.push(hi, lo);
      this.parent.push(phi, plo);
      this.via.push(via);
      this.states.push(state);
      return;
    }
    const c = compareFp(phi, plo, this.parent[2 * at], this.parent[2 * at + 1]) || via - this.via[at];
    if (c < 0) {
      this.parent[2 * at] = phi;
      this.parent[2 * at + 1] = plo;
      this.via[at] = via;
      this.states[at] = state;
    }
  }

  pack(): Buffer {
    return packBatch({ fp: Int32Array.from(this.fp), parent: Int32Array.from(this.parent), via: Int32Array.from(this.via), states: this.states });
  }
}

export interface TaskOutcome {
  committed: boolean;
  newStates: number;
  transitions: number;
  bytesSent: number;
}

export async function runLevelTask(redis: Redis, runId: string, ctx: BfsContext, level: number, p: number, token: string, workerId: string): Promise<TaskOutcome> {
  const k = keys(runId);
  const none: TaskOutcome = { committed: false, newStates: 0, transitions: 0, bytesSent: 0 };
  if ((await redis.sismember(k.done(level), String(p))) === 1) return none;
  await redis.set(k.claim(level, p), token);

  // The candidates for level l, one per fingerprint.
  const batches = await redis.lrangeBuffer(k.inbox(level, p), 0, -1);
  const byFp = new Map<string, Candidate>();
  for (const buf of batches) {
    const b = unpackBatch(buf);
    for (let i = 0; i < b.states.length; i++) {
      const c: Candidate = { hi: b.fp[2 * i], lo: b.fp[2 * i + 1], phi: b.parent[2 * i], plo: b.parent[2 * i + 1], via: b.via[i], state: b.states[i] };
      const key = `${c.hi}:${c.lo}`;
      const known = byFp.get(key);
      if (known === undefined || (compareFp(c.phi, c.plo, known.phi, known.plo) || c.via - known.via) < 0) byFp.set(key, c);
    }
  }
  const candidates = [...byFp.values()];

  // Those partition p has not stored at an earlier level.
  const fresh: Candidate[] = [];
  for (let i = 0; i < candidates.length; i += CHUNK) {
    const part = candidates.slice(i, i + CHUNK);
    const known = await redis.hmgetBuffer(k.seen(p), ...part.map((c) => fpKey(c.hi, c.lo)));
    part.forEach((c, j) => {
      if (known[j] === null) fresh.push(c);
    });
  }

  const { machine, encode, partitions } = ctx;
  const invariants = Object.entries(machine.invariants);
  const words = new Words();
  const fp = new Int32Array(2);
  const out = Array.from({ length: partitions }, () => new Outbox());
  const violations: FoundViolation[] = [];
  const cover = new Map<string, number>();
  let transitions = 0;
  let depthCut = false;
  const expand = level < ctx.maxDepth;

  for (let i = 0; i < fresh.length; i++) {
    if (i % SLICE === SLICE - 1) await new Promise((r) => setImmediate(r));
    const c = fresh[i];
    const s = c.state;
    let order = 0;
    for (const [name, inv] of invariants) {
      const verdict = inv(s);
      if (verdict !== true) violations.push({ property: name, message: verdict, depth: level, fp: fpHex(c.hi, c.lo), order });
      order++;
    }
    const enabled = machine.actions(s);
    if (enabled.length === 0) {
      if (ctx.checkDeadlock && !machine.mayStop!(s)) violations.push({ property: 'deadlock', message: 'no action is enabled in a state that may not be final', depth: level, fp: fpHex(c.hi, c.lo), order });
      continue;
    }
    if (!expand) {
      depthCut = true;
      continue;
    }
    for (const a of enabled) {
      const paren = a.label.indexOf('(');
      const family = paren < 0 ? a.label : a.label.slice(0, paren);
      cover.set(family, (cover.get(family) ?? 0) + 1);
    }
    for (let j = 0; j < enabled.length; j++) {
      transitions++;
      const t = machine.next(s, enabled[j]);
      encode(t, words);
      fingerprint(words.buf, words.length, fp);
      out[owner(fp[0], partitions)].add(fp[0], fp[1], c.hi, c.lo, j, t);
    }
  }

  // Commit: only while the claim is still ours and the task not already done.
  // Only the claim is watched: other partitions commit to the same level's done set meanwhile.
  await redis.watch(k.claim(level, p));
  const [claim, done] = await Promise.all([redis.get(k.claim(level, p)), redis.sismember(k.done(level), String(p))]);
  if (claim !== token || done === 1) {
    await redis.unwatch();
    return none;
  }
  const tx = redis.multi();
  for (let i = 0; i < fresh.length; i += CHUNK) {
    const args: Buffer[] = [];
    for (const c of fresh.slice(i, i + CHUNK)) args.push(fpKey(c.hi, c.lo), packLink(c.phi, c.plo, c.via));
    tx.hset(k.seen(p), ...args);
  }
  let bytesSent = 0;
  let sent = 0;
  out.forEach((o, q) => {
    if (o.states.length === 0) return;
    const buf = o.pack();
    bytesSent += buf.length;
    sent += o.states.length;
    tx.rpush(k.inbox(level + 1, q), buf);
  });
  tx.hincrby(k.stat, 'states', fresh.length);
  tx.hincrby(k.stat, `states:${level}`, fresh.length);
  tx.hincrby(k.stat, 'transitions', transitions);
  tx.hincrby(k.stat, 'bytes', bytesSent);
  tx.hincrby(k.stat, 'sent', sent);
  tx.hincrby(k.stat, `sent:${level}`, sent);
  if (depthCut) tx.hset(k.stat, 'depthCut', '1');
  for (const [family, n] of cover) tx.hincrby(k.cover, family, n);
  if (violations.length > 0) tx.rpush(k.violations(level), ...violations.map((v) => JSON.stringify(v)));
  tx.sadd(k.workers, workerId);
  tx.sadd(k.done(level), String(p));
  tx.rpush(k.tick, '1');
  const result = await tx.exec();
  if (result === null) return none;
  const failed = result.find(([e]) => e !== null);
  if (failed) throw failed[0];
  return { committed: true, newStates: fresh.length, transitions, bytesSent };
}
