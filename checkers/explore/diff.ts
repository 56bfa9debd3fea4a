// What a step changed: the paths in a plain-data state whose values differ, with the
// values before and after. Shown under each step of a counterexample.

import type { Change } from './types.ts';

export function diff(before: unknown, after: unknown, path = '', out: Change[] = []): Change[] {
  if (Object.is(before, after)) return out;
  if (isList(before) && isList(after)) {
    const n = Math.max(before.length, after.length);
    if (before.length !== after.length) out.push({ path: `${path}.length`, before: before.length, after: after.length });
    for (let i = 0; i < n; i++) diff(before[i], after[i], `${path}[${i}]`, out);
    return out;
  }
  if (before instanceof Map && after instanceof Map) {
    const keys = new Set([...before.keys(), ...after.keys()]);
    for (const k of keys) diff(before.get(k), after.get(k), `${path}[${JSON.stringify(k) ?? String(k)}]`, out);
    return out;
  }
  if (isRecord(before) && isRecord(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const k of keys) diff(before[k], after[k], path ? `${path}.${k}` : k, out);
    return out;
  }
  if (before instanceof Set && after instanceof Set) {
    if (before.size === after.size && [...before].every((x) => after.has(x))) return out;
  }
  out.push({ path: path || '(state)', before, after });
  return out;
}

function isList(v: unknown): v is ArrayLike<unknown> {
  return Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
