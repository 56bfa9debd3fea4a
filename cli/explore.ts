// `interleave explore <spec>`: model-check a spec (bundled, or a user's module) at its
// default configs (or one config; a mutant's own config), optionally with a mutant; print
// the verdict, coverage and counterexamples.
// Exit 0 holds, 1 a violation, 2 incomplete (a budget was hit; a --replay whose path
// violates nothing), 64 bad usage, 65 a user's
// spec module cannot be loaded or breaks the contract, 73 an --itf or --html file cannot be
// written (the verdict is printed first).
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { checkPath, explore, exploreSync, prepare, propertiesChecked, ReplayPathError } from '../checkers/explore/index.ts';
import { counterexampleToItf } from '../checkers/explore/itf.ts';
import { diff } from '../checkers/explore/diff.ts';
import type { ExploreOptions, ExploreResult } from '../checkers/explore/types.ts';
import { renderCounterexampleHtml } from '../checkers/report/explore-html.ts';
import { changeLines, elidedSteps, elisionLine, exploreTextLines, show } from '../checkers/report/explore-text.ts';
import { EXIT, UsageError } from './exit.ts';
import { capWorkers, integer, redisOnly, seconds, workers } from './flags.ts';
import { JSON_HELP, withHelp } from './help.ts';
import { itfPath, planItf } from './itf-output.ts';
import { printJson } from './envelope.ts';
import { checkOutputPath } from './output.ts';
import { terminalProgress, type TerminalProgress } from './progress.ts';
import { configOf, mutantOf, resolveSpec, specInputs, type ResolvedSpec } from './specs.ts';
import { userSpecContract, userSpecErrors, writeAfterVerdict } from './errors.ts';
import { RedisUnavailable } from '../checkers/distributed/redis.ts';

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
  /** Through Redis (checkers/distributed): the run's server, workers started here, swarm jobs. */
  redis?: string;
  workersPerHost?: number;
  swarm?: number;
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

/**
 * Explores one config (and variant) of a spec: on worker threads when asked, else here.
 * What a user's spec module throws is reported as its error (exit 65), not ours.
 */
export async function exploreSpec(spec: ResolvedSpec, config: string, variant: string | undefined, options: ExploreOptions): Promise<ExploreResult> {
  return userSpecErrors(spec, `exploring ${config}`, () => ((options.workers ?? 1) > 1 ? explore(spec.target(config, variant), options) : exploreSync(spec.machine(config, variant), options)));
}

export function exitCodeOf(results: ExploreResult[]): number {
  if (results.some((r) => r.status === 'violation')) return EXIT.violation;
  if (results.some((r) => r.status === 'incomplete')) return EXIT.inconclusive;
  return EXIT.holds;
}

function title(spec: ResolvedSpec, config: string, variant: string | undefined, sep = ' with '): string {
  return `${spec.name}/${config}${variant ? `${sep}${variant}` : ''}`;
}

/** The flags of a search, which a replay of one path has no use for: refused with it (64), not ignored. */
const NOT_WITH_REPLAY: [keyof ExploreCliOptions, string][] = [
  ['bfs', '--bfs'],
  ['dfs', '--dfs'],
  ['simulate', '--simulate'],
  ['depth', '--depth'],
  ['seed', '--seed'],
  ['workers', '--workers'],
  ['all', '--all'],
  ['maxStates', '--max-states'],
  ['maxDepth', '--max-depth'],
  ['time', '--time'],
  ['symmetry', '--symmetry'],
  ['json', '--json'],
  ['itf', '--itf'],
  ['html', '--html'],
  ['force', '--force'],
  ['redis', '--redis'],
];

/**
 * Re-executes a path and checks every property along it: exit 1 when it reaches a
 * violation; else 2, since one path that violates nothing says nothing of the others (a
 * replay never says "holds").
 */
