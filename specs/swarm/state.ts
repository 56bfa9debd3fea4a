// The swarm machine's state, its messages and its actions, in one place, with the one copy
// next() makes (specs/kit/state.ts: copy what steps change in place, share the rest).

import type { Faults } from '../kit/faults.ts';
import type { StepAction } from '../kit/table.ts';
import { Interned } from '../kit/network.ts';
import { ByteWords, KeptWords } from '../kit/words.ts';
import { monInit, registerSlot, type Mon } from '../kit/object-ghost.ts';
import { objectList } from '../kit/state.ts';

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

// One tuple per message (kit/network.ts `Interned`): the action that applies or delivers a
// message, and its label, are made once per message, not once per send.
const requests = new Interned<Req>();
const responses = new Interned<Rsp>();
export const request = <M extends Req>(m: M): M => requests.of(m) as M;
export const response = <M extends Rsp>(m: M): M => responses.of(m) as M;

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
  msg: Req | Rsp | null; // the message an apply or deliver takes (one shape for every action)
}

/** Every field any kind of frame has, for `opFrame`. */
type FrameFields = { k: OpFrame['k']; st: string | number; v: number; w: number; m: number; fl: number; wts: number; seen: number[]; it: number };
const NO_SEEN: number[] = [];

/**
 * A frame as the step made it, with every field of every kind, in one order (a field its
 * kind has not is 0, `seen` empty): one object shape for all five kinds, so that the steps,
 * invariants and the copy that read `k` and `st` meet one map across configs instead of
 * five (and are not thrown away and compiled again when a config brings a new kind).
 */
export function opFrame<F extends OpFrame>(f: F): F {
  const o = f as Partial<FrameFields> & { k: OpFrame['k']; st: string | number };
  const all: FrameFields = { k: o.k, st: o.st, v: o.v ?? 0, w: o.w ?? 0, m: o.m ?? 0, fl: o.fl ?? 0, wts: o.wts ?? 0, seen: o.seen ?? NO_SEEN, it: o.it ?? 0 };
  return all as unknown as F;
}

