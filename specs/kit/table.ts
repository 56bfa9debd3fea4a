// Action tables: a spec's transitions as named steps, each with its guard (which instances
// are enabled, and with what parameters) and its effect (what the step does to a copy of
// the state), citing the paper's section and line. One table gives the Machine's
// actions() and next(); local steps (a process's continuations that need no
// message, fused into the step that enables them) run to a fixpoint with runLocal().
//
// Enumeration order is part of a spec's meaning for a breadth-first search (which
// counterexample of a given length is found first), so it is fixed: per actor, that
// actor's steps in table order (a group's steps member by member: a client thread's steps
// per session); then the global steps in table order.

import type { Action } from '../../checkers/explore/types.ts';

/** Every table action carries the name of its step. */
export interface StepAction extends Action {
  readonly step: string;
}

interface StepBase<S, A extends StepAction> {
  /** The paper's name for the step (the action's `step`). */
  readonly name: A['step'];
  /** Section, listing line or paper line (f.N) it implements. */
  readonly cites: string;
  /** Changes the copy d in place. */
  readonly effect: (d: S, a: A) => void;
}

/** A step of one actor (a process, a node): its guard sees the actor's index. */
export interface ActorStep<S, A extends StepAction> extends StepBase<S, A> {
  readonly enabled: (s: S, actor: number, out: A[]) => void;
  /**
   * Optional: where the actor must be (its program counter) for the step to be enabled.
   * With the table's `at`, only the steps of the actor's current place (and those without
   * `at`) have their guards asked; the guard must still check it (dispatch is an
   * optimisation, not part of the meaning).
   */
  readonly at?: string;
}

/** A step of no single actor (message delivery, a fault): its guard sees the whole state. */
export interface GlobalStep<S, A extends StepAction> extends StepBase<S, A> {
  readonly enabled: (s: S, out: A[]) => void;
}

/** A step an actor takes towards one member of a group (a client thread's session to each server). */
export interface MemberStep<S, A extends StepAction> extends StepBase<S, A> {
  readonly enabled: (s: S, actor: number, member: number, out: A[]) => void;
}

/**
 * Steps an actor takes once per member of a group, in member order and, per member, in
 * table order: for a client thread with a session per server, each session's send, the
 * server's receipt and the answer back, session by session.
 */
export interface ActorStepGroup<S, A extends StepAction> {
  readonly members: (s: S, actor: number) => number;
  readonly steps: readonly MemberStep<S, A>[];
}

export interface ActionTable<S, A extends StepAction> {
  actors: (s: S) => number;
  /** Where actor p is (its program counter): the `at` of the steps that may be enabled for it. */
  at?: (s: S, actor: number) => string;
  perActor: readonly PerActor<S, A>[];
  global: readonly GlobalStep<S, A>[];
}

type PerActor<S, A extends StepAction> = ActorStep<S, A> | ActorStepGroup<S, A>;

const isGroup = <S, A extends StepAction>(st: ActorStep<S, A> | ActorStepGroup<S, A>): st is ActorStepGroup<S, A> => 'steps' in st;

export interface TableMachine<S, A extends StepAction> {
  actions(s: S): A[];
  next(s: S, a: A): S;
}

/**
 * actions() and next() from a table. `copy` is the spec's one copy of its state (the state
 * discipline, ./state.ts); it gets the action too, so that a copy-on-write copy can copy
 * only what that step writes (as phasedMachine's). `after` runs once after every effect
 * (e.g. a derived field).
 */
export function tableMachine<S, A extends StepAction>(table: ActionTable<S, A>, copy: (s: S, a: A) => S, after?: (d: S, a: A) => void): TableMachine<S, A> {
  const steps: StepBase<S, A>[] = [...table.perActor.flatMap((st): readonly StepBase<S, A>[] => (isGroup(st) ? st.steps : [st])), ...table.global];
  const m: Built<S, A> = { table, copy, after, effects: effectsOf(steps), stepsOf: actorSteps(table) };
  // functions written once and given the table (bound), not closures made per table: V8
  // compiles a closure that is the only one made at its site for the context it closes
  // over, and throws that code away when the next machine makes a second one
  const actions: (m: Built<S, A>, s: S) => A[] = tableActions;
  const next: (m: Effects<S, A>, s: S, a: A) => S = tableNext;
  return { actions: actions.bind(undefined, m), next: next.bind(undefined, m) };
}

