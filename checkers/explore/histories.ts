// Linearizability by histories, the second mode: the client histories the machine can
// produce are collected (each distinct one once) and checked with the WGL checker of
// checkers/lin. It is slower than the incremental monitor (the state space becomes the
// space of (state, history) pairs) and serves to cross-check it.
//
// Two forms:
// - checkHistories(machine): a search of its own that collects the histories of complete
//   executions, keeps the maximal ones (a history that is a prefix of another needs no
//   check of its own: linearizability is prefix-closed when pending operations may or may
//   not take effect) and checks each; a violation is then narrowed to the illegal history
//   closest to an initial state, as the incremental monitor's breadth-first search finds.
// - withHistories(machine): a machine transformer for the explorer, whose states carry
//   their history; the invariant 'linearizability' checks each distinct history once.

import { checkHistorySync } from '../lin/index.ts';
import type { LinResult, Operation } from '../lin/types.ts';
import { LINEARIZABILITY } from './monitor.ts';
import { canonicalJson } from './reference.ts';
import type { Action, Check, Machine, ObservedEvent } from './types.ts';

/** A history as plain data: the observed events in order. */
export type EventList = readonly ObservedEvent[];

/** The operations a list of events describes; an event's position is its time. */
export function toOperations(events: EventList): Operation[] {
  const ops: (Operation | null)[] = [];
  const open = new Map<number, number>();
  events.forEach((e, t) => {
    if (e.kind === 'invoke') {
      open.set(e.client, ops.length);
      ops.push({ client: e.client, input: e.input, call: t });
      return;
    }
    const i = open.get(e.client);
    if (i === undefined) throw new Error(`history: ${e.kind} for client ${e.client}, which has no pending operation`);
    open.delete(e.client);
    if (e.kind === 'return') ops[i] = { ...ops[i]!, ret: t, output: e.output };
    else if (e.kind === 'fail') ops[i] = null;
  });
  return ops.filter((o): o is Operation => o !== null);
}

/** The observer, or an error naming what is missing. */
function observerOf<S, A extends Action>(machine: Machine<S, A>) {
  if (!machine.history) throw new Error('linearizability by histories: the machine has no history observer');
  return machine.history;
}

export interface HistoriesOptions {
  /** Stop (incomplete) rather than store more (state, history) pairs than this. Default 200,000. */
  maxStates?: number;
  /** Time budget for each WGL check; a check that runs out makes the result incomplete. */
  timeoutMs?: number;
  /**
   * Do not expand states at this depth: only executions of at most this many steps are
   * covered, and the result is incomplete if a deeper step exists (as exploreSync's maxDepth).
   */
  maxDepth?: number;
}

export interface HistoriesResult {
  status: 'holds' | 'violation' | 'incomplete';
  incompleteReason?: string;
  /** (state, history) pairs visited. */
  states: number;
  /** Distinct histories seen, and how many of them are maximal (checked). */
  histories: number;
  checked: number;
  violation?: {
    property: typeof LINEARIZABILITY;
    message: string;
    /** The illegal history closest to an initial state. */
    history: Operation[];
    /** Actions leading to it, from initial state `init`. */
    init: number;
    path: Action[];
    lin: LinResult;
  };
}

/** Collects the histories of every execution and checks the maximal ones with checkHistorySync. */
export function checkHistories<S, A extends Action>(machine: Machine<S, A>, options: HistoriesOptions = {}): HistoriesResult {
  const observer = observerOf(machine);
  const maxStates = options.maxStates ?? 200_000;
  const view = (s: S): unknown => (machine.view ? machine.view(s) : s);
  // The product search: parent links to rebuild paths; each history's first (shallowest) node.
  const maxDepth = options.maxDepth ?? Infinity;
  const nodes: { s: S; h: EventList; parent: number; action?: A; init: number; depth: number }[] = [];
  const seen = new Set<string>();
  const firstWith = new Map<string, number>();
  const extended = new Set<string>();
  let incompleteReason: string | undefined;
  const add = (s: S, h: EventList, parent: number, action: A | undefined, init: number) => {
    const hk = canonicalJson(h);
    const k = `${canonicalJson(view(s))}|${hk}`;
    if (seen.has(k)) return;
    if (nodes.length >= maxStates) {
      incompleteReason ??= `state budget of ${maxStates} (state, history) pairs reached`;
      return;
    }
    seen.add(k);
    if (!firstWith.has(hk)) firstWith.set(hk, nodes.length);
    nodes.push({ s, h, parent, action, init, depth: parent < 0 ? 0 : nodes[parent].depth + 1 });
  };
  machine.init().forEach((s, i) => add(s, [], -1, undefined, i));
  for (let i = 0; i < nodes.length; i++) {
    const { s, h, init, depth } = nodes[i];
    const enabled = machine.actions(s);
    if (depth >= maxDepth) {
      if (enabled.length > 0) incompleteReason ??= `depth bound of ${maxDepth} reached: deeper states were not explored`;
      continue;
    }
    for (const a of enabled) {
      const t = machine.next(s, a);
      const events = observer.observe(s, a, t);
      if (events.length > 0) extended.add(canonicalJson(h));
      add(t, events.length === 0 ? h : [...h, ...events], i, a, init);
    }
  }
  const maximal = [...firstWith.keys()].filter((k) => !extended.has(k));
  const base = { states: nodes.length, histories: firstWith.size, checked: 0 };
  // Shortest first, so that the violation reported is found on the shortest history.
  const order = maximal.map((k) => firstWith.get(k)!).sort((a, b) => nodes[a].h.length - nodes[b].h.length || a - b);
  for (const n of order) {
    const r = checkHistorySync(observer.model, toOperations(nodes[n].h), { timeoutMs: options.timeoutMs });
    base.checked++;
    if (r.verdict === 'unknown') {
      incompleteReason ??= `a history check was inconclusive (${r.partitions.find((p) => p.reason)?.reason ?? 'unknown'})`;
      continue;
    }
    if (r.verdict === 'illegal') return { status: 'violation', ...base, violation: shortest(nodes, observer.model, options) };
  }
  return { status: incompleteReason ? 'incomplete' : 'holds', ...(incompleteReason ? { incompleteReason } : {}), ...base };
}

