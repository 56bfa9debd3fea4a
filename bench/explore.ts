// The explorer's benchmark, against SPIN in the same run.
// - The racy counter N=4, K=4 (3,892,125 states, 13,955,872 transitions, depth 32): packed
//   into one number with 1 and 2 workers, on the kit's state layout, and as plain objects.
// - Two-phase commit with 7 resource managers (296,448 states), written with plain objects
//   the way the README teaches (fixtures/two-phase-commit.ts).
// Each run is a child process, so that its peak memory is its own. When SPIN (Debian
// package `spin`) and gcc are installed, the same models in Promela are verified by SPIN's
// compiled verifier in the same run, as the baseline (reductions off, exhaustive, 64-bit
// hash compaction off: plain stored states). Ratios are given by CPU time (user + system,
// all threads) and by wall time: on a loaded machine wall time mostly measures the load.
//
//   npm run bench:explore            (node --import tsx --expose-gc bench/explore.ts)
//       5 rounds; in each, SPIN and each of our runs of the same model in turn (SPIN first
//       in even rounds, last in odd ones); ratios are SPIN's median CPU time over ours, every
//       run counted, with the per-round ratios' spread printed beside them (bench/README.md)
//   npm run bench:explore -- --repeat 7 [--only layout-1,plain-1]   7 rounds; some runs only
//   node --import tsx bench/explore.ts --one layout-1 [--shape 3,8]   one run (JSON), on the
//       racy counter N=4, K=4 or another shape of SHAPES; --spin 3,8: SPIN alone on one
//   npm run bench:explore -- --specs [--compare DIR] [--repeat 3]
//       each seed spec's default configs (safety search with the monitor, as `interleave
//       check` runs it, livelock search aside): states, CPU time, states per CPU second;
//       with --compare, the same with another checkout's engine and specs (e.g. the
//       tree before a change, from `git archive`), alternating run by run; each run is a
//       process of its own (explore-spec.ts)

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { explore, exploreSync } from '../checkers/explore/index.ts';
import type { SpecFigures } from './explore-spec.ts';
import { racyCounter } from '../checkers/explore/fixtures/racy-counter.ts';
import { racyCounterPacked } from '../checkers/explore/fixtures/racy-counter-packed.ts';
import { racyCounterLayout } from '../specs/kit/racy-counter-layout.ts';
import { twoPhaseCommit, twoPhaseCommitPromela } from '../checkers/explore/fixtures/two-phase-commit.ts';

const N = 4;
const K = 4;
const RMS = 7;
const EXPECTED = {
  racy: { states: 3_892_125, transitions: 13_955_872, depth: 32 },
  tpc: { states: 296_448, transitions: 1_735_809, depth: 22 },
};
/**
 * Other shapes of the racy counter, so that a change is not judged on the one input it was
 * tuned on: `--one layout-1 --shape 3,8` (or packed-1, plain-1) runs N=3, K=8 instead. Their
 * counts were found by the packed, layout and plain searches alike.
 */
const SHAPES: Record<string, { states: number; transitions: number; depth: number }> = {
  '3,8': { states: 3_405_259, transitions: 9_666_855, depth: 48 },
  '2,40': { states: 7_576_537, transitions: 14_952_898, depth: 160 },
  '5,2': { states: 384_466, transitions: 1_479_015, depth: 20 },
};

interface Figures {
  name: string;
  model: 'racy' | 'tpc';
  states: number;
  transitions: number;
  depth: number;
  seconds: number;
  /** CPU time of all threads (user + system): on a loaded machine, wall time overstates. */
  cpuSeconds: number;
  statesPerSecond: number;
  /** Excluding worker start-up (loading tsx and the spec in each thread), as SPIN's rate excludes compiling pan.c. */
  searchStatesPerSecond: number;
  peakMB: number;
  storeBytesPerState?: number;
  bytesPerState?: number;
  correct: boolean;
}

const MODES = ['packed-1', 'packed-2', 'layout-1', 'plain-1', 'tpc-plain-1'] as const;

