// The timestamp lock's unit configs (lock-*, §8.3 C5) on the kit's word layout: TSL[0]
// built from n fallible CAS objects (App. B, T1-T12), or its abstract specification
// (f.67), with processes whose scripts are TRYLOCKs only. The same machine as machine.ts
// builds for these configs (the same states, transitions, order of actions and labels:
// equivalence.json), with its state as words, so that the engine copies, hashes and stores
// the words as they are (its layout path: no allocation per step), as ino.ts does.
//
// The lock's decisions (T6, T10-T12), the two properties of f.67, TL-S1 and the labels are
// tsl.ts's, shared with the plain machine that Safe-Guess runs on.
//
// Every part has a bound the config fixes, so lists are fixed-capacity with a count, their
// unused entries 0, and a part that is absent (no TRYLOCK in progress, no violation) is
// all 0. A message is one number that orders as its tuple does (kit/network.ts
// `compareMsg`: process, object, slot, then the rest), and a bag is a sorted counted list of
// those numbers: equal bags are equal words, and the bag's order, which fixes the order of
// the actions that apply or deliver its messages (a breadth-first search's meaning), is
// the plain machine's.

import type { Action, Check, Machine } from '../../checkers/explore/types.ts';
import { applyFault, crashesOf, faultChoices, isDown, type Faults } from '../kit/faults.ts';
import { countedAdd, countedInsert, countedRemove, countedRemoveWhere, countedSort, int, ints, layout, layoutMachine, type LayoutState } from '../kit/layout.ts';
import { popcount } from '../kit/state.ts';
import { context, type Cx } from './context.ts';
import { VARIANTS } from './mutants.ts';
import type { SwarmConfig } from './state.ts';
import {
  casAgain, casLabel, casRspLabel, conflictInvoked, exclMessage, lockVerdict, lowersLock, oppositeTrue, s1Message, trueSafetyMessage,
  trylockLabel, trylockReturnsLabel, trylockWord,
} from './tsl.ts';
import { NOLOCK, procName } from './tuple.ts';

/**
 * Whether a config is the lock layer alone, which this machine runs (no client crashes,
 * leftover CASes kept, within the message numbers' bounds below, scripts under 64 operations
 * as the invoke actions' keys need); the others run on the plain machine.
 */
export const lockLayerOnly = (cfg: SwarmConfig): boolean =>
  cfg.clientCrashes === 0 && cfg.late === 'keep' && cfg.scripts.length <= 8 && cfg.n <= 8 &&
  cfg.scripts.every((s) => s.length < 64 && s.every((o) => o.f === 'trylock' && trylockWord(o) < W9 - 1));

/** The lock configs' TRYLOCKs all go to TSL[0] (safeguess.ts, the TRYLOCK unit step). */
const Q = 0;

// ---- messages as numbers ordered as their tuples (state.ts CasReq, CasRsp) ----
// [p, c, 2, slot, q, expected, nw] and [p, c, 2, slot, prev, expected]: p, c and q under 8,
// slot -1 or 0, lock words under 511 (clocks under 16); 1 added, so that 0 is no message.
const W9 = 512;
const casReq = (p: number, c: number, slot: number, q: number, expected: number, nw: number): number =>
  ((((p * 8 + c) * 2 + slot + 1) * 8 + q) * W9 + expected + 1) * W9 + nw + 1 + 1;
const reqP = (m: number) => (m - 1) >> 25;
const reqC = (m: number) => ((m - 1) >> 22) & 7;
const reqSlot = (m: number) => (((m - 1) >> 21) & 1) - 1;
const reqQ = (m: number) => ((m - 1) >> 18) & 7;
const reqExpected = (m: number) => (((m - 1) >> 9) & 511) - 1;
const reqNw = (m: number) => ((m - 1) & 511) - 1;
const casRsp = (p: number, c: number, slot: number, prev: number, expected: number): number =>
  (((p * 8 + c) * 2 + slot + 1) * W9 + prev + 1) * W9 + expected + 1 + 1;
