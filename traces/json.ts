// JSON text read exactly or refused. JSON.parse rounds numbers to 64-bit floats without a
// word (9007199254740993 reads as ...992, 1e400 as Infinity, 1e-400 as 0), keeps the last
// of duplicate keys, and Node 20's reviver cannot see a number's source text. So one
// linear pass over the raw text checks what JSON.parse will silently change: every number
// token must be one a float holds as written, no object may repeat a key, no key may be
// `__proto__`, and nesting is bounded. Only then is the text handed to JSON.parse.
import { InputError } from './errors.ts';

const FORBIDDEN_KEY = '__proto__';

function forbidden(file: string, line: number): InputError {
  return new InputError(file, line, 'no "__proto__" key (refused: it could pollute object prototypes)');
}

/**
 * A decimal number's value as `[-]digits e exponent`, without leading or trailing zeros:
 * equal exactly when the values are equal. `s` is a JSON number or JS number text
 * (`1.5e+21`). Linear in the length of `s`.
 */
export function decimalKey(s: string): string {
  let i = 0;
  const negative = s[0] === '-';
  if (negative || s[0] === '+') i = 1;
  // The digits without the point: int part s[i, point), fraction (point, end).
  let point = -1;
  let end = i;
  for (; end < s.length; end++) {
    const c = s.charCodeAt(end);
    if (c === 46) point = end;
    else if (c < 48 || c > 57) break;
  }
  let exponent = end < s.length ? Number(s.slice(end + 1)) : 0;
  if (point >= 0) exponent -= end - point - 1;
  const digits = point < 0 ? s.slice(i, end) : s.slice(i, point) + s.slice(point + 1, end);
  let first = 0;
  while (first < digits.length && digits.charCodeAt(first) === 48) first++;
  if (first === digits.length) return '0';
  let last = digits.length;
  while (digits.charCodeAt(last - 1) === 48) last--;
  return `${negative ? '-' : ''}${digits.slice(first, last)}e${exponent + (digits.length - last)}`;
}

/**
 * Why the number token `tok` cannot be read exactly, or undefined when it can: an integer
 * must be a safe integer (|n| ≤ 2^53 − 1); any other number must be finite and be the
 * float it reads as, written in that float's shortest form or with the same value (so
 * that two different numbers in a file never read as one).
 */
export function inexactNumber(tok: string): string | undefined {
  const n = Number(tok);
  if (!/[.eE]/.test(tok)) {
    if (Number.isSafeInteger(n)) return undefined;
    return `an integer within ±(2^53 − 1), not ${clip(tok)}: a 64-bit float cannot hold it exactly (write it as a string)`;
  }
  if (!Number.isFinite(n)) return `a finite number, not ${clip(tok)} (beyond the range of a 64-bit float)`;
  if (decimalKey(tok) === decimalKey(String(n))) return undefined;
  return `a number that a 64-bit float holds as written, not ${clip(tok)} (it would read as ${n}; write ${n}, or the value as a string)`;
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

const ARRAY = 0;
const OBJECT = 1;

/**
 * Checks the raw text of a JSON value that JSON.parse accepted (so it is well formed):
 * numbers exact, keys unique and never `__proto__`, nesting at most maxDepth. Returns
 * whether some number is -0 (the caller then normalises it to 0).
 */
function checkRaw(text: string, file: string, line: number, maxDepth: number): boolean {
  const stack: number[] = [];
  const keys: (Set<string> | undefined)[] = [];
  let expectKey = false;
  let negativeZero = false;
  const len = text.length;
  for (let i = 0; i < len; ) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: find its end, skipping escapes.
      let j = i + 1;
      let escaped = false;
      for (; j < len; ) {
        const d = text.charCodeAt(j);
        if (d === 34) break;
        if (d === 92) {
          escaped = true;
          j += 2;
        } else j++;
      }
      if (expectKey) {
        const key = escaped ? (JSON.parse(text.slice(i, j + 1)) as string) : text.slice(i + 1, j);
        if (key === FORBIDDEN_KEY) throw forbidden(file, line);
        const top = keys.length - 1;
        let seen = keys[top];
        if (seen === undefined) keys[top] = seen = new Set();
        if (seen.has(key)) throw new InputError(file, line, `an object without duplicate keys (${JSON.stringify(clip(key))} appears twice: which one is meant?)`);
        seen.add(key);
        expectKey = false;
      }
      i = j + 1;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1;
      for (; j < len; j++) {
        const d = text.charCodeAt(j);
        if (!((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45)) break;
      }
      const tok = text.slice(i, j);
      const why = inexactNumber(tok);
      if (why !== undefined) throw new InputError(file, line, why);
      if (c === 45 && Number(tok) === 0) negativeZero = true;
      i = j;
    } else {
      if (c === 123 || c === 91) {
        if (stack.length >= maxDepth) throw new InputError(file, line, `JSON nested at most ${maxDepth} deep`);
        stack.push(c === 123 ? OBJECT : ARRAY);
        keys.push(undefined);
        expectKey = c === 123;
      } else if (c === 125 || c === 93) {
        stack.pop();
        keys.pop();
        expectKey = false;
      } else if (c === 44) {
        expectKey = stack[stack.length - 1] === OBJECT;
      }
      i++;
    }
  }
  return negativeZero;
}

