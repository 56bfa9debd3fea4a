// The coordinator thread (the extraction's rebuilt Fig. 2 left, Lines 1-22, with the
// per-model Steps of Fig. 3 (i)(iii)(v)(vii)): one step per atomic step of §7.2, each taken
// when the thread is at its place (`at`: the thread's pc) and its guard holds. Labels are
// the paper's line or step; MINOS-O (§5) relabels the steps the SNIC performs.

import type { ActorStep } from '../kit/table.ts';
import {
  backgroundPersist, broadcast, finish, install, persistNvm, readValue, respond, scopeDurableHere, scopeItems,
  type Cx,
} from './context.ts';
import { ActionCache, INV, VAL, VAL_C, VAL_P, actionKey, clientAt, ghostOf, keyTS, type Coord, type MinosAction, type Rec, type State } from './state.ts';

type Step = ActorStep<State, MinosAction>;

/** The record the thread works on (its node's copy of its key). */
const recOf = (cx: Cx, s: State, c: number, th: Coord): Rec => s.rec[cx.nodeOf(c)][th.k];

/**
 * A coordinator step: enabled for client c when its thread is at `pc` and `guard` holds;
 * labelled `label(c0@A, x, <1,A>)` (a PERSIST: `label(c0@A, sc1)`).
 */
function coordStep(
  cx: Cx,
  name: string,
  pc: string,
  cites: string,
  label: string,
  effect: (d: State, c: number, th: Coord) => void,
  guard?: (s: State, c: number, th: Coord) => boolean,
): Step {
  const made = new ActionCache();
  return {
    name,
    cites,
    at: pc,
    enabled(s, c, out) {
      const th = s.co[c];
      if (th === null || th.pc !== pc || (guard !== undefined && !guard(s, c, th))) return;
      const key = actionKey(c, 0, th.k, th.ts, th.sc);
      let a = made.get(key);
      if (a === undefined) {
        const what = th.kind === 'persist' ? `sc${th.sc}` : keyTS(th.k, th.ts);
        a = made.keep(key, { step: name, label: `${label}(${clientAt(c, cx.nodeOf(c))}, ${what})`, i: c, k: th.k });
      }
      out.push(a);
    },
    effect: (d, a) => effect(d, a.i, d.co[a.i]!),
  };
}

/** handleObsolete done (Lines 6 / 16): Lines 20-21 if Line 8 was reached, then return. */
function obsoleteDone(cx: Cx, d: State, c: number, th: Coord): void {
  if (th.sn) cx.releaseIfOwner(recOf(cx, d, c, th), th.ts);
  respond(d, c, th);
  finish(d, c);
}

/** Obsolete() held: snapshot volatileTS for the spins (Lines 6 / 16). */
function toObsolete(cx: Cx, d: State, c: number, th: Coord, r: Rec): void {
  th.tau = cx.cur(r);
  if (cx.mut.M6) obsoleteDone(cx, d, c, th); // M6: the coordinator skips handleObsolete
  else th.pc = 'cspin';
}

/** Lines 11-12 with what follows them per model (Steps d, e). */
function coordInstall(cx: Cx, d: State, c: number, th: Coord): void {
  const n = cx.nodeOf(c);
  const v = th.w + 1;
  broadcast(cx, d, INV, n, th.k, th.ts, v, th.sc); // Line 11: INVs before the local update
  install(cx, d, n, th.k, th.ts, v); // Line 12
  th.sent = true;
  if (cx.model === 'Synch') {
    if (cx.mut.M3) backgroundPersist(cx, d, n, th.k, th.ts, v, th.sc); // M3: Step d in the background
    th.pc = cx.mut.M3 || cx.mut.M10 ? 'ackWait' : 'persist';
  } else if (cx.model === 'Strict') {
    th.pc = 'persist'; // Step d stays synchronous for Strict [L160]
  } else {
    backgroundPersist(cx, d, n, th.k, th.ts, v, th.sc); // Step d: background [L160]
    th.pc = 'ackWait';
  }
}

/** Step e under Synch: all ACKs, glb updates, Lines 20-22 (MINOS-O: respond, then drain). */
function allACKs(cx: Cx, d: State, c: number, th: Coord): void {
  const n = cx.nodeOf(c);
  const r = recOf(cx, d, c, th);
  if (cx.mut.M20) {
    cx.releaseIfOwner(r, th.ts); // M20: Lines 20-21 before the glb update
    th.pc = 'glb';
    return;
  }
  r.gv = cx.glb(r.gv, th.ts);
  r.gd = cx.glb(r.gd, th.ts);
  if (cx.O) {
    respond(d, c, th); // Fig. 7(a): the batched ACK to the host ends the client-write
    if (cx.mut.M25) {
      cx.releaseIfOwner(r, th.ts);
      broadcast(cx, d, VAL, n, th.k, th.ts);
      finish(d, c);
    } else th.pc = 'drain';
    return;
  }
  cx.releaseIfOwner(r, th.ts); // Lines 20-21
  broadcast(cx, d, VAL, n, th.k, th.ts); // Line 22 (Step f)
  respond(d, c, th);
  if (cx.mut.M10) th.pc = 'latePersist';
  else finish(d, c);
}

