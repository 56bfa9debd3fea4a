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
  return checkRaw(text, file, line, maxDepth) ? positiveZero(value) : value;
}
