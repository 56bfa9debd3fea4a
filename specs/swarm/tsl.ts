// TSL, the timestamp lock (§3.3): built from n fallible CAS objects (App. B, T1-T12), or
// its abstract specification (f.67) as an atomic nondeterministic object.

import { sent } from '../kit/network.ts';
import { isDown } from '../kit/faults.ts';
import { addSorted, filled, popcount, withAt } from '../kit/state.ts';
import type { LocalStep } from '../kit/table.ts';
import { fail, type Cx } from './context.ts';
import { orphan } from './maxreg.ts';
import { MSG_CAS, ownGhost, request, response, type CasReq, type CasRsp, type LockFrame, type Req, type State } from './state.ts';
import { NOLOCK, lockMode, lockTs, lockWord, procName, showLock } from './tuple.ts';

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
  const opposite = lockWord(lockTs(w), 1 - lockMode(w));
  if (r === 0) {
    const conflict = d.g.tlInv[q].some((x) => lockTs(x) > lockTs(w) || x === opposite);
    if (!conflict) fail(d, 'TL-TrueSafety', `TSL[${q}].TRYLOCK${showLock(w)} by ${procName(p)} returned False with no conflicting call invoked`);
  } else {
    if (d.g.tlTrue[q].includes(opposite)) fail(d, 'TL-Excl', `TSL[${q}]: TRYLOCK${showLock(w)} and TRYLOCK${showLock(opposite)} both returned True`);
    ownGhost(d).tlTrue = withAt(d.g.tlTrue, q, addSorted(d.g.tlTrue[q], w));
  }
  if (!pr.lk!.abs) orphan(cx, d, p, MSG_CAS); // T9: loops still running stop; sent CASes may still land
  pr.lk = null;
  pr.lkRes = r;
}

/** T10-T12, over every read[c] (N6: only the objects whose loop exited). */
function lockVerdict(cx: Cx, lk: LockFrame): number {
  const t = lockTs(lk.w);
  const opposite = lockWord(t, 1 - lockMode(lk.w));
  for (let c = 0; c < cx.n; c++) {
    if (cx.mut.N6 && !(lk.dn & (1 << c))) continue;
    const x = lk.rd[c];
    if (x === NOLOCK) continue;
    if (!cx.mut.M14 && lockTs(x) > t) return 0; // T10 [return-1]; M14 drops the higher-ts check
    if (!cx.mut.M13 && x === opposite) return 0; // T11 [return-2]; M13 drops the opposite-mode check
  }
  return 1; // T12 [return-3]
}

/** What the abstract lock (f.67) may answer: True unless exclusion forbids, False only after a conflict. */
export function lockAllowed(s: State, lk: LockFrame): number[] {
  const t = lockTs(lk.w);
  const opposite = lockWord(t, 1 - lockMode(lk.w));
  const out: number[] = [];
  if (s.g.tlInv[lk.q].some((x) => lockTs(x) > t || x === opposite)) out.push(0);
  if (!s.g.tlTrue[lk.q].includes(opposite)) out.push(1);
  return out;
}

/** T8 at the object: CAS(expected → nw); TL-S1: an object never goes to a lower or equal timestamp. */
export function applyCas(d: State, [p, c, , slot, q, expected, nw]: CasReq): CasRsp {
  const prev = d.locks[q][c];
  if (prev === expected) {
    if (prev !== NOLOCK && lockTs(prev) >= lockTs(nw)) fail(d, 'TL-S1', `TSL[${q}] object ${c} went from ${showLock(prev)} to ${showLock(nw)}`);
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
  } else if (cx.mut.M12 ? prev !== lk.w : prev === NOLOCK || lockTs(prev) < lockTs(lk.w)) {
    d.reqs = sent<Req>(d.reqs, request([p, c, MSG_CAS, 0, lk.q, prev, lk.w])); // T6 guard holds: CAS again (M12: no guard)
  } else lk.dn |= 1 << c;
}

/** T9: a majority of the loops exited; T10-T12 decide. */
export const t9Step = (cx: Cx): LocalStep<State> => ({
  name: 'T9', cites: 'App. B T9 (f.70): wait for a majority of the CAS loops, then T10-T12',
  guard: (d, p) => { const lk = d.procs[p].lk; return lk !== null && !lk.abs && popcount(lk.dn) >= cx.qL; },
  effect: (d, p) => finishLock(cx, d, p, lockVerdict(cx, d.procs[p].lk!)),
});
