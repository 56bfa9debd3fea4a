// The generated matrix (issue 21): models x sizes x clients x ok/bad, each history made by
// checkers/lin/generate.ts from its own seed and checked in a fresh process
// (bench/lin-child.ts) for its time and peak memory, then a summary by size and by model
// next to the figures the issue gives for Porcupine, which cannot run here. With
// --compare DIR, every history is also checked by the checker of another checkout (main's
// tree, say), the two alternating, so that the ratio is measured in one run.
//
// This tree's process starts as `interleave lin` does: from a startup snapshot of the
// checker (bin/lin-snapshot.js), built at the start of the run from bench/lin-snapshot-entry.ts
// by the same function, node arguments and warm-up as the CLI's, and timed by the same
// code as lin-child.ts (lin-child-measure.ts). The other trees load as modules through tsx.
//
//   npm run bench:lin -- --generated [--sizes 10,100] [--clients 2,8] [--families kv,queue]
//     [--variants ok,bad] [--seed N] [--timeout S] [--compare DIR] [--examples] [--repeat N]
//     [--in-process]   (checks in this process: no process per history, no peak memory)
//     [--no-snapshot]  (this tree's checker loaded as modules through tsx, not from its startup snapshot)
//     [--issue-baseline DIR]   (--compare with the checker issue 21 measured, commit ab9684c^:
//     the summary then estimates Porcupine's time for the same histories from the issue's
//     ratios, and prints PASS / FAIL per size and per model)

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FAMILIES, generateHistory, type Family, type GenerateOptions } from '../checkers/lin/generate.ts';
import { fmix32, hashString } from '../checkers/lin/hash.ts';
import type { Checker } from './lin-child-measure.ts';
import { buildSnapshot, snapshotCommand, usableSnapshot, type Usable } from '../bin/lin-snapshot.js';

/**
 * Issue 21's figures: how much slower interleave's check was than Porcupine's (geometric
 * means where both finished), and the two examples measured on a quiet machine.
 */
const ISSUE = {
  slowerBySize: { 10: 12.8, 100: 4.6, 1000: 3.7, 10000: 1.5, 100000: 3.5 } as Record<number, number>,
  slowerByModel: { register: 4.8, 'cas-register': 3.1, kv: 6.6, queue: 9.2 } as Record<string, number>,
  examples: [
    { name: 'kv-append 100,000 ops, 2 clients, 8 keys, 0.5% crashed', options: { family: 'kv', ops: 100_000, clients: 2, keys: 8, crashRate: 0.005 }, porcupineS: 0.36, porcupineMB: 280 },
    { name: 'FIFO queue 1,000 ops, 2 clients', options: { family: 'queue', ops: 1000, clients: 2 }, porcupineS: 0.77, porcupineMB: 140 },
  ] as { name: string; options: Omit<GenerateOptions, 'seed'>; porcupineS: number; porcupineMB: number }[],
};

export interface Measure {
  verdict: string;
  reason?: string;
  /** The first check in a fresh process (V8 compiles the checker on first call). */
  ms: number;
  cpuMs: number;
  /** Best of the repeats in that process, for checks under a second (else NaN). */
  warmMs: number;
  warmCpuMs: number;
  peakMB: number;
  rssBeforeMB: number;
  ops: number;
  crashed: number;
  corrupted: string;
  explored: number;
  cached: number;
}

const root = fileURLToPath(new URL('..', import.meta.url));
const child = fileURLToPath(new URL('./lin-child.ts', import.meta.url));

/** This tree's checker from its startup snapshot (in a scratch directory, removed at exit), with how it was built. */
async function benchSnapshot(): Promise<{ usable: Usable; note: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'interleave-bench-lin-snapshot-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const entry = fileURLToPath(new URL('./lin-snapshot-entry.ts', import.meta.url));
  const t0 = performance.now();
  await buildSnapshot({ dir, entry });
  const found = usableSnapshot(dir, { entry });
  if (found.blob === undefined) throw new Error(`the bench's snapshot cannot be used: ${found.reason}`);
  return { usable: found, note: `from a startup snapshot (bench/lin-snapshot-entry.ts, built by bin/lin-snapshot.js in ${Math.round(performance.now() - t0)} ms, node ${found.args.join(' ') || 'without arguments'})` };
}

