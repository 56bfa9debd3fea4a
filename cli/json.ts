// The one shape of every command's --json output: an envelope {command, version, exitCode,
// elapsedMs, result}, where `result` is the command's own (documented in cli/README.md).
// The zod schemas below are exported (`interleave/cli`) so that a consumer can validate
// what it reads; the tests validate every command's output against them.
import { z } from 'zod';

/** The envelope around a command's result. */
export function envelopeSchema<T extends z.ZodType>(result: T) {
  return z.object({
    /** The subcommand: `explore`, `lin`, `check`, ... */
    command: z.string(),
    /** interleave's version (package.json). */
    version: z.string(),
    /** The exit code the command returns (cli/exit.ts). */
    exitCode: z.number().int().min(0).max(255),
    /** Wall time from the start of the command to the output. */
    elapsedMs: z.number().nonnegative(),
    result,
  });
}

export const EnvelopeSchema = envelopeSchema(z.unknown());
export type Envelope<T = unknown> = Omit<z.infer<typeof EnvelopeSchema>, 'result'> & { result: T; error?: string };

/**
 * Every command's `--json` on a failure before any result (exit 64 bad usage, 65 bad
 * input, 69, 70, or 73 for an output refused before the run): `result` is null and
 * `error` is the message printed on stderr (without its `interleave: ` prefix).
 */
export const ErrorEnvelopeSchema = envelopeSchema(z.null()).extend({ exitCode: z.number().int().min(2).max(255), error: z.string().min(1) });

const Counts = { states: z.number().int().nonnegative(), elapsedMs: z.number().nonnegative() };

/** `explore --json`: each config explored, with the explorer's result (checkers/explore/README.md). */
export const ExploreJsonSchema = z.object({
  spec: z.string(),
  /** A user's module, as given on the command line. */
  module: z.string().optional(),
  variant: z.string().nullable(),
  runs: z.array(
    z.object({
      config: z.string(),
      result: z.looseObject({
        status: z.enum(['holds', 'violation', 'incomplete']),
        incompleteReason: z.string().optional(),
        transitions: z.number().int().nonnegative(),
        depth: z.number().int().nonnegative(),
        violations: z.array(z.looseObject({ property: z.string(), message: z.string(), steps: z.array(z.unknown()) })),
        ...Counts,
      }),
    }),
  ),
  /** The files written (--itf, --html). */
  outputs: z.array(z.string()).optional(),
  /** Outputs that could not be written (exitCode is then 73). */
  outputErrors: z.array(z.string()).optional(),
});

/** One row of `mutants` (and of `check`'s mutants). */
export const MutantRowSchema = z.object({
  spec: z.string(),
  name: z.string(),
  kind: z.enum(['safety', 'control', 'finding']),
  config: z.string(),
  outcome: z.enum(['killed', 'survived', 'passes', 'fails', 'reproduces', 'gone']),
  ok: z.boolean(),
  property: z.string().optional(),
  expect: z.string().optional(),
  counterexampleLength: z.number().int().optional(),
  note: z.string().optional(),
  ...Counts,
});

export const MutantsJsonSchema = z.object({ ok: z.boolean(), rows: z.array(MutantRowSchema), outputErrors: z.array(z.string()).optional() });

/** One row of `check`'s specs: a config explored. */
export const ConfigRowSchema = z.object({
  spec: z.string(),
  config: z.string(),
  status: z.enum(['holds', 'violation', 'incomplete']),
  ok: z.boolean(),
  properties: z.array(z.string()),
  incompleteReason: z.string().optional(),
  ...Counts,
});

/** One bundled history checked by `check` (traces/bundled/manifest.tsv). */
export const TraceRowSchema = z.object({
  path: z.string(),
  format: z.string(),
  model: z.string(),
  expected: z.enum(['ok', 'illegal']),
  operations: z.number().int().nonnegative(),
  got: z.enum(['ok', 'illegal', 'unknown', 'error']),
  ms: z.number().nonnegative(),
  pass: z.boolean(),
  error: z.string().optional(),
});

export const CheckJsonSchema = z.object({
  ok: z.boolean(),
  configs: z.array(ConfigRowSchema),
  mutants: z.array(MutantRowSchema),
  /** Empty when `check` was given specs: only the bundled run checks the bundled histories. */
  traces: z.array(TraceRowSchema),
  outputErrors: z.array(z.string()).optional(),
});

export const ListJsonSchema = z.object({
  specs: z.array(
    z.object({
      name: z.string(),
      title: z.string(),
      paper: z.string(),
      module: z.string().optional(),
      configs: z.array(z.object({ name: z.string(), tier: z.enum(['default', 'full']), description: z.string() })),
      mutants: z.array(z.object({ name: z.string(), kind: z.enum(['safety', 'control']), config: z.string(), expect: z.string().optional(), description: z.string(), breaks: z.string() })),
      findings: z.array(z.object({ name: z.string(), variant: z.string(), config: z.string(), expect: z.string(), description: z.string() })),
    }),
  ),
  /** The models `lin --model` takes (each also as `independent:<name>` in the API, `--independent` in the CLI). */
  models: z.array(z.object({ name: z.string() })),
});

/** `lin --json` (cli/README.md lists every field). */
export const LinJsonSchema = z.looseObject({
  file: z.string(),
  format: z.enum(['jsonl', 'edn', 'jepsen-log']).optional(),
  model: z.string(),
  verdict: z.enum(['ok', 'illegal', 'unknown']),
  operations: z.number().int().nonnegative().optional(),
  reason: z.string().optional(),
  partitions: z.array(z.looseObject({ index: z.number().int(), verdict: z.enum(['ok', 'illegal', 'unknown']), operations: z.array(z.number().int()) })).optional(),
  outputError: z.string().optional(),
});

/** `run --json`: the run's summary (cli/README.md, `interleave run`). */
export const RunJsonSchema = z.looseObject({
  implementation: z.string(),
  dir: z.string(),
  verdict: z.enum(['linearizable', 'violation', 'unknown']),
  reasons: z.array(z.string()),
  operations: z.number().int().nonnegative(),
  completed: z.number().int().nonnegative(),
  indeterminate: z.number().int().nonnegative(),
});

export const CommandJsonSchemas = {
  explore: envelopeSchema(ExploreJsonSchema),
  mutants: envelopeSchema(MutantsJsonSchema),
  check: envelopeSchema(CheckJsonSchema),
  list: envelopeSchema(ListJsonSchema),
  lin: envelopeSchema(LinJsonSchema),
  run: envelopeSchema(RunJsonSchema),
  validate: envelopeSchema(z.looseObject({ verdict: z.enum(['valid', 'invalid', 'inconclusive']) })),
};

// The envelope's writer lives in envelope.ts, without zod, so that a command's start-up
// does not load zod's schemas; re-exported here for consumers of `interleave/cli`.
export { envelopeText, jsonReplacer, printJson, startClock } from './envelope.ts';
