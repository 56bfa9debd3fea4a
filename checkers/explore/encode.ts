// The canonical encoding of a state's view as 32-bit words, and its 64-bit fingerprint.
// Equal plain data encodes to equal words (object keys sorted, Map and Set entries
// sorted by their encoding); different plain data to different words (every value is
// tagged and every container carries its length), so the exact store can compare
// encodings and the fingerprint store can hash them without building strings.

const NULL = 1;
const FALSE = 2;
const TRUE = 3;
const INT = 4;
const FLOAT = 5;
const STRING = 6;
const BIGINT = 7;
const ARRAY = 8;
const OBJECT = 9;
const MAP = 10;
const SET = 11;
const UNDEFINED = 12;

const f64 = new Float64Array(1);
const f64words = new Int32Array(f64.buffer);

/** A growable word buffer the encoder writes into; `length` words are valid. */
export class Words {
  buf = new Int32Array(256);
  length = 0;

  reset(): void {
    this.length = 0;
  }

  push(w: number): void {
    if (this.length === this.buf.length) this.grow(this.length + 1);
    this.buf[this.length++] = w;
  }

  grow(min: number): void {
    let size = this.buf.length * 2;
    while (size < min) size *= 2;
    const next = new Int32Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }
}

// The encoder writes straight into the buffer of the Words it was given (`B`, `N` words
// used), checking room once per value or container rather than once per word.
let O: Words = new Words();
let B: Int32Array = O.buf;
let N = 0;

function room(k: number): void {
  if (N + k > B.length) {
    O.length = N;
    O.grow(N + k);
    B = O.buf;
  }
}

/** A string as its length and its UTF-16 code units, two to a word. */
function putString(s: string): void {
  const len = s.length;
  room(2 + ((len + 1) >> 1));
  B[N++] = STRING;
  B[N++] = len;
  let i = 0;
  for (; i + 1 < len; i += 2) B[N++] = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
  if (i < len) B[N++] = s.charCodeAt(i);
}

function compareWords(a: Int32Array, b: Int32Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** Encodes each item separately so that unordered collections can be sorted canonically. */
function sortedEncodings(items: Iterable<unknown>, encodeItem: (out: Words, item: any) => void): Int32Array[] {
  const parts: Int32Array[] = [];
  const tmp = new Words();
  for (const item of items) {
    tmp.reset();
    encodeItem(tmp, item);
    parts.push(tmp.buf.slice(0, tmp.length));
  }
  return parts.sort(compareWords);
}

function putAll(parts: Int32Array[]): void {
  for (const p of parts) {
    room(p.length);
    B.set(p, N);
    N += p.length;
  }
}

/** Appends the canonical encoding of plain data v. */
export function encodeValue(out: Words, v: unknown): void {
  // Re-entrant: Map and Set entries are encoded into words of their own, mid-encoding.
  const o = O;
  const b = B;
  const n = N;
  O = out;
  B = out.buf;
  N = out.length;
  put(v);
  out.length = N;
  O = o;
  B = b;
  N = n;
}

function put(v: unknown): void {
  switch (typeof v) {
    case 'number':
      if ((v | 0) === v && (v !== 0 || 1 / v > 0)) {
        room(2);
        B[N++] = INT;
        B[N++] = v;
      } else {
        f64[0] = v;
        room(3);
        B[N++] = FLOAT;
        B[N++] = f64words[0];
        B[N++] = f64words[1];
      }
      return;
    case 'boolean':
      room(1);
      B[N++] = v ? TRUE : FALSE;
      return;
    case 'string':
      putString(v);
      return;
    case 'undefined':
      room(1);
      B[N++] = UNDEFINED;
      return;
    case 'bigint':
      room(1);
      B[N++] = BIGINT;
      putString(v.toString());
      return;
    case 'object':
      break;
    default:
      throw new TypeError(`a state must be plain data; found a ${typeof v}`);
  }
  if (v === null) {
    room(1);
    B[N++] = NULL;
    return;
  }
  if (Array.isArray(v)) {
    const len = v.length;
    room(2);
    B[N++] = ARRAY;
    B[N++] = len;
    for (let i = 0; i < len; i++) {
      const x = v[i];
      // Small integers, the commonest element, without the call.
      if (typeof x === 'number' && (x | 0) === x && (x !== 0 || 1 / x > 0)) {
        room(2);
        B[N++] = INT;
        B[N++] = x;
      } else put(x);
    }
    return;
  }
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    const a = v as unknown as ArrayLike<number | bigint>;
    room(2);
    B[N++] = ARRAY;
    B[N++] = a.length;
    for (let i = 0; i < a.length; i++) put(a[i]);
    return;
  }
  if (v instanceof Map) {
    room(2);
    B[N++] = MAP;
    B[N++] = v.size;
    putAll(sortedEncodings(v, (o, [k, x]) => (encodeValue(o, k), encodeValue(o, x))));
    return;
  }
  if (v instanceof Set) {
    room(2);
    B[N++] = SET;
    B[N++] = v.size;
    putAll(sortedEncodings(v, encodeValue));
    return;
  }
  const o = v as Record<string, unknown>;
  const shape = shapeOf(Object.keys(o));
  const sorted = shape.sorted;
  const codes = shape.codes;
  room(2);
  B[N++] = OBJECT;
  B[N++] = sorted.length;
  for (let i = 0; i < sorted.length; i++) {
    room(1);
    B[N++] = codes[i];
    put(o[sorted[i]]);
  }
}

