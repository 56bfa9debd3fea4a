// A native operation line (traces/README.md) read in one pass over its bytes (ASCII), without
// JSON.parse: JSON.parse of an object per line, then json.ts's raw check of the same text,
// then the record check of records.ts were two thirds of reading issue 21's kv-append
// example (100,000 lines). The scanner accepts only lines the general path accepts, and
// gives the values that path gives: a line it does not vouch for (an escape in a string, a
// float, an object as a value, a repeated or unknown key, anything malformed) is declined
// and read by the general path, which also says what is wrong with it. Linear in the
// length of the line; nesting bounded by maxDepth as json.ts bounds it.
// jsonl-scan.test.ts holds the two paths to each other on valid and corrupted lines.

/** One operation as the general path reads it (undefined: the field is absent). */
export interface ScannedOperation {
  client: number | string;
  f: string;
  key: string | undefined;
  value: unknown;
  call: number;
  ret: number | undefined;
  output: unknown;
  status: 'ok' | 'info' | 'fail' | undefined;
}

export function scannedOperation(): ScannedOperation {
  return { client: 0, f: '', key: undefined, value: undefined, call: 0, ret: undefined, output: undefined, status: undefined };
}

/** A position past the end: the scan gives up and the general path reads the line. */
const DECLINE = -1;

// The scan's state: the batch's bytes (ASCII, each line ending with a newline: a scan
// stops at it without a bounds check), the nesting limit, and the value or number last read.
let b: Buffer = Buffer.alloc(0);
let depthLimit = 0;
let scanned: unknown;
let num = 0;

/**
 * Strings met again and again (function names, keys), so that each is not a new string per
 * line: at most MAX_CACHED of each, of at most MAX_CACHED_LENGTH characters, compared byte
 * by byte.
 */
const names: string[] = [];
const keys: string[] = [];
const MAX_CACHED = 16;
const MAX_CACHED_LENGTH = 64;

/** Buffer's own latin1 decoder, without toString's checks of its arguments. */
interface Latin1 {
  latin1Slice(from: number, to: number): string;
}

/** b[from, to) as a string (ASCII: its bytes are its characters). */
function text(from: number, to: number): string {
  return (b as unknown as Latin1).latin1Slice(from, to);
}

/** The string b[from, to), from `cache` when it is there, else new (and kept if there is room). */
function cached(cache: string[], from: number, to: number): string {
  const length = to - from;
  for (const c of cache) {
    if (c.length !== length) continue;
    let k = 0;
    while (k < length && c.charCodeAt(k) === b[from + k]) k++;
    if (k === length) return c;
  }
  const str = text(from, to);
  if (cache.length < MAX_CACHED && length <= MAX_CACHED_LENGTH) cache.push(str);
  return str;
}

/** Whether b holds `word` (ASCII bytes, no newline) at i. */
function has(i: number, word: Uint8Array): boolean {
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return false;
  return true;
}

const bytes = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
const NULL = bytes('null');
const TRUE = bytes('true');
const FALSE = bytes('false');
const K_CLIENT = bytes('"client"');
const K_CALL = bytes('"call"');
const K_INPUT = bytes('"input"');
const K_RETURN = bytes('"return"');
const K_OUTPUT = bytes('"output"');
const K_STATUS = bytes('"status"');
const K_F = bytes('"f"');
const K_KEY = bytes('"key"');
const K_VALUE = bytes('"value"');
const OK = bytes('"ok"');
const INFO = bytes('"info"');
const FAIL = bytes('"fail"');

/** Past JSON whitespace other than the newline, which ends the line. */
function ws(i: number): number {
  for (;;) {
    const c = b[i];
    if (c !== 32 && c !== 9 && c !== 13) return i;
    i++;
  }
}

/** The end (past the closing quote) of a string without escapes or control characters. */
function stringEnd(i: number): number {
  for (let j = i + 1; ; j++) {
    const c = b[j]!;
    if (c === 34) return j + 1;
    if (c === 92 || c < 32) return DECLINE;
  }
}