/** Step e under Strict, REnf, Event, Scope: all ACK_Cs. */
function allACK_C(cx: Cx, d: State, c: number, th: Coord): void {
  const n = cx.nodeOf(c);
  const r = recOf(cx, d, c, th);
  r.gv = cx.glb(r.gv, th.ts);
  if (cx.model === 'Strict') {
    cx.releaseIfOwner(r, th.ts);
    broadcast(cx, d, VAL_C, n, th.k, th.ts); // Step f: VAL_C, then wait for the ACK_Ps
    if (cx.mut.M13) respond(d, c, th); // M13: return after the ACK_Cs
    th.pc = 'ackPWait';
  } else if (cx.model === 'REnf') {
    if (cx.mut.M11) {
      cx.releaseIfOwner(r, th.ts); // M11: release and VAL after the ACK_Cs (Event behaviour)
      broadcast(cx, d, VAL, n, th.k, th.ts);
      respond(d, c, th);
      finish(d, c);
      return;
    }
    if (!cx.mut.M12) respond(d, c, th); // Step e: return to the client, the thread continues
    th.pc = 'ackPWait';
  } else {
    cx.releaseIfOwner(r, th.ts); // Event, Scope: release, VAL_C, return
    broadcast(cx, d, VAL_C, n, th.k, th.ts, 0, th.sc);
    respond(d, c, th);
    finish(d, c);
  }
}

/** Strict Step f / REnf Step e: all ACK_Ps. */
function allACK_P(cx: Cx, d: State, c: number, th: Coord): void {
  const n = cx.nodeOf(c);
  const r = recOf(cx, d, c, th);
  r.gd = cx.glb(r.gd, th.ts);
  if (cx.model === 'Strict') {
    broadcast(cx, d, VAL_P, n, th.k, th.ts);
  } else {
    cx.releaseIfOwner(r, th.ts); // REnf: "when all ACK_Ps are received, the RDLock is released"
    broadcast(cx, d, VAL, n, th.k, th.ts);
  }
  respond(d, c, th);
  finish(d, c);
}

