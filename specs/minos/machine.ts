// MINOS-B (and MINOS-O, §5) for <Lin, Synch|Strict|REnf|Event|Scope> as a state machine.
// Coordinator Lines 1-22 and Follower Lines 23-44 are the extraction's rebuilt Fig. 2
// (§3.1) with the per-model Steps a-m of Fig. 3 (§3.2); one action per atomic step of §7.2,
// the table of steps.ts (coordinator.ts, follower.ts, network.ts). Variant flags break the
// protocol at the step the extraction's §6 names (mutants.ts).

import type { Machine } from '../../checkers/explore/types.ts';
import { phasedMachine } from '../kit/table.ts';
import { context, type Cx } from './context.ts';
import { observer } from './history.ts';
import { invariants } from './invariants.ts';
import { VARIANTS } from './mutants.ts';
import { coordinatorSteps } from './coordinator.ts';
import { followerSteps } from './follower.ts';
import { ALL, KEY, NODE, NO_THREAD, cmpBg, cmpFoll, copy, encode, encodeWords, initialState, showTS, type MinosAction, type MinosConfig, type State, type Writes } from './state.ts';
import { phases } from './steps.ts';

/** I2 (an action property): volatileTS, glb_volatileTS, glb_durableTS never decrease; the breach is kept in a ghost. */
function checkI2(cx: Cx, s: State, d: State): void {
  for (let n = 0; n < cx.N && !d.g.i2; n++) {
    for (let k = 0; k < cx.cfg.keys; k++) {
      const b = s.rec[n][k];
      const x = d.rec[n][k];
      const name = x.vts < b.vts ? 'volatileTS' : x.gv < b.gv ? 'glb_volatileTS' : x.gd < b.gd ? 'glb_durableTS' : '';
      if (name) {
        const [before, after] = name === 'volatileTS' ? [b.vts, x.vts] : name === 'glb_volatileTS' ? [b.gv, x.gv] : [b.gd, x.gd];
        d.g.i2 = `I2: ${name} of ${KEY[k]} at ${NODE[n]} went from ${showTS(before)} to ${showTS(after)}`;
      }
    }
  }
}

/** What each kind of step writes in place (state.ts `Writes`): its thread's record and the thread itself. */
function writesOf(cx: Cx): (s: State, a: MinosAction) => Writes {
  const coordinator = new Set(coordinatorSteps(cx).map((st) => st.name));
  const follower = new Set(followerSteps(cx).map((st) => st.name));
  const none: Writes = { n: -1, k: 0, co: NO_THREAD, fo: NO_THREAD };
  const all: Writes = { n: ALL, k: 0, co: NO_THREAD, fo: NO_THREAD };
  return (s, a) => {
    if (coordinator.has(a.step)) {
      const k = s.co[a.i]!.k;
      return { n: k >= 0 ? cx.nodeOf(a.i) : -1, k, co: a.i, fo: NO_THREAD };
    }
    if (follower.has(a.step)) {
      const f = s.fo[a.i];
      return { n: f.k >= 0 ? f.n : -1, k: f.k, co: NO_THREAD, fo: a.i };
    }
    switch (a.step) {
      case 'clientWrite_L4': // GenTS's issued version
        return { n: cx.nodeOf(a.i), k: a.k, co: NO_THREAD, fo: NO_THREAD };
      case 'recv': {
        // an ACK fills sender sets of its node's coordinators; a VAL runs Step l/m on its follower's record
        const [, k, , , to] = s.net[a.i];
        return { n: k >= 0 ? to : -1, k, co: ALL, fo: ALL };
      }
      case 'vFIFOdequeue':
        return { n: a.i, k: a.k, co: NO_THREAD, fo: NO_THREAD };
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
  const table = phasedMachine(phases(cx), (s, a) => copy(s, writes(s, a)));
  return {
    actions: table.actions,
    next(s, a) {
      const d = table.next(s, a);
      if (!d.crashed) checkI2(cx, s, d);
      // threads and background persists are sets: kept sorted (the network keeps itself sorted)
      d.fo.sort(cmpFoll);
      d.bg.sort(cmpBg);
      return d;
    },
  };
}

export function buildMachine(config: MinosConfig, variant?: string): Machine<State, MinosAction> {
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
    actor: (a) => {
      const open = a.label.indexOf('(');
      const first = open < 0 ? '' : a.label.slice(open + 1).split(/[,)<@]/)[0];
      return a.step === 'crash' ? 'system' : NODE.includes(first) ? first : first.startsWith('c') ? `client ${first}` : 'system';
    },
  };
}
