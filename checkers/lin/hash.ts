// 32-bit hashing for memo keys. Collisions only cost an equality check, never a wrong
// verdict, so speed matters more than strength here.

/** MurmurHash3's 32-bit finalizer: spreads every input bit over the whole word. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** The polynomial base of `hashString`; `appendHash` extends a hash by a suffix. */
const BASE = 0x01000193;

/** Polynomial string hash mod 2^32: hash(s + t) can be computed from hash(s) and t. */
export function hashString(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, BASE) + s.charCodeAt(i)) | 0;
  return h;
}

/** Strings up to this length have their hashString remembered (keys and short values repeat). */
const SHORT = 32;
/** At most this many remembered (then the rest are hashed each time): a bound on the memory kept. */
const SHORT_KEPT = 4096;
const shortHashes = new Map<string, number>();

/**
 * hashString(s), remembered for short strings: a history's keys (`f`, `value`) and most
 * of its values are a few short strings met at every operation, and a first check hashes
 * them in V8's interpreter, a loop per character each time (hashValue on register
 * inputs: 2x faster this way there; the same when optimised).
 */
function shortHash(s: string): number {
  if (s.length > SHORT) return hashString(s);
  let h = shortHashes.get(s);
  if (h === undefined) {
    h = hashString(s);
    if (shortHashes.size < SHORT_KEPT) shortHashes.set(ownCopy(s), h);
  }
  return h;
}

/**
 * s rebuilt from its characters. A short string can be a slice of a long one (a value cut
 * from a file's text, by a user of the library) and keep all of it alive; the key this
 * module keeps for the rest of the process must not.
 */
function ownCopy(s: string): string {
  let c = '';
  for (let i = 0; i < s.length; i++) c += s[i];
  return c;
}

/** hashString(s + t), given h = hashString(s): one pass over t only. */
export function appendHash(h: number, t: string): number {
  let pow = 1;
  let ht = 0;
  for (let i = 0; i < t.length; i++) {
    ht = (Math.imul(ht, BASE) + t.charCodeAt(i)) | 0;
    pow = Math.imul(pow, BASE);
  }
  return (Math.imul(h, pow) + ht) | 0;
}

/** A structural hash of a JSON-like value, consistent with `valueEqual`. */
export function hashValue(v: unknown): number {
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) && (v as number) >= -0x80000000 && (v as number) <= 0x7fffffff
        ? fmix32((v as number) ^ 0x5bd1e995)
        : fmix32(hashString(String(v)) ^ 0x27d4eb2f);
    case 'string':
      return fmix32(shortHash(v as string) ^ 0x165667b1);
    case 'boolean':
      return v ? 0x3c6ef372 : 0x6a09e667;
    case 'bigint':
      return fmix32(hashString(String(v)) ^ 0x1b873593);
    case 'undefined':
      return 0x0f0f0f0f;
    case 'object': {
      if (v === null) return 0x7f4a7c15;
      if (Array.isArray(v)) {
        let h = 0x2545f491 ^ v.length;
        for (let i = 0; i < v.length; i++) h = (Math.imul(h, 31) + hashValue(v[i])) | 0;
        return fmix32(h);
      }
      // Key order must not matter: sum of per-entry hashes commutes. Indexed loops, not
      // for-of: an iterator per object in the interpreter, where a first check runs this.
      let h = 0x61c88647;
      const keys = Object.keys(v as object);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        h = (h + fmix32(shortHash(k) ^ hashValue((v as Record<string, unknown>)[k]))) | 0;
      }
      return fmix32(h);
    }
    default:
      return 0;
  }
}

/** Structural equality of JSON-like values (arrays by position, objects by key set). */
export function valueEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valueEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i];
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!valueEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** A short, readable rendering of a history value for describe functions. */
export function show(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  // What JSON.stringify gives a number (a finite one prints as String does), at a fraction
  // of its cost: an illegal report describes the state after every step of its longest.
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}n`;
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s;
}

/** Primitive keys a ValueMap keeps in arrays (a linear scan) before it makes a Map of them. */
const FEW = 8;

/**
 * A map keyed by value (valueEqual): primitives by SameValueZero (which agrees with
 * valueEqual on them), the first FEW in two arrays scanned in order, then in a Map; objects
 * bucketed by hashValue. The models' hooks keep per-value facts in it; most histories'
 * values are primitives, and a small history's hooks make several maps of a few values
 * each, for which making a Map and hashing into it cost more than the scan (register's
 * refute on 10 operations: 0.11 -> 0.04 us).
 */
export class ValueMap<T> {
  // Declared and set in the constructor, not initialised in the class body: ES2022 fields
  // are defined by an initializer function of their own, one more first call and a
  // define-own store per field in a first check (the models' refute makes these on an
  // illegal 10-operation history; check.ts's CheckPlan says more).
  declare private readonly fewKeys: unknown[];
  declare private readonly fewValues: T[];
  /** Made at the FEW + 1st primitive key; then every primitive is in it. */
  declare private primitives: Map<unknown, T> | undefined;
  /** Made at the first object key (most histories have none). */
  declare private objects: Map<number, { key: unknown; value: T }[]> | undefined;

  constructor() {
    this.fewKeys = [];
    this.fewValues = [];
    this.primitives = undefined;
    this.objects = undefined;
  }

  get(key: unknown): T | undefined {
    if (typeof key !== 'object' || key === null) {
      if (this.primitives !== undefined) return this.primitives.get(key);
      const i = this.find(key);
      return i < 0 ? undefined : this.fewValues[i];
    }
    return this.objects?.get(hashValue(key))?.find((e) => valueEqual(e.key, key))?.value;
  }

  set(key: unknown, value: T): void {
    if (typeof key !== 'object' || key === null) {
      if (this.primitives !== undefined) {
        this.primitives.set(key, value);
        return;
      }
      const i = this.find(key);
      if (i >= 0) this.fewValues[i] = value;
      else if (this.fewKeys.length < FEW) {
        this.fewKeys.push(key);
        this.fewValues.push(value);
      } else {
        const m = new Map<unknown, T>();
        for (let k = 0; k < this.fewKeys.length; k++) m.set(this.fewKeys[k], this.fewValues[k]);
        m.set(key, value);
        this.primitives = m;
      }
      return;
    }
    const h = hashValue(key);
    this.objects ??= new Map();
    let bucket = this.objects.get(h);
    if (bucket === undefined) this.objects.set(h, (bucket = []));
    const e = bucket.find((x) => valueEqual(x.key, key));
    if (e === undefined) bucket.push({ key, value });
    else e.value = value;
  }

  /** The index of a primitive key among the few (SameValueZero: NaN is NaN), or -1. */
  private find(key: unknown): number {
    const keys = this.fewKeys;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (k === key || (k !== k && key !== key)) return i;
    }
    return -1;
  }

  /** Calls f on every entry, each key as first set: primitives (in the order set), then objects (by hash bucket). */
  forEach(f: (value: T, key: unknown) => void): void {
    if (this.primitives !== undefined) this.primitives.forEach(f);
    else for (let i = 0; i < this.fewKeys.length; i++) f(this.fewValues[i], this.fewKeys[i]);
    if (this.objects !== undefined) for (const bucket of this.objects.values()) for (const e of bucket) f(e.value, e.key);
  }
}
