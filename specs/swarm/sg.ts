// Safe-Guess's configs (sg-*, §8.3 C1-C4) on the kit's word layout: WRITE and READ over M
// (App. A over n fallible max registers, or its specification) and TSL[p] (App. B, T1-T12
// over n fallible CAS objects, or f.67's abstract lock), requests and responses fused. The same machine as machine.ts builds for these
// configs (the same states, transitions, order of actions and labels: equivalence.json),
// with its state as words, so that the engine copies, hashes and stores the words as they
// are (its layout path, under its linearizability monitor too), as lock.ts and mreg.ts do
// for the lower layers' unit configs.
//
// Shared with the plain machine, not written twice: W7's test, `guesses`, SG-Lin's ghost
// steps and every property's message (safeguess.ts), T6, T10-T12 and f.67's tests (tsl.ts),
// the quorum test and the violations' bookkeeping (context.ts), the labels (steps.ts,
// maxreg.ts, tsl.ts) and the history the engine's monitor reads (machine.ts).
//
// Small numbers (positions, clocks, kinds, lines, counts, bitmasks of at most 8 MNs) are
// bytes, four to a word. Lists are fixed-capacity with a count, unused entries 0; a part that is absent (no
// operation, M.READ or TRYLOCK in progress) is all 0. A message is one number that orders as
// its tuple does (kit/network.ts `compareMsg`: process, MN, kind, then the rest), and the
// requests in flight are a sorted counted list of them. SG-Lin's ghost (kit/object-ghost.ts,
// immutable, interned) and the list of violations (empty in every reachable state of the
// configs that hold) are kept as numbers, one per distinct value met.

import type { Action, Check, Machine } from '../../checkers/explore/types.ts';
import { applyFault, crashesOf, faultChoices, isDown, type Faults } from '../kit/faults.ts';
import { byte, bytes, countedAdd, countedHas, countedInsert, countedRemove, countedRemoveWhere, countedSort, int, ints, layout, layoutMachine, Numbered, type LayoutState } from '../kit/layout.ts';
import { monCrash, monInit, registerSlot, type Mon } from '../kit/object-ghost.ts';
import { popcount } from '../kit/state.ts';
import { context, quorumHas, tidOfProc, withFailure, type Cx } from './context.ts';
import { sgHistory } from './machine.ts';
import { mreadReturnsLabel, mrRrMessage, mrS1Message, mrS2Message, mrValidMessage, mrWrMessage, mwriteReturnsLabel, readLabel, writeLabel } from './maxreg.ts';
import { VARIANTS } from './mutants.ts';
import { c3Message, fastFreshMessage, fastPath, guesses, linInvoke, linReadMessage, linReturn, linWriteMessage, rewriteExclMessage, rewriteClock, rewriteTuple, secondSight } from './safeguess.ts';
import type { SwarmConfig } from './state.ts';
import { invokeLabel } from './steps.ts';
import { casAgain, casLabel, conflictInvoked, exclMessage, lockVerdict, lowersLock, oppositeTrue, s1Message, trueSafetyMessage, trylockReturnsLabel } from './tsl.ts';
import { BOTTOM, GUESSED, NOLOCK, READ, VERIFIED, WRITE, flagOf, lockWord, procName, showTuple, ts, tsOfTuple, tuple, valOf, verified } from './tuple.ts';

/** The writes of a config (each can raise the highest clock by one past cmax, by its guess or its rewrite). */
const writesOf = (cfg: SwarmConfig): number => cfg.scripts.reduce((k, s) => k + s.filter((o) => o.f === 'write').length, 0);

/**
 * Whether this machine runs a config: Safe-Guess over M and TSL (App. A's construction or
 * M's specification; T1-T12 or the abstract lock of f.67), fused,
 * leftover messages kept, scripts of WRITEs and READs under 64 operations, at most 7
 * processes (8 locks) and 8 MNs, clocks under 16 (lock words under 512, as the message
 * numbers need); HAZARD (a READ history per process) excluded, and M11 and N3, under which a
 * READ can spin sending requests without bound (the words' request list has a fixed capacity). The others
 * run on the plain machine.
 */
export const sgLayerOnly = (cfg: SwarmConfig, variant?: string): boolean =>
  variant !== 'HAZARD' && variant !== 'M11' && variant !== 'N3' && cfg.fused && cfg.splitReads !== true && cfg.late === 'keep' &&
  cfg.scripts.length <= 7 && cfg.n <= 8 && cfg.cmax + 2 * writesOf(cfg) + 2 < 16 &&
  cfg.scripts.every((s) => s.length < 64 && s.every((o) => o.f === 'read' || (o.f === 'write' && o.v > 0 && o.v < 16)));

// ---- requests as numbers ordered as their tuples (state.ts ReadReq, WriteReq, CasReq) ----
// (p, MN, kind) in 8 bits, then 22 bits: a read's slot + 1; a write's tuple (under 2^13);
// a CAS's slot + 1, TSL q, expected + 1, new + 1 (1, 3, 9 and 9 bits). 1 added, so that 0 is
// no message. (Fused: a response is delivered in the step that applies its request.)
const R22 = 1 << 22;
const msg = (p: number, c: number, kind: number, rest: number): number => ((p * 8 + c) * 4 + kind) * R22 + rest + 1;
const readReq = (p: number, c: number) => msg(p, c, 0, 1);
const writeReq = (p: number, c: number, v: number) => msg(p, c, 1, v);
const casReq = (p: number, c: number, q: number, expected: number, nw: number) => msg(p, c, 2, ((1 * 8 + q) * 512 + expected + 1) * 512 + nw + 1);
const mP = (m: number) => (m - 1) >>> 27;
const mC = (m: number) => ((m - 1) >>> 24) & 7;
const mKind = (m: number) => ((m - 1) >>> 22) & 3;
const mRest = (m: number) => (m - 1) & (R22 - 1);
const readSlot = (m: number) => mRest(m) - 1;
const casSlot = (m: number) => (mRest(m) >> 21) - 1;
const casQ = (m: number) => (mRest(m) >> 18) & 7;
const casExpected = (m: number) => ((mRest(m) >> 9) & 511) - 1;
const casNw = (m: number) => (mRest(m) & 511) - 1;
/** What an orphan (slot -1) takes off a read's and a CAS's number. */
const ORPHAN = [1, 0, 1 << 21];
const MSG_READ = 0;
const MSG_WRITE = 1;
const MSG_CAS = 2;