/**
 * The shortest counterexample, once some history is known to be illegal: the nodes are in
 * breadth-first order, so the first whose history is illegal is the closest to an initial
 * state (each distinct history is checked once).
 */
function shortest<S, A extends Action>(
  nodes: { s: S; h: EventList; parent: number; action?: A; init: number; depth: number }[],
  model: NonNullable<Machine['history']>['model'],
  options: HistoriesOptions,
): NonNullable<HistoriesResult['violation']> {
  const legal = new Set<string>();
  for (let i = 0; i < nodes.length; i++) {
    const k = canonicalJson(nodes[i].h);
    if (legal.has(k)) continue;
    const history = toOperations(nodes[i].h);
    const lin = checkHistorySync(model, history, { timeoutMs: options.timeoutMs });
    if (lin.verdict !== 'illegal') {
      legal.add(k);
      continue;
    }
    const path: Action[] = [];
    for (let n = i; nodes[n].parent >= 0; n = nodes[n].parent) path.push(nodes[n].action!);
    return {
      property: LINEARIZABILITY,
      message: `the history of ${history.length} operations is not linearizable against the ${model.name} model`,
      history,
      init: nodes[i].init,
      path: path.reverse(),
      lin,
    };
  }
  throw new Error('linearizability by histories: an illegal history has no illegal node (this is a bug)');
}

/** A state of the machine that carries its history. */
export interface WithHistory<S> {
  s: S;
  h: EventList;
}

/**
 * The machine whose states carry their client history (part of the view), with an
 * invariant 'linearizability' checked by the WGL checker on each distinct history once
 * (a state budget bounds the memo: at most `memo` verdicts are kept).
 */
export function withHistories<S, A extends Action>(machine: Machine<S, A>, memo = 100_000): Machine<WithHistory<S>, A> {
  const observer = observerOf(machine);
  const verdicts = new Map<string, Check>();
  const invariants: Record<string, (w: WithHistory<S>) => Check> = Object.create(null);
  for (const [name, inv] of Object.entries(machine.invariants)) invariants[name] = (w) => inv(w.s);
  if (LINEARIZABILITY in invariants) throw new Error(`withHistories: the machine already has an invariant named '${LINEARIZABILITY}'`);
  invariants[LINEARIZABILITY] = (w) => {
    const k = canonicalJson(w.h);
    let v = verdicts.get(k);
    if (v === undefined) {
      const ops = toOperations(w.h);
      const r = checkHistorySync(observer.model, ops);
      if (r.verdict === 'unknown') throw new Error('linearizability by histories: a history check was inconclusive');
      v = r.verdict === 'ok' ? true : `the history of ${ops.length} operations is not linearizable against the ${observer.model.name} model`;
      if (verdicts.size >= memo) verdicts.clear();
      verdicts.set(k, v);
    }
    return v;
  };
  const view = (s: S): unknown => (machine.view ? machine.view(s) : s);
  const wrapped: Machine<WithHistory<S>, A> = {
    init: () => machine.init().map((s) => ({ s, h: [] })),
    actions: (w) => machine.actions(w.s),
    next(w, a) {
      const s = machine.next(w.s, a);
      const events = observer.observe(w.s, a, s);
      return { s, h: events.length === 0 ? w.h : [...w.h, ...events] };
    },
    invariants,
    view: (w) => [view(w.s), w.h],
    history: { model: observer.model, clients: observer.clients, observe: (b, a, c) => observer.observe(b.s, a, c.s) },
  };
  if (machine.mayStop) wrapped.mayStop = (w) => machine.mayStop!(w.s);
  if (machine.progress) wrapped.progress = (b, a, c) => machine.progress!(b.s, a, c.s);
  if (machine.actor) wrapped.actor = machine.actor;
  if (machine.internal) wrapped.internal = machine.internal;
  if (machine.actionNames) wrapped.actionNames = machine.actionNames;
  if (machine.footprint) wrapped.footprint = (w, a) => machine.footprint!(w.s, a);
  // Symmetry would have to rename clients inside the history: not offered in this mode.
  return wrapped;
}
