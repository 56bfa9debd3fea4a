// The follower thread (the extraction's rebuilt Fig. 2 right, Lines 23-44, with Fig. 3
// (ii)(iv)(vi)(viii)): one thread per INV received, spawned by its delivery (network.ts,
// which also runs Line 27's check and the VAL steps 41-43); Scope's [PERSIST]sc spawns one
// too. One step per atomic step of §7.2, taken at the thread's place (its pc).

import type { ActorStep } from '../kit/table.ts';
import { backgroundPersist, install, persistNvm, scopeDurableHere, send, type Cx } from './context.ts';
import { ACK, ACK_C, ACK_P, ActionCache, NODE, actionKey, keyTS, type Foll, type MinosAction, type State } from './state.ts';

type Step = ActorStep<State, MinosAction>;

/** A follower step: enabled for follower thread i when it is at `pc` (and of `kind`) and `guard` holds. */
function follStep(
  name: string,
  pc: string,
  cites: string,
  label: string,
  effect: (d: State, f: Foll) => void,
  guard?: (s: State, f: Foll) => boolean,
  kind: Foll['kind'] = 'write',
): Step {
  const made = new ActionCache();
  return {
    name,
    cites,
    at: pc,
    enabled(s, i, out) {
      const f = s.fo[i];
      if (f.pc !== pc || f.kind !== kind || (guard !== undefined && !guard(s, f))) return;
      const key = actionKey(i, f.n, f.k, f.ts, f.sc);
      let a = made.get(key);
      if (a === undefined) {
        const what = f.kind === 'persist' ? `${NODE[f.n]}, sc${f.sc}` : `${NODE[f.n]}, ${keyTS(f.k, f.ts)}`;
        a = made.keep(key, { step: name, label: `${label}(${what})`, i, k: f.k });
      }
      out.push(a);
    },
    effect: (d, a) => effect(d, d.fo[a.i]),
  };
}

/** After handleObsolete: wait for the VAL (recheck path, Line 38 then Step l), or discard it (Line 30). */
function afterObsolete(cx: Cx, f: Foll): void {
  if (f.sn) f.pc = 'wait';
  else {
    f.pc = 'discard';
    f.need = cx.model === 'Strict' ? 2 : 1;
  }
}

/** Lines 32-38: the final check under WRLock, the install (Line 34), and per model the ACKs and persist that follow. */
function localWrite(cx: Cx, d: State, f: Foll): void {
  const { model, mut } = cx;
  const r = d.rec[f.n][f.k];
  if (!cx.O && !mut.M4 && cx.obsolete(r, f.ts)) {
    f.tau = cx.cur(r);
    f.pc = 'cspin';
    return;
  }
  install(cx, d, f.n, f.k, f.ts, f.v); // Line 34 (MINOS-O: the enqueue after the Line-27 check, no recheck [L249])
  if (mut.M7) cx.releaseIfOwner(r, f.ts); // M7: reads proceed before the VAL
  if (model === 'Synch') {
    if (mut.M2 || mut.M26) {
      send(d, ACK, f.n, f.from, f.k, f.ts); // M2/M26: Line 40 before Line 39
      f.pc = 'latePersist';
    } else f.pc = 'persist';
  } else if (model === 'Strict' || model === 'REnf') {
    send(d, ACK_C, f.n, f.from, f.k, f.ts);
    if (mut.M14) {
      send(d, ACK_P, f.n, f.from, f.k, f.ts); // M14: ACK_P before the persist completes
      f.pc = 'latePersist';
    } else f.pc = 'persist';
  } else {
    send(d, ACK_C, f.n, f.from, f.k, f.ts, 0, f.sc);
    backgroundPersist(cx, d, f.n, f.k, f.ts, f.v, f.sc); // Line 39, off the critical path
    f.pc = 'wait';
  }
}

/** ConsistencySpin done (Line 24); then PersistencySpin, or the ACK(s) of the obsolete path. */
function consistencySpin(cx: Cx, d: State, f: Foll): void {
  const six2 = cx.mut["M6''"];
  if (cx.model === 'Synch') {
    if (six2) {
      send(d, ACK, f.n, f.from, f.k, f.ts); // M6'': no PersistencySpin
      afterObsolete(cx, f);
    } else f.pc = 'pspin';
    return;
  }
  send(d, ACK_C, f.n, f.from, f.k, f.ts, 0, f.sc);
  if (cx.pspin && !six2) f.pc = 'pspin';
  else {
    if (cx.pspin) send(d, ACK_P, f.n, f.from, f.k, f.ts); // M6'': ACK_P without PersistencySpin
    afterObsolete(cx, f);
  }
}

export function followerSteps(cx: Cx): Step[] {
  const { O, mut } = cx;
  const ackOrP = cx.model === 'Synch' ? ACK : ACK_P;
  return [
    follStep('snatchRDLock_L31', 'snatch', 'Fig. 2 Line 31, Snatch RDLock [L124]', 'snatchRDLock_L31', (d, f) => {
      const r = d.rec[f.n][f.k];
      r.rd = cx.snatch(r, f.ts);
      f.sn = true;
      f.pc = 'local';
    }),
    follStep('localWrite_L32_38', 'local', 'Fig. 2 Lines 32-38 [L144]-[L146] (MINOS-O: the vFIFO enqueue [L249])', O ? 'enqueue_vFIFO' : 'localWrite_L32_38', (d, f) => localWrite(cx, d, f)),
    follStep('persist_L39_40', 'persist', 'Fig. 2 Lines 39-40: persist, then ACK (Synch) / ACK_P (Strict, REnf) [L146], [L158]', O ? 'dFIFOenqueue_L39_40' : 'persist_L39_40', (d, f) => {
      persistNvm(d, f.n, f.k, f.ts, f.v);
      send(d, ackOrP, f.n, f.from, f.k, f.ts);
      f.pc = 'wait';
    }),
    follStep('persist_L39', 'latePersist', 'Fig. 2 Line 39 after its ACK (M2, M14, M26)', 'persist_L39', (d, f) => {
      persistNvm(d, f.n, f.k, f.ts, f.v);
      f.pc = 'wait';
    }),
    follStep('consistencySpin_L24', 'cspin', 'Fig. 2 Line 24, ConsistencySpin [L144]', 'consistencySpin_L24', (d, f) => consistencySpin(cx, d, f),
      (s, f) => mut["M6'"] || !cx.lt(s.rec[f.n][f.k].gv, f.tau)), // M6': the follower skips ConsistencySpin
    follStep('persistencySpin_L25', 'pspin', 'Fig. 2 Line 25, PersistencySpin, Step h [L158]; then ACK / ACK_P (Line 29)', 'persistencySpin_L25', (d, f) => {
      send(d, ackOrP, f.n, f.from, f.k, f.ts);
      afterObsolete(cx, f);
    }, (s, f) => !cx.lt(s.rec[f.n][f.k].gd, f.tau)),
    // [PERSIST]sc at a follower: its background persists of the scope done (M15: not awaited), send [ACK_P]sc
    follStep('ackPersist_sc', 'flush', 'Scope [PERSIST]sc at a follower [L168]', 'ackPersist_sc', (d, f) => {
      send(d, ACK_P, f.n, f.from, -1, f.sc, 0, f.sc);
      f.pc = 'waitVP';
    }, (s, f) => mut.M15 || scopeDurableHere(cx, s, f.n, f.sc, f.items), 'persist'),
  ];
}