const rspP = (m: number) => (m - 1) >> 22;
const rspC = (m: number) => ((m - 1) >> 19) & 7;
const rspSlot = (m: number) => (((m - 1) >> 18) & 1) - 1;
const rspPrev = (m: number) => (((m - 1) >> 9) & 511) - 1;
const rspExpected = (m: number) => ((m - 1) & 511) - 1;
/** The same message, an orphan (slot -1): its TRYLOCK returned (T9). */
const ORPHAN_REQ = 1 << 21;
const ORPHAN_RSP = 1 << 18;

type Kind = 'invoke' | 'TRYLOCK-returns' | 'apply' | 'deliver' | 'crashMN';

export interface LockAction extends Action {
  t: Kind;
  p: number;
  /** The lock result (TRYLOCK-returns), the message (apply, deliver) or the MN (crashMN). */
  x: number;
}

function lockLayout(np: number, n: number, nOps: number, fused: boolean) {
  const cap = n * nOps; // in flight: per TRYLOCK, one CAS (or its response) per object
  return layout({
    tsl: ints(n), // TSL[0]'s CAS objects (T1), ⊥ = NOLOCK
    mns: ints(5), // the MNs' crashes (kit/faults.ts Faults)
    // Per process: its script position and its TRYLOCK in progress (T4-T9: own word,
    // read[c], the objects whose loops exited; all 0 when none).
    pc: ints(np),
    tl: ints(np),
    own: ints(np),
    rd: ints(np * n),
    dn: ints(np),
    // The network: requests and responses in flight, sorted counted lists of message numbers.
    reqN: int,
    reqs: ints(cap),
    rspN: int,
    rsps: ints(fused ? 0 : cap), // fused: a response is delivered in the step that applies its request
    // The ghost: TSL[0]'s invoked words and those that returned True, sorted sets.
    invN: int,
    inv: ints(nOps),
    trueN: int,
    tru: ints(nOps),
    // The first failure of each property and the numbers its message names (0: none).
    vExcl: int, // TL-Excl: the word
    vSafe: int, // TL-TrueSafety: the word, and the process
    vSafeP: int,
    vS1: int, // TL-S1: 1 + the object, its previous and new word
    vS1Prev: int,
    vS1New: int,
  });
}

/** The state's fields a report hides unless asked (the ghost and the violations). */
export const LOCK_INTERNAL = ['invN', 'inv', 'trueN', 'tru', 'vExcl', 'vSafe', 'vSafeP', 'vS1', 'vS1Prev', 'vS1New'];

type S = LayoutState<ReturnType<typeof lockLayout>['fields']>;
const faults = (s: S) => s.mns as unknown as Faults;

/**
 * What one config's steps read: its config, context, scripts and the actions made so far.
 * The steps are the module's functions taking it, not closures per config, so that each is
 * compiled once for every config (sg.ts's Sg says why); a class, one shape for all.
 */
class Lock {
  readonly n: number;
  readonly nprocs: number;
  readonly abs: boolean;
  /** Per process, its TRYLOCKs' words. */
  readonly words: number[][];
  // Actions by what they name, made once each (labels are not built per state): one map per
  // kind, keyed by an integer small enough to stay unboxed (a message number, (process, position)).
  readonly made = Array.from({ length: 5 }, () => new Map<number, LockAction>());
  constructor(readonly cfg: SwarmConfig, readonly cx: Cx) {
    this.n = cx.n; this.nprocs = cx.nprocs;
    this.abs = cfg.lock === 'abstract';
    this.words = cfg.scripts.map((s) => s.map((o) => (o.f === 'trylock' ? trylockWord(o) : NOLOCK)));
  }
}

function action(g: Lock, t: Kind, code: number, key: number, p: number, x: number, label: () => string): LockAction {
  let a = g.made[code].get(key);
  if (a === undefined) g.made[code].set(key, (a = { label: label(), t, p, x }));
  return a;
}
const sendReq = (d: S, m: number) => { d.reqN = countedInsert(d.reqs, d.reqN, m); };

