// The reliable max register's unit configs (maxreg-*, §8.3 C6) on the kit's word layout: M
// over n fallible max registers with majorities and the per-process cache (App. A), with
// processes whose scripts are M.READs and M.WRITEs only. The same machine as machine.ts
// builds for these configs (the same states, transitions, order of actions and labels:
// equivalence.json), with its state as words, so that the engine copies, hashes and stores
// the words as they are (its layout path), as ino.ts and lock.ts do.
//
// The properties' messages and the labels are maxreg.ts's, shared with the plain machine
// that Safe-Guess runs on; the quorum test is context.ts's.
//
// Lists are fixed-capacity with a count, unused entries 0; a part that is absent (no
// operation in progress, no violation) is all 0. A message is one number that orders as its
// tuple does (kit/network.ts `compareMsg`: process, MN, kind, then the rest), and a bag is
// a sorted counted list of them (lock.ts): equal bags are equal words, and the actions that
// apply or deliver messages come in the plain machine's order.

import type { Action, Check, Machine } from '../../checkers/explore/types.ts';
import { applyFault, crashesOf, faultChoices, isDown, type Faults } from '../kit/faults.ts';
import { countedAdd, countedHas, countedInsert, countedRemove, countedRemoveWhere, countedSort, int, ints, layout, layoutMachine, type LayoutState } from '../kit/layout.ts';
import { popcount } from '../kit/state.ts';
import { runLocal, type LocalStep } from '../kit/table.ts';
import { context, quorumHas, type Cx } from './context.ts';
import {
  mrRrMessage, mrS1Message, mrS2Message, mrValidMessage, mrWrMessage, mreadLabel, mwriteLabel, readLabel, readRspLabel, writeAckLabel, writeLabel,
} from './maxreg.ts';
import { VARIANTS } from './mutants.ts';
import type { SwarmConfig } from './state.ts';
import { BOTTOM, procName } from './tuple.ts';

/**
 * Whether a config is the max-register layer alone, which this machine runs (App. A's
 * construction, no client crashes, leftover messages kept, within the message numbers'
 * bounds below, scripts under 64 operations as the invoke actions' keys need; a negative
 * value would read as a READ, -1 being READ's mark); the others run on the plain machine.
 */
export const maxregLayerOnly = (cfg: SwarmConfig): boolean =>
  cfg.m === 'quorum' && cfg.clientCrashes === 0 && cfg.late === 'keep' && cfg.scripts.length <= 8 && cfg.n <= 8 &&
  cfg.scripts.every((s) => s.length < 64 && s.every((o) => o.f === 'mread' || (o.f === 'mwrite' && o.v >= 0 && o.v < V)));

// ---- messages as numbers ordered as their tuples (state.ts ReadReq, WriteReq, ReadRsp, WriteAck) ----
// [p, mn, 0, slot], [p, mn, 1, v], [p, mn, 0, slot, v], [p, mn, 1, v]: p and mn under 8,
// slot -1 or 0, values (packed tuples) under 2^16; 1 added, so that 0 is no message.
const B = 16;
const V = 1 << B;
const msg = (p: number, c: number, kind: number, rest: number): number => ((p * 8 + c) * 2 + kind) * 2 * V + rest + 1;
const readReq = (p: number, c: number, slot: number) => msg(p, c, 0, (slot + 1) * V);
const writeMsg = (p: number, c: number, v: number) => msg(p, c, 1, v);
const readRsp = (p: number, c: number, slot: number, v: number) => msg(p, c, 0, (slot + 1) * V + v);
const mP = (m: number) => (m - 1) >> (B + 5);
const mC = (m: number) => ((m - 1) >> (B + 2)) & 7;
const mKind = (m: number) => ((m - 1) >> (B + 1)) & 1;
const mSlot = (m: number) => (((m - 1) >> B) & 1) - 1; // a read's
const mV = (m: number) => (m - 1) & (V - 1); // a write's value, a read response's
/** A read of a returned M.READ (slot -1): it still updates the cache, counts for nothing. */
const ORPHAN = V;

