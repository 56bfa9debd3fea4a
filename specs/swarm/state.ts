// The swarm machine's state, its messages and its actions, in one place, with the one copy
// next() makes (specs/kit/state.ts: copy what steps change in place, share the rest).

import type { Faults } from '../kit/faults.ts';
import type { StepAction } from '../kit/table.ts';
import { putList, putString } from '../kit/words.ts';
import type { Mon } from '../kit/object-ghost.ts';

export type Op =
  | { f: 'write'; v: number } // Safe-Guess WRITE of the value with write id v
  | { f: 'read' } // Safe-Guess READ
  | { f: 'mread' } // M.READ (App. A)
  | { f: 'mwrite'; v: number } // M.WRITE of a packed tuple
  | { f: 'trylock'; c: number; mode: number }; // TSL[0].TRYLOCK((c, 1), mode) (App. B)

export interface SwarmConfig {
  n: number;
  /** Memory-node crashes allowed (f < n/2). */
  f: number;
  /** Client crashes allowed. */
  clientCrashes: number;
  scripts: Op[][];
  /** guessTs picks a clock in (last, cmax] (W5). */
  cmax: number;
  /** Optional, per process: the only clocks its guesses may take (still above its last). */
  guesses?: number[][];
  /** Apply a request and deliver its response as one step. */
  fused: boolean;
  /**
   * With `fused`: M.READ's per-MN reads still answer in a step of their own, so a response
   * can arrive after later writes and acks of its process (message reordering at the
   * cache, App. A [update-cache-r]); writes and CASes stay fused.
   */
  splitReads?: boolean;
  lock: 'cas' | 'abstract';
  /**
   * 'keep': requests and responses left over when an M operation or a TRYLOCK returns stay
   * in flight (the model). 'drop': they are delayed for ever, an under-approximation (every
   * trace is still a real prefix) that keeps the n=3 Safe-Guess configs small.
   */
  late: 'keep' | 'drop';
  /**
   * 'quorum': M is App. A's construction over n fallible max registers. 'spec': M is its
   * specification (App. A, f.298-316) as an object: a READ returns, at any time, ⊥₀ or any
   * invoked value at least every value of an M operation completed before it was invoked.
   * The maxreg-* configs check that the construction stays within that specification.
   */
  m: 'quorum' | 'spec';
}

// ---- messages: tuples of small integers, never changed once sent (kit/network.ts) ----
// `slot` is 0 while the operation that sent it waits for it, -1 once it returned (orphan).

export const MSG_READ = 0;
export const MSG_WRITE = 1;
export const MSG_CAS = 2;
export type ReadReq = readonly [p: number, mn: number, kind: 0, slot: number];
export type WriteReq = readonly [p: number, mn: number, kind: 1, v: number];
export type CasReq = readonly [p: number, mn: number, kind: 2, slot: number, q: number, expected: number, nw: number];
export type ReadRsp = readonly [p: number, mn: number, kind: 0, slot: number, v: number];
export type WriteAck = readonly [p: number, mn: number, kind: 1, v: number];
export type CasRsp = readonly [p: number, mn: number, kind: 2, slot: number, prev: number, expected: number];
export type Req = ReadReq | WriteReq | CasReq;
export type Rsp = ReadRsp | WriteAck | CasRsp;

// ---- the processes ----

/** An M.READ in progress (App. A READ): phase 0 collecting a majority, 1 writing back. */
export interface MRead {
  ph: number;
  got: number; // bitmask of MNs whose read responded
  v: number; // the value being written back
  frW: number; // ghost floors for MR-WR / MR-RR, fixed at invocation (§6.1 incremental form)
  frR: number;
  snap: number; // max(cache) at invocation (M19 only)
  mx: number; // max of this read's own responses (N5 only)
}

export interface LockFrame {
  q: number; // which TSL
  w: number; // own lock word (ts, mode)
  rd: number[]; // T4 read[c]
  dn: number; // bitmask: the loop for object c exited (T9)
  abs: boolean; // the abstract lock: the result is an action
}

export type WriteFrame = { k: 'W'; v: number; w: number; st: 'W6' | 'W10' | 'W11'; m: number; fl: number; wts: number };
export type ReadFrame = { k: 'R'; seen: number[]; it: number; st: 'R12' | 'R13' | 'R16'; m: number };
export type OpFrame =
  | WriteFrame
  | ReadFrame
  | { k: 'MR'; st: number }
  | { k: 'MW'; v: number; st: number }
  | { k: 'TL'; w: number; st: number };

export interface Proc {
  pc: number; // next script entry
  cache: number[]; // App. A cache[1..n], lower bounds of the MNs' registers (replaced, never changed in place)
  lastC: number; // highest clock this process used (guesses and W11): Assumption 1
  lastG: number; // highest clock guessed (N7 only)
  op: OpFrame | null;
  mr: MRead | null;
  mrRes: number; // result of the finished M.READ, -1 none
  mw: number; // value of the foreground M.WRITE in progress, -1 none
  mwDone: boolean;
  bg: number[]; // background M.WRITEs (W8, R17)
  lk: LockFrame | null;
  lkRes: number; // -1 none, 0 False, 1 True
  last: number; // value the last READ returned (for the history observer)
  hist?: number[]; // HAZARD only: every value this process's READs returned
}