async function one(mode: string, shape = `${N},${K}`): Promise<Figures> {
  const packed = new URL('../checkers/explore/fixtures/racy-counter-packed.ts', import.meta.url).href;
  const model = mode.startsWith('tpc') ? 'tpc' : 'racy';
  const [n, k] = shape.split(',').map(Number);
  const expected = shape === `${N},${K}` || model === 'tpc' ? EXPECTED[model] : SHAPES[shape];
  if (expected === undefined) throw new Error(`--shape: one of ${Object.keys(SHAPES).join(' ')}, not ${shape}`);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r =
    mode === 'packed-1'
      ? exploreSync(racyCounterPacked(n, k))
      : mode === 'packed-2'
        ? await explore({ module: packed, export: 'racyCounterPacked', args: [n, k] }, { workers: 2 })
        : mode === 'layout-1'
          ? exploreSync(racyCounterLayout(n, k))
          : mode === 'tpc-plain-1'
            ? exploreSync(twoPhaseCommit(RMS))
            : exploreSync(racyCounter(n, k));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  return {
    name: shape === `${N},${K}` ? mode : `${mode} ${shape}`,
    model,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    states: r.states,
    transitions: r.transitions,
    depth: r.depth,
    seconds,
    statesPerSecond: r.states / seconds,
    searchStatesPerSecond: r.states / (seconds - (r.startupMs ?? 0) / 1000),
    peakMB: process.resourceUsage().maxRSS / 1024,
    ...(r.storeBytesPerState !== undefined ? { storeBytesPerState: r.storeBytesPerState } : {}),
    ...(r.bytesPerState !== undefined ? { bytesPerState: r.bytesPerState } : {}),
    correct: r.status === 'holds' && r.states === expected.states && r.transitions === expected.transitions && r.depth === expected.depth,
  };
}

function child(...args: string[]): string {
  const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  return out.trim().split('\n').pop()!;
}

/** The racy counter in Promela: one process whose loop offers each of the 2N steps. */
function promela(n = N, k = K): string {
  const decls = Array.from({ length: n }, (_, p) => `byte step${p}, t${p}, done${p};`).join('\n');
  const steps = Array.from({ length: n }, (_, p) => [
    `  :: atomic { step${p} == 0 && done${p} < ${k} -> t${p} = x; step${p} = 1 }`,
    `  :: atomic { step${p} == 1 -> x = t${p} + 1; t${p} = 0; step${p} = 0; done${p}++ }`,
  ]).flat();
  return `byte x;\n${decls}\nactive proctype main() {\n  do\n${steps.join('\n')}\n  od\n}\n`;
}

interface Spin {
  seconds: number;
  cpuSeconds: number;
  states: number;
  memoryMB?: number;
}

/** SPIN's verifier for a model, compiled once (pan.c with gcc): the directory it is in, or undefined without SPIN or gcc. */
function compileSpin(model: string): string | undefined {
  if (spawnSync('spin', ['-V']).status !== 0 || spawnSync('gcc', ['--version']).status !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'interleave-spin-'));
  writeFileSync(join(dir, 'model.pml'), model);
  execFileSync('spin', ['-a', 'model.pml'], { cwd: dir });
  execFileSync('gcc', ['-O2', '-DNOREDUCE', '-DSAFETY', '-DMEMLIM=4096', '-o', 'pan', 'pan.c'], { cwd: dir });
  return dir;
}

/** One run of a compiled verifier. */
function runSpin(dir: string): Spin {
  // -E: the loop blocks once every process is done, which SPIN would report as an invalid
  // end state (our spec simply has no mayStop, so terminal states are allowed).
  const t0 = performance.now();
  const run = spawnSync('bash', ['-c', 'TIMEFORMAT="cpu %U %S"; time ./pan -E -m100000 -w24'], { cwd: dir, encoding: 'utf8' });
  const seconds = (performance.now() - t0) / 1000;
  const output = run.stdout;
  const cpu = /cpu ([\d.]+) ([\d.]+)/.exec(run.stderr);
  const stored = /([\d.e+]+) states, stored/.exec(output);
  const memory = /([\d.]+)\s+total actual memory usage/.exec(output);
  return {
    seconds,
    cpuSeconds: cpu ? Number(cpu[1]) + Number(cpu[2]) : NaN,
    states: stored ? Number(stored[1]) : NaN,
    ...(memory ? { memoryMB: Number(memory[1]) } : {}),
  };
}

