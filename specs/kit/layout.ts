// A typed state layout: the fast path of the state discipline (./state.ts). A spec declares
// its fields (integers, booleans, fixed-length arrays and tuples of integers, and bytes
// where values stay within 0..255, as Promela's `byte`) and gets
// states that read as plain fields (`s.x`, `d.t[p] = s.x`, `s.done.every(...)`), kept as
// one Int32Array of words. The engine copies, hashes and stores such a state as its words,
// with no encoding and, in a breadth-first search, no allocation per step
// (Machine.layout, checkers/explore/layout-search.ts).
//
//   const Racy = layout({ x: int, step: ints(n), t: ints(n), done: ints(n) });
//   type State = LayoutState<typeof Racy.fields>;
//   layoutMachine(Racy, { init: () => [{ x: 0 }], actions, step(d, a) { ... }, invariants });
//
// `step(d, a)` is the table discipline's effect: d is already a copy of the state a was
// enabled in, and the step changes it in place. A state handed to actions, step, an
// invariant or mayStop may be one the engine reuses: read it during the call, keep nothing
// of it (copy with Layout.copy or Layout.plain to keep one).

import type { Action, Check, Machine, WordLayout } from '../../checkers/explore/types.ts';

/** One 32-bit integer. */
export const int = { kind: 'int' } as const;
/** A boolean kept as 0 or 1. */
export const bool = { kind: 'bool' } as const;
/** n integers: an array or a tuple of fixed length, read and written as an Int32Array. */
export const ints = (n: number) => ({ kind: 'ints', n }) as const;
/**
 * One integer in 0..255 kept in a byte (Promela's `byte`): four share a word, so the engine
 * copies, hashes and queues a quarter of the memory. Writing a value outside 0..255 throws.
 */
export const byte = { kind: 'byte' } as const;
/**
 * n integers in 0..255, read and written as a Uint8Array (Promela's `byte` arrays). Like any
 * Uint8Array, it stores a value outside 0..255 modulo 256, silently: use ints(n) for values
 * that may leave that range (a spec bounds them, as the racy counter does, or it cannot use
 * bytes).
 */
export const bytes = (n: number) => ({ kind: 'bytes', n }) as const;

type Field = typeof int | typeof bool | ReturnType<typeof ints> | typeof byte | ReturnType<typeof bytes>;
export type Fields = Record<string, Field>;

/** A state of the layout: its fields, over the words `w`. */
export type LayoutState<F extends Fields> = {
  -readonly [K in keyof F]: F[K] extends { kind: 'ints' } ? Int32Array : F[K] extends { kind: 'bytes' } ? Uint8Array : F[K] extends { kind: 'bool' } ? boolean : number;
} & { readonly w: Int32Array };

/** The same state as plain data (counterexamples, JSON, initial states). */
export type Plain<F extends Fields> = {
  [K in keyof F]: F[K] extends { kind: 'ints' | 'bytes' } ? number[] : F[K] extends { kind: 'bool' } ? boolean : number;
};

export interface Layout<F extends Fields> {
  readonly fields: F;
  /** Words per state. */
  readonly words: number;
  /** Each field's first word; a byte or bytes field's first byte (counted from the state's start). */
  readonly offsets: Readonly<Record<keyof F, number>>;
  /** A state with every field 0 (false), then the given fields set. */
  make(init?: Partial<Plain<F>>): LayoutState<F>;
  copy(s: LayoutState<F>): LayoutState<F>;
  fromWords(w: ArrayLike<number>): LayoutState<F>;
  /** A state over w itself, not a copy (w is `words` long: a view into longer words, as the engine's monitor keeps). */
  over(w: Int32Array): LayoutState<F>;
  plain(s: LayoutState<F>): Plain<F>;
  /** Machine.encode: the words themselves. */
  encode(s: LayoutState<F>, out: Int32Array): number;
}

