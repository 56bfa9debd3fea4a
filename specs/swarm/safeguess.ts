// Safe-Guess (§3.2): WRITE (W5-W11) and READ (R11-R21) over M and TSL[p], and the script
// operations of the lower layers' unit configs (M.READ, M.WRITE, TRYLOCK). Each operation
// is invoked by an action (`invoke`) and then advances by local steps (`opSteps`), fused
// into whatever step enables them.

import { monInvoke, monReturn, registerSlot, type Mon } from '../kit/object-ghost.ts';
import { addSorted, filled } from '../kit/state.ts';
import type { LocalStep } from '../kit/table.ts';
import { fail, tidOfProc, type Cx } from './context.ts';
import { startMRead, startMWrite } from './maxreg.ts';
import { opFrame, ownGhost, type Proc, type ReadFrame, type State, type WriteFrame } from './state.ts';
import { startLock, trylockWord } from './tsl.ts';
import { GUESSED, READ, VERIFIED, WRITE, clockOf, flagOf, lockWord, procName, showTs, ts, tsOfTuple, tuple, valOf, verified } from './tuple.ts';

// SG-Lin's ghost (kit/object-ghost.ts, the register kept by client): a READ is invoked
// with value 0, a WRITE(v) with v > 0; a return that leaves no linearization is undefined
// (the caller records the failure and keeps the ghost).
export const linInvoke = (g: Mon, p: number, v: number): Mon => monInvoke(registerSlot, g, { c: p, f: v ? 'write' : 'read', k: 0, v, x: false });
export function linReturn(g: Mon, p: number, out: number): Mon | undefined {
  const next = monReturn(registerSlot, g, p, out);
  return next.bad ? undefined : next;
}

/** W5's choices: a clock above every one p used (Assumption 1), up to cmax. */
export function guesses(cx: Cx, lastC: number, lastG: number, p: number): number[] {
  // M8: any clock, not monotonic; N7: above the previous guess only
  const lo = cx.mut.M8 ? 1 : cx.mut.N7 ? lastG + 1 : lastC + 1;
  const out: number[] = [];
  // the range never runs dry: a later write can always guess one above its last
  for (let c = lo; c <= Math.max(cx.cfg.cmax, lastC + 1); c++) out.push(c);
  const allowed = cx.cfg.guesses?.[p];
  if (!allowed) return out;
  const kept = out.filter((c) => allowed.includes(c));
  return kept.length ? kept : out.slice(0, 1); // a later write can always guess
}

/** p invokes its next script operation (W5 with the guessed clock, R11, or a lower layer's). */
export function invoke(cx: Cx, d: State, p: number, clock: number): void {
  const pr = d.procs[p];
  const op = cx.cfg.scripts[p][pr.pc++];
  switch (op.f) {
    case 'write': {
      // W5: w ← (guessTs(), GUESSED, v)
      pr.lastC = Math.max(pr.lastC, clock);
      pr.lastG = clock;
      const w = tuple(ts(clock, tidOfProc(p)), GUESSED, op.v);
      if (d.g.lin) ownGhost(d).lin = linInvoke(d.g.lin, p, op.v);
      pr.op = opFrame({ k: 'W', v: op.v, w, st: 'W6', m: -1, fl: d.g.doneTs, wts: -1 });
      // W6: M.READ ∥ M.WRITE(w) (N4: write first, read after)
      startMWrite(cx, d, p, w, false);
      if (!cx.mut.N4) startMRead(cx, d, p);
      break;
    }
    case 'read':
      if (d.g.lin) ownGhost(d).lin = linInvoke(d.g.lin, p, 0);
      pr.op = opFrame({ k: 'R', seen: filled(cx.nprocs + 1, -1), it: 0, st: 'R12', m: -1 }); // R11
      break;
    case 'mread':
      pr.op = opFrame({ k: 'MR', st: 0 });
      break;
    case 'mwrite':
      pr.op = opFrame({ k: 'MW', v: op.v, st: 0 });
      break;
    case 'trylock':
      pr.op = opFrame({ k: 'TL', w: trylockWord(op), st: 0 });
      break;
  }
  cx.pump(d, p);
}