// Objects of one shape (the same keys in the same insertion order) are encoded with their
// keys in sorted order; the sort is done once per shape and remembered.
interface Shape {
  keys: string[];
  sorted: string[];
  codes: Int32Array;
  /** Its number among the frontier's shapes (pack), with Object's prototype and with null; -1 until packed. */
  packId: number;
  nullPackId: number;
}
const shapesByFirstKey = new Map<string, Shape[]>();
const EMPTY_SHAPE: Shape = { keys: [], sorted: [], codes: new Int32Array(0), packId: -1, nullPackId: -1 };

function shapeOf(keys: string[]): Shape {
  if (keys.length === 0) return EMPTY_SHAPE;
  let list = shapesByFirstKey.get(keys[0]);
  if (list === undefined) {
    list = [];
    shapesByFirstKey.set(keys[0], list);
  }
  search: for (let j = 0; j < list.length; j++) {
    const shape = list[j];
    if (shape.keys.length !== keys.length) continue;
    for (let i = 1; i < keys.length; i++) if (shape.keys[i] !== keys[i]) continue search;
    return shape;
  }
  const sorted = keys.slice().sort();
  const shape = { keys, sorted, codes: Int32Array.from(sorted, keyCode), packId: -1, nullPackId: -1 };
  if (list.length < 64) list.push(shape);
  return shape;
}

// Field names are encoded as one word: a hash of the name, remembered per name. Two names
// with the same hash would make the encoding ambiguous, so that is refused outright.
const codeOfKey = new Map<string, number>();
const keyOfCode = new Map<number, string>();

function keyCode(key: string): number {
  const known = codeOfKey.get(key);
  if (known !== undefined) return known;
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h = fmix(h ^ key.length);
  const other = keyOfCode.get(h);
  if (other !== undefined && other !== key) {
    throw new Error(`field names "${other}" and "${key}" share an encoding hash; rename one of them`);
  }
  codeOfKey.set(key, h);
  keyOfCode.set(h, key);
  return h;
}

/**
 * The 64-bit fingerprint of words[0..n), as two 32-bit halves written to fp[0] (high) and
 * fp[1] (low). Two MurmurHash3-style lanes with different constants, cross-mixed at the
 * end. Neither half is ever 0: the stores use 0 to mean an empty slot (so a fingerprint
 * carries a little under 64 bits; the collision estimate uses 2^64 all the same).
 */