function notAByte(name: string, v: unknown): never {
  throw new RangeError(`layout: field "${name}" holds a byte (0..255), not ${v}`);
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

const RESERVED = new Set(['w', 'toJSON', 'constructor', '__proto__', 'prototype']);

/** A layout's arrays: each one's name, whether it is ints (else bytes), first word or byte, and length. */
type Views = readonly (readonly [name: string, isInts: boolean, at: number, n: number])[];
type StateClass = new (w: Int32Array, views: Views) => { w: Int32Array };
/** Where a state keeps its arrays' views. */
const VIEWS = Symbol('views');

/**
 * The state classes made so far, by the layout's shape: its fields' names and kinds in
 * order, and where each scalar is. Layouts of one shape whose arrays differ in length (one
 * spec's configs) share one class, so that the spec's steps, compiled for one config's
 * states, run on the next config's without being compiled again for another hidden class.
 */
const stateClasses = new Map<string, StateClass>();

function stateClass(fields: Fields, offsets: Record<string, number>): StateClass {
  const names = Object.keys(fields);
  const key = names.map((name) => {
    const kind = fields[name].kind;
    return kind === 'ints' || kind === 'bytes' ? `${name}:${kind}` : `${name}:${kind}@${offsets[name]}`;
  }).join(',');
  const known = stateClasses.get(key);
  if (known !== undefined) return known;
  // Scalars are accessors on the prototype; so are arrays, over views made once per state
  // object (the engine's reused states make them once per search) and kept in one list: a
  // state has two own properties whatever its fields, so it keeps fast properties (a state
  // given each view as a property of its own went to dictionary mode past a dozen arrays,
  // and every field read became a hash lookup).
  class State {
    declare w: Int32Array;
    declare [VIEWS]: (Int32Array | Uint8Array)[];
    constructor(w: Int32Array, views: Views) {
      this.w = w;
      this[VIEWS] = views.map(([, isInts, at, n]) => (isInts ? w.subarray(at, at + n) : new Uint8Array(w.buffer, w.byteOffset + at, n)));
    }
    /** The state as plain data (Layout.plain). */
    toJSON(): Record<string, unknown> {
      const self = this as unknown as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const name of names) {
        const kind = fields[name].kind;
        out[name] = kind === 'ints' || kind === 'bytes' ? Array.from(self[name] as ArrayLike<number>) : self[name];
      }
      return out;
    }
  }
  let view = 0;
  for (const name of names) {
    const off = offsets[name];
    if (fields[name].kind === 'ints' || fields[name].kind === 'bytes') {
      const k = view++;
      Object.defineProperty(State.prototype, name, {
        get(this: State) {
          return this[VIEWS][k];
        },
        enumerable: true,
      });
    } else if (fields[name].kind === 'int') {
      Object.defineProperty(State.prototype, name, {
        get(this: State) {
          return this.w[off];
        },
        set(this: State, v: number) {
          this.w[off] = v;
        },
      });
    } else if (fields[name].kind === 'bool') {
      Object.defineProperty(State.prototype, name, {
        get(this: State) {
          return this.w[off] !== 0;
        },
        set(this: State, v: boolean) {
          this.w[off] = v ? 1 : 0;
        },
      });
    } else if (fields[name].kind === 'byte') {
      // The byte's place in its word: the words are read in the machine's byte order.
      const at = off >> 2;
      const shift = LITTLE_ENDIAN ? 8 * (off & 3) : 24 - 8 * (off & 3);
      Object.defineProperty(State.prototype, name, {
        get(this: State) {
          return (this.w[at] >>> shift) & 255;
        },
        set(this: State, v: number) {
          // One test for "an integer in 0..255" (NaN, fractions, negatives and 256+ all
          // differ from their low byte); the throw is out of line so the setter inlines.
          if ((v & 255) !== v) notAByte(name, v);
          this.w[at] = (this.w[at] & ~(255 << shift)) | (v << shift);
        },
      });
    }
  }
  stateClasses.set(key, State);
  return State;
}

