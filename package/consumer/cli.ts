// The JSON envelope's schemas (interleave/cli) from strict TypeScript: zod's types, as a
// consumer validating `interleave ... --json` output sees them.
import { CommandJsonSchemas, EnvelopeSchema, type Envelope } from 'interleave/cli';

const envelope: Envelope<{ ok: boolean }> = { command: 'check', version: '0', exitCode: 0, elapsedMs: 0, result: { ok: true } };
const checked = CommandJsonSchemas.check.safeParse(envelope);
const any = EnvelopeSchema.parse(envelope);

export const results = [checked.success, any.exitCode satisfies number] as const;
