// Machine.encode for plain-object specs: a spec writes its state's fields as 32-bit words
// in a fixed order, instead of handing the engine a view to encode generically (which
// walks every object, sorts its keys and tags every value) or a string (built, then copied
// into words char by char). The encoding must be injective on the states the spec reaches:
// every variable-length part is preceded by its length, every optional part by a tag, and
// fixed-shape records are their fields in order. Parts a state shares with its successors
// (immutable log items, segments, messages) can be encoded once and copied (`cached`).
// A spec's tests check its encoding against the plain one (`sameStates`): equal words for
// equal states, different words for different states, over every transition of a config.

/** Writes words into the engine's buffer; past its end it only counts (`end` is then -1: the engine retries with a larger buffer). */
export class WordWriter {
  private buf: Int32Array = new Int32Array(0);
  private n = 0;

  /** Starts writing into out. */
  begin(out: Int32Array): this {
    this.buf = out;
    this.n = 0;
    return this;
  }

  /** The number of words written, or -1 when they did not fit. */
  end(): number {
    return this.n <= this.buf.length ? this.n : -1;
  }

  /** An integer (or a boolean, as 0/1). Numbers must be 32-bit integers. */
  int(x: number | boolean): void {
    if (this.n < this.buf.length) this.buf[this.n] = +x;
    this.n++;
  }

  /** An integer or null (null as a tag no other value writes: two words). */
  intOrNull(x: number | null): void {
    if (x === null) {
      this.int(0);
      this.int(0);
    } else {
      this.int(1);
      this.int(x);
    }
  }

  /** A list of integers, its length first. */
  ints(xs: readonly (number | boolean)[]): void {
    this.int(xs.length);
    for (let i = 0; i < xs.length; i++) this.int(xs[i]);
  }

  /** Words encoded before (a shared part's cached encoding), as they are. */
  words(ws: Int32Array, length = ws.length): void {
    const n = this.n;
    const buf = this.buf;
    if (n + length <= buf.length) for (let i = 0; i < length; i++) buf[n + i] = ws[i];
    this.n = n + length;
  }

  /** The number of words written so far (a mark for `since`). */
  mark(): number {
    return this.n;
  }

  /** Copies the words written since `mark` into `into` (grown as needed; returned), or undefined if they did not fit the buffer. */
  since(mark: number, into: Int32Array): Int32Array | undefined {
    if (this.n > this.buf.length) return undefined;
    if (into.length < this.n - mark) into = new Int32Array(Math.max(this.n - mark, 2 * into.length));
    for (let i = mark; i < this.n; i++) into[i - mark] = this.buf[i];
    return into;
  }
}

/**
 * The same prefix code for specs that write by index into the engine's buffer (a
 * hand-written `Machine.encode`): xs with its length first; returns the next free index.
 * Writes past out's end are dropped by the typed array; the returned length tells the
 * engine to grow the buffer and retry.
 */
export function putList(out: Int32Array, n: number, xs: readonly number[]): number {
  out[n++] = xs.length;
  for (let i = 0; i < xs.length; i++) out[n++] = xs[i];
  return n;
}

/** A string as its length, then one UTF-16 code unit a word; returns the next free index. */
export function putString(out: Int32Array, n: number, x: string): number {
  out[n++] = x.length;
  for (let i = 0; i < x.length; i++) out[n++] = x.charCodeAt(i);
  return n;
}

/**
 * The same prefix code, packed, four bytes a word: each integer in [-8, 231] (a seed
 * spec's counters, program counters, replica indices, small values, ASCII) is one byte
 * (0-239), one in [232, 4071] (packed tuples, timestamps) two (240-254, then the low
 * byte), any other 32-bit integer the escape byte 255 and its four bytes. Fewer words make the
 * engine's hashing, comparing and storing of every state cheaper (it is linear in the
 * words). `align` pads the word in progress with zero bytes, at a place the code fixes (a
 * decoder knows where it is), so it stays decodable; `words` appends a block written by
 * another ByteWords (a shared part encoded once), aligned. The whole encoding of a state
 * must be a prefix code (lengths before lists, fixed order), so that a shorter state's
 * zero padding cannot read as a longer state's bytes. Writes by index into the engine's
 * buffer; past its end it only counts (`end` is then -1: the engine retries larger).
 */
export class ByteWords {
  private buf: Int32Array = new Int32Array(0);
  /** buf's bytes (made again only when the engine hands over another buffer). */
  private u8: Uint8Array = new Uint8Array(0);
  /** The next byte. */
  private p = 0;

  begin(out: Int32Array): this {
    if (out !== this.buf) {
      this.buf = out;
      this.u8 = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    }
    this.p = 0;
    return this;
  }

