// States per second of a spec's default configs, this checkout against another checkout
// of the same spec (the one before a change, e.g. the move onto specs/kit), in one process,
// alternating, best of `repeat` runs each. Rates are per CPU second of this process (user +
// system, GC threads included), so that a busy machine slows both sides alike; wall-clock
// ratios are printed too. A spec's bench.ts calls it (specs/shadowfax/bench.ts); it checks
// that both sides explore the same number of states.

import { exploreSync } from '../../checkers/explore/index.ts';
import type { ExploreOptions, SpecDef } from '../../checkers/explore/types.ts';

function rate(s: SpecDef, name: string, options: ExploreOptions): { states: number; perSec: number; perWallSec: number } {
  const c = s.configs.find((x) => x.name === name)!;
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const r = exploreSync(s.build(c.config), options);
  const cpu = process.cpuUsage(c0);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { states: r.states, perSec: r.states / ((cpu.user + cpu.system) / 1e6), perWallSec: r.states / (ms / 1000) };
}

/** Prints the before/after table (markdown) of every default config. */
export function compareRates(after: SpecDef, before: SpecDef, repeat: number, options: ExploreOptions = {}, print: (line: string) => void = console.log): void {
  print('| config | states | before (states/CPU s) | after (states/CPU s) | after / before | wall: after / before |');
  print('|---|---:|---:|---:|---:|---:|');
  let sumB = 0;
  let sumA = 0;
  for (const c of after.configs.filter((x) => x.tier === 'default')) {
    let b = 0;
    let a = 0;
    let bw = 0;
    let aw = 0;
    let states = 0;
    for (let i = 0; i < repeat; i++) {
      const rb = rate(before, c.name, options);
      const ra = rate(after, c.name, options);
      if (rb.states !== ra.states) throw new Error(`${c.name}: ${rb.states} states before, ${ra.states} after`);
      states = ra.states;
      b = Math.max(b, rb.perSec);
      a = Math.max(a, ra.perSec);
      bw = Math.max(bw, rb.perWallSec);
      aw = Math.max(aw, ra.perWallSec);
    }
    sumB += states / b;
    sumA += states / a;
    print(`| ${c.name} | ${states.toLocaleString('en-US')} | ${b.toFixed(0)} | ${a.toFixed(0)} | ${(a / b).toFixed(2)} | ${(aw / bw).toFixed(2)} |`);
  }
  print(`| all defaults (CPU s, best runs) | | ${sumB.toFixed(1)} s | ${sumA.toFixed(1)} s | ${(sumB / sumA).toFixed(2)} | |`);
}