export function layout<F extends Fields>(fields: F): Layout<F> {
  const names = Object.keys(fields);
  const offsets = {} as Record<keyof F, number>;
  for (const name of names) {
    if (RESERVED.has(name)) throw new Error(`layout: a field may not be called "${name}"`);
    const f = fields[name];
    if ((f.kind === 'ints' || f.kind === 'bytes') && !(Number.isInteger(f.n) && f.n >= 0)) throw new Error(`layout: field "${name}" needs a whole number of ints, not ${f.n}`);
  }
  // Word scalars first, then the byte scalars and byte arrays packed four to a word, then
  // the int arrays: every scalar's place is the same whatever the arrays' lengths, so that
  // layouts of one shape share a state class (stateClass). The spare bytes before the int
  // arrays stay 0, so that equal states have equal words.
  let words = 0;
  for (const name of names) {
    const kind = fields[name].kind;
    if (kind === 'int' || kind === 'bool') offsets[name as keyof F] = words++;
  }
  let byteAt = 4 * words;
  for (const kinds of [['byte'], ['bytes']]) {
    for (const name of names) {
      const f = fields[name];
      if (!kinds.includes(f.kind)) continue;
      offsets[name as keyof F] = byteAt;
      byteAt += f.kind === 'bytes' ? f.n : 1;
    }
  }
  words = Math.ceil(byteAt / 4);
  for (const name of names) {
    const f = fields[name];
    if (f.kind !== 'ints') continue;
    offsets[name as keyof F] = words;
    words += f.n;
  }
  const views: Views = names
    .filter((name) => fields[name].kind === 'ints' || fields[name].kind === 'bytes')
    .map((name) => [name, fields[name].kind === 'ints', offsets[name as keyof F], (fields[name] as { n: number }).n] as const);
  const State = stateClass(fields, offsets as Record<string, number>);

  const wrap = (w: Int32Array) => new State(w, views) as unknown as LayoutState<F>;
  const plain = (s: LayoutState<F>): Plain<F> => (s as unknown as { toJSON(): Plain<F> }).toJSON();
  return {
    fields,
    words,
    offsets,
    make(init) {
      const s = wrap(new Int32Array(words));
      for (const [name, v] of Object.entries(init ?? {})) {
        const f = fields[name];
        if (f === undefined) throw new Error(`layout: no field "${name}"`);
        const off = offsets[name as keyof F];
        const state = s as unknown as Record<string, unknown>;
        if (f.kind === 'ints' || f.kind === 'bytes') {
          const xs = v as number[];
          if (xs.length !== f.n) throw new Error(`layout: field "${name}" holds ${f.n} ints, given ${xs.length}`);
          if (f.kind === 'bytes' && !xs.every((x) => x >= 0 && x <= 255 && x === Math.floor(x))) throw new RangeError(`layout: field "${name}" holds bytes (0..255), given ${xs.join(', ')}`);
          (state[name] as Int32Array | Uint8Array).set(xs);
        } else if (f.kind === 'byte') state[name] = v;
        else s.w[off] = f.kind === 'bool' ? (v ? 1 : 0) : (v as number);
      }
      return s;
    },
    copy: (s) => wrap(s.w.slice()),
    fromWords(w) {
      if (w.length !== words) throw new Error(`layout: a state is ${words} words, given ${w.length}`);
      return wrap(Int32Array.from(w));
    },
    over(w) {
      if (w.length !== words) throw new Error(`layout: a state is ${words} words, given ${w.length}`);
      return wrap(w);
    },
    plain,
    encode(s, out) {
      if (out.length < words) return -1;
      out.set(s.w);
      return words;
    },
  };
}

/** What a spec on a layout writes: a Machine's members, with `step` for `next`. */
export interface LayoutSpec<F extends Fields, A extends Action> extends Omit<Machine<LayoutState<F>, A>, 'init' | 'next' | 'encode' | 'view' | 'layout' | 'inner'> {
  init(): Partial<Plain<F>>[];
  /** The effect of a on d, a copy of `from`, the state a was enabled in, changed in place (`from` unchanged: a step may compare with it). */
  step(d: LayoutState<F>, a: A, from: LayoutState<F>): void;
  invariants: Record<string, (s: LayoutState<F>) => Check>;
}

/**
 * The Machine of a spec on a layout: next() copies and steps (any engine path can use it);
 * Machine.layout lets the breadth-first search step reused states in place instead.
 * Counterexamples show states as plain data.
 */
