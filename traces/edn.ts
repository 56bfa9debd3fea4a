// A small EDN reader for untrusted Jepsen histories (https://github.com/edn-format/edn).
// Hand-written rather than taken from npm because the importer needs what the EDN
// libraries do not give together: the line of every form for error messages, a nesting
// limit instead of a stack overflow, maps that cannot pollute prototypes, and reading a
// history element by element so that a huge `[...]` is never held whole.
//
// Read: nil, true, false, integers (N suffix), floats (M suffix), strings with escapes,
// characters, keywords, symbols, lists, vectors, maps, sets, comments, `#_` discard, and
// Jepsen's record literal `#jepsen.history.Op{...}` (read as its map). Any other tagged
// literal (#inst, #uuid, ...) is refused with an InputError, as are values the reader
// could not keep apart: integers with leading zeros (octal in Clojure), decimals (M) that
// a float does not hold exactly, and maps or sets that repeat a key or member. Reading
// is linear in the text, and no input can overflow the stack: collections and tags count
// against the depth limit, and chains of `#_` are read in a loop.
import { InputError } from './errors.ts';
import { decimalKey } from './json.ts';
import { formatBytes, type Limits } from './limits.ts';

export class Keyword {
  constructor(readonly name: string) {}
}

export class EdnSymbol {
  constructor(readonly name: string) {}
}

export class EdnSet {
  constructor(readonly items: Edn[]) {}
}

/** A character literal (\a, \newline): not the string "a", as in Clojure. */
export class EdnChar {
  constructor(readonly char: string) {}
}

/**
 * A floating-point literal: not the integer of the same value (in Clojure `(= 1 1.0)` is
 * false). `decimal` for the M suffix (a BigDecimal, read here only when a float holds it
 * exactly).
 */
export class EdnFloat {
  constructor(
    readonly value: number,
    readonly decimal = false,
  ) {}
}

/** A map in file order. History maps are small: lookups scan. */
export class EdnMap {
  constructor(readonly entries: ReadonlyArray<readonly [Edn, Edn]>) {}
  get(keyword: string): Edn | undefined {
    for (const [k, v] of this.entries) if (k instanceof Keyword && k.name === keyword) return v;
    return undefined;
  }
}

export type Edn = null | boolean | number | bigint | string | Keyword | EdnSymbol | EdnChar | EdnFloat | Edn[] | EdnSet | EdnMap;

export interface Form {
  value: Edn;
  /** The line the form starts on. */
  line: number;
}

/** Record literals read as plain maps: Jepsen 0.3 prints histories with them. */
const RECORD_TAGS = new Set(['jepsen.history.Op']);

const CLOSER: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
const NAMED_CHARS: Record<string, string> = { newline: '\n', return: '\r', space: ' ', tab: '\t', backspace: '\b', formfeed: '\f' };
const STRING_ESCAPES: Record<string, string> = { t: '\t', r: '\r', n: '\n', '\\': '\\', '"': '"', b: '\b', f: '\f' };

/** Character classes of ASCII codes: 1 whitespace (commas included), 2 other delimiter. */
const CLASS = new Uint8Array(128);
for (const c of ' \t\n\r,\f\v') CLASS[c.charCodeAt(0)] = 1;
for (const c of '()[]{}";') CLASS[c.charCodeAt(0)] = 2;

function isWhitespace(c: string): boolean {
  const code = c.charCodeAt(0);
  return code < 128 && CLASS[code] === 1;
}

function isDelimiterCode(code: number): boolean {
  return code < 128 && CLASS[code] !== 0;
}

const INTEGER = /^[+-]?\d+N?$/;
const FLOAT = /^[+-]?\d+(\.\d*)?([eE][+-]?\d+)?M?$/;

/** Reads every form of `text`, whose first line is `firstLine` of `file`. */
export function readForms(text: string, file: string, firstLine: number, limits: Pick<Limits, 'maxDepth'>): Form[] {
  const reader = new Reader(text, file, firstLine, limits.maxDepth);
  const forms: Form[] = [];
  for (;;) {
    const form = reader.next();
    if (form === undefined) return forms;
    forms.push(form);
  }
}