type Kind = 'invoke' | 'apply' | 'deliver' | 'crashMN';

export interface MregAction extends Action {
  t: Kind;
  p: number;
  /** The message (apply, deliver) or the MN (crashMN). */
  x: number;
}

function mregLayout(np: number, n: number, cap: number, nWrites: number, fused: boolean, splitReads: boolean) {
  return layout({
    regs: ints(n), // the fallible max register of each MN (A1)
    mns: ints(5), // the MNs' crashes (kit/faults.ts Faults)
    // Per process: its script position, cache[1..n] (App. A), the value its last M.READ returned.
    pc: ints(np),
    cache: ints(np * n),
    last: ints(np),
    // Its M.WRITE in progress: the value (0: none).
    mw: ints(np),
    // Its M.READ in progress (1: collecting a majority, 2: writing back; 0: none): the MNs
    // that responded, the value written back, the ghost's floors, max(cache) at invocation
    // (M19) and the max of its own responses (N5).
    mr: ints(np),
    got: ints(np),
    mrV: ints(np),
    frW: ints(np),
    frR: ints(np),
    snap: ints(np),
    mx: ints(np),
    // The network: requests and responses in flight, sorted counted lists of message numbers.
    reqN: int,
    reqs: ints(cap),
    rspN: int,
    rsps: ints(fused && !splitReads ? 0 : cap),
    // The ghost: max completed read and write, invoked M.WRITE values (a sorted set).
    cR: int,
    cW: int,
    invN: int,
    inv: ints(nWrites),
    // The first failure of each property and the numbers its message names (0: none).
    vValid: int, // MR-Valid: the value
    vRr: int, // MR-RR: 1 + the process, the value, the floor
    vRrV: int,
    vRrF: int,
    vWr: int, // MR-WR: the same
    vWrV: int,
    vWrF: int,
  });
}

/** The state's fields a report hides unless asked (the ghost and the violations). */
export const MREG_INTERNAL = ['frW', 'frR', 'snap', 'mx', 'cR', 'cW', 'invN', 'inv', 'vValid', 'vRr', 'vRrV', 'vRrF', 'vWr', 'vWrV', 'vWrF'];

type S = LayoutState<ReturnType<typeof mregLayout>['fields']>;
const faults = (s: S) => s.mns as unknown as Faults;

/**
 * What one config's steps read: its config, context, scripts and the actions made so far.
 * The steps are the module's functions taking it, not closures per config, so that each is
 * compiled once for every config (sg.ts's Sg says why); a class, one shape for all.
 */
class Mreg {
  readonly n: number;
  readonly nprocs: number;
  readonly mut: Cx['mut'];
  /** Per process, its script: an M.WRITE's value, or -1 for an M.READ. */
  readonly ops: number[][];
  // Actions by what they name, made once each (labels are not built per state): one map per
  // kind, keyed by an integer small enough to stay unboxed (a message number, (process, position)).
  readonly made = Array.from({ length: 4 }, () => new Map<number, MregAction>());
  constructor(readonly cfg: SwarmConfig, readonly cx: Cx) {
    this.n = cx.n; this.nprocs = cx.nprocs; this.mut = cx.mut;
    this.ops = cfg.scripts.map((s) => s.map((o) => (o.f === 'mwrite' ? o.v : -1))); // -1: an M.READ
  }
}

function action(g: Mreg, t: Kind, code: number, key: number, p: number, x: number, label: () => string): MregAction {
  let a = g.made[code].get(key);
  if (a === undefined) g.made[code].set(key, (a = { label: label(), t, p, x }));
  return a;
}
const respondsLater = (g: Mreg, kind: number) => !g.cfg.fused || (kind === 0 && g.cfg.splitReads === true);
const sendReq = (d: S, m: number) => { d.reqN = countedInsert(d.reqs, d.reqN, m); };
function cacheMax(g: Mreg, d: S, p: number) {
  const n = g.n;
  let m = d.cache[p * n];
  for (let i = 1; i < n; i++) if (d.cache[p * n + i] > m) m = d.cache[p * n + i];
  return m;
}

