// Reading a spec variable by path ("rep[1]", "cl[2].vOld", "nodes.n1.log") and comparing
// plain values, for the observations events report.

const NOTHING = Symbol('nothing');

/** A path's keys: "cl[2].vNew" → ["cl", "2", "vNew"] (undefined: malformed). */
function keysOf(path: string): string[] | undefined {
  const keys: string[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '[') {
      const j = path.indexOf(']', i);
      if (j < 0) return undefined;
      keys.push(path.slice(i + 1, j));
      i = j + 1;
    } else {
      if (path[i] === '.') i++;
      let j = i;
      while (j < path.length && path[j] !== '.' && path[j] !== '[') j++;
      keys.push(path.slice(i, j));
      i = j;
    }
  }
  return keys;
}

// Observations name few distinct paths: each is split once.
const parsed = new Map<string, string[] | undefined>();

/** The value at `path` in `state`, or undefined when the path names nothing there. */
export function getPath(state: unknown, path: string): unknown {
  let keys = parsed.get(path);
  if (keys === undefined && !parsed.has(path)) {
    keys = keysOf(path);
    if (parsed.size < 10_000) parsed.set(path, keys);
  }
  if (keys === undefined) return undefined;
  let v: unknown = state;
  for (const key of keys) {
    v = child(v, key);
    if (v === NOTHING) return undefined;
  }
  return v;
}

function child(v: unknown, key: string): unknown {
  if (v === null || typeof v !== 'object') return NOTHING;
  if (v instanceof Map) return v.has(key) ? v.get(key) : v.has(Number(key)) ? v.get(Number(key)) : NOTHING;
  if (Array.isArray(v) || ArrayBuffer.isView(v)) {
    const n = Number(key);
    return Number.isInteger(n) && n >= 0 && n < (v as ArrayLike<unknown>).length ? (v as ArrayLike<unknown>)[n] : NOTHING;
  }
  return Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : NOTHING;
}

/** Structural equality of plain data (numbers, strings, booleans, null, arrays, objects). */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i], bb[i])) return false;
    return true;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!Object.hasOwn(b, k) || !equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}