export function fingerprint(words: Int32Array, n: number, fp: Int32Array): void {
  let h1 = 0x9747b28c | 0;
  let h2 = 0x5bd1e995 | 0;
  for (let i = 0; i < n; i++) {
    let k = words[i];
    let k1 = Math.imul(k, 0xcc9e2d51);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, 0x1b873593);
    h1 ^= k1;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
    let k2 = Math.imul(k, 0x85ebca6b);
    k2 = (k2 << 17) | (k2 >>> 15);
    k2 = Math.imul(k2, 0xc2b2ae35);
    h2 ^= k2;
    h2 = (h2 << 19) | (h2 >>> 13);
    h2 = (Math.imul(h2, 5) + 0x38495ab5) | 0;
  }
  h1 ^= n;
  h2 ^= n;
  h1 = (h1 + h2) | 0;
  h2 = (h2 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h1 = (h1 + h2) | 0;
  h2 = (h2 + h1) | 0;
  fp[0] = h1 === 0 ? 1 : h1;
  fp[1] = h2 === 0 ? 1 : h2;
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/**
 * Encodes a state for the store: the machine's fast path when it has one, else the plain
 * data encoding of its view (or of the state itself).
 */
export function makeEncoder<S>(machine: {
  view?(s: S): unknown;
  encode?(s: S, out: Int32Array): number;
}): (s: S, out: Words) => void {
  const fast = machine.encode?.bind(machine);
  if (fast) {
    return (s, out) => {
      for (;;) {
        const n = fast(s, out.buf);
        if (n >= 0) {
          out.length = n;
          return;
        }
        out.grow(out.buf.length * 2);
      }
    };
  }
  const view = machine.view?.bind(machine);
  if (view) {
    return (s, out) => {
      out.reset();
      encodeValue(out, view(s));
    };
  }
  return (s, out) => {
    out.reset();
    encodeValue(out, s);
  };
}

// ---------------------------------------------------------------------------------------
// The frontier's encoding: a state packed into words so that it can be rebuilt exactly
// (unpack(pack(s)) deep-equals s, keys and Map/Set entries in their insertion order), so
// that a breadth-first search can queue its states as words rather than as objects that
// survive young-generation collections. Unlike the canonical encoding above it is not
// meant for comparing states: {a, b} and {b, a} pack differently. Each word carries a
// 3-bit tag and a 29-bit payload:
//   INT      a small integer (the payload)
//   CONST    0 null, 1 undefined, 2 false, 3 true, 4 a bigint (its digits as a string
//            follow), 5 a typed array (its kind, its byte length and its bytes follow)
//   FLOAT    any other number: its 64 bits in the next two words (-0 and NaN too)
//   STRING   payload >= 0: an interned string's number; < 0: ~length, the UTF-16 code
//            units follow two to a word
//   ARRAY    the length; the elements follow
//   OBJECT   the shape's number (its keys in their order, its prototype: Object's or
//            null); the values follow in that order
//   MAP, SET the size; the entries (key then value) or members follow in insertion order
// A state that holds anything else (a class instance, a holey array, a function, ...) is
// not packed: pack returns false and the caller keeps the object itself.
// Not seen by either encoding, so not kept: symbol-keyed and non-enumerable properties,
// non-index properties of arrays, and sharing (a field that holds the same array as
// another is rebuilt as a copy of it).

const P_INT = 0;
const P_CONST = 1;
const P_FLOAT = 2;
const P_STRING = 3;
const P_ARRAY = 4;
const P_OBJECT = 5;
const P_MAP = 6;
const P_SET = 7;
const C_NULL = 0;
const C_UNDEFINED = 1;
const C_FALSE = 2;
const C_TRUE = 3;
const C_BIGINT = 4;
const C_TYPED = 5;
const SMALL = 1 << 28;
/** Strings interned: at most this many, each at most INTERN_LENGTH long (memory stays bounded). */
const INTERN_MAX = 1 << 16;
const INTERN_LENGTH = 64;

const internId = new Map<string, number>();
const interned: string[] = [];

/** An object shape of the frontier: its keys in order, and a function that builds one. */
interface PackShape {
  keys: string[];
  nullProto: boolean;
  build: () => object;
}
const packShapes: PackShape[] = [];
const packShapeIds = new Map<string, number>();
/** Shapes whose builder is compiled (an object literal); beyond this, a loop builds them. */
const COMPILED_SHAPES = 4096;

const TYPED = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array];

let failed = false;

/**
 * Appends a packed copy of v to out and returns true; false (out.length unchanged) when
 * v holds something unpack could not rebuild.
 */
export function pack(out: Words, v: unknown): boolean {
  const o = O;
  const b = B;
  const n = N;
  O = out;
  B = out.buf;
  N = out.length;
  failed = false;
  packValue(v);
  if (!failed) out.length = N;
  const ok = !failed;
  O = o;
  B = b;
  N = n;
  return ok;
}