export interface Ghost {
  cR: number; // max value of completed M reads
  cW: number; // max value of completed M writes
  wInv: number[] | null; // values of invoked M.WRITEs (MR-Valid; max-register layer only)
  tlInv: number[][]; // per lock: lock words (ts, mode) invoked (both replaced, never changed in place)
  tlTrue: number[][]; // per lock: lock words that returned True
  lin: Mon | null; // SG-Lin (kit/object-ghost.ts, the register kept by client)
  rew: number[]; // guessed timestamps of writes that executed W11
  dbl: number[]; // timestamps read in two sequential iterations of one READ (SG-C3)
  doneTs: number; // max ts(w) (Definition C.1) over completed WRITEs
}

export interface State {
  regs: number[]; // fallible max register of each MN (A1)
  mns: Faults; // memory-node crashes (kit/faults.ts; replaced, never changed in place)
  locks: number[][]; // locks[q][c]: CAS object c of TSL[q] (T1)
  procs: Proc[];
  clients: Faults; // client crashes
  reqs: Req[]; // in flight, a sorted bag (kit/network.ts; replaced, never changed in place: sent, taken)
  rsps: Rsp[];
  g: Ghost;
  /**
   * Transition properties that failed on the way here, [property, first message], sorted.
   * The search goes on past them, so that a run checking some properties only (SG-Lin
   * alone, say) is not cut short by another's failure.
   */
  viol: [string, string][];
}

export type Step =
  | 'invoke' | 'M.READ-returns' | 'M.WRITE-returns' | 'M.WRITE-background-returns' | 'TRYLOCK-returns'
  | 'apply' | 'deliver' | 'crashMN' | 'crashClient';

export interface SwarmAction extends StepAction {
  step: Step;
  p: number; // the process (-1 for an MN crash)
  x: number; // guess clock, M value, lock result, or MN
  msg?: Req | Rsp;
}

// Field by field rather than by spread: the copy runs on every step.
function copyFrame(o: OpFrame): OpFrame {
  switch (o.k) {
    case 'W': return { k: 'W', v: o.v, w: o.w, st: o.st, m: o.m, fl: o.fl, wts: o.wts };
    case 'R': return { k: 'R', seen: o.seen.slice(), it: o.it, st: o.st, m: o.m };
    case 'MR': return { k: 'MR', st: o.st };
    case 'MW': return { k: 'MW', v: o.v, st: o.st };
    case 'TL': return { k: 'TL', w: o.w, st: o.st };
  }
}

const copyMRead = (r: MRead): MRead => ({ ph: r.ph, got: r.got, v: r.v, frW: r.frW, frR: r.frR, snap: r.snap, mx: r.mx });
const copyLock = (l: LockFrame): LockFrame => ({ q: l.q, w: l.w, rd: l.rd.slice(), dn: l.dn, abs: l.abs });

function copyProc(pr: Proc): Proc {
  const c: Proc = {
    pc: pr.pc, cache: pr.cache, lastC: pr.lastC, lastG: pr.lastG, op: pr.op && copyFrame(pr.op),
    mr: pr.mr && copyMRead(pr.mr), mrRes: pr.mrRes, mw: pr.mw, mwDone: pr.mwDone, bg: pr.bg,
    lk: pr.lk && copyLock(pr.lk), lkRes: pr.lkRes, last: pr.last,
  };
  if (pr.hist !== undefined) c.hist = pr.hist;
  return c;
}

const copyGhost = (g: Ghost): Ghost => ({
  cR: g.cR, cW: g.cW, wInv: g.wInv, tlInv: g.tlInv, tlTrue: g.tlTrue, lin: g.lin, rew: g.rew, dbl: g.dbl, doneTs: g.doneTs,
});

/**
 * The one copy next() makes, copy-on-write by the step: a step changes only its own
 * process (`a.p`; none for an MN crash), and only `apply` changes the MNs' registers and
 * CAS objects, so the other processes and, but for `apply`, the registers and locks are
 * shared. The network, a process's cache, the ghost's lists and sorted sets are replaced,
 * never changed in place (kit/network.ts `sent`/`taken`, kit/state.ts `withAt`), so they
 * are shared too: a step that sends nothing copies no message list.
 */
export function copy(s: State, a: SwarmAction): State {
  let procs = s.procs;
  if (a.p >= 0) {
    procs = s.procs.slice();
    procs[a.p] = copyProc(s.procs[a.p]);
  }
  const applies = a.step === 'apply';
  return {
    regs: applies ? s.regs.slice() : s.regs,
    mns: s.mns,
    locks: applies ? s.locks.map((l) => l.slice()) : s.locks,
    procs,
    clients: s.clients,
    reqs: s.reqs,
    rsps: s.rsps,
    g: copyGhost(s.g),
    viol: s.viol,
  };
}