/** A frame's kind, and its line (W6, W10, W11; R12, R13, R16). */
const OP_W = 1;
const OP_R = 2;
const L0 = 0;
const L1 = 1;
const L2 = 2;

type Kind = 'invoke' | 'M.READ-returns' | 'M.WRITE-returns' | 'M.WRITE-background-returns' | 'TRYLOCK-returns' | 'apply' | 'crashMN' | 'crashClient';

export interface SgAction extends Action {
  t: Kind;
  p: number;
  /** The guessed clock (invoke), the value (M's answers), the lock's result, the message (apply) or the MN (crashMN). */
  x: number;
}

function sgLayout(np: number, n: number, nLocks: number, cap: number, capBg: number, capLocks: number, capRew: number, capDbl: number, capInv: number) {
  return layout({
    regs: ints(n), // the fallible max register of each MN (A1)
    mns: bytes(5), // the MNs' crashes (kit/faults.ts Faults: a bitmask of at most 8 and counts)
    locks: ints(nLocks * n), // TSL[q]'s CAS objects (T1), ⊥ = NOLOCK
    clients: bytes(5), // the client crashes (the same, of at most 7)
    // Per process: script position, App. A cache[1..n], highest clock used and guessed.
    pc: bytes(np),
    cache: ints(np * n),
    lastC: bytes(np),
    lastG: bytes(np),
    // Its operation's frame: kind (0 none), line, and W's v, w, m, fl, wts or R's seen[], it, m.
    opK: bytes(np),
    opSt: bytes(np),
    opV: bytes(np),
    opW: ints(np),
    opM: ints(np),
    opFl: ints(np),
    opWts: ints(np),
    opIt: bytes(np),
    seen: ints(np * (np + 1)),
    // Its M.READ (phase + 1, 0: none), responders, write-back value, floors, snap, mx; result (-1: none).
    mrPh: bytes(np),
    mrGot: bytes(np),
    mrV: ints(np),
    mrFrW: ints(np),
    mrFrR: ints(np),
    mrSnap: ints(np),
    mrMx: ints(np),
    mrRes: ints(np),
    // Its foreground M.WRITE (-1: none) and whether one completed; its background writes, a sorted set.
    mw: ints(np),
    mwDone: bytes(np),
    bgN: bytes(np),
    bg: ints(np * capBg),
    // Its TRYLOCK (1 + q, 0: none): own word, read[c], the exited loops; result (-1: none).
    lkQ: bytes(np),
    lkW: ints(np),
    lkRd: ints(np * n),
    lkDn: bytes(np),
    lkRes: ints(np),
    last: ints(np), // the value its last READ returned
    // The requests in flight (responses are delivered as their requests apply).
    reqN: int,
    reqs: ints(cap),
    // The ghost: max completed M read and write; per lock the words invoked and those that
    // returned True (sorted sets); SG-Lin's register monitor (its number); rew and dbl
    // (sorted sets); max ts(w) over completed WRITEs; the violations (their number).
    cR: int,
    cW: int,
    invN: byte, // the M.WRITE values invoked (M as its specification: MR-Valid), a sorted set
    inv: ints(capInv),
    tlInvN: bytes(nLocks),
    tlInv: ints(capLocks),
    tlTrueN: bytes(nLocks),
    tlTrue: ints(capLocks),
    lin: int,
    rewN: byte,
    rew: ints(capRew),
    dblN: byte,
    dbl: ints(capDbl),
    doneTs: int,
    viol: int,
  });
}

/** The state's fields a report hides unless asked (the ghost and the violations). */
export const SG_INTERNAL = ['cR', 'cW', 'invN', 'inv', 'tlInvN', 'tlInv', 'tlTrueN', 'tlTrue', 'lin', 'rewN', 'rew', 'dblN', 'dbl', 'doneTs', 'viol'];

type S = LayoutState<ReturnType<typeof sgLayout>['fields']>;
const mnFaults = (s: S) => s.mns as unknown as Faults;
const clientFaults = (s: S) => s.clients as unknown as Faults;
const live = (s: S, p: number) => !isDown(clientFaults(s), p);

/**
 * What every step of one config reads (its config, capacities, numberings and actions made
 * once). The steps below are functions of the module taking it first, not closures made per
 * config: a closure per config is a new call target at every call between them, and each
 * optimised step was thrown away ("wrong call target") and compiled again at the second
 * config. A class, so that every config's has one shape.
 */