export function layoutMachine<F extends Fields, A extends Action>(
  L: Layout<F>,
  spec: LayoutSpec<F, A>,
  /** `local`: the words hold numbers only this build gives (values numbered as met): not sent between processes. */
  opts: { local?: boolean } = {},
): Machine<LayoutState<F>, A> {
  const { init, step, ...rest } = spec;
  const actions = spec.actions.bind(spec);
  const next = (s: LayoutState<F>, a: A) => {
    const d = L.copy(s);
    step(d, a, s);
    return d;
  };
  const words: WordLayout<LayoutState<F>, A> = {
    words: L.words,
    make: () => L.make(),
    wordsOf: (s) => s.w,
    fromWords: L.fromWords,
    over: L.over,
    step,
    next,
    actions,
    encode: L.encode,
    ...(opts.local === true ? { local: true } : {}),
  };
  return {
    ...rest,
    init: () => init().map((p) => L.make(p)),
    actions,
    next,
    encode: L.encode,
    inner: L.plain,
    layout: words,
  };
}

/**
 * Immutable values kept as numbers in the words: one number per distinct value (by its key),
 * in the order met (a ghost's monitor, a violation's message). Such words mean something only
 * to the build that numbered them: its layoutMachine is `local`.
 */
export class Numbered<T> {
  readonly values: T[] = [];
  private readonly byValue = new Map<T, number>();
  private readonly byKey = new Map<string, number>();
  constructor(private readonly key: (x: T) => string) {}
  of(x: T): number {
    let k = this.byValue.get(x);
    if (k !== undefined) return k;
    const key = this.key(x);
    k = this.byKey.get(key);
    if (k === undefined) {
      this.byKey.set(key, (k = this.values.length));
      this.values.push(x);
    }
    this.byValue.set(x, k);
    return k;
  }
}

// ---- counted lists: a list of at most n entries kept in ints(n) with a count beside it ----
// The entries past the count are 0, so that equal lists are equal words. Sorted, such a
// list is a set or a multiset (a network's bag of message numbers) with one word order.

// A list may sit inside a longer array (one of several kept side by side, as a spec keeps one
// per process): `at` is its first entry, `capacity` its length, and n its count.

/** Whether x is among the first n entries. */
export function countedHas(xs: Int32Array, n: number, x: number, at = 0): boolean {
  for (let i = at; i < at + n; i++) if (xs[i] === x) return true;
  return false;
}

/** Inserts x into the sorted first n entries, after any equal ones (a multiset); the new count. */
export function countedInsert(xs: Int32Array, n: number, x: number, at = 0, capacity = xs.length - at): number {
  if (n >= capacity) throw new RangeError(`layout: a counted list of ${capacity} is full`);
  let k = at + n;
  while (k > at && xs[k - 1] > x) { xs[k] = xs[k - 1]; k--; }
  xs[k] = x;
  return n + 1;
}

/** Adds x to the sorted set in the first n entries (nothing if it is there); the new count. */
export const countedAdd = (xs: Int32Array, n: number, x: number, at = 0, capacity = xs.length - at): number =>
  countedHas(xs, n, x, at) ? n : countedInsert(xs, n, x, at, capacity);

/** Removes entry i of the first n, the later ones moving up and the freed entry set to 0; the new count. */
export function countedRemoveAt(xs: Int32Array, n: number, i: number, at = 0): number {
  for (let j = at + i; j < at + n - 1; j++) xs[j] = xs[j + 1];
  xs[at + n - 1] = 0;
  return n - 1;
}

/** Removes every entry of the first n that `drop` picks (one pass, the order kept); the new count. */
export function countedRemoveWhere(xs: Int32Array, n: number, drop: (x: number) => boolean): number {
  let kept = 0;
  for (let i = 0; i < n; i++) if (!drop(xs[i])) xs[kept++] = xs[i];
  for (let i = kept; i < n; i++) xs[i] = 0;
  return kept;
}

/** Removes one copy of x from the first n entries (an error if there is none); the new count. */
export function countedRemove(xs: Int32Array, n: number, x: number, at = 0): number {
  for (let i = 0; i < n; i++) if (xs[at + i] === x) return countedRemoveAt(xs, n, i, at);
  throw new Error(`layout: no ${x} in the counted list`);
}

/** Sorts the first n entries in place (insertion sort: these lists are short). */
export function countedSort(xs: Int32Array, n: number): void {
  for (let i = 1; i < n; i++) {
    const x = xs[i];
    let k = i;
    while (k > 0 && xs[k - 1] > x) { xs[k] = xs[k - 1]; k--; }
    xs[k] = x;
  }
}
