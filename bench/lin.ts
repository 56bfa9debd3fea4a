// The Porcupine corpus, checked as Porcupine's own test suite checks it: the etcd logs
// against the etcd register, the kv histories by key, and the 10-client kv histories
// also as one map (no partitioning). Prints each history's time, the total and the peak
// memory, next to Porcupine's figures on this machine (issue 2): 4.3-4.8 s in all,
// 1.8 s and 2.1 s for c10-ok and c10-bad unpartitioned, under 0.15 s for every other
// history, 345 MB peak. The CPU column (this process's user + system time; worker threads
// included) is less sensitive than wall time to other jobs sharing the machine.
//
//   npm run bench:lin [-- --only <substring>] [-- --workers N]
//   npm run bench:lin -- --generated ...   (generated histories: bench/lin-generated.ts)

import { availableParallelism, loadavg } from 'node:os';
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

const runs: { path: string; model: string }[] = [];
for (const e of manifest()) {
  runs.push({ path: e.path, model: e.model });
  if (e.path === 'kv/c10-ok.txt' || e.path === 'kv/c10-bad.txt') runs.push({ path: e.path, model: 'kv-append-unpartitioned' });
}

const gc = (globalThis as { gc?: () => void }).gc;
console.log(`# lin bench: ${runs.length} checks, workers=${workers}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} on ${availableParallelism()} cores`);
console.log('history\tmodel\tops\tverdict\texpected\tms\tcpu_ms\tporcupine_s');
let total = 0;
let totalCpu = 0;
let wrong = 0;
const slow: string[] = [];
for (const run of runs) {
  if (only && !run.path.includes(only)) continue;
  const entry = manifest().find((e) => e.path === run.path)!;
  const model = models[run.model];
  const history = importCorpusFile(entry, model);
  gc?.();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = await checkHistory(model, history, { workers });
  const ms = performance.now() - t0;
  const c1 = process.cpuUsage(c0);
  const cpu = (c1.user + c1.system) / 1000;
  total += ms;
  totalCpu += cpu;
  const baseline = run.model === 'kv-append-unpartitioned' ? PORCUPINE.c10[run.path] : PORCUPINE.other;
  if (r.verdict !== entry.expected) wrong++;
  if (ms > 2000 * baseline) slow.push(`${run.path} (${run.model}) ${ms.toFixed(0)} ms > 2 x ${baseline} s`);
  console.log(`${run.path}\t${run.model}\t${history.length}\t${r.verdict}\t${entry.expected}\t${ms.toFixed(1)}\t${cpu.toFixed(1)}\t${run.model === 'kv-append-unpartitioned' ? baseline : `<${baseline}`}`);
}
const peakMB = process.resourceUsage().maxRSS / 1024;
console.log(`# total ${(total / 1000).toFixed(2)} s wall, ${(totalCpu / 1000).toFixed(2)} s CPU of this process (Porcupine ${PORCUPINE.total.join('-')} s); peak RSS ${peakMB.toFixed(0)} MB (Porcupine ${PORCUPINE.peakMB} MB)`);
console.log(`# wrong verdicts: ${wrong}; over 2x Porcupine: ${slow.length === 0 ? 'none' : slow.join('; ')}`);
console.log(`# load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
if (wrong > 0) process.exitCode = 1;