function packChars(s: string): void {
  const len = s.length;
  if (len >= SMALL) {
    failed = true;
    return;
  }
  room(1 + ((len + 1) >> 1));
  B[N++] = (~len << 3) | P_STRING;
  let i = 0;
  for (; i + 1 < len; i += 2) B[N++] = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
  if (i < len) B[N++] = s.charCodeAt(i);
}

function packValue(v: unknown): void {
  switch (typeof v) {
    case 'number':
      if ((v | 0) === v && v >= -SMALL && v < SMALL && (v !== 0 || 1 / v > 0)) {
        room(1);
        B[N++] = (v << 3) | P_INT;
      } else {
        f64[0] = v;
        room(3);
        B[N++] = P_FLOAT;
        B[N++] = f64words[0];
        B[N++] = f64words[1];
      }
      return;
    case 'boolean':
      room(1);
      B[N++] = ((v ? C_TRUE : C_FALSE) << 3) | P_CONST;
      return;
    case 'string': {
      const id = internId.get(v);
      if (id !== undefined) {
        room(1);
        B[N++] = (id << 3) | P_STRING;
      } else if (v.length <= INTERN_LENGTH && interned.length < INTERN_MAX) {
        internId.set(v, interned.length);
        room(1);
        B[N++] = (interned.length << 3) | P_STRING;
        interned.push(v);
      } else packChars(v);
      return;
    }
    case 'undefined':
      room(1);
      B[N++] = (C_UNDEFINED << 3) | P_CONST;
      return;
    case 'bigint':
      room(1);
      B[N++] = (C_BIGINT << 3) | P_CONST;
      packChars(v.toString());
      return;
    case 'object':
      break;
    default:
      failed = true;
      return;
  }
  if (v === null) {
    room(1);
    B[N++] = (C_NULL << 3) | P_CONST;
    return;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto === Array.prototype) {
    const a = v as unknown[];
    const len = a.length;
    if (len >= SMALL) {
      failed = true;
      return;
    }
    room(1);
    B[N++] = (len << 3) | P_ARRAY;
    for (let i = 0; i < len && !failed; i++) {
      const x = a[i];
      if (typeof x === 'number' && (x | 0) === x && x >= -SMALL && x < SMALL && (x !== 0 || 1 / x > 0)) {
        room(1);
        B[N++] = (x << 3) | P_INT;
      } else if (x === undefined && !(i in a)) failed = true;
      else packValue(x);
    }
    return;
  }
  if (proto === Object.prototype || proto === null) {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    const id = packShapeOf(keys, proto === null);
    room(1);
    B[N++] = (id << 3) | P_OBJECT;
    for (let i = 0; i < keys.length && !failed; i++) packValue(o[keys[i]]);
    return;
  }
  if (proto === Map.prototype) {
    const m = v as Map<unknown, unknown>;
    if (m.size >= SMALL) {
      failed = true;
      return;
    }
    room(1);
    B[N++] = (m.size << 3) | P_MAP;
    for (const [k, x] of m) {
      packValue(k);
      packValue(x);
    }
    return;
  }
  if (proto === Set.prototype) {
    const s = v as Set<unknown>;
    if (s.size >= SMALL) {
      failed = true;
      return;
    }
    room(1);
    B[N++] = (s.size << 3) | P_SET;
    for (const x of s) packValue(x);
    return;
  }
  const kind = ArrayBuffer.isView(v) ? TYPED.findIndex((T) => proto === T.prototype) : -1;
  if (kind < 0) {
    failed = true;
    return;
  }
  const bytes = new Uint8Array((v as Uint8Array).buffer, (v as Uint8Array).byteOffset, (v as Uint8Array).byteLength);
  room(3 + ((bytes.length + 3) >> 2));
  B[N++] = (C_TYPED << 3) | P_CONST;
  B[N++] = kind;
  B[N++] = bytes.length;
  for (let i = 0; i < bytes.length; i += 4) B[N++] = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
}

