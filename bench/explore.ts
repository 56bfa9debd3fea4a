// The explorer's benchmark: distinct states per second on the racy counter N=4, K=4
// (3,892,125 states, 13,955,872 transitions, depth 32), with 1 and 2 workers, peak
// memory, and bytes of store per distinct state. Each run is a child process, so that its
// peak memory is its own. When SPIN (Debian package `spin`) and gcc are installed, the
// same model in Promela is verified by SPIN's compiled verifier in the same run, as the
// baseline (reductions off, exhaustive, 64-bit hash compaction off: plain stored states).
//
//   npm run bench:explore            (node --import tsx --expose-gc bench/explore.ts)
//   npm run bench:explore -- --plain (also the plain-object racy counter, 1 worker)
//   npm run bench:explore -- --repeat 3 (each run, SPIN's too, 3 times; the fastest kept:
//                                        other work on a shared machine only slows a run)

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { explore, exploreSync } from '../checkers/explore/index.ts';
import { racyCounter } from '../checkers/explore/fixtures/racy-counter.ts';
import { racyCounterPacked } from '../checkers/explore/fixtures/racy-counter-packed.ts';

const N = 4;
const K = 4;
const EXPECTED = { states: 3_892_125, transitions: 13_955_872, depth: 32 };

interface Figures {
  name: string;
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

async function one(mode: string): Promise<Figures> {
  const packed = new URL('../checkers/explore/fixtures/racy-counter-packed.ts', import.meta.url).href;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r =
    mode === 'packed-1'
      ? exploreSync(racyCounterPacked(N, K))
      : mode === 'packed-2'
        ? await explore({ module: packed, export: 'racyCounterPacked', args: [N, K] }, { workers: 2 })
        : exploreSync(racyCounter(N, K));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  return {
    name: mode,
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
    correct: r.status === 'holds' && r.states === EXPECTED.states && r.transitions === EXPECTED.transitions && r.depth === EXPECTED.depth,
  };
}

function child(mode: string): Figures {
  const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--one', mode], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!) as Figures;
}

/** The racy counter in Promela: one process whose loop offers each of the 2N steps. */
function promela(): string {
  const decls = Array.from({ length: N }, (_, p) => `byte step${p}, t${p}, done${p};`).join('\n');
  const steps = Array.from({ length: N }, (_, p) => [
    `  :: atomic { step${p} == 0 && done${p} < ${K} -> t${p} = x; step${p} = 1 }`,
    `  :: atomic { step${p} == 1 -> x = t${p} + 1; t${p} = 0; step${p} = 0; done${p}++ }`,
  ]).flat();
  return `byte x;\n${decls}\nactive proctype main() {\n  do\n${steps.join('\n')}\n  od\n}\n`;
}

function spin(): { seconds: number; cpuSeconds: number; states: number; rate?: number; memoryMB?: number; output: string } | undefined {
  if (spawnSync('spin', ['-V']).status !== 0 || spawnSync('gcc', ['--version']).status !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'interleave-spin-'));
  writeFileSync(join(dir, 'racy.pml'), promela());
  execFileSync('spin', ['-a', 'racy.pml'], { cwd: dir });
  execFileSync('gcc', ['-O2', '-DNOREDUCE', '-DSAFETY', '-DMEMLIM=4096', '-o', 'pan', 'pan.c'], { cwd: dir });
  // -E: the loop blocks once every process is done, which SPIN would report as an invalid
  // end state (our spec simply has no mayStop, so terminal states are allowed).
  const t0 = performance.now();
  const run = spawnSync('bash', ['-c', 'TIMEFORMAT="cpu %U %S"; time ./pan -E -m100000 -w24'], { cwd: dir, encoding: 'utf8' });
  const seconds = (performance.now() - t0) / 1000;
  const output = run.stdout;
  const cpu = /cpu ([\d.]+) ([\d.]+)/.exec(run.stderr);
  const stored = /([\d.e+]+) states, stored/.exec(output);
  const rate = /rate\s+([\d.e+]+)\s+states\/second/.exec(output);
  const memory = /([\d.]+)\s+total actual memory usage/.exec(output);
  return {
    seconds,
    cpuSeconds: cpu ? Number(cpu[1]) + Number(cpu[2]) : NaN,
    states: stored ? Number(stored[1]) : NaN,
    ...(rate ? { rate: Number(rate[1]) } : {}),
    ...(memory ? { memoryMB: Number(memory[1]) } : {}),
    output,
  };
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

if (process.argv[2] === '--one') {
  process.stdout.write(`${JSON.stringify(await one(process.argv[3]))}\n`);
} else {
  const load = (await import('node:os')).loadavg()[0];
  console.log(`racy counter N=${N}, K=${K}: expecting ${fmt(EXPECTED.states)} states, ${fmt(EXPECTED.transitions)} transitions, depth ${EXPECTED.depth}`);
  console.log(`load average before the runs: ${load.toFixed(2)} on ${(await import('node:os')).cpus().length} cores (other work on the machine slows every figure)`);
  const modes = ['packed-1', 'packed-2', ...(process.argv.includes('--plain') ? ['plain-1'] : [])];
  const repeat = process.argv.includes('--repeat') ? Math.max(1, Number(process.argv[process.argv.indexOf('--repeat') + 1]) || 1) : 1;
  const fastest = <T extends { seconds: number }>(runs: T[]): T => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  // Interleaved (ours, then SPIN, in turn), so that a slow spell of the machine hits both.
  const runs = Array.from({ length: repeat }, () => ({ rows: modes.map(child), spin: spin() }));
  const rows = modes.map((_, i) => fastest(runs.map((r) => r.rows[i])));
  const spins = runs.map((r) => r.spin).filter((b) => b !== undefined);
  const baseline = spins.length > 0 ? fastest(spins) : undefined;
  if (repeat > 1) console.log(`fastest of ${repeat} runs of each (SPIN's too); all wall times: ${modes.map((m, i) => `${m} ${runs.map((r) => fmt(r.rows[i].seconds, 2)).join('/')} s`).join(', ')}${spins.length > 0 ? `, SPIN ${spins.map((b) => fmt(b.seconds, 2)).join('/')} s` : ''}`);
  console.log('');
  console.log('run        correct  states/s  (search only)  wall time  cpu time   peak RSS   store B/state  store+trace B/state');
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(10)} ${String(r.correct).padEnd(8)} ${fmt(r.statesPerSecond).padStart(9)}  ${fmt(r.searchStatesPerSecond).padStart(13)}  ${fmt(r.seconds, 2).padStart(7)} s  ${fmt(r.cpuSeconds, 2).padStart(6)} s  ${fmt(r.peakMB).padStart(6)} MB  ${fmt(r.storeBytesPerState ?? NaN, 1).padStart(13)}  ${fmt(r.bytesPerState ?? NaN, 1).padStart(19)}`,
    );
  }
  const SPIN_REFERENCE = { statesPerSecond: 3_892_125 / 4.6, seconds: 4.6, memoryMB: 315, note: 'SPIN 6.5.2 -DNOREDUCE, measured on this machine when the issue was written' };
  const ref = baseline && Number.isFinite(baseline.states) ? { statesPerSecond: baseline.states / baseline.seconds, seconds: baseline.seconds, memoryMB: baseline.memoryMB ?? NaN, note: 'SPIN measured in this run' } : SPIN_REFERENCE;
  console.log('');
  if (baseline) console.log(`SPIN in this run: ${fmt(baseline.states)} states stored in ${fmt(baseline.seconds, 2)} s wall, ${fmt(baseline.cpuSeconds, 2)} s cpu, ${fmt(baseline.memoryMB ?? NaN)} MB`);
  console.log(`baseline: ${fmt(ref.statesPerSecond)} states/s (${ref.note})`);
  for (const r of rows) {
    console.log(`  ${r.name}: ${fmt(r.statesPerSecond / ref.statesPerSecond, 2)}x the baseline's rate (${fmt(r.searchStatesPerSecond / ref.statesPerSecond, 2)}x without worker start-up)`);
  }
  const one = rows.find((r) => r.name === 'packed-1');
  const two = rows.find((r) => r.name === 'packed-2');
  if (one && two) console.log(`  speed-up of 2 workers over 1: ${fmt(two.statesPerSecond / one.statesPerSecond, 2)}x`);
  console.log(`targets: 1 worker >= 1.0x, 2 workers >= 1.6x, store <= 16 bytes per distinct state (fingerprint mode)`);
  if (rows.some((r) => !r.correct)) {
    console.error('a run did not find exactly the expected states, transitions and depth');
    process.exitCode = 1;
  }
}
