// EDN and JSON values made safe to hand to models: plain data, no prototype keys, bounded
// nesting. EDN keywords and symbols become their names (Jepsen's JSON form does the same).
import { InputError } from './errors.ts';
import { EdnMap, EdnSet, EdnSymbol, Keyword, type Edn } from './edn.ts';

const FORBIDDEN_KEY = '__proto__';

function forbidden(file: string, line: number): InputError {
  return new InputError(file, line, 'no "__proto__" key (refused: it could pollute object prototypes)');
}

/** An EDN value as plain JS data; maps become null-prototype objects with string keys. */
export function ednToJs(v: Edn, file: string, line: number): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v === 'bigint') throw new InputError(file, line, `an integer within ±(2^53 − 1), not ${v}`);
  if (v instanceof Keyword || v instanceof EdnSymbol) return v.name;
  if (Array.isArray(v)) return v.map((x) => ednToJs(x, file, line));
  if (v instanceof EdnSet) return v.items.map((x) => ednToJs(x, file, line));
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, x] of (v as EdnMap).entries) {
    let key: string;
    if (k instanceof Keyword || k instanceof EdnSymbol) key = k.name;
    else if (typeof k === 'string' || typeof k === 'number') key = String(k);
    else throw new InputError(file, line, 'map keys that are keywords, strings or numbers');
    if (key === FORBIDDEN_KEY) throw forbidden(file, line);
    out[key] = ednToJs(x, file, line);
  }
  return out;
}

/** Parses one JSON text; refuses `__proto__` keys and nesting deeper than maxDepth. */
export function parseJson(text: string, file: string, line: number, maxDepth: number): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new InputError(file, line, `a JSON object (${(e as Error).message})`);
  }
  checkJson(value, 0, file, line, maxDepth);
  return value;
}

function checkJson(v: unknown, depth: number, file: string, line: number, maxDepth: number): void {
  if (v === null || typeof v !== 'object') return;
  if (depth >= maxDepth) throw new InputError(file, line, `JSON nested at most ${maxDepth} deep`);
  if (Array.isArray(v)) {
    for (const x of v) checkJson(x, depth + 1, file, line, maxDepth);
    return;
  }
  for (const key of Object.keys(v)) {
    if (key === FORBIDDEN_KEY) throw forbidden(file, line);
    checkJson((v as Record<string, unknown>)[key], depth + 1, file, line, maxDepth);
  }
}
