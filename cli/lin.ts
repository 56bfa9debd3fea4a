// `interleave lin <file> --model <m>`: check a recorded history for linearizability.
// Exit 0 linearizable, 1 not, 2 unknown (timeout or model error), 64 bad usage, 65 bad
// input (printed as `interleave: <file>:<line>: <expected>`).
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { checkHistory, models } from '../checkers/lin/index.ts';
import { UNKNOWN, type LinResult, type Model, type Operation, type Verdict } from '../checkers/lin/types.ts';
import { renderLinHtml } from '../checkers/report/lin-html.ts';
import { renderLinText } from '../checkers/report/lin-text.ts';
import { FORMATS, importHistoryFile, InputError, type Format, type ImportedHistory } from '../traces/index.ts';
import { EXIT } from './exit.ts';

export interface LinOptions {
  model: string;
  format: Format | 'auto';
  /** Seconds. */
  timeout?: number;
  workers?: number;
  json?: boolean;
  /** Write the HTML report (timelines, linearizations, diagnosis) here. */
  html?: string;
}

export interface Io {
  out(s: string): void;
  err(s: string): void;
}

const EXIT_FOR: Record<Verdict, number> = { ok: EXIT.holds, illegal: EXIT.violation, unknown: EXIT.inconclusive };

/** The `--json` output, documented in cli/README.md. */
export interface LinJson {
  file: string;
  format: Format;
  model: string;
  verdict: Verdict;
  exitCode: number;
  operations: number;
  indeterminate: number;
  failedDropped: number;
  nemesisSkipped: number;
  importMs: number;
  checkMs: number;
  partitions: LinResult['partitions'];
  modelError?: LinResult['modelError'];
  /** Every operation a partition report or model error names, by history index. */
  referencedOperations: Record<string, { client: number | string; line?: number; call: number; return?: number; description: string }>;
}

function describe(model: Model, op: Operation): string {
  const output = op.ret === undefined ? UNKNOWN : op.output;
  return model.describeOperation?.(op.input, output) ?? JSON.stringify({ input: op.input, output: op.ret === undefined ? 'unknown' : op.output });
}

export function linJson(history: ImportedHistory, model: Model, result: LinResult, importMs: number): LinJson {
  const referenced = new Set<number>();
  for (const p of result.partitions) {
    for (const seq of p.longest ?? []) for (const i of seq) referenced.add(i);
    for (const seq of p.stuckAfter ?? []) for (const i of seq) referenced.add(i);
    for (const i of p.stuck ?? []) referenced.add(i);
  }
  if (result.modelError && result.modelError.operation >= 0) referenced.add(result.modelError.operation);
  const referencedOperations: LinJson['referencedOperations'] = {};
  for (const i of [...referenced].sort((a, b) => a - b)) {
    const op = history.operations[i]!;
    referencedOperations[i] = { client: op.client, line: op.origin?.line, call: op.call, return: op.ret, description: describe(model, op) };
  }
  return {
    file: history.file,
    format: history.format,
    model: model.name,
    verdict: result.verdict,
    exitCode: EXIT_FOR[result.verdict],
    operations: history.operations.length,
    indeterminate: history.counts.indeterminate,
    failedDropped: history.counts.failed,
    nemesisSkipped: history.counts.nemesis,
    importMs: round(importMs),
    checkMs: round(result.elapsedMs),
    partitions: result.partitions,
    ...(result.modelError ? { modelError: result.modelError } : {}),
    referencedOperations,
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function summary(h: ImportedHistory): string {
  const notes = [
    `${h.counts.indeterminate} indeterminate`,
    ...(h.counts.failed ? [`${h.counts.failed} failed and dropped`] : []),
    ...(h.counts.nemesis ? [`${h.counts.nemesis} nemesis skipped`] : []),
  ];
  return `history:    ${h.file} (${h.format}; ${notes.join(', ')})\n`;
}

/** Runs the command and returns its exit code. */
export async function runLin(file: string, options: LinOptions, io: Io): Promise<number> {
  if (!Object.hasOwn(models, options.model)) {
    io.err(`interleave: unknown model ${JSON.stringify(options.model)}; known: ${Object.keys(models).join(', ')}\n`);
    return EXIT.usage;
  }
  const model = models[options.model]!;
  if (options.html !== undefined && resolve(options.html) === resolve(file)) {
    io.err(`interleave: --html ${options.html} would overwrite the history itself\n`);
    return EXIT.usage;
  }
  const start = performance.now();
  let history: ImportedHistory;
  try {
    history = await importHistoryFile(file, { model, format: options.format });
  } catch (e) {
    if (e instanceof InputError) {
      io.err(`interleave: ${e.message}\n`);
      return EXIT.badData;
    }
    throw e;
  }
  const importMs = performance.now() - start;
  const result = await checkHistory(options.model, history.operations, {
    timeoutMs: options.timeout === undefined ? undefined : options.timeout * 1000,
    workers: options.workers,
  });
  if (options.html !== undefined) {
    writeFileSync(options.html, renderLinHtml(result, history.operations, options.model, { file: history.file }));
    if (!options.json) io.err(`wrote the HTML report to ${options.html}\n`);
  }
  if (options.json) {
    io.out(`${JSON.stringify(linJson(history, model, result, importMs), null, 2)}\n`);
  } else {
    const text = renderLinText(result, history.operations, model);
    io.out(summary(history) + text + (text.endsWith('\n') ? '' : '\n'));
  }
  return EXIT_FOR[result.verdict];
}

function positiveNumber(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number of seconds > 0.');
  return n;
}

function positiveInteger(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected an integer ≥ 1.');
  return n;
}

export function register(program: Command): void {
  program
    .command('lin')
    .description('check a recorded history for linearizability against a sequential model')
    .argument('<file>', 'the history: JSON lines, Jepsen EDN or a Jepsen log')
    .addOption(new Option('--model <model>', 'the sequential model').choices(Object.keys(models)).makeOptionMandatory())
    .addOption(new Option('--format <format>', 'the history format').choices(['auto', ...FORMATS]).default('auto'))
    .option('--timeout <seconds>', 'give up with verdict unknown (exit 2) after this long', positiveNumber)
    .option('--workers <n>', 'check partitions on this many worker threads', positiveInteger)
    .option('--json', 'print the result as a JSON object (see cli/README.md)')
    .option('--html <file>', 'write an HTML report: per partition a timeline, the linearization or the diagnosis')
    .action(async (file: string, options: LinOptions) => {
      process.exitCode = await runLin(file, options, {
        out: (s) => process.stdout.write(s),
        err: (s) => process.stderr.write(s),
      });
    });
}