function spin(model: string): Spin | undefined {
  const dir = compileSpin(model);
  return dir === undefined ? undefined : runSpin(dir);
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
/** --specs: runs of each tree, the fastest kept. */
const repeat = Math.max(1, Number(arg('--repeat') ?? 1) || 1);
const loadLine = async () => {
  const os = await import('node:os');
  return `load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} on ${os.cpus().length} cores`;
};

// Each spec run is a child process that loads one tree's engine and specs and nothing else
// (explore-spec.ts): with this tree's engine loaded beside it, as it was when this file ran
// them, the compared tree's later configs sometimes ran slower, which flattered this tree.
// Each tree's runs start node with the V8 flags its `interleave check` sets (its
// cli/v8-flags.ts; none for a tree without one), so that they measure what its command does.
function specChild(root: string, name: string, flags: readonly string[]): SpecFigures {
  const script = fileURLToPath(new URL('./explore-spec.ts', import.meta.url));
  const out = execFileSync(process.execPath, ['--import', 'tsx', ...flags, script, root, name], { encoding: 'utf8', maxBuffer: 1 << 24 });
  return JSON.parse(out.trim().split('\n').pop()!) as SpecFigures;
}

async function checkFlagsOf(root: string): Promise<readonly string[]> {
  const file = join(root, 'cli/v8-flags.ts');
  if (!existsSync(file)) return [];
  return ((await import(pathToFileURL(file).href)) as { CHECK_V8_FLAGS: readonly string[] }).CHECK_V8_FLAGS;
}

async function specsMain(): Promise<void> {
  const here = fileURLToPath(new URL('..', import.meta.url));
  const compare = arg('--compare');
  const names = (arg('--only') ?? 'fusee,minos,rowan,shadowfax,swarm').split(',');
  console.log(`seed specs, default configs: ${await loadLine()}`);
  const trees = compare ? [['this tree', here], ['compared', compare]] : [['this tree', here]];
  const flags = new Map<string, readonly string[]>();
  for (const [label, root] of trees) {
    flags.set(root, await checkFlagsOf(root));
    console.log(`${label}'s runs with the V8 flags of its \`interleave check\` (cli/v8-flags.ts): ${flags.get(root)!.join(' ') || 'none'}`);
  }
  const best = new Map<string, SpecFigures>();
  // per config, the fastest run of each tree (by CPU time)
  const bestConfig = new Map<string, SpecFigures['configs'][number]>();
  for (let k = 0; k < repeat; k++) {
    for (const name of names) {
      for (const [label, root] of trees) {
        const f = specChild(root, name, flags.get(root)!);
        const key = `${label}\0${name}`;
        const prev = best.get(key);
        if (!prev || f.cpuSeconds < prev.cpuSeconds) best.set(key, f);
        for (const c of f.configs) {
          const ck = `${key}\0${c.config}`;
          const pc = bestConfig.get(ck);
          if (!pc || c.cpuSeconds < pc.cpuSeconds) bestConfig.set(ck, c);
        }
      }
    }
  }
  console.log(`${await loadLine()} after the runs; fastest of ${repeat} by CPU time`);
  console.log('');
  console.log(`spec        tree        states     cpu time   wall time  states/cpu-s  peak RSS${compare ? '  speed-up' : ''}`);
  let mismatch = false;
  for (const name of names) {
    const mine = best.get(`this tree\0${name}`)!;
    for (const [label] of trees) {
      const f = best.get(`${label}\0${name}`)!;
      const speedup = compare && label === 'this tree' ? `  ${fmt(f.states / f.cpuSeconds / (best.get(`compared\0${name}`)!.states / best.get(`compared\0${name}`)!.cpuSeconds), 2)}x` : '';
      console.log(`${name.padEnd(11)} ${label.padEnd(10)} ${fmt(f.states).padStart(8)} ${fmt(f.cpuSeconds, 2).padStart(9)} s ${fmt(f.seconds, 2).padStart(9)} s ${fmt(f.states / f.cpuSeconds).padStart(12)}  ${fmt(f.peakMB).padStart(5)} MB${speedup}`);
      if (label !== 'this tree') {
        for (const c of f.configs) {
          const m = mine.configs.find((x) => x.config === c.config);
          if (!m || m.states !== c.states || m.transitions !== c.transitions || m.depth !== c.depth || m.status !== c.status) {
            mismatch = true;
            console.error(`${name}/${c.config}: ${m ? `${m.status} ${m.states}/${m.transitions}/${m.depth}` : 'missing'} here, ${c.status} ${c.states}/${c.transitions}/${c.depth} there`);
          }
        }
      }
    }
  }
  if (compare) {
    // per config, each tree's fastest run (a config only this tree has gets no ratio)
    console.log('');
    console.log('| spec | config | states | CPU s (compared) | CPU s (this tree) | states/CPU s (compared) | states/CPU s (this tree) | this / compared |');
    console.log('|---|---|---:|---:|---:|---:|---:|---:|');
    for (const name of names) {
      for (const c of best.get(`this tree\0${name}`)!.configs) {
        const a = bestConfig.get(`this tree\0${name}\0${c.config}`)!;
        const b = bestConfig.get(`compared\0${name}\0${c.config}`);
        const rate = (x: { states: number; cpuSeconds: number }) => x.states / x.cpuSeconds;
        console.log(
          `| ${name} | ${c.config} | ${fmt(a.states)} | ${b ? fmt(b.cpuSeconds, 2) : '-'} | ${fmt(a.cpuSeconds, 2)} | ${b ? fmt(rate(b)) : 'not a default there'} | ${fmt(rate(a))} | ${b ? `${fmt(rate(a) / rate(b), 2)}x` : '-'} |`,
        );
      }
    }
  }
  if (mismatch) process.exitCode = 1;
}

/** The middle value (the mean of the two middle ones for an even count). */
const median = (xs: number[]): number => {
  const s = xs.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const range = (xs: number[], digits = 2) => `${fmt(Math.min(...xs), digits)}-${fmt(Math.max(...xs), digits)}`;

/**
 * The measurement rule (bench/README.md): `rounds` rounds; in each, SPIN and each of our
 * runs of the same model, one after the other, SPIN first in even rounds and last in odd
 * ones, so that a slow spell of the machine (or of SPIN's own: its time on a quiet machine
 * spreads 4.2-6.3 s) falls on both sides alike. Each ratio is SPIN's median CPU time over
 * ours, over every run (none dropped); the spread of the per-round ratios is printed
 * beside it.
 */
async function main(): Promise<void> {
  const rounds = Math.max(1, Number(arg('--repeat') ?? 5) || 1);
  const only = arg('--only')?.split(',');
  const modes = MODES.filter((m) => !only || only.includes(m));
  console.log(`racy counter N=${N}, K=${K}: expecting ${fmt(EXPECTED.racy.states)} states, ${fmt(EXPECTED.racy.transitions)} transitions, depth ${EXPECTED.racy.depth}; two-phase commit, ${RMS} resource managers: ${fmt(EXPECTED.tpc.states)} states`);
  console.log(`${rounds} rounds, SPIN and ours alternating; medians over all runs`);
  console.log(`before the runs: ${await loadLine()} (other work on the machine slows every figure, wall time most)`);
  const pan = { racy: compileSpin(promela()), tpc: compileSpin(twoPhaseCommitPromela(RMS)) };
  const ours = new Map<string, Figures[]>(modes.map((m) => [m, []]));
  const spins = { racy: [] as Spin[], tpc: [] as Spin[] };
  for (let r = 0; r < rounds; r++) {
    for (const model of ['racy', 'tpc'] as const) {
      const mine = modes.filter((m) => (m.startsWith('tpc') ? 'tpc' : 'racy') === model);
      if (mine.length === 0) continue;
      const dir = pan[model];
      const runSpinOnce = () => {
        if (dir !== undefined) spins[model].push(runSpin(dir));
      };
      if (r % 2 === 0) runSpinOnce();
      for (const m of mine) ours.get(m)!.push(JSON.parse(child('--one', m)) as Figures);
      if (r % 2 === 1) runSpinOnce();
    }
    console.log(`round ${r + 1} of ${rounds} done: ${await loadLine()}`);
  }
  console.log(`after the runs: ${await loadLine()}`);
  console.log('');
  console.log('run          correct   cpu s (median)  cpu s (range)   wall s (median)  states/cpu-s  peak RSS (median, max)  store B/state  store+trace B/state');
  for (const m of modes) {
    const runs = ours.get(m)!;
    const cpu = median(runs.map((x) => x.cpuSeconds));
    const last = runs[runs.length - 1];
    console.log(
      `${m.padEnd(12)} ${String(runs.every((x) => x.correct)).padEnd(8)} ${fmt(cpu, 2).padStart(9)} s  ${range(runs.map((x) => x.cpuSeconds)).padStart(13)} s  ${fmt(median(runs.map((x) => x.seconds)), 2).padStart(9)} s  ${fmt(last.states / cpu).padStart(12)}  ${fmt(median(runs.map((x) => x.peakMB))).padStart(5)}, ${fmt(Math.max(...runs.map((x) => x.peakMB))).padStart(5)} MB  ${fmt(last.storeBytesPerState ?? NaN, 1).padStart(17)}  ${fmt(last.bytesPerState ?? NaN, 1).padStart(19)}`,
    );
  }
  console.log('');
  for (const model of ['racy', 'tpc'] as const) {
    const mine = modes.filter((m) => (m.startsWith('tpc') ? 'tpc' : 'racy') === model);
    if (mine.length === 0) continue;
    const b = spins[model].filter((x) => Number.isFinite(x.cpuSeconds) && Number.isFinite(x.states));
    if (b.length === 0) {
      console.log(`${model}: SPIN (and gcc) not installed: no baseline in this run (the issue measured SPIN 6.5.2 at 0.90 M states/s on the racy counter, quiet machine)`);
      continue;
    }
    const cpu = median(b.map((x) => x.cpuSeconds));
    const wall = median(b.map((x) => x.seconds));
    const mem = median(b.map((x) => x.memoryMB ?? NaN));
    console.log(
      `SPIN, ${model === 'racy' ? 'racy counter' : 'two-phase commit'}: ${fmt(b[0].states)} states stored; cpu s median ${fmt(cpu, 2)} (${range(b.map((x) => x.cpuSeconds))} over ${b.length} runs: ${b.map((x) => fmt(x.cpuSeconds, 2)).join(' ')}), ${fmt(b[0].states / cpu)} states/cpu-s, wall median ${fmt(wall, 2)} s, ${fmt(mem)} MB`,
    );
    for (const m of mine) {
      const runs = ours.get(m)!;
      const c = median(runs.map((x) => x.cpuSeconds));
      // Per round: SPIN's run of that round over ours (rounds where SPIN's output could not be read are left out).
      const pairs = runs.flatMap((x, i) => {
        const s = spins[model][i];
        return s && Number.isFinite(s.cpuSeconds) ? [s.cpuSeconds / x.cpuSeconds] : [];
      });
      console.log(
        `  ${m}: ${fmt(cpu / c, 2)}x SPIN's rate by median CPU time (per round ${range(pairs)}, median ${fmt(median(pairs), 2)}; ours ${runs.map((x) => fmt(x.cpuSeconds, 2)).join(' ')}), ${fmt(wall / median(runs.map((x) => x.seconds)), 2)}x by median wall time; peak memory ${fmt(median(runs.map((x) => x.peakMB)) / mem, 2)}x SPIN's`,
      );
    }
  }
  const one = ours.get('packed-1');
  const two = ours.get('packed-2');
  if (one?.length && two?.length) console.log(`  speed-up of 2 workers over 1 (packed, median wall): ${fmt(median(one.map((x) => x.seconds)) / median(two.map((x) => x.seconds)), 2)}x`);
  console.log(`targets (issue 22): plain racy counter >= 0.5x SPIN, layout >= 1.5x; (issue 8) packed 1 worker >= 1.0x, 2 workers >= 1.6x, store <= 16 bytes per distinct state`);
  if ([...ours.values()].some((runs) => runs.some((r) => !r.correct))) {
    console.error('a run did not find exactly the expected states, transitions and depth');
    process.exitCode = 1;
  }
}

if (process.argv[2] === '--spin') {
  // SPIN alone on a shape of the racy counter (`--spin 3,8`), as in the full run.
  const [n, k] = process.argv[3].split(',').map(Number);
  process.stdout.write(`${JSON.stringify(spin(promela(n, k)))}\n`);
} else if (process.argv[2] === '--one') {
  process.stdout.write(`${JSON.stringify(await one(process.argv[3], arg('--shape')))}\n`);
} else if (process.argv.includes('--specs')) {
  await specsMain();
} else {
  await main();
}
