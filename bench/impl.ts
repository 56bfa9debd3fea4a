// `npm run bench:impl`: the throughput of impl/fusee on this machine (8 clients, 3 memory
// nodes, no faults: completed operations per second, several runs, the best and the spread),
// and whether a 60 s run's history is checked in less time than the run took; then impl/minos
// per persistency model, MINOS-B and MINOS-O, with every persist an fsync of the node's log.
//
//   node --import tsx bench/impl.ts [--runs 3] [--duration 20] [--long 60] [--client-procs P] [--keys K]
//                                   [--minos-runs 2] [--minos-duration 10] [--only fusee|minos]
//
// Other processes on the machine slow a run down and never speed it up: the best run is
// the figure, the spread says how loaded the machine was.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeOutput } from '../cli/output.ts';
import { fusee } from '../impl/fusee/cluster.ts';
import { minos } from '../impl/minos/cluster.ts';
import { MODELS } from '../impl/minos/node.ts';
import type { Implementation } from '../impl/harness/types.ts';
import { runImplementation, type RunSummary } from '../impl/harness/run.ts';
import type { RunOptions } from '../impl/harness/types.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};

const runs = arg('runs', 3);
const duration = arg('duration', 20);
const long = arg('long', 60);
const clients = 8;
const clientProcs = arg('client-procs', 2);
const keys = arg('keys', 8);

const base: RunOptions = {
  clients,
  clientProcs,
  keys,
  duration,
  rate: 0,
  readRatio: 0.5,
  nemesis: ['none'],
  seed: 'bench',
  nodes: 3,
  replicas: 3,
  basePort: 0,
  drain: 10,
  checkTimeout: 0,
  timeoutMs: 1000,
};

const only = (() => {
  const i = process.argv.indexOf('--only');
  return i >= 0 ? process.argv[i + 1] : undefined;
})();

async function once(o: RunOptions, impl: Implementation = fusee): Promise<RunSummary> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-impl-'));
  try {
    return await runImplementation(impl, o, { dir, write: (p, d) => writeOutput(p, d, { inputs: [], force: true }) }, { out: () => undefined, err: () => undefined, progress: false });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (only === undefined || only === 'fusee') await benchFusee();
if (only === undefined || only === 'minos') await benchMinos();

async function benchFusee(): Promise<void> {
  console.log(`fusee: ${clients} clients in ${clientProcs} processes, 3 memory nodes (r=3), ${keys} keys, reads 50%, no faults`);
  const rates: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = await once({ ...base, seed: `bench-${i}` });
    rates.push(s.opsPerSecond);
    console.log(`  run ${i + 1}: ${Math.round(s.opsPerSecond)} completed ops/s over ${duration} s (${s.completed} operations, verdict ${s.verdict})`);
  }
  const sorted = [...rates].sort((a, b) => a - b);
  console.log(`throughput: best ${Math.round(sorted[sorted.length - 1])} ops/s, median ${Math.round(sorted[Math.floor(sorted.length / 2)])}, worst ${Math.round(sorted[0])} (target: at least 2,000)`);

  if (long > 0) {
    const s = await once({ ...base, duration: long, seed: 'bench-long' });
    const checkS = (s.lin?.checkMs ?? NaN) / 1000;
    console.log(`history check: a ${long} s run (${s.completed} operations, ${s.indeterminate} indeterminate, ${Math.round(s.opsPerSecond)} ops/s) checked in ${checkS.toFixed(1)} s, ${(checkS / long).toFixed(3)} of the run's time (target: below 1); verdict ${s.verdict}`);
  }
}

async function benchMinos(): Promise<void> {
  const mruns = arg('minos-runs', 2);
  const mduration = arg('minos-duration', 10);
  console.log(`minos: ${clients} clients over 3 nodes, ${keys} keys, reads 50%, no faults, every persist fsynced; best of ${mruns} runs of ${mduration} s`);
  console.log('| model | MINOS-B ops/s | MINOS-O ops/s |');
  console.log('| --- | --- | --- |');
  for (const model of MODELS) {
    const best: number[] = [];
    for (const offload of [false, true]) {
      let b = 0;
      for (let i = 0; i < mruns; i++) {
        const s = await once({ ...base, duration: mduration, persistency: model, offload, seed: `bench-${model}-${i}` }, minos);
        if (s.verdict !== 'linearizable') console.log(`  (${model}${offload ? ' offload' : ''} run ${i + 1}: verdict ${s.verdict}: ${s.reasons.join('; ')})`);
        b = Math.max(b, s.opsPerSecond);
      }
      best.push(b);
    }
    console.log(`| ${model} | ${Math.round(best[0])} | ${Math.round(best[1])} |`);
  }
}