// Field by field rather than by spread: the copy runs on every step. Only R's `seen` is
// changed in place.
function copyFrame(f: OpFrame): OpFrame {
  const o = f as unknown as FrameFields;
  const c: FrameFields = { k: o.k, st: o.st, v: o.v, w: o.w, m: o.m, fl: o.fl, wts: o.wts, seen: o.k === 'R' ? o.seen.slice() : o.seen, it: o.it };
  return c as unknown as OpFrame;
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

/** The ghost the step being taken made (its first change copied it), null before that. */
let ownedGhost: Ghost | null = null;

/**
 * The ghost of d for a step to change: a copy, made on the step's first change (the
 * state's copy shares its parent's ghost, which most steps leave as it is).
 */
export function ownGhost(d: State): Ghost {
  if (d.g !== ownedGhost) ownedGhost = d.g = copyGhost(d.g);
  return d.g;
}

/**
 * The one copy next() makes, copy-on-write by the step: a step changes only its own
 * process (`a.p`; none for an MN crash), only the `apply` of a write changes a register and
 * only that of a CAS one lock's CAS objects, so the other processes, the registers but
 * for a write and the other locks are shared; the ghost is copied by the step's first
 * change of it (`ownGhost`). The network, a process's cache, the ghost's lists and sorted
 * sets are replaced, never changed in place (kit/network.ts `sent`/`taken`, kit/state.ts
 * `withAt`), so they are shared too: a step that sends nothing copies no message list.
 */
export function copy(s: State, a: SwarmAction): State {
  ownedGhost = null;
  let procs = s.procs;
  if (a.p >= 0) {
    procs = s.procs.slice();
    procs[a.p] = copyProc(s.procs[a.p]);
  }
  // Only an A8 write changes a register and only a T8 CAS one CAS object (of TSL[q]).
  const kind = a.step === 'apply' ? (a.msg as Req)[2] : -1;
  let locks = s.locks;
  if (kind === MSG_CAS) {
    const q = (a.msg as CasReq)[4];
    locks = s.locks.slice();
    locks[q] = s.locks[q].slice();
  }
  return {
    regs: kind === MSG_WRITE ? s.regs.slice() : s.regs,
    mns: s.mns,
    locks,
    procs,
    clients: s.clients,
    reqs: s.reqs,
    rsps: s.rsps,
    g: s.g,
    viol: s.viol,
  };
}

/**
 * Every field a step changes in place, changed once as the module loads, on one object of
 * each shape (the idiom of fusee's, minos's and shadowfax's `settleFields`). To the engine
 * (V8) a field no object has had changed yet is a constant, and one that has held only null
 * holds only null: the compiled code that reads it relies on that, and the first step to
 * change it, midway through the first search (or the first config to use the layer that
 * changes it), throws that code away to compile it again. No state is changed (these
 * objects are dropped).
 */
function settleFields(): void {
  const op = copyFrame(opFrame({ k: 'W', v: 0, w: 0, st: 'W6', m: -1, fl: 0, wts: -1 })) as unknown as FrameFields;
  op.st = 'W10'; op.st = 0; // a line (W, R) or a phase number (the other kinds) op.v = op.w = op.m = op.fl = op.wts = op.it = 1; op.seen = [1];
  const mr = copyMRead({ ph: 0, got: 0, v: -1, frW: 0, frR: 0, snap: 0, mx: 0 });
  mr.ph = mr.got = mr.v = mr.frW = mr.frR = mr.snap = mr.mx = 1;
  const lk = copyLock({ q: 0, w: 0, rd: [0], dn: 0, abs: false });
  lk.q = lk.w = lk.dn = 1; lk.rd = [1]; lk.abs = true;
  const pr = copyProc({ pc: 0, cache: [0], lastC: 0, lastG: 0, op: null, mr: null, mrRes: -1, mw: -1, mwDone: false, bg: [], lk: null, lkRes: -1, last: -1 });
  pr.pc = pr.lastC = pr.lastG = pr.mrRes = pr.mw = pr.lkRes = pr.last = 1;
  pr.cache = [1]; pr.bg = [1]; pr.mwDone = true;
  pr.op = op as unknown as OpFrame; pr.mr = mr; pr.lk = lk;
  pr.op = pr.mr = pr.lk = null;
  const g = copyGhost({ cR: 0, cW: 0, wInv: null, tlInv: [[0]], tlTrue: [[0]], lin: null, rew: [], dbl: [], doneTs: 0 });
  g.cR = g.cW = g.doneTs = 1;
  g.wInv = [1]; g.wInv = null;
  g.tlInv = [[1]]; g.tlTrue = [[1]]; g.rew = [1]; g.dbl = [1];
  g.lin = monInit(registerSlot); g.lin = null;
  const d = copy({ regs: [0], mns: [0, 0, 0, 0, 0], locks: [[0]], procs: [pr], clients: [0, 0, 0, 0, 0], reqs: objectList(), rsps: objectList(), g, viol: objectList() }, { label: '', step: 'crashMN', p: -1, x: 0, msg: null });
  d.regs = [1]; d.mns = d.clients = [1, 0, 0, 0, 0]; d.locks = [[1]]; d.procs = [pr];
  d.reqs = objectList(); d.rsps = objectList(); d.g = g; d.viol = objectList();
  ownedGhost = null;
}
settleFields();

// ---- the state as words (Machine.encode): every field, in a fixed order ----
// Fixed-length parts (regs, cache, locks, seen, rd: their lengths follow from the config)
// are written bare; variable ones (sets, the network, the ghost's configurations, the
// violations) with their length first, so that the code is a prefix code: two states get
// the same words exactly when they are equal as plain data, as with the engine's generic
// encoding (the same states, counts and counterexamples), at a fraction of its cost.
// Integers are one or two bytes each (kit/words.ts `ByteWords`: the packed tuples are
// under 4,072), so a state is some 40 words rather than 110-190, and the engine's hashing
// and storing of each state is linear in its words. Processes, the network and the
// register ghost are replaced, never changed in place, and mostly shared by the successors
// of one state: their words are kept by identity (`KeptWords`) and copied.

// By switch, not a lookup in a record by a variable key (a generic keyed load per frame).
function lineCode(st: WriteFrame['st'] | ReadFrame['st']): number {
  switch (st) {
    case 'W6': case 'R12': return 0;
    case 'W10': case 'R13': return 1;
    default: return 2; // W11, R16
  }
}

function putProc(w: ByteWords, pr: Proc): void {
  w.int(pr.pc);
  for (let i = 0; i < pr.cache.length; i++) w.int(pr.cache[i]);
  w.int(pr.lastC);
  w.int(pr.lastG);
  const op = pr.op;
  if (op === null) w.int(0);
  else {
    switch (op.k) {
      case 'W':
        w.int(1);
        w.int(op.v); w.int(op.w); w.int(lineCode(op.st)); w.int(op.m); w.int(op.fl); w.int(op.wts);
        break;
      case 'R':
        w.int(2);
        for (let i = 0; i < op.seen.length; i++) w.int(op.seen[i]);
        w.int(op.it); w.int(lineCode(op.st)); w.int(op.m);
        break;
      case 'MR':
        w.int(3);
        w.int(op.st);
        break;
      case 'MW':
        w.int(4);
        w.int(op.v); w.int(op.st);
        break;
      case 'TL':
        w.int(5);
        w.int(op.w); w.int(op.st);
        break;
    }
  }
  const mr = pr.mr;
  if (mr === null) w.int(0);
  else {
    w.int(1);
    w.int(mr.ph); w.int(mr.got); w.int(mr.v); w.int(mr.frW); w.int(mr.frR); w.int(mr.snap); w.int(mr.mx);
  }
  w.int(pr.mrRes);
  w.int(pr.mw);
  w.int(pr.mwDone ? 1 : 0);
  w.ints(pr.bg);
  const lk = pr.lk;
  if (lk === null) w.int(0);
  else {
    w.int(1);
    w.int(lk.q); w.int(lk.w);
    for (let i = 0; i < lk.rd.length; i++) w.int(lk.rd[i]);
    w.int(lk.dn); w.int(lk.abs ? 1 : 0);
  }
  w.int(pr.lkRes);
  w.int(pr.last);
  if (pr.hist === undefined) w.int(-1);
  else w.ints(pr.hist);
}

function putMsgs(w: ByteWords, ms: readonly (readonly number[])[]): void {
  w.int(ms.length);
  for (const m of ms) w.ints(m as number[]);
}

function putLin(w: ByteWords, lin: Mon): void {
  // never `bad`: a return with no linearization left is recorded in viol, the ghost kept
  w.int(lin.ops.length);
  for (const o of lin.ops) {
    w.int(o.c); w.int(o.v); w.int(o.x ? 1 : 0); // f and k follow from v (0: a read)
  }
  w.int(lin.cfgs.length);
  for (const c of lin.cfgs) w.ints(c);
}

const bytes = new ByteWords();
/** Processes by their slot (a config has at most a handful; those past 8 are written afresh). */
const procWords = new KeptWords(putProc, 2);
/** The requests (slot 0) and the responses (slot 1). */
const msgWords = new KeptWords(putMsgs, 2);
const linWords = new KeptWords(putLin, 4);

/** Machine.encode: the words of s (see above); -1 when `out` is too short. */
export function encode(s: State, out: Int32Array): number {
  const w = bytes.begin(out);
  for (let i = 0; i < s.regs.length; i++) w.int(s.regs[i]);
  for (let i = 0; i < 5; i++) w.int(s.mns[i]);
  for (const l of s.locks) for (let i = 0; i < l.length; i++) w.int(l[i]);
  for (let p = 0; p < s.procs.length; p++) procWords.write(w, s.procs[p], p);
  for (let i = 0; i < 5; i++) w.int(s.clients[i]);
  msgWords.write(w, s.reqs, 0);
  msgWords.write(w, s.rsps, 1);
  const g = s.g;
  w.int(g.cR);
  w.int(g.cW);
  if (g.wInv === null) w.int(-1);
  else w.ints(g.wInv);
  for (const x of g.tlInv) w.ints(x);
  for (const x of g.tlTrue) w.ints(x);
  if (g.lin === null) w.int(-1);
  else {
    w.int(0);
    linWords.write(w, g.lin);
  }
  w.ints(g.rew);
  w.ints(g.dbl);
  w.int(g.doneTs);
  w.int(s.viol.length);
  for (const [prop, msg] of s.viol) {
    w.string(prop);
    w.string(msg);
  }
  return w.end();
}
