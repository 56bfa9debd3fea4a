// The swarm machine's state, its messages and its actions, in one place, with the one copy
// next() makes (specs/kit/state.ts: copy what steps change in place, share the rest).

import type { Faults } from '../kit/faults.ts';
import type { StepAction } from '../kit/table.ts';
import type { LinGhost } from '../kit/register-ghost.ts';

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
  lin: LinGhost | null; // SG-Lin (kit/register-ghost.ts)
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
  reqs: Req[]; // in flight, a sorted bag (kit/network.ts)
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

const copyFrame = (o: OpFrame | null): OpFrame | null => (o === null ? null : o.k === 'R' ? { ...o, seen: o.seen.slice() } : { ...o });

const copyProc = (pr: Proc): Proc => ({
  ...pr, cache: pr.cache.slice(), op: copyFrame(pr.op), mr: pr.mr && { ...pr.mr }, lk: pr.lk && { ...pr.lk, rd: pr.lk.rd.slice() },
});

/** The one copy next() makes: what steps change in place. Messages and sorted sets are shared. */
export function copy(s: State): State {
  return {
    regs: s.regs.slice(),
    mns: s.mns,
    locks: s.locks.map((l) => l.slice()),
    procs: s.procs.map(copyProc),
    clients: s.clients,
    reqs: s.reqs.slice(),
    rsps: s.rsps.slice(),
    g: { ...s.g, tlInv: s.g.tlInv.slice(), tlTrue: s.g.tlTrue.slice() },
    viol: s.viol,
  };
}
