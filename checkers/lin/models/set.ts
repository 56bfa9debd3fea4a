// Knossos's set: add v; read returns every member (in any order).

import { show } from '../hash.ts';
import { UNKNOWN, type Model, type Operation } from '../types.ts';

export interface SetInput {
  f: 'add' | 'read';
  value?: unknown;
}

/** Members as their canonical JSON text, sorted: equal sets are equal arrays. */
export type SetState = readonly string[];

/** JSON with object keys sorted, so that equal values have one text. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return v === undefined ? 'null' : JSON.stringify(v);
}

function members(output: unknown): string[] | undefined {
  if (!Array.isArray(output)) return undefined;
  return [...new Set(output.map(canonical))].sort();
}

function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function hashMembers(s: SetState): number {
  let h = s.length;
  for (const m of s) {
    for (let i = 0; i < m.length; i++) h = (Math.imul(h, 31) + m.charCodeAt(i)) | 0;
    h = Math.imul(h ^ 0x2c, 0x01000193);
  }
  return h;
}

/**
 * Crashed adds of a value no read returned. A member stays for good, so no read came
 * after such an add, and removing it changes no read's result.
 */
function unobserved(history: readonly Operation<SetInput, unknown>[]): boolean[] {
  const seen = new Set<string>();
  for (const op of history) {
    if (op.ret !== undefined && op.input.f === 'read' && Array.isArray(op.output)) for (const m of op.output) seen.add(canonical(m));
  }
  return history.map((op) => op.ret === undefined && op.input.f === 'add' && !seen.has(canonical(op.input.value)));
}

export const set: Model<SetState, SetInput, unknown> = {
  name: 'set',
  init: () => [],
  step(s, input, output) {
    if (input.f === 'add') {
      const m = canonical(input.value);
      if (s.includes(m)) return { ok: true, state: s };
      return { ok: true, state: [...s, m].sort() };
    }
    if (input.f === 'read') {
      if (output === UNKNOWN) return { ok: true, state: s };
      const seen = members(output);
      if (seen === undefined) throw new Error(`set: read must return an array of members, got ${show(output)}`);
      return { ok: sameMembers(seen, s), state: s };
    }
    throw new Error(`set: unknown operation ${show((input as { f: unknown }).f)}`);
  },
  readOnly: (input) => input.f === 'read',
  unobserved,
  hash: hashMembers,
  equal: sameMembers,
  describeOperation: (input, output) =>
    input.f === 'add'
      ? `add(${show(input.value)})${output === UNKNOWN ? ' -> ?' : ''}`
      : `read() -> ${output === UNKNOWN ? '?' : show(output)}`,
  describeState: (s) => `{${s.join(', ')}}`,
};