class Sg {
  readonly n: number;
  readonly np: number;
  readonly mut: Cx['mut'];
  readonly nLocks: number;
  readonly scripts: SwarmConfig['scripts'];
  readonly abs: boolean;
  /** The capacities: requests in flight, background writes per process, the lock words invoked per lock and where each lock's are. */
  readonly cap: number;
  readonly capBg: number;
  readonly capLocks: number[];
  readonly lockAt: number[];
  readonly mons = new Numbered<Mon>((m) => JSON.stringify([m.ops, m.cfgs, m.bad]));
  readonly viols = new Numbered<[string, string][]>((v) => JSON.stringify(v));
  // Actions by what they name, made once each: invocations by (process, position, last
  // clock, last guess), applies by message, crashes by member.
  readonly invokes = new Map<number, SgAction[]>();
  readonly applies = new Map<number, SgAction>();
  readonly answers = [new Map<number, SgAction>(), new Map<number, SgAction>(), new Map<number, SgAction>(), new Map<number, SgAction>()];
  readonly crashMNs: SgAction[];
  readonly crashClients: SgAction[];
  /** p's local steps by its frame's kind (none, WRITE, READ). */
  readonly byKind: Local[][];
  constructor(readonly cfg: SwarmConfig, readonly cx: Cx) {
    const { n, nprocs: np, mut, nLocks } = cx;
    this.n = n; this.np = np; this.mut = mut; this.nLocks = nLocks; this.scripts = cfg.scripts;
    this.abs = cfg.lock === 'abstract';
    // Capacities. The sets' are bounds: of the lock words invoked on a writer's TSL, its
    // WRITE word per WRITE and a READ word per timestamp of its tuples (a guess and a
    // rewrite: 3 per WRITE; with M9 every writer's on TSL[0]); of the background writes, a
    // writer's W8 or N8 tuple per WRITE and a reader's R17 tuple per GUESSED tuple (two per
    // WRITE, N1 making rewrites GUESSED); rew one per WRITE, dbl two. The requests in flight
    // have no bound that does not grow with a READ's iterations (unbounded under M11 and N3,
    // and an M.WRITE can return with writes in flight): `cap` is generous (the defaults
    // have at most 5), and a state past it stops the search with an error, not a count.
    const scripts = cfg.scripts;
    const nOps = scripts.reduce((k, s) => k + s.length, 0);
    const writes = writesOf(cfg);
    const writesBy = scripts.map((s) => s.filter((o) => o.f === 'write').length);
    this.capLocks = Array.from({ length: nLocks }, (_, q) => (mut.M9 ? (q === 0 ? 3 * writes : 0) : q === 0 ? 0 : 3 * writesBy[q - 1]));
    this.lockAt = this.capLocks.map((_, q) => this.capLocks.slice(0, q).reduce((a, b) => a + b, 0));
    this.capBg = Math.max(1, ...scripts.map((s, p) => writesBy[p] + (s.some((o) => o.f === 'read') ? 2 * writes : 0)));
    this.cap = 4 * n * (nOps + np);
    this.crashMNs = Array.from({ length: n }, (_, i): SgAction => ({ label: `crashMN(mn${i})`, t: 'crashMN', p: -1, x: i }));
    this.crashClients = Array.from({ length: np }, (_, p): SgAction => ({ label: `crashClient(${procName(p)})`, t: 'crashClient', p, x: 0 }));
    const idle = cx.mSpec ? IDLE.slice(4) : IDLE; // M as its specification: its answers are actions
    this.byKind = [idle, [...idle, ...WRITE_STEPS], [...idle, ...READ_STEPS]];
  }
}

const fail = (g: Sg, d: S, prop: string, message: string) => { d.viol = g.viols.of(withFailure(g.viols.values[d.viol], prop, message)); };

const answer = (g: Sg, t: Kind, code: number, p: number, id: number, x: number, label: () => string): SgAction => {
  const key = p * 65536 + id;
  let a = g.answers[code].get(key);
  if (a === undefined) g.answers[code].set(key, (a = { label: label(), t, p, x }));
  return a;
};
function invokeActions(g: Sg, s: S, p: number): SgAction[] {
  const pc = s.pc[p];
  const key = ((p * 64 + pc) * 64 + s.lastC[p]) * 64 + s.lastG[p];
  let as = g.invokes.get(key);
  if (as === undefined) {
    const clocks = g.scripts[p][pc].f === 'write' ? guesses(g.cx, s.lastC[p], s.lastG[p], p) : [0];
    as = clocks.map((x) => ({ label: invokeLabel(g.cx, p, pc, x), t: 'invoke', p, x }));
    g.invokes.set(key, as);
  }
  return as;
}
function applyAction(g: Sg, m: number): SgAction {
  let a = g.applies.get(m);
  if (a === undefined) {
    const p = mP(m);
    const c = mC(m);
    const kind = mKind(m);
    const label = kind === MSG_READ ? readLabel(p, c) : kind === MSG_WRITE ? writeLabel(p, c, mRest(m)) : casLabel(p, c, casQ(m), casExpected(m), casNw(m));
    g.applies.set(m, (a = { label, t: 'apply', p, x: m }));
  }
  return a;
}

function send(g: Sg, d: S, m: number) {
  // No bound on requests in flight is known that does not grow with a READ's iterations:
  // a run past this one stops with this error, never with a wrong count.
  if (d.reqN === g.cap) throw new RangeError(`swarm sg.ts: more than ${g.cap} requests in flight (the words' capacity, 4 x n x (operations + processes)); this config needs the plain machine (sgLayerOnly)`);
  d.reqN = countedInsert(d.reqs, d.reqN, m);
}
function cacheMax(g: Sg, d: S, p: number) {
  const n = g.n;
  let m = d.cache[p * n];
  for (let i = 1; i < n; i++) if (d.cache[p * n + i] > m) m = d.cache[p * n + i];
  return m;
}

