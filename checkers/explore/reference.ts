// The plain algorithm: breadth-first search storing whole states under their canonical JSON
// encoding. Slow and memory-hungry, but short enough to trust; every optimised search is
// tested against it on the same inputs.

import type { Action, Machine } from './types.ts';

export interface ReferenceViolation {
  property: string;
  message: string;
  /** Actions from an initial state; `states[0]` is that initial state. */
  path: Action[];
  states: unknown[];
}

export interface ReferenceResult {
  states: number;
  transitions: number;
  depth: number;
  violation?: ReferenceViolation;
  /** True when maxStates stopped the search before it covered the space. */
  incomplete: boolean;
}

/**
 * A deterministic encoding of plain data: object keys sorted, so equal states encode
 * equally; and, unlike JSON, undefined, NaN, ±Infinity and -0 keep their own spelling.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (value === undefined) return 'undefined';
    if (typeof value === 'bigint') return `${value}n`;
    if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Map) {
    const entries = [...value.entries()].map(([k, v]) => `${canonicalJson(k)}:${canonicalJson(v)}`);
    return `M{${entries.sort().join(',')}}`;
  }
  if (value instanceof Set) return `S[${[...value].map(canonicalJson).sort().join(',')}]`;
  if (ArrayBuffer.isView(value)) return `[${Array.from(value as unknown as ArrayLike<number>).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

export function referenceBfs<S, A extends Action>(
  machine: Machine<S, A>,
  options: { maxStates?: number; checkDeadlock?: boolean } = {},
): ReferenceResult {
  const maxStates = options.maxStates ?? Infinity;
  const checkDeadlock = options.checkDeadlock ?? machine.mayStop !== undefined;
  const key = (s: S) => canonicalJson(machine.view ? machine.view(s) : s);
  // parent links: index of predecessor and the action taken from it
  const states: S[] = [];
  const parent: number[] = [];
  const via: (A | undefined)[] = [];
  const level: number[] = [];
  const seen = new Map<string, number>();
  let transitions = 0;

  const trace = (i: number): { path: A[]; states: S[] } => {
    const path: A[] = [];
    const chain: S[] = [];
    for (let j = i; j >= 0; j = parent[j]) {
      chain.push(states[j]);
      if (parent[j] >= 0) path.push(via[j]!);
    }
    return { path: path.reverse(), states: chain.reverse() };
  };
  const check = (i: number): ReferenceViolation | undefined => {
    for (const [name, inv] of Object.entries(machine.invariants)) {
      const verdict = inv(states[i]);
      if (verdict !== true) return { property: name, message: verdict, ...trace(i) };
    }
    return undefined;
  };
  const add = (s: S, from: number, a: A | undefined): number | ReferenceViolation => {
    const k = key(s);
    const known = seen.get(k);
    if (known !== undefined) return known;
    if (states.length >= maxStates) return -1;
    const i = states.length;
    states.push(s);
    parent.push(from);
    via.push(a);
    level.push(from < 0 ? 0 : level[from] + 1);
    seen.set(k, i);
    return check(i) ?? i;
  };

  for (const s of machine.init()) {
    const r = add(s, -1, undefined);
    if (typeof r !== 'number') return { states: states.length, transitions, depth: 0, violation: r, incomplete: false };
  }
  for (let i = 0; i < states.length; i++) {
    const s = states[i];
    const enabled = machine.actions(s);
    if (enabled.length === 0 && checkDeadlock && !(machine.mayStop?.(s) ?? true)) {
      const result = { states: states.length, transitions, depth: level[states.length - 1] };
      return { ...result, violation: { property: 'deadlock', message: 'no action is enabled', ...trace(i) }, incomplete: false };
    }
    for (const a of enabled) {
      transitions++;
      const r = add(machine.next(s, a), i, a);
      if (r === -1) return { states: states.length, transitions, depth: level[states.length - 1], incomplete: true };
      if (typeof r !== 'number') {
        return { states: states.length, transitions, depth: level[states.length - 1], violation: r, incomplete: false };
      }
    }
  }
  return { states: states.length, transitions, depth: states.length ? level[states.length - 1] : 0, incomplete: false };
}
