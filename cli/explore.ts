// `interleave explore <spec>`: model-check a spec at its default configs (or one config),
// optionally with a mutant; print the verdict, coverage and counterexamples.
// Exit 0 holds, 1 a violation, 2 incomplete (a budget was hit), 64 bad usage, 73 an
// --itf or --html file cannot be written (the verdict is printed first).
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { explore, exploreSync, prepare, replayLabels } from '../checkers/explore/index.ts';
import { counterexampleToItf } from '../checkers/explore/itf.ts';
import { diff } from '../checkers/explore/diff.ts';
import type { ExploreOptions, ExploreResult, Progress } from '../checkers/explore/types.ts';
import { renderCounterexampleHtml } from '../checkers/report/explore-html.ts';
import { renderExploreText, show } from '../checkers/report/explore-text.ts';
import { EXIT, UsageError } from './exit.ts';
import { capWorkers, integer, seconds, workers } from './flags.ts';
import { checkOutputPath, OutputError, writeOutput } from './output.ts';
import { resolveSpec, specMachine, specTarget } from './spec-machine.ts';

export interface ExploreCliOptions {
  config?: string;
  mutant?: string;
  bfs?: boolean;
  dfs?: boolean;
  simulate?: number;
  depth?: number;
  seed?: number;
  workers?: number;
  all?: boolean;
  maxStates?: number;
  maxDepth?: number;
  time?: number;
  deadlock?: boolean;
  exact?: boolean;
  symmetry?: boolean;
  lin?: 'incremental' | 'histories' | 'off';
  json?: boolean;
  itf?: string;
  html?: string;
  force?: boolean;
  replay?: string;
}

/** Draws progress on stderr when it is a terminal; returns the callback and a cleaner. */
export function terminalProgress(): { onProgress?: (p: Progress) => void; done(): void } {
  if (!process.stderr.isTTY) return { done() {} };
  let drawn = false;
  return {
    onProgress(p) {
      const rate = p.elapsedMs > 0 ? Math.round((p.states / p.elapsedMs) * 1000) : 0;
      process.stderr.write(
        `\r${p.states.toLocaleString('en-US')} distinct, ${p.transitions.toLocaleString('en-US')} transitions, depth ${p.depth}, queue ${p.queue.toLocaleString('en-US')}, ${rate.toLocaleString('en-US')} states/s   `,
      );
      drawn = true;
    },
    done() {
      if (drawn) process.stderr.write('\r\x1b[K');
    },
  };
}

export function toExploreOptions(o: ExploreCliOptions): ExploreOptions {
  const strategies = [o.bfs, o.dfs, o.simulate !== undefined].filter(Boolean).length;
  if (strategies > 1) throw new UsageError('choose one of --bfs, --dfs, --simulate');
  if (o.simulate === undefined && (o.depth !== undefined || o.seed !== undefined)) throw new UsageError('--depth and --seed go with --simulate (for a depth bound on the search, --max-depth)');
  return {
    strategy: o.simulate !== undefined ? 'simulate' : o.dfs ? 'dfs' : 'bfs',
    ...(o.simulate !== undefined ? { simulate: { runs: o.simulate, depth: o.depth ?? 100, seed: o.seed ?? 1 } } : {}),
    ...(o.maxStates !== undefined ? { maxStates: o.maxStates } : {}),
    ...(o.maxDepth !== undefined ? { maxDepth: o.maxDepth } : {}),
    ...(o.time !== undefined ? { timeLimitMs: o.time * 1000 } : {}),
    store: o.exact ? 'exact' : 'fingerprint',
    all: o.all ?? false,
    deadlock: o.deadlock !== false,
    workers: o.workers ?? 1,
    symmetry: o.symmetry ?? false,
    ...(o.lin ? { linearizability: o.lin } : {}),
  };
}

/** Explores one spec config (and variant): on worker threads when asked, else here. */
export async function exploreSpec(spec: string, config: string, variant: string | undefined, options: ExploreOptions): Promise<ExploreResult> {
  if ((options.workers ?? 1) > 1) return explore(specTarget(spec, config, variant), options);
  return exploreSync(specMachine(spec, config, variant), options);
}

/** JSON for results whose states hold Maps, Sets or bigints (written as ITF does). */
export function jsonReplacer(_key: string, v: unknown): unknown {
  if (v instanceof Map) return { '#map': [...v] };
  if (v instanceof Set) return { '#set': [...v] };
  if (typeof v === 'bigint') return { '#bigint': v.toString() };
  if (v === undefined) return null;
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<unknown>);
  return v;
}