// What both representations of Safe-Guess share (this file's plain objects; sg.ts's words):
// W7's test, the properties' messages, and SG-Lin's ghost steps above.
/** W7: m ≤ w proves the guess fresh (N2: the artifact's m ≤ (w.ts, VERIFIED); N3: strict). */
export const fastPath = (cx: Cx, m: number, w: number): boolean => (cx.mut.N2 ? m <= verified(w) : cx.mut.N3 ? m < w : m <= w);
/** W11 (f.58): the rewrite's clock, above m's (M7: derived from the guess g instead). */
export const rewriteClock = (cx: Cx, g: number, m: number): number => (cx.mut.M7 ? clockOf(g) + 1 : clockOf(tsOfTuple(m)) + 1);
/** W11: the rewrite's tuple, VERIFIED (N1: it stays GUESSED). */
export const rewriteTuple = (cx: Cx, wts: number, v: number): number => tuple(wts, cx.mut.N1 ? GUESSED : VERIFIED, v);
/**
 * R19-R20: two different tuples from one writer, `prev` seen before and `m` now: the first
 * one's write completed (f.64), and the READ returns this tuple (undefined: go on to R21).
 * M11 drops the rule; M10 returns the newer tuple.
 */
export const secondSight = (cx: Cx, prev: number, m: number): number | undefined =>
  !cx.mut.M11 && prev !== -1 && prev !== m ? (cx.mut.M10 ? m : prev) : undefined;
export const linWriteMessage = (p: number): string => `WRITE by ${procName(p)} cannot be linearized`;
export const linReadMessage = (p: number, val: number): string => `READ by ${procName(p)} returned ${val ? `v${val}` : '⊥'}: the register history is not linearizable`;
export const fastFreshMessage = (p: number, w: number, fl: number): string => `${procName(p)} took the fast path with ${showTs(tsOfTuple(w))}, not above a completed write's ${showTs(fl)}`;
export const rewriteExclMessage = (p: number, g: number): string => `${procName(p)} rewrites ${showTs(g)} that a reader locked`;
export const c3Message = (p: number, w: number): string => `${procName(p)}'s TRYLOCK${showTs(tsOfTuple(w))} returned False but no READ double-read that tuple`;

function retWrite(d: State, p: number, tsw: number): void {
  ownGhost(d).doneTs = Math.max(d.g.doneTs, tsw);
  if (d.g.lin) {
    const next = linReturn(d.g.lin, p, 0);
    if (!next) fail(d, 'SG-Lin', linWriteMessage(p));
    else ownGhost(d).lin = next;
  }
  d.procs[p].op = null;
}

function retRead(cx: Cx, d: State, p: number, val: number): void {
  const pr = d.procs[p];
  if (d.g.lin) {
    const next = linReturn(d.g.lin, p, val);
    if (!next) fail(d, 'SG-Lin', linReadMessage(p, val));
    else ownGhost(d).lin = next;
  }
  pr.last = val;
  if (cx.mut.HAZARD) pr.hist = [...(pr.hist ?? []), val];
  pr.op = null;
}

/** W11: rewrite with a timestamp above m.ts (f.58), and wait for it. */
function rewrite(cx: Cx, d: State, p: number, op: WriteFrame): void {
  const tid = tidOfProc(p);
  const g = tsOfTuple(op.w);
  if (d.g.tlTrue[tid].includes(lockWord(g, READ))) fail(d, 'SG-LockRewriteExcl', rewriteExclMessage(p, g));
  ownGhost(d).rew = addSorted(d.g.rew, g);
  const clock = rewriteClock(cx, g, op.m);
  d.procs[p].lastC = Math.max(d.procs[p].lastC, clock);
  op.wts = ts(clock, tid);
  startMWrite(cx, d, p, rewriteTuple(cx, op.wts, op.v), false);
  op.st = 'W11';
}

/** R19-R21, after R15 did not return. */
function endIteration(cx: Cx, d: State, p: number, op: ReadFrame): void {
  const t = tsOfTuple(op.m) & 15;
  const prev = op.seen[t];
  const returned = secondSight(cx, prev, op.m); // R19-R20
  if (returned !== undefined) return retRead(cx, d, p, valOf(returned));
  op.seen[t] = op.m; // R21
  op.st = 'R12';
}

/** Takes the finished M.READ's result (-1: none yet). */
function takeMRead(pr: Proc): number {
  const m = pr.mrRes;
  pr.mrRes = -1;
  return m;
}
/** Takes the finished TRYLOCK's result. */
function takeLock(pr: Proc): number {
  const r = pr.lkRes;
  pr.lkRes = -1;
  return r;
}

