// The canonical encoding of a state's view as 32-bit words, and its 64-bit fingerprint.
// Equal plain data encodes to equal words (object keys sorted, Map and Set entries
// sorted by their encoding); different plain data to different words (every value is
// tagged, every container carries its length, an object of another class its class, a
// hole its own tag), so the exact store can compare
// encodings and the fingerprint store can hash them without building strings.

import { SpecError } from './errors.ts';

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
/** An array's hole (distinct from an undefined element). */
const HOLE = 13;
/** An object of another class (a typed array, a Date, a class instance): its class's name, then its value. */
const CLASS = 14;

const f64 = new Float64Array(1);
const f64words = new Int32Array(f64.buffer);

/** A growable word buffer the encoder writes into; `length` words are valid. */
export class Words {
  buf: Int32Array;
  length = 0;

  /** `size`: the first buffer's length in words (the frontier starts small: frontier.ts). */
  constructor(size = 256) {
    this.buf = new Int32Array(size);
  }

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

/** Starts writing into out (an entry point keeps the writer it interrupts, for `leave`). */
function enter(out: Words): void {
  O = out;
  B = out.buf;
  N = out.length;
}

/** Ends a write into out: its length, and the interrupted writer (o, b, n) back. */
function leave(out: Words, o: Words, b: Int32Array, n: number): void {
  out.length = N;
  O = o;
  B = b;
  N = n;
}

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

/** Appends the canonical encoding of plain data v; throws a NotPlainData naming where v is not plain data. */
export function encodeValue(out: Words, v: unknown): void {
  try {
    encodeInto(out, v);
  } catch (e) {
    throw located(e, v);
  }
}

/** encodeValue without locating what it throws: Map and Set entries, whose place the outermost call names. */
function encodeInto(out: Words, v: unknown): void {
  // Re-entrant: Map and Set entries are encoded into words of their own, mid-encoding.
  const o = O;
  const b = B;
  const n = N;
  enter(out);
  try {
    put(v);
  } finally {
    leave(out, o, b, n);
  }
}

/**
 * What is not plain data in a state, and where (`at`, e.g. `.log[2].when`; set by the
 * outermost encoder). The spec's fault, as a contract it breaks (a SpecError: 65, said of a
 * user's module, on one host, in worker threads and in a --redis job alike).
 */
export class NotPlainData extends SpecError {
  constructor(
    readonly what: string,
    readonly at = '',
  ) {
    super(`a state must be plain data; found ${what}${at === '' ? '' : ` at ${at}`}`);
  }
}

/**
 * e as a NotPlainData naming where in root its value is; e itself if it is located already
 * or not one. The stack overflowing on a root that holds a cycle (an object inside itself:
 * the encoding, a tree's, would never end) is a NotPlainData naming the cycle; on one
 * without (nested deeper than the stack follows: nothing but the spec's data calls here),
 * a NotPlainData saying so.
 */
function located(e: unknown, root: unknown): unknown {
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    const cycle = cycleIn(root);
    if (cycle === undefined) return new NotPlainData('a value nested too deep to encode (no cycle: the stack overflowed following it; a state is a tree of modest depth)', '(the state itself)');
    return new NotPlainData(`a cycle (a reference back to ${cycle.to === '' ? 'the state itself' : cycle.to}, which holds it: a state is a tree, not a graph)`, cycle.at === '' ? '(the state itself)' : cycle.at);
  }
  if (!(e instanceof NotPlainData) || e.at !== '') return e;
  const at = pathOf(root, e.what, new Set());
  return at === undefined ? e : new NotPlainData(e.what, at === '' ? '(the state itself)' : at);
}

