// MINOS-B (and MINOS-O, §5) for <Lin, Synch|Strict|REnf|Event|Scope> as a state machine.
// Coordinator Lines 1-22 and Follower Lines 23-44 are the extraction's rebuilt Fig. 2
// (§3.1) with the per-model Steps a-m of Fig. 3 (§3.2); one action per atomic step of §7.2,
// the table of steps.ts (coordinator.ts, follower.ts, network.ts). Variant flags break the
// protocol at the step the extraction's §6 names (mutants.ts).

import type { Machine } from '../../checkers/explore/types.ts';
import { sortShort } from '../kit/state.ts';
import { phasedMachine } from '../kit/table.ts';
import { context, type Cx } from './context.ts';
import { observer } from './history.ts';
import { invariants } from './invariants.ts';
import { VARIANTS } from './mutants.ts';
import { coordinatorSteps } from './coordinator.ts';
import { followerSteps } from './follower.ts';
import { valTarget } from './network.ts';
import { ACK_P, ALL, INV, KEY, NODE, NO_THREAD, PERSIST, canonicalConfig, cmpBg, cmpFoll, copy, encode, encodeWords, ghostOf, initialState, showTS, type MinosAction, type MinosConfig, type State, type Writes } from './state.ts';
import { phases } from './steps.ts';

/**
 * I2 (an action property): volatileTS, glb_volatileTS, glb_durableTS never decrease; the
 * breach is kept in a ghost. Only the record the step wrote in place can have changed (the
 * others are shared with s, `Writes`); the crash, which replaces them all, is not checked.
 */
function checkI2(d: State, s: State, n: number, k: number): void {
  if (d.g.i2) return;
  const b = s.rec[n][k];
  const x = d.rec[n][k];
  const name = x.vts < b.vts ? 'volatileTS' : x.gv < b.gv ? 'glb_volatileTS' : x.gd < b.gd ? 'glb_durableTS' : '';
  if (name) {
    const [before, after] = name === 'volatileTS' ? [b.vts, x.vts] : name === 'glb_volatileTS' ? [b.gv, x.gv] : [b.gd, x.gd];
    ghostOf(d).i2 = i2Message(name, k, n, before, after);
  }
}
export const i2Message = (name: string, k: number, n: number, before: number, after: number): string => `I2: ${name} of ${KEY[k]} at ${NODE[n]} went from ${showTS(before)} to ${showTS(after)}`;

/** What each kind of step writes in place (state.ts `Writes`): its thread's record and the thread itself. */
function writesOf(cx: Cx): (s: State, a: MinosAction) => Writes {
  const COORDINATOR = 1;
  const FOLLOWER = 2;
  const threadOf = new Map<string, number>([...coordinatorSteps(cx).map((st) => [st.name, COORDINATOR] as const), ...followerSteps(cx).map((st) => [st.name, FOLLOWER] as const)]);
  // Thread steps that read their record but never write it (persists, sends, the first
  // Obsolete check, the split read's load, a follower's spins): their copy shares it.
  const readsRecord = new Set(['obsoleteCheck_L5', 'persist_L18', 'persistLate_L18', 'readLoad', 'persist_L39_40', 'persist_L39', 'consistencySpin_L24', 'persistencySpin_L25']);
  const none: Writes = { n: -1, k: 0, co: NO_THREAD, fo: NO_THREAD };
  const all: Writes = { n: ALL, k: 0, co: NO_THREAD, fo: NO_THREAD };
  // One Writes, filled per step: copy reads it at once.
  const w: Writes = { n: -1, k: 0, co: NO_THREAD, fo: NO_THREAD };
  const set = (n: number, k: number, co: number, fo: number): Writes => {
    w.n = n;
    w.k = k;
    w.co = co;
    w.fo = fo;
    return w;
  };
  return (s, a) => {
    const thread = threadOf.get(a.step);
    if (thread === COORDINATOR) {
      const k = s.co[a.i]!.k;
      return set(k >= 0 && !readsRecord.has(a.step) ? cx.nodeOf(a.i) : -1, k, a.i, NO_THREAD);
    }
    if (thread === FOLLOWER) {
      const f = s.fo[a.i];
      return set(f.k >= 0 && !readsRecord.has(a.step) ? f.n : -1, f.k, NO_THREAD, a.i);
    }
    switch (a.step) {
      case 'clientWrite_L4': // GenTS's issued version
        return set(cx.nodeOf(a.i), a.k, NO_THREAD, NO_THREAD);
      case 'recv': {
        // a VAL runs Step l/m on the follower it is for and its record (at the receiver, of
        // the message's key); an INV or PERSIST adds a thread; an ACK copies the coordinators
        // whose sender sets it fills itself (network.ts recvACK, `coordOf`)
        const m = s.net[a.i];
        const t = m[0];
        const k = m[1];
        if (t <= ACK_P || t === INV || t === PERSIST) return none;
        return set(k >= 0 ? m[4] : -1, k, NO_THREAD, valTarget(cx, s, m));
      }
      case 'vFIFOdequeue':
        return set(a.i, a.k, NO_THREAD, NO_THREAD);
      case 'crash': // recovery replaces every record
        return all;
      default: // the others write no record or thread in place (they add or replace them)
        return none;
    }
  };
}

/** actions() and next() of one context (trace validation builds one per key, whose scripts grow). */
export function stepsMachine(cx: Cx): { actions(s: State): MinosAction[]; next(s: State, a: MinosAction): State } {
  const writes = writesOf(cx);
  let n = -1;
  let k = 0;
  const table = phasedMachine(phases(cx), (s, a) => {
    const w = writes(s, a);
    n = w.n;
    k = w.k;
    return copy(s, w);
  });
  return {
    actions: table.actions,
    next(s, a) {
      const d = table.next(s, a);
      if (!d.crashed && n >= 0) checkI2(d, s, n, k);
      // threads and background persists are sets: kept sorted (the network keeps itself sorted)
      if (d.fo !== s.fo) sortShort(d.fo, cmpFoll);
      if (d.bg !== s.bg) sortShort(d.bg, cmpBg);
      return d;
    },
  };
}

export function buildMachine(given: MinosConfig, variant?: string): Machine<State, MinosAction> {
  const config = canonicalConfig(given);
  const cx = context(config, VARIANTS.flags(variant), variant);
  return {
    internal: ['g'],
    init: () => [initialState(config, cx.writes.length, cx.scopes)],
    ...stepsMachine(cx),
    invariants: invariants(cx),
    // Deadlock: every client finished (after a crash: every recovered read done) and no thread left.
    mayStop: (s) =>
      s.crashed ? s.pr.length === config.nodes * config.keys * 3 : s.co.every((t) => t === null) && s.fo.length === 0 && s.cl.every((i, c) => i === config.clients[c].ops.length),
    // Livelock: a cycle in which no client operation completes.
    progress: (b, _a, a) => a.cl.some((i, c) => i !== b.cl[c]) || a.pr.length !== b.pr.length,
    history: observer(cx, config.model === 'Synch' && config.recovery === 'system'),
    view: encode,
    encode: encodeWords,
    actor: actorOf,
  };
}

/** Who takes an action: the node or client its label names first (the crash: the system). */
export function actorOf(a: MinosAction): string {
  const open = a.label.indexOf('(');
  const first = open < 0 ? '' : a.label.slice(open + 1).split(/[,)<@]/)[0];
  return a.step === 'crash' ? 'system' : NODE.includes(first) ? first : first.startsWith('c') ? `client ${first}` : 'system';
}