function packShapeOf(keys: string[], nullProto: boolean): number {
  // A known shape (shapeOf's cache) without building a string.
  const shape = shapeOf(keys);
  const id = nullProto ? shape.nullPackId : shape.packId;
  if (id >= 0) return id;
  const name = `${nullProto ? 'n' : 'o'}${JSON.stringify(keys)}`;
  let found = packShapeIds.get(name);
  if (found === undefined) {
    found = packShapes.length;
    if (found >= SMALL) throw new Error('more than 2^28 object shapes in states');
    packShapes.push({ keys, nullProto, build: builder(keys, nullProto, found < COMPILED_SHAPES) });
    packShapeIds.set(name, found);
  }
  if (nullProto) shape.nullPackId = found;
  else shape.packId = found;
  return found;
}

/**
 * A function that builds an object of the shape, taking its values from unpack's cursor:
 * an object literal (so objects of one shape share their hidden class, as the spec's own
 * literals do), or, past COMPILED_SHAPES shapes, a loop. Keys enter the source only as
 * JSON string literals (a computed key for "__proto__", which a literal would take for
 * the prototype).
 */
function builder(keys: string[], nullProto: boolean, compiled: boolean): () => object {
  if (!compiled) {
    return () => {
      const o: Record<string, unknown> = nullProto ? Object.create(null) : {};
      for (let i = 0; i < keys.length; i++) Object.defineProperty(o, keys[i], { value: take(), writable: true, enumerable: true, configurable: true });
      return o;
    };
  }
  const fields = keys.map((k) => `${k === '__proto__' ? `[${JSON.stringify(k)}]` : JSON.stringify(k)}: take()`);
  if (nullProto) fields.unshift('__proto__: null');
  return new Function('take', `return () => ({ ${fields.join(', ')} });`)(take) as () => object;
}

// unpack's cursor: the words and the next one to read.
let R: Int32Array = new Int32Array(0);
let P = 0;

/** Rebuilds the value packed at words[at..]; returns it and sets `unpacked.end` to the word after it. */
export function unpack(words: Int32Array, at: number): unknown {
  const r = R;
  const p = P;
  R = words;
  P = at;
  const v = take();
  unpacked.end = P;
  R = r;
  P = p;
  return v;
}
export const unpacked = { end: 0 };

function takeChars(w: number): string {
  const len = ~(w >> 3);
  let s = '';
  let i = 0;
  for (; i + 1 < len; i += 2) {
    const x = R[P++];
    s += String.fromCharCode(x & 0xffff, x >>> 16);
  }
  if (i < len) s += String.fromCharCode(R[P++] & 0xffff);
  return s;
}

function take(): unknown {
  const w = R[P++];
  switch (w & 7) {
    case P_INT:
      return w >> 3;
    case P_CONST:
      switch (w >> 3) {
        case C_NULL:
          return null;
        case C_UNDEFINED:
          return undefined;
        case C_FALSE:
          return false;
        case C_TRUE:
          return true;
        case C_BIGINT:
          return BigInt(takeChars(R[P++]));
        default: {
          const T = TYPED[R[P++]];
          const len = R[P++];
          const bytes = new Uint8Array(len);
          for (let i = 0; i < len; i += 4) {
            const x = R[P++];
            bytes[i] = x;
            if (i + 1 < len) bytes[i + 1] = x >>> 8;
            if (i + 2 < len) bytes[i + 2] = x >>> 16;
            if (i + 3 < len) bytes[i + 3] = x >>> 24;
          }
          return new T(bytes.buffer);
        }
      }
    case P_FLOAT:
      f64words[0] = R[P++];
      f64words[1] = R[P++];
      return f64[0];
    case P_STRING:
      return w >= 0 ? interned[w >> 3] : takeChars(w);
    case P_ARRAY: {
      // Pushed rather than preallocated, so that V8 keeps the array packed (not holey).
      const a: unknown[] = [];
      for (let i = w >> 3; i > 0; i--) {
        const x = R[P];
        if ((x & 7) === P_INT) {
          a.push(x >> 3);
          P++;
        } else a.push(take());
      }
      return a;
    }
    case P_OBJECT:
      return packShapes[w >> 3].build();
    case P_MAP: {
      const m = new Map();
      for (let i = w >> 3; i > 0; i--) {
        const k = take();
        m.set(k, take());
      }
      return m;
    }
    default: {
      const s = new Set();
      for (let i = w >> 3; i > 0; i--) s.add(take());
      return s;
    }
  }
}