/**
 * An integer of at most 15 digits (a float holds it exactly), into num. Declines a
 * fraction or exponent, a leading zero (JSON.parse refuses it) and -0 (read as 0).
 */
function integerEnd(i: number, negativeAllowed: boolean): number {
  let j = i;
  const negative = b[j] === 45;
  if (negative) {
    if (!negativeAllowed) return DECLINE;
    j++;
  }
  const first = j;
  let n = 0;
  for (;; j++) {
    const c = b[j]!;
    if (c < 48 || c > 57) break;
    n = n * 10 + (c - 48);
  }
  const digits = j - first;
  if (digits === 0 || digits > 15 || (digits > 1 && b[first] === 48)) return DECLINE;
  const c = b[j];
  if (c === 46 || c === 101 || c === 69) return DECLINE;
  if (negative && n === 0) return DECLINE;
  num = negative ? -n : n;
  return j;
}

/** A JSON value other than an object (and other than a float), into scanned; `open` containers around it. */
function valueEnd(i: number, open: number): number {
  const c = b[i]!;
  if (c === 34) {
    const j = stringEnd(i);
    if (j !== DECLINE) scanned = text(i + 1, j - 1);
    return j;
  }
  if (c === 45 || (c >= 48 && c <= 57)) {
    const j = integerEnd(i, true);
    if (j !== DECLINE) scanned = num;
    return j;
  }
  if (c === 110 && has(i, NULL)) {
    scanned = null;
    return i + 4;
  }
  if (c === 116 && has(i, TRUE)) {
    scanned = true;
    return i + 4;
  }
  if (c === 102 && has(i, FALSE)) {
    scanned = false;
    return i + 5;
  }
  if (c !== 91 || open >= depthLimit) return DECLINE;
  const items: unknown[] = [];
  let j = ws(i + 1);
  if (b[j] === 93) {
    scanned = items;
    return j + 1;
  }
  for (;;) {
    j = valueEnd(j, open + 1);
    if (j === DECLINE) return DECLINE;
    items.push(scanned);
    j = ws(j);
    const d = b[j];
    if (d === 93) {
      scanned = items;
      return j + 1;
    }
    if (d !== 44) return DECLINE;
    j = ws(j + 1);
  }
}

/** A string at i (a quote) from `cache`, non-empty unless `empty`; into scanned. */
function cachedEnd(i: number, cache: string[], empty: boolean): number {
  if (b[i] !== 34) return DECLINE;
  const j = stringEnd(i);
  if (j === DECLINE || (j - i === 2 && !empty)) return DECLINE;
  scanned = cached(cache, i + 1, j - 1);
  return j;
}

// Fields, as bits of what a record has seen.
const CLIENT = 1;
const INPUT = 2;
const CALL = 4;
const RETURN = 8;
const OUTPUT = 16;
const STATUS = 32;
const F = 64;
const KEY = 128;
const VALUE = 256;

/** Which field the key at i (a quote) names, and where its text ends; 0 for another key. */
function recordField(i: number): number {
  switch (b[i + 1]) {
    case 99: // c
      return has(i, K_CLIENT) ? CLIENT : has(i, K_CALL) ? CALL : 0;
    case 105: // i
      return has(i, K_INPUT) ? INPUT : 0;
    case 114: // r
      return has(i, K_RETURN) ? RETURN : 0;
    case 111: // o
      return has(i, K_OUTPUT) ? OUTPUT : 0;
    case 115: // s
      return has(i, K_STATUS) ? STATUS : 0;
    default:
      return 0;
  }
}

function inputField(i: number): number {
  switch (b[i + 1]) {
    case 102: // f
      return has(i, K_F) ? F : 0;
    case 107: // k
      return has(i, K_KEY) ? KEY : 0;
    case 118: // v
      return has(i, K_VALUE) ? VALUE : 0;
    default:
      return 0;
  }
}

const KEY_LENGTH: Record<number, number> = { [CLIENT]: 8, [INPUT]: 7, [CALL]: 6, [RETURN]: 8, [OUTPUT]: 8, [STATUS]: 8, [F]: 3, [KEY]: 5, [VALUE]: 7 };