/** A4-A8 inner_write(v): write to every MN whose cached bound is below v. */
function innerWrite(g: Mreg, d: S, p: number, v: number) {
  const n = g.n;
  for (let i = 0; i < n; i++) {
    if (d.cache[p * n + i] >= v) continue; // A6
    if (!isDown(faults(d), i)) sendReq(d, writeMsg(p, i, v)); // A8; a request to a crashed MN is lost
    // M18: the cache records the write when it is issued, not on its ack ([update-cache-w])
    if (g.mut.M18) d.cache[p * n + i] = Math.max(d.cache[p * n + i], v);
  }
}

/** M.READ returns v: checked against the weak specification (MR-WR, MR-RR, MR-Valid; f.298-316); the operation ends (M.READ-done). */
function finishMRead(g: Mreg, d: S, p: number, v: number) {
  if (v < d.frW[p] && d.vWr === 0) { d.vWr = p + 1; d.vWrV = v; d.vWrF = d.frW[p]; }
  if (v < d.frR[p] && d.vRr === 0) { d.vRr = p + 1; d.vRrV = v; d.vRrF = d.frR[p]; }
  if (g.cx.mLayer && v !== BOTTOM && !countedHas(d.inv, d.invN, v) && d.vValid === 0) d.vValid = v; // (no M.WRITE in the scripts: not checked, as maxreg.ts)
  d.cR = Math.max(d.cR, v);
  d.mr[p] = 0; d.got[p] = 0; d.mrV[p] = 0; d.frW[p] = 0; d.frR[p] = 0; d.snap[p] = 0; d.mx[p] = 0;
  d.last[p] = v;
}

/** p's M.READ's reads in a bag become orphans (slot -1). */
function orphanIn(xs: Int32Array, k: number, p: number) {
  let moved = false;
  for (let i = 0; i < k; i++) if (mP(xs[i]) === p && mKind(xs[i]) === 0 && mSlot(xs[i]) === 0) { xs[i] -= ORPHAN; moved = true; }
  if (moved) countedSort(xs, k);
}
/** p's M.READ's reads in flight become orphans. */
function orphanReads(d: S, p: number) {
  orphanIn(d.reqs, d.reqN, p);
  orphanIn(d.rsps, d.rspN, p);
}

// App. A's waits, as local steps of process p, in maxreg.ts's order (mLocalSteps, then the
// unit operations' ends); run to a fixpoint after each of p's steps (kit/table.ts runLocal).
const LOCAL: LocalStep<S, Mreg>[] = [
  {
    name: 'inner-write-wait', cites: 'App. A [inner-write-wait] (A8: a majority holds v); the M.WRITE returns',
    guard: (d, p, g) => d.mw[p] !== 0 && quorumHas(g.cx, d.cache, d.mw[p], p * g.n),
    effect: (d, p) => { d.cW = Math.max(d.cW, d.mw[p]); d.mw[p] = 0; },
  },
  {
    name: 'read-wait', cites: 'App. A [read-wait], [cache-max], [invoke-inner-write] (f.324)',
    guard: (d, p, g) => d.mr[p] === 1 && popcount(d.got[p]) >= g.cx.qM,
    effect: (d, p, g) => {
      // [cache-max] over the whole cache (N5: own responses only; M19: the cache at invocation)
      const v = g.mut.N5 ? d.mx[p] : g.mut.M19 ? d.snap[p] : cacheMax(g, d, p);
      orphanReads(d, p);
      if (g.mut.M17) return finishMRead(g, d, p, v); // M17: no write-back
      d.mr[p] = 2;
      d.mrV[p] = v;
      innerWrite(g, d, p, v); // [invoke-inner-write]
    },
  },
  {
    name: 'write-back-done', cites: 'App. A READ returns once its write-back is at a majority',
    guard: (d, p, g) => d.mr[p] === 2 && quorumHas(g.cx, d.cache, d.mrV[p], p * g.n),
    effect: (d, p, g) => {
      const v = d.mrV[p];
      d.cW = Math.max(d.cW, v);
      finishMRead(g, d, p, v);
    },
  },
];
const settle = (g: Mreg, d: S, p: number) => runLocal(LOCAL, d, p, undefined, g);