export function coordinatorSteps(cx: Cx): Step[] {
  const { O, model, mut } = cx;
  const rec = (s: State, c: number, th: Coord) => recOf(cx, s, c, th);
  return [
    coordStep(cx, 'obsoleteCheck_L5', 'check', 'Fig. 2 Line 5 [L122]: the first Obsolete check, no locks', 'obsoleteCheck_L5', (d, c, th) => {
      const r = rec(d, c, th);
      if (cx.obsolete(r, th.ts)) toObsolete(cx, d, c, th, r);
      else th.pc = 'snatch';
    }),
    coordStep(cx, 'snatchRDLock_L8', 'snatch', 'Fig. 2 Line 8, Snatch RDLock [L124]', 'snatchRDLock_L8', (d, c, th) => {
      const r = rec(d, c, th);
      r.rd = cx.snatch(r, th.ts);
      th.sn = true;
      th.pc = mut.M22 ? 'recheck' : 'local';
    }),
    // Lines 9-16 under WRLock: the final check (Line 10), then install or give up. MINOS-O: no
    // WRLock; the SNIC's check and its atomic "send INVs + enqueue" are two steps [L247].
    coordStep(cx, 'localWrite_L9_16', 'local', 'Fig. 2 Lines 9-16 [L126], §7.2 item 5; MINOS-O §V-B.4 [L247]', O ? 'snicObsoleteCheck' : 'localWrite_L9_16', (d, c, th) => {
      const r = rec(d, c, th);
      if (!mut.M23 && cx.obsolete(r, th.ts)) toObsolete(cx, d, c, th, r);
      else if (O) th.pc = 'install';
      else coordInstall(cx, d, c, th);
    }, (s, c, th) => rec(s, c, th).wr === 0), // Line 9: spin until WRLock acquired
    coordStep(cx, 'recheck_L10', 'recheck', 'Fig. 2 Line 10 without WRLock (M22)', 'recheck_L10', (d, c, th) => {
      const r = rec(d, c, th);
      if (cx.obsolete(r, th.ts)) toObsolete(cx, d, c, th, r);
      else th.pc = 'install';
    }),
    coordStep(cx, 'install_L11_12', 'install', 'Fig. 2 Lines 11-12 (MINOS-O: send INVs + vFIFO enqueue [L247])', O ? 'sendINVs_enqueue_vFIFO' : 'install_L11_12', (d, c, th) => coordInstall(cx, d, c, th)),
    coordStep(cx, 'persist_L18', 'persist', 'Fig. 2 Line 18, Step d, synchronous in Synch and Strict [L140], [L160] (MINOS-O: the dFIFO enqueue)', O ? 'dFIFOenqueue_L18' : 'persist_L18', (d, c, th) => {
      persistNvm(d, cx.nodeOf(c), th.k, th.ts, th.w + 1);
      th.pc = 'ackWait';
    }),
    coordStep(cx, 'allACKs_L19_22', 'ackWait', 'Fig. 2 Lines 19-22, Step e [L142]; MINOS-O Fig. 7(a) [L249]', 'allACKs_L19_22', (d, c, th) => allACKs(cx, d, c, th),
      (_s, c, th) => model === 'Synch' && (mut.M1 ? th.ack !== 0 : cx.full(th.ack, cx.nodeOf(c)))), // M1: return after the first ACK
    // MINOS-O: the step that releases RDLock also waits for the vFIFO drain (Event, Scope, Strict)
    coordStep(cx, 'allACK_C_e', 'ackWait', 'Fig. 3 Step e [L156]-[L166]', 'allACK_C_e', (d, c, th) => allACK_C(cx, d, c, th),
      (s, c, th) => model !== 'Synch' && (mut.M1 ? th.ack !== 0 : cx.full(th.ack, cx.nodeOf(c))) && (model === 'REnf' || cx.drained(rec(s, c, th), th.ts))),
    coordStep(cx, 'allACK_P_f', 'ackPWait', 'Fig. 3 Strict Step f [L156], REnf Step e [L160]', 'allACK_P_f', (d, c, th) => allACK_P(cx, d, c, th),
      (s, c, th) => cx.full(th.ackP, cx.nodeOf(c)) && (model === 'Strict' || cx.drained(rec(s, c, th), th.ts))),
    coordStep(cx, 'glbUpdate', 'glb', 'Fig. 2 Line 19 after Lines 20-21 (M20)', 'glbUpdate', (d, c, th) => {
      const r = rec(d, c, th);
      r.gv = cx.glb(r.gv, th.ts);
      r.gd = cx.glb(r.gd, th.ts);
      broadcast(cx, d, VAL, cx.nodeOf(c), th.k, th.ts);
      respond(d, c, th);
      finish(d, c);
    }),
    coordStep(cx, 'releaseAfterDrain', 'drain', 'MINOS-O Synch: release once drained from the vFIFO, then VALs [L249]', 'releaseAfterDrain', (d, c, th) => {
      cx.releaseIfOwner(rec(d, c, th), th.ts);
      broadcast(cx, d, VAL, cx.nodeOf(c), th.k, th.ts);
      finish(d, c);
    }, (s, c, th) => cx.drained(rec(s, c, th), th.ts)),
    coordStep(cx, 'persistLate_L18', 'latePersist', 'Fig. 2 Line 18 after Line 22 (M10)', 'persist_L18', (d, c, th) => {
      persistNvm(d, cx.nodeOf(c), th.k, th.ts, th.w + 1);
      finish(d, c);
    }),
    coordStep(cx, 'consistencySpin_L2', 'cspin', 'handleObsolete Line 2, ConsistencySpin [L110]', 'consistencySpin_L2', (d, c, th) => {
      if (cx.pspin) th.pc = 'pspin';
      else obsoleteDone(cx, d, c, th);
    }, (s, c, th) => !cx.lt(rec(s, c, th).gv, th.tau)),
    coordStep(cx, 'persistencySpin_L3', 'pspin', 'handleObsolete Line 3, PersistencySpin, Step a [L164]', 'persistencySpin_L3', (d, c, th) => obsoleteDone(cx, d, c, th),
      (s, c, th) => !cx.lt(rec(s, c, th).gd, th.tau)),
    // [PERSIST]sc: all [ACK_P]sc and this node's own persists of the scope (M16: not those)
    coordStep(cx, 'allACK_P_sc', 'persistWait', 'Scope [PERSIST]sc [L168]', 'allACK_P_sc', (d, c, th) => {
      broadcast(cx, d, VAL_P, cx.nodeOf(c), -1, th.sc, 0, th.sc);
      ghostOf(d).pd[th.sc] = 1;
      respond(d, c, th);
      finish(d, c);
    }, (s, c, th) => {
      const n = cx.nodeOf(c);
      return cx.full(th.ackP, n) && (mut.M16 || scopeDurableHere(cx, s, n, th.sc, scopeItems(cx, s, th.sc)));
    }),
    coordStep(cx, 'readLoad', 'load', '§III-D reads [L172]: the load a step after the RDLock check (M21)', 'readLoad', (d, c, th) => {
      readValue(cx, d, c, th.k, th.low);
      finish(d, c);
    }),
  ];
}

