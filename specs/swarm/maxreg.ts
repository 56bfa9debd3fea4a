// M, the reliable max register built from n fallible max registers (App. A, A1-A8), with
// the per-process cache shared by all of a process's M operations. Line names are the
// extraction's (../shared/protocols/swarm-safeguess.md §4): [read-for-start],
// [read-wait], [cache-max], [invoke-inner-write], [inner-write-wait], [update-cache-r],
// [update-cache-w].

import { compareMsg, sent } from '../kit/network.ts';
import { isDown } from '../kit/faults.ts';
import { addSorted, popcount, withAt } from '../kit/state.ts';
import type { LocalStep } from '../kit/table.ts';
import { fail, quorumHas, type Cx } from './context.ts';
import { MSG_READ, MSG_WRITE, ownGhost, request, response, type Proc, type ReadRsp, type Req, type Rsp, type State, type WriteAck } from './state.ts';
import { BOTTOM, procName, showTuple } from './tuple.ts';

// What both representations of M share (this file's plain objects, for Safe-Guess; mreg.ts's
// words, for the maxreg-* configs): the messages of its properties and the labels.
export const mrWrMessage = (p: number, v: number, floor: number): string => `M.READ by ${procName(p)} returned ${showTuple(v)} below the completed M.WRITE ${showTuple(floor)}`;
export const mrRrMessage = (p: number, v: number, floor: number): string => `M.READ by ${procName(p)} returned ${showTuple(v)} below an earlier M.READ's ${showTuple(floor)}`;
export const mrValidMessage = (v: number): string => `M.READ returned ${showTuple(v)}, never written`;
export const mrS1Message = (p: number, i: number, cached: number, reg: number): string => `${procName(p)}'s cache[mn${i}] = ${showTuple(cached)} above the register's ${showTuple(reg)}`;
export const mrS2Message = (v: number, at: number, maj: number): string => `the completed M value ${showTuple(v)} is held by ${at} < ${maj} MNs`;
export const mreadLabel = (p: number): string => `M.READ(${procName(p)})`;
export const mwriteLabel = (p: number, v: number): string => `M.WRITE(${procName(p)},${showTuple(v)})`;
export const readLabel = (p: number, c: number): string => `read(${procName(p)}→mn${c})`;
export const writeLabel = (p: number, c: number, v: number): string => `A8_write(${procName(p)}→mn${c},${showTuple(v)})`;
export const readRspLabel = (p: number, c: number, v: number): string => `readResp(mn${c}→${procName(p)},${showTuple(v)})`;
export const mreadReturnsLabel = (p: number, v: number): string => `M.READ_returns(${procName(p)},${showTuple(v)})`;
export const mwriteReturnsLabel = (p: number, v: number, background: boolean): string => `M.WRITE_returns(${procName(p)},${showTuple(v)}${background ? ',background' : ''})`;
export const writeAckLabel = (p: number, c: number, v: number): string => `writeAck(mn${c}→${procName(p)},${showTuple(v)})`;

/** A4-A8 inner_write(v): write to every MN whose cached bound is below v. */
export function innerWrite(cx: Cx, d: State, p: number, v: number): void {
  const pr = d.procs[p];
  for (let i = 0; i < cx.n; i++) {
    if (pr.cache[i] >= v) continue; // A6
    if (!isDown(d.mns, i)) d.reqs = sent<Req>(d.reqs, request([p, i, MSG_WRITE, v])); // A8; a request to a crashed MN is lost
    // M18: the cache records the write when it is issued, not on its ack ([update-cache-w])
    if (cx.mut.M18) pr.cache = withAt(pr.cache, i, Math.max(pr.cache[i], v));
  }
}

/** M.WRITE(v), in the foreground (W6, W11, a script's mwrite) or the background (W8, R17). */
export function startMWrite(cx: Cx, d: State, p: number, v: number, background: boolean): void {
  const pr = d.procs[p];
  if (d.g.wInv && (cx.mSpec || !background)) ownGhost(d).wInv = addSorted(d.g.wInv, v);
  if (!cx.mSpec) innerWrite(cx, d, p, v);
  if (background) pr.bg = addSorted(pr.bg, v);
  else pr.mw = v;
}

/** [read-for-start]: read every MN asynchronously. */
export function startMRead(cx: Cx, d: State, p: number): void {
  const pr = d.procs[p];
  pr.mr = { ph: 0, got: 0, v: -1, frW: d.g.cW, frR: d.g.cR, snap: Math.max(...pr.cache), mx: BOTTOM };
  if (cx.mSpec) return;
  for (let i = 0; i < cx.n; i++) if (!isDown(d.mns, i)) d.reqs = sent<Req>(d.reqs, request([p, i, MSG_READ, 0]));
}

/** Messages of p's finished M.READ (kind 0) or TRYLOCK (kind 2): still update the cache, count for nothing. */
export function orphan(cx: Cx, d: State, p: number, kind: number): void {
  if (cx.cfg.late === 'drop') {
    d.reqs = dropMine(d.reqs, p, kind);
    d.rsps = dropMine(d.rsps, p, kind);
    return;
  }
  d.reqs = orphaned(d.reqs, p, kind, request);
  d.rsps = orphaned(d.rsps, p, kind, response);
}

// (Loops rather than closures: these run on most steps.)
const isMine = (m: Req | Rsp, p: number, kind: number): boolean => m[0] === p && m[2] === kind;

/** The bag without p's messages of that kind (and, given v, that value): delayed for ever. */
function dropMine<M extends Req | Rsp>(bag: M[], p: number, kind: number, v?: number): M[] {
  const out: M[] = [];
  for (const m of bag) if (!(isMine(m, p, kind) && (v === undefined || m[3] === v))) out.push(m);
  return out.length === bag.length ? bag : out;
}

