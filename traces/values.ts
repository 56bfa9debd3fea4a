// EDN values made safe to hand to models: plain data, no prototype keys, bounded nesting,
// and never two different EDN values made one. Keywords and symbols become their names
// (Jepsen's JSON form does the same), so a history that spells one name two ways (:a and
// "a", 1 and 1.0) is refused rather than read as if they were equal; sets become
// `{"#set": [members]}` with their members in a canonical order, so that #{1 2} equals
// #{2 1} and differs from [1 2].
import { InputError } from './errors.ts';
import { EdnChar, EdnFloat, EdnMap, EdnSet, EdnSymbol, Keyword, type Edn } from './edn.ts';

const FORBIDDEN_KEY = '__proto__';
/** The key of a converted set; refused as a map key so that no map can pass for a set. */
export const SET_KEY = '#set';

function forbidden(file: string, line: number): InputError {
  return new InputError(file, line, 'no "__proto__" key (refused: it could pollute object prototypes)');
}

/**
 * The spellings of the atoms of one field across a history: a name or number must be
 * spelled one way (keyword, symbol, string or character; integer, float or decimal),
 * since the conversion to plain data would make the spellings equal.
 */
export class Spellings {
  private readonly seen = new Map<string, { kind: string; line: number }>();

  constructor(private readonly field: string) {}

  note(key: string, kind: string, shown: string, file: string, line: number): void {
    const prior = this.seen.get(key);
    if (prior === undefined) this.seen.set(key, { kind, line });
    else if (prior.kind !== kind) {
      throw new InputError(file, line, `one spelling per ${this.field}: ${shown} is ${kind} here and ${prior.kind} on line ${prior.line}; EDN keeps them apart, but they would read as one value`);
    }
  }
}

/** JSON text of plain data with object keys sorted: equal values have one text. */
export function canonicalText(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalText).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonicalText(o[k])}`).join(',')}}`;
  }
  return v === undefined ? 'null' : JSON.stringify(v);
}

/** An EDN value as plain JS data; maps become null-prototype objects with string keys. */
export function ednToJs(v: Edn, file: string, line: number, spellings?: Spellings): unknown {
  if (v === null || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    spellings?.note(`n${v}`, 'an integer', String(v), file, line);
    return v;
  }
  if (typeof v === 'string') {
    spellings?.note(`s${v}`, 'a string', JSON.stringify(v), file, line);
    return v;
  }
  if (typeof v === 'bigint') throw new InputError(file, line, `an integer within ±(2^53 − 1), not ${v}`);
  if (v instanceof Keyword) {
    spellings?.note(`s${v.name}`, 'a keyword', `:${v.name}`, file, line);
    return v.name;
  }
  if (v instanceof EdnSymbol) {
    spellings?.note(`s${v.name}`, 'a symbol', v.name, file, line);
    return v.name;
  }
  if (v instanceof EdnChar) {
    spellings?.note(`s${v.char}`, 'a character', JSON.stringify(v.char), file, line);
    return v.char;
  }
  if (v instanceof EdnFloat) {
    spellings?.note(`n${v.value}`, v.decimal ? 'a decimal (M)' : 'a float', String(v.value), file, line);
    return v.value;
  }
  if (Array.isArray(v)) return v.map((x) => ednToJs(x, file, line, spellings));
  if (v instanceof EdnSet) return setToJs(v, file, line, spellings);
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, x] of (v as EdnMap).entries) {
    let key: string;
    let kind: string;
    if (k instanceof Keyword) (key = k.name), (kind = 'a keyword');
    else if (k instanceof EdnSymbol) (key = k.name), (kind = 'a symbol');
    else if (typeof k === 'string') (key = k), (kind = 'a string');
    else if (typeof k === 'number') (key = String(k)), (kind = 'an integer');
    else throw new InputError(file, line, 'map keys that are keywords, symbols, strings or integers');
    if (key === FORBIDDEN_KEY) throw forbidden(file, line);
    if (key === SET_KEY) throw new InputError(file, line, `no "${SET_KEY}" map key (it is how sets are written once read)`);
    if (Object.hasOwn(out, key)) throw new InputError(file, line, `map keys that stay distinct as strings (two keys read as ${JSON.stringify(key)}: :k, k, "k" and an integer's digits all do)`);
    spellings?.note(`k${key}`, kind, `the map key ${JSON.stringify(key)}`, file, line);
    out[key] = ednToJs(x, file, line, spellings);
  }
  return out;
}

function setToJs(v: EdnSet, file: string, line: number, spellings?: Spellings): unknown {
  const members = v.items.map((x) => {
    const value = ednToJs(x, file, line, spellings);
    return { value, text: canonicalText(value) };
  });
  members.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  for (let i = 1; i < members.length; i++) {
    if (members[i]!.text === members[i - 1]!.text) throw new InputError(file, line, `a set whose members stay distinct (${members[i]!.text.slice(0, 40)} appears twice)`);
  }
  const out: Record<string, unknown> = Object.create(null);
  out[SET_KEY] = members.map((m) => m.value);
  return out;
}

/** The members of a converted set, or undefined when v is not one. */
export function setMembers(v: unknown): unknown[] | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  return keys.length === 1 && keys[0] === SET_KEY ? ((v as Record<string, unknown>)[SET_KEY] as unknown[]) : undefined;
}
