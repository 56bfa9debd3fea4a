// States per second of the rowan spec at its default configs, this checkout against
// another checkout of it (e.g. before its move onto specs/kit), in one process,
// alternating, best of `repeat` runs each (breadth-first, linearizability off). Rates are
// per CPU second of this process (user + system), so that a busy machine slows both sides
// alike; wall-clock ratios are printed too. Every pair must count the same states.
//   npx tsx specs/rowan/bench.ts <the other checkout's specs/rowan/index.ts> [repeat] [--only NAME,...]
import { exploreSync } from '../../checkers/explore/index.ts';
import type { SpecDef } from '../../checkers/explore/types.ts';
import { spec as after } from './index.ts';

const other = process.argv[2];
const repeat = Number(process.argv[3] ?? 3);
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? process.argv[onlyAt + 1].split(',') : undefined;
if (!other || !Number.isInteger(repeat) || repeat < 1) {
  console.error('usage: npx tsx specs/rowan/bench.ts <other specs/rowan/index.ts> [repeat] [--only NAME,...]');
  process.exit(64);
}
const before = (await import(other)).spec as SpecDef;

function rate(s: SpecDef, name: string): { states: number; perSec: number; perWallSec: number } {
  const c = s.configs.find((x) => x.name === name)!;
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const r = exploreSync(s.build(c.config), { linearizability: 'off' });
  const cpu = process.cpuUsage(c0);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { states: r.states, perSec: r.states / ((cpu.user + cpu.system) / 1e6), perWallSec: r.states / (ms / 1000) };
}

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