async function runReplay(spec: ResolvedSpec, config: string, variant: string | undefined, path: string, o: ExploreCliOptions): Promise<number> {
  const labels = path.split(';').map((l) => l.trim()).filter((l) => l.length > 0);
  if (labels.length === 0) throw new UsageError('--replay takes the path to re-execute: action labels separated by semicolons ("read(p0);cas(p0)"), at least one');
  const machine = await userSpecErrors(spec, 'building the machine', () => prepare(spec.machine(config, variant), toExploreOptions(o)));
  // A label the machine does not enable is the user's path (64); a throw from the machine's
  // own code is the spec's (65), as in a search.
  const checked = await userSpecErrors(spec, 'replaying the path', () => {
    try {
      return checkPath(machine, labels, { deadlock: o.deadlock !== false });
    } catch (e) {
      throw e instanceof ReplayPathError ? new UsageError(e.message) : e;
    }
  });
  const shown = (x: unknown) => (machine.inner ? machine.inner(x) : x);
  const violated = checked.violations.length > 0;
  printLines(
    (function* () {
      yield `replay of ${labels.length} steps in ${title(spec, config, variant, ' (')}${variant ? ')' : ''}`;
      yield `  initial state: ${show(shown(checked.states[0]), 400)}`;
      // Bounded as a counterexample's text is (report/explore-text.ts): the middle of a long path elided, its violations kept.
      const elided = elidedSteps(labels.length);
      for (let i = 0; i < checked.states.length; i++) {
        const hidden = elided !== undefined && i > elided.from && i <= elided.to;
        if (hidden && i === elided.from + 1) {
          yield elisionLine(elided.from, elided.to, labels.length);
          yield `  state after step ${elided.to.toLocaleString('en-US')}: ${show(shown(checked.states[elided.to]), 400)}`;
        } else if (i > 0 && !hidden) {
          yield `  ${String(i).padStart(3)}. ${labels[i - 1]}`;
          yield* changeLines(diff(shown(checked.states[i - 1]), shown(checked.states[i])));
        }
        for (const v of checked.violations) {
          if (v.state !== i) continue;
          const step = hidden ? ` (after step ${i})` : '';
          yield v.property === 'deadlock' ? `  deadlock${step}: no action is enabled in a state that may not be final` : `         ${v.property} violated${step}: ${v.message}`;
        }
      }
      yield violated ? 'the path reproduces a violation' : 'no property is violated along this path (one path: not a verdict on the spec; exit 2)';
    })(),
  );
  return violated ? EXIT.violation : EXIT.inconclusive;
}

/** Lines written to stdout as they are produced, about 64 KB at a time: a long report's text is never held whole. */
function printLines(lines: Iterable<string>, end = ''): void {
  let chunk = '';
  for (const line of lines) {
    chunk += `${line}\n`;
    if (chunk.length >= 65_536) {
      process.stdout.write(chunk);
      chunk = '';
    }
  }
  process.stdout.write(chunk + end);
}

/** The configs to explore: --config, else a mutant's own config, else every default one. */
function configsOf(spec: ResolvedSpec, o: ExploreCliOptions, mutant: { config: string } | undefined): string[] {
  if (o.config !== undefined) return [configOf(spec, o.config)];
  if (mutant) return [mutant.config];
  const defaults = spec.def.configs.filter((c) => c.tier === 'default').map((c) => c.name);
  if (defaults.length === 0) throw new UsageError(`spec ${spec.name} has no default config; choose one with --config (${spec.def.configs.map((c) => c.name).join(', ')})`);
  return defaults;
}