// ---- M (App. A; maxreg.ts) ----
/** A4-A8 inner_write(v): write to every MN whose cached bound is below v. */
function innerWrite(g: Sg, d: S, p: number, v: number) {
  const n = g.n;
  for (let i = 0; i < n; i++) {
    if (d.cache[p * n + i] >= v) continue; // A6
    if (!isDown(mnFaults(d), i)) send(g, d, writeReq(p, i, v)); // A8; a request to a crashed MN is lost
    if (g.mut.M18) d.cache[p * n + i] = Math.max(d.cache[p * n + i], v); // M18: on issue, not on the ack
  }
}
/** M.WRITE(v), in the foreground (W6, W11) or the background (W8, R17). */
function startMWrite(g: Sg, d: S, p: number, v: number, background: boolean) {
  if (g.cx.mSpec) d.invN = countedAdd(d.inv, d.invN, v);
  else innerWrite(g, d, p, v);
  if (background) d.bgN[p] = countedAdd(d.bg, d.bgN[p], v, p * g.capBg, g.capBg);
  else d.mw[p] = v;
}
/** [read-for-start]: read every MN asynchronously. */
function startMRead(g: Sg, d: S, p: number) {
  d.mrPh[p] = 1; d.mrGot[p] = 0; d.mrV[p] = -1; d.mrFrW[p] = d.cW; d.mrFrR[p] = d.cR; d.mrSnap[p] = cacheMax(g, d, p); d.mrMx[p] = BOTTOM;
  if (g.cx.mSpec) return;
  for (let i = 0; i < g.n; i++) if (!isDown(mnFaults(d), i)) send(g, d, readReq(p, i));
}
/** p's requests of that kind still waited for become orphans (slot -1): they still land, count for nothing. */
function orphan(d: S, p: number, kind: number) {
  let moved = false;
  for (let i = 0; i < d.reqN; i++) {
    const m = d.reqs[i];
    if (mP(m) === p && mKind(m) === kind && (kind === MSG_READ ? readSlot(m) : casSlot(m)) === 0) { d.reqs[i] = m - ORPHAN[kind]; moved = true; }
  }
  if (moved) countedSort(d.reqs, d.reqN);
}
/** M.READ returns v: checked against the weak specification (MR-WR, MR-RR). */
function finishMRead(g: Sg, d: S, p: number, v: number) {
  if (v < d.mrFrW[p]) fail(g, d, 'MR-WR', mrWrMessage(p, v, d.mrFrW[p]));
  if (v < d.mrFrR[p]) fail(g, d, 'MR-RR', mrRrMessage(p, v, d.mrFrR[p]));
  if (g.cx.mSpec && v !== BOTTOM && !countedHas(d.inv, d.invN, v)) fail(g, d, 'MR-Valid', mrValidMessage(v));
  d.cR = Math.max(d.cR, v);
  d.mrPh[p] = 0; d.mrGot[p] = 0; d.mrV[p] = 0; d.mrFrW[p] = 0; d.mrFrR[p] = 0; d.mrSnap[p] = 0; d.mrMx[p] = 0;
  d.mrRes[p] = v;
}
const mWriteDone = (d: S, v: number) => { d.cW = Math.max(d.cW, v); };

// ---- TSL (App. B; tsl.ts) ----
/** T4-T8: TRYLOCK(w) on TSL[q]; one CAS loop per object, the first CAS expecting ⊥. */
function startLock(g: Sg, d: S, p: number, q: number, w: number) {
  const n = g.n;
  d.tlInvN[q] = countedAdd(d.tlInv, d.tlInvN[q], w, g.lockAt[q], g.capLocks[q]);
  d.lkQ[p] = q + 1; d.lkW[p] = w; d.lkDn[p] = 0;
  d.lkRd.fill(NOLOCK, p * n, p * n + n);
  if (g.abs) return;
  for (let c = 0; c < n; c++) if (!isDown(mnFaults(d), c)) send(g, d, casReq(p, c, q, NOLOCK, w));
}
/** TRYLOCK returns r, checked against f.67 (TL-TrueSafety, TL-Excl); T9: its CASes in flight become orphans. */
function finishLock(g: Sg, d: S, p: number, r: number) {
  const n = g.n;
  const q = d.lkQ[p] - 1;
  const w = d.lkW[p];
  if (r === 0) {
    if (!conflictInvoked(d.tlInv, d.tlInvN[q], w, g.lockAt[q])) fail(g, d, 'TL-TrueSafety', trueSafetyMessage(q, w, p));
  } else {
    if (oppositeTrue(d.tlTrue, d.tlTrueN[q], w, g.lockAt[q])) fail(g, d, 'TL-Excl', exclMessage(q, w));
    d.tlTrueN[q] = countedAdd(d.tlTrue, d.tlTrueN[q], w, g.lockAt[q], g.capLocks[q]);
  }
  if (!g.abs) orphan(d, p, MSG_CAS);
  d.lkQ[p] = 0; d.lkW[p] = 0; d.lkDn[p] = 0;
  d.lkRd.fill(0, p * n, p * n + n);
  d.lkRes[p] = r;
}

// ---- Safe-Guess (safeguess.ts) ----
function clearFrame(g: Sg, d: S, p: number) {
  const np = g.np;
  d.opK[p] = 0; d.opSt[p] = 0; d.opV[p] = 0; d.opW[p] = 0; d.opM[p] = 0; d.opFl[p] = 0; d.opWts[p] = 0; d.opIt[p] = 0;
  d.seen.fill(0, p * (np + 1), (p + 1) * (np + 1));
}
function retWrite(g: Sg, d: S, p: number, tsw: number) {
  d.doneTs = Math.max(d.doneTs, tsw);
  const next = linReturn(g.mons.values[d.lin], p, 0);
  if (!next) fail(g, d, 'SG-Lin', linWriteMessage(p));
  else d.lin = g.mons.of(next);
  clearFrame(g, d, p);
}
function retRead(g: Sg, d: S, p: number, val: number) {
  const next = linReturn(g.mons.values[d.lin], p, val);
  if (!next) fail(g, d, 'SG-Lin', linReadMessage(p, val));
  else d.lin = g.mons.of(next);
  d.last[p] = val;
  clearFrame(g, d, p);
}
/** W11: rewrite with a timestamp above m.ts (f.58), and wait for it. */
function rewrite(g: Sg, d: S, p: number) {
  const tid = tidOfProc(p);
  const gts = tsOfTuple(d.opW[p]);
  if (countedHas(d.tlTrue, d.tlTrueN[tid], lockWord(gts, READ), g.lockAt[tid])) fail(g, d, 'SG-LockRewriteExcl', rewriteExclMessage(p, gts));
  d.rewN = countedAdd(d.rew, d.rewN, gts);
  const clock = rewriteClock(g.cx, gts, d.opM[p]);
  d.lastC[p] = Math.max(d.lastC[p], clock);
  d.opWts[p] = ts(clock, tid);
  startMWrite(g, d, p, rewriteTuple(g.cx, d.opWts[p], d.opV[p]), false);
  d.opSt[p] = L2;
}
/** R19-R21, after R15 did not return. */
function endIteration(g: Sg, d: S, p: number) {
  const m = d.opM[p];
  const at = p * (g.np + 1) + (tsOfTuple(m) & 15);
  const prev = d.seen[at];
  const returned = secondSight(g.cx, prev, m); // R19-R20
  if (returned !== undefined) return retRead(g, d, p, valOf(returned));
  d.seen[at] = m; // R21
  d.opSt[p] = L0;
}
const takeMRead = (d: S, p: number) => { const m = d.mrRes[p]; d.mrRes[p] = -1; return m; };
const takeLock = (d: S, p: number) => { const r = d.lkRes[p]; d.lkRes[p] = -1; return r; };