class Reader {
  private pos = 0;
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly file: string,
    private line: number,
    private readonly maxDepth: number,
  ) {}

  /** The next top-level form, or undefined at the end of the text. */
  next(): Form | undefined {
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.text.length) return undefined;
      const c = this.text[this.pos]!;
      if (c === ')' || c === ']' || c === '}') this.fail(`a form, not a closing ${c} without its opening bracket`);
      const line = this.line;
      const value = this.read();
      if (value !== DISCARDED) return { value, line };
    }
  }

  private fail(expected: string, line = this.line): never {
    throw new InputError(this.file, line, expected);
  }

  private skipSpace(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const code = t.charCodeAt(this.pos);
      if (code === 10) {
        this.line++;
        this.pos++;
      } else if (code < 128 && CLASS[code] === 1) {
        this.pos++;
      } else if (code === 59) {
        const end = t.indexOf('\n', this.pos);
        this.pos = end === -1 ? t.length : end;
      } else {
        return;
      }
    }
  }

  /** One form; the caller has skipped whitespace and is not at the end. */
  private read(): Edn | typeof DISCARDED {
    const c = this.text[this.pos]!;
    if (c === '"') return this.readString();
    if (c === '(' || c === '[') return this.readSequence(c);
    if (c === '{') return new EdnMap(this.readMapEntries(this.readSequence('{')));
    if (c === '\\') return this.readChar();
    if (c === '#') return this.readDispatch();
    return this.readToken();
  }

  private readDispatch(): Edn | typeof DISCARDED {
    const line = this.line;
    const next = this.text[this.pos + 1];
    if (next === '{') {
      this.pos++;
      return new EdnSet(this.readSetItems(this.readSequence('{')));
    }
    if (next === '_') {
      this.pos += 2;
      this.discard();
      return DISCARDED;
    }
    if (next === '#') this.fail('a finite number (##Inf, ##-Inf and ##NaN are not history values)');
    this.pos++;
    const tag = this.token();
    this.pos += tag.length;
    if (tag === '' || !/^[A-Za-z]/.test(tag)) this.fail('a tag, a set #{…} or a discard #_ after #');
    if (!RECORD_TAGS.has(tag)) this.fail(`plain EDN values (the tagged literal #${tag} is not read; only #jepsen.history.Op{…} records are)`, line);
    // A tag nests its form: a chain of tags counts against the depth limit.
    if (++this.depth > this.maxDepth) this.fail(`collections nested at most ${this.maxDepth} deep`);
    const value = this.readRequired(`a map after #${tag}`);
    this.depth--;
    if (!(value instanceof EdnMap)) this.fail(`a map after #${tag}`, line);
    return value;
  }

  /**
   * After `#_`: reads and drops the next form. `#_ #_ a b` drops both a and b, so a chain
   * of discards is a count of forms still to drop, read in a loop rather than by recursion.
   */
  private discard(): void {
    for (let pending = 1; pending > 0; ) {
      this.skipSpace();
      if (this.pos >= this.text.length) this.fail('a form after #_');
      const c = this.text[this.pos]!;
      if (c === ')' || c === ']' || c === '}') this.fail('a form after #_');
      if (c === '#' && this.text[this.pos + 1] === '_') {
        this.pos += 2;
        pending++;
        continue;
      }
      this.read();
      pending--;
    }
  }

  /** A form that must be there (after a tag); a discarded form does not count. */
  private readRequired(expected: string): Edn {
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.text.length) this.fail(expected);
      const c = this.text[this.pos]!;
      if (c === ')' || c === ']' || c === '}') this.fail(expected);
      const value = this.read();
      if (value !== DISCARDED) return value;
    }
  }

  private readSequence(open: string): Edn[] {
    const close = CLOSER[open]!;
    const startLine = this.line;
    if (++this.depth > this.maxDepth) this.fail(`collections nested at most ${this.maxDepth} deep`);
    this.pos++;
    const items: Edn[] = [];
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.text.length) this.fail(`a closing ${close} for the ${open} opened on line ${startLine}`, startLine);
      const c = this.text[this.pos]!;
      if (c === close) {
        this.pos++;
        this.depth--;
        return items;
      }
      if (c === ')' || c === ']' || c === '}') this.fail(`a closing ${close} for the ${open} opened on line ${startLine}, not ${c}`);
      const value = this.read();
      if (value !== DISCARDED) items.push(value);
    }
  }

  private readMapEntries(items: Edn[]): [Edn, Edn][] {
    if (items.length % 2 !== 0) this.fail('a map with a value for every key (odd number of forms in {…})');
    const entries: [Edn, Edn][] = [];
    const seen = new Set<string>();
    for (let i = 0; i < items.length; i += 2) {
      const key = items[i]!;
      const scalar = scalarKey(key);
      if (scalar !== undefined) {
        if (seen.has(scalar)) this.fail(`a map without duplicate keys (${shown(key)} appears twice)`);
        seen.add(scalar);
      }
      entries.push([key, items[i + 1]!]);
    }
    return entries;
  }

  private readSetItems(items: Edn[]): Edn[] {
    const seen = new Set<string>();
    for (const item of items) {
      const scalar = scalarKey(item);
      if (scalar === undefined) continue;
      if (seen.has(scalar)) this.fail(`a set without duplicate members (${shown(item)} appears twice)`);
      seen.add(scalar);
    }
    return items;
  }

  private readString(): string {
    const t = this.text;
    const startLine = this.line;
    let from = this.pos + 1;
    // One pass: plain runs are sliced whole, escapes decoded where they stand; the parts
    // are joined once (a long chain of += builds a rope whose flattening is not linear).
    const parts: string[] = [];
    for (let j = from; ; ) {
      if (j >= t.length) this.fail(`a closing " for the string opened on line ${startLine}`, startLine);
      const c = t.charCodeAt(j);
      if (c === 34) {
        this.line += countNewlines(t, this.pos, j);
        this.pos = j + 1;
        if (parts.length === 0) return t.slice(from, j);
        parts.push(t.slice(from, j));
        return parts.join('');
      }
      if (c !== 92) {
        j++;
        continue;
      }
      if (j > from) parts.push(t.slice(from, j));
      const e = t[j + 1];
      if (e === undefined) this.fail(`a closing " for the string opened on line ${startLine}`, startLine);
      if (e === 'u') {
        const hex = t.slice(j + 2, j + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('four hex digits after \\u in a string');
        parts.push(String.fromCharCode(parseInt(hex, 16)));
        j += 6;
      } else if (STRING_ESCAPES[e] !== undefined) {
        parts.push(STRING_ESCAPES[e]);
        j += 2;
      } else {
        this.fail(`a string escape (\\" \\\\ \\n \\t \\r \\b \\f \\uXXXX), not \\${e}`);
      }
      from = j;
    }
  }

  private readChar(): EdnChar {
    this.pos++;
    const first = this.text[this.pos];
    if (first === undefined || isWhitespace(first)) this.fail('a character after \\');
    const name = first + this.token(this.pos + 1);
    this.pos += name.length;
    if (name.length === 1) return new EdnChar(name);
    if (Object.hasOwn(NAMED_CHARS, name)) return new EdnChar(NAMED_CHARS[name]!);
    if (/^u[0-9a-fA-F]{4}$/.test(name)) return new EdnChar(String.fromCharCode(parseInt(name.slice(1), 16)));
    return this.fail(`a character (\\c, \\newline, \\space, \\tab, \\uXXXX), not \\${name}`);
  }

  /** The token at `from` (default: here), up to the next delimiter; does not move. */
  private token(from = this.pos): string {
    const t = this.text;
    let end = from;
    while (end < t.length && !isDelimiterCode(t.charCodeAt(end))) end++;
    return t.slice(from, end);
  }

  private readToken(): Edn {
    const tok = this.token();
    this.pos += tok.length;
    if (tok === '') this.fail('a form');
    if (tok === 'nil') return null;
    if (tok === 'true') return true;
    if (tok === 'false') return false;
    const c = tok[0]!;
    if ((c >= '0' && c <= '9') || ((c === '+' || c === '-') && tok.length > 1 && tok[1]! >= '0' && tok[1]! <= '9')) {
      return this.number(tok);
    }
    if (c === ':') {
      const name = tok.slice(1);
      if (name === '') this.fail('a keyword like :name, not a lone : (is this JSON? read it with --format jsonl)');
      if (name.startsWith(':') || name.includes(':/')) this.fail(`a keyword like :name, not ${tok}`);
      return new Keyword(name);
    }
    if (c === '#' || c === '\'' || c === '`' || c === '~' || c === '@' || c === '^') this.fail(`an EDN form, not ${tok}`);
    return new EdnSymbol(tok);
  }

  private number(tok: string): number | bigint | EdnFloat {
    if (INTEGER.test(tok)) {
      const digits = tok.endsWith('N') ? tok.slice(0, -1) : tok;
      if (/^[+-]?0\d/.test(digits)) this.fail(`an integer without leading zeros, not ${tok} (EDN forbids them; Clojure reads them as octal)`);
      const n = Number(digits);
      if (n === 0) return 0;
      return Number.isSafeInteger(n) ? n : BigInt(digits);
    }
    if (FLOAT.test(tok)) {
      const decimal = tok.endsWith('M');
      const text = decimal ? tok.slice(0, -1) : tok;
      const n = Number(text);
      if (!Number.isFinite(n)) this.fail(`a finite number, not ${tok}`);
      if (decimal && decimalKey(text) !== decimalKey(String(n))) this.fail(`a decimal that a 64-bit float holds exactly, not ${tok} (it would read as ${n})`);
      return new EdnFloat(n === 0 ? 0 : n, decimal);
    }
    return this.fail(`a number, not ${tok}`);
  }
}