export async function runExplore(specArg: string, o: ExploreCliOptions): Promise<number> {
  redisOnly(o);
  if (o.replay !== undefined) {
    const clash = NOT_WITH_REPLAY.filter(([k]) => o[k] !== undefined && o[k] !== false).map(([, flag]) => flag);
    if (clash.length > 0) throw new UsageError(`--replay re-executes one path and prints it: not with ${clash.join(', ')}`);
  }
  if (o.redis !== undefined && (o.dfs || o.simulate !== undefined || o.exact || o.workers !== undefined || o.replay !== undefined)) {
    throw new UsageError('--redis runs a breadth-first search over fingerprints (or --swarm): not with --dfs, --simulate, --exact, --workers or --replay');
  }
  const options = toExploreOptions(o.swarm !== undefined ? { ...o, seed: undefined } : o);
  if (o.itf !== undefined && o.html !== undefined && resolve(o.itf) === resolve(o.html)) throw new UsageError('--itf and --html name the same file');
  const spec = await resolveSpec(specArg);
  const mutant = o.mutant === undefined ? undefined : mutantOf(spec, o.mutant);
  const variant = mutant?.variant;
  const configs = configsOf(spec, o, mutant);
  const guard = { inputs: o.itf !== undefined || o.html !== undefined ? await specInputs([spec]) : [], force: o.force };
  const several = configs.length > 1 ? `${configs.length} configs` : o.all ? '--all' : undefined;
  const itf = o.itf === undefined ? undefined : planItf(o.itf, several, guard);
  if (o.html !== undefined) checkOutputPath(o.html, guard);
  if (o.replay !== undefined) {
    if (configs.length !== 1) throw new UsageError('--replay needs --config (or a spec with one default config, or --mutant)');
    return runReplay(spec, configs[0], variant, o.replay, o);
  }
  // A search that checks no property would say "every property holds" of nothing: refused
  // (64), as check and mutants refuse a pass of nothing.
  for (const config of configs) {
    const machine = await userSpecErrors(spec, 'building the machine', () => spec.machine(config, variant));
    if (propertiesChecked(machine, options).length === 0) {
      throw new UsageError(
        `${title(spec, config, variant)}: no property to check: the machine declares no invariants${machine.history ? ' and --lin off turns off linearizability' : ', no history (linearizability)'}${machine.mayStop ? ' and --no-deadlock turns off deadlocks' : ', no mayStop (deadlocks)'}, no progress (livelocks); a search would say nothing`,
      );
    }
  }
  const threads = capWorkers(o.workers, (s) => process.stderr.write(s));
  const runs: { config: string; result: ExploreResult }[] = [];
  const progress: TerminalProgress = terminalProgress();
  if (o.redis !== undefined) {
    // BullMQ and ioredis are loaded only for a distributed run: every other command starts without them.
    const { exploreThroughRedis, unavailableExit } = await import('./distributed.ts');
    try {
      await exploreThroughRedis(
        { url: o.redis, workersPerHost: o.workersPerHost ?? 1, ...(o.swarm !== undefined ? { swarmJobs: o.swarm, seed: o.seed, depth: o.maxDepth } : {}) },
        configs.map((config) => ({
          target: spec.target(config, variant),
          options: { ...options, ...(progress.onProgress ? { onProgress: progress.onProgress } : {}) },
          guard: (f) => userSpecContract(spec, `exploring ${config}`, f),
          done: (result: ExploreResult) => {
            progress.done();
            runs.push({ config, result });
            if (!o.json) printLines(exploreTextLines(result, title(spec, config, variant)), '\n');
          },
        })),
      );
    } catch (e) {
      if (e instanceof RedisUnavailable) return unavailableExit(e, (s) => void process.stderr.write(s));
      throw e;
    }
  }
  for (const config of o.redis !== undefined ? [] : configs) {
    if (configs.length > 1) progress.doing(title(spec, config, variant));
    const result = await exploreSpec(spec, config, variant, { ...options, workers: threads, ...(progress.onProgress ? { onProgress: progress.onProgress } : {}) });
    progress.done();
    runs.push({ config, result });
    if (!o.json) printLines(exploreTextLines(result, title(spec, config, variant)), '\n');
  }
  let code = exitCodeOf(runs.map((r) => r.result));
  // Outputs are written after the verdict is known; one that fails is reported after the
  // verdict is printed, and the exit code says so (73).
  const outputErrors: string[] = [];
  const outputs: string[] = [];
  const notes: string[] = [];
  const write = (path: string, data: string, what: string) => {
    const error = writeAfterVerdict(path, data, guard);
    if (error !== undefined) outputErrors.push(error);
    else {
      outputs.push(path);
      notes.push(`wrote ${what} to ${path}`);
    }
  };
  const found = runs.flatMap((r) => r.result.violations.map((v) => ({ config: r.config, result: r.result, v })));
  if (itf !== undefined) {
    if (found.length === 0) process.stderr.write('interleave: no counterexample to write as ITF\n');
    found.forEach(({ config, v }, i) => {
      const trace = counterexampleToItf(v, { source: `${spec.name}/${config}${variant ? `/${variant}` : ''}`, property: v.property });
      write(itfPath(itf, i + 1, { spec: spec.name, config, variant, property: v.property }), `${JSON.stringify(trace, null, 2)}\n`, `the ${v.property} counterexample of ${title(spec, config, variant)} as ITF`);
    });
  }
  if (o.html !== undefined) {
    if (found.length === 0) process.stderr.write('interleave: no counterexample to draw as HTML\n');
    else {
      const { config, result, v } = found[0];
      const summary = [`${result.states.toLocaleString('en')} distinct states, ${result.transitions.toLocaleString('en')} transitions, depth ${result.depth}`];
      if (found.length > 1) summary.push(`${found.length - 1} other counterexample(s) in the text and JSON output; this page shows the first.`);
      // A --redis BFS explored the spec's plain machine (checkers/distributed/run.ts): its states are drawn by that machine.
      const built = o.redis !== undefined && o.swarm === undefined ? { layout: false } : undefined;
      const machine = await userSpecErrors(spec, 'building the machine', () => spec.machine(config, variant, built));
      write(o.html, renderCounterexampleHtml(v, machine, { title: title(spec, config, variant), summary }), 'the counterexample as HTML');
    }
  }
  if (outputErrors.length > 0) code = EXIT.cannotCreate;
  if (o.json) {
    printJson('explore', code, {
      spec: spec.name,
      ...(spec.module ? { module: spec.arg } : {}),
      variant: variant ?? null,
      runs,
      ...(outputs.length ? { outputs } : {}),
      ...(outputErrors.length ? { outputErrors } : {}),
    });
  } else {
    for (const note of notes) process.stdout.write(`${note}\n`);
  }
  for (const e of outputErrors) process.stderr.write(`interleave: ${e}\n`);
  return code;
}