// p's local steps in machine.ts's order (kit/table.ts runLocal: rounds to a fixpoint, each
// step's guard asked in turn): App. A's waits, T9, then its operation's (if it had one
// when the round began).
type Local = [guard: (g: Sg, d: S, p: number) => boolean, effect: (g: Sg, d: S, p: number) => void];
const IDLE: Local[] = [
  [ // background-write-done (App. A [inner-write-wait], for W8/R17)
    (g, d, p) => { for (let i = 0; i < d.bgN[p]; i++) if (quorumHas(g.cx, d.cache, d.bg[p * g.capBg + i], p * g.n)) return true; return false; },
    (g, d, p) => {
      const done: number[] = [];
      for (let i = 0; i < d.bgN[p]; i++) if (quorumHas(g.cx, d.cache, d.bg[p * g.capBg + i], p * g.n)) done.push(d.bg[p * g.capBg + i]);
      for (const v of done) { d.bgN[p] = countedRemove(d.bg, d.bgN[p], v, p * g.capBg); mWriteDone(d, v); }
    },
  ],
  [ // inner-write-wait (A8: a majority holds v)
    (g, d, p) => d.mw[p] >= 0 && quorumHas(g.cx, d.cache, d.mw[p], p * g.n),
    (g, d, p) => { mWriteDone(d, d.mw[p]); d.mw[p] = -1; d.mwDone[p] = 1; },
  ],
  [ // read-wait, [cache-max], [invoke-inner-write] (f.324)
    (g, d, p) => d.mrPh[p] === 1 && popcount(d.mrGot[p]) >= g.cx.qM,
    (g, d, p) => {
      const v = g.mut.N5 ? d.mrMx[p] : g.mut.M19 ? d.mrSnap[p] : cacheMax(g, d, p);
      orphan(d, p, MSG_READ);
      if (g.mut.M17) return finishMRead(g, d, p, v); // M17: no write-back
      d.mrPh[p] = 2;
      d.mrV[p] = v;
      innerWrite(g, d, p, v);
    },
  ],
  [ // write-back-done
    (g, d, p) => d.mrPh[p] === 2 && quorumHas(g.cx, d.cache, d.mrV[p], p * g.n),
    (g, d, p) => { const v = d.mrV[p]; mWriteDone(d, v); finishMRead(g, d, p, v); },
  ],
  [ // T9 (f.70): a majority of the CAS loops exited; T10-T12 decide
    (g, d, p) => !g.abs && d.lkQ[p] !== 0 && popcount(d.lkDn[p]) >= g.cx.qL,
    (g, d, p) => finishLock(g, d, p, lockVerdict(g.cx, d.lkW[p], d.lkRd, d.lkDn[p], p * g.n)),
  ],
];
const W = (d: S, p: number, st: number) => d.opK[p] === OP_W && d.opSt[p] === st;
const R = (d: S, p: number, st: number) => d.opK[p] === OP_R && d.opSt[p] === st;
const WRITE_STEPS: Local[] = [
  [ // W6-N4-read: N4 only, the W6 read starts once the write is over
    (g, d, p) => g.mut.N4 && W(d, p, L0) && d.mwDone[p] === 1 && d.mrPh[p] === 0 && d.mrRes[p] < 0 && d.opM[p] === -1,
    (g, d, p) => { startMRead(g, d, p); d.opM[p] = -2; },
  ],
  [ // W7 (f.55-56): M.READ and M.WRITE(w) done; m ≤ w proves the guess fresh
    (g, d, p) => W(d, p, L0) && d.mwDone[p] === 1 && d.mrRes[p] >= 0,
    (g, d, p) => {
      const m = takeMRead(d, p);
      d.mwDone[p] = 0;
      d.opM[p] = m;
      const w = d.opW[p];
      if (fastPath(g.cx, m, w)) {
        if (tsOfTuple(w) <= d.opFl[p]) fail(g, d, 'SG-FastFresh', fastFreshMessage(p, w, d.opFl[p]));
        startMWrite(g, d, p, verified(w), true); // W8: background VERIFIED write
        return retWrite(g, d, p, tsOfTuple(w));
      }
      if (g.mut.M1) return rewrite(g, d, p); // M1: retry without the lock
      startLock(g, d, p, g.mut.M9 ? 0 : tidOfProc(p), lockWord(tsOfTuple(w), WRITE)); // W10 (M9: one shared lock)
      d.opSt[p] = L1;
    },
  ],
  [ // W10 (f.56-58): TRYLOCK((w.ts), WRITE) returned
    (g, d, p) => W(d, p, L1) && d.lkRes[p] >= 0,
    (g, d, p) => {
      const r = takeLock(d, p);
      const w = d.opW[p];
      if (r === 1 || g.mut.M2) {
        if (g.mut.M6) return retWrite(g, d, p, tsOfTuple(w));
        return rewrite(g, d, p);
      }
      if (!countedHas(d.dbl, d.dblN, tsOfTuple(w))) fail(g, d, 'SG-C3', c3Message(p, w));
      if (g.mut.N8) startMWrite(g, d, p, verified(w), true);
      retWrite(g, d, p, tsOfTuple(w));
    },
  ],
  [ // W11-return (f.58)
    (g, d, p) => W(d, p, L2) && d.mwDone[p] === 1,
    (g, d, p) => { d.mwDone[p] = 0; retWrite(g, d, p, d.opWts[p]); },
  ],
];
const READ_STEPS: Local[] = [
  [ // R12-R13: the next iteration reads M
    (g, d, p) => R(d, p, L0),
    (g, d, p) => { d.opIt[p] = Math.min(d.opIt[p] + 1, g.cx.iterBound + 1); startMRead(g, d, p); d.opSt[p] = L1; },
  ],
  [ // R14 (VERIFIED: return), R15 (a GUESSED tuple seen twice: lock it) (f.61-62)
    (g, d, p) => R(d, p, L1) && d.mrRes[p] >= 0,
    (g, d, p) => {
      const m = takeMRead(d, p);
      d.opM[p] = m;
      if (flagOf(m) === VERIFIED) return retRead(g, d, p, valOf(m));
      const t = tsOfTuple(m) & 15;
      const twice = d.seen[p * (g.np + 1) + t] === m;
      if (twice) d.dblN = countedAdd(d.dbl, d.dblN, tsOfTuple(m));
      if (!twice && !g.mut.M5) return endIteration(g, d, p);
      if (g.mut.M3) return retRead(g, d, p, valOf(m));
      startLock(g, d, p, g.mut.M9 ? 0 : t, lockWord(tsOfTuple(m), READ)); // R16: the writer's lock
      d.opSt[p] = L2;
    },
  ],
  [ // R16-R18 (f.63): TRYLOCK(m.ts, READ) returned; True: verify in the background and return
    (g, d, p) => R(d, p, L2) && d.lkRes[p] >= 0,
    (g, d, p) => {
      const r = takeLock(d, p);
      if (r !== 1 && !g.mut.M4) return endIteration(g, d, p);
      startMWrite(g, d, p, verified(d.opM[p]), true); // R17
      retRead(g, d, p, valOf(d.opM[p])); // R18
    },
  ],
];
function pump(g: Sg, d: S, p: number) {
  const steps = g.byKind[d.opK[p]];
  for (let round = 0; round < 10_000; round++) {
    let changed = false;
    for (let i = 0; i < steps.length; i++) {
      if (steps[i][0](g, d, p)) {
        steps[i][1](g, d, p);
        changed = true;
      }
    }
    if (!changed) return;
  }
  throw new Error(`local steps of actor ${p} did not settle within 10000 rounds`);
}