/** T9's end for p: TRYLOCK returns r, checked against f.67 (TL-TrueSafety, TL-Excl); its CASes in flight become orphans. */
function finishLock(g: Lock, d: S, p: number, r: number) {
  const w = d.own[p];
  if (r === 0) {
    if (!conflictInvoked(d.inv, d.invN, w) && d.vSafe === 0) { d.vSafe = w; d.vSafeP = p; }
  } else {
    if (oppositeTrue(d.tru, d.trueN, w) && d.vExcl === 0) d.vExcl = w;
    d.trueN = countedAdd(d.tru, d.trueN, w);
  }
  if (!g.abs) { // T9: loops still running stop; sent CASes may still land
    let moved = false;
    for (let i = 0; i < d.reqN; i++) if (reqP(d.reqs[i]) === p && reqSlot(d.reqs[i]) === 0) { d.reqs[i] -= ORPHAN_REQ; moved = true; }
    if (moved) countedSort(d.reqs, d.reqN);
    moved = false;
    for (let i = 0; i < d.rspN; i++) if (rspP(d.rsps[i]) === p && rspSlot(d.rsps[i]) === 0) { d.rsps[i] -= ORPHAN_RSP; moved = true; }
    if (moved) countedSort(d.rsps, d.rspN);
  }
  d.tl[p] = 0; d.own[p] = 0; d.dn[p] = 0; // the TRYLOCK returned (TRYLOCK-done)
  d.rd.fill(0, p * g.n, p * g.n + g.n);
}

/** T8 at the process: the CAS returned prev; T6's guard decides whether to CAS again; then T9. */
function deliverCas(g: Lock, d: S, m: number) {
  const { n, cx } = g;
  const p = rspP(m);
  const c = rspC(m);
  if (rspSlot(m) !== 0 || d.tl[p] === 0) return;
  const prev = rspPrev(m);
  const w = d.own[p];
  d.rd[p * n + c] = prev;
  if (prev === rspExpected(m)) { // [app:split:break]
    if (cx.mut.M12) d.rd[p * n + c] = w;
    d.dn[p] |= 1 << c;
  } else if (casAgain(cx, prev, w)) sendReq(d, casReq(p, c, 0, Q, prev, w)); // T6 guard holds: CAS again
  else d.dn[p] |= 1 << c;
  // T9: a majority of the loops exited; T10-T12 decide
  if (!g.abs && popcount(d.dn[p]) >= cx.qL) finishLock(g, d, p, lockVerdict(cx, w, d.rd, d.dn[p], p * n));
}

function actions(g: Lock, s: S): LockAction[] {
  const { n, nprocs, words, abs, cfg } = g;
  const out: LockAction[] = [];
  for (let p = 0; p < nprocs; p++) {
    const pc = s.pc[p];
    // invoke: T4 TRYLOCK on TSL[0]
    if (s.tl[p] === 0 && pc < words[p].length) out.push(action(g, 'invoke', 0, p * 64 + pc, p, 0, () => trylockLabel(p, words[p][pc])));
    // TRYLOCK-returns (the abstract lock, f.67): any answer the two properties allow
    if (abs && s.tl[p] === 1) {
      const w = s.own[p];
      if (conflictInvoked(s.inv, s.invN, w)) out.push(action(g, 'TRYLOCK-returns', 1, (p * W9 + w) * 2, p, 0, () => trylockReturnsLabel(p, w, 0)));
      if (!oppositeTrue(s.tru, s.trueN, w)) out.push(action(g, 'TRYLOCK-returns', 1, (p * W9 + w) * 2 + 1, p, 1, () => trylockReturnsLabel(p, w, 1)));
    }
  }
  // apply: an MN applies a request (each distinct message once, in the bag's order)
  for (let i = 0; i < s.reqN; i++) {
    const m = s.reqs[i];
    if ((i === 0 || s.reqs[i - 1] !== m) && !isDown(faults(s), reqC(m))) {
      out.push(action(g, 'apply', 2, m, reqP(m), m, () => casLabel(reqP(m), reqC(m), reqQ(m), reqExpected(m), reqNw(m))));
    }
  }
  // deliver: a response reaches its process
  for (let i = 0; i < s.rspN; i++) {
    const m = s.rsps[i];
    if (i === 0 || s.rsps[i - 1] !== m) out.push(action(g, 'deliver', 3, m, rspP(m), m, () => casRspLabel(rspP(m), rspC(m), rspPrev(m))));
  }
  // crashMN: up to f < n/2 MNs crash
  if (crashesOf(faults(s)) < cfg.f) {
    for (const { member } of faultChoices(faults(s), n, { crash: cfg.f })) out.push(action(g, 'crashMN', 4, member, -1, member, () => `crashMN(mn${member})`));
  }
  return out;
}

