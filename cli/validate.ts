// `interleave validate <spec> <trace files...>`: does some behaviour of the spec match an
// implementation's protocol trace? Exit 0 valid, 1 invalid, 2 inconclusive (a search bound
// was hit), 64 bad usage, 65 bad input (printed as `interleave: <file>:<line>: <expected>`),
// 73 the HTML report cannot be written.
import type { Command } from 'commander';
import { EmptyTraceError, InputError, validateFiles, type ValidateOptions, type ValidateResult } from '../checkers/validate/index.ts';
import { renderValidateHtml } from '../checkers/report/validate-html.ts';
import { describeEvent, describeWhy, renderValidateText } from '../checkers/report/validate-text.ts';
import type { TraceValidation } from '../impl/harness/types.ts';
import { findSpec, specs } from '../specs/index.ts';
import { isModulePath, resolveSpec } from './specs.ts';
import { withErrors } from './errors.ts';
import { EXIT, UsageError } from './exit.ts';
import { envelopeText } from './envelope.ts';
import { integer, seconds } from './flags.ts';
import { JSON_HELP, withHelp } from './help.ts';
import { checkOutputPath, writeOutput } from './output.ts';

export interface ValidateCliOptions {
  config?: string;
  json?: boolean;
  html?: string;
  force?: boolean;
  exhaustive?: boolean;
  maxFrontier?: number;
  timeout?: number;
  slack?: number;
}

export interface Io {
  out(s: string): void;
  err(s: string): void;
  /** Progress on a terminal (stderr), if any. */
  progress?(s: string): void;
}

const EXIT_FOR: Record<ValidateResult['verdict'], number> = { valid: EXIT.holds, invalid: EXIT.violation, inconclusive: EXIT.inconclusive };

/** Runs the command and returns its exit code. */
export async function runValidate(specName: string, files: string[], o: ValidateCliOptions, io: Io): Promise<number> {
  return withErrors(io.err, () => validateOrThrow(specName, files, o, io));
}

async function validateOrThrow(specName: string, files: string[], o: ValidateCliOptions, io: Io): Promise<number> {
  const validating = specs.filter((s) => s.trace).map((s) => s.name);
  const orModule = 'or a module whose SpecDef has `trace` (./my-spec.ts)';
  if (!findSpec(specName) && !isModulePath(specName)) throw new UsageError(`unknown spec ${JSON.stringify(specName)}; specs that validate traces: ${validating.join(', ')}; ${orModule}`);
  // A bundled spec, or a user's module as the other commands take it (cli/specs.ts).
  const resolved = await resolveSpec(specName);
  const spec = resolved.def;
  const where = resolved.module ? `${resolved.module.file} (${resolved.module.export})` : `spec ${spec.name}`;
  if (!spec.trace) throw new UsageError(`${where} has no trace mapping and cannot validate traces; specs that can: ${validating.join(', ')}; ${orModule}`);
  if (resolved.module && !(Array.isArray(spec.trace.configs) && spec.trace.configs.length > 0 && typeof spec.trace.open === 'function')) {
    throw new InputError(resolved.module.file, undefined, `${resolved.module.export}.trace: a TraceSpec {configs: [{name, description}, ...], open(info)} (checkers/validate/README.md)`);
  }
  if (o.config !== undefined && !spec.trace.configs.some((c) => c.name === o.config)) {
    throw new UsageError(`spec ${spec.name} has no validation config ${JSON.stringify(o.config)}; known: ${spec.trace.configs.map((c) => c.name).join(', ')}`);
  }
  const guard = { inputs: files, force: o.force === true };
  if (o.html !== undefined) checkOutputPath(o.html, guard);
  const options: ValidateOptions = {
    ...(o.config !== undefined ? { config: o.config } : {}),
    ...(o.exhaustive ? { exhaustive: true } : {}),
    ...(o.maxFrontier !== undefined ? { maxFrontier: o.maxFrontier } : {}),
    ...(o.timeout !== undefined ? { timeLimitMs: o.timeout * 1000 } : {}),
    ...(o.slack !== undefined ? { slackNs: o.slack * 1e9 } : {}),
    ...(io.progress
      ? {
          onProgress: (p) =>
            io.progress!(`\r${p.events.toLocaleString('en-US')} events read, ${p.matched.toLocaleString('en-US')} matched, ${p.buffered.toLocaleString('en-US')} waiting, frontier ${p.frontier}   `),
        }
      : {}),
  };
  let result: ValidateResult;
  try {
    result = await validateFiles(files, { name: spec.name, trace: spec.trace }, options);
  } finally {
    io.progress?.('\n');
  }
  const code = EXIT_FOR[result.verdict];
  if (o.html !== undefined) {
    writeOutput(o.html, renderValidateHtml(result), guard);
    if (!o.json) io.err(`wrote the HTML report to ${o.html}\n`);
  }
  if (o.json) {
    io.out(envelopeText('validate', code, result));
  } else {
    io.out(renderValidateText(result));
  }
  return code;
}

