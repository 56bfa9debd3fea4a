// `interleave run <impl>`: a real cluster under a workload and a nemesis, recorded and
// checked (impl/harness/run.ts). Exit 0 linearizable, 1 a violation, 2 unknown, 64 bad
// usage (unknown implementation, bug or nemesis: the valid names are listed), 70 the
// cluster could not start (a port in use, a process dying at start), 73 the output
// directory cannot be created.
import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { implementations } from '../impl/harness/impls.ts';
import { MIN_NEMESIS_DURATION_S, NEMESES } from '../impl/harness/nemesis.ts';
import { makeWorkDir, RunError, runImplementation, type RunSummary } from '../impl/harness/run.ts';
import type { RunOptions } from '../impl/harness/types.ts';
import { installSignalHandlers, liveProcessGroups } from '../impl/kit/supervisor.ts';
import { reportFailure, withErrors } from './errors.ts';
import { EXIT, UsageError } from './exit.ts';
import { envelopeText } from './envelope.ts';
import { integer } from './flags.ts';
import { JSON_HELP, withHelp } from './help.ts';
import { prepareOutputDir, writeOutput } from './output.ts';
import { validateRunTrace } from './validate.ts';

/** The highest port: a --base-port leaves room for the cluster's ports from it on (Implementation.portsTaken). */
export const MAX_BASE_PORT = 65_535;

export interface RunCliOptions {
  clients: number;
  clientProcs?: number;
  keys: number;
  duration: number;
  rate: number;
  readRatio: number;
  nemesis: string;
  bug?: string;
  seed?: string;
  nodes: number;
  /** Default DEFAULT_REPLICAS; for an implementation with every key on every node, --nodes. */
  replicas?: number;
  basePort?: number;
  drain: number;
  checkTimeout: number;
  timeout: number;
  out?: string;
  force?: boolean;
  json?: boolean;
  model?: string;
  offload?: boolean;
}

/** --replicas without the flag (fusee). */
export const DEFAULT_REPLICAS = 3;

export interface Io {
  out(s: string): void;
  err(s: string): void;
  tty?: boolean;
}

/** Runs the command and returns its exit code. */
export async function runRun(implName: string, o: RunCliOptions, io: Io): Promise<number> {
  return withErrors(io.err, () => runOrThrow(implName, o, io));
}

async function runOrThrow(implName: string, o: RunCliOptions, io: Io): Promise<number> {
  const impl = Object.hasOwn(implementations, implName) ? implementations[implName] : undefined;
  if (impl === undefined) throw new UsageError(`unknown implementation ${JSON.stringify(implName)}; known: ${Object.keys(implementations).join(', ')}`);
  let bug: string | undefined;
  if (o.bug !== undefined) {
    bug = impl.bug(o.bug);
    if (bug === undefined) throw new UsageError(`unknown bug ${JSON.stringify(o.bug)} for ${impl.name}; known: ${impl.bugs.map((b) => b.name).join(', ')}`);
  }
  const nemesis = o.nemesis.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const unknown = nemesis.filter((n) => !impl.nemeses.includes(n));
  if (nemesis.length === 0 || unknown.length > 0) throw new UsageError(`unknown nemesis ${JSON.stringify(unknown[0] ?? o.nemesis)}; known: ${impl.nemeses.join(', ')} (comma-separated)`);
  if (nemesis.includes('none') && nemesis.length > 1) throw new UsageError('nemesis "none" cannot be combined with others');
  // No fault fits a shorter run: it would say "faults: none" for a nemesis asked for.
  if (!nemesis.includes('none') && o.duration < MIN_NEMESIS_DURATION_S) {
    throw new UsageError(`--nemesis ${nemesis.join(',')} needs --duration ${MIN_NEMESIS_DURATION_S} or more (faults start 1 to 2 s into the workload and end 1 s before it does: a ${o.duration} s run would have none)`);
  }
  // A flag the implementation would ignore is refused, not recorded as the run's option.
  if (impl.everyKeyOnEveryNode && o.replicas !== undefined && o.replicas !== o.nodes) {
    throw new UsageError(`${impl.name} has no replication factor (--replicas ${o.replicas}): every key is on every node (r = --nodes, ${o.nodes})`);
  }
  if ((o.model !== undefined || o.offload === true) && impl.persistencies === undefined) throw new UsageError(`${impl.name} has no persistency models (--model, --offload)`);
  if (o.model !== undefined && !impl.persistencies!.includes(o.model)) throw new UsageError(`unknown model ${JSON.stringify(o.model)} for ${impl.name}; known: ${impl.persistencies!.join(', ')}`);
  const seed = o.seed ?? String(Date.now() % 1_000_000);
  const options: RunOptions = {
    clients: o.clients,
    clientProcs: Math.min(o.clients, o.clientProcs ?? Math.ceil(o.clients / 4)),
    keys: o.keys,
    duration: o.duration,
    rate: o.rate,
    readRatio: o.readRatio,
    nemesis,
    bug,
    seed,
    nodes: o.nodes,
    replicas: impl.everyKeyOnEveryNode ? o.nodes : (o.replicas ?? DEFAULT_REPLICAS),
    basePort: o.basePort ?? 0,
    drain: o.drain,
    checkTimeout: o.checkTimeout,
    timeoutMs: o.timeout,
    ...(impl.persistencies !== undefined ? { persistency: o.model ?? impl.persistencies[0], offload: o.offload === true } : {}),
  };
  const invalid = impl.validate(options);
  if (invalid !== undefined) throw new UsageError(invalid);
  const ports = impl.portsTaken(options);
  if (options.basePort > 0 && options.basePort + ports - 1 > MAX_BASE_PORT) {
    throw new UsageError(`--base-port ${options.basePort}: this cluster listens on ${ports} ports from it on, past port ${MAX_BASE_PORT.toLocaleString('en-US')}; choose at most ${MAX_BASE_PORT - ports + 1} (or 0: any free ports)`);
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const dir = o.out ?? join('out', `run-${impl.name}-${seed}-${stamp}`);
  const guard = { inputs: [], force: o.force };
  prepareOutputDir(dir, guard);
  let summary: RunSummary;
  try {
    const workDir = makeWorkDir(dir);
    // each trace-*.jsonl there starts with the run's header (ClusterContext.traceHeader), so
    // validate reads them; but every process was killed where it was, with no crash event
    installSignalHandlers((sig) =>
      io.err(
        `\ninterleave: ${sig}: stopped every process of the run; nothing was checked; partial files are in ${workDir}: its trace-*.jsonl (each with the run's header) are incomplete, each process's cut where it was killed with no crash event recorded, so \`interleave validate\` may find them invalid where the implementation did nothing wrong\n`,
      ),
    );
    summary = await runImplementation(impl, options, { dir, workDir, write: (path, data) => writeOutput(path, data, guard), validateTrace: validateRunTrace }, { out: o.json ? () => undefined : io.out, err: io.err, progress: io.tty === true && !o.json });
  } catch (e) {
    // The cluster could not start: not a verdict, and not a bug of interleave's.
    if (e instanceof RunError) {
      reportFailure(e.message, io.err);
      return EXIT.internal;
    }
    throw e;
  }
  if (liveProcessGroups().length > 0) io.err(`interleave: warning: processes still registered after the run: ${liveProcessGroups().join(', ')}\n`);
  if (o.json) io.out(envelopeText('run', summary.exitCode, { implementation: impl.name, options, dir, ...summary }));
  return summary.exitCode;
}

function int(min: number, what = `an integer ≥ ${min}`) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < min) throw new InvalidArgumentError(`expected ${what}.`);
    return n;
  };
}