/** A response reaches its process: [update-cache-r] or [update-cache-w]; then p runs on. */
function deliver(g: Mreg, d: S, m: number) {
  const p = mP(m);
  const c = mC(m);
  const v = mV(m);
  const at = p * g.n + c;
  if (mKind(m) === 0) { // [update-cache-r] (RESP-OVERWRITE: the response overwrites instead of raising)
    d.cache[at] = g.mut['RESP-OVERWRITE'] ? v : Math.max(d.cache[at], v);
    if (mSlot(m) === 0 && d.mr[p] === 1) {
      d.got[p] |= 1 << c;
      d.mx[p] = Math.max(d.mx[p], v);
    }
  } else d.cache[at] = Math.max(d.cache[at], v); // [update-cache-w]
  settle(g, d, p);
}

function actions(g: Mreg, s: S): MregAction[] {
  const { n, nprocs, ops, cfg } = g;
  const out: MregAction[] = [];
  // invoke: App. A READ or WRITE
  for (let p = 0; p < nprocs; p++) {
    const pc = s.pc[p];
    if (s.mr[p] === 0 && s.mw[p] === 0 && pc < ops[p].length) {
      const v = ops[p][pc];
      out.push(action(g, 'invoke', 0, p * 64 + pc, p, 0, () => (v < 0 ? mreadLabel(p) : mwriteLabel(p, v))));
    }
  }
  // apply: an MN applies a request (each distinct message once, in the bag's order)
  for (let i = 0; i < s.reqN; i++) {
    const m = s.reqs[i];
    if ((i === 0 || s.reqs[i - 1] !== m) && !isDown(faults(s), mC(m))) {
      out.push(action(g, 'apply', 1, m, mP(m), m, () => (mKind(m) === 0 ? readLabel(mP(m), mC(m)) : writeLabel(mP(m), mC(m), mV(m)))));
    }
  }
  // deliver: a response reaches its process
  for (let i = 0; i < s.rspN; i++) {
    const m = s.rsps[i];
    if (i === 0 || s.rsps[i - 1] !== m) out.push(action(g, 'deliver', 2, m, mP(m), m, () => (mKind(m) === 0 ? readRspLabel(mP(m), mC(m), mV(m)) : writeAckLabel(mP(m), mC(m), mV(m)))));
  }
  // crashMN: up to f < n/2 MNs crash
  if (crashesOf(faults(s)) < cfg.f) {
    for (const { member } of faultChoices(faults(s), n, { crash: cfg.f })) out.push(action(g, 'crashMN', 3, member, -1, member, () => `crashMN(mn${member})`));
  }
  return out;
}

