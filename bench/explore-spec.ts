// One seed spec's default configs in the checkout at ROOT, as `interleave check` explores
// them (safety search with the monitor, livelock search aside); prints the figures as JSON.
// A process of its own that loads only that checkout's engine and specs, so that two trees
// compared by `bench:explore -- --specs --compare` each run with nothing of the other loaded.
// The bench starts this tree's runs with the V8 flags `interleave check` sets (cli/v8-flags.ts);
// the figures name the flags the process ran with.
//
//   node --import tsx [V8 FLAGS] bench/explore-spec.ts ROOT SPEC

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface SpecFigures {
  spec: string;
  states: number;
  cpuSeconds: number;
  seconds: number;
  peakMB: number;
  /** The flags node was started with, --import tsx aside. */
  nodeFlags: string[];
  configs: { config: string; status: string; states: number; transitions: number; depth: number; cpuSeconds: number }[];
}

interface Result {
  status: string;
  states: number;
  transitions: number;
  depth: number;
}
interface Spec {
  configs: { name: string; tier: string; config: unknown }[];
  build(config: unknown): unknown;
}

async function specRun(root: string, name: string): Promise<SpecFigures> {
  const { findSpec } = (await import(pathToFileURL(join(root, 'specs/index.ts')).href)) as { findSpec(name: string): Spec };
  const { exploreSync } = (await import(pathToFileURL(join(root, 'checkers/explore/index.ts')).href)) as {
    exploreSync(machine: unknown, options: { livelock: boolean }): Result;
  };
  const spec = findSpec(name);
  const configs: SpecFigures['configs'] = [];
  const t0 = performance.now();
  for (const c of spec.configs.filter((x) => x.tier === 'default')) {
    const c0 = process.cpuUsage();
    const r = exploreSync(spec.build(c.config), { livelock: false });
    const cpu = process.cpuUsage(c0);
    configs.push({ config: c.name, status: r.status, states: r.states, transitions: r.transitions, depth: r.depth, cpuSeconds: (cpu.user + cpu.system) / 1e6 });
  }
  return {
    spec: name,
    states: configs.reduce((a, c) => a + c.states, 0),
    cpuSeconds: configs.reduce((a, c) => a + c.cpuSeconds, 0),
    seconds: (performance.now() - t0) / 1000,
    peakMB: process.resourceUsage().maxRSS / 1024,
    nodeFlags: process.execArgv.filter((a, i, all) => a !== '--import' && all[i - 1] !== '--import'),
    configs,
  };
}

const [root, name] = process.argv.slice(2);
if (!root || !name) {
  process.stderr.write('usage: node --import tsx bench/explore-spec.ts ROOT SPEC\n');
  process.exit(64);
}
process.stdout.write(`${JSON.stringify(await specRun(root, name))}\n`);