type Frame<K extends string> = Extract<NonNullable<Proc['op']>, { k: K }>;
const frame = <K extends string>(d: State, p: number, k: K, st?: unknown): Frame<K> | null => {
  const op = d.procs[p].op;
  return op !== null && op.k === k && (st === undefined || op.st === st) ? (op as Frame<K>) : null;
};

/** W6-W11 (§3.2, f.52-58). */
const writeSteps = (cx: Cx): LocalStep<State>[] => [
  {
    name: 'W6-N4-read', cites: 'N4 only: the W6 read starts once the write is over',
    guard: (d, p) => { const op = frame(d, p, 'W', 'W6'); const pr = d.procs[p]; return cx.mut.N4 && op !== null && pr.mwDone && pr.mr === null && pr.mrRes < 0 && op.m === -1; },
    effect: (d, p) => { startMRead(cx, d, p); frame(d, p, 'W')!.m = -2; },
  },
  {
    name: 'W7', cites: '§3.2 W6-W10 (f.55-56): M.READ and M.WRITE(w) done; m ≤ w proves the guess fresh',
    guard: (d, p) => frame(d, p, 'W', 'W6') !== null && d.procs[p].mwDone && d.procs[p].mrRes >= 0,
    effect: (d, p) => {
      const pr = d.procs[p];
      const op = frame(d, p, 'W')!;
      const m = takeMRead(pr);
      pr.mwDone = false;
      op.m = m;
      if (fastPath(cx, m, op.w)) { // W7: m ≤ w
        if (tsOfTuple(op.w) <= op.fl) fail(d, 'SG-FastFresh', fastFreshMessage(p, op.w, op.fl));
        startMWrite(cx, d, p, verified(op.w), true); // W8: background VERIFIED write
        return retWrite(d, p, tsOfTuple(op.w));
      }
      if (cx.mut.M1 || cx.mut.HAZARD) return rewrite(cx, d, p, op); // M1: retry without the lock
      // W10: lock readers out of the guessed ts (M9: one lock shared by every writer)
      startLock(cx, d, p, cx.mut.M9 ? 0 : tidOfProc(p), lockWord(tsOfTuple(op.w), WRITE));
      op.st = 'W10';
    },
  },
  {
    name: 'W10', cites: '§3.2 W10-W11 (f.56-58): TRYLOCK((w.ts), WRITE) returned',
    guard: (d, p) => frame(d, p, 'W', 'W10') !== null && d.procs[p].lkRes >= 0,
    effect: (d, p) => {
      const op = frame(d, p, 'W')!;
      const r = takeLock(d.procs[p]);
      if (r === 1 || cx.mut.M2) { // M2: rewrite even when TRYLOCK returned False
        if (cx.mut.M6) return retWrite(d, p, tsOfTuple(op.w)); // M6: locked, but no rewrite
        return rewrite(cx, d, p, op);
      }
      if (!d.g.dbl.includes(tsOfTuple(op.w))) fail(d, 'SG-C3', c3Message(p, op.w));
      if (cx.mut.N8) startMWrite(cx, d, p, verified(op.w), true); // N8: background verify after False
      retWrite(d, p, tsOfTuple(op.w));
    },
  },
  {
    name: 'W11-return', cites: '§3.2 W11 (f.58): WRITE returns once the rewrite is over',
    guard: (d, p) => frame(d, p, 'W', 'W11') !== null && d.procs[p].mwDone,
    effect: (d, p) => {
      d.procs[p].mwDone = false;
      retWrite(d, p, frame(d, p, 'W')!.wts);
    },
  },
];

