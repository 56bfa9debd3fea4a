// One generated history checked in a process of its own, so that its peak memory (max
// RSS) is the check's and nothing else's: bench/lin-generated.ts starts one per history.
// The checker may come from another checkout (--impl DIR, e.g. main's tree) so that two
// versions are measured on the same histories; the generator is always this checkout's.
//
//   node --import tsx --expose-gc bench/lin-child.ts '{"family":"kv","ops":1000,"clients":2,"seed":1,"corrupt":0}' [--impl DIR] [--timeout S]

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateHistory, type GenerateOptions } from '../checkers/lin/generate.ts';
import type { LinResult } from '../checkers/lin/types.ts';

const args = process.argv.slice(2);
const options = JSON.parse(args[0]) as GenerateOptions;
const flag = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const impl = resolve(flag('--impl') ?? new URL('..', import.meta.url).pathname);
const timeoutS = Number(flag('--timeout') ?? 60);

const lin = (await import(pathToFileURL(`${impl}/checkers/lin/index.ts`).href)) as {
  checkHistorySync(model: string, history: unknown[], options: { timeoutMs?: number }): LinResult;
};
const generated = generateHistory(options);
// As if read from a file: the generator's strings are built by concatenation, which V8
// keeps as trees until first read; a parsed file's strings are flat. Each run gets its
// own copy, so that nothing a model caches per output object carries over.
const text = JSON.stringify(generated.history);
const gc = (globalThis as { gc?: () => void }).gc;
/**
 * Repeats at most, for the warm time. 1,000 left a 10-operation check (10-40 us) short of
 * V8's optimising compiler on both sides (the best of 3,000 was 2-4x lower than the best
 * of 1,000): 10,000 fit in the 0.3 s given to checks under 20 ms.
 */
const MAX_REPEATS = 10_000;
const check = (collect: boolean) => {
  const history = JSON.parse(text) as unknown[];
  if (collect) gc?.();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = lin.checkHistorySync(generated.model, history, { timeoutMs: timeoutS * 1000 });
  const ms = performance.now() - t0;
  const c1 = process.cpuUsage(c0);
  return { r, ms, cpuMs: (c1.user + c1.system) / 1000 };
};
gc?.();
const rssBeforeMB = process.memoryUsage().rss / 2 ** 20;
// The first check in the process pays for V8 compiling the checker's functions on first
// call; Porcupine's Go is compiled ahead. Checks that took under a second are repeated
// for the warm time too: small ones until V8 has optimised them (0.3 s of checks, at most
// MAX_REPEATS), others for up to 3 s. The same rule for every checker measured.
const first = check(true);
let warmMs = NaN;
let warmCpuMs = NaN;
let spent = first.ms;
const budget = first.ms < 20 ? 300 : 3000;
for (let k = 0; k < MAX_REPEATS && first.ms < 1000 && spent < budget; k++) {
  const again = check(first.ms >= 20);
  spent += again.ms;
  if (!(again.ms >= warmMs)) {
    warmMs = again.ms;
    warmCpuMs = again.cpuMs;
  }
}
const r = first.r;
const reasons = [...new Set(r.partitions.map((p) => p.reason).filter((x) => x !== undefined))];
const out = {
  verdict: r.verdict,
  reason: reasons.join(',') || undefined,
  ms: first.ms,
  cpuMs: first.cpuMs,
  warmMs,
  warmCpuMs,
  peakMB: process.resourceUsage().maxRSS / 1024,
  rssBeforeMB,
  ops: generated.history.length,
  crashed: generated.crashed,
  corrupted: generated.corruptions.map((c) => c.kind).join(','),
  partitions: r.partitions.length,
  explored: r.partitions.reduce((s, p) => s + (p.explored ?? 0), 0),
  cached: r.partitions.reduce((s, p) => s + (p.cached ?? 0), 0),
};
process.stdout.write(`${JSON.stringify(out)}\n`);
