// The Porcupine corpus, checked as Porcupine's own test suite checks it: the etcd logs
// against the etcd register, the kv histories by key, and the 10-client kv histories
// also as one map (no partitioning). Prints each history's time, the total and the peak
// memory, next to Porcupine's figures on this machine (issue 2): 4.3-4.8 s in all,
// 1.8 s and 2.1 s for c10-ok and c10-bad unpartitioned, under 0.15 s for every other
// history, 345 MB peak. The CPU column (this process's user + system time; worker threads
// included) is less sensitive than wall time to other jobs sharing the machine.
//
//   npm run bench:lin [-- --only <substring>] [-- --workers N] [-- --compare DIR [--repeat N]]
//   (--compare: each history also checked by DIR's checker, e.g. main's tree, alternating,
//   best of N each (default 3), with the ratio of CPU times)
//   npm run bench:lin -- --generated ...   (generated histories: bench/lin-generated.ts)

import { availableParallelism, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkHistory, models } from '../checkers/lin/index.ts';
import { importCorpusFile, manifest } from '../checkers/lin/testdata-loader.ts';
import { runGenerated } from './lin-generated.ts';

const PORCUPINE = { total: [4.3, 4.8], c10: { 'kv/c10-ok.txt': 1.8, 'kv/c10-bad.txt': 2.1 } as Record<string, number>, other: 0.15, peakMB: 345 };

const args = process.argv.slice(2);
if (args.includes('--generated')) {
  await runGenerated(args);
  process.exit();
}
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const workers = args.includes('--workers') ? Number(args[args.indexOf('--workers') + 1]) : 1;
const compareDir = args.includes('--compare') ? resolve(args[args.indexOf('--compare') + 1]) : undefined;
const repeat = args.includes('--repeat') ? Math.max(1, Number(args[args.indexOf('--repeat') + 1])) : compareDir ? 5 : 1;
type Lin = { checkHistory: typeof checkHistory; models: typeof models };
const base = compareDir === undefined ? undefined : ((await import(pathToFileURL(`${compareDir}/checkers/lin/index.ts`).href)) as Lin);
const ours: Lin = { checkHistory, models };

const runs: { path: string; model: string }[] = [];
for (const e of manifest()) {
  runs.push({ path: e.path, model: e.model });
  if (e.path === 'kv/c10-ok.txt' || e.path === 'kv/c10-bad.txt') runs.push({ path: e.path, model: 'kv-append-unpartitioned' });
}

const gc = (globalThis as { gc?: () => void }).gc;
console.log(`# lin bench: ${runs.length} checks, workers=${workers}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} on ${availableParallelism()} cores`);
console.log(`history\tmodel\tops\tverdict\texpected\tms\tcpu_ms\tporcupine_s${base ? '\tbase_verdict\tbase_ms\tbase_cpu_ms\tbase_ms/ms' : ''}`);
let total = 0;
let totalCpu = 0;
let totalBaseCpu = 0;
let totalBaseMs = 0;
let wrong = 0;
const slow: string[] = [];
for (const run of runs) {
  if (only && !run.path.includes(only)) continue;
  const entry = manifest().find((e) => e.path === run.path)!;
  const model = models[run.model];
  const history = importCorpusFile(entry, model);
  const once = async (lin: Lin) => {
    gc?.();
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const r = await lin.checkHistory(lin.models[run.model], history, { workers });
    const ms = performance.now() - t0;
    const c1 = process.cpuUsage(c0);
    return { r, ms, cpu: (c1.user + c1.system) / 1000 };
  };
  let mine: Awaited<ReturnType<typeof once>> | undefined;
  let theirs: Awaited<ReturnType<typeof once>> | undefined;
  for (let k = 0; k < repeat; k++) {
    // Alternating which goes first, so that neither always meets a warmer machine.
    if (base && k % 2 === 1) theirs = best(theirs, await once(base));
    mine = best(mine, await once(ours));
    if (base && k % 2 === 0) theirs = best(theirs, await once(base));
  }
  const { r, ms, cpu } = mine!;
  total += ms;
  totalCpu += cpu;
  const baseline = run.model === 'kv-append-unpartitioned' ? PORCUPINE.c10[run.path] : PORCUPINE.other;
  if (r.verdict !== entry.expected) wrong++;
  if (ms > 2000 * baseline) slow.push(`${run.path} (${run.model}) ${ms.toFixed(0)} ms > 2 x ${baseline} s`);
  if (theirs) {
    totalBaseCpu += theirs.cpu;
    totalBaseMs += theirs.ms;
    if (theirs.r.verdict !== r.verdict) wrong++;
  }
  const cmp = theirs ? `\t${theirs.r.verdict}\t${theirs.ms.toFixed(1)}\t${theirs.cpu.toFixed(1)}\t${(theirs.ms / ms).toFixed(2)}` : '';
  console.log(`${run.path}\t${run.model}\t${history.length}\t${r.verdict}\t${entry.expected}\t${ms.toFixed(1)}\t${cpu.toFixed(1)}\t${run.model === 'kv-append-unpartitioned' ? baseline : `<${baseline}`}${cmp}`);
}
/** The faster run (wall time: at a few ms the CPU clock's ticks are too coarse). */
function best<T extends { ms: number }>(a: T | undefined, b: T): T {
  return a === undefined || b.ms < a.ms ? b : a;
}
const peakMB = process.resourceUsage().maxRSS / 1024;
console.log(`# total ${(total / 1000).toFixed(2)} s wall, ${(totalCpu / 1000).toFixed(2)} s CPU of this process (Porcupine ${PORCUPINE.total.join('-')} s); peak RSS ${peakMB.toFixed(0)} MB (Porcupine ${PORCUPINE.peakMB} MB)`);
if (base) console.log(`# best of ${repeat} each: ${(total / 1000).toFixed(2)} s wall (${(totalCpu / 1000).toFixed(2)} s CPU) here, ${(totalBaseMs / 1000).toFixed(2)} s wall (${(totalBaseCpu / 1000).toFixed(2)} s CPU) with ${compareDir}: base/this ${(totalBaseMs / total).toFixed(2)} wall, ${(totalBaseCpu / totalCpu).toFixed(2)} CPU`);
console.log(`# wrong verdicts: ${wrong}; over 2x Porcupine: ${slow.length === 0 ? 'none' : slow.join('; ')}`);
console.log(`# load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
if (wrong > 0) process.exitCode = 1;