function measure(options: GenerateOptions, impl: string | undefined, timeoutS: number, snapshot: Usable | undefined): Measure {
  const [command, argv] =
    impl === undefined && snapshot !== undefined
      ? snapshotCommand(snapshot, child, ['--bench-child', JSON.stringify(options), '--timeout', String(timeoutS)])
      : [process.execPath, ['--import', 'tsx', '--expose-gc', child, JSON.stringify(options), '--timeout', String(timeoutS), ...(impl !== undefined ? ['--impl', impl] : [])]];
  const p = spawnSync(command, argv, { cwd: root, encoding: 'utf8', timeout: (timeoutS + 120) * 1000, maxBuffer: 1 << 24 });
  const line = p.stdout?.trim().split('\n').pop();
  if (p.status !== 0 || !line) {
    const why = p.error ? p.error.message : p.signal ? `killed by ${p.signal}` : (p.stderr ?? '').trim().split('\n').slice(-3).join(' | ');
    return { verdict: 'crash', reason: why.slice(0, 200), ms: NaN, cpuMs: NaN, warmMs: NaN, warmCpuMs: NaN, peakMB: NaN, rssBeforeMB: NaN, ops: options.ops, crashed: 0, corrupted: '', explored: 0, cached: 0 };
  }
  return JSON.parse(line) as Measure;
}

const checkers = new Map<string, Checker>();

/**
 * --in-process: the check in this process (no process start per history, for a machine
 * too busy to start hundreds of them); no peak memory. ms is the first check, warmMs the
 * best of the repeats (checks under 1 s), each on its own parse of the history.
 */
async function measureInProcess(options: GenerateOptions, impl: string | undefined, timeoutS: number): Promise<Measure> {
  const dir = resolve(impl ?? root);
  let lin = checkers.get(dir);
  if (lin === undefined) checkers.set(dir, (lin = (await import(pathToFileURL(`${dir}/checkers/lin/index.ts`).href)) as Checker));
  const generated = generateHistory(options);
  const text = JSON.stringify(generated.history);
  const once = () => {
    const history = JSON.parse(text) as unknown[];
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = lin!.checkHistorySync(generated.model, history, { timeoutMs: timeoutS * 1000 });
    // The wall clock is read before cpuUsage (~0.5 us, a system call), as lin-child.ts does:
    // at 10 operations a check takes a few microseconds, and the call is not the check's.
    const ms = performance.now() - t0;
    const c1 = process.cpuUsage(c0);
    return { r, ms, cpuMs: (c1.user + c1.system) / 1000 };
  };
  // Repeated as lin-child.ts repeats (a few repeats leave a 10-operation check in V8's
  // interpreter: that is not the warm time), for at most 0.3 s (checks under 20 ms) or 1 s,
  // at most 10,000 times (lin-child.ts's MAX_REPEATS; the same for every checker).
  const first = once();
  let warmMs = NaN;
  let spent = first.ms;
  const budget = first.ms < 20 ? 300 : 1000;
  for (let k = 0; k < 10_000 && first.ms < 1000 && spent < budget; k++) {
    const again = once().ms;
    spent += again;
    warmMs = Math.min(again, Number.isNaN(warmMs) ? Infinity : warmMs);
  }
  const r = first.r;
  const reasons = [...new Set(r.partitions.map((p) => p.reason).filter((x) => x !== undefined))];
  return {
    verdict: r.verdict,
    reason: reasons.join(',') || undefined,
    ms: first.ms,
    cpuMs: first.cpuMs,
    warmMs,
    warmCpuMs: NaN,
    peakMB: NaN,
    rssBeforeMB: NaN,
    ops: generated.history.length,
    crashed: generated.crashed,
    corrupted: generated.corruptions.map((c) => c.kind).join(','),
    explored: r.partitions.reduce((sum, p) => sum + (p.explored ?? 0), 0),
    cached: r.partitions.reduce((sum, p) => sum + (p.cached ?? 0), 0),
  };
}

