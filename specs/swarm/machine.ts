// SWARM's replication (SOSP'24, ../shared/papers/swarm.txt) as one layered state machine.
// The layers are the paper's, and each is exercised on its own or under the one above it:
//   TSL  the timestamp lock (tsl.ts): T1-T12 over n fallible CAS objects, or its spec (f.67);
//   M    the reliable max register (maxreg.ts): App. A over n fallible max registers, with
//        the per-process cache shared by all of a process's M operations, or its spec;
//   SG   Safe-Guess WRITE (W5-W11) and READ (R11-R21) on top of M and TSL[p] (safeguess.ts).
// A process runs a script of operations of any layer: `trylock` scripts give the lock unit
// configs, `mread`/`mwrite` the max-register configs, `read`/`write` the Safe-Guess ones;
// the code of a lower layer is the same whichever layer calls it. The actions are the
// table of steps.ts; the state and its one copy are state.ts (specs/kit discipline).
// Line numbers are those the extraction rebuilt (../shared/protocols/swarm-safeguess.md
// §3-5): W/R main-text lines, T the TRYLOCK listing, A the Appendix-A max register.
//
// Every per-MN request and response is its own action (§8.2), unless `fused`, where a
// request's application and its response's delivery are one step. Local continuations
// (quorum reached, T9-T12, W7, R14-R21) are fused into the delivery that enables them.

import type { Action, HistoryObserver, Machine } from '../../checkers/explore/types.ts';
import { NO_FAULTS, isDown } from '../kit/faults.ts';
import { clientHistory, register, registerOp } from '../kit/history.ts';
import { monInit, registerSlot } from '../kit/object-ghost.ts';
import { filled, objectList } from '../kit/state.ts';
import { runLocal, tableMachine, type LocalStep } from '../kit/table.ts';
import { context } from './context.ts';
import { invariants, oscillation } from './invariants.ts';
import { mLocalSteps } from './maxreg.ts';
import { VARIANTS } from './mutants.ts';
import { opStepsByKind } from './safeguess.ts';
import { copy, encode, type OpFrame, type Proc, type State, type SwarmAction, type SwarmConfig } from './state.ts';
import { table } from './steps.ts';
import { t9Step } from './tsl.ts';
import { BOTTOM, NOLOCK, procName } from './tuple.ts';

export type { Op, State, SwarmAction, SwarmConfig } from './state.ts';

export function buildMachine(cfg: SwarmConfig, variant?: string): Machine<State, SwarmAction> {
  // p's local steps, in the order of one round: M's waits, T9, then its operation's next
  // step; only those of the kind of operation p runs (opStepsByKind: the others' guards are false)
  let idle: LocalStep<State>[] = [];
  let byKind = {} as Record<OpFrame['k'] & string, LocalStep<State>[]>;
  const cx = context(cfg, VARIANTS.flags(variant), (d, p) => {
    const op = d.procs[p].op;
    runLocal(op === null ? idle : byKind[op.k], d, p);
  });
  idle = [...(cx.mSpec ? [] : mLocalSteps(cx)), t9Step(cx)];
  const ops = opStepsByKind(cx);
  byKind = { W: [...idle, ...ops.W], R: [...idle, ...ops.R], MR: [...idle, ...ops.MR], MW: [...idle, ...ops.MW], TL: [...idle, ...ops.TL] };
  const { n, nprocs } = cx;

  const proc = (): Proc => ({
    pc: 0, cache: filled(n, BOTTOM), lastC: 0, lastG: 0, op: null,
    mr: null, mrRes: -1, mw: -1, mwDone: false, bg: [], lk: null, lkRes: -1, last: -1,
  });
  const init = (): State => ({
    regs: filled(n, BOTTOM),
    mns: NO_FAULTS,
    locks: Array.from({ length: cx.nLocks }, () => filled(n, NOLOCK)),
    procs: Array.from({ length: nprocs }, proc),
    clients: NO_FAULTS,
    reqs: objectList(),
    rsps: objectList(),
    g: {
      cR: BOTTOM, cW: BOTTOM, wInv: cx.mLayer ? [] : null,
      tlInv: Array.from({ length: cx.nLocks }, () => []), tlTrue: Array.from({ length: cx.nLocks }, () => []),
      lin: cx.sgLayer ? monInit(registerSlot) : null, rew: [], dbl: [], doneTs: 0,
    },
    viol: objectList(),
  });

  const all = invariants(cx);
  const machine: Machine<State, SwarmAction> = {
    init: () => [init()],
    ...tableMachine(table(cx), copy),
    encode,
    invariants: cx.mut.HAZARD ? { 'SG-Lin': all['SG-Lin'], Oscillation: oscillation } : all,
    mayStop: (s) => s.viol.length > 0 || s.procs.every((pr, p) => isDown(s.clients, p) || (!pr.op && pr.pc === cfg.scripts[p].length && pr.bg.length === 0)),
    actor: (a) => (a.step === 'crashMN' ? `mn${a.x}` : procName(a.p)),
  };
  if (cx.sgLayer) {
    const isSg = (o: OpFrame | null) => o !== null && (o.k === 'W' || o.k === 'R');
    machine.history = sgHistory<State, SwarmAction>(cfg, {
      pc: (s, p) => s.procs[p].pc,
      pending: (s, p) => isSg(s.procs[p].op),
      last: (s, p) => s.procs[p].last,
      invokes: (a) => a.step === 'invoke',
      crashes: (a) => a.step === 'crashClient',
    });
  }
  return machine;
}

/**
 * Client-level events for the engine's own linearizability monitor (a cross-check of
 * SG-Lin), read from either representation of the state (this file's objects, sg.ts's words).
 */
export function sgHistory<S, A extends Action & { p: number }>(
  cfg: SwarmConfig,
  at: { pc(s: S, p: number): number; pending(s: S, p: number): boolean; last(s: S, p: number): number; invokes(a: A): boolean; crashes(a: A): boolean },
): HistoryObserver<S, A> {
  // What each script entry invokes, made once (the monitor numbers an input it has met by identity).
  const invocations = cfg.scripts.map((script, p) =>
    script.map((op) => (op.f === 'write' ? { client: p, input: registerOp.write(`v${op.v}`) } : op.f === 'read' ? { client: p, input: registerOp.read() } : null)),
  );
  return clientHistory<S, A>({
    model: register,
    clients: cfg.scripts.length,
    invoked: (b, a) => (at.invokes(a) ? invocations[a.p][at.pc(b, a.p)] : null),
    crashed: (_b, a) => (at.crashes(a) ? a.p : null),
    pending: at.pending,
    output: (after, p) => (cfg.scripts[p][at.pc(after, p) - 1].f === 'read' ? (at.last(after, p) ? `v${at.last(after, p)}` : null) : null),
  });
}