/** The parts of v, each with its place in v's path words (`.a`, `[2]`, `.get("k")`); none for a value that is not an object. */
function parts(v: unknown): [string, unknown][] {
  if (typeof v !== 'object' || v === null) return [];
  if (v instanceof Map) return [...v].flatMap(([k, x]): [string, unknown][] => [[`.keys()[…]`, k], [`.get(${show(k)})`, x]]);
  if (v instanceof Set) return [...v].map((x): [string, unknown] => [`.has(…)`, x]);
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<unknown>, (x, i): [string, unknown] => [`[${i}]`, x]);
  return Object.keys(v).map((k): [string, unknown] => [/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`, (v as Record<string, unknown>)[k]]);
}

/** The path in v to the first value that is not plain data as `what` (the error's words), if any. */
function pathOf(v: unknown, what: string, seen: Set<object>): string | undefined {
  try {
    notPlain(v);
  } catch (e) {
    if (e instanceof NotPlainData && e.what === what) return '';
  }
  if (typeof v !== 'object' || v === null || seen.has(v)) return undefined;
  seen.add(v);
  for (const [key, x] of parts(v)) {
    const p = pathOf(x, what, seen);
    if (p !== undefined) return key + p;
  }
  return undefined;
}

/**
 * The first object found inside itself in root, if any: its path (`to`) and the path of the
 * reference back to it (`at`). Depth-first without recursion (the encoder's stack overflowed
 * on root already); an object met again off the current path is shared, not a cycle.
 */
function cycleIn(root: unknown): { at: string; to: string } | undefined {
  if (typeof root !== 'object' || root === null) return undefined;
  const onPath = new Map<object, string>([[root, '']]);
  const done = new Set<object>();
  const stack: { v: object; path: string; next: [string, unknown][]; i: number }[] = [{ v: root, path: '', next: parts(root), i: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.i === top.next.length) {
      stack.pop();
      onPath.delete(top.v);
      done.add(top.v);
      continue;
    }
    const [key, x] = top.next[top.i++];
    if (typeof x !== 'object' || x === null || done.has(x)) continue;
    const path = top.path + key;
    const back = onPath.get(x);
    if (back !== undefined) return { at: path, to: back };
    onPath.set(x, path);
    stack.push({ v: x, path, next: parts(x), i: 0 });
  }
  return undefined;
}

function show(k: unknown): string {
  return typeof k === 'string' ? JSON.stringify(k) : typeof k === 'number' || typeof k === 'boolean' || k === null || k === undefined ? String(k) : '…';
}

/** Throws a NotPlainData if v itself (not its parts) is not plain data. */
function notPlain(v: unknown): void {
  if (typeof v === 'function' || typeof v === 'symbol') throw new NotPlainData(`a ${typeof v}`);
  if (typeof v === 'object' && v !== null) {
    const proto = Object.getPrototypeOf(v);
    if (proto !== null && proto !== Object.prototype && proto !== Array.prototype && proto !== Map.prototype && proto !== Set.prototype) className(v, proto);
  }
}

// Objects of other classes. Typed arrays, Dates and class instances are encoded with their
// class before their value, so that an Int8Array and a Uint8Array of equal elements, an
// instance and a plain object of equal fields, differ. A class is named by its name and a
// hash of its source (the encoding is compared across threads and processes, where the
// same class is another object; a class declared in build() is one class at every call).
// Built-in objects whose value is not in their fields (a RegExp, a WeakMap, a boxed
// primitive...), which the encoding would take as equal, are refused.
const nameOfClass = new WeakMap<object, string>();

/** The name of v's class (proto: its prototype, not a plain one); throws a NotPlainData for what the encoding cannot tell apart. */
function className(v: object, proto: object): string {
  const known = nameOfClass.get(proto);
  if (known !== undefined) return known;
  if (
    v instanceof RegExp ||
    v instanceof WeakMap ||
    v instanceof WeakSet ||
    v instanceof Promise ||
    v instanceof ArrayBuffer ||
    v instanceof DataView ||
    v instanceof Number ||
    v instanceof String ||
    v instanceof Boolean ||
    v instanceof Error ||
    (typeof SharedArrayBuffer === 'function' && v instanceof SharedArrayBuffer) ||
    (typeof WeakRef === 'function' && v instanceof WeakRef)
  ) {
    throw new NotPlainData(`a ${(proto as { constructor?: { name?: string } }).constructor?.name || 'built-in object'} (its value is not in its fields)`);
  }
  const ctor = (proto as { constructor?: unknown }).constructor;
  let name = '(anonymous class)';
  if (typeof ctor === 'function') {
    const source = Function.prototype.toString.call(ctor);
    let h = 0x811c9dc5 | 0;
    for (let i = 0; i < source.length; i++) h = Math.imul(h ^ source.charCodeAt(i), 0x01000193);
    name = `${ctor.name || '(anonymous class)'}#${(fmix(h) >>> 0).toString(16)}`;
  }
  nameOfClass.set(proto, name);
  return name;
}