function best(runs: Measure[]): Measure {
  return runs.reduce((a, b) => (b.ms < a.ms ? b : a));
}

/** The check's time when warm: the best repeat, or the first run when not repeated. */
const warm = (m: Measure): number => (Number.isFinite(m.warmMs) ? Math.min(m.warmMs, m.ms) : m.ms);

const geomean = (xs: number[]): number => (xs.length === 0 ? NaN : Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length));
const fmt = (x: number, digits = 1): string => (Number.isFinite(x) ? x.toFixed(digits) : '-');
const decided = (m: Measure): boolean => m.verdict === 'ok' || m.verdict === 'illegal';

export async function runGenerated(args: string[]): Promise<void> {
  const flag = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const list = (name: string, dflt: string): string[] => (flag(name) ?? dflt).split(',').filter((x) => x !== '');
  const sizes = list('--sizes', '10,100,1000,10000,100000').map(Number);
  const clientCounts = list('--clients', '2,8,64').map(Number);
  const families = list('--families', FAMILIES.join(',')) as Family[];
  const variants = list('--variants', 'ok,bad');
  const baseSeed = Number(flag('--seed') ?? 1);
  const timeoutS = Number(flag('--timeout') ?? 60);
  const issueBaseline = flag('--issue-baseline');
  const compare = issueBaseline ?? flag('--compare');
  const repeat = Math.max(1, Number(flag('--repeat') ?? 1));
  const examplesOnly = args.includes('--examples');
  for (const f of families) if (!FAMILIES.includes(f)) throw new Error(`--families: unknown family ${f}; known: ${FAMILIES.join(', ')}`);

  const seedOf = (o: Omit<GenerateOptions, 'seed'>): number => fmix32(hashString(JSON.stringify(o)) ^ Math.imul(baseSeed, 0x9e3779b1));
  const inProcess = args.includes('--in-process');
  const snapshot = inProcess || args.includes('--no-snapshot') ? undefined : await benchSnapshot();
  const one = (options: GenerateOptions, impl: string | undefined): Promise<Measure> | Measure =>
    inProcess ? measureInProcess(options, impl, timeoutS) : measure(options, impl, timeoutS, snapshot?.usable);
  const runOne = async (options: GenerateOptions): Promise<{ ours: Measure; base?: Measure }> => {
    const ours: Measure[] = [];
    const base: Measure[] = [];
    for (let k = 0; k < repeat; k++) {
      // Alternate which goes first, so that neither always meets a warmer machine.
      if (compare !== undefined && k % 2 === 1) base.push(await one(options, compare));
      ours.push(await one(options, undefined));
      if (compare !== undefined && k % 2 === 0) base.push(await one(options, compare));
    }
    return { ours: best(ours), base: compare === undefined ? undefined : best(base) };
  };

  console.log(`# lin bench, generated histories${inProcess ? ' (in process: no peak memory)' : ''}: seed ${baseSeed}, timeout ${timeoutS} s, best of ${repeat}${compare ? `, compared with ${compare}` : ''}; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} on ${availableParallelism()} cores`);
  if (!inProcess) {
    console.log(`# this tree's checker: ${snapshot ? snapshot.note : 'its modules through tsx (bench/lin-child.ts)'}`);
    if (compare) console.log(`# ${compare}'s checker: its modules through tsx (bench/lin-child.ts --impl)`);
  }
  console.log('# cold_ms: the check alone (one thread), first in a fresh process, so V8 compiles the checker on first call (about 2 ms);');
  console.log('# warm_ms: best repeat in that process (checks under 1 s); peak_MB: the process\'s max RSS (node itself ~50 MB, the history included)');
  const header = ['family', 'ops', 'clients', 'variant', 'crashed', 'corrupted', 'verdict', 'cold_ms', 'warm_ms', 'cpu_ms', 'peak_MB', 'explored', 'cached'];
  if (compare) header.push('base_verdict', 'base_cold_ms', 'base_warm_ms', 'base_peak_MB', 'speedup_warm');

  const rows: { family: Family; ops: number; clients: number; variant: string; ours: Measure; base?: Measure }[] = [];
  let wrong = 0;
  const print = (family: string, ops: number, clients: number, variant: string, ours: Measure, base?: Measure): void => {
    const cells = [family, ops, clients, variant, ours.crashed, ours.corrupted || '-', ours.verdict + (ours.reason ? `(${ours.reason})` : ''), fmt(ours.ms, 2), fmt(warm(ours), 3), fmt(ours.cpuMs), fmt(ours.peakMB, 0), ours.explored, ours.cached];
    if (base) cells.push(base.verdict + (base.reason ? `(${base.reason})` : ''), fmt(base.ms, 2), fmt(warm(base), 3), fmt(base.peakMB, 0), decided(base) && decided(ours) ? fmt(warm(base) / warm(ours), 2) : '-');
    console.log(cells.join('\t'));
  };

  if (issueBaseline !== undefined) {
    console.log(`# base: the checker issue 21 measured (${issueBaseline}); Porcupine's time is estimated per size and per model as`);
    console.log('# geomean(base cold_ms) / the issue\'s ratio, over the histories both decided; PASS: every history Porcupine decides');
    console.log('# (the issue: all but register and cas-register with >= 32 clients at >= 100 ops) decided here, and the geomean here <= that');
  }
  if (!examplesOnly) {
    console.log(header.join('\t'));
    for (const ops of sizes) {
      for (const family of families) {
        for (const clients of clientCounts) {
          for (const variant of variants) {
            const o = { family, ops, clients, corrupt: variant === 'bad' ? 1 : 0 };
            const { ours, base } = await runOne({ ...o, seed: seedOf(o) });
            // An ok history is linearizable by construction: any other decided verdict is wrong.
            if (variant === 'ok' && ours.verdict === 'illegal') wrong++;
            if (base && decided(base) && decided(ours) && base.verdict !== ours.verdict) wrong++;
            rows.push({ family, ops, clients, variant, ours, base });
            print(family, ops, clients, variant, ours, base);
          }
        }
      }
    }
    summary(rows, 'ops', sizes.map(String), (r) => String(r.ops), (k) => ISSUE.slowerBySize[Number(k)]);
    summary(rows, 'family', families, (r) => r.family, (k) => ISSUE.slowerByModel[k]);
  }

  console.log('\n# the issue\'s two examples (ok and corrupted), against Porcupine\'s figures');
  console.log(['example', 'variant', 'crashed', 'verdict', 'cold_ms', 'warm_ms', 'cpu_ms', 'peak_MB', 'porcupine_ms', 'porcupine_MB', ...(compare ? ['base_verdict', 'base_cold_ms', 'base_peak_MB'] : [])].join('\t'));
  for (const ex of ISSUE.examples) {
    for (const variant of variants) {
      const o = { ...ex.options, corrupt: variant === 'bad' ? 1 : 0 };
      const { ours, base } = await runOne({ ...o, seed: seedOf(o) });
      if (variant === 'ok' && ours.verdict === 'illegal') wrong++;
      const cells = [ex.name, variant, ours.crashed, ours.verdict + (ours.reason ? `(${ours.reason})` : ''), fmt(ours.ms), fmt(warm(ours)), fmt(ours.cpuMs), fmt(ours.peakMB, 0), ex.porcupineS * 1000, ex.porcupineMB];
      if (base) cells.push(base.verdict + (base.reason ? `(${base.reason})` : ''), fmt(base.ms), fmt(base.peakMB, 0));
      console.log(cells.join('\t'));
    }
  }
  console.log(`\n# wrong verdicts (an ok history not linearizable, or the two checkers disagreeing): ${wrong}`);
  console.log(`# load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  if (wrong > 0) process.exitCode = 1;

  function summary(all: typeof rows, by: string, keys: string[], keyOf: (r: (typeof rows)[number]) => string, slower: (k: string) => number | undefined): void {
    console.log(`\n# by ${by}: decided = verdict ok or illegal within ${timeoutS} s; times are geometric means over the decided histories`);
    const head = [by, 'histories', 'decided', 'geomean_cold_ms', 'geomean_warm_ms', 'max_cold_ms', 'max_peak_MB'];
    if (compare) head.push('base_decided', 'speedup_warm_geomean', 'speedup_cold_geomean', 'issue_porcupine_faster_by');
    else head.push('issue_porcupine_faster_by');
    console.log(head.join('\t'));
    for (const k of keys) {
      const group = all.filter((r) => keyOf(r) === k);
      const done = group.filter((r) => decided(r.ours));
      const cells: (string | number)[] = [k, group.length, done.length, fmt(geomean(done.map((r) => r.ours.ms)), 2), fmt(geomean(done.map((r) => warm(r.ours))), 3), fmt(Math.max(...done.map((r) => r.ours.ms))), fmt(Math.max(...group.map((r) => r.ours.peakMB)), 0)];
      if (compare) {
        const both = group.filter((r) => decided(r.ours) && r.base !== undefined && decided(r.base));
        cells.push(group.filter((r) => r.base && decided(r.base)).length, fmt(geomean(both.map((r) => warm(r.base!) / warm(r.ours))), 2), fmt(geomean(both.map((r) => r.base!.ms / r.ours.ms)), 2));
      }
      const s = slower(k);
      cells.push(s === undefined ? '-' : `${s}x`);
      console.log(cells.join('\t'));
    }
    if (issueBaseline !== undefined) againstPorcupine(all, by, keys, keyOf, slower);
  }

  /** Interleave's time next to the Porcupine time the issue's ratios imply, and PASS / FAIL. */
  function againstPorcupine(all: typeof rows, by: string, keys: string[], keyOf: (r: (typeof rows)[number]) => string, slower: (k: string) => number | undefined): void {
    console.log(`\n# by ${by}, against Porcupine (estimated from the issue's ratio and the issue's checker in this run); times: geometric means;`);
    console.log('# verdict: by the check alone as `interleave lin` runs it (cold: the first check in the process); verdict_warm: by the best repeat');
    console.log([by, 'porcupine_decides', 'decided_of_those', 'both_decided', 'interleave_ms', 'porcupine_est_ms', 'interleave_cpu_ms', 'base_cpu_ms/ratio', 'interleave_warm_ms', 'base_warm_ms/ratio', 'decided_base_did_not', 'max_peak_MB', 'verdict', 'verdict_warm'].join('\t'));
    for (const k of keys) {
      const group = all.filter((r) => keyOf(r) === k);
      // Porcupine times out on 32-64 client registers from 100 operations (the issue).
      const must = group.filter((r) => !((r.family === 'register' || r.family === 'cas-register') && r.clients >= 32 && r.ops >= 100));
      const decidedMust = must.filter((r) => decided(r.ours)).length;
      const both = group.filter((r) => decided(r.ours) && r.base !== undefined && decided(r.base));
      const ratio = slower(k);
      const ours = geomean(both.map((r) => r.ours.ms));
      const est = ratio === undefined ? NaN : geomean(both.map((r) => r.base!.ms)) / ratio;
      const oursCpu = geomean(both.map((r) => r.ours.cpuMs));
      const estCpu = ratio === undefined ? NaN : geomean(both.map((r) => r.base!.cpuMs)) / ratio;
      const oursWarm = geomean(both.map((r) => warm(r.ours)));
      const estWarm = ratio === undefined ? NaN : geomean(both.map((r) => warm(r.base!))) / ratio;
      const onlyOurs = group.filter((r) => decided(r.ours) && !(r.base !== undefined && decided(r.base))).length;
      const judge = (here: number, there: number): string => (decidedMust < must.length ? 'FAIL (undecided)' : Number.isNaN(there) ? 'n/a (no ratio or no history both decided)' : here <= there ? 'PASS' : 'FAIL (slower)');
      console.log([k, must.length, decidedMust, both.length, fmt(ours, 2), fmt(est, 2), fmt(oursCpu, 2), fmt(estCpu, 2), fmt(oursWarm, 3), fmt(estWarm, 3), onlyOurs, fmt(Math.max(...group.map((r) => r.ours.peakMB)), 0), judge(ours, est), judge(oursWarm, estWarm)].join('\t'));
    }
  }
}
