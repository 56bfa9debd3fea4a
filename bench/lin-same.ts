// Same inputs, two checkers, in one process: verdict and every partition's verdict, explored
// and cached counts, by this tree's checker and by DIR's (an archive of another commit,
// node_modules symlinked), on generated histories of every model (10-1,000 operations, 2-64
// clients, 0.5% and 5% crashed, ok and corrupted), then kv-append at 3,000-100,000.
//   node --import tsx bench/lin-same.ts DIR
// A pair that is 'unknown' on both sides (the 5 s timeout) is listed, not counted as a difference;
// nor are other counts with the same verdicts where either side's partition has a refutation.

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FAMILIES, generateHistory, type GenerateOptions } from '../checkers/lin/generate.ts';
import { checkHistorySync } from '../checkers/lin/index.ts';
import type { LinResult } from '../checkers/lin/types.ts';

const dir = process.argv[2];
if (dir === undefined) {
  console.error('usage: bench/lin-same.ts DIR');
  process.exit(64);
}
const base = await import(pathToFileURL(resolve(dir, 'checkers/lin/index.ts')).href);
const sig = (r: LinResult): string => JSON.stringify([r.verdict, r.partitions.map((p) => [p.verdict, p.explored, p.cached])]);
let n = 0;
let diff = 0;
let timeouts = 0;
let proofCounts = 0;
const verdicts = (r: LinResult): string => JSON.stringify([r.verdict, r.partitions.map((p) => p.verdict)]);
const one = (o: GenerateOptions, timeoutMs: number): void => {
  const g = generateHistory(o);
  const a = checkHistorySync(g.model, g.history, { timeoutMs });
  const b: LinResult = base.checkHistorySync(g.model, g.history, { timeoutMs });
  n++;
  if (sig(a) === sig(b)) return;
  if (a.verdict === 'unknown' && b.verdict === 'unknown') {
    timeouts++;
    console.log('both unknown (timeout)', JSON.stringify(o));
  } else if (verdicts(a) === verdicts(b) && a.partitions.some((p, i) => p.proof !== undefined || b.partitions[i].proof !== undefined)) {
    // A refutation (Model.refute) asked at another time or new in this tree: same
    // verdicts, other counts.
    proofCounts++;
    console.log('same verdicts, counts differ where a refutation cut the search', JSON.stringify(o), sig(a).slice(0, 120), sig(b).slice(0, 120));
  } else {
    diff++;
    console.log('DIFF', JSON.stringify(o), sig(a).slice(0, 200), sig(b).slice(0, 200));
  }
};
for (const ops of [10, 30, 100, 300, 1000])
  for (const family of FAMILIES)
    for (const clients of [2, 5, 16, 64])
      for (const crashRate of [0.005, 0.05])
        for (const corrupt of [0, 1]) {
          if (ops === 1000 && clients > 5) continue;
          one({ family, ops, clients, crashRate, corrupt, seed: 1000 + n * 7919 }, 5000);
        }
for (const [ops, clients, keys, crashRate] of [[100_000, 2, 8, 0.005], [10_000, 2, 8, 0.005], [10_000, 8, 4, 0.02], [10_000, 2, 1, 0.05], [3000, 16, 8, 0.01]] as const)
  for (const corrupt of [0, 1]) one({ family: 'kv', ops, clients, keys, crashRate, corrupt, seed: 11 + n }, 20_000);
console.log(`histories ${n}, differing ${diff}, both timed out ${timeouts}, same verdicts with other counts where a refutation cut the search ${proofCounts}`);
if (diff > 0) process.exitCode = 1;