function put(v: unknown): void {
  switch (typeof v) {
    case 'number':
      if ((v | 0) === v && !Object.is(v, -0)) {
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
      throw new NotPlainData(`a ${typeof v}`);
  }
  if (v === null) {
    room(1);
    B[N++] = NULL;
    return;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) putObject(v as Record<string, unknown>);
  else if (proto === Array.prototype) putArray(v as unknown[]);
  else if (proto === Map.prototype) putMap(v as Map<unknown, unknown>);
  else if (proto === Set.prototype) putSet(v as Set<unknown>);
  else putOther(v, proto);
}

function putArray(v: unknown[]): void {
  const len = v.length;
  room(2);
  B[N++] = ARRAY;
  B[N++] = len;
  for (let i = 0; i < len; i++) {
    const x = v[i];
    // Small integers, the commonest element, without the call.
    if (typeof x === 'number' && (x | 0) === x && !Object.is(x, -0)) {
      room(2);
      B[N++] = INT;
      B[N++] = x;
    } else if (x === undefined && !(i in v)) {
      room(1);
      B[N++] = HOLE;
    } else put(x);
  }
}

function putMap(v: Map<unknown, unknown>): void {
  room(2);
  B[N++] = MAP;
  B[N++] = v.size;
  putAll(sortedEncodings(v, (o, [k, x]) => (encodeInto(o, k), encodeInto(o, x))));
}

function putSet(v: Set<unknown>): void {
  room(2);
  B[N++] = SET;
  B[N++] = v.size;
  putAll(sortedEncodings(v, encodeInto));
}

function putObject(o: Record<string, unknown>): void {
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

/** An object of another class: CLASS, its name, then its value as its kind's (a Date: its time). */
function putOther(v: object, proto: object): void {
  const name = className(v, proto);
  room(1);
  B[N++] = CLASS;
  putString(name);
  if (v instanceof Date) put(v.getTime());
  else if (Array.isArray(v)) putArray(v);
  else if (ArrayBuffer.isView(v)) {
    const a = v as unknown as ArrayLike<number | bigint>;
    room(2);
    B[N++] = ARRAY;
    B[N++] = a.length;
    for (let i = 0; i < a.length; i++) put(a[i]);
  } else if (v instanceof Map) putMap(v);
  else if (v instanceof Set) putSet(v);
  else putObject(v as Record<string, unknown>);
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
  /** Its sorted keys' number among the key sets packState has met; -1 until met. */
  keySet: number;
}
const shapesByFirstKey = new Map<string, Shape[]>();
const EMPTY_SHAPE: Shape = { keys: [], sorted: [], codes: new Int32Array(0), packId: -1, nullPackId: -1, keySet: -1 };

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
  const shape = { keys, sorted, codes: Int32Array.from(sorted, keyCode), packId: -1, nullPackId: -1, keySet: -1 };
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
 * The 64-bit fingerprint of words[from..n), as two 32-bit halves written to fp[0] (high) and
 * fp[1] (low). Words are taken two at a time: the pair (a, b) is first mapped one-to-one to
 * (k1, k2) (k1 = a + b·C1, k2 = b ^ k1·C2: b and then a can be recovered from them), and
 * each half of the state absorbs one of those (h = rotl(h ^ k, r)·M, one-to-one in h and in
 * k), then the two are cross-mixed and finished with MurmurHash3's fmix. So two inputs of
 * one length that differ in a single pair always differ (each step is a bijection);
 * MurmurHash3's two lanes per word, which this replaces, cost three times the multiplies.
 * Neither half is ever 0: the stores use 0 to mean an empty slot (so a fingerprint
 * carries a little under 64 bits; the collision estimate uses 2^64 all the same).
 */
export function fingerprint(words: Int32Array, n: number, fp: Int32Array, from = 0): void {
  let h1 = 0x9747b28c | 0;
  let h2 = 0x5bd1e995 | 0;
  let i = from;
  for (; i + 1 < n; i += 2) {
    const b = words[i + 1];
    const k1 = (words[i] + Math.imul(b, 0xcc9e2d51)) | 0;
    const k2 = b ^ Math.imul(k1, 0x1b873593);
    h1 ^= k1;
    h1 = Math.imul((h1 << 13) | (h1 >>> 19), 0x85ebca6b);
    h2 ^= k2;
    h2 = Math.imul((h2 << 17) | (h2 >>> 15), 0xc2b2ae35);
  }
  if (i < n) {
    const k1 = words[i];
    const k2 = Math.imul(k1, 0x1b873593);
    h1 ^= k1;
    h1 = Math.imul((h1 << 13) | (h1 >>> 19), 0x85ebca6b);
    h2 ^= k2;
    h2 = Math.imul((h2 << 17) | (h2 >>> 15), 0xc2b2ae35);
  }
  h1 ^= n - from;
  h2 ^= n - from;
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
// Packing: a state as words it can be rebuilt from exactly (unpack(pack(s)) deep-equals s,
// keys and Map and Set entries in their insertion order), so that a breadth-first search
// can queue its states as words instead of objects that survive young-generation
// collections. packState writes one stream for two ends. As written, each object's header
// word names its set of keys and its values follow in the keys' sorted order: the words are
// then a canonical, injective encoding of the state like the one above (two states have
// the same words exactly when encodeValue gives them the same words), which a search can
// hash and store. With the header words replaced by the shape words recorded beside them
// (`headers`: offset, word), they are what unpack reads, which builds each object with
// its keys in their order and its prototype. So a successor is encoded once for both.
// Each word has a 3-bit tag and a 29-bit payload:
//   INT      a small integer (the payload)
//   CONST    0 null, 1 undefined, 2 false, 3 true, 4 a bigint (its digits follow, as an
//            inline STRING), 5 an object of another class (its class's name follows, as
//            an inline STRING, then its value: never unpacked), 7 an array's hole
//   FLOAT    any other number: its 64 bits in the next two words (-0 and NaN too)
//   STRING   payload >= 0: an interned string's number; < 0: ~length, the UTF-16 code
//            units follow two to a word
//   ARRAY    the length; the elements follow (a typed array's too, as encodeValue does)
//   OBJECT   the key set's number (canonical) or the shape's (packed); the values follow
//   MAP, SET the size; the entries (key then value) or members, in insertion order
// Numbers of strings, key sets and shapes are given in the order first met, in this
// thread: the words are canonical within one thread, which is all one search compares.
// Where they could not be canonical (a Map or a Set: their order is the insertion order)
// packState says so, and the search hashes encodeValue's words instead; where they could
// not be rebuilt (a class instance, a typed array, a holey array, a frozen state), it says
// so, and the search keeps the object. Neither encoding sees symbol-keyed or non-enumerable
// properties or non-index properties of arrays, so they are not kept; nor sharing (a
// field holding the same array as another is rebuilt as a copy of it).

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
/** An object of another class (as encodeValue's CLASS): its name follows, as an inline STRING, then its value. */
const C_CLASS = 5;
/** An array's hole. Neither this nor C_CLASS is ever unpacked: a state holding one is kept as itself. */
const C_HOLE = 7;
/** Never written by packState: marks a stream that is not packed (the frontier's kept objects, encodeValue's words). */
export const NOT_PACKED = (6 << 3) | P_CONST;
const SMALL = 1 << 28;
/** Strings interned: at most this many, each at most INTERN_LENGTH long (memory stays bounded). */
const INTERN_MAX = 1 << 16;
const INTERN_LENGTH = 64;

/** packState's verdict: bits saying the words are not canonical, or cannot be unpacked. */
export const NOT_CANONICAL = 1;
export const NOT_UNPACKABLE = 2;

const internId = new Map<string, number>();
const interned: string[] = [];

/** An object shape: its keys in order, its prototype, and a function that builds one. */
interface PackShape {
  keys: string[];
  nullProto: boolean;
  build: () => object;
}
const packShapes: PackShape[] = [];
const packShapeIds = new Map<string, number>();
const keySetIds = new Map<string, number>();
/** Shapes whose builder is compiled (an object literal); beyond this, a loop builds them. */
const COMPILED_SHAPES = 4096;

let H: Words = new Words();
/** Where this state's words and headers start in O and H. */
let start = 0;
let hstart = 0;
let verdict = 0;

/**
 * Appends v's words to out and the (offset from their start, shape word) of each of its
 * objects to headers; returns 0, or NOT_CANONICAL and/or NOT_UNPACKABLE. Throws, as
 * encodeValue does, on what is not plain data (a function, a symbol).
 */
export function packState(out: Words, v: unknown, headers: Words): number {
  const o = O;
  const b = B;
  const n = N;
  enter(out);
  H = headers;
  start = N;
  hstart = headers.length;
  // A frozen state (specs/kit's `freezing`, which makes a step that changes a part its
  // copy shares throw) is kept, frozen; parts frozen in a state that is not are rebuilt
  // unfrozen (checking every object would cost every state).
  try {
    if (typeof v === 'object' && v !== null && (v as { constructor?: unknown }).constructor === Object && Object.getPrototypeOf(v) === Object.prototype) {
      verdict = Object.isFrozen(v) ? NOT_UNPACKABLE : 0;
      packObject(v as Record<string, unknown>, false, true);
    } else {
      verdict = typeof v === 'object' && v !== null && Object.isFrozen(v) ? NOT_UNPACKABLE : 0;
      packValue(v);
    }
  } catch (e) {
    throw located(e, v);
  } finally {
    leave(out, o, b, n);
  }
  return verdict;
}

const scratch = new Words();

/** Appends v's words, as unpack reads them, to out; false (nothing appended) if it cannot be unpacked. */
export function pack(out: Words, v: unknown): boolean {
  const from = out.length;
  scratch.reset();
  if (packState(out, v, scratch) & NOT_UNPACKABLE) {
    out.length = from;
    return false;
  }
  for (let i = 0; i < scratch.length; i += 2) out.buf[from + scratch.buf[i]] = scratch.buf[i + 1];
  return true;
}

function packChars(s: string): void {
  const len = s.length;
  room(1 + ((len + 1) >> 1));
  B[N++] = (~len << 3) | P_STRING;
  let i = 0;
  for (; i + 1 < len; i += 2) B[N++] = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
  if (i < len) B[N++] = s.charCodeAt(i);
}

const TRUE_WORD = (C_TRUE << 3) | P_CONST;
const FALSE_WORD = (C_FALSE << 3) | P_CONST;

/**
 * The interned string last met at each word position of a state (mod 256) and its word:
 * states of a search are alike, so a string is mostly the one met there before, and
 * comparing it with that one costs less than the Map lookup that hashes it.
 */
const atString: (string | undefined)[] = new Array(256).fill(undefined);
const atStringWord = new Int32Array(256);

/**
 * The single word of x when it is a small integer, a boolean or a string that is (or
 * can be) interned; -1 (a word packState never writes) for anything else. `at` is where
 * it goes in the state's words.
 */
function oneWord(x: unknown, at: number): number {
  if (typeof x === 'number') return (x | 0) === x && x >= -SMALL && x < SMALL && !Object.is(x, -0) ? (x << 3) | P_INT : -1;
  if (x === true) return TRUE_WORD;
  if (x === false) return FALSE_WORD;
  if (typeof x === 'string') {
    const slot = at & 255;
    if (atString[slot] === x) return atStringWord[slot];
    const id = internOf(x);
    if (id < 0) return -1;
    atString[slot] = x;
    return (atStringWord[slot] = (id << 3) | P_STRING);
  }
  return -1;
}

/** The string's number among those interned, interning it if there is room; -1 if it cannot be. */
function internOf(v: string): number {
  const id = internId.get(v);
  if (id !== undefined) return id;
  if (v.length > INTERN_LENGTH || interned.length >= INTERN_MAX) return -1;
  internId.set(v, interned.length);
  interned.push(v);
  return interned.length - 1;
}

function packValue(v: unknown): void {
  switch (typeof v) {
    case 'number':
      if ((v | 0) === v && v >= -SMALL && v < SMALL && !Object.is(v, -0)) {
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
      const id = internOf(v);
      if (id >= 0) {
        room(1);
        B[N++] = (id << 3) | P_STRING;
      } else if (v.length < SMALL) packChars(v);
      else throw new RangeError(`a string of ${v.length} characters in a state is too long to store`);
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
      throw new NotPlainData(`a ${typeof v}`);
  }
  if (v === null) {
    room(1);
    B[N++] = (C_NULL << 3) | P_CONST;
    return;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype) packObject(v as Record<string, unknown>, false);
  else if (proto === Array.prototype) packArray(v as unknown[]);
  else packOther(v, proto);
}

/** Arrays, typed arrays too (as encodeValue encodes them), element by element. */
function packArray(a: ArrayLike<unknown>): void {
  const len = a.length;
  if (len >= SMALL) throw new RangeError(`an array of ${len} elements in a state is too long to store`);
  // Room for the header and one word per element: small integers, booleans and interned
  // strings, the commonest elements, are then written without a check; others check for
  // themselves.
  room(1 + len);
  // The buffer and the count in locals while the elements are single words (the
  // module's B and N live in its context: each N++ would be a store there).
  let b = B;
  let n = N;
  b[n++] = (len << 3) | P_ARRAY;
  for (let i = 0; i < len; i++) {
    const x = a[i];
    const w = oneWord(x, n - start);
    if (w !== -1) b[n++] = w;
    else {
      N = n;
      if (x === undefined && !(i in a)) {
        // A hole, as encodeValue's HOLE: not an undefined element, and not rebuilt.
        verdict |= NOT_UNPACKABLE;
        room(1);
        B[N++] = (C_HOLE << 3) | P_CONST;
      } else packValue(x);
      room(len - i);
      b = B;
      n = N;
    }
  }
  N = n;
}

/**
 * The shape of the i-th object of the last state packed, at i mod 64: states of a search
 * are alike, so the i-th object of the next one usually has the same shape.
 */
const lastShapes: Shape[] = new Array(64).fill(EMPTY_SHAPE);

/** Objects: the values in the order of the sorted keys; the header word records the key set and (in `H`) the shape. */
function packObject(o: Record<string, unknown>, nullProto: boolean, root = false): void {
  const h = H;
  const slot = ((h.length - hstart) >> 1) & 63;
  let shape = lastShapes[slot];
  const known = shape.keys;
  const keys = Object.keys(o);
  let same = known.length === keys.length;
  for (let i = 0; same && i < keys.length; i++) same = known[i] === keys[i];
  if (!same) lastShapes[slot] = shape = shapeOf(keys);
  const sorted = shape.sorted;
  const len = sorted.length;
  room(1 + len);
  if (h.length + 2 > h.buf.length) h.grow(h.length + 2);
  h.buf[h.length++] = N - start;
  h.buf[h.length++] = ((nullProto ? shape.nullPackId : shape.packId) >= 0 ? (nullProto ? shape.nullPackId : shape.packId) : packShapeOf(shape, nullProto)) * 8 + P_OBJECT;
  B[N++] = ((shape.keySet >= 0 ? shape.keySet : keySetOf(shape)) << 3) | P_OBJECT;
  for (let j = 0; j < len; j++) {
    const x = root ? rootField(o, sorted, j) : o[sorted[j]];
    const w = oneWord(x, N - start);
    if (w !== -1) B[N++] = w;
    else {
      // Plain arrays, the commonest field after numbers, without the dispatch. Their
      // length is read before their prototype: the map check of that load lets V8 fold
      // getPrototypeOf to a constant (otherwise a call, a third of an array's cost).
      if (Array.isArray(x) && x.length < SMALL && Object.getPrototypeOf(x) === Array.prototype) packArray(x);
      else packValue(x);
      room(len - j);
    }
  }
}

/**
 * The root object's j-th field in sorted order, each of the first eight read at a site of
 * its own: a state's root has one shape (or a few), so each site sees one key, and V8 reads
 * it as a named field instead of the hash lookup a site shared by every key makes.
 */
function rootField(o: Record<string, unknown>, sorted: string[], j: number): unknown {
  switch (j) {
    case 0:
      return o[sorted[0]];
    case 1:
      return o[sorted[1]];
    case 2:
      return o[sorted[2]];
    case 3:
      return o[sorted[3]];
    case 4:
      return o[sorted[4]];
    case 5:
      return o[sorted[5]];
    case 6:
      return o[sorted[6]];
    case 7:
      return o[sorted[7]];
    default:
      return o[sorted[j]];
  }
}

function packOther(v: object, proto: object | null): void {
  if (proto === null) {
    packObject(v as Record<string, unknown>, true);
    return;
  }
  if (proto === Map.prototype || proto === Set.prototype) {
    packCollection(v as Map<unknown, unknown> | Set<unknown>);
    return;
  }
  // An object of another class: its class (as encodeValue writes it), then its value read
  // as encodeValue reads it; kept as itself, with its class.
  const name = className(v, proto);
  verdict |= NOT_UNPACKABLE;
  room(1);
  B[N++] = (C_CLASS << 3) | P_CONST;
  packChars(name);
  if (v instanceof Date) packValue(v.getTime());
  else if (Array.isArray(v) || ArrayBuffer.isView(v)) packArray(v as unknown as ArrayLike<unknown>);
  else if (v instanceof Map || v instanceof Set) packCollection(v);
  else packObject(v as Record<string, unknown>, false);
}

/** A Map or a Set: its entries in insertion order (so not canonical: the search hashes encodeValue's words). */
function packCollection(v: Map<unknown, unknown> | Set<unknown>): void {
  verdict |= NOT_CANONICAL;
  if (v.size >= SMALL) throw new RangeError(`a collection of ${v.size} entries in a state is too large to store`);
  room(1);
  if (v instanceof Map) {
    B[N++] = (v.size << 3) | P_MAP;
    for (const [k, x] of v) {
      packValue(k);
      packValue(x);
    }
  } else {
    B[N++] = (v.size << 3) | P_SET;
    for (const x of v) packValue(x);
  }
}

function keySetOf(shape: Shape): number {
  if (shape.keySet >= 0) return shape.keySet;
  const name = JSON.stringify(shape.sorted);
  let id = keySetIds.get(name);
  if (id === undefined) {
    id = keySetIds.size;
    if (id >= SMALL) throw new RangeError('more than 2^28 sets of keys in states');
    keySetIds.set(name, id);
  }
  shape.keySet = id;
  return id;
}

function packShapeOf(shape: Shape, nullProto: boolean): number {
  const known = nullProto ? shape.nullPackId : shape.packId;
  if (known >= 0) return known;
  const name = `${nullProto ? 'n' : 'o'}${JSON.stringify(shape.keys)}`;
  let id = packShapeIds.get(name);
  if (id === undefined) {
    id = packShapes.length;
    if (id >= SMALL) throw new RangeError('more than 2^28 object shapes in states');
    packShapes.push({ keys: shape.keys, nullProto, build: builder(shape.keys, shape.sorted, nullProto, id < COMPILED_SHAPES) });
    packShapeIds.set(name, id);
  }
  if (nullProto) shape.nullPackId = id;
  else shape.packId = id;
  return id;
}

/**
 * A function that builds an object of a shape from unpack's cursor, whose values come in
 * the order of the sorted keys: an object literal with the keys in their own order (so
 * objects of one shape share a hidden class, as the spec's own literals do) or, past
 * COMPILED_SHAPES shapes, a loop. Keys enter the source only as JSON string literals,
 * and "__proto__" as a computed key (a literal would take it for the prototype).
 */
function builder(keys: string[], sorted: string[], nullProto: boolean, compiled: boolean): () => object {
  const from = keys.map((k) => sorted.indexOf(k));
  if (!compiled) {
    return () => {
      const values = sorted.map(() => take());
      const o: Record<string, unknown> = nullProto ? Object.create(null) : {};
      for (let i = 0; i < keys.length; i++) Object.defineProperty(o, keys[i], { value: values[from[i]], writable: true, enumerable: true, configurable: true });
      return o;
    };
  }
  const takes = sorted.map((_, i) => `const v${i} = take();`).join(' ');
  const fields = keys.map((k, i) => `${k === '__proto__' ? `[${JSON.stringify(k)}]` : JSON.stringify(k)}: v${from[i]}`);
  if (nullProto) fields.unshift('__proto__: null');
  return new Function('take', `return () => { ${takes} return { ${fields.join(', ')} }; };`)(take) as () => object;
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
        default:
          throw new Error(`unpack: not a packed value at word ${P - 1}`);
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
