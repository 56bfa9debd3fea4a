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
}
const shapesByFirstKey = new Map<string, Shape[]>();
const EMPTY_SHAPE: Shape = { keys: [], sorted: [], codes: new Int32Array(0) };

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
  const shape = { keys, sorted, codes: Int32Array.from(sorted, keyCode) };
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
