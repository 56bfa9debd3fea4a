// SWARM's replication (SOSP'24, ../shared/papers/swarm.txt) as one layered state machine.
// The layers are the paper's, and each is exercised on its own or under the one above it:
//   TSL  the timestamp lock built from n fallible CAS objects (§3.3, App. B, T1-T12),
//        or its abstract specification (f.67) as an atomic nondeterministic object;
//   M    the reliable max register built from n fallible max registers (App. A, A1-A8),
//        with the per-process cache shared by all of a process's M operations;
//   SG   Safe-Guess WRITE (W5-W11) and READ (R11-R21) on top of M and TSL[p] (§3.2).
// A process runs a script of operations of any layer: `trylock` scripts give the lock unit
// configs, `mread`/`mwrite` the max-register configs, `read`/`write` the Safe-Guess ones;
// the code of a lower layer is the same whichever layer calls it.
// Line numbers are those the extraction rebuilt (../shared/protocols/swarm-safeguess.md
// §3-5): W/R main-text lines, T the TRYLOCK listing, A the Appendix-A max register.
//
// Every per-MN request and response is its own action (§8.2), unless `fused`, where a
// request's application and its response's delivery are one step. Local continuations
// (quorum reached, T10-T12, W7, R14-R21) are fused into the delivery that enables them.

import type { Action, Check, Machine, ObservedEvent } from '../../checkers/explore/types.ts';
import { register } from '../../checkers/lin/models/register.ts';
import { linCrash, linInit, linInvoke, linReturn, type LinGhost } from './monitor.ts';
import {
  BOTTOM, GUESSED, NOLOCK, READ, VERIFIED, WRITE, addSorted, clockOf, flagOf, lockMode, lockTs, lockWord,
  popcount, procName, showLock, showTs, showTuple, ts, tsOfTuple, tuple, valOf, verified,
} from './tuple.ts';

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

/** An M.READ in progress (App. A READ): phase 0 collecting a majority, 1 writing back. */
interface MRead {
  ph: number;
  got: number; // bitmask of MNs whose read responded
  v: number; // the value being written back
  frW: number; // ghost floors for MR-WR / MR-RR, fixed at invocation (§6.1 incremental form)
  frR: number;
  snap: number; // max(cache) at invocation (M19 only)
  mx: number; // max of this read's own responses (N5 only)
}

interface LockFrame {
  q: number; // which TSL
  w: number; // own lock word (ts, mode)
  rd: number[]; // T4 read[c]
  dn: number; // bitmask: the loop for object c exited (T9)
  abs: boolean; // the abstract lock: the result is an action
}

type OpFrame =
  | { k: 'W'; v: number; w: number; st: 'W6' | 'W10' | 'W11'; m: number; fl: number; wts: number }
  | { k: 'R'; seen: number[]; it: number; st: 'R12' | 'R13' | 'R16'; m: number }
  | { k: 'MR'; st: number }
  | { k: 'MW'; v: number; st: number }
  | { k: 'TL'; w: number; st: number };

export interface Proc {
  crashed: boolean;
  pc: number; // next script entry
  cache: number[]; // App. A cache[1..n], lower bounds of the MNs' registers
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
  tlInv: number[][]; // per lock: lock words (ts, mode) invoked
  tlTrue: number[][]; // per lock: lock words that returned True
  lin: LinGhost | null;
  rew: number[]; // guessed timestamps of writes that executed W11
  dbl: number[]; // timestamps read in two sequential iterations of one READ (SG-C3)
  doneTs: number; // max ts(w) (Definition C.1) over completed WRITEs
}

export interface State {
  regs: number[]; // fallible max register of each MN (A1)
  alive: boolean[];
  locks: number[][]; // locks[q][c]: CAS object c of TSL[q] (T1)
  procs: Proc[];
  /** In flight, sorted. [p, mn, 0, slot] MR; [p, mn, 1, v] MW; [p, mn, 2, slot, q, expected, new] CAS. */
  reqs: number[][];
  /** In flight, sorted. [p, mn, 0, slot, v] MR; [p, mn, 1, v] MW ack; [p, mn, 2, slot, prev, expected] CAS. */
  rsps: number[][];
  mnCrashes: number;
  clCrashes: number;
  g: Ghost;
  /**
   * Transition properties that failed on the way here, [property, first message], sorted.
   * The search goes on past them, so that a run checking some properties only (SG-Lin
   * alone, say) is not cut short by another's failure.
   */
  viol: [string, string][];
}

export interface SwarmAction extends Action {
  t: 'inv' | 'apply' | 'dlv' | 'dec' | 'mret' | 'mwret' | 'bgret' | 'crashMN' | 'crashClient';
  p: number;
  x: number; // guess clock, decision, or MN
  msg?: number[];
}

