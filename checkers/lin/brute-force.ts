// Test helper only: the plainest possible linearizability check, to hold the WGL search
// to. It enumerates every order of the operations consistent with real time (an
// operation may come next when no unplaced determinate operation returned before its
// call), lets indeterminate operations come anywhere after their call or not at all, and
// steps the model along each order. No pruning beyond an illegal step; with `memo`, a set
// of (placed operations, state as canonical JSON) already found to lead nowhere, so that
// histories of a hundred operations stay within reach (states must then be plain data).
//
// `referenceModel` gives each generated family's object as plain code over plain data,
// written apart from models/: the oracle checks the models too.

import fc from 'fast-check';
import type { Family, GenerateOptions } from './generate.ts';
import { UNKNOWN, type Model, type NondeterministicModel, type Operation } from './types.ts';

export interface BruteForceAnswer {
  linearizable: boolean;
  /** Orders tried (complete or cut short by an illegal step). */
  orders: number;
}

export interface BruteForceOptions {
  /** Remember dead (placed set, state) pairs; states must be plain data (JSON). */
  memo?: boolean;
}

export function bruteForce(model: Model, history: readonly Operation[], options: BruteForceOptions = {}): BruteForceAnswer {
  return bruteForceNondeterministic(
    {
      name: model.name,
      init: () => [model.init()],
      step: (s, input, output) => {
        const r = model.step(s, input, output);
        return r.ok ? [r.state] : [];
      },
    },
    history,
    options,
  );
}

export function bruteForceNondeterministic(model: NondeterministicModel, history: readonly Operation[], options: BruteForceOptions = {}): BruteForceAnswer {
  const n = history.length;
  const placed = new Uint8Array(n);
  const dead = options.memo ? new Set<string>() : undefined;
  let orders = 0;
  // An operation may come next when every determinate operation that returned before its
  // call is placed: count, per operation, those not placed yet.
  const blocks: number[][] = history.map(() => []);
  const waiting = new Int32Array(n);
  for (let p = 0; p < n; p++) {
    const r = history[p].ret;
    if (r === undefined) continue;
    for (let o = 0; o < n; o++) {
      if (o !== p && r < history[o].call) {
        blocks[p].push(o);
        waiting[o]++;
      }
    }
  }
  let determinateLeft = history.filter((op) => op.ret !== undefined).length;
  const place = (o: number, d: 1 | -1): void => {
    placed[o] = d === 1 ? 1 : 0;
    if (history[o].ret === undefined) return;
    determinateLeft -= d;
    for (const b of blocks[o]) waiting[b] -= d;
  };

  const extend = (state: unknown): boolean => {
    if (determinateLeft === 0) {
      orders++;
      return true;
    }
    const key = dead ? `${placed.join('')}|${canonicalJson(state)}` : '';
    if (dead?.has(key)) return false;
    // Every candidate is tried; determinate ones first only finds a linearization sooner.
    for (let k = 0; k < 2 * n; k++) {
      const o = k % n;
      if ((k < n) !== (history[o].ret !== undefined)) continue;
      if (placed[o] === 1 || waiting[o] !== 0) continue;
      const op = history[o];
      const successors = model.step(state, op.input, op.ret === undefined ? UNKNOWN : op.output);
      if (successors.length === 0) {
        orders++;
        continue;
      }
      place(o, 1);
      for (const s of successors) {
        if (extend(s)) {
          place(o, -1);
          return true;
        }
      }
      place(o, -1);
    }
    dead?.add(key);
    return false;
  };

  const linearizable = model.init().some((s) => extend(s));
  return { linearizable, orders };
}

/** The model a search is held to the oracle with on a whole history (kv: all keys in one map). */
export const wholeModel: Record<Family, string> = {
  register: 'register',
  'cas-register': 'etcd-cas-register',
  kv: 'kv-append-unpartitioned',
  queue: 'queue',
  set: 'set',
};

