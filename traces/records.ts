// What the importers need of a record on the way in, without zod: the native records'
// checks written out by hand, and how a value is shown in a message. zod's schemas
// (schemas.ts) are loaded only when a record is refused (to say what is wrong) or a format
// needs them (EDN, Jepsen's JSON): zod's modules were ~80 ms of `interleave lin`'s start-up
// (issue 21; lazy-schemas.ts).
import type { NativeCall, NativeOperation, NativeReturn } from './schemas.ts';

// The native records' schemas written out by hand, for JSON values (what JSON.parse
// returns): each says yes exactly when the zod schema's safeParse succeeds. Importers try
// these first and ask zod only for a record they refuse, to say what is wrong: zod's
// parse of an object per line was a third of reading a 100,000-line history (issue 21).
// schemas.test.ts holds each to its zod schema.

const OPERATION_KEYS = new Set(['client', 'input', 'call', 'return', 'output', 'status']);
const CALL_KEYS = new Set(['type', 'id', 'client', 'input']);
const RETURN_KEYS = new Set(['type', 'id', 'client', 'output', 'status']);
const INPUT_KEYS = new Set(['f', 'key', 'value']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function onlyKeys(o: Record<string, unknown>, keys: Set<string>): boolean {
  for (const k in o) if (!Object.hasOwn(o, k) || !keys.has(k)) return false;
  return true;
}

function isClient(v: unknown): boolean {
  return typeof v === 'string' ? v.length > 0 : typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function isTime(v: unknown): boolean {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

function isStatus(v: unknown): boolean {
  return v === undefined || v === 'ok' || v === 'info' || v === 'fail';
}

function isNativeInput(v: unknown): boolean {
  if (!isPlainObject(v) || !onlyKeys(v, INPUT_KEYS)) return false;
  return typeof v.f === 'string' && v.f.length > 0 && (v.key === undefined || typeof v.key === 'string');
}

/** NativeOperation.safeParse(v).success, for a JSON value. */
export function isNativeOperation(v: unknown): v is NativeOperation {
  if (!isPlainObject(v) || !onlyKeys(v, OPERATION_KEYS)) return false;
  return isClient(v.client) && isNativeInput(v.input) && isTime(v.call) && (v.return === undefined || isTime(v.return)) && isStatus(v.status);
}

/** NativeEvent.safeParse(v).success, for a JSON value. */
export function isNativeEvent(v: unknown): v is NativeCall | NativeReturn {
  if (!isPlainObject(v)) return false;
  if (v.type === 'call') return onlyKeys(v, CALL_KEYS) && isClient(v.id) && isClient(v.client) && isNativeInput(v.input);
  if (v.type === 'return') return onlyKeys(v, RETURN_KEYS) && isClient(v.id) && (v.client === undefined || isClient(v.client)) && isStatus(v.status);
  return false;
}

/** A field path written the way the format writes it: "input"."f" or :process. */
export type FieldStyle = 'json' | 'edn';

export function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  let s: string;
  try {
    s = typeof v === 'bigint' ? `${v}` : (JSON.stringify(v) ?? String(v));
  } catch {
    s = String(v);
  }
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