  /** The number of words written (the last one padded), or -1 when they did not fit. */
  end(): number {
    this.align();
    return this.p <= this.u8.length ? this.p >> 2 : -1;
  }

  /** A 32-bit integer (a boolean as 0/1). Bytes past the buffer's end are dropped, only counted. */
  int(x: number): void {
    if (x >= -8 && x <= 231) this.u8[this.p++] = x + 8;
    else this.wide(x);
  }

  /** int's integers outside [-8, 231]: two bytes or five. */
  private wide(x: number): void {
    const u8 = this.u8;
    let p = this.p;
    if (x >= 232 && x < 232 + 15 * 256) {
      u8[p++] = 240 + ((x - 232) >> 8);
      u8[p++] = (x - 232) & 255;
    } else {
      u8[p++] = 255;
      u8[p++] = x & 255;
      u8[p++] = (x >>> 8) & 255;
      u8[p++] = (x >>> 16) & 255;
      u8[p++] = x >>> 24;
    }
    this.p = p;
  }

  /** A list of integers, its length first. */
  ints(xs: readonly number[]): void {
    this.int(xs.length);
    for (let i = 0; i < xs.length; i++) this.int(xs[i]);
  }

  /** An integer or null: a tag (0 for null), then the integer. */
  intOrNull(x: number | null): void {
    if (x === null) this.int(0);
    else {
      this.int(1);
      this.int(x);
    }
  }

  /** Booleans as 0 and 1, the length first. */
  bools(xs: readonly boolean[]): void {
    this.int(xs.length);
    for (let i = 0; i < xs.length; i++) this.int(xs[i] ? 1 : 0);
  }

  /** A string, its length first, then its UTF-16 code units. */
  string(x: string): void {
    this.int(x.length);
    for (let i = 0; i < x.length; i++) this.int(x.charCodeAt(i));
  }

  /** Pads the word in progress with zero bytes. */
  align(): void {
    const u8 = this.u8;
    while ((this.p & 3) !== 0) u8[this.p++] = 0;
  }

  /** Aligns, and gives the number of words written so far (a mark for `since`). */
  mark(): number {
    this.align();
    return this.p >> 2;
  }

  /** Aligns, and copies the words written since `mark` into `into` (grown as needed; returned), or undefined if they did not fit the buffer. */
  since(mark: number, into: Int32Array): Int32Array | undefined {
    const n = this.mark();
    if (n > this.buf.length) return undefined;
    if (into.length < n - mark) into = new Int32Array(Math.max(n - mark, 2 * into.length));
    for (let i = mark; i < n; i++) into[i - mark] = this.buf[i];
    return into;
  }

  /** The first `length` words of ws (written by `since`), after aligning. */
  words(ws: Int32Array, length: number): void {
    this.align();
    const n = this.p >> 2;
    const buf = this.buf;
    if (n + length <= buf.length) for (let i = 0; i < length; i++) buf[n + i] = ws[i];
    this.p += length << 2;
  }
}

/**
 * The words of shared, immutable parts, kept by identity: per slot (a server's or a
 * client's place in the state, or slot 0 for a part the state has once) the last `ways`
 * objects met there with their words, a miss replacing the entry after the one used last.
 * Successors of one state are encoded one after another and share (copy-on-write) every
 * part their step did not replace, so most parts are met again in the same slot and their
 * words copied rather than written. Objects must never change once their state is made
 * (kit/state.ts). No weak map: such parts are many and short-lived. Works over either
 * writer (WordWriter, ByteWords: its words aligned, so kept words equal written ones).
 */
export class KeptWords<W extends PartWriter, T extends object> {
  private readonly xs: (T | null)[] = [];
  private readonly ws: Int32Array[] = [];
  private readonly ns: number[] = [];
  private readonly last: number[] = [];

  constructor(
    /** Writes x afresh; slot is the slot it is written for (a part may keep its own parts' words per slot). */
    private readonly put: (w: W, x: T, slot: number) => void,
    private readonly ways = 1,
  ) {}