function num(min: number, max = Infinity, what = `a number ≥ ${min}`) {
  return (v: string): number => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n < min || n > max) throw new InvalidArgumentError(`expected ${what}.`);
    return n;
  };
}

export function register(program: Command): void {
  const command = program
    .command('run')
    .description('run an implementation on real processes under a workload and a nemesis; record, check and report')
    .argument('<impl>', `the implementation: ${Object.keys(implementations).join(', ')}`)
    .option('--clients <n>', 'logical clients', int(1), 8)
    .option('--client-procs <n>', 'client processes they share (default: one per 4 clients)', int(1))
    .option('--keys <n>', 'keys', int(1), 8)
    .option('--duration <s>', 'seconds of workload', num(0.1, 86_400, 'a number of seconds in [0.1, 86400]'), 30)
    .option('--rate <r>', 'operations per second over all clients (0: unlimited)', num(0), 0)
    .option('--read-ratio <p>', 'share of reads', num(0, 1, 'a number in [0, 1]'), 0.5)
    .option('--nemesis <list>', `faults, comma-separated: ${NEMESES.join(', ')} (with --duration ${MIN_NEMESIS_DURATION_S} or more)`, 'none')
    .option('--bug <name>', 'run a bug flag (a mutant of the spec, in code)')
    .option('--seed <s>', 'seed of the workload and the fault schedule (default: printed)')
    .option('--nodes <n>', 'memory nodes', int(1), 3)
    .option('--replicas <r>', `replication factor (fusee: 2 to --nodes, default ${DEFAULT_REPLICAS}; minos: every key is on every node, none to choose)`, int(1))
    .option('--base-port <p>', 'fixed ports P, P+1, ... on 127.0.0.1, all at most 65,535 (0, the default: any free ports)', integer(0, MAX_BASE_PORT))
    .option('--drain <s>', 'seconds operations in flight get to finish once the faults end', num(0), 10)
    .option('--check-timeout <s>', 'seconds the history check may take (0: no limit)', num(0), 300)
    .option('--timeout <ms>', 'verb timeout in ms (an unanswered CAS leaves its client crashed)', int(10), 1000)
    .option('--model <m>', 'persistency model (minos: synch, strict, renf, event, scope; default synch)')
    .option('--offload', 'MINOS-O: the SmartNIC offload ordering (vFIFO/dFIFO, drain before release)')
    .option('--out <dir>', 'output directory (default: out/run-<impl>-<seed>-<time>)')
    .option('--force', "write into an existing non-empty directory: an earlier run's files there are replaced (those this run does not write are removed), nothing else is touched; the processes get a new procs-N/")
    .option('--json', JSON_HELP)
    .action(async (name: string, options: RunCliOptions) => {
      process.exitCode = await runRun(name, options, { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s), tty: process.stderr.isTTY });
    });
  withHelp(command, {
    examples: [
      ['interleave run fusee --duration 10 --nemesis kill-mn,partition', 'ten seconds of workload under two faults; the history checked and the trace validated'],
      ['interleave run minos --model strict --nemesis power --seed 7', 'a full-system crash and recovery, durability checked'],
    ],
    exitCodes: {
      0: 'linearizable, and the trace is valid (and durable, for a crash run)',
      1: 'a violation: not linearizable, the trace does not match the spec, an assertion failed, operations stuck after the faults, or writes lost',
      2: 'unknown: no operation was recorded, the check ran out of time, or the validation was inconclusive',
      64: 'also a --base-port the cluster\'s ports do not fit above, a --nemesis with a --duration too short for any fault',
      70: 'also the cluster could not start (a port in use, a process dying at start: its last output is shown)',
      73: 'the output directory cannot be created, or is not empty (without --force)',
    },
  });
}