/** Small generated histories for property tests: crashes and corruptions often. */
export function historyShape(family: Family, o: { maxOps: number; maxClients: number; crashRates: readonly number[] }): fc.Arbitrary<GenerateOptions> {
  return fc.record({
    family: fc.constant(family),
    seed: fc.integer(),
    ops: fc.integer({ min: 1, max: o.maxOps }),
    clients: fc.integer({ min: 1, max: o.maxClients }),
    crashRate: fc.constantFrom(...o.crashRates),
    effectRate: fc.constantFrom(0, 0.5, 1),
    corrupt: fc.integer({ min: 0, max: 2 }),
    tick: fc.integer({ min: 1, max: 3 }),
    unique: fc.boolean(),
    keys: fc.integer({ min: 1, max: 3 }),
    values: fc.integer({ min: 2, max: 4 }),
  });
}

/** Whether every step of `order` is legal for the model, from its initial state. */
export function replays(model: Model, history: readonly Operation[], order: readonly number[]): boolean {
  let s = model.init();
  for (const i of order) {
    const op = history[i];
    const r = model.step(s, op.input, op.ret === undefined ? UNKNOWN : op.output);
    if (!r.ok) return false;
    s = r.state;
  }
  return true;
}

/** Whether `order` is a linearization of `history`: real time respected, every step legal. */
export function isLinearization(model: Model, history: readonly Operation[], order: readonly number[]): boolean {
  const seen = new Set(order);
  if (seen.size !== order.length) return false;
  for (let i = 0; i < history.length; i++) if (history[i].ret !== undefined && !seen.has(i)) return false;
  for (let a = 0; a < order.length; a++) {
    for (let b = a + 1; b < order.length; b++) {
      const ret = history[order[b]].ret;
      if (ret !== undefined && ret < history[order[a]].call) return false;
    }
  }
  // An unplaced indeterminate operation never took effect: nothing to check for it.
  return replays(model, history, order);
}

/** JSON with object keys sorted: equal plain values, equal text. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return v === undefined ? 'null' : JSON.stringify(v);
}

type Input = { f: string; key?: string; value?: unknown };
const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/**
 * Each generated family's object in plain code over plain data (JSON states), for the
 * oracle: register and cas-register (a failed cas, output false, means the register did
 * not hold `from`), kv (all keys in one map), FIFO queue, set.
 */
export function referenceModel(family: Family): Model {
  const step = (state: unknown, input: Input, output: unknown): { ok: boolean; state: unknown } => {
    const known = output !== UNKNOWN;
    switch (family) {
      case 'register':
      case 'cas-register':
        if (input.f === 'read') return { ok: !known || same(state, output), state };
        if (input.f === 'write') return { ok: true, state: input.value };
        if (input.f === 'cas') {
          const [from, to] = input.value as [unknown, unknown];
          if (output === false) return { ok: !same(state, from), state };
          return same(state, from) ? { ok: true, state: to } : { ok: false, state };
        }
        break;
      case 'kv': {
        const m = state as Record<string, string>;
        const key = input.key!;
        const v = m[key] ?? '';
        if (input.f === 'get') return { ok: !known || output === v, state };
        const next = { ...m, [key]: input.f === 'put' ? (input.value as string) : v + (input.value as string) };
        if (next[key] === '') delete next[key];
        return { ok: true, state: next };
      }
      case 'queue': {
        const q = state as unknown[];
        if (input.f === 'enqueue') return { ok: true, state: [...q, input.value] };
        if (q.length === 0) return { ok: !known || output === null, state };
        return { ok: !known || same(output, q[0]), state: q.slice(1) };
      }
      case 'set': {
        const s = state as string[];
        if (input.f === 'add') return { ok: true, state: [...new Set([...s, canonicalJson(input.value)])].sort() };
        if (!known) return { ok: true, state };
        const members = [...new Set((output as unknown[]).map(canonicalJson))].sort();
        return { ok: same(members, s), state };
      }
    }
    throw new Error(`reference ${family}: unknown operation ${input.f}`);
  };
  return {
    name: `reference-${family}`,
    init: () => (family === 'kv' ? {} : family === 'queue' || family === 'set' ? [] : null),
    step: (s, input, output) => step(s, input as Input, output),
  };
}
