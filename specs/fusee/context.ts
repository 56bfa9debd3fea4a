// What every step of one built machine shares (the config, the mutant flags, what follows
// from them once), and the small effects several steps perform on the copy `d`: a CAS on
// a replica, a primary change, an operation's invocation and response, the ghost's
// bookkeeping of the transition invariants.

import type { ObservedEvent } from '../../checkers/explore/types.ts';
import { monCrash, monInvoke, monReturn, type MonOp, type SlotModel } from '../kit/object-ghost.ts';
import { addSorted } from '../kit/state.ts';
import type { Flags } from '../kit/variants.ts';
import { historyInput, historyOutput, keyOf, kvSlotModel, OUT_OK, registerModel } from './models.ts';
import type { Variant } from './mutants.ts';
import { COMMITTED, CRASHED, FRESH, idleClient, NONE, operation, ownGhost, ownRep, Rec, replaceClient, type FuseeConfig, type FuseeState, type Ghost, type Op } from './state.ts';

export interface Cx {
  cfg: FuseeConfig;
  mut: Flags<Variant>;
  r: number;
  /** KV level (X§8): some script inserts, deletes or searches. */
  kv: boolean;
  model: SlotModel;
  /** The open workload of trace validation (FuseeConfig.open). */
  open: boolean;
  /** Which clients write (only writers may crash: a crashed reader has nothing to recover). */
  writers: boolean[];
  /** At most r-1 MN crashes [L297]. */
  crashBudget: number;
  /** A write's output: ignored at the register level, "ok" at the KV level. */
  writeOut: number;
  /** Where the history events of the step being taken go (`history.observe`), each as a list of one (`event`); null when nobody listens. */
  ev: (readonly ObservedEvent[])[] | null;
  /** How many of ev the step being taken has filled. */
  nEv: number;
  /** Each event made once (they never change), as a list of one (`event`). */
  events: Map<number, readonly ObservedEvent[]>;
  /** The LIN ghost's operations, each made once (`monOp`). */
  monOps: Map<number, MonOp>;
}

const isKvOp = (op: Op): boolean => op.f === 'insert' || op.f === 'delete' || op.f === 'search';
export const isWrite = (op: Op): boolean => op.f === 'write' || op.f === 'insert' || op.f === 'delete';

export function context(cfg: FuseeConfig, mut: Flags<Variant>): Cx {
  const kv = cfg.clients.some((script) => script.some(isKvOp));
  return {
    cfg,
    mut,
    r: cfg.r,
    kv,
    model: kv ? kvSlotModel : registerModel,
    open: cfg.open === true,
    writers: cfg.clients.map((script) => script.some(isWrite)),
    crashBudget: Math.min(cfg.mnCrashes, cfg.r - 1),
    writeOut: kv ? OUT_OK : 0,
    ev: null,
    nEv: 0,
    events: new Map(),
    monOps: new Map(),
  };
}

const OPEN_READ: Op = operation('read', 0, 0);

/** The op client c runs: its script's, or (open workload) a read; an open write is its invoke's. */
export const opOf = (cx: Cx, s: FuseeState, c: number): Op => (cx.open ? OPEN_READ : cx.cfg.clients[c][s.cl[c].op]);


/** The first alive backup not holding v, -1 if none (a loop: the invariants ask it on every CAS of the primary). */
export function staleBackup(s: FuseeState, v: number): number {
  for (const b of s.backups) if (s.rep[b] !== CRASHED && s.rep[b] !== v) return b;
  return -1;
}

/** Records the first transition invariant broken (closed workloads only: the open one has no ghost). */
export function broke(cx: Cx, d: FuseeState, msg: string): void {
  if (!cx.open && d.g.tv === '') ownGhost(d).tv = msg;
}

/** What an open workload's steps write to the ghost goes here, and is dropped: it keeps none. */
const NO_GHOST: Ghost = { rnd: 0, ph: [], props: [], wins: [], dead: [], cur: 0, snap: [], fixing: false, tv: '' };

/** The ghost of d for a step to change (state.ts `ownGhost`); in an open workload a scratch one, dropped. */
export const ghost = (cx: Cx, d: FuseeState): Ghost => (cx.open ? NO_GHOST : ownGhost(d));

/** A CAS on replica i; returns the prior value (CRASHED = FAIL). I17: no client CAS succeeds while fenced. */
export function cas(cx: Cx, d: FuseeState, i: number, expected: number, swap: number, who: string): number {
  const prior = d.rep[i];
  if (prior === CRASHED || prior !== expected) return prior;
  if (d.fenced && prior !== swap) broke(cx, d, `I17: ${who} CAS on r${i} succeeded while the master is fenced`);
  ownRep(d)[i] = swap;
  return prior;
}

/** A new round (X§4.3): the primary now holds x_u = v, by a client, a recovery or the master. */
export function newRound(cx: Cx, d: FuseeState, v: number): void {
  const g = ghost(cx, d);
  g.rnd = d.g.rnd + 1;
  g.ph = addSorted(d.g.ph, v);
  g.cur = v;
  g.snap = [];
  g.fixing = false;
}

