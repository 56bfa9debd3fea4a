// The state discipline every spec on the kit follows (one way to change state):
//   1. A state is plain data (numbers, booleans, strings, arrays, plain objects) and is
//      never changed once next() has returned it.
//   2. next() makes exactly one copy, with the spec's own `copy` function, written next to
//      its State type (the spec's state.ts): arrays of numbers with slice(), records with
//      spread, and nothing deeper than what a step changes in place.
//   3. A step's effect changes that copy in place. Parts a step only ever replaces, never
//      changes (network messages, ./network.ts; sorted sets built by `addSorted`; ghost
//      monitors), are shared between a state and its copy, not copied.
// A hand-written copy of this shape is several times cheaper than a generic deep copy or
// structuredClone (shadowfax's B4: a generic deep copy was 22% of the CPU and most of its
// 18% garbage collection). The typed word layout of issue 22 part 2 will replace the copy
// function for specs that opt in; this discipline is what it replaces. `freezing` checks a
// spec keeps it: a step that changes a part its copy shares throws.

import type { Action, Machine } from '../../checkers/explore/types.ts';

/** A copy of a list of records, each with copyOne. */
export function copyEach<T>(xs: readonly T[], copyOne: (x: T) => T): T[] {
  // xs.slice(), not `new Array(n)`: that is a list with holes to V8, another kind of list
  // than the packed one a spec's initial state holds, and code compiled for one kind is
  // thrown away when it meets the other
  const out = xs.slice();
  for (let i = 0; i < out.length; i++) out[i] = copyOne(xs[i]);
  return out;
}

/** next() under the discipline: one copy, then the effect in place. */
export function produce<S>(s: S, copy: (s: S) => S, effect: (d: S) => void): S {
  const d = copy(s);
  effect(d);
  return d;
}

/**
 * A set of numbers (or of strings) as a sorted array (canonical): a new array with x added;
 * xs itself if x is in it. Sorted by `sortShort` (the order Array.prototype.sort gives):
 * a ghost's sets grow by one on many steps, and sort's work arrays were a tenth of what a
 * spec allocated (fusee).
 */
export function addSorted<T extends number | string>(xs: readonly T[], x: T): T[] {
  if (xs.includes(x)) return xs as T[];
  return sortShort([...xs, x], ascending);
}

/**
 * Sorts xs in place, stably (the same order as Array.prototype.sort), by insertion: for
 * the short, nearly sorted sets a step changes (one element added or changed), where
 * Array.prototype.sort's work arrays, allocated on every call, cost more than the sort.
 */
export function sortShort<T>(xs: T[], cmp: (a: T, b: T) => number): T[] {
  for (let i = 1; i < xs.length; i++) {
    const x = xs[i];
    let j = i - 1;
    while (j >= 0 && cmp(xs[j], x) > 0) {
      xs[j + 1] = xs[j];
      j--;
    }
    xs[j + 1] = x;
  }
  return xs;
}

/** Removes xs[i] in place (splice would allocate the list of what it removed). */
export function removeAt<T>(xs: T[], i: number): void {
  for (let j = i + 1; j < xs.length; j++) xs[j - 1] = xs[j];
  xs.pop();
}

/** Numbers by value, strings by code unit. */
const ascending = (a: number | string, b: number | string): number => (a < b ? -1 : a > b ? 1 : 0);

/** xs with xs[i] = x: xs itself when it holds x there already, else a new array (for a part a copy shares). */
export function withAt<T>(xs: readonly T[], i: number, x: T): T[] {
  if (xs[i] === x) return xs as T[];
  const out = xs.slice();
  out[i] = x;
  return out;
}

/** A new sorted set without x. */
export const removeSorted = (xs: readonly number[], x: number): number[] => xs.filter((y) => y !== x);

export function popcount(x: number): number {
  let c = 0;
  for (; x; x &= x - 1) c++;
  return c;
}

/** Freezes a plain value and everything it holds (shared parts once). */
export function deepFreeze<T>(x: T): T {
  if (x !== null && typeof x === 'object' && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const v of Object.values(x)) deepFreeze(v);
  }
  return x;
}

/**
 * The machine with every state it makes deep-frozen (tests only: freezing is slow), so
 * that a step changing in place a part of the state its copy shares, rather than copies,
 * throws a TypeError (modules are strict) instead of silently changing an earlier state.
 */
export function freezing<S, A extends Action>(m: Machine<S, A>): Machine<S, A> {
  return { ...m, init: () => m.init().map(deepFreeze), next: (s, a) => deepFreeze(m.next(s, a)) };
}

/**
 * An empty list for objects (threads, messages, log items, background persists). A `[]` literal is a
 * list of small integers to the engine (V8's elements kind), and becomes a list of objects
 * at its first push: states would then hold lists of two kinds, and the compiled code for
 * every step, invariant and the encoding that meets the second kind late (a config with a
 * crash or background persists) is thrown away and compiled again. Same meaning as `[]`.
 */
export function objectList<T>(): T[] {
  const xs = [OBJECT] as unknown[];
  xs.pop();
  return xs as T[];
}
const OBJECT = {};

/** A list of n copies of x, with no holes (`Array(n).fill(x)` has: a second kind of list, as above). */
export const filled = (n: number, x: number): number[] => Array.from({ length: n }, () => x);

/**
 * Rewrites each number, boolean, string and list field of o once (another value of its
 * kind, then its own back) and returns o, unchanged. V8 compiles a read of a field that no
 * object of its shape has had rewritten as a constant that outlives calls, and the first
 * rewrite of such a field throws away every compiled function that read it. Under the
 * discipline above, steps rewrite fields of their copy in place, and a config with a
 * mechanism the configs before it lacked (CommitVer, a power failure, a migration)
 * rewrites fields none rewrote before: each such config threw away the code compiled for
 * the earlier ones (rowan: 19-32 functions at each of three configs). A spec calls this on
 * a copy of each kind of record its steps change in place, made by its own copy function
 * (so that the copy has the records' shape) when a machine is built, so that no later
 * rewrite is the first. A field holding null is rewritten with undefined (V8 knows no more
 * of such a field than that it holds a heap value, as undefined is); one holding a record is
 * left alone: another kind of record would widen what V8 knows of it for every object.
 */
export function rewritten<T extends object>(o: T): T {
  const r = o as Record<string, unknown>;
  for (const k of Object.keys(r)) {
    const v = r[k];
    if (typeof v === 'number') r[k] = v + 1;
    else if (typeof v === 'boolean') r[k] = !v;
    else if (typeof v === 'string') r[k] = v === '' ? 'x' : '';
    else if (Array.isArray(v)) r[k] = v.slice();
    else if (v === null) r[k] = undefined;
    else continue;
    r[k] = v;
  }
  return o;
}
