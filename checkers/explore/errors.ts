// Errors that are the spec's or the caller's, not the engine's: the CLI reports them as bad
// input (a spec that breaks the contract) or bad usage (an option the machine does not
// support), never as an internal error.

import { brief } from '../lin/brief.ts';

/** The spec breaks the contract: a declared symmetry that is not one, a permute that is not a bijection. */
export class SpecError extends Error {
  override name = 'SpecError';
}

/** An option asks for what the machine does not declare (a symmetry reduction without groups). */
export class UnsupportedOption extends Error {
  override name = 'UnsupportedOption';
}

/** The states init() returned, if they keep the contract (a non-empty array); else a SpecError. */
export function checkInits<S>(inits: unknown): S[] {
  if (!Array.isArray(inits) || inits.length === 0) {
    throw new SpecError(`the machine breaks the contract: init() must return a non-empty array of states; it returned ${brief(inits)}`);
  }
  return inits as S[];
}

/** Throws a SpecError unless actions() returned an array of actions, each with a string label. */
export function checkEnabled(enabled: unknown): void {
  if (!Array.isArray(enabled)) throw new SpecError(`the machine breaks the contract: actions(state) must return an array of actions; it returned ${brief(enabled)}`);
  for (let i = 0; i < enabled.length; i++) {
    const a = enabled[i] as { label?: unknown } | null;
    if (typeof a !== 'object' || a === null || typeof a.label !== 'string') {
      throw new SpecError(`the machine breaks the contract: actions(state) must return actions with a string label; action ${i} is ${typeof a === 'object' && a !== null ? `labelled ${brief(a.label)}` : brief(a)}`);
    }
  }
}

/**
 * Throws a SpecError unless the machine has the members the searches call: init, actions
 * and next functions and invariants, an object of named predicates. A JavaScript caller's
 * machine that lacks one is told so here, in the contract's words, rather than by an engine
 * TypeError from deep in a search. (A machine from a user's module is checked the same way
 * by the CLI when it is built, and said of the file.)
 */
export function checkMachine(machine: unknown): void {
  if (typeof machine !== 'object' || machine === null) throw new SpecError(`the machine breaks the contract: a machine is an object {init, actions, next, invariants}; it is ${brief(machine)}`);
  const m = machine as Record<string, unknown>;
  const shapes: [string, string][] = [
    ['init', '() returning the initial states'],
    ['actions', '(state) returning the enabled actions'],
    ['next', '(state, action) returning the next state'],
  ];
  for (const [name, shape] of shapes) {
    if (typeof m[name] !== 'function') throw new SpecError(`the machine breaks the contract: ${name} must be a function ${shape}; it is ${brief(m[name])}`);
  }
  const invariants = m.invariants;
  if (typeof invariants !== 'object' || invariants === null || Array.isArray(invariants)) {
    throw new SpecError(`the machine breaks the contract: invariants must be an object of named predicates {name: (state) => true or a message}; it is ${brief(invariants)}`);
  }
  for (const [name, inv] of Object.entries(invariants)) {
    if (typeof inv !== 'function') throw new SpecError(`the machine breaks the contract: invariants[${JSON.stringify(name)}] must be a predicate (state) => true or a message; it is ${brief(inv)}`);
  }
}

/**
 * Throws a RangeError unless the search's budgets are numbers a search can keep: maxStates
 * a whole number ≥ 1, maxDepth a whole number ≥ 0, timeLimitMs a number ≥ 0 (Infinity:
 * no bound), and the strategy one of bfs, dfs, simulate. NaN compared false with every
 * state count, so `maxStates: NaN` ran unbounded, and -1 stopped before the first state.
 */
export function checkOptions(options: unknown): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) throw new TypeError(`explore options: an object, not ${brief(options)}`);
  const o = options as Record<string, unknown>;
  const whole = (v: unknown, min: number) => typeof v === 'number' && v >= min && (Number.isInteger(v) || v === Infinity);
  if (o.maxStates !== undefined && !whole(o.maxStates, 1)) throw new RangeError(`explore options: maxStates is a whole number ≥ 1 (or Infinity), not ${brief(o.maxStates)}`);
  if (o.maxDepth !== undefined && !whole(o.maxDepth, 0)) throw new RangeError(`explore options: maxDepth is a whole number ≥ 0 (or Infinity), not ${brief(o.maxDepth)}`);
  if (o.timeLimitMs !== undefined && !(typeof o.timeLimitMs === 'number' && o.timeLimitMs >= 0)) throw new RangeError(`explore options: timeLimitMs is a number of milliseconds ≥ 0 (or Infinity), not ${brief(o.timeLimitMs)}`);
  if (o.strategy !== undefined && o.strategy !== 'bfs' && o.strategy !== 'dfs' && o.strategy !== 'simulate') throw new RangeError(`explore options: strategy is bfs, dfs or simulate, not ${brief(o.strategy)}`);
}

/**
 * A spec's own function (init, actions, next, an invariant, ...) threw `thrown` (its name and
 * message). Raised where a search must tell the spec's exceptions from its own machinery's:
 * explore --redis, where a job can also fail because of Redis or the queue
 * (checkers/distributed/spec-calls.ts). The CLI says it of a user's module as it says any
 * exception the module throws on one host (65).
 */
export class SpecThrew extends Error {
  override name = 'SpecThrew';
  constructor(
    readonly thrown: { name: string; message: string },
    options?: { cause?: unknown },
  ) {
    super(`the spec threw ${thrown.name}: ${thrown.message}`, options);
  }

  /** What `e`, thrown by a spec's function, says of itself. */
  static of(e: unknown): SpecThrew {
    return new SpecThrew(e instanceof Error ? { name: e.name, message: e.message } : { name: 'a value', message: String(e) }, { cause: e });
  }
}
