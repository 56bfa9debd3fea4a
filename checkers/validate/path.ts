// Reading a spec variable by path ("rep[1]", "cl[2].vOld", "nodes.n1.log") and comparing
// plain values, for the observations events report.

const NOTHING = Symbol('nothing');

/** The value at `path` in `state`, or undefined when the path names nothing there. */
export function getPath(state: unknown, path: string): unknown {
  let v: unknown = state;
  let i = 0;
  while (i < path.length) {
    let key: string;
    if (path[i] === '[') {
      const j = path.indexOf(']', i);
      if (j < 0) return undefined;
      key = path.slice(i + 1, j);
      i = j + 1;
    } else {
      if (path[i] === '.') i++;
      let j = i;
      while (j < path.length && path[j] !== '.' && path[j] !== '[') j++;
      key = path.slice(i, j);
      i = j;
    }
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