/** p invokes its next script operation (W5 with the guessed clock, or R11). */
function invoke(g: Sg, d: S, p: number, clock: number) {
  const op = g.scripts[p][d.pc[p]++];
  if (op.f === 'write') {
    d.lastC[p] = Math.max(d.lastC[p], clock);
    d.lastG[p] = clock;
    const w = tuple(ts(clock, tidOfProc(p)), GUESSED, op.v);
    d.lin = g.mons.of(linInvoke(g.mons.values[d.lin], p, op.v));
    d.opK[p] = OP_W; d.opSt[p] = L0; d.opV[p] = op.v; d.opW[p] = w; d.opM[p] = -1; d.opFl[p] = d.doneTs; d.opWts[p] = -1;
    startMWrite(g, d, p, w, false); // W6: M.READ ∥ M.WRITE(w) (N4: write first, read after)
    if (!g.mut.N4) startMRead(g, d, p);
  } else {
    d.lin = g.mons.of(linInvoke(g.mons.values[d.lin], p, 0));
    d.opK[p] = OP_R; d.opSt[p] = L0; d.opM[p] = -1; d.opIt[p] = 0;
    d.seen.fill(-1, p * (g.np + 1), (p + 1) * (g.np + 1));
  }
  pump(g, d, p);
}

/** An MN applies a request (A1 read, A8 write, T8 CAS); its response reaches p in the same step, then p runs on. */
function apply(g: Sg, d: S, m: number) {
  const n = g.n;
  d.reqN = countedRemove(d.reqs, d.reqN, m);
  const p = mP(m);
  const c = mC(m);
  const kind = mKind(m);
  const alive = live(d, p); // requests of a crashed client still apply
  if (kind === MSG_READ) {
    if (!alive) return;
    const v = d.regs[c];
    const at = p * n + c;
    d.cache[at] = g.mut['RESP-OVERWRITE'] ? v : Math.max(d.cache[at], v); // [update-cache-r]
    if (readSlot(m) === 0 && d.mrPh[p] === 1) {
      d.mrGot[p] |= 1 << c;
      d.mrMx[p] = Math.max(d.mrMx[p], v);
    }
  } else if (kind === MSG_WRITE) {
    const v = mRest(m);
    d.regs[c] = Math.max(d.regs[c], v);
    if (!alive) return;
    d.cache[p * n + c] = Math.max(d.cache[p * n + c], v); // [update-cache-w]
  } else {
    const q = casQ(m);
    const prev = d.locks[q * n + c];
    const expected = casExpected(m);
    if (prev === expected) {
      const nw = casNw(m);
      if (lowersLock(prev, nw)) fail(g, d, 'TL-S1', s1Message(q, c, prev, nw));
      d.locks[q * n + c] = nw;
    }
    if (!alive) return;
    // T8 at the process; T6's guard decides whether to CAS again
    if (casSlot(m) === 0 && d.lkQ[p] !== 0) {
      const w = d.lkW[p];
      d.lkRd[p * n + c] = prev;
      if (prev === expected) { // [app:split:break]
        if (g.mut.M12) d.lkRd[p * n + c] = w;
        d.lkDn[p] |= 1 << c;
      } else if (casAgain(g.cx, prev, w)) send(g, d, casReq(p, c, d.lkQ[p] - 1, prev, w));
      else d.lkDn[p] |= 1 << c;
    }
  }
  pump(g, d, p);
}