/**
 * `interleave run`'s validation of the trace it merged (DIR/trace.jsonl): the verdict with
 * a line saying why, and the page. A trace the validator cannot read (the spec's mapping
 * refuses its header or a line) is no verdict on the implementation: the validation is
 * inconclusive, never invalid (the run's configuration may be one the spec cannot take).
 */
export async function validateRunTrace(specName: string, traceFile: string): Promise<{ validation: TraceValidation; html?: string }> {
  const spec = findSpec(specName);
  if (!spec?.trace) return { validation: { status: 'not-run', detail: `spec ${specName} has no trace mapping` } };
  let result: ValidateResult;
  try {
    // The default slack, as `interleave validate` has it: the same trace, the same verdict
    // (the pause nemesis stops a process for up to ~2.5 s between a step and its line).
    result = await validateFiles([traceFile], { name: spec.name, trace: spec.trace });
  } catch (e) {
    // No process logged a step: nothing was validated, which is no verdict on the implementation.
    if (e instanceof EmptyTraceError) return { validation: { status: 'not-run', detail: 'the trace has no events' } };
    if (e instanceof InputError) return { validation: { status: 'inconclusive', detail: `not validated: the spec cannot read the trace: ${e.message}` } };
    throw e;
  }
  const rate = result.elapsedMs > 0 ? Math.round((result.events * 1000) / result.elapsedMs) : undefined;
  const f = result.failure;
  const detail =
    result.verdict === 'valid'
      ? `${result.events.toLocaleString('en-US')} events in ${(result.elapsedMs / 1000).toFixed(1)} s`
      : result.verdict === 'inconclusive'
        ? (result.reason ?? 'a bound was hit')
        : f
          ? `partition ${f.partition}, after ${f.matched.toLocaleString('en-US')} events: ${describeEvent(f.event)}: ${describeWhy(f.why)}`
          : 'no behaviour of the spec matches the trace';
  return {
    validation: { status: result.verdict, detail, elapsedMs: Math.round(result.elapsedMs), ...(rate !== undefined ? { eventsPerSecond: rate } : {}) },
    html: renderValidateHtml(result),
  };
}

export function register(program: Command): void {
  const command = program
    .command('validate')
    .description("check an implementation's protocol trace against a spec (trace validation)")
    .argument('<spec>', "the spec: a bundled spec's name (`interleave list` says which validate) or a module whose SpecDef has `trace`")
    .argument('<traces...>', 'the trace files: one per process (the header, with the params the spec needs, in at least one of them), or several processes per file')
    .option('--config <name>', "a validation config of the spec's trace mapping")
    .option('--json', JSON_HELP)
    .option('--html <file>', 'write an HTML report: per-process lanes, the matched prefix, the failing event and the diagnosis')
    .option('--force', 'replace an existing --html file')
    .option('--exhaustive', 'search every interleaving (no local-first reduction): slow, for cross-checks')
    .option('--max-frontier <n>', 'candidates kept per step before giving up (inconclusive, exit 2)', integer(1))
    .option('--timeout <seconds>', 'give up (inconclusive, exit 2) after this long', seconds())
    .option('--slack <seconds>', 'how late after its step a line may be written (`time`); default 5, as `interleave run` validates', seconds())
    .action(async (spec: string, traces: string[], o: ValidateCliOptions) => {
      process.exitCode = await runValidate(spec, traces, o, {
        out: (s) => process.stdout.write(s),
        err: (s) => process.stderr.write(s),
        ...(process.stderr.isTTY ? { progress: (s: string) => process.stderr.write(s) } : {}),
      });
    });
  withHelp(command, {
    examples: [
      ['interleave validate fusee run/trace.jsonl', 'the trace `interleave run fusee --out run` wrote (every process\'s lines under one header) against the FUSEE spec'],
      ['interleave validate fusee run/trace.jsonl --config fixed --html why.html', 'another validation config (fixed: the per-backup CASes in replica order, which a run need not keep: then exit 1); where and why it does not match, as a page'],
    ],
    exitCodes: {
      0: 'valid: a behaviour of the spec matches the trace',
      1: 'invalid: none does (where and why is printed)',
      2: 'inconclusive: the frontier or read-ahead bound, the --timeout, or a line logged later than --slack',
      64: 'also a spec without a trace mapping, an unknown validation config',
      65: true,
      73: true,
    },
  });
}
