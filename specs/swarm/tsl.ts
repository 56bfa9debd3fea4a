// TSL, the timestamp lock (§3.3): built from n fallible CAS objects (App. B, T1-T12), or
// its abstract specification (f.67) as an atomic nondeterministic object.

import { sent } from '../kit/network.ts';
import { isDown } from '../kit/faults.ts';
import { addSorted, filled, popcount, withAt } from '../kit/state.ts';
import type { LocalStep } from '../kit/table.ts';
import { fail, type Cx } from './context.ts';
import { orphan } from './maxreg.ts';
import { MSG_CAS, ownGhost, request, response, type CasReq, type CasRsp, type LockFrame, type Req, type State } from './state.ts';
import { NOLOCK, lockMode, lockTs, lockWord, procName, showLock, ts } from './tuple.ts';

// What both representations of the lock share (this file's plain objects, for Safe-Guess;
// lock.ts's words, for the lock-* configs): the lock word a script's TRYLOCK names, the
// decisions of T6 and T10-T12, the two properties of f.67 and TL-S1, and the labels.

/** The lock word of a script's TRYLOCK: timestamp (c, 1) in the given mode (§8.3 C5). */
export const trylockWord = (op: { c: number; mode: number }): number => lockWord(ts(op.c, 1), op.mode);

/** The other mode at w's timestamp. */
const oppositeOf = (w: number): number => lockWord(lockTs(w), 1 - lockMode(w));

/** f.67 (TL-TrueSafety): among the first `count` invoked words (from `at`), one conflicting with w (a higher ts, or the opposite mode at w's). */
export function conflictInvoked(inv: ArrayLike<number>, count: number, w: number, at = 0): boolean {
  const t = lockTs(w);
  const opposite = oppositeOf(w);
  for (let i = at; i < at + count; i++) if (lockTs(inv[i]) > t || inv[i] === opposite) return true;
  return false;
}

/** f.67 (TL-Excl): among the first `count` words (from `at`) that returned True, w's opposite. */
export function oppositeTrue(tru: ArrayLike<number>, count: number, w: number, at = 0): boolean {
  const opposite = oppositeOf(w);
  for (let i = at; i < at + count; i++) if (tru[i] === opposite) return true;
  return false;
}

/** T10-T12, over every read[c] (rd[at + c]; N6: only the objects whose loop exited, bits of dn): 1 True, 0 False. */
export function lockVerdict(cx: Cx, w: number, rd: ArrayLike<number>, dn: number, at = 0): number {
  const t = lockTs(w);
  const opposite = oppositeOf(w);
  for (let c = 0; c < cx.n; c++) {
    if (cx.mut.N6 && !(dn & (1 << c))) continue;
    const x = rd[at + c];
    if (x === NOLOCK) continue;
    if (!cx.mut.M14 && lockTs(x) > t) return 0; // T10 [return-1]; M14 drops the higher-ts check
    if (!cx.mut.M13 && x === opposite) return 0; // T11 [return-2]; M13 drops the opposite-mode check
  }
  return 1; // T12 [return-3]
}

/** T6's guard after a CAS on an object returned prev (not the expected): CAS again (M12: no guard, until its own word is there). */
export const casAgain = (cx: Cx, prev: number, w: number): boolean => (cx.mut.M12 ? prev !== w : prev === NOLOCK || lockTs(prev) < lockTs(w));

/** TL-S1's breach: a CAS object going from prev to nw keeps or lowers its timestamp. */
export const lowersLock = (prev: number, nw: number): boolean => prev !== NOLOCK && lockTs(prev) >= lockTs(nw);

export const trylockLabel = (p: number, w: number): string => `T4_TRYLOCK(${procName(p)},${showLock(w)})`;
export const trylockReturnsLabel = (p: number, w: number, r: number): string => `TRYLOCK_returns(${procName(p)},${showLock(w)},${r ? 'True' : 'False'})`;
export const casLabel = (p: number, c: number, q: number, expected: number, nw: number): string => `T8_cas(${procName(p)}→mn${c},TSL[${q}],${showLock(expected)}→${showLock(nw)})`;
export const casRspLabel = (p: number, c: number, prev: number): string => `casResp(mn${c}→${procName(p)},prev=${showLock(prev)})`;
export const trueSafetyMessage = (q: number, w: number, p: number): string => `TSL[${q}].TRYLOCK${showLock(w)} by ${procName(p)} returned False with no conflicting call invoked`;
export const exclMessage = (q: number, w: number): string => `TSL[${q}]: TRYLOCK${showLock(w)} and TRYLOCK${showLock(oppositeOf(w))} both returned True`;
export const s1Message = (q: number, c: number, prev: number, nw: number): string => `TSL[${q}] object ${c} went from ${showLock(prev)} to ${showLock(nw)}`;

