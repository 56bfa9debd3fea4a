// What a JavaScript caller hands the checker, checked at its entry (plan, resolveModel)
// where the types cannot: a model object with the members the search calls, a history
// that is an array. Said in the contract's words (TypeError, as a bad operation's time is
// a RangeError) rather than as an engine TypeError from inside the search. Only a model
// object is looked at here (a registered model's name is the fast path, untouched), and
// the history only when plan's operator test has found it is no array-like, an operation
// only when it is null or undefined or its call time is not a number (check.ts validate).

import { brief } from './brief.ts';

/** Throws a TypeError unless `model` is a model object: a name, init(), and step() (or next()). */
export function checkModelObject(model: unknown): void {
  const contract = 'a model: a registered model\'s name, or an object {name, init(), step(state, input, output)} (a nondeterministic one marked nondeterministic: true)';
  if (typeof model !== 'object' || model === null) throw new TypeError(`${contract}; it is ${brief(model)}`);
  const m = model as Record<string, unknown>;
  const missing: string[] = [];
  if (typeof m.name !== 'string') missing.push(`name (a string; it is ${brief(m.name)})`);
  if (typeof m.init !== 'function') missing.push(`init() (it is ${brief(m.init)})`);
  if (typeof m.step !== 'function' && (m.nondeterministic === true || typeof m.next !== 'function')) missing.push(`step() (it is ${brief(m.step)})`);
  if (missing.length > 0) throw new TypeError(`${contract}; it lacks ${missing.join(', ')}`);
}

/** The history plan was given is no array of operations: a TypeError saying what it is. */
export function badHistory(history: unknown): never {
  throw new TypeError(`history: an array of operations {client, input, call, ret?, output?}; it is ${brief(history)}`);
}

/** Operation `i` of the history is no object (null, a number): a TypeError saying what it is. */
export function badOperation(i: number, op: unknown): never {
  throw new TypeError(`operation ${i}: expected an operation object {client, input, call, ret?, output?}, got ${brief(op)}`);
}