export function register(program: Command): void {
  const command = program
    .command('explore <spec>')
    .description('explore every interleaving of a spec (bundled, or a module of yours) at its default configs, or one config, and check its properties')
    .option('--config <name>', 'one config (default: every default config; with --mutant, the mutant\'s own config)')
    .option('--mutant <name>', 'a mutant or finding of the spec (`interleave list` shows them)')
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
    .option('--symmetry', 'reduce by the symmetry groups the spec declares (each checked on sampled states first)')
    .addOption(new Option('--lin <mode>', 'linearizability checking (default: incremental when the spec records a history)').choices(['incremental', 'histories', 'off']))
    .option('--replay <path>', 'replay an action path ("label1;label2;...") and check properties along it: exit 1 if it reaches a violation, else 2 (one path is not a verdict); with --config, --mutant, --lin, --exact, --no-deadlock only')
    .option('--redis <url>', 'spread the BFS over `interleave worker`s through this Redis: partitions of the fingerprint space as jobs (exit 69 if it cannot be reached)')
    .option('--workers-per-host <n>', 'with --redis: worker processes to start here for the run (default 1; 0: only workers started elsewhere)', integer(0, 1024))
    .option('--swarm <jobs>', 'with --redis: swarm verification instead of BFS: this many bounded searches (random walks, seeded DFS; --max-depth their depth, --seed the first seed); never "holds"', integer(1, 1_000_000))
    .option('--json', JSON_HELP)
    .option('--itf <file|dir/|pattern>', 'write each counterexample as ITF, one trace per file: a file (one counterexample at most), a directory, or a name with {n}')
    .option('--html <file>', 'write the first counterexample as an HTML page (steps, state changes, processes, client history)')
    .option('--force', 'let --itf and --html replace existing files')
    .action(async (spec: string, o: ExploreCliOptions) => {
      process.exitCode = await runExplore(spec, o);
    });
  withHelp(command, {
    examples: [
      ['interleave explore fusee', 'every default config of a bundled spec'],
      ['interleave explore shadowfax --mutant H1 --html cx.html', "a mutant at its own config; its counterexample as a page"],
      ['interleave explore ./my-spec.ts --workers 4 --json', 'a spec module of yours (interleave init writes one), on 4 threads'],
      ['interleave explore ./my-spec.ts#other --config big --all --itf cx/', 'a named export; every violated property, one ITF file each'],
      ['interleave explore minos --config FB-synch --redis redis://10.0.0.5:6379 --workers-per-host 2', 'BFS over this host\'s 2 workers and every `interleave worker --redis ...` elsewhere'],
      ['interleave explore ./my-spec.ts --replay "read(p0);read(p1);cas(p0);cas(p1)"', 'replay a printed path (--replay "..." under a counterexample), checking every property along it'],
    ],
    exitCodes: {
      0: 'every config holds',
      1: 'a violation (the counterexample is printed; with --replay: the path reaches one)',
      2: 'inconclusive: a state, depth or time budget was hit, simulation found nothing, or a --replay path violates nothing',
      64: 'also a config with no property to check (no invariants, no linearizability, deadlocks or livelocks): a search would say nothing',
      65: "the spec module cannot be loaded, threw, or breaks the contract (init() not a non-empty array, actions() not an array of labelled actions, a symmetry that is not one, a state that is not plain data)",
      69: 'with --redis: Redis cannot be reached, or the connection was lost (no verdict)',
      73: true,
    },
  });
}
