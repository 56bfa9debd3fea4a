// States per second of a spec's default configs, one checkout's spec against another's
// (a spec before and after a change, e.g. its move onto specs/kit), in one process,
// alternating which side goes first (a run pays for the garbage the one before it left),
// best of `repeat` runs each. Rates are per CPU second of this process (user + system, GC
// threads included), so that a busy machine slows both sides alike; wall-clock ratios are
// printed too. The distinct states must agree, or the run stops: a speed comparison of two
// different machines is meaningless. A spec's bench.ts calls `compareRates`; run directly:
//   npx tsx specs/kit/bench.ts <before: specs/<name>/index.ts> <after: specs/<name>/index.ts> [repeat] [--configs A0,A1] [--as-check]
// By default both sides run on this checkout's engine with linearizability off: the
// spec's own speed. With --as-check each side runs on its own checkout's engine (the
// checkers/explore beside its specs/) with the monitor on, as `interleave check` explores
// a default config (livelock search aside): the speed a user sees, engine included.

import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { exploreSync } from '../../checkers/explore/index.ts';
import type { ExploreOptions, SpecDef } from '../../checkers/explore/types.ts';

type Explore = typeof exploreSync;

function rate(s: SpecDef, name: string, options: ExploreOptions, explore: Explore): { states: number; perSec: number; perWallSec: number } {
  const c = s.configs.find((x) => x.name === name)!;
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const r = explore(s.build(c.config), options);
  const cpu = process.cpuUsage(c0);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { states: r.states, perSec: r.states / ((cpu.user + cpu.system) / 1e6), perWallSec: r.states / (ms / 1000) };
}

const loadAverage = () => `load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} on ${cpus().length} cores`;

/**
 * Prints the before/after table (markdown) of every default config (or those in `only`).
 * With `detail`, also the CPU seconds of the best run on each side and the load average
 * before and after the runs; a config the before side does not have is listed as such.
 * `engines`: the engine each side runs on (default: this checkout's for both).
 */
export function compareRates(
  after: SpecDef,
  before: SpecDef,
  repeat: number,
  options: ExploreOptions = {},
  print: (line: string) => void = console.log,
  only?: readonly string[],
  detail = false,
  engines: { before: Explore; after: Explore } = { before: exploreSync, after: exploreSync },
): void {
  if (detail) print(`before the runs: ${loadAverage()}; best of ${repeat} per side, alternating`);
  print(
    detail
      ? '| config | states | CPU s before | CPU s after | before (states/CPU s) | after (states/CPU s) | after / before | wall: after / before |'
      : '| config | states | before (states/CPU s) | after (states/CPU s) | after / before | wall: after / before |',
  );
  print(detail ? '|---|---:|---:|---:|---:|---:|---:|---:|' : '|---|---:|---:|---:|---:|---:|');
  let sumB = 0;
  let sumA = 0;
  for (const c of after.configs.filter((x) => x.tier === 'default' && (!only || only.includes(x.name)))) {
    if (!before.configs.some((x) => x.name === c.name)) {
      if (detail) print(`| ${c.name} | | | | not in before | | | |`);
      continue;
    }
    let b = 0;
    let a = 0;
    let bw = 0;
    let aw = 0;
    let states = 0;
    for (let i = 0; i < repeat; i++) {
      const first = i % 2 === 0 ? before : after;
      const second = first === before ? after : before;
      const r1 = rate(first, c.name, options, first === before ? engines.before : engines.after);
      const r2 = rate(second, c.name, options, second === before ? engines.before : engines.after);
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
    const cpu = detail ? ` ${(states / b).toFixed(2)} | ${(states / a).toFixed(2)} |` : '';
    print(`| ${c.name} | ${states.toLocaleString('en-US')} |${cpu} ${b.toFixed(0)} | ${a.toFixed(0)} | ${(a / b).toFixed(2)} | ${(aw / bw).toFixed(2)} |`);
  }
  if (detail) print(`| all compared (CPU s, best runs) | | ${sumB.toFixed(1)} | ${sumA.toFixed(1)} | | | ${(sumB / sumA).toFixed(2)} | |`);
  else print(`| all defaults (CPU s, best runs) | | ${sumB.toFixed(1)} s | ${sumA.toFixed(1)} s | ${(sumB / sumA).toFixed(2)} | |`);
  if (detail) print(`after the runs: ${loadAverage()}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const asCheck = args.includes('--as-check');
  if (asCheck) args.splice(args.indexOf('--as-check'), 1);
  const only = args.includes('--configs') ? args.splice(args.indexOf('--configs'), 2)[1].split(',') : undefined;
  const [beforePath, afterPath, times] = args;
  if (!beforePath || !afterPath) {
    console.error('usage: npx tsx specs/kit/bench.ts <before specs/<name>/index.ts> <after specs/<name>/index.ts> [repeat] [--configs A,B]');
    process.exit(64);
  }
  const load = async (p: string) => (await import(pathToFileURL(resolve(p)).href)).spec as SpecDef;
  // The engine of the checkout a spec lives in: <root>/specs/<name>/index.ts -> <root>/checkers/explore.
  const engineOf = async (p: string) => (await import(pathToFileURL(resolve(p, '../../../checkers/explore/index.ts')).href)).exploreSync as Explore;
  const [after, before] = [await load(afterPath), await load(beforePath)];
  if (asCheck) {
    console.log(`each side on its own engine, the monitor on (as interleave check explores a default config, livelock aside); ${loadAverage()}`);
    compareRates(after, before, Number(times ?? 3), { livelock: false }, console.log, only, true, { before: await engineOf(beforePath), after: await engineOf(afterPath) });
  } else {
    compareRates(after, before, Number(times ?? 3), { linearizability: 'off' }, console.log, only);
  }
}
