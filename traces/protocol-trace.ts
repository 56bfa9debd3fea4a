// The protocol-trace format (traces/README.md, "Protocol traces"): what an implementation
// records, one JSON line per protocol step, for checkers/validate to match against a spec.
// Implementations in any language write it; impl/kit's recorder is one writer, and the
// validator's reader is the only reader. Ordering comes from the sequence numbers and
// message ids the events carry, never from `time`.
import { z } from 'zod';
import { InputError } from './errors.ts';
import { parseJson } from './json.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import { expectedFromZod, show } from './schemas.ts';

/** The format's name and version, in the optional header line. */
export const TRACE_FORMAT = 'interleave-trace/1';

const name = z.string({ error: 'a non-empty string' }).min(1, { error: 'a non-empty string' }).max(200, { error: 'at most 200 characters' });
const counter = z
  .number({ error: 'an integer ≥ 1' })
  .int({ error: 'an integer ≥ 1' })
  .min(1, { error: 'an integer ≥ 1' })
  .max(Number.MAX_SAFE_INTEGER, { error: 'an integer below 2^53' });

/**
 * Optional first line of a file: which format, and for which spec. `params` are the
 * spec parameters the implementation ran with (replication factor, ...), read by the
 * spec's trace mapping.
 */
export const TraceHeader = z.strictObject({
  format: z.literal(TRACE_FORMAT, { error: `"${TRACE_FORMAT}"` }),
  spec: name.optional(),
  params: z.record(z.string(), z.unknown()).optional(),
});

/** One protocol step taken by one process. */
export const TraceEvent = z.strictObject({
  /** The process that took the step: "c3", "mn1", "master", "nemesis". */
  proc: name,
  /** The process's own sequence number: 1, 2, 3, … with no gaps (a gap is a lost event). */
  seq: counter,
  /** The spec action family the step performs, as the spec names it ("casBackup"). */
  action: name,
  /** The action's parameters, as the spec's trace mapping reads them. */
  args: z.record(z.string(), z.unknown()).optional(),
  /** A shared object the step acted on (a memory word, a log file): "mn1/k2". */
  obj: name.optional(),
  /** The step changed obj, as its objSeq-th change: 1, 2, 3, … per object, no gaps. */
  objSeq: counter.optional(),
  /** The step read obj without changing it, and saw it after its objSaw-th change (0: none yet). */
  objSaw: z.number({ error: 'an integer ≥ 0' }).int({ error: 'an integer ≥ 0' }).min(0, { error: 'an integer ≥ 0' }).max(Number.MAX_SAFE_INTEGER).optional(),
  /** Ids of the messages the step sent. */
  send: z.array(name).max(10_000).optional(),
  /** Id of the message the step received. */
  recv: name.optional(),
  /** Spec variables the process observed after the step, by path ("rep[1]", "cl[3].vOld"). */
  obs: z.record(z.string(), z.unknown()).optional(),
  /** Monotonic clock (ns) for people reading the trace; never used for ordering. */
  time: z.number().nonnegative().optional(),
}).refine((e) => (e.obj === undefined) === (e.objSeq === undefined && e.objSaw === undefined) && (e.objSeq === undefined || e.objSaw === undefined), {
  error: '"obj" with exactly one of "objSeq" (the step changed it) or "objSaw" (the step only read it)',
});

export type TraceHeader = z.infer<typeof TraceHeader>;
export type TraceEvent = z.infer<typeof TraceEvent>;

/**
 * One line of a protocol trace, read exactly (traces/json.ts: numbers as written or
 * refused, no repeated keys) and checked against the schema: the header (allowed on the
 * first line only), an event, or undefined for a blank line. Bad input is an InputError
 * naming the file, the line and what was expected.
 */
export function parseTraceLine(text: string, file: string, line: number, maxDepth = DEFAULT_LIMITS.maxDepth): { header: TraceHeader } | { event: TraceEvent } | undefined {
  if (text.trim() === '') return undefined;
  const value = parseJson(text, file, line, maxDepth);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError(file, line, `a JSON object per line (a trace event {"proc", "seq", "action", ...}), not ${show(value)}`);
  }
  if (Object.hasOwn(value, 'format')) {
    if (line !== 1) throw new InputError(file, line, `the header {"format": "${TRACE_FORMAT}", ...} on the first line only`);
    const parsed = TraceHeader.safeParse(value);
    if (!parsed.success) throw new InputError(file, line, expectedFromZod(parsed.error, value, 'json'));
    return { header: parsed.data };
  }
  const parsed = TraceEvent.safeParse(value);
  if (!parsed.success) throw new InputError(file, line, expectedFromZod(parsed.error, value, 'json'));
  return { event: parsed.data };
}