/** Each step's effect by its name (a name listed twice is an error in the table). */
function effectsOf<S, A extends StepAction>(steps: Iterable<StepBase<S, A>>): Map<string, (d: S, a: A) => void> {
  const effects = new Map<string, (d: S, a: A) => void>();
  for (const st of steps) {
    if (effects.has(st.name)) throw new Error(`action table: step "${st.name}" listed twice`);
    effects.set(st.name, st.effect);
  }
  return effects;
}

/** What next() reads: the same for a table and for phases. */
interface Effects<S, A extends StepAction> {
  copy: (s: S, a: A) => S;
  after: ((d: S, a: A) => void) | undefined;
  effects: Map<string, (d: S, a: A) => void>;
}

/** What a table machine's actions() and next() read. */
interface Built<S, A extends StepAction> extends Effects<S, A> {
  table: ActionTable<S, A>;
  stepsOf: (s: S, actor: number) => readonly PerActor<S, A>[];
}

function tableActions<S, A extends StepAction>({ table, stepsOf }: Built<S, A>, s: S): A[] {
  const out: A[] = [];
  const n = table.actors(s);
  for (let p = 0; p < n; p++) for (const st of stepsOf(s, p)) enable(st, s, p, out);
  for (const st of table.global) st.enabled(s, out);
  return out;
}

function tableNext<S, A extends StepAction>({ copy, after, effects }: Effects<S, A>, s: S, a: A): S {
  const effect = effects.get(a.step);
  if (!effect) throw new Error(`action table: no step "${a.step}"`);
  const d = copy(s, a);
  effect(d, a);
  after?.(d, a);
  return d;
}

/** Asks a per-actor step's guard, or a group's guards member by member. */
function enable<S, A extends StepAction>(st: PerActor<S, A>, s: S, p: number, out: A[]): void {
  if (!isGroup(st)) st.enabled(s, p, out);
  else for (let m = 0, k = st.members(s, p); m < k; m++) for (const sub of st.steps) sub.enabled(s, p, m, out);
}

const atOf = <S, A extends StepAction>(st: PerActor<S, A>): string | undefined => (isGroup(st) ? undefined : st.at);

/**
 * The per-actor steps whose guards to ask for actor p, in table order: all of them, or,
 * when the table says where an actor is (`at`), those of its place and those without one
 * (groups have no place).
 */
function actorSteps<S, A extends StepAction>(table: ActionTable<S, A>): (s: S, actor: number) => readonly PerActor<S, A>[] {
  const where = table.at;
  if (!where) return () => table.perActor;
  const anywhere = table.perActor.filter((st) => atOf(st) === undefined);
  const byAt = new Map<string, PerActor<S, A>[]>();
  for (const st of table.perActor) {
    const at = atOf(st);
    if (at !== undefined && !byAt.has(at)) byAt.set(at, table.perActor.filter((x) => atOf(x) === undefined || atOf(x) === at));
  }
  return (s, p) => byAt.get(where(s, p)) ?? anywhere;
}

/** actions() of one actor alone, in table order (what actions() lists for it). */
export function actorActions<S, A extends StepAction>(table: ActionTable<S, A>): (s: S, actor: number) => A[] {
  const stepsOf = actorSteps(table);
  return (s, actor) => {
    const out: A[] = [];
    for (const st of stepsOf(s, actor)) enable(st, s, actor, out);
    return out;
  };
}

/** A continuation an actor takes on its own as soon as its guard holds. */
export interface LocalStep<S, C = undefined> {
  readonly name: string;
  readonly cites: string;
  readonly guard: (d: S, actor: number, cx: C) => boolean;
  readonly effect: (d: S, actor: number, cx: C) => void;
}