export function exitCodeOf(results: ExploreResult[]): number {
  if (results.some((r) => r.status === 'violation')) return EXIT.violation;
  if (results.some((r) => r.status === 'incomplete')) return EXIT.inconclusive;
  return EXIT.holds;
}

async function runReplay(spec: string, config: string, variant: string | undefined, path: string, o: ExploreCliOptions): Promise<number> {
  const machine = prepare(specMachine(spec, config, variant), toExploreOptions(o));
  const labels = path.split(';').map((l) => l.trim()).filter((l) => l.length > 0);
  let replayed;
  try {
    replayed = replayLabels(machine, labels);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const shown = (x: unknown) => (machine.inner ? machine.inner(x) : x);
  const lines = [`replay of ${labels.length} steps in ${spec}/${config}${variant ? ` (${variant})` : ''}`, `  initial state: ${show(shown(replayed.states[0]), 400)}`];
  let violated = false;
  replayed.states.forEach((s, i) => {
    if (i > 0) {
      lines.push(`  ${String(i).padStart(3)}. ${labels[i - 1]}`);
      for (const ch of diff(shown(replayed.states[i - 1]), shown(s))) lines.push(`         ${ch.path}: ${show(ch.before, 60)} -> ${show(ch.after, 60)}`);
    }
    for (const [name, inv] of Object.entries(machine.invariants)) {
      const v = inv(s);
      if (v !== true) {
        violated = true;
        lines.push(`         ${name} violated: ${v}`);
      }
    }
  });
  const last = replayed.states[replayed.states.length - 1];
  if (machine.actions(last).length === 0 && machine.mayStop && !machine.mayStop(last) && o.deadlock !== false) {
    violated = true;
    lines.push('  deadlock: no action is enabled in a state that may not be final');
  }
  lines.push(violated ? 'the path reproduces a violation' : 'no property is violated along this path');
  process.stdout.write(`${lines.join('\n')}\n`);
  return violated ? EXIT.violation : EXIT.holds;
}

export async function runExplore(specName: string, o: ExploreCliOptions): Promise<number> {
  const spec = resolveSpec(specName);
  const configs = o.config !== undefined ? [o.config] : spec.configs.filter((c) => c.tier === 'default').map((c) => c.name);
  if (o.config !== undefined && !spec.configs.some((c) => c.name === o.config)) {
    throw new UsageError(`spec ${specName} has no config ${JSON.stringify(o.config)}; known: ${spec.configs.map((c) => c.name).join(', ')}`);
  }
  if (configs.length === 0) throw new UsageError(`spec ${specName} has no default config; choose one with --config (${spec.configs.map((c) => c.name).join(', ')})`);
  let variant = o.mutant;
  if (variant !== undefined) {
    const finding = (spec.findings ?? []).find((f) => f.name === variant);
    if (finding) variant = finding.variant;
    else if (!spec.mutants.some((m) => m.name === variant)) throw new UsageError(`spec ${specName} has no mutant or finding ${JSON.stringify(variant)}`);
  }
  const guard = { inputs: [], force: o.force };
  if (o.itf !== undefined && o.html !== undefined && resolve(o.itf) === resolve(o.html)) throw new UsageError('--itf and --html name the same file');
  for (const out of [o.itf, o.html]) if (out !== undefined) checkOutputPath(out, guard);
  if (o.replay !== undefined) {
    if (configs.length !== 1) throw new UsageError('--replay needs --config (or a spec with one default config)');
    return runReplay(specName, configs[0], variant, o.replay, o);
  }
  const options = { ...toExploreOptions(o), workers: capWorkers(o.workers, (s) => process.stderr.write(s)) };
  const runs: { config: string; result: ExploreResult }[] = [];
  for (const config of configs) {
    const progress = terminalProgress();
    const result = await exploreSpec(specName, config, variant, { ...options, ...(progress.onProgress ? { onProgress: progress.onProgress } : {}) });
    progress.done();
    runs.push({ config, result });
    if (!o.json) process.stdout.write(`${renderExploreText(result, `${specName}/${config}${variant ? ` with ${variant}` : ''}`)}\n`);
  }
  let code = exitCodeOf(runs.map((r) => r.result));
  // Outputs are written after the verdict is known; one that fails is reported after the
  // verdict is printed, and the exit code says so (73).
  const outputErrors: string[] = [];
  const notes: string[] = [];
  const write = (path: string, data: string, what: string) => {
    try {
      writeOutput(path, data, guard);
      notes.push(`wrote ${what} to ${path}`);
    } catch (e) {
      if (!(e instanceof OutputError)) throw e;
      outputErrors.push(e.message);
    }
  };
  if (o.itf !== undefined) {
    const found = runs.flatMap((r) => r.result.violations.map((v) => ({ config: r.config, v })));
    if (found.length === 0) process.stderr.write('interleave: no counterexample to write as ITF\n');
    else {
      const traces = found.map(({ config, v }) => counterexampleToItf(v, { source: `${specName}/${config}${variant ? `/${variant}` : ''}`, property: v.property }));
      write(o.itf, `${JSON.stringify(traces.length === 1 ? traces[0] : traces, jsonReplacer, 2)}\n`, `${traces.length} ITF trace${traces.length === 1 ? '' : 's'}`);
    }
  }
  if (o.html !== undefined) {
    const found = runs.flatMap((r) => r.result.violations.map((v) => ({ config: r.config, result: r.result, v })));
    if (found.length === 0) process.stderr.write('interleave: no counterexample to draw as HTML\n');
    else {
      const { config, result, v } = found[0];
      const title = `${specName}/${config}${variant ? ` with ${variant}` : ''}`;
      const summary = [`${result.states.toLocaleString('en')} distinct states, ${result.transitions.toLocaleString('en')} transitions, depth ${result.depth}`];
      if (found.length > 1) summary.push(`${found.length - 1} other counterexample(s) in the text and JSON output; this page shows the first.`);
      write(o.html, renderCounterexampleHtml(v, specMachine(specName, config, variant), { title, summary }), 'the counterexample as HTML');
    }
  }
  if (outputErrors.length > 0) code = EXIT.cannotCreate;
  if (o.json) {
    process.stdout.write(`${JSON.stringify({ spec: specName, variant: variant ?? null, exitCode: code, runs, ...(outputErrors.length ? { outputErrors } : {}) }, jsonReplacer, 2)}\n`);
  } else {
    for (const note of notes) process.stdout.write(`${note}\n`);
  }
  for (const e of outputErrors) process.stderr.write(`interleave: ${e}\n`);
  return code;
}

export function register(program: Command): void {
  program
    .command('explore <spec>')
    .description('explore every interleaving of a spec at its default configs (or --config) and check its properties')
    .option('--config <name>', 'one config (default: every default config)')
    .option('--mutant <name>', 'a mutant or finding of the spec')
    .option('--bfs', 'breadth-first search (default): shortest counterexamples')
    .option('--dfs', 'depth-first search: less memory')
    .option('--simulate <runs>', 'random walks instead of exhaustive search', integer(1))
    .option('--depth <steps>', 'with --simulate: steps per walk (default 100)', integer(1))
    .option('--seed <n>', 'with --simulate: the random seed (default 1)', integer(0, 2 ** 32 - 1))
    .option('--workers <n>', "worker threads for BFS (default 1; at most the machine's parallelism)", workers)
    .option('--all', 'keep going after a violation: one counterexample per violated property')
    .option('--max-states <n>', 'state budget (the run is incomplete if hit)', integer(1))
    .option('--max-depth <n>', 'depth bound (the run is incomplete if states lie beyond; 0: the initial states only)', integer(0))
    .option('--time <seconds>', 'time budget', seconds())
    .option('--no-deadlock', 'do not report deadlocks')
    .option('--exact', 'store whole states instead of 64-bit fingerprints')
    .option('--symmetry', 'reduce by the symmetry groups the spec declares')
    .addOption(new Option('--lin <mode>', 'linearizability checking (default: incremental when the spec records a history)').choices(['incremental', 'histories', 'off']))
    .option('--replay <path>', 'replay an action path ("label1;label2;...") and check properties along it')
    .option('--json', 'print the result as JSON (documented in checkers/explore/README.md)')
    .option('--itf <file>', 'write the counterexample(s) as ITF JSON')
    .option('--html <file>', 'write the first counterexample as an HTML page (steps, state changes, processes, client history)')
    .option('--force', 'let --itf and --html replace existing files')
    .action(async (spec: string, o: ExploreCliOptions) => {
      process.exitCode = await runExplore(spec, o);
    });
}
