// The measure of bench/lin-child.ts: one generated history's first check and its warm
// repeats, timed around `checkHistorySync` alone. Shared by the child that imports a
// checker's modules (lin-child.ts) and the one started from this tree's startup snapshot
// (lin-snapshot-entry.ts), so that both are timed by the same code.
import { generateHistory, type GenerateOptions } from '../checkers/lin/generate.ts';
import type { LinResult } from '../checkers/lin/types.ts';

export interface Checker {
  checkHistorySync(model: string, history: unknown[], options: { timeoutMs?: number }): LinResult;
}

/**
 * Repeats at most, for the warm time. 1,000 left a 10-operation check (10-40 us) short of
 * V8's optimising compiler on both sides (the best of 3,000 was 2-4x lower than the best
 * of 1,000): 10,000 fit in the 0.3 s given to checks under 20 ms.
 */
const MAX_REPEATS = 10_000;

export function measureChild(lin: Checker, options: GenerateOptions, timeoutS: number, gc: (() => void) | undefined) {
  const generated = generateHistory(options);
  // As if read from a file: the generator's strings are built by concatenation, which V8
  // keeps as trees until first read; a parsed file's strings are flat. Each run gets its
  // own copy, so that nothing a model caches per output object carries over.
  const text = JSON.stringify(generated.history);
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
  return out;
}