/** M's and TSL's answers p may get now, when they are specifications (App. A f.298-316, f.67). */
function answers(g: Sg, s: S, p: number, out: SgAction[]) {
  if (g.cx.mSpec) {
    // M.READ-returns (App. A, f.298-316): ⊥₀ or any invoked value at least the floor
    if (s.mrPh[p] !== 0) {
      const floor = Math.max(s.mrFrW[p], s.mrFrR[p]);
      for (let i = -1; i < s.invN; i++) {
        const v = i < 0 ? BOTTOM : s.inv[i];
        if (v >= floor) out.push(answer(g, 'M.READ-returns', 0, p, v, v, () => mreadReturnsLabel(p, v)));
      }
    }
    // M.WRITE-returns: a WRITE, and the background writes of W8 and R17, return at any time
    const mw = s.mw[p];
    if (mw >= 0) out.push(answer(g, 'M.WRITE-returns', 1, p, mw, mw, () => mwriteReturnsLabel(p, mw, false)));
    for (let i = 0; i < s.bgN[p]; i++) {
      const v = s.bg[p * g.capBg + i];
      out.push(answer(g, 'M.WRITE-background-returns', 2, p, v, v, () => mwriteReturnsLabel(p, v, true)));
    }
  }
  // TRYLOCK-returns (f.67): any answer the two properties allow
  if (g.abs && s.lkQ[p] !== 0) {
    const q = s.lkQ[p] - 1;
    const w = s.lkW[p];
    if (conflictInvoked(s.tlInv, s.tlInvN[q], w, g.lockAt[q])) out.push(answer(g, 'TRYLOCK-returns', 3, p, w * 2, 0, () => trylockReturnsLabel(p, w, 0)));
    if (!oppositeTrue(s.tlTrue, s.tlTrueN[q], w, g.lockAt[q])) out.push(answer(g, 'TRYLOCK-returns', 3, p, w * 2 + 1, 1, () => trylockReturnsLabel(p, w, 1)));
  }
}

function actions(g: Sg, s: S): SgAction[] {
  const { n, np, cfg } = g;
  const out: SgAction[] = [];
  for (let p = 0; p < np; p++) {
    if (!live(s, p)) continue;
    // invoke: W5 (one action per guess) or R11
    if (s.opK[p] === 0 && s.pc[p] < g.scripts[p].length) for (const a of invokeActions(g, s, p)) out.push(a);
    if (g.cx.mSpec || g.abs) answers(g, s, p, out);
  }
  // apply: an MN applies a request (each distinct message once, in the bag's order)
  for (let i = 0; i < s.reqN; i++) {
    const m = s.reqs[i];
    if ((i === 0 || s.reqs[i - 1] !== m) && !isDown(mnFaults(s), mC(m))) out.push(applyAction(g, m));
  }
  // crashMN: up to f < n/2 MNs crash
  if (crashesOf(mnFaults(s)) < cfg.f) for (const { member } of faultChoices(mnFaults(s), n, { crash: cfg.f })) out.push(g.crashMNs[member]);
  // crashClient: a client crashes mid-operation (or with background writes running)
  if (crashesOf(clientFaults(s)) < cfg.clientCrashes) {
    for (const { member } of faultChoices(clientFaults(s), np, { crash: cfg.clientCrashes }, (p) => s.opK[p] !== 0 || s.bgN[p] > 0)) out.push(g.crashClients[member]);
  }
  return out;
}

function step(g: Sg, d: S, a: SgAction) {
  switch (a.t) {
    case 'invoke':
      invoke(g, d, a.p, a.x);
      break;
    case 'M.READ-returns':
      finishMRead(g, d, a.p, a.x);
      pump(g, d, a.p);
      break;
    case 'M.WRITE-returns':
      mWriteDone(d, a.x);
      d.mw[a.p] = -1;
      d.mwDone[a.p] = 1;
      pump(g, d, a.p);
      break;
    case 'M.WRITE-background-returns':
      mWriteDone(d, a.x);
      d.bgN[a.p] = countedRemove(d.bg, d.bgN[a.p], a.x, a.p * g.capBg);
      pump(g, d, a.p);
      break;
    case 'TRYLOCK-returns':
      finishLock(g, d, a.p, a.x);
      pump(g, d, a.p);
      break;
    case 'apply':
      apply(g, d, a.x);
      break;
    case 'crashMN': // requests to a crashed MN are lost
      d.mns.set(applyFault(mnFaults(d), 'crash', a.x));
      d.reqN = countedRemoveWhere(d.reqs, d.reqN, (m) => mC(m) === a.x);
      break;
    case 'crashClient': crashClient(g, d, a.p); break;
  }
}

/** A client crashes: its requests in flight still land (Lemma C.5 "for ever"). */
function crashClient(g: Sg, d: S, p: number) {
  const { n, capBg } = g;
  if (d.opK[p] !== 0) d.lin = g.mons.of(monCrash(registerSlot, g.mons.values[d.lin], p));
  clearFrame(g, d, p);
  d.mrPh[p] = 0; d.mrGot[p] = 0; d.mrV[p] = 0; d.mrFrW[p] = 0; d.mrFrR[p] = 0; d.mrSnap[p] = 0; d.mrMx[p] = 0;
  d.mrRes[p] = -1; d.mw[p] = -1; d.mwDone[p] = 0;
  d.bg.fill(0, p * capBg, (p + 1) * capBg);
  d.bgN[p] = 0;
  d.lkQ[p] = 0; d.lkW[p] = 0; d.lkDn[p] = 0;
  d.lkRd.fill(0, p * n, p * n + n);
  d.lkRes[p] = -1;
  d.clients.set(applyFault(clientFaults(d), 'crash', p));
}