/**
 * A key that is equal for equal EDN scalars (1 and 1N are equal, 1 and 1.0 are not, nor
 * :a, a and "a"); undefined for collections, which are compared after conversion.
 */
export function scalarKey(v: Edn): string | undefined {
  if (v === null) return 'nil';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
    case 'bigint':
      return `i${v}`;
    case 'string':
      return `"${v}`;
  }
  if (v instanceof Keyword) return `:${v.name}`;
  if (v instanceof EdnSymbol) return `'${v.name}`;
  if (v instanceof EdnChar) return `\\${v.char}`;
  if (v instanceof EdnFloat) return `${v.decimal ? 'M' : 'f'}${v.value}`;
  return undefined;
}

function shown(v: Edn): string {
  if (v instanceof Keyword) return `:${v.name}`;
  if (v instanceof EdnSymbol) return v.name;
  if (v instanceof EdnChar) return `\\${v.char}`;
  if (v instanceof EdnFloat) return String(v.value);
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v);
  return String(v);
}

const DISCARDED: unique symbol = Symbol('discarded');

function countNewlines(t: string, from: number, to: number): number {
  let n = 0;
  for (let i = t.indexOf('\n', from); i !== -1 && i < to; i = t.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Cuts a stream of lines into complete EDN forms and reads them as they complete. A
 * history is either a sequence of top-level maps (usually one per line, but a map may span
 * lines) or one top-level vector or list of maps; in the second case its elements are read
 * one by one, so memory stays bounded by the longest element, not the file.
 */
export class EdnFormStream {
  private mode: 'top' | 'document' | 'after' = 'top';
  private documentClose = '';
  private documentLine = 0;
  private pending: string[] = [];
  private pendingChars = 0;
  private pendingLine = 0;
  private depth = 0;
  private inString = false;
  private sawForm = false;

  constructor(
    private readonly file: string,
    private readonly limits: Limits,
    private readonly onForm: (form: Form) => void,
  ) {}

  /** True once the history turned out to be one `[...]` or `(...)`. */
  get isDocument(): boolean {
    return this.mode !== 'top';
  }

  push(text: string, n: number): void {
    if (this.mode === 'after') {
      if (hasContent(text)) this.fail(n, `nothing after the closing ${this.documentClose} of the history opened on line ${this.documentLine}`);
      return;
    }
    let start = 0;
    if (this.mode === 'top' && !this.sawForm && this.depth === 0 && !this.inString) {
      const first = firstContent(text);
      if (first === -1) return;
      this.sawForm = true;
      const c = text[first]!;
      if (c === '[' || c === '(') {
        this.mode = 'document';
        this.documentClose = CLOSER[c]!;
        this.documentLine = n;
        this.depth = 1;
        start = first + 1;
      }
    }
    const base = this.mode === 'document' ? 1 : 0;
    const t = text;
    let i = start;
    for (; i < t.length; i++) {
      const c = t[i]!;
      if (this.inString) {
        if (c === '\\') i++;
        else if (c === '"') this.inString = false;
        continue;
      }
      if (c === '"') this.inString = true;
      else if (c === ';') break;
      else if (c === '\\') i++;
      else if (c === '(' || c === '[' || c === '{') this.depth++;
      else if (c === ')' || c === ']' || c === '}') {
        this.depth--;
        if (this.depth < base) {
          if (this.mode === 'top') this.fail(n, `a form, not a closing ${c} without its opening bracket`);
          if (c !== this.documentClose) this.fail(n, `a closing ${this.documentClose} for the history opened on line ${this.documentLine}, not ${c}`);
          this.append(t.slice(start, i), n);
          this.flush();
          this.mode = 'after';
          if (hasContent(t.slice(i + 1))) this.fail(n, `nothing after the closing ${this.documentClose} of the history opened on line ${this.documentLine}`);
          return;
        }
      }
    }
    this.append(start === 0 ? t : t.slice(start), n);
    if (this.depth === base && !this.inString) this.flush();
  }

  end(lastLine: number): void {
    if (this.mode === 'document') {
      this.fail(this.documentLine, `a closing ${this.documentClose} for the history opened on line ${this.documentLine} (end of file on line ${lastLine})`);
    }
    // Unbalanced or unterminated: the reader says what is missing and where it opened.
    this.flush();
  }

  private append(text: string, n: number): void {
    if (this.pending.length === 0) {
      if (!hasContent(text)) return;
      this.pendingLine = n;
    }
    this.pending.push(text);
    this.pendingChars += text.length + 1;
    if (this.pendingChars > this.limits.maxLineBytes) {
      this.fail(this.pendingLine, `an EDN form of at most ${formatBytes(this.limits.maxLineBytes)} (is a string or bracket opened here never closed?)`);
    }
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.join('\n');
    const line = this.pendingLine;
    this.pending = [];
    this.pendingChars = 0;
    for (const form of readForms(text, this.file, line, this.limits)) this.onForm(form);
  }

  private fail(line: number, expected: string): never {
    throw new InputError(this.file, line, expected);
  }
}

/** Index of the first character that is not whitespace or comment, or -1. */
function firstContent(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === ';') return -1;
    if (!isWhitespace(c)) return i;
  }
  return -1;
}

function hasContent(text: string): boolean {
  return firstContent(text) !== -1;
}