function step(g: Mreg, d: S, a: MregAction) {
  const p = a.p;
  switch (a.t) {
    case 'invoke': {
      const v = g.ops[p][d.pc[p]++];
      if (v < 0) { // App. A READ: [read-for-start], read every MN asynchronously
        d.mr[p] = 1; d.got[p] = 0; d.mrV[p] = -1; d.frW[p] = d.cW; d.frR[p] = d.cR; d.snap[p] = cacheMax(g, d, p); d.mx[p] = BOTTOM;
        for (let i = 0; i < g.n; i++) if (!isDown(faults(d), i)) sendReq(d, readReq(p, i, 0));
      } else { // App. A WRITE: A4-A8 inner_write(v)
        d.invN = countedAdd(d.inv, d.invN, v);
        innerWrite(g, d, p, v);
        d.mw[p] = v;
      }
      settle(g, d, p);
      break;
    }
    case 'apply': { // an MN applies a read (A1) or A8's write (a fallible max register keeps the max)
      const m = a.x;
      d.reqN = countedRemove(d.reqs, d.reqN, m);
      const c = mC(m);
      const kind = mKind(m);
      let rsp: number;
      if (kind === 0) rsp = readRsp(p, c, mSlot(m), d.regs[c]);
      else {
        d.regs[c] = Math.max(d.regs[c], mV(m));
        rsp = m; // the ack is the request's tuple
      }
      if (respondsLater(g, kind)) d.rspN = countedInsert(d.rsps, d.rspN, rsp);
      else deliver(g, d, rsp);
      break;
    }
    case 'deliver':
      d.rspN = countedRemove(d.rsps, d.rspN, a.x);
      deliver(g, d, a.x);
      break;
    case 'crashMN': // requests to a crashed MN are lost
      d.mns.set(applyFault(faults(d), 'crash', a.x));
      d.reqN = countedRemoveWhere(d.reqs, d.reqN, (m) => mC(m) === a.x);
      break;
  }
}

function mayStop(g: Mreg, s: S): boolean {
  if (s.vValid !== 0 || s.vRr !== 0 || s.vWr !== 0) return true;
  for (let p = 0; p < g.nprocs; p++) if (s.mr[p] !== 0 || s.mw[p] !== 0 || s.pc[p] !== g.ops[p].length) return false;
  return true;
}

export function buildMreg(cfg: SwarmConfig, variant?: string): Machine {
  const g = new Mreg(cfg, context(cfg, VARIANTS.flags(variant), () => {}));
  const { n, nprocs, ops, cx } = g;
  // in flight per operation: an M.READ's n reads and n write-backs, an M.WRITE's n writes
  const cap = n * ops.reduce((k, s) => k + s.reduce((j, v) => j + (v < 0 ? 2 : 1), 0), 0);
  const nWrites = ops.reduce((k, s) => k + s.filter((v) => v >= 0).length, 0);
  if (!maxregLayerOnly(cfg)) throw new Error('swarm maxreg: not a config of the max-register layer alone within its bounds (maxregLayerOnly)');
  const L = mregLayout(nprocs, n, cap, Math.max(1, nWrites), cfg.fused, cfg.splitReads === true);
  return layoutMachine(L, {
    init: () => [{ cR: BOTTOM, cW: BOTTOM, regs: Array.from({ length: n }, () => BOTTOM), cache: Array.from({ length: nprocs * n }, () => BOTTOM), last: Array.from({ length: nprocs }, () => -1) }],
    actions: (s) => actions(g, s),
    step: (d, a) => step(g, d, a),
    // Named and ordered as the plain machine's (invariants.ts): the first failure a state shows is the same.
    invariants: {
      'MR-Valid': (s: S): Check => (s.vValid === 0 ? true : mrValidMessage(s.vValid)),
      'MR-RR': (s: S): Check => (s.vRr === 0 ? true : mrRrMessage(s.vRr - 1, s.vRrV, s.vRrF)),
      'MR-WR': (s: S): Check => (s.vWr === 0 ? true : mrWrMessage(s.vWr - 1, s.vWrV, s.vWrF)),
      'MR-S1': (s: S): Check => {
        for (let p = 0; p < nprocs; p++) for (let i = 0; i < n; i++) if (s.cache[p * n + i] > s.regs[i]) return mrS1Message(p, i, s.cache[p * n + i], s.regs[i]);
        return true;
      },
      'MR-S2': (s: S): Check => {
        const v = Math.max(s.cR, s.cW);
        let at = 0;
        for (let i = 0; i < n; i++) if (s.regs[i] >= v) at++;
        return at >= cx.maj ? true : mrS2Message(v, at, cx.maj);
      },
    },
    mayStop: (s) => mayStop(g, s),
    actor: (a) => (a.t === 'crashMN' ? `mn${a.x}` : procName(a.p)),
  }) as unknown as Machine;
}