const cmpArr = (a: number[], b: number[]): number => {
  for (let i = 0; i < a.length && i < b.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
};

const cloneFrame = (o: OpFrame | null): OpFrame | null => (o === null ? null : o.k === 'R' ? { ...o, seen: o.seen.slice() } : { ...o });

/** A copy of everything next() may change in place (the rest is replaced, never mutated). */
function clone(s: State): State {
  return {
    regs: s.regs.slice(),
    alive: s.alive.slice(),
    locks: s.locks.map((l) => l.slice()),
    procs: s.procs.map((pr) => ({
      ...pr, cache: pr.cache.slice(), op: cloneFrame(pr.op), mr: pr.mr && { ...pr.mr },
      lk: pr.lk && { ...pr.lk, rd: pr.lk.rd.slice() },
    })),
    reqs: s.reqs.map((m) => m.slice()),
    rsps: s.rsps.map((m) => m.slice()),
    mnCrashes: s.mnCrashes,
    clCrashes: s.clCrashes,
    g: { ...s.g, tlInv: s.g.tlInv.slice(), tlTrue: s.g.tlTrue.slice() },
    viol: s.viol,
  };
}

const removeOne = (xs: number[][], m: number[]): number[][] => {
  const i = xs.findIndex((y) => cmpArr(y, m) === 0);
  return [...xs.slice(0, i), ...xs.slice(i + 1)];
};

export function buildMachine(cfg: SwarmConfig, variant?: string): Machine<State, SwarmAction> {
  const mutant = variant ?? '';
  const { n } = cfg;
  const maj = Math.floor(n / 2) + 1;
  // M16: M's quorums below a majority (one MN); M15: TRYLOCK waits for one object.
  const qM = mutant === 'M16' ? 1 : maj;
  const qL = mutant === 'M15' ? 1 : maj;
  const nprocs = cfg.scripts.length;
  const writers = cfg.scripts.filter((s) => s.some((o) => o.f === 'write')).length;
  const sgLayer = cfg.scripts.some((s) => s.some((o) => o.f === 'write' || o.f === 'read'));
  const mLayer = cfg.m === 'spec' || cfg.scripts.some((s) => s.some((o) => o.f === 'mwrite'));
  const mSpec = cfg.m === 'spec';
  const tidOfProc = (p: number) => p + 1; // tid 0 is ⊥₀'s pseudo-writer
  const nLocks = nprocs + 1;
  // Lemma C.5: a READ returns within 2P+1 iterations, P the writers whose tuples reach M.
  const iterBound = 2 * writers + 1;

  const fail = (d: State, prop: string, msg: string) => {
    if (d.viol.some((v) => v[0] === prop)) return;
    d.viol = [...d.viol, [prop, msg] as [string, string]].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  };
  const sortNet = (d: State) => {
    d.reqs.sort(cmpArr);
    d.rsps.sort(cmpArr);
  };
  const quorumHas = (pr: Proc, v: number) => {
    let c = 0;
    for (let i = 0; i < n; i++) if (pr.cache[i] >= v) c++;
    return c >= qM;
  };

  // ---- M: the reliable max register (App. A) ----

  /** A4-A8 inner_write(v): write to every MN whose cached bound is below v. */
  function innerWrite(d: State, p: number, v: number) {
    const pr = d.procs[p];
    for (let i = 0; i < n; i++) {
      if (pr.cache[i] >= v) continue; // A6
      if (d.alive[i]) d.reqs.push([p, i, 1, v]); // A8; a request to a crashed MN is lost
      // M18: the cache records the write when it is issued, not on its ack ([update-cache-w])
      if (mutant === 'M18') pr.cache[i] = Math.max(pr.cache[i], v);
    }
  }
  function startMWrite(d: State, p: number, v: number, background: boolean) {
    const pr = d.procs[p];
    if (d.g.wInv && (mSpec || !background)) d.g.wInv = addSorted(d.g.wInv, v);
    if (!mSpec) innerWrite(d, p, v);
    if (background) pr.bg = addSorted(pr.bg, v);
    else pr.mw = v;
  }
  /** [read-for-start]: read every MN asynchronously. */
  function startMRead(d: State, p: number) {
    const pr = d.procs[p];
    pr.mr = { ph: 0, got: 0, v: -1, frW: d.g.cW, frR: d.g.cR, snap: Math.max(...pr.cache), mx: BOTTOM };
    if (mSpec) return;
    for (let i = 0; i < n; i++) if (d.alive[i]) d.reqs.push([p, i, 0, 0]);
  }
  /** Responses to a finished M.READ or TRYLOCK still update the cache but count for nothing. */
  function orphan(d: State, p: number, kind: number) {
    if (cfg.late === 'drop') {
      d.reqs = d.reqs.filter((m) => m[0] !== p || m[2] !== kind);
      d.rsps = d.rsps.filter((m) => m[0] !== p || m[2] !== kind);
      return;
    }
    for (const m of d.reqs) if (m[0] === p && m[2] === kind) m[3] = -1;
    for (const m of d.rsps) if (m[0] === p && m[2] === kind) m[3] = -1;
  }
  function finishMRead(d: State, p: number, v: number) {
    const pr = d.procs[p];
    const r = pr.mr!;
    if (v < r.frW) fail(d, 'MR-WR', `M.READ by ${procName(p)} returned ${showTuple(v)} below the completed M.WRITE ${showTuple(r.frW)}`);
    if (v < r.frR) fail(d, 'MR-RR', `M.READ by ${procName(p)} returned ${showTuple(v)} below an earlier M.READ's ${showTuple(r.frR)}`);
    if (d.g.wInv && v !== BOTTOM && !d.g.wInv.includes(v)) fail(d, 'MR-Valid', `M.READ returned ${showTuple(v)}, never written`);
    d.g.cR = Math.max(d.g.cR, v);
    pr.mr = null;
    pr.mrRes = v;
  }
  const mWriteDone = (d: State, p: number, v: number) => {
    d.g.cW = Math.max(d.g.cW, v);
    if (cfg.late === 'drop') {
      d.reqs = d.reqs.filter((m) => m[0] !== p || m[2] !== 1 || m[3] !== v);
      d.rsps = d.rsps.filter((m) => m[0] !== p || m[2] !== 1 || m[3] !== v);
    }
  };

  // ---- TSL: the timestamp lock (App. B) ----

  function startLock(d: State, p: number, q: number, w: number) {
    d.g.tlInv[q] = addSorted(d.g.tlInv[q], w);
    const abs = cfg.lock === 'abstract';
    d.procs[p].lk = { q, w, rd: Array(n).fill(NOLOCK), dn: 0, abs };
    if (abs) return;
    // T5-T8: one CAS loop per object, in parallel; the first CAS expects ⊥
    for (let c = 0; c < n; c++) if (d.alive[c]) d.reqs.push([p, c, 2, 0, q, NOLOCK, w]);
  }
  function finishLock(d: State, p: number, r: number) {
    const pr = d.procs[p];
    const { q, w } = pr.lk!;
    const opposite = lockWord(lockTs(w), 1 - lockMode(w));
    if (r === 0) {
      const conflict = d.g.tlInv[q].some((x) => lockTs(x) > lockTs(w) || x === opposite);
      if (!conflict) fail(d, 'TL-TrueSafety', `TSL[${q}].TRYLOCK${showLock(w)} by ${procName(p)} returned False with no conflicting call invoked`);
    } else {
      if (d.g.tlTrue[q].includes(opposite)) fail(d, 'TL-Excl', `TSL[${q}]: TRYLOCK${showLock(w)} and TRYLOCK${showLock(opposite)} both returned True`);
      d.g.tlTrue[q] = addSorted(d.g.tlTrue[q], w);
    }
    if (!pr.lk!.abs) orphan(d, p, 2); // T9: loops still running stop; sent CASes may still land
    pr.lk = null;
    pr.lkRes = r;
  }
  /** T10-T12, over every read[c] (N6: only the objects whose loop exited). */
  function lockVerdict(lk: LockFrame): number {
    const t = lockTs(lk.w);
    const opposite = lockWord(t, 1 - lockMode(lk.w));
    for (let c = 0; c < n; c++) {
      if (mutant === 'N6' && !(lk.dn & (1 << c))) continue;
      const x = lk.rd[c];
      if (x === NOLOCK) continue;
      if (mutant !== 'M14' && lockTs(x) > t) return 0; // T10 [return-1]; M14 drops the higher-ts check
      if (mutant !== 'M13' && x === opposite) return 0; // T11 [return-2]; M13 drops the opposite-mode check
    }
    return 1; // T12 [return-3]
  }
  /** What the abstract lock (f.67) may answer: True unless exclusion forbids, False only after a conflict. */
  function lockAllowed(d: State, lk: LockFrame): number[] {
    const t = lockTs(lk.w);
    const opposite = lockWord(t, 1 - lockMode(lk.w));
    const out: number[] = [];
    if (d.g.tlInv[lk.q].some((x) => lockTs(x) > t || x === opposite)) out.push(0);
    if (!d.g.tlTrue[lk.q].includes(opposite)) out.push(1);
    return out;
  }

  // ---- SG: Safe-Guess (§3.2) ----

  function retWrite(d: State, p: number, tsw: number) {
    const pr = d.procs[p];
    d.g.doneTs = Math.max(d.g.doneTs, tsw);
    if (d.g.lin) {
      const next = linReturn(d.g.lin, p, 0);
      if (!next) fail(d, 'SG-Lin', `WRITE by ${procName(p)} cannot be linearized`);
      else d.g.lin = next;
    }
    pr.op = null;
  }
  function retRead(d: State, p: number, val: number) {
    const pr = d.procs[p];
    if (d.g.lin) {
      const next = linReturn(d.g.lin, p, val);
      if (!next) fail(d, 'SG-Lin', `READ by ${procName(p)} returned ${val ? `v${val}` : '⊥'}: the register history is not linearizable`);
      else d.g.lin = next;
    }
    pr.last = val;
    if (mutant === 'HAZARD') pr.hist = [...(pr.hist ?? []), val];
    pr.op = null;
  }
  /** W11: rewrite with a timestamp above m.ts (f.58), and wait for it. */
  function rewrite(d: State, p: number, op: Extract<OpFrame, { k: 'W' }>) {
    const pr = d.procs[p];
    const tid = tidOfProc(p);
    const g = tsOfTuple(op.w);
    if (d.g.tlTrue[tid].includes(lockWord(g, READ))) fail(d, 'SG-LockRewriteExcl', `${procName(p)} rewrites ${showTs(g)} that a reader locked`);
    d.g.rew = addSorted(d.g.rew, g);
    // M7: the rewrite's timestamp is derived from the guess, not from m
    const clock = mutant === 'M7' ? clockOf(g) + 1 : clockOf(tsOfTuple(op.m)) + 1;
    pr.lastC = Math.max(pr.lastC, clock);
    op.wts = ts(clock, tid);
    startMWrite(d, p, tuple(op.wts, mutant === 'N1' ? GUESSED : VERIFIED, op.v), false); // N1: rewrite stays GUESSED
    op.st = 'W11';
  }
  /** R19-R21, after R15 did not return. */
  function endIteration(d: State, p: number, op: Extract<OpFrame, { k: 'R' }>) {
    const t = tsOfTuple(op.m) & 15;
    const prev = op.seen[t];
    // R19-R20: two different tuples from one writer: the first one's write completed (f.64).
    // M11 drops the rule; M10 returns the newer tuple's value.
    if (mutant !== 'M11' && prev !== -1 && prev !== op.m) return retRead(d, p, valOf(mutant === 'M10' ? op.m : prev));
    op.seen[t] = op.m; // R21
    op.st = 'R12';
  }

  /** Advances p's operation as far as local steps go. Returns whether anything changed. */
  function opStep(d: State, p: number): boolean {
    const pr = d.procs[p];
    const op = pr.op;
    if (!op) return false;
    switch (op.k) {
      case 'MR':
        if (op.st === 0) { startMRead(d, p); op.st = 1; return true; }
        if (pr.mrRes < 0) return false;
        pr.last = pr.mrRes;
        pr.mrRes = -1;
        pr.op = null;
        return true;
      case 'MW':
        if (op.st === 0) { startMWrite(d, p, op.v, false); op.st = 1; return true; }
        if (!pr.mwDone) return false;
        pr.mwDone = false;
        pr.op = null;
        return true;
      case 'TL':
        if (op.st === 0) { startLock(d, p, 0, op.w); op.st = 1; return true; }
        if (pr.lkRes < 0) return false;
        pr.lkRes = -1;
        pr.op = null;
        return true;
      case 'W': {
        const tid = tidOfProc(p);
        if (op.st === 'W6') {
          // N4: the W6 read starts only once the write is over
          if (mutant === 'N4' && pr.mwDone && pr.mr === null && pr.mrRes < 0 && op.m === -1) { startMRead(d, p); op.m = -2; return true; }
          if (!pr.mwDone || pr.mrRes < 0) return false;
          const m = pr.mrRes;
          pr.mrRes = -1;
          pr.mwDone = false;
          op.m = m;
          // W7: m ≤ w proves the guess fresh (N2: the artifact's m ≤ (w.ts, VERIFIED); N3: strict)
          const fast = mutant === 'N2' ? m <= verified(op.w) : mutant === 'N3' ? m < op.w : m <= op.w;
          if (fast) {
            if (tsOfTuple(op.w) <= op.fl) fail(d, 'SG-FastFresh', `${procName(p)} took the fast path with ${showTs(tsOfTuple(op.w))}, not above a completed write's ${showTs(op.fl)}`);
            startMWrite(d, p, verified(op.w), true); // W8: background VERIFIED write
            retWrite(d, p, tsOfTuple(op.w));
            return true;
          }
          if (mutant === 'M1' || mutant === 'HAZARD') { rewrite(d, p, op); return true; } // M1: retry without the lock
          // W10: lock readers out of the guessed ts (M9: one lock shared by every writer)
          startLock(d, p, mutant === 'M9' ? 0 : tid, lockWord(tsOfTuple(op.w), WRITE));
          op.st = 'W10';
          return true;
        }
        if (op.st === 'W10') {
          if (pr.lkRes < 0) return false;
          const r = pr.lkRes;
          pr.lkRes = -1;
          if (r === 1 || mutant === 'M2') { // M2: rewrite even when TRYLOCK returned False
            if (mutant === 'M6') { retWrite(d, p, tsOfTuple(op.w)); return true; } // M6: locked, but no rewrite
            rewrite(d, p, op);
            return true;
          }
          if (!d.g.dbl.includes(tsOfTuple(op.w))) fail(d, 'SG-C3', `${procName(p)}'s TRYLOCK${showTs(tsOfTuple(op.w))} returned False but no READ double-read that tuple`);
          if (mutant === 'N8') startMWrite(d, p, verified(op.w), true); // N8: background verify after False
          retWrite(d, p, tsOfTuple(op.w));
          return true;
        }
        if (!pr.mwDone) return false; // W11: WRITE returns once the rewrite is over
        pr.mwDone = false;
        retWrite(d, p, op.wts);
        return true;
      }
      case 'R': {
        if (op.st === 'R12') { // R12-R13: next iteration, M.READ
          op.it = Math.min(op.it + 1, iterBound + 1); // saturates: SG-WF-R flags anything above the bound
          startMRead(d, p);
          op.st = 'R13';
          return true;
        }
        if (op.st === 'R13') {
          if (pr.mrRes < 0) return false;
          const m = pr.mrRes;
          pr.mrRes = -1;
          op.m = m;
          // HAZARD (§7.1): the naive reader returns what one M.READ gave, as ABD does
          if (flagOf(m) === VERIFIED || mutant === 'HAZARD') { retRead(d, p, valOf(m)); return true; } // R14
          const t = tsOfTuple(m) & 15;
          const twice = op.seen[t] === m;
          if (twice) d.g.dbl = addSorted(d.g.dbl, tsOfTuple(m));
          if (twice || mutant === 'M5') { // R15 (M5: lock on the first sight)
            if (mutant === 'M3') { retRead(d, p, valOf(m)); return true; } // M3: return without locking
            startLock(d, p, mutant === 'M9' ? 0 : t, lockWord(tsOfTuple(m), READ)); // R16: the writer's lock
            op.st = 'R16';
            return true;
          }
          endIteration(d, p, op);
          return true;
        }
        if (pr.lkRes < 0) return false;
        const r = pr.lkRes;
        pr.lkRes = -1;
        if (r === 1 || mutant === 'M4') { // M4: return even when TRYLOCK returned False
          startMWrite(d, p, verified(op.m), true); // R17
          retRead(d, p, valOf(op.m)); // R18
          return true;
        }
        endIteration(d, p, op);
        return true;
      }
    }
  }

  /** Runs p's local continuations until it waits for the network (or an abstract lock). */
  function pump(d: State, p: number) {
    const pr = d.procs[p];
    for (;;) {
      let changed = false;
      if (!mSpec) changed = pumpM(d, p);
      if (pr.lk && !pr.lk.abs && popcount(pr.lk.dn) >= qL) { // T9
        finishLock(d, p, lockVerdict(pr.lk));
        changed = true;
      }
      if (opStep(d, p)) changed = true;
      if (!changed) return;
    }
  }

  /** App. A's waits: [inner-write-wait] and [read-wait], then the write-back. */
  function pumpM(d: State, p: number): boolean {
    const pr = d.procs[p];
    let changed = false;
    {
      for (const v of pr.bg) {
        if (!quorumHas(pr, v)) continue;
        pr.bg = pr.bg.filter((x) => x !== v);
        mWriteDone(d, p, v);
        changed = true;
      }
      if (pr.mw >= 0 && quorumHas(pr, pr.mw)) { // [inner-write-wait]
        mWriteDone(d, p, pr.mw);
        pr.mw = -1;
        pr.mwDone = true;
        changed = true;
      }
      const r = pr.mr;
      if (r && r.ph === 0 && popcount(r.got) >= qM) { // [read-wait]
        // [cache-max] over the whole cache (N5: own responses only; M19: the cache at invocation)
        const v = mutant === 'N5' ? r.mx : mutant === 'M19' ? r.snap : Math.max(...pr.cache);
        orphan(d, p, 0);
        if (mutant === 'M17') finishMRead(d, p, v); // M17: no write-back
        else {
          r.ph = 1;
          r.v = v;
          innerWrite(d, p, v); // [invoke-inner-write]
        }
        changed = true;
      } else if (r && r.ph === 1 && quorumHas(pr, r.v)) {
        mWriteDone(d, p, r.v);
        finishMRead(d, p, r.v);
        changed = true;
      }
    }
    return changed;
  }

  function deliver(d: State, m: number[]) {
    const [p, c, kind] = m;
    const pr = d.procs[p];
    if (kind === 0) { // [update-cache-r] (RESP-OVERWRITE: the response overwrites the cache)
      pr.cache[c] = mutant === 'RESP-OVERWRITE' ? m[4] : Math.max(pr.cache[c], m[4]);
      if (m[3] === 0 && pr.mr && pr.mr.ph === 0) {
        pr.mr.got |= 1 << c;
        pr.mr.mx = Math.max(pr.mr.mx, m[4]);
      }
    } else if (kind === 1) { // [update-cache-w]
      pr.cache[c] = Math.max(pr.cache[c], m[3]);
    } else if (m[3] === 0 && pr.lk) { // T8: the CAS returned its previous content
      const lk = pr.lk;
      const [, , , , prev, expected] = m;
      lk.rd[c] = prev;
      if (prev === expected) { // [app:split:break]
        if (mutant === 'M12') lk.rd[c] = lk.w;
        lk.dn |= 1 << c;
      } else if (mutant === 'M12' ? prev !== lk.w : prev === NOLOCK || lockTs(prev) < lockTs(lk.w)) {
        d.reqs.push([p, c, 2, 0, lk.q, prev, lk.w]); // T6 guard holds: CAS again (M12: no guard)
      } else lk.dn |= 1 << c;
    }
    pump(d, p);
  }

  function apply(d: State, m: number[]) {
    const [p, c, kind] = m;
    let rsp: number[];
    if (kind === 0) rsp = [p, c, 0, m[3], d.regs[c]];
    else if (kind === 1) {
      d.regs[c] = Math.max(d.regs[c], m[3]); // a fallible max register
      rsp = [p, c, 1, m[3]];
    } else {
      const [, , , slot, q, expected, nw] = m;
      const prev = d.locks[q][c];
      if (prev === expected) {
        if (prev !== NOLOCK && lockTs(prev) >= lockTs(nw)) fail(d, 'TL-S1', `TSL[${q}] object ${c} went from ${showLock(prev)} to ${showLock(nw)}`);
        d.locks[q][c] = nw;
      }
      rsp = [p, c, 2, slot, prev, expected];
    }
    if (d.procs[p].crashed) return; // requests of a crashed client still apply
    if (cfg.fused && !(kind === 0 && cfg.splitReads)) deliver(d, rsp);
    else d.rsps.push(rsp);
  }

  function invoke(d: State, p: number, clock: number) {
    const pr = d.procs[p];
    const op = cfg.scripts[p][pr.pc++];
    switch (op.f) {
      case 'write': {
        // W5: w ← (guessTs(), GUESSED, v)
        pr.lastC = Math.max(pr.lastC, clock);
        pr.lastG = clock;
        const w = tuple(ts(clock, tidOfProc(p)), GUESSED, op.v);
        if (d.g.lin) d.g.lin = linInvoke(d.g.lin, p, op.v);
        pr.op = { k: 'W', v: op.v, w, st: 'W6', m: -1, fl: d.g.doneTs, wts: -1 };
        // W6: M.READ ∥ M.WRITE(w) (N4: write first, read after)
        startMWrite(d, p, w, false);
        if (mutant !== 'N4') startMRead(d, p);
        break;
      }
      case 'read':
        if (d.g.lin) d.g.lin = linInvoke(d.g.lin, p, 0);
        pr.op = { k: 'R', seen: Array(nprocs + 1).fill(-1), it: 0, st: 'R12', m: -1 }; // R11
        break;
      case 'mread':
        pr.op = { k: 'MR', st: 0 };
        break;
      case 'mwrite':
        pr.op = { k: 'MW', v: op.v, st: 0 };
        break;
      case 'trylock':
        pr.op = { k: 'TL', w: lockWord(ts(op.c, 1), op.mode), st: 0 };
        break;
    }
    pump(d, p);
  }

  /** W5's choices: a clock above every one p used (Assumption 1), up to cmax. */
  function guesses(pr: Proc, p: number): number[] {
    // M8: any clock, not monotonic; N7: above the previous guess only
    const lo = mutant === 'M8' ? 1 : mutant === 'N7' ? pr.lastG + 1 : pr.lastC + 1;
    const out: number[] = [];
    // the range never runs dry: a later write can always guess one above its last
    for (let c = lo; c <= Math.max(cfg.cmax, pr.lastC + 1); c++) out.push(c);
    const allowed = cfg.guesses?.[p];
    if (!allowed) return out;
    const kept = out.filter((c) => allowed.includes(c));
    return kept.length ? kept : out.slice(0, 1); // a later write can always guess
  }

  function invokeLabel(s: State, p: number, clock: number): string {
    const op = cfg.scripts[p][s.procs[p].pc];
    const P = procName(p);
    switch (op.f) {
      case 'write': return `W5_WRITE(${P},v${op.v},guess=${showTs(ts(clock, tidOfProc(p)))})`;
      case 'read': return `R11_READ(${P})`;
      case 'mread': return `M.READ(${P})`;
      case 'mwrite': return `M.WRITE(${P},${showTuple(op.v)})`;
      case 'trylock': return `T4_TRYLOCK(${P},${showLock(lockWord(ts(op.c, 1), op.mode))})`;
    }
  }
  function msgLabel(m: number[], isReq: boolean): string {
    const P = procName(m[0]);
    const c = `mn${m[1]}`;
    if (isReq) {
      if (m[2] === 0) return `read(${P}→${c})`;
      if (m[2] === 1) return `A8_write(${P}→${c},${showTuple(m[3])})`;
      return `T8_cas(${P}→${c},TSL[${m[4]}],${showLock(m[5])}→${showLock(m[6])})`;
    }
    if (m[2] === 0) return `readResp(${c}→${P},${showTuple(m[4])})`;
    if (m[2] === 1) return `writeAck(${c}→${P},${showTuple(m[3])})`;
    return `casResp(${c}→${P},prev=${showLock(m[4])})`;
  }

  const machine: Machine<State, SwarmAction> = {
    init() {
      const proc = (): Proc => ({
        crashed: false, pc: 0, cache: Array(n).fill(BOTTOM), lastC: 0, lastG: 0, op: null,
        mr: null, mrRes: -1, mw: -1, mwDone: false, bg: [], lk: null, lkRes: -1, last: -1,
      });
      return [{
        regs: Array(n).fill(BOTTOM),
        alive: Array(n).fill(true),
        locks: Array.from({ length: nLocks }, () => Array(n).fill(NOLOCK)),
        procs: Array.from({ length: nprocs }, proc),
        reqs: [],
        rsps: [],
        mnCrashes: 0,
        clCrashes: 0,
        g: {
          cR: BOTTOM, cW: BOTTOM, wInv: mLayer ? [] : null,
          tlInv: Array.from({ length: nLocks }, () => []), tlTrue: Array.from({ length: nLocks }, () => []),
          lin: sgLayer ? linInit(nprocs) : null, rew: [], dbl: [], doneTs: 0,
        },
        viol: [],
      }];
    },
    actions(s) {
      const out: SwarmAction[] = [];
      s.procs.forEach((pr, p) => {
        if (pr.crashed) return;
        if (!pr.op && pr.pc < cfg.scripts[p].length) {
          if (cfg.scripts[p][pr.pc].f === 'write') {
            for (const c of guesses(pr, p)) out.push({ label: invokeLabel(s, p, c), t: 'inv', p, x: c });
          } else out.push({ label: invokeLabel(s, p, 0), t: 'inv', p, x: 0 });
        }
        if (mSpec) {
          // M as its specification: a READ may return ⊥₀ or any invoked value above its floor
          if (pr.mr) {
            const floor = Math.max(pr.mr.frW, pr.mr.frR);
            for (const v of [BOTTOM, ...s.g.wInv!]) {
              if (v >= floor) out.push({ label: `M.READ_returns(${procName(p)},${showTuple(v)})`, t: 'mret', p, x: v });
            }
          }
          if (pr.mw >= 0) out.push({ label: `M.WRITE_returns(${procName(p)},${showTuple(pr.mw)})`, t: 'mwret', p, x: pr.mw });
          for (const v of pr.bg) out.push({ label: `M.WRITE_returns(${procName(p)},${showTuple(v)},background)`, t: 'bgret', p, x: v });
        }
        if (pr.lk?.abs) {
          for (const r of lockAllowed(s, pr.lk)) {
            out.push({ label: `TRYLOCK_returns(${procName(p)},${showLock(pr.lk.w)},${r ? 'True' : 'False'})`, t: 'dec', p, x: r });
          }
        }
      });
      let last: number[] | null = null;
      for (const m of s.reqs) {
        if (last && cmpArr(last, m) === 0) continue;
        last = m;
        if (s.alive[m[1]]) out.push({ label: msgLabel(m, true), t: 'apply', p: m[0], x: m[1], msg: m });
      }
      last = null;
      for (const m of s.rsps) {
        if (last && cmpArr(last, m) === 0) continue;
        last = m;
        out.push({ label: msgLabel(m, false), t: 'dlv', p: m[0], x: m[1], msg: m });
      }
      if (s.mnCrashes < cfg.f) {
        s.alive.forEach((a, i) => { if (a) out.push({ label: `crashMN(mn${i})`, t: 'crashMN', p: -1, x: i }); });
      }
      if (s.clCrashes < cfg.clientCrashes) {
        s.procs.forEach((pr, p) => {
          if (!pr.crashed && (pr.op || pr.bg.length)) out.push({ label: `crashClient(${procName(p)})`, t: 'crashClient', p, x: 0 });
        });
      }
      return out;
    },
    next(s, a) {
      const d = clone(s);
      switch (a.t) {
        case 'inv':
          invoke(d, a.p, a.x);
          break;
        case 'dec':
          finishLock(d, a.p, a.x);
          pump(d, a.p);
          break;
        case 'mret':
          finishMRead(d, a.p, a.x);
          pump(d, a.p);
          break;
        case 'mwret':
          mWriteDone(d, a.p, a.x);
          d.procs[a.p].mw = -1;
          d.procs[a.p].mwDone = true;
          pump(d, a.p);
          break;
        case 'bgret':
          mWriteDone(d, a.p, a.x);
          d.procs[a.p].bg = d.procs[a.p].bg.filter((v) => v !== a.x);
          pump(d, a.p);
          break;
        case 'apply':
          d.reqs = removeOne(d.reqs, a.msg!);
          apply(d, a.msg!);
          break;
        case 'dlv':
          d.rsps = removeOne(d.rsps, a.msg!);
          deliver(d, a.msg!);
          break;
        case 'crashMN':
          d.alive[a.x] = false;
          d.mnCrashes++;
          d.reqs = d.reqs.filter((m) => m[1] !== a.x);
          break;
        case 'crashClient': {
          const pr = d.procs[a.p];
          if (d.g.lin && pr.op && (pr.op.k === 'W' || pr.op.k === 'R')) d.g.lin = linCrash(d.g.lin, a.p);
          Object.assign(pr, { crashed: true, op: null, mr: null, mrRes: -1, mw: -1, mwDone: false, bg: [], lk: null, lkRes: -1 });
          d.clCrashes++;
          d.rsps = d.rsps.filter((m) => m[0] !== a.p);
          break;
        }
      }
      sortNet(d);
      return d;
    },
    invariants: mutant === 'HAZARD' ? { 'SG-Lin': invariants(cfg, iterBound, maj)['SG-Lin'], Oscillation: oscillation } : invariants(cfg, iterBound, maj),
    mayStop: (s) => s.viol.length > 0 || s.procs.every((pr, p) => pr.crashed || (!pr.op && pr.pc === cfg.scripts[p].length && pr.bg.length === 0)),
    actor: (a) => (a.t === 'crashMN' ? `mn${a.x}` : procName(a.p)),
  };
  if (sgLayer) machine.history = { model: register, clients: nprocs, observe: (b, a, after) => observe(cfg, b, a, after) };
  return machine;
}

/** Client-level events for the engine's own linearizability monitor (a cross-check of SG-Lin). */
function observe(cfg: SwarmConfig, before: State, a: SwarmAction, after: State): ObservedEvent[] {
  const out: ObservedEvent[] = [];
  const isSg = (o: OpFrame | null) => o !== null && (o.k === 'W' || o.k === 'R');
  if (a.t === 'inv') {
    const op = cfg.scripts[a.p][before.procs[a.p].pc];
    if (op.f === 'write') out.push({ kind: 'invoke', client: a.p, input: { f: 'write', value: `v${op.v}` } });
    if (op.f === 'read') out.push({ kind: 'invoke', client: a.p, input: { f: 'read' } });
  }
  if (a.t === 'crashClient') {
    if (isSg(before.procs[a.p].op)) out.push({ kind: 'crash', client: a.p });
    return out;
  }
  after.procs.forEach((pa, p) => {
    const pb = before.procs[p];
    const startedSg = a.t === 'inv' && a.p === p && ['read', 'write'].includes(cfg.scripts[p][pb.pc].f);
    if (pa.op !== null || !(isSg(pb.op) || startedSg)) return;
    const op = cfg.scripts[p][pa.pc - 1];
    if (op.f === 'write') out.push({ kind: 'return', client: p, output: null });
    if (op.f === 'read') out.push({ kind: 'return', client: p, output: pa.last ? `v${pa.last}` : null });
  });
  return out;
}

/** §7.1: one process's reads return a, then b, then a again. */
function oscillation(s: State): Check {
  for (let p = 0; p < s.procs.length; p++) {
    const h = s.procs[p].hist ?? [];
    for (let i = 0; i + 2 < h.length; i++) {
      for (let j = i + 1; j + 1 < h.length; j++) {
        if (h[j] === h[i]) continue;
        for (let k = j + 1; k < h.length; k++) if (h[k] === h[i]) return `${procName(p)}'s reads returned v${h[i]}, v${h[j]}, v${h[k]}`;
      }
    }
  }
  return true;
}

function invariants(cfg: SwarmConfig, iterBound: number, maj: number): Record<string, (s: State) => Check> {
  const fromViol = (name: string) => (s: State): Check => s.viol.find((v) => v[0] === name)?.[1] ?? true;
  const inv: Record<string, (s: State) => Check> = {};
  for (const name of ['SG-Lin', 'SG-LockRewriteExcl', 'SG-C3', 'SG-FastFresh', 'MR-Valid', 'MR-RR', 'MR-WR', 'TL-Excl', 'TL-TrueSafety', 'TL-S1']) {
    inv[name] = fromViol(name);
  }
  inv['SG-VerifiedFinal'] = (s) => {
    if (s.g.rew.length === 0) return true;
    const bad = (x: number) => flagOf(x) === VERIFIED && s.g.rew.includes(tsOfTuple(x));
    const found = s.regs.find(bad) ?? s.g.wInv?.find(bad) ?? s.procs.flatMap((pr) => [...pr.cache, ...pr.bg, pr.mw]).find(bad)
      ?? s.reqs.find((m) => m[2] === 1 && bad(m[3]))?.[3];
    return found === undefined ? true : `${showTuple(found)} is VERIFIED although its write rewrote that timestamp (W11)`;
  };
  inv['SG-WF-R'] = (s) => {
    for (let p = 0; p < s.procs.length; p++) {
      const op = s.procs[p].op;
      if (op?.k === 'R' && op.it > iterBound) return `READ by ${procName(p)} is in iteration ${op.it} > 2P+1 = ${iterBound} (Lemma C.5)`;
    }
    return true;
  };
  if (cfg.m === 'spec') return inv;
  inv['MR-S1'] = (s) => {
    for (let p = 0; p < s.procs.length; p++) {
      for (let i = 0; i < cfg.n; i++) {
        if (s.procs[p].cache[i] > s.regs[i]) return `${procName(p)}'s cache[mn${i}] = ${showTuple(s.procs[p].cache[i])} above the register's ${showTuple(s.regs[i])}`;
      }
    }
    return true;
  };
  inv['MR-S2'] = (s) => {
    const v = Math.max(s.g.cR, s.g.cW);
    const at = s.regs.filter((r) => r >= v).length;
    return at >= maj ? true : `the completed M value ${showTuple(v)} is held by ${at} < ${maj} MNs`;
  };
  return inv;
}