/** The bag with p's messages of that kind marked orphans (slot -1), sorted again. */
function orphaned<M extends Req | Rsp>(bag: M[], p: number, kind: number, intern: (m: M) => M): M[] {
  let out: M[] | undefined;
  for (let i = 0; i < bag.length; i++) {
    const m = bag[i];
    if (!isMine(m, p, kind) || m[3] === -1) continue;
    out ??= bag.slice();
    const o = m.slice();
    o[3] = -1;
    out[i] = intern(o as unknown as M);
  }
  return out === undefined ? bag : out.sort(compareMsg);
}

/** M.READ returns v: checked against the weak specification (MR-WR, MR-RR, MR-Valid; f.298-316). */
export function finishMRead(d: State, p: number, v: number): void {
  const pr = d.procs[p];
  const r = pr.mr!;
  if (v < r.frW) fail(d, 'MR-WR', mrWrMessage(p, v, r.frW));
  if (v < r.frR) fail(d, 'MR-RR', mrRrMessage(p, v, r.frR));
  if (d.g.wInv && v !== BOTTOM && !d.g.wInv.includes(v)) fail(d, 'MR-Valid', mrValidMessage(v));
  ownGhost(d).cR = Math.max(d.g.cR, v);
  pr.mr = null;
  pr.mrRes = v;
}

/** An M.WRITE of v completed (with late: 'drop', its leftover messages are delayed for ever). */
export function mWriteDone(cx: Cx, d: State, p: number, v: number): void {
  ownGhost(d).cW = Math.max(d.g.cW, v);
  if (cx.cfg.late === 'drop') {
    d.reqs = dropMine(d.reqs, p, MSG_WRITE, v);
    d.rsps = dropMine(d.rsps, p, MSG_WRITE, v);
  }
}

/** An MN applies a read: its register's value goes back (A1). */
export const applyRead = (d: State, p: number, c: number, slot: number): ReadRsp => response([p, c, MSG_READ, slot, d.regs[c]]);

/** An MN applies A8's write: a fallible max register keeps the max. */
export function applyWrite(d: State, p: number, c: number, v: number): WriteAck {
  d.regs[c] = Math.max(d.regs[c], v);
  return response([p, c, MSG_WRITE, v]);
}

/** [update-cache-r] (RESP-OVERWRITE: the response overwrites the cache instead of raising it). */
export function deliverRead(cx: Cx, d: State, [p, c, , slot, v]: ReadRsp): void {
  const pr = d.procs[p];
  pr.cache = withAt(pr.cache, c, cx.mut['RESP-OVERWRITE'] ? v : Math.max(pr.cache[c], v));
  if (slot === 0 && pr.mr && pr.mr.ph === 0) {
    pr.mr.got |= 1 << c;
    pr.mr.mx = Math.max(pr.mr.mx, v);
  }
}

/** [update-cache-w]: the ack raises the cache. */
export function deliverWriteAck(d: State, [p, c, , v]: WriteAck): void {
  const pr = d.procs[p];
  pr.cache = withAt(pr.cache, c, Math.max(pr.cache[c], v));
}

/** Whether one of p's background writes is at a majority (a loop: guards run on every step). */
function someAtQuorum(cx: Cx, pr: Proc): boolean {
  for (let i = 0; i < pr.bg.length; i++) if (quorumHas(cx, pr.cache, pr.bg[i])) return true;
  return false;
}

/** App. A's waits, as local steps of process p (run by pump; absent when M is its specification). */
export function mLocalSteps(cx: Cx): LocalStep<State>[] {
  return [
    {
      name: 'background-write-done', cites: 'App. A [inner-write-wait], for W8/R17',
      guard: (d, p) => someAtQuorum(cx, d.procs[p]),
      effect: (d, p) => {
        const pr = d.procs[p];
        for (const v of pr.bg) {
          if (!quorumHas(cx, pr.cache, v)) continue;
          pr.bg = pr.bg.filter((x) => x !== v);
          mWriteDone(cx, d, p, v);
        }
      },
    },
    {
      name: 'inner-write-wait', cites: 'App. A [inner-write-wait] (A8: a majority holds v)',
      guard: (d, p) => d.procs[p].mw >= 0 && quorumHas(cx, d.procs[p].cache, d.procs[p].mw),
      effect: (d, p) => {
        const pr = d.procs[p];
        mWriteDone(cx, d, p, pr.mw);
        pr.mw = -1;
        pr.mwDone = true;
      },
    },
    {
      name: 'read-wait', cites: 'App. A [read-wait], [cache-max], [invoke-inner-write] (f.324)',
      guard: (d, p) => { const r = d.procs[p].mr; return r !== null && r.ph === 0 && popcount(r.got) >= cx.qM; },
      effect: (d, p) => {
        const pr = d.procs[p];
        const r = pr.mr!;
        // [cache-max] over the whole cache (N5: own responses only; M19: the cache at invocation)
        const v = cx.mut.N5 ? r.mx : cx.mut.M19 ? r.snap : Math.max(...pr.cache);
        orphan(cx, d, p, MSG_READ);
        if (cx.mut.M17) return finishMRead(d, p, v); // M17: no write-back
        r.ph = 1;
        r.v = v;
        innerWrite(cx, d, p, v); // [invoke-inner-write]
      },
    },
    {
      name: 'write-back-done', cites: 'App. A READ returns once its write-back is at a majority',
      guard: (d, p) => { const r = d.procs[p].mr; return r !== null && r.ph === 1 && quorumHas(cx, d.procs[p].cache, r.v); },
      effect: (d, p) => {
        const v = d.procs[p].mr!.v;
        mWriteDone(cx, d, p, v);
        finishMRead(d, p, v);
      },
    },
  ];
}