function step(g: Lock, d: S, a: LockAction) {
  const p = a.p;
  const n = g.n;
  switch (a.t) {
    case 'invoke': { // App. B T4-T5: TRYLOCK(w) on TSL[0]; one CAS loop per object, in parallel, the first CAS expecting ⊥
      const w = g.words[p][d.pc[p]++];
      d.invN = countedAdd(d.inv, d.invN, w);
      d.tl[p] = 1; d.own[p] = w; d.dn[p] = 0;
      d.rd.fill(NOLOCK, p * n, p * n + n);
      if (!g.abs) for (let c = 0; c < n; c++) if (!isDown(faults(d), c)) sendReq(d, casReq(p, c, 0, Q, NOLOCK, w));
      break;
    }
    case 'TRYLOCK-returns':
      finishLock(g, d, p, a.x);
      break;
    case 'apply': { // App. B T8 at the object: CAS(expected → nw); TL-S1: never to a lower or equal timestamp
      const m = a.x;
      d.reqN = countedRemove(d.reqs, d.reqN, m);
      const c = reqC(m);
      const prev = d.tsl[c];
      const expected = reqExpected(m);
      if (prev === expected) {
        const nw = reqNw(m);
        if (lowersLock(prev, nw) && d.vS1 === 0) { d.vS1 = c + 1; d.vS1Prev = prev; d.vS1New = nw; }
        d.tsl[c] = nw;
      }
      const rsp = casRsp(p, c, reqSlot(m), prev, expected);
      if (g.cfg.fused) deliverCas(g, d, rsp);
      else d.rspN = countedInsert(d.rsps, d.rspN, rsp);
      break;
    }
    case 'deliver':
      d.rspN = countedRemove(d.rsps, d.rspN, a.x);
      deliverCas(g, d, a.x);
      break;
    case 'crashMN': { // requests to a crashed MN are lost
      d.mns.set(applyFault(faults(d), 'crash', a.x));
      d.reqN = countedRemoveWhere(d.reqs, d.reqN, (m) => reqC(m) === a.x);
      break;
    }
  }
}

function mayStop(g: Lock, s: S): boolean {
  if (s.vExcl !== 0 || s.vSafe !== 0 || s.vS1 !== 0) return true;
  for (let p = 0; p < g.nprocs; p++) if (s.tl[p] !== 0 || s.pc[p] !== g.words[p].length) return false;
  return true;
}

export function buildLock(cfg: SwarmConfig, variant?: string): Machine {
  const g = new Lock(cfg, context(cfg, VARIANTS.flags(variant), () => {}));
  const { n, nprocs, words } = g;
  const nOps = words.reduce((k, s) => k + s.length, 0);
  if (!lockLayerOnly(cfg)) throw new Error('swarm lock: not a config of the lock layer alone within its bounds (lockLayerOnly)');
  const L = lockLayout(nprocs, n, nOps, cfg.fused);
  return layoutMachine(L, {
    init: () => [{ tsl: Array.from({ length: n }, () => NOLOCK) }],
    actions: (s) => actions(g, s),
    step: (d, a) => step(g, d, a),
    // Named and ordered as the plain machine's (invariants.ts): the first failure a state shows is the same.
    invariants: {
      'TL-Excl': (s: S): Check => (s.vExcl === 0 ? true : exclMessage(Q, s.vExcl)),
      'TL-TrueSafety': (s: S): Check => (s.vSafe === 0 ? true : trueSafetyMessage(Q, s.vSafe, s.vSafeP)),
      'TL-S1': (s: S): Check => (s.vS1 === 0 ? true : s1Message(Q, s.vS1 - 1, s.vS1Prev, s.vS1New)),
    },
    mayStop: (s) => mayStop(g, s),
    actor: (a) => (a.t === 'crashMN' ? `mn${a.x}` : procName(a.p)),
  }) as unknown as Machine;
}