/** Primary change by a client or a recovery (I2, I4, round bookkeeping). */
export function primaryChanged(cx: Cx, d: FuseeState, from: number, to: number, who: string): void {
  if (from === to) return;
  if (!cx.kv && d.g.ph.includes(to)) broke(cx, d, `I2: ${who} installs ${to} in the primary a second time`);
  // I4 (Lemma 4): a round ends with every alive backup already holding the new value.
  const stale = staleBackup(d, to);
  if (stale >= 0) broke(cx, d, `I4: ${who} changes the primary ${from}->${to} while backup r${stale} holds ${d.rep[stale]}`);
  newRound(cx, d, to);
}

/**
 * Reports the history event of client c's step to the step's observer (cx.ev): its kind,
 * op (the script's) and output, as a list of one, made once per key (the kind, script
 * position and output, c apart): no event or closure per step.
 */
function report(cx: Cx, c: number, key: number, kind: 'invoke' | 'return' | 'crash', op?: Op, out = 0): void {
  const ev = cx.ev;
  if (ev === null) return;
  const k = key < 0 || c >= 64 ? -1 : key * 64 + c;
  let one = k < 0 ? undefined : cx.events.get(k);
  if (one === undefined) {
    // every event has the four fields (undefined where its kind has none): one hidden class for the engine's monitor
    const input = kind === 'invoke' ? historyInput(op!) : undefined;
    const output = kind === 'return' ? historyOutput(op!, out) : undefined;
    const e = { kind, client: c, input, output } as ObservedEvent;
    one = [e];
    if (k >= 0) cx.events.set(k, one);
  }
  ev[cx.nEv++] = one;
}

/** Event keys: invocations by script position, returns by position and output, crashes. */
const INVOKE = 0;
const RETURN = 1;
const CRASH = 2;
const eventKey = (kind: number, op: number, out = 0): number => (op < 256 && out >= -16 && out < 1 << 16 ? ((out + 16) * 256 + op) * 4 + kind : -1);

/** The LIN ghost's operation for client c's op at script position `at`, made once (they never change). */
function monOp(cx: Cx, c: number, at: number, op: Op): MonOp {
  const k = c * 256 + at;
  let mop = at < 256 ? cx.monOps.get(k) : undefined;
  if (mop === undefined) {
    mop = { c, f: op.f, k: op.k, v: op.v, x: false };
    if (at < 256) cx.monOps.set(k, mop);
  }
  return mop;
}

export function observeInvoke(cx: Cx, d: FuseeState, c: number, op: Op): void {
  if (cx.open) return;
  report(cx, c, eventKey(INVOKE, d.cl[c].op), 'invoke', op);
  d.mon = monInvoke(cx.model, d.mon, monOp(cx, c, d.cl[c].op, op));
}

function observeReturn(cx: Cx, d: FuseeState, c: number, out: number): void {
  if (cx.open) return;
  const at = d.cl[c].op;
  const op = cx.cfg.clients[c][at];
  report(cx, c, eventKey(RETURN, at, out), 'return', op, out);
  d.mon = monReturn(cx.model, d.mon, c, out);
}

/** Client c's pending operation becomes indeterminate. */
export function observeCrash(cx: Cx, d: FuseeState, c: number): void {
  report(cx, c, eventKey(CRASH, 0), 'crash');
  if (!cx.open) d.mon = monCrash(cx.model, d.mon, c);
}

/** The current op of c responds (or, for a redo agent, recovery of c ends). */
export function respond(cx: Cx, d: FuseeState, c: number, out: number): void {
  const me = d.cl[c];
  if (me.rec === Rec.Redo) {
    replaceClient(d, c, idleClient(me.op, Rec.Done, me.log));
    return;
  }
  observeReturn(cx, d, c, out);
  replaceClient(d, c, idleClient(me.op + 1, Rec.Live, me.log));
}

/** A write that responds without having installed its value (LOSE, FINISH, FAIL path). */
export function loserResponds(cx: Cx, d: FuseeState, c: number, out: number): void {
  const me = d.cl[c];
  // I13 ([L276,L806]): a non-winner resets its used bit before it returns.
  if (me.log[1] !== 0 && me.log[2] !== COMMITTED) broke(cx, d, `I13: c${c} returns as a non-winner with its log's used bit still set`);
  ghost(cx, d).dead = addSorted(d.g.dead, me.vNew);
  respond(cx, d, c, out);
}

/** I11 (fix-up before commit, commit before the primary CAS). */
export function checkI11(cx: Cx, d: FuseeState, c: number, what: 'commits its log' | 'CASes the primary'): void {
  const me = d.cl[c];
  const stale = staleBackup(d, me.vNew);
  if (stale >= 0) broke(cx, d, `I11: c${c} ${what} while backup r${stale} holds ${d.rep[stale]}, not ${me.vNew}`);
  if (what === 'CASes the primary' && me.log[2] === NONE) broke(cx, d, `I11: c${c} CASes the primary before committing its log`);
}

/** What a read returns for slot value v: the address of a KV object; M16's fresh object holds the same user value. */
export const readOut = (cx: Cx, op: Op, v: number): number =>
  op.f === 'search' ? (v !== 0 && keyOf(v) === op.k ? v : 0) : v > FRESH && !cx.open ? v - FRESH : v;
