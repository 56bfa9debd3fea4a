// A key-value store with get / put / append (Porcupine's kv test model): get returns the
// key's whole string ('' when never written), put replaces it, append concatenates.
// Keys are independent, so `kvAppend` partitions by key (P-compositionality); the same
// store with one map state for all keys, `kvAppendUnpartitioned`, is how Porcupine
// benchmarks its search without partitioning.
//
// String values grow by appends, so states carry polynomial hashes extended by the
// appended suffix only (hash.ts appendHash): a step never rehashes a whole value.

import { appendHash, fmix32, hashString, show } from '../hash.ts';
import { UNKNOWN, type Model, type Operation } from '../types.ts';

export interface KvInput {
  f: 'get' | 'put' | 'append';
  key: string;
  value?: string;
}

function argument(input: KvInput): string {
  if (typeof input.value !== 'string') {
    throw new Error(`kv: ${input.f} expects a string value, got ${show(input.value)}`);
  }
  return input.value;
}

function unknownOperation(input: KvInput): never {
  throw new Error(`kv: unknown operation ${show((input as { f: unknown }).f)}`);
}

function describeOperation(input: KvInput, output: unknown): string {
  const out = output === UNKNOWN ? '?' : show(output);
  switch (input.f) {
    case 'get':
      return `get(${show(input.key)}) -> ${out}`;
    case 'put':
    case 'append':
      return `${input.f}(${show(input.key)}, ${show(input.value)})${output === UNKNOWN ? ' -> ?' : ''}`;
    default:
      return `${String((input as { f: unknown }).f)}(${show(input.key)})`;
  }
}

function partitionByKey(history: readonly Operation<KvInput, unknown>[]): Operation<KvInput, unknown>[][] {
  const byKey = new Map<unknown, Operation<KvInput, unknown>[]>();
  for (const op of history) {
    const key = op.input?.key;
    let part = byKey.get(key);
    if (part === undefined) byKey.set(key, (part = []));
    part.push(op);
  }
  return [...byKey.values()];
}

/** One key's value and its hashString. */
export interface KvValue {
  v: string;
  h: number;
}

const EMPTY_VALUE: KvValue = { v: '', h: 0 };

/** The store for one key: used with partitioning, where each key is its own history. */
export const kvAppend: Model<KvValue, KvInput, unknown> = {
  name: 'kv-append',
  init: () => EMPTY_VALUE,
  step(s, input, output) {
    switch (input.f) {
      case 'get':
        return { ok: output === UNKNOWN || output === s.v, state: s };
      case 'put': {
        const v = argument(input);
        return { ok: true, state: { v, h: hashString(v) } };
      }
      case 'append': {
        const t = argument(input);
        return { ok: true, state: { v: s.v + t, h: appendHash(s.h, t) } };
      }
    }
    return unknownOperation(input);
  },
  partition: partitionByKey,
  hash: (s) => s.h,
  equal: (a, b) => a.h === b.h && a.v === b.v,
  describeOperation,
  describeState: (s) => show(s.v),
};

/**
 * Every key's value. Keys are sorted; `keys` and `keyHash` are shared between states
 * until a new key appears. A key holding '' is the same as an absent key.
 */
export interface KvMap {
  keys: readonly string[];
  keyHash: Int32Array;
  vals: readonly string[];
  valHash: Int32Array;
  hash: number;
}

/** A key's share of the map's hash; '' contributes nothing, like an absent key. */
function entryHash(keyHash: number, val: string, valHash: number): number {
  return val.length === 0 ? 0 : fmix32(Math.imul(keyHash, 0x9e3779b1) ^ valHash);
}

const EMPTY_MAP: KvMap = { keys: [], keyHash: new Int32Array(0), vals: [], valHash: new Int32Array(0), hash: 0 };

function findKey(keys: readonly string[], key: string): number {
  for (let i = 0; i < keys.length; i++) if (keys[i] === key) return i;
  return -1;
}

function withValue(m: KvMap, key: string, update: (old: string, oldHash: number) => KvValue): KvMap {
  let i = findKey(m.keys, key);
  let { keys, keyHash } = m;
  let vals: string[];
  let valHash: Int32Array;
  if (i < 0) {
    const kh = hashString(key);
    i = 0;
    while (i < keys.length && keys[i] < key) i++;
    keys = [...keys.slice(0, i), key, ...keys.slice(i)];
    const kHash = new Int32Array(keys.length);
    kHash.set(keyHash.subarray(0, i));
    kHash[i] = kh;
    kHash.set(keyHash.subarray(i), i + 1);
    keyHash = kHash;
    vals = [...m.vals.slice(0, i), '', ...m.vals.slice(i)];
    valHash = new Int32Array(keys.length);
    valHash.set(m.valHash.subarray(0, i));
    valHash.set(m.valHash.subarray(i), i + 1);
  } else {
    vals = m.vals.slice();
    valHash = m.valHash.slice();
  }
  const old = vals[i];
  const oldHash = valHash[i];
  const next = update(old, oldHash);
  vals[i] = next.v;
  valHash[i] = next.h;
  const hash = m.hash ^ entryHash(keyHash[i], old, oldHash) ^ entryHash(keyHash[i], next.v, next.h);
  return { keys, keyHash, vals, valHash, hash };
}

function mapGet(m: KvMap, key: string): string {
  const i = findKey(m.keys, key);
  return i < 0 ? '' : m.vals[i];
}

function mapEqual(a: KvMap, b: KvMap): boolean {
  if (a.hash !== b.hash) return false;
  if (a.keys === b.keys) {
    for (let i = 0; i < a.vals.length; i++) if (a.vals[i] !== b.vals[i]) return false;
    return true;
  }
  // Different key sets: a key missing on one side must hold '' on the other.
  for (let i = 0; i < a.keys.length; i++) if (mapGet(b, a.keys[i]) !== a.vals[i]) return false;
  for (let i = 0; i < b.keys.length; i++) if (mapGet(a, b.keys[i]) !== b.vals[i]) return false;
  return true;
}

/** The store with one state for all keys (no partitioning). */
export const kvAppendUnpartitioned: Model<KvMap, KvInput, unknown> = {
  name: 'kv-append-unpartitioned',
  init: () => EMPTY_MAP,
  step(m, input, output) {
    if (typeof input.key !== 'string') throw new Error(`kv: expects a string key, got ${show(input.key)}`);
    switch (input.f) {
      case 'get':
        return { ok: output === UNKNOWN || output === mapGet(m, input.key), state: m };
      case 'put': {
        const v = argument(input);
        return { ok: true, state: withValue(m, input.key, () => ({ v, h: hashString(v) })) };
      }
      case 'append': {
        const t = argument(input);
        return { ok: true, state: withValue(m, input.key, (old, oldHash) => ({ v: old + t, h: appendHash(oldHash, t) })) };
      }
    }
    return unknownOperation(input);
  },
  hash: (m) => m.hash,
  equal: mapEqual,
  describeOperation,
  describeState: (m) =>
    `{${m.keys
      .map((k, i) => [k, m.vals[i]] as const)
      .filter(([, v]) => v !== '')
      .map(([k, v]) => `${show(k)}: ${show(v)}`)
      .join(', ')}}`,
};
