// `interleave lin <file> --model <m>`: check a recorded history for linearizability.
// Exit 0 linearizable, 1 not, 2 unknown (timeout, memo budget or model error), 64 bad
// usage, 65 bad input (printed as `interleave: <file>:<line>: <expected>`), 73 the --html
// file cannot be written; other failures are main.ts's (cli/errors.ts).
import { totalmem } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Option, type Command } from 'commander';
import { checkHistory, DEFAULT_MEMO_LIMIT_MB, findModel, models } from '../checkers/lin/index.ts';
import { UNKNOWN, type LinResult, type Model, type Operation, type Verdict } from '../checkers/lin/types.ts';
import { renderLinText } from '../checkers/report/lin-text.ts';
import { FORMATS, importHistoryFile, ReadTimeout, type Format, type ImportedHistory } from '../traces/import.ts';
import { withErrors } from './errors.ts';
import { EXIT, UsageError } from './exit.ts';
import { capWorkers, integer, redisOnly, seconds, workers } from './flags.ts';
import { JSON_HELP, withHelp } from './help.ts';
import { envelopeText } from './envelope.ts';
import { checkOutputDir, checkOutputPath, OutputError, prepareOutputDir, writeOutput } from './output.ts';

export interface LinOptions {
  model: string;
  /** A jepsen.independent history: [key value] tuples, checked key by key (model independent:<model>). */
  independent?: boolean;
  format: Format | 'auto';
  /** Seconds. */
  timeout?: number;
  workers?: number;
  json?: boolean;
  /** Write the HTML report (timelines, linearizations, diagnosis) here. */
  html?: string;
  /** Replace an existing --html file (never the history). */
  force?: boolean;
  /** The memo's memory budget per partition, in MB. */
  memoBudget?: number;
  /** Check the partitions as jobs of `interleave worker`s through this Redis (checkers/distributed). */
  redis?: string;
  /** With --redis: worker processes started here for the run. */
  workersPerHost?: number;
}

export interface Io {
  out(s: string): void;
  err(s: string): void;
}

const EXIT_FOR: Record<Verdict, number> = { ok: EXIT.holds, illegal: EXIT.violation, unknown: EXIT.inconclusive };