function mayStop(g: Sg, s: S): boolean {
  if (s.viol !== 0) return true;
  for (let p = 0; p < g.np; p++) if (live(s, p) && !(s.opK[p] === 0 && s.pc[p] === g.scripts[p].length && s.bgN[p] === 0)) return false;
  return true;
}
const bad = (s: S, x: number) => flagOf(x) === VERIFIED && countedHas(s.rew, s.rewN, tsOfTuple(x));
/** The first tuple SG-VerifiedFinal forbids, where invariants.ts looks, in its order. */
function verifiedRewritten(g: Sg, s: S): number | undefined {
  const { n, np, capBg } = g;
  for (let i = 0; i < n; i++) if (bad(s, s.regs[i])) return s.regs[i];
  for (let i = 0; i < s.invN; i++) if (bad(s, s.inv[i])) return s.inv[i];
  for (let p = 0; p < np; p++) {
    for (let i = 0; i < n; i++) if (bad(s, s.cache[p * n + i])) return s.cache[p * n + i];
    for (let i = 0; i < s.bgN[p]; i++) if (bad(s, s.bg[p * capBg + i])) return s.bg[p * capBg + i];
    if (bad(s, s.mw[p])) return s.mw[p];
  }
  for (let i = 0; i < s.reqN; i++) if (mKind(s.reqs[i]) === MSG_WRITE && bad(s, mRest(s.reqs[i]))) return mRest(s.reqs[i]);
  return undefined;
}
// Named and ordered as the plain machine's (invariants.ts): the first failure a state shows is the same.
function invariantsOf(g: Sg): Record<string, (s: S) => Check> {
  const { n, np, cx } = g;
  const invariants: Record<string, (s: S) => Check> = {};
  const fromViol = (name: string) => (s: S): Check => {
    if (s.viol === 0) return true;
    for (const [prop, message] of g.viols.values[s.viol]) if (prop === name) return message;
    return true;
  };
  for (const name of ['SG-Lin', 'SG-LockRewriteExcl', 'SG-C3', 'SG-FastFresh', 'MR-Valid', 'MR-RR', 'MR-WR', 'TL-Excl', 'TL-TrueSafety', 'TL-S1']) invariants[name] = fromViol(name);
  invariants['SG-VerifiedFinal'] = (s) => {
    if (s.rewN === 0) return true;
    const found = verifiedRewritten(g, s);
    return found === undefined ? true : `${showTuple(found)} is VERIFIED although its write rewrote that timestamp (W11)`;
  };
  invariants['SG-WF-R'] = (s) => {
    for (let p = 0; p < np; p++) if (s.opK[p] === OP_R && s.opIt[p] > cx.iterBound) return `READ by ${procName(p)} is in iteration ${s.opIt[p]} > 2P+1 = ${cx.iterBound} (Lemma C.5)`;
    return true;
  };
  if (!cx.mSpec) invariants['MR-S1'] = (s) => {
    for (let p = 0; p < np; p++) for (let i = 0; i < n; i++) if (s.cache[p * n + i] > s.regs[i]) return mrS1Message(p, i, s.cache[p * n + i], s.regs[i]);
    return true;
  };
  if (!cx.mSpec) invariants['MR-S2'] = (s) => {
    const v = Math.max(s.cR, s.cW);
    let at = 0;
    for (let i = 0; i < n; i++) if (s.regs[i] >= v) at++;
    return at >= cx.maj ? true : mrS2Message(v, at, cx.maj);
  };
  return invariants;
}

export function buildSg(cfg: SwarmConfig, variant?: string): Machine {
  if (!sgLayerOnly(cfg, variant)) throw new Error('swarm sg: not a Safe-Guess config within the words\' bounds (sgLayerOnly)');
  const g = new Sg(cfg, context(cfg, VARIANTS.flags(variant), () => {}));
  const { n, np, nLocks, cx } = g;
  const writes = writesOf(cfg);
  // M's specification keeps the M.WRITE values invoked: per WRITE its tuple, its VERIFIED
  // form (W8, N8, R17), its rewrite, and that rewrite VERIFIED (R17 after N1).
  const capInv = cx.mSpec ? 4 * writes : 0;
  const L = sgLayout(np, n, nLocks, g.cap, g.capBg, Math.max(1, g.capLocks.reduce((a, b) => a + b, 0)), Math.max(1, writes), Math.max(1, 2 * writes), capInv);
  const lin0 = g.mons.of(monInit(registerSlot));
  g.viols.of([]);
  const machine = layoutMachine(L, {
    init: () => [{
      regs: Array(n).fill(BOTTOM), locks: Array(nLocks * n).fill(NOLOCK), cache: Array(np * n).fill(BOTTOM),
      mrRes: Array(np).fill(-1), mw: Array(np).fill(-1), lkRes: Array(np).fill(-1), last: Array(np).fill(-1),
      cR: BOTTOM, cW: BOTTOM, lin: lin0,
    }],
    actions: (s) => actions(g, s),
    step: (d, a) => step(g, d, a),
    invariants: invariantsOf(g),
    mayStop: (s) => mayStop(g, s),
    actor: (a) => (a.t === 'crashMN' ? `mn${a.x}` : procName(a.p)),
  }, { local: true }); // `lin` and `viol` are Numbered: another process's build numbers them in another order
  machine.history = sgHistory<S, SgAction>(cfg, {
    pc: (s, p) => s.pc[p],
    pending: (s, p) => s.opK[p] !== 0,
    last: (s, p) => s.last[p],
    invokes: (a) => a.t === 'invoke',
    crashes: (a) => a.t === 'crashClient',
  });
  return machine as unknown as Machine;
}
