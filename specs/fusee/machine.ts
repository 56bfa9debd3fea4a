// FUSEE's SNAPSHOT replication of one index slot (FAST '23, §4.3 Algorithms 1-2, §5
// Algorithms 3-4; extraction ../shared/protocols/fusee-snapshot.md, "X§n"), with
// memory-node (MN) crashes handled by the master and client crashes repaired from the
// embedded operation log. The state and its one copy are state.ts, the steps the table
// of steps.ts (EVALUATE_RULES in rules.ts), the invariants invariants.ts (specs/kit
// discipline). This file puts them together, and gives trace.ts and simulate.ts the open
// workload: clients that join and leave, and invocations that come from outside.

import type { Machine, ObservedEvent } from '../../checkers/explore/types.ts';
import { monInit } from '../kit/object-ghost.ts';
import { actorActions, tableMachine } from '../kit/table.ts';
import { context } from './context.ts';
import { invariants } from './invariants.ts';
import { kvHistoryModel, registerHistoryModel } from './models.ts';
import { VARIANTS } from './mutants.ts';
import { act, copy, Pools, encode, idleClient, NONE, Rec, type FuseeAction, type FuseeConfig, type FuseeState } from './state.ts';
import { table } from './steps.ts';

/** The machine, and (for trace.ts) the steps of one client alone. */
export type FuseeMachine = Machine<FuseeState, FuseeAction> & { clientActions(s: FuseeState, c: number): FuseeAction[] };

const PROGRESS: ReadonlySet<FuseeAction['step']> = new Set(['read', 'readReply', 'casPrimary', 'loserReturn', 'failReply', 'readBackups']);

export function buildMachine(config: FuseeConfig, variant?: string): FuseeMachine {
  const cx = context(config, VARIANTS.flags(variant));
  const steps = table(cx);
  // Closed configs pool their clients and ghosts by value (state.ts `Pools`); the open
  // workload of trace validation keeps them as made (its values come from the trace).
  const pool = cx.open ? undefined : new Pools();
  const { actions, next } = tableMachine(steps, copy, pool && ((d) => pool.settle(d)));
  const clientActions = actorActions(steps);
  const { r, open } = cx;

  const init = (): FuseeState => ({
    rep: Array.from({ length: r }, () => 0), // packed, as every other list of numbers here
    primary: 0,
    backups: Array.from({ length: r - 1 }, (_, i) => i + 1),
    fenced: false,
    mnLeft: cx.crashBudget,
    clLeft: config.clientCrashes,
    cl: config.clients.map(() => idleClient(0, Rec.Live, [NONE, 0, NONE])),
    g: { rnd: 0, ph: [0], props: [], wins: [], dead: [], cur: 0, snap: [], fixing: false, tv: '' },
    mon: monInit(cx.model),
  });

  // The client-level events of one step are those its effect reports while taking it
  // (cx.ev). The engine's monitor asks for them just after next() made the step's state,
  // so next() keeps the events of the step it took last, and observe() gives them for that
  // very state (by identity) rather than taking the step a second time.
  const NO_EVENTS: readonly ObservedEvent[] = Object.freeze([]);
  const taking: (readonly ObservedEvent[])[] = [];
  // A step reporting two events (a read: its invocation and its return) gets their list
  // made once per pair (each is a list of one made once, context.ts `report`).
  const pairs = new Map<readonly ObservedEvent[], Map<readonly ObservedEvent[], readonly ObservedEvent[]>>();
  const both = (x: readonly ObservedEvent[], y: readonly ObservedEvent[]): readonly ObservedEvent[] => {
    let byY = pairs.get(x);
    if (byY === undefined) pairs.set(x, (byY = new Map()));
    let xy = byY.get(y);
    if (xy === undefined) byY.set(y, (xy = [...x, ...y]));
    return xy;
  };
  const last = { before: null as FuseeState | null, a: null as FuseeAction | null, after: null as FuseeState | null, ev: NO_EVENTS as readonly ObservedEvent[] };
  const nextObserved = (before: FuseeState, a: FuseeAction): FuseeState => {
    cx.ev = taking;
    cx.nEv = 0;
    let after: FuseeState;
    try {
      after = next(before, a);
    } finally {
      cx.ev = null;
    }
    last.before = before;
    last.a = a;
    last.after = after;
    const n = cx.nEv;
    last.ev = n === 0 ? NO_EVENTS : n === 1 ? taking[0] : n === 2 ? both(taking[0], taking[1]) : taking.slice(0, n).flat();
    return after;
  };
  const observe = (before: FuseeState, a: FuseeAction, after: FuseeState): readonly ObservedEvent[] => {
    if (after === last.after && before === last.before && a === last.a) return last.ev;
    nextObserved(before, a);
    return last.ev;
  };

  return {
    init: () => [init()],
    actions,
    next: open ? next : nextObserved,
    encode,
    // The open workload keeps no ghosts, so the invariants (which read them) do not apply.
    invariants: open ? {} : invariants(cx.kv),
    mayStop: (s) => !s.fenced && s.cl.every((me, c) => me.rec === Rec.Done || (me.rec === Rec.Live && me.pc === 'idle' && (open || me.op === config.clients[c].length))),
    progress: (_before, a) => PROGRESS.has(a.step),
    ...(open ? {} : { history: { model: cx.kv ? kvHistoryModel : registerHistoryModel, clients: config.clients.length, observe } }),
    actor: (a) => (a.c >= 0 ? `c${a.c}` : a.step === 'crashMN' ? `r${a.x}` : 'master'),
    clientActions,
  };
}

// ---- the open workload (config.open): clients join and leave, invocations come from outside

/** A new client, idle and live, as the last slot. */
export function joinClient(s: FuseeState): FuseeState {
  return { ...s, cl: [...s.cl, idleClient(0, Rec.Live, [NONE, 0, NONE])] };
}

/** The state without client slot c (a client whose recovery has nothing left to do); later slots move down. */
export function leaveClient(s: FuseeState, c: number): FuseeState {
  return { ...s, cl: s.cl.filter((_, i) => i !== c) };
}

/** The invocation of an open workload's op by client slot c: a write of v, or a read (v undefined). */
export function openInvoke(c: number, v?: number): FuseeAction {
  return v === undefined ? act('read', `read(c${c})`, c) : act('invoke', `invoke(c${c}, write ${v})`, c, v);
}
