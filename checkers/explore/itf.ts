// Counterexamples as ITF, the Informal Trace Format of Apalache and Quint (ADR-015), so
// that they open in the tools that read it. A plain-object state gives one ITF variable
// per field; any other state is one variable named "state". Each state also carries the
// action that produced it as `mbt::actionTaken`, as Quint's model-based-testing output does.

import type { Counterexample } from './types.ts';

export type ItfValue =
  | boolean
  | string
  | number
  | ItfValue[]
  | { '#bigint': string }
  | { '#tup': ItfValue[] }
  | { '#set': ItfValue[] }
  | { '#map': [ItfValue, ItfValue][] }
  | { '#unserializable': string }
  | { [field: string]: ItfValue };

export interface ItfTrace {
  '#meta': Record<string, unknown>;
  vars: string[];
  states: Record<string, unknown>[];
  loop?: number;
}

/** One value as an ITF expression. Integers are written as `#bigint`, as Quint does. */
export function toItf(v: unknown): ItfValue {
  switch (typeof v) {
    case 'boolean':
    case 'string':
      return v;
    case 'number':
      return Number.isSafeInteger(v) ? { '#bigint': String(v) } : { '#unserializable': String(v) };
    case 'bigint':
      return { '#bigint': v.toString() };
    case 'undefined':
      return { '#unserializable': 'undefined' };
    case 'object':
      break;
    default:
      return { '#unserializable': String(v) };
  }
  if (v === null) return { '#unserializable': 'null' };
  if (Array.isArray(v)) return v.map(toItf);
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<unknown>, toItf);
  if (v instanceof Set) return { '#set': [...v].map(toItf) };
  if (v instanceof Map) return { '#map': [...v].map(([k, x]): [ItfValue, ItfValue] => [toItf(k), toItf(x)]) };
  const record: Record<string, ItfValue> = Object.create(null);
  for (const [k, x] of Object.entries(v)) record[k.startsWith('#') ? `_${k}` : k] = toItf(x);
  return record;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || ArrayBuffer.isView(v)) return false;
  if (v instanceof Map || v instanceof Set) return false;
  return true;
}

export function counterexampleToItf(c: Counterexample, meta: Record<string, unknown> = {}): ItfTrace {
  const states = [c.initial, ...c.steps.map((s) => s.state)];
  const actions = ['init', ...c.steps.map((s) => s.action.label)];
  const fields = states.every(isRecord) ? [...new Set(states.flatMap((s) => Object.keys(s as object)))] : undefined;
  const vars = fields ? fields.map((k) => (k.startsWith('#') ? `_${k}` : k)) : ['state'];
  return {
    '#meta': {
      format: 'ITF',
      'format-description': 'https://apalache-mc.org/docs/adr/015adr-trace.html',
      source: 'interleave',
      status: 'violation',
      description: `${c.property}: ${c.message}`,
      timestamp: Date.now(),
      ...meta,
    },
    vars: [...vars, 'mbt::actionTaken'],
    states: states.map((s, index) => ({
      '#meta': { index },
      ...(fields ? (toItf(s) as Record<string, ItfValue>) : { state: toItf(s) }),
      'mbt::actionTaken': actions[index],
    })),
    ...(c.lassoStart !== undefined ? { loop: c.lassoStart } : {}),
  };
}