/**
 * Runs an actor's local steps until none is enabled: each round tries every step in table
 * order (a step whose guard holds runs at once, and later steps see its effect). `limit`
 * bounds the rounds, so that a pair of steps that re-enable each other is an error rather
 * than a hang. `cx`, given to every guard and effect, is what one machine's steps share (its
 * config), so that a table of steps can be one for every machine, each step compiled once,
 * rather than closures made per machine (specs/swarm/mreg.ts).
 */
export function runLocal<S, C = undefined>(steps: readonly LocalStep<S, C>[], d: S, actor: number, limit = 10_000, cx?: C): void {
  for (let round = 0; round < limit; round++) {
    let changed = false;
    for (const st of steps) {
      if (st.guard(d, actor, cx as C)) {
        st.effect(d, actor, cx as C);
        changed = true;
      }
    }
    if (!changed) return;
  }
  throw new Error(`local steps of actor ${actor} did not settle within ${limit} rounds`);
}

/**
 * A table in phases, for a protocol whose steps fall into stages of one round (clients,
 * then primaries, then the network, then the control plane …): each phase is either one
 * global step or a group of actor steps enumerated per actor of the group (actor-major,
 * table order within an actor); phases in order. `ActionTable` is the two-phase case. A
 * group's optional `at` is the table's: where actor p is, so that only the guards of the
 * steps of that place (and of those without one) are asked.
 */
export type Phase<S, A extends StepAction> =
  | GlobalStep<S, A>
  | { readonly actors: (s: S) => number; readonly steps: readonly ActorStep<S, A>[]; readonly at?: (s: S, actor: number) => string };

/**
 * actions() and next() from phases. `copy` gets the action too, so that a spec whose copy
 * is shallow where a step does not write (copy-on-write per process) copies only what
 * that step writes; `after` as in tableMachine.
 */
export function phasedMachine<S, A extends StepAction>(phases: readonly Phase<S, A>[], copy: (s: S, a: A) => S, after?: (d: S, a: A) => void): TableMachine<S, A> {
  const m: Effects<S, A> = { copy, after, effects: effectsOf(phases.flatMap((ph): readonly StepBase<S, A>[] => ('steps' in ph ? ph.steps : [ph]))) };
  const next: (m: Effects<S, A>, s: S, a: A) => S = tableNext;
  // What each phase is, worked out once rather than asked of the phase at every state (an
  // `in` test on phases of several shapes, and a call for the steps of an actor whose phase
  // has no places): a global step's guard, or a group's actors and its guards (those of
  // every actor when the group has no `at`, else looked up by where the actor is).
  const globalGuards = phases.map((ph) => ('steps' in ph ? null : ph.enabled));
  const actorsOf = phases.map((ph) => ('steps' in ph ? ph.actors : null));
  const guardsOf = phases.map((ph) => ('steps' in ph && ph.at === undefined ? ph.steps.map((st) => st.enabled) : null));
  const stepsAt = phases.map((ph) => ('steps' in ph && ph.at !== undefined ? actorSteps({ actors: ph.actors, at: ph.at, perActor: ph.steps, global: [] }) : null));
  return {
    actions(s) {
      const out: A[] = [];
      for (let i = 0; i < phases.length; i++) {
        const global = globalGuards[i];
        if (global !== null) {
          global(s, out);
          continue;
        }
        const n = actorsOf[i]!(s);
        const guards = guardsOf[i];
        if (guards !== null) {
          for (let p = 0; p < n; p++) for (let j = 0; j < guards.length; j++) guards[j](s, p, out);
          continue;
        }
        const steps = stepsAt[i]! as (s: S, actor: number) => readonly ActorStep<S, A>[]; // a phase has no groups
        for (let p = 0; p < n; p++) for (const st of steps(s, p)) st.enabled(s, p, out);
      }
      return out;
    },
    next: next.bind(undefined, m),
  };
}