/** The position after `"key" :` and the whitespace after it, or DECLINE. */
function afterColon(i: number, field: number): number {
  const j = ws(i + KEY_LENGTH[field]!);
  return b[j] === 58 ? ws(j + 1) : DECLINE;
}

/** The input object at i (an open brace) into out.f, key, value. */
function inputEnd(i: number, out: ScannedOperation): number {
  if (b[i] !== 123 || 1 >= depthLimit) return DECLINE;
  let seen = 0;
  let j = ws(i + 1);
  for (;;) {
    if (b[j] !== 34) return DECLINE;
    const field = inputField(j);
    if (field === 0 || (seen & field) !== 0) return DECLINE;
    seen |= field;
    j = afterColon(j, field);
    if (j === DECLINE) return DECLINE;
    if (field === F) {
      j = cachedEnd(j, names, false);
      if (j === DECLINE) return DECLINE;
      out.f = scanned as string;
    } else if (field === KEY) {
      j = cachedEnd(j, keys, true);
      if (j === DECLINE) return DECLINE;
      out.key = scanned as string;
    } else {
      j = valueEnd(j, 2);
      if (j === DECLINE) return DECLINE;
      out.value = scanned;
    }
    j = ws(j);
    const c = b[j];
    if (c === 125) return (seen & F) === 0 ? DECLINE : j + 1;
    if (c !== 44) return DECLINE;
    j = ws(j + 1);
  }
}

function statusEnd(i: number, out: ScannedOperation): number {
  if (has(i, OK)) {
    out.status = 'ok';
    return i + 4;
  }
  if (has(i, INFO)) {
    out.status = 'info';
    return i + 6;
  }
  if (has(i, FAIL)) {
    out.status = 'fail';
    return i + 6;
  }
  return DECLINE;
}

function fieldEnd(j: number, field: number, out: ScannedOperation): number {
  switch (field) {
    case CLIENT:
      if (b[j] === 34) {
        const end = stringEnd(j);
        if (end === DECLINE || end - j === 2) return DECLINE;
        out.client = text(j + 1, end - 1);
        return end;
      } else {
        const end = integerEnd(j, false);
        out.client = num;
        return end;
      }
    case INPUT:
      return inputEnd(j, out);
    case CALL: {
      const end = integerEnd(j, false);
      out.call = num;
      return end;
    }
    case RETURN: {
      const end = integerEnd(j, false);
      out.ret = num;
      return end;
    }
    case OUTPUT: {
      const end = valueEnd(j, 1);
      out.output = scanned;
      return end;
    }
    default:
      return statusEnd(j, out);
  }
}

/**
 * Reads the line of `bytes` that begins at `start` as a native operation into `out`, and
 * returns the position of its newline; or DECLINE (-1) when it does not vouch for the line:
 * the general path (json.ts, records.ts) then reads it. `bytes` are ASCII and every line in
 * them ends with a newline. `out` is overwritten either way.
 */
export function scanOperation(bytes: Buffer, start: number, maxDepth: number, out: ScannedOperation): number {
  b = bytes;
  depthLimit = maxDepth;
  out.key = out.value = out.ret = out.output = out.status = undefined;
  let i = ws(start);
  if (b[i] !== 123 || maxDepth < 1) return DECLINE;
  let seen = 0;
  i = ws(i + 1);
  for (;;) {
    if (b[i] !== 34) return DECLINE;
    const field = recordField(i);
    if (field === 0 || (seen & field) !== 0) return DECLINE;
    seen |= field;
    i = afterColon(i, field);
    if (i === DECLINE) return DECLINE;
    i = fieldEnd(i, field, out);
    if (i === DECLINE) return DECLINE;
    i = ws(i);
    const c = b[i];
    if (c === 125) break;
    if (c !== 44) return DECLINE;
    i = ws(i + 1);
  }
  i = ws(i + 1);
  return b[i] === 10 && (seen & (CLIENT | INPUT | CALL)) === (CLIENT | INPUT | CALL) ? i : DECLINE;
}
