// States per second of a spec at its default configs, one checkout's spec against
// another's (a spec before and after a change, e.g. its move onto specs/kit), in one
// process, alternating (and alternating which side goes first), best of `repeat` runs each (breadth-first, linearizability off, as
// the specs' tests explore). Rates are per CPU second of this process (user + system, GC
// threads included), so that a busy machine slows both sides alike; wall-clock rates are
// printed too. The distinct states must agree, or the run stops: a speed comparison of two
// different machines is meaningless.
//   npx tsx specs/kit/bench.ts <before: specs/<name>/index.ts> <after: specs/<name>/index.ts> [repeat] [--configs A0,A1]

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { exploreSync } from '../../checkers/explore/index.ts';
import type { SpecDef } from '../../checkers/explore/types.ts';

const args = process.argv.slice(2);
const only = args.includes('--configs') ? args.splice(args.indexOf('--configs'), 2)[1].split(',') : undefined;
const [beforePath, afterPath, times] = args;
if (!beforePath || !afterPath) {
  console.error('usage: npx tsx specs/kit/bench.ts <before specs/<name>/index.ts> <after specs/<name>/index.ts> [repeat] [--configs A,B]');
  process.exit(64);
}
const repeat = Number(times ?? 3);
const load = async (p: string) => (await import(pathToFileURL(resolve(p)).href)).spec as SpecDef;
const before = await load(beforePath);
const after = await load(afterPath);

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
  let b = 0;
  let a = 0;
  let bw = 0;
  let aw = 0;
  let states = 0;
  for (let i = 0; i < repeat; i++) {
    // Alternate which side runs first: a run pays for the garbage the one before it left.
    const first = i % 2 === 0 ? before : after;
    const r1 = rate(first, c.name);
    const r2 = rate(first === before ? after : before, c.name);
    const [rb, ra] = first === before ? [r1, r2] : [r2, r1];
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