// ---- the state as words (Machine.encode): every field, in a fixed order ----
// Fixed-length parts (regs, cache, locks, seen, rd: their lengths follow from the config)
// are written bare; variable ones (sets, the network, the ghost's configurations, the
// violations) with their length first, so that the words are a prefix code: two states get
// the same words exactly when they are equal as plain data, as with the engine's generic
// encoding (the same states, counts and counterexamples), at a fraction of its cost.
// Words past the end of `out` are dropped by the typed array; the length tells the engine
// to grow it and retry.

const ST: Record<string, number> = { W6: 0, W10: 1, W11: 2, R12: 0, R13: 1, R16: 2 };
const KIND = { W: 1, R: 2, MR: 3, MW: 4, TL: 5 } as const;

function putProc(out: Int32Array, n: number, pr: Proc): number {
  out[n++] = pr.pc;
  for (let i = 0; i < pr.cache.length; i++) out[n++] = pr.cache[i];
  out[n++] = pr.lastC;
  out[n++] = pr.lastG;
  const op = pr.op;
  if (op === null) out[n++] = 0;
  else {
    out[n++] = KIND[op.k];
    switch (op.k) {
      case 'W':
        out[n++] = op.v; out[n++] = op.w; out[n++] = ST[op.st]; out[n++] = op.m; out[n++] = op.fl; out[n++] = op.wts;
        break;
      case 'R':
        for (let i = 0; i < op.seen.length; i++) out[n++] = op.seen[i];
        out[n++] = op.it; out[n++] = ST[op.st]; out[n++] = op.m;
        break;
      case 'MR': case 'TL':
        if (op.k === 'TL') out[n++] = op.w;
        out[n++] = op.st;
        break;
      case 'MW':
        out[n++] = op.v; out[n++] = op.st;
        break;
    }
  }
  const mr = pr.mr;
  if (mr === null) out[n++] = 0;
  else {
    out[n++] = 1;
    out[n++] = mr.ph; out[n++] = mr.got; out[n++] = mr.v; out[n++] = mr.frW; out[n++] = mr.frR; out[n++] = mr.snap; out[n++] = mr.mx;
  }
  out[n++] = pr.mrRes;
  out[n++] = pr.mw;
  out[n++] = pr.mwDone ? 1 : 0;
  n = putList(out, n, pr.bg);
  const lk = pr.lk;
  if (lk === null) out[n++] = 0;
  else {
    out[n++] = 1;
    out[n++] = lk.q; out[n++] = lk.w;
    for (let i = 0; i < lk.rd.length; i++) out[n++] = lk.rd[i];
    out[n++] = lk.dn; out[n++] = lk.abs ? 1 : 0;
  }
  out[n++] = pr.lkRes;
  out[n++] = pr.last;
  if (pr.hist === undefined) out[n++] = -1;
  else n = putList(out, n, pr.hist);
  return n;
}

/** Machine.encode: the words of s (see above); -1 when `out` is too short. */
export function encode(s: State, out: Int32Array): number {
  let n = 0;
  for (let i = 0; i < s.regs.length; i++) out[n++] = s.regs[i];
  for (let i = 0; i < 5; i++) out[n++] = s.mns[i];
  for (const l of s.locks) for (let i = 0; i < l.length; i++) out[n++] = l[i];
  for (const pr of s.procs) n = putProc(out, n, pr);
  for (let i = 0; i < 5; i++) out[n++] = s.clients[i];
  out[n++] = s.reqs.length;
  for (const m of s.reqs) n = putList(out, n, m);
  out[n++] = s.rsps.length;
  for (const m of s.rsps) n = putList(out, n, m);
  const g = s.g;
  out[n++] = g.cR;
  out[n++] = g.cW;
  if (g.wInv === null) out[n++] = -1;
  else n = putList(out, n, g.wInv);
  for (const x of g.tlInv) n = putList(out, n, x);
  for (const x of g.tlTrue) n = putList(out, n, x);
  if (g.lin === null) out[n++] = -1;
  else {
    // never `bad`: a return with no linearization left is recorded in viol, the ghost kept
    out[n++] = g.lin.ops.length;
    for (const o of g.lin.ops) {
      out[n++] = o.c; out[n++] = o.v; out[n++] = o.x ? 1 : 0; // f and k follow from v (0: a read)
    }
    out[n++] = g.lin.cfgs.length;
    for (const c of g.lin.cfgs) n = putList(out, n, c);
  }
  n = putList(out, n, g.rew);
  n = putList(out, n, g.dbl);
  out[n++] = g.doneTs;
  out[n++] = s.viol.length;
  for (const [prop, msg] of s.viol) n = putString(out, putString(out, n, prop), msg);
  return n <= out.length ? n : -1;
}