/** quickRaw's answers: the text is exact, with or without a -0; or ask checkRaw. */
const CLEAN = 0;
const NEGATIVE_ZERO = 1;
const ASK_CHECK_RAW = 2;

// quickRaw's scratch, reused line after line: each open container's first key (in
// keyStart/keyEnd; -1: an array), and the keys of the open objects as text ranges.
let openAt: Int32Array = new Int32Array(64);
let keyStart: Int32Array = new Int32Array(256);
let keyEnd: Int32Array = new Int32Array(256);
/** Keys an object may have before quickRaw leaves it to checkRaw (it compares pairwise). */
const QUICK_KEYS = 32;

/**
 * checkRaw's common case without allocating: unescaped keys compared as text ranges,
 * integers of at most 15 characters (always exact) read without a slice. Anything it does
 * not vouch for (an escaped key, a repeated or `__proto__` key, an inexact number, deep
 * nesting, a wide object) is left to checkRaw, which says what is wrong. Linear, like
 * checkRaw (keys compared with at most QUICK_KEYS others).
 */
function quickRaw(text: string, maxDepth: number): number {
  let depth = 0;
  let keys = 0;
  let expectKey = false;
  let answer = CLEAN;
  const len = text.length;
  // Without a backslash in the line, a string ends at the next quote: found by indexOf,
  // not a character at a time (strings are most of a history's text).
  const plain = text.indexOf('\\') === -1;
  for (let i = 0; i < len; ) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      let j = i + 1;
      let escaped = false;
      if (plain) {
        j = text.indexOf('"', j);
        if (j === -1) j = len;
      } else {
        for (; j < len; j++) {
          const d = text.charCodeAt(j);
          if (d === 34) break;
          if (d === 92) {
            escaped = true;
            j++;
          }
        }
      }
      if (expectKey) {
        if (escaped) return ASK_CHECK_RAW;
        const from = openAt[depth - 1];
        const length = j - i - 1;
        if (keys - from >= QUICK_KEYS || (length === FORBIDDEN_KEY.length && text.startsWith(FORBIDDEN_KEY, i + 1))) return ASK_CHECK_RAW;
        for (let k = from; k < keys; k++) {
          if (keyEnd[k] - keyStart[k] !== length) continue;
          let same = true;
          for (let a = keyStart[k], b = i + 1; same && a < keyEnd[k]; a++, b++) same = text.charCodeAt(a) === text.charCodeAt(b);
          if (same) return ASK_CHECK_RAW;
        }
        if (keys === keyStart.length) {
          keyStart = grown(keyStart);
          keyEnd = grown(keyEnd);
        }
        keyStart[keys] = i + 1;
        keyEnd[keys++] = j;
        expectKey = false;
      }
      i = j + 1;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1;
      let integer = true;
      for (; j < len; j++) {
        const d = text.charCodeAt(j);
        if (d >= 48 && d <= 57) continue;
        if (d === 46 || d === 101 || d === 69 || d === 43 || d === 45) integer = false;
        else break;
      }
      if (!integer || j - i > 15) {
        const tok = text.slice(i, j);
        if (inexactNumber(tok) !== undefined) return ASK_CHECK_RAW;
        if (c === 45 && Number(tok) === 0) answer = NEGATIVE_ZERO;
      } else if (c === 45 && j - i === 2 && text.charCodeAt(i + 1) === 48) answer = NEGATIVE_ZERO;
      i = j;
    } else {
      if (c === 123 || c === 91) {
        if (depth >= maxDepth) return ASK_CHECK_RAW;
        if (depth === openAt.length) openAt = grown(openAt);
        openAt[depth++] = c === 123 ? keys : -1;
        expectKey = c === 123;
      } else if (c === 125 || c === 93) {
        const at = openAt[--depth];
        if (at >= 0) keys = at;
        expectKey = false;
      } else if (c === 44) {
        expectKey = depth > 0 && openAt[depth - 1] >= 0;
      }
      i++;
    }
  }
  return answer;
}

function grown(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/** Replaces -0 by 0 everywhere in v (JSON has one zero). */
function positiveZero(v: unknown): unknown {
  if (typeof v === 'number') return v === 0 ? 0 : v;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = positiveZero(v[i]);
    return v;
  }
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) o[k] = positiveZero(o[k]);
  return v;
}

/**
 * Parses one JSON text exactly, or throws an InputError naming the file and line: bad
 * syntax, a number a float cannot hold as written, a repeated key, a `__proto__` key, or
 * nesting deeper than maxDepth. Linear in the length of the text.
 */
export function parseJson(text: string, file: string, line: number, maxDepth: number): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new InputError(file, line, `a JSON object (${(e as Error).message})`);
  }
  const quick = quickRaw(text, maxDepth);
  const negativeZero = quick === ASK_CHECK_RAW ? checkRaw(text, file, line, maxDepth) : quick === NEGATIVE_ZERO;
  return negativeZero ? positiveZero(value) : value;
}