/** R12-R21 (§3.3, f.60-64). */
const readSteps = (cx: Cx): LocalStep<State>[] => [
  {
    name: 'R12', cites: '§3.3 R12-R13: the next iteration reads M',
    guard: (d, p) => frame(d, p, 'R', 'R12') !== null,
    effect: (d, p) => {
      const op = frame(d, p, 'R')!;
      op.it = Math.min(op.it + 1, cx.iterBound + 1); // saturates: SG-WF-R flags anything above the bound
      startMRead(cx, d, p);
      op.st = 'R13';
    },
  },
  {
    name: 'R14-R15', cites: '§3.3 R14 (VERIFIED: return), R15 (a GUESSED tuple seen twice: lock it) (f.61-62)',
    guard: (d, p) => frame(d, p, 'R', 'R13') !== null && d.procs[p].mrRes >= 0,
    effect: (d, p) => {
      const op = frame(d, p, 'R')!;
      const m = takeMRead(d.procs[p]);
      op.m = m;
      // HAZARD (§7.1): the naive reader returns what one M.READ gave, as ABD does
      if (flagOf(m) === VERIFIED || cx.mut.HAZARD) return retRead(cx, d, p, valOf(m)); // R14
      const t = tsOfTuple(m) & 15;
      const twice = op.seen[t] === m;
      if (twice) ownGhost(d).dbl = addSorted(d.g.dbl, tsOfTuple(m));
      if (!twice && !cx.mut.M5) return endIteration(cx, d, p, op); // M5: lock on the first sight
      if (cx.mut.M3) return retRead(cx, d, p, valOf(m)); // M3: return without locking
      startLock(cx, d, p, cx.mut.M9 ? 0 : t, lockWord(tsOfTuple(m), READ)); // R16: the writer's lock
      op.st = 'R16';
    },
  },
  {
    name: 'R16-R18', cites: '§3.3 R16-R18 (f.63): TRYLOCK(m.ts, READ) returned; True: verify in the background and return',
    guard: (d, p) => frame(d, p, 'R', 'R16') !== null && d.procs[p].lkRes >= 0,
    effect: (d, p) => {
      const op = frame(d, p, 'R')!;
      const r = takeLock(d.procs[p]);
      if (r !== 1 && !cx.mut.M4) return endIteration(cx, d, p, op); // M4: return even when TRYLOCK returned False
      startMWrite(cx, d, p, verified(op.m), true); // R17
      retRead(cx, d, p, valOf(op.m)); // R18
    },
  },
];

/** The lower layers' script operations: invoke the object, return when it does. */
const unitSteps = (cx: Cx): LocalStep<State>[] => [
  { name: 'M.READ', cites: 'App. A READ', guard: (d, p) => frame(d, p, 'MR', 0) !== null, effect: (d, p) => { startMRead(cx, d, p); frame(d, p, 'MR')!.st = 1; } },
  { name: 'M.READ-done', cites: 'App. A READ', guard: (d, p) => frame(d, p, 'MR', 1) !== null && d.procs[p].mrRes >= 0, effect: (d, p) => { const pr = d.procs[p]; pr.last = takeMRead(pr); pr.op = null; } },
  { name: 'M.WRITE', cites: 'App. A WRITE', guard: (d, p) => frame(d, p, 'MW', 0) !== null, effect: (d, p) => { const op = frame(d, p, 'MW')!; startMWrite(cx, d, p, op.v, false); op.st = 1; } },
  { name: 'M.WRITE-done', cites: 'App. A WRITE', guard: (d, p) => frame(d, p, 'MW', 1) !== null && d.procs[p].mwDone, effect: (d, p) => { d.procs[p].mwDone = false; d.procs[p].op = null; } },
  { name: 'TRYLOCK', cites: 'App. B T4', guard: (d, p) => frame(d, p, 'TL', 0) !== null, effect: (d, p) => { const op = frame(d, p, 'TL')!; startLock(cx, d, p, 0, op.w); op.st = 1; } },
  { name: 'TRYLOCK-done', cites: 'App. B T10-T12', guard: (d, p) => frame(d, p, 'TL', 1) !== null && d.procs[p].lkRes >= 0, effect: (d, p) => { takeLock(d.procs[p]); d.procs[p].op = null; } },
];

/** Every operation's local steps, each operation's in the order it takes them. */
export const opSteps = (cx: Cx): LocalStep<State>[] => [...writeSteps(cx), ...readSteps(cx), ...unitSteps(cx)];

/**
 * The same steps by the kind of frame they advance: a process runs one operation at a
 * time, so the guards of the other kinds' steps are false and need not be asked (a step's
 * frame kind never changes within one pump: the frame only returns, to null).
 */
export function opStepsByKind(cx: Cx): Record<NonNullable<Proc['op']>['k'], LocalStep<State>[]> {
  const unit = unitSteps(cx);
  return {
    W: writeSteps(cx),
    R: readSteps(cx),
    MR: unit.slice(0, 2),
    MW: unit.slice(2, 4),
    TL: unit.slice(4, 6),
  };
}
