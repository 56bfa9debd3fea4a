// The zod schemas of every history record the importers accept, and the translation of a
// zod failure into the "what was expected" of an InputError.
import { z } from 'zod';
import { show, type FieldStyle } from './records.ts';

const client = z.union([z.number().int().nonnegative(), z.string().min(1)], {
  error: 'an integer ≥ 0 or a non-empty string',
});
const time = z.number({ error: 'a number' }).nonnegative({ error: 'a time ≥ 0' });
const status = z.enum(['ok', 'info', 'fail'], { error: '"ok", "info" or "fail"' });

/** `{"f": "cas", "key"?: "k", "value"?: [1, 2]}` — the shared history input. */
export const NativeInput = z.strictObject(
  {
    f: z.string({ error: 'a function name string like "read"' }).min(1, { error: 'a non-empty function name' }),
    key: z.string({ error: 'a string' }).optional(),
    value: z.unknown().optional(),
  },
  { error: 'an object {"f": …, "key"?: …, "value"?: …}' },
);

/** One operation per line. */
export const NativeOperation = z.strictObject({
  client,
  input: NativeInput,
  call: time,
  return: time.optional(),
  output: z.unknown().optional(),
  status: status.optional(),
});

/** One event per line: a call, or the return of the call with the same id. */
export const NativeCall = z.strictObject({
  type: z.literal('call'),
  id: client,
  client,
  input: NativeInput,
});

export const NativeReturn = z.strictObject({
  type: z.literal('return'),
  id: client,
  client: client.optional(),
  output: z.unknown().optional(),
  status: status.optional(),
});

export const NativeEvent = z.discriminatedUnion('type', [NativeCall, NativeReturn], {
  error: '"type": "call" or "return"',
});

/**
 * A Jepsen operation (EDN map with keywords read as strings, or Jepsen's JSON form).
 * Other keys (:time, :index, :error, ...) are ignored: the file's order is the real-time order.
 */
export const JepsenOp = z.object({
  process: z.union([z.number().int().nonnegative(), z.string().min(1)], {
    error: 'an integer ≥ 0 or a keyword like :nemesis',
  }),
  type: z.enum(['invoke', 'ok', 'fail', 'info'], { error: 'one of :invoke, :ok, :fail, :info' }),
  f: z.string({ error: 'a keyword like :read' }).min(1),
  key: z.union([z.string(), z.number().int()], { error: 'a string or an integer' }).optional(),
  value: z.unknown().optional(),
});

export type NativeOperation = z.infer<typeof NativeOperation>;
export type NativeCall = z.infer<typeof NativeCall>;
export type NativeReturn = z.infer<typeof NativeReturn>;
export type JepsenOp = z.infer<typeof JepsenOp>;

// The hand-written checks live in records.ts (without zod); re-exported for the tests and
// protocol-trace.ts.
export { isNativeEvent, isNativeOperation, show, type FieldStyle } from './records.ts';

function fieldName(path: readonly PropertyKey[], style: FieldStyle): string {
  return path.map((p) => (style === 'edn' ? `:${String(p)}` : JSON.stringify(String(p)))).join(' → ');
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v = data;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = Object.hasOwn(v, p) ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  }
  return v;
}

/** The first zod issue as an expectation: `"call" to be a time ≥ 0 (got -1)`. */
export function expectedFromZod(error: z.ZodError, data: unknown, style: FieldStyle): string {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => fieldName([...issue.path, k], style)).join(', ');
    return `only the documented fields${issue.path.length ? ` in ${fieldName(issue.path, style)}` : ''} (unknown: ${keys})`;
  }
  if (issue.path.length === 0) return issue.message;
  const got = valueAt(data, issue.path);
  const what = got === undefined ? 'missing' : `got ${show(got)}`;
  return `${fieldName(issue.path, style)} to be ${issue.message} (${what})`;
}