/** The `--json` output's result (in the envelope of cli/json.ts), documented in cli/README.md. */
export interface LinJson {
  file: string;
  format: Format;
  model: string;
  verdict: Verdict;
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

/**
 * Runs the command and returns its exit code. The verdict is always printed before an
 * output that could not be written is reported (exit 73 then, instead of the verdict's).
 * Bad input (65) and outputs refused before the check (73) are reported on io.err.
 */
export async function runLin(file: string, options: LinOptions, io: Io): Promise<number> {
  return withErrors(io.err, () => linOrThrow(file, options, io));
}

async function linOrThrow(file: string, options: LinOptions, io: Io): Promise<number> {
  redisOnly(options);
  if (!Object.hasOwn(models, options.model)) throw new UsageError(`unknown model ${JSON.stringify(options.model)}; known: ${Object.keys(models).join(', ')}`);
  const modelName = options.independent ? `independent:${options.model}` : options.model;
  const model = findModel(modelName)!;
  const guard = { inputs: [file], force: options.force };
  const windowsDir = options.html !== undefined ? windowsDirOf(options.html) : undefined;
  if (options.html !== undefined) checkOutputPath(options.html, guard);
  if (windowsDir !== undefined) checkOutputDir(windowsDir, guard);
  const start = performance.now();
  // --timeout covers reading the file as well as checking it.
  const deadline = options.timeout === undefined ? undefined : Date.now() + options.timeout * 1000;
  let history: ImportedHistory;
  try {
    history = await importHistoryFile(file, { model, format: options.format, ...(deadline !== undefined ? { deadline } : {}) });
  } catch (e) {
    if (!(e instanceof ReadTimeout)) throw e;
    io.err(`interleave: the --timeout of ${options.timeout} s ran out while reading ${file} (at line ${e.line}); verdict unknown\n`);
    if (options.json) {
      io.out(envelopeText('lin', EXIT.inconclusive, { file, model: model.name, verdict: 'unknown', reason: 'timeout while reading', importMs: round(performance.now() - start) }));
    }
    return EXIT.inconclusive;
  }
  const importMs = performance.now() - start;
  const memoLimitMB = options.memoBudget ?? DEFAULT_MEMO_LIMIT_MB;
  const timeoutMs = deadline === undefined ? undefined : Math.max(0, deadline - Date.now());
  let result: LinResult;
  if (options.redis !== undefined) {
    const [{ linThroughRedis, unavailableExit }, { RedisUnavailable }] = await Promise.all([import('./distributed.ts'), import('../checkers/distributed/redis.ts')]);
    try {
      result = await linThroughRedis(modelName, history.operations, { timeoutMs, memoLimitMB }, options.redis, options.workersPerHost ?? 1);
    } catch (e) {
      if (e instanceof RedisUnavailable) return unavailableExit(e, io.err);
      throw e;
    }
  } else {
    result = await checkHistory(modelName, history.operations, { timeoutMs, workers: capWorkers(options.workers, io.err), memoLimitMB });
  }
  let outputError: string | undefined;
  let windowsWritten = 0;
  const hint = memoryHint(result, memoLimitMB);
  if (options.html !== undefined) {
    // The report's modules only when a report is asked for (start-up: issue 21).
    const { renderLinReport } = await import('../checkers/report/lin-html.ts');
    try {
      const report = renderLinReport(result, history.operations, model, { file: history.file, windows: { dir: basename(windowsDir!), main: basename(options.html) }, ...(hint ? { hint } : {}) });
      if (report.windows.length > 0) {
        prepareOutputDir(windowsDir!, guard);
        for (const w of report.windows) writeOutput(join(windowsDir!, w.name), w.html, guard);
        windowsWritten = report.windows.length;
      }
      writeOutput(options.html, report.html, guard);
    } catch (e) {
      if (!(e instanceof OutputError)) throw e;
      outputError = e.message;
    }
  }
  const code = outputError ? EXIT.cannotCreate : EXIT_FOR[result.verdict];
  if (options.json) {
    const json = { ...linJson(history, model, result, importMs), ...(hint ? { hint } : {}), ...(outputError ? { outputError } : {}) };
    io.out(envelopeText('lin', code, json));
  } else {
    const text = renderLinText(result, history.operations, model);
    io.out(summary(history) + text + (text.endsWith('\n') ? '' : '\n') + (hint ? `${hint}\n` : ''));
  }
  if (outputError) io.err(`interleave: ${outputError}\n`);
  else if (options.html !== undefined && !options.json) io.err(`wrote the HTML report to ${options.html}${windowsWritten > 0 ? ` (and ${windowsWritten} window pages in ${windowsDir})` : ''}\n`);
  return code;
}

/**
 * How to give a check that ran out of memory more: the bound it reached (memoryLimit), the
 * memo's budget (--memo-budget) or the share of node's heap a search may fill (node's
 * --max-old-space-size, through NODE_OPTIONS: a flag on node's command line is not passed to
 * the checker's process). Undefined when no partition ran out of memory.
 */
function memoryHint(result: LinResult, memoLimitMB: number): string | undefined {
  const limits = result.partitions.filter((p) => p.reason === 'memory').map((p) => p.memoryLimit);
  if (limits.length === 0) return undefined;
  const machine = `this machine has ${Math.round(totalmem() / 2 ** 20)} MB`;
  const heap = limits.find((l) => l?.of === 'heap');
  const hints: string[] = [];
  if (heap !== undefined) hints.push(`Give node a larger heap with NODE_OPTIONS=--max-old-space-size=<MB> (a search may fill ${Math.round(heap.bytes / 2 ** 20)} MB of this one; ${machine}).`);
  if (limits.some((l) => l?.of !== 'heap')) hints.push(`The memo's budget was ${memoLimitMB} MB per partition: raise it with --memo-budget <MB> (${machine}).`);
  return hints.join('\n');
}

/** Where a report's window pages go: `report.html` -> `report.windows/` beside it. */
export function windowsDirOf(html: string): string {
  return join(dirname(html), `${basename(html).replace(/\.html?$/i, '')}.windows`);
}

export function register(program: Command): void {
  const command = program
    .command('lin')
    .description('check a recorded history for linearizability against a sequential model')
    .argument('<file>', 'the history: JSON lines, Jepsen EDN or a Jepsen log')
    .addOption(new Option('--model <model>', 'the sequential model').choices(Object.keys(models)).makeOptionMandatory())
    .option('--independent', 'a history of many keys, each checked on its own as an object of the model (as Jepsen\'s independent checker): native JSON lines name the key in "input"."key", Jepsen\'s EDN, JSON and logs write each value as a jepsen.independent [key value] tuple')
    .addOption(new Option('--format <format>', 'the history format').choices(['auto', ...FORMATS]).default('auto'))
    .option('--timeout <seconds>', 'give up with verdict unknown (exit 2) after this long, reading included', seconds())
    .option('--workers <n>', "check partitions on this many worker threads (at most the machine's parallelism)", workers)
    .option('--memo-budget <MB>', `memory budget of each partition's memo, in MB (default ${DEFAULT_MEMO_LIMIT_MB}); past it the verdict is unknown`, integer(1, 2 ** 20))
    .option('--redis <url>', 'check the partitions as jobs of `interleave worker`s through this Redis (exit 69 if it cannot be reached)')
    .option('--workers-per-host <n>', 'with --redis: worker processes to start here for the run (default 1; 0: only workers started elsewhere)', integer(0, 1024))
    .option('--json', JSON_HELP)
    .option('--html <file>', 'write an HTML report: per partition a timeline, the linearization or the diagnosis')
    .option('--force', 'let --html replace an existing file (never the history itself)')
    .action(async (file: string, options: LinOptions) => {
      process.exitCode = await runLin(file, options, {
        out: (s) => process.stdout.write(s),
        err: (s) => process.stderr.write(s),
      });
    });
  withHelp(command, {
    examples: [
      ['interleave lin history.edn --model cas-register', 'a Jepsen EDN history'],
      ['interleave lin etcd.log --model etcd-cas-register --html report.html', 'a Jepsen log; timelines and the diagnosis as a page'],
      ['interleave lin independent.edn --model cas-register --independent', 'jepsen.independent [key value] tuples, key by key'],
      ['interleave lin ops.jsonl --model kv-append --workers 4 --timeout 60 --json', 'partitions on 4 threads, at most a minute, as JSON'],
    ],
    exitCodes: {
      0: 'linearizable',
      1: 'not linearizable (the longest partial linearizations and the operations stuck after them are printed)',
      2: 'unknown: the --timeout ran out, the memo reached its budget, or a model step threw',
      65: true,
      69: 'with --redis: Redis cannot be reached, or the connection was lost (no verdict)',
      73: true,
    },
  });
}