  /** Appends x's words to w: copied when x is one of the objects kept for the slot. */
  write(w: W, x: T, slot = 0): void {
    const ways = this.ways;
    const base = slot * ways;
    while (this.last.length <= slot) {
      this.last.push(0);
      for (let k = 0; k < ways; k++) {
        this.xs.push(null);
        this.ws.push(new Int32Array(16));
        this.ns.push(0);
      }
    }
    for (let k = base; k < base + ways; k++) {
      if (this.xs[k] === x) {
        this.last[slot] = k - base;
        w.words(this.ws[k], this.ns[k]);
        return;
      }
    }
    // Not the one used last (with two ways, the least recently used): a state's part
    // and its successor's replacement alternate, the parent's coming back.
    const j = ways === 1 ? 0 : (this.last[slot] + 1) % ways;
    this.last[slot] = j;
    const k = base + j;
    const mark = w.mark();
    this.put(w, x, slot);
    const kept = w.since(mark, this.ws[k]);
    if (kept === undefined) {
      this.xs[k] = null;
      return;
    }
    this.xs[k] = x;
    this.ws[k] = kept;
    this.ns[k] = w.mark() - mark;
  }
}

/** What KeptWords needs of a writer. */
interface PartWriter {
  mark(): number;
  since(mark: number, into: Int32Array): Int32Array | undefined;
  words(ws: Int32Array, length: number): void;
}

/** What cachedWords needs of a writer (WordWriter, ByteWords). */
interface ScratchWriter {
  begin(out: Int32Array): this;
  end(): number;
}

/**
 * The encoding of a shared, immutable part, computed once per object: `write` encodes x
 * with the writer it is given (a scratch one, grown as needed: a WordWriter, or the writer
 * passed, a ByteWords say). Cache parts a step replaces rather than changes in place; the
 * words must include whatever length or tag makes the part self-delimiting.
 */
export function cachedWords<T extends object>(write: (w: WordWriter, x: T) => void): (x: T) => Int32Array;
export function cachedWords<T extends object, W extends ScratchWriter>(write: (w: W, x: T) => void, w: W): (x: T) => Int32Array;
export function cachedWords<T extends object, W extends ScratchWriter>(write: (w: W, x: T) => void, writer?: W): (x: T) => Int32Array {
  // Without a writer the overload above says W is WordWriter.
  const w = writer ?? (new WordWriter() as ScratchWriter as W);
  const memo = new WeakMap<T, Int32Array>();
  let scratch = new Int32Array(64);
  return (x) => {
    let ws = memo.get(x);
    if (ws === undefined) {
      for (;;) {
        write(w.begin(scratch), x);
        const n = w.end();
        if (n >= 0) {
          ws = scratch.slice(0, n);
          break;
        }
        scratch = new Int32Array(scratch.length * 4);
      }
      memo.set(x, ws);
    }
    return ws;
  };
}

/**
 * Machine.encode from a function that writes a state with a WordWriter.
 */
export function wordEncoder<S>(write: (w: WordWriter, s: S) => void): (s: S, out: Int32Array) => number {
  const w = new WordWriter();
  return (s, out) => {
    write(w.begin(out), s);
    return w.end();
  };
}

/**
 * Whether a machine's `encode` partitions states exactly as `key` (a plain, canonical key:
 * the spec's string view, or the engine's encoding of the whole state) does: equal keys ⇔
 * equal words, over every successor of every state reachable from init (states deduplicated
 * by key, so equal states reached along different paths are compared too). Returns the
 * number of distinct states and the first pair that disagrees, if any. Tests run it on a
 * spec's small configs.
 */
export function sameStates<S>(
  machine: { init(): S[]; actions(s: S): unknown[]; next(s: S, a: any): S },
  key: (s: S) => string,
  encode: (s: S, out: Int32Array) => number,
): { states: number; mismatch?: { a: S; b: S; why: string } } {
  const byKey = new Map<string, string>();
  const byWords = new Map<string, { s: S; key: string }>();
  let out = new Int32Array(1024);
  const frontier: S[] = [];
  const visit = (s: S): { a: S; b: S; why: string } | undefined => {
    let n = encode(s, out);
    while (n < 0) {
      out = new Int32Array(out.length * 2);
      n = encode(s, out);
    }
    const words = out.subarray(0, n).join(',');
    const k = key(s);
    const known = byKey.get(k);
    const other = byWords.get(words);
    if (known !== undefined && known !== words) return { a: other?.s ?? s, b: s, why: 'equal states encode to different words' };
    if (other && other.key !== k) return { a: other.s, b: s, why: 'different states encode to the same words' };
    if (known === undefined) {
      byKey.set(k, words);
      byWords.set(words, { s, key: k });
      frontier.push(s);
    }
    return undefined;
  };
  for (const s of machine.init()) {
    const bad = visit(s);
    if (bad) return { states: byKey.size, mismatch: bad };
  }
  for (let i = 0; i < frontier.length; i++) {
    for (const a of machine.actions(frontier[i])) {
      const bad = visit(machine.next(frontier[i], a));
      if (bad) return { states: byKey.size, mismatch: bad };
    }
  }
  return { states: byKey.size };
}