/** T4-T8: TRYLOCK(w) on TSL[q]; one CAS loop per object, in parallel, the first CAS expecting ⊥. */
export function startLock(cx: Cx, d: State, p: number, q: number, w: number): void {
  ownGhost(d).tlInv = withAt(d.g.tlInv, q, addSorted(d.g.tlInv[q], w));
  const abs = cx.cfg.lock === 'abstract';
  d.procs[p].lk = { q, w, rd: filled(cx.n, NOLOCK), dn: 0, abs };
  if (abs) return;
  for (let c = 0; c < cx.n; c++) if (!isDown(d.mns, c)) d.reqs = sent<Req>(d.reqs, request([p, c, MSG_CAS, 0, q, NOLOCK, w]));
}

/** TRYLOCK returns r, checked against the two properties of f.67 (TL-TrueSafety, TL-Excl). */
export function finishLock(cx: Cx, d: State, p: number, r: number): void {
  const pr = d.procs[p];
  const { q, w } = pr.lk!;
  if (r === 0) {
    if (!conflictInvoked(d.g.tlInv[q], d.g.tlInv[q].length, w)) fail(d, 'TL-TrueSafety', trueSafetyMessage(q, w, p));
  } else {
    if (oppositeTrue(d.g.tlTrue[q], d.g.tlTrue[q].length, w)) fail(d, 'TL-Excl', exclMessage(q, w));
    ownGhost(d).tlTrue = withAt(d.g.tlTrue, q, addSorted(d.g.tlTrue[q], w));
  }
  if (!pr.lk!.abs) orphan(cx, d, p, MSG_CAS); // T9: loops still running stop; sent CASes may still land
  pr.lk = null;
  pr.lkRes = r;
}

/** What the abstract lock (f.67) may answer: True unless exclusion forbids, False only after a conflict. */
export function lockAllowed(s: State, lk: LockFrame): number[] {
  const out: number[] = [];
  if (conflictInvoked(s.g.tlInv[lk.q], s.g.tlInv[lk.q].length, lk.w)) out.push(0);
  if (!oppositeTrue(s.g.tlTrue[lk.q], s.g.tlTrue[lk.q].length, lk.w)) out.push(1);
  return out;
}

/** T8 at the object: CAS(expected → nw); TL-S1: an object never goes to a lower or equal timestamp. */
export function applyCas(d: State, [p, c, , slot, q, expected, nw]: CasReq): CasRsp {
  const prev = d.locks[q][c];
  if (prev === expected) {
    if (lowersLock(prev, nw)) fail(d, 'TL-S1', s1Message(q, c, prev, nw));
    d.locks[q][c] = nw;
  }
  return response([p, c, MSG_CAS, slot, prev, expected]);
}

/** T8 at the process: the CAS returned its previous content; T6's guard decides whether to CAS again. */
export function deliverCas(cx: Cx, d: State, [p, c, , slot, prev, expected]: CasRsp): void {
  const lk = d.procs[p].lk;
  if (slot !== 0 || !lk) return;
  lk.rd[c] = prev;
  if (prev === expected) { // [app:split:break]
    if (cx.mut.M12) lk.rd[c] = lk.w;
    lk.dn |= 1 << c;
  } else if (casAgain(cx, prev, lk.w)) {
    d.reqs = sent<Req>(d.reqs, request([p, c, MSG_CAS, 0, lk.q, prev, lk.w])); // T6 guard holds: CAS again (M12: no guard)
  } else lk.dn |= 1 << c;
}

/** T9: a majority of the loops exited; T10-T12 decide. */
export const t9Step = (cx: Cx): LocalStep<State> => ({
  name: 'T9', cites: 'App. B T9 (f.70): wait for a majority of the CAS loops, then T10-T12',
  guard: (d, p) => { const lk = d.procs[p].lk; return lk !== null && !lk.abs && popcount(lk.dn) >= cx.qL; },
  effect: (d, p) => { const lk = d.procs[p].lk!; finishLock(cx, d, p, lockVerdict(cx, lk.w, lk.rd, lk.dn)); },
});
