// Reading a spec variable by path ("rep[1]", "cl[2].vOld", "nodes.n1.log") and comparing
// plain values, for the observations events report.

const NOTHING = Symbol('nothing');

/** A path's keys: "cl[2].vNew" → ["cl", "2", "vNew"]; or what a well-formed path would have there. */
export function parsePath(path: string): string[] | string {
  const keys: string[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '[') {
      const j = path.indexOf(']', i);
      if (j < 0) return `a "]" closing the "[" at character ${i + 1}`;
      const key = path.slice(i + 1, j);
      if (key === '' || key.includes('[')) return `an index between the "[" at character ${i + 1} and its "]"`;
      keys.push(key);
      i = j + 1;
    } else {
      // A dot separates names; a path starts with a name.
      if (path[i] === '.' && keys.length > 0) i++;
      let j = i;
      while (j < path.length && path[j] !== '.' && path[j] !== '[') j++;
      const key = path.slice(i, j);
      if (key === '' || key.includes(']')) return `a name at character ${i + 1}`;
      keys.push(key);
      i = j;
    }
  }
  return keys.length > 0 ? keys : 'a spec variable';
}

// Observations name few distinct paths: each is split once.
const parsed = new Map<string, string[] | string>();

/** The value at `path` in `state`, or undefined when the path names nothing there. */
export function getPath(state: unknown, path: string): unknown {
  let keys = parsed.get(path);
  if (keys === undefined) {
    keys = parsePath(path);
    if (parsed.size < 10_000) parsed.set(path, keys);
  }
  if (typeof keys === 'string') return undefined;
  let v: unknown = state;
  for (const key of keys) {
    v = child(v, key);
    if (v === NOTHING) return undefined;
  }
  return v;
}

/**
 * Why `keys` can name nothing in a state shaped like `init` (a partition's initial state),
 * or undefined when they may (checkers/validate/README.md, "Observation paths"): a record
 * has its fields from the start, and an array with entries from the start has one per
 * replica or process of the config; a Map, an empty array or record, and null may fill later,
 * so what lies below them is compared, not judged.
 */
export function shapeComplaint(init: unknown, keys: readonly string[]): string | undefined {
  let v = init;
  let at = '';
  for (const key of keys) {
    if (v === null || v === undefined || v instanceof Map) return undefined;
    if (Array.isArray(v) || ArrayBuffer.isView(v)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key)) return `${at} is a list, indexed by a number, not ${JSON.stringify(key)}`;
      const n = (v as ArrayLike<unknown>).length;
      if (n === 0) return undefined;
      if (Number(key) >= n) return `${at} has ${n} entr${n === 1 ? 'y' : 'ies'} (${at}[0]..${at}[${n - 1}])`;
      v = (v as ArrayLike<unknown>)[Number(key)];
      at = `${at}[${key}]`;
      continue;
    }
    if (typeof v !== 'object') return `${at} is a ${typeof v}, with no ${JSON.stringify(key)}`;
    const fields = Object.keys(v);
    if (fields.length === 0) return undefined;
    if (!Object.hasOwn(v, key)) return at === '' ? `the spec has no variable ${JSON.stringify(key)} (it has ${fields.join(', ')})` : `${at} has no field ${JSON.stringify(key)} (it has ${fields.join(', ')})`;
    v = (v as Record<string, unknown>)[key];
    at = at === '' ? key : `${at}.${key}`;
  }
  return undefined;
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
