// A spec's own functions, called through a guard that marks what they throw (SpecThrew), so
// that a job that failed because the spec threw is the spec's failure (said of a user's
// module, 65, as on one host), while a failure of Redis or the queue stays the run's
// (inconclusive, or 69). The coordinator and the workers search the guarded machine.
import { SpecThrew } from '../explore/errors.ts';
import type { Action, Machine } from '../explore/types.ts';

/** The machine's members that are the spec's code and a search calls. */
const CALLS = ['init', 'actions', 'next', 'mayStop', 'progress', 'fairness', 'view', 'actor', 'encode', 'footprint', 'inner'] as const;

function guarded<F extends (...args: never[]) => unknown>(f: F): F {
  return function (this: unknown, ...args: Parameters<F>) {
    try {
      return f.apply(this, args);
    } catch (e) {
      throw e instanceof SpecThrew ? e : SpecThrew.of(e);
    }
  } as F;
}

/**
 * The machine with each of the spec's functions guarded: the same members (own ones copied,
 * the prototype kept), each function throwing a SpecThrew for what it threw. A machine that
 * breaks the contract's shape is left to prepare's check (a SpecError).
 */
export function guardSpec<S, A extends Action>(m: Machine<S, A>): Machine<S, A> {
  if (typeof m !== 'object' || m === null) return m;
  const g = Object.assign(Object.create(Object.getPrototypeOf(m) as object | null) as object, m) as Record<string, unknown>;
  const source = m as unknown as Record<string, unknown>;
  for (const name of CALLS) {
    const f = source[name];
    if (typeof f === 'function') g[name] = guarded(f as (...args: never[]) => unknown);
  }
  const invariants = source.invariants;
  if (typeof invariants === 'object' && invariants !== null && !Array.isArray(invariants)) {
    g.invariants = Object.fromEntries(Object.entries(invariants).map(([k, f]) => [k, typeof f === 'function' ? guarded(f as (...args: never[]) => unknown) : f]));
  }
  const history = m.history;
  if (history && typeof history.observe === 'function') g.history = { ...history, observe: guarded(history.observe.bind(history)) };
  return g as unknown as Machine<S, A>;
}
