// The rowan spec in this checkout against another checkout of it (e.g. before its move
// onto specs/kit), in one process.
//   npx tsx specs/rowan/bench.ts <other specs/rowan/index.ts> [repeat] [--only NAME,...]
// States per CPU second at the default configs, alternating, best of `repeat` runs each
// (breadth-first, linearizability off). CPU time of this process (user + system), so that a
// busy machine slows both sides alike; wall-clock ratios are printed too. Every pair must
// count the same states.
//   npx tsx specs/rowan/bench.ts <other specs/rowan/index.ts> --traces
// The counterexample (property and action labels) of every mutant and finding whose config
// is a default one or stops early (and of the findings and the migration mutants at
// RK-MIG1): identical on both sides means both enumerate actions in the same order.
import { exploreSync } from '../../checkers/explore/index.ts';
import type { SpecDef } from '../../checkers/explore/types.ts';
import { spec as after } from './index.ts';

const other = process.argv[2];
const repeat = Number(/^\d+$/.test(process.argv[3] ?? '') ? process.argv[3] : 3);
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? process.argv[onlyAt + 1].split(',') : undefined;
if (!other || repeat < 1) {
  console.error('usage: npx tsx specs/rowan/bench.ts <other specs/rowan/index.ts> [repeat] [--only NAME,...] [--traces]');
  process.exit(64);
}
const before = (await import(other)).spec as SpecDef;
const configOf = (s: SpecDef, name: string) => s.configs.find((x) => x.name === name)!.config;

function rate(s: SpecDef, name: string): { states: number; perSec: number; perWallSec: number } {
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const r = exploreSync(s.build(configOf(s, name)), { linearizability: 'off' });
  const cpu = process.cpuUsage(c0);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { states: r.states, perSec: r.states / ((cpu.user + cpu.system) / 1e6), perWallSec: r.states / (ms / 1000) };
}

function speed(): void {
  console.log('| config | states | before (states/CPU s) | after (states/CPU s) | after / before | wall: after / before |');
  console.log('|---|---|---|---|---|---|');
  let sumB = 0;
  let sumA = 0;
  for (const c of after.configs.filter((x) => x.tier === 'default' && (!only || only.includes(x.name)))) {
    let [b, a, bw, aw, states] = [0, 0, 0, 0, 0];
    for (let i = 0; i < repeat; i++) {
      const rb = rate(before, c.name);
      const ra = rate(after, c.name);
      if (rb.states !== ra.states) throw new Error(`${c.name}: ${rb.states} states before, ${ra.states} after`);
      states = ra.states;
      b = Math.max(b, rb.perSec);
      a = Math.max(a, ra.perSec);
      bw = Math.max(bw, rb.perWallSec);
      aw = Math.max(aw, ra.perWallSec);
    }
    sumB += states / b;
    sumA += states / a;
    console.log(`| ${c.name} | ${states} | ${b.toFixed(0)} | ${a.toFixed(0)} | ${(a / b).toFixed(2)} | ${(aw / bw).toFixed(2)} |`);
  }
  console.log(`| all defaults (CPU s, best runs) | | ${sumB.toFixed(1)} s | ${sumA.toFixed(1)} s | ${(sumB / sumA).toFixed(2)} | |`);
}

function traces(): void {
  const tierOf = (n: string) => after.configs.find((c) => c.name === n)!.tier;
  // Full-tier mutants whose counterexample is found within seconds.
  const early = ['M11', 'M20a', 'M20b', 'M21', 'M24', 'M25'];
  const jobs: [variant: string, config: string][] = [
    ...after.mutants.filter((m) => tierOf(m.config) === 'default' || early.includes(m.name)).map((m): [string, string] => [m.name, m.config]),
    ...(after.findings ?? []).map((f): [string, string] => [f.variant, 'RK-MIG1']),
    ...['M20a', 'M20b', 'M25'].map((m): [string, string] => [m, 'RK-MIG1']),
  ].filter(([v]) => !only || only.includes(v));
  let same = 0;
  for (const [v, c] of jobs) {
    const run = (s: SpecDef) => {
      const r = exploreSync(s.build(configOf(s, c), v));
      const x = r.violations[0];
      return x ? `${x.property} in ${x.steps.length} steps: ${x.steps.map((st) => st.action.label).join(' ')}` : r.status;
    };
    const a = run(before);
    const b = run(after);
    if (a === b) same++;
    console.log(a === b ? `same ${v} at ${c}: ${b.split(':')[0]}` : `DIFFERENT ${v} at ${c}\n  before ${a}\n  after  ${b}`);
  }
  console.log(`${same}/${jobs.length} counterexamples identical`);
  if (same !== jobs.length) process.exitCode = 1;
}

if (process.argv.includes('--traces')) traces();
else speed();
