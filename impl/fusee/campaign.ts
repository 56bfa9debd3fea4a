// The acceptance campaigns of impl/fusee/README.md, each run a separate
// `interleave run fusee ... --json` process, results appended to a JSON-lines file as
// they come (a campaign can be stopped and its results read at any time).
//
//   npx tsx impl/fusee/campaign.ts correct [--runs 20] [--duration 30] [--nemesis a,b,...]
//       the correct implementation, --runs runs under each nemesis
//   npx tsx impl/fusee/campaign.ts bugs [--runs 10] [--duration 30] [--bugs M1,M2,...]
//       each bug flag under the nemesis that exposes it, until the first run that catches
//       it (at most --runs); controls run --runs times and must never be caught
//   npx tsx impl/fusee/campaign.ts validation [--runs 5] [--duration 10] [--bugs M1,M2,...]
//       each bug flag exactly --runs times (never stopping at a caught run), the runs taking
//       its nemeses of EXPOSED_BY in turn: how often trace validation rejects its traces
//   npx tsx impl/fusee/campaign.ts table <results.jsonl>   the README tables
//
// Options: --out DIR (default out/campaign-<kind>), --seed-base N. Passing runs' directories
// are deleted (their summary line stays); failing ones are kept for inspection.

import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUGS } from './bugs.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The nemeses tried for each bug flag, in order (its spec mutant's config says which
 * crashes it needs; where the first one does not catch it, the next widens the windows).
 */
export const EXPOSED_BY: Record<string, string[]> = {
  M1: ['none'],
  M2: ['none', 'net', 'kill-mn'],
  M3: ['none'],
  M4: ['none'],
  "M4'": ['kill-mn', 'kill-mn,net'],
  M5: ['kill-mn', 'none'],
  M6: ['none'],
  M7: ['kill-client'],
  M8: ['kill-mn,kill-client'],
  M9: ['kill-client'],
  M10: ['kill-mn,kill-client', 'kill-client'],
  M11: ['kill-client'],
  M12: ['kill-mn', 'kill-mn,pause'],
  M13: ['kill-mn'],
  M15: ['kill-mn,kill-client'],
  M16: ['kill-client'],
  M17: ['kill-client'],
  M18: ['none'],
  M19: ['none'],
  M20: ['kill-mn,kill-client'],
  M21: ['kill-mn,kill-client'],
  M22: ['kill-mn,kill-client'],
};

interface Result {
  kind: 'correct' | 'bug';
  bug?: string;
  nemesis: string;
  seed: string;
  run: number;
  exitCode: number;
  verdict?: string;
  reasons?: string[];
  caughtBy?: string[];
  /** The trace validation's verdict (valid, invalid, inconclusive) and, when not valid, where and why. */
  validation?: string;
  validationDetail?: string;
  opsPerSecond?: number;
  completed?: number;
  indeterminate?: number;
  faults?: number;
  checkMs?: number;
  wallMs: number;
  dir?: string;
  error?: string;
}

function args(): Map<string, string> {
  const m = new Map<string, string>();
  const a = process.argv.slice(3);
  for (let i = 0; i < a.length; i++) if (a[i].startsWith('--')) m.set(a[i].slice(2), a[i + 1] ?? '');
  return m;
}

function runOnce(kind: Result['kind'], nemesis: string, seed: string, run: number, duration: number, outDir: string, bug?: string): Result {
  const dir = join(outDir, `${bug ?? 'correct'}-${nemesis.replace(/,/g, '+')}-${seed}`);
  rmSync(dir, { recursive: true, force: true });
  const argv = ['--import', 'tsx', join(root, 'cli/main.ts'), 'run', 'fusee', '--duration', String(duration), '--nemesis', nemesis, '--seed', seed, '--out', dir, '--json'];
  if (bug) argv.push('--bug', bug);
  const started = Date.now();
  const p = spawnSync(process.execPath, argv, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: (duration + 600) * 1000 });
  const r: Result = { kind, bug, nemesis, seed, run, exitCode: p.status ?? -1, wallMs: Date.now() - started };
  try {
    const s = (JSON.parse(p.stdout) as { result: unknown }).result as { verdict: string; reasons: string[]; opsPerSecond: number; completed: number; indeterminate: number; faults: unknown[]; lin?: { verdict: string; checkMs: number }; assertions: string[]; stuck: unknown[]; trace: { validation: { status: string; detail?: string } } };
    r.verdict = s.verdict;
    r.reasons = s.reasons;
    r.opsPerSecond = Math.round(s.opsPerSecond);
    r.completed = s.completed;
    r.indeterminate = s.indeterminate;
    r.faults = s.faults.length;
    r.checkMs = s.lin ? Math.round(s.lin.checkMs) : undefined;
    r.validation = s.trace.validation.status;
    if (r.validation !== 'valid') r.validationDetail = s.trace.validation.detail;
    r.caughtBy = [
      ...(s.lin?.verdict === 'illegal' ? ['linearizability'] : []),
      ...(r.validation === 'invalid' ? ['trace validation'] : []),
      ...(s.assertions.length > 0 ? ['assertion'] : []),
      ...(s.stuck.length > 0 ? ['stuck (liveness)'] : []),
    ];
  } catch {
    r.error = `${p.stderr}`.trim().split('\n').slice(-5).join(' | ') || `exit ${String(p.status)} ${String(p.signal)}`;
  }
  if (r.exitCode === 0) rmSync(dir, { recursive: true, force: true });
  else r.dir = dir;
  return r;
}

function record(file: string, r: Result): void {
  appendFileSync(file, `${JSON.stringify(r)}\n`);
  const what = r.error ? `ERROR ${r.error}` : `${r.verdict}${r.reasons?.length ? ` (${r.reasons.join('; ')})` : ''}, trace ${r.validation ?? '?'}${r.validationDetail ? ` (${r.validationDetail.slice(0, 300)})` : ''}`;
  process.stdout.write(`${r.bug ?? 'correct'} ${r.nemesis} seed ${r.seed}: exit ${r.exitCode} ${what}, ${r.opsPerSecond ?? '?'} ops/s, ${(r.wallMs / 1000).toFixed(0)} s\n`);
}

function correct(): void {
  const a = args();
  const runs = Number(a.get('runs') ?? 20);
  const duration = Number(a.get('duration') ?? 30);
  const nemeses = (a.get('nemesis') ?? 'none,kill-mn,kill-client,pause,partition,net').split(',');
  const out = a.get('out') ?? join(root, 'out', 'campaign-correct');
  const base = Number(a.get('seed-base') ?? 1000);
  mkdirSync(out, { recursive: true });
  const file = join(out, 'results.jsonl');
  for (let i = 0; i < runs; i++) {
    for (const n of nemeses) record(file, runOnce('correct', n, String(base + i), i + 1, duration, out));
  }
}

function bugs(): void {
  const a = args();
  const runs = Number(a.get('runs') ?? 10);
  const duration = Number(a.get('duration') ?? 30);
  const names = a.get('bugs')?.split(',') ?? BUGS.map((b) => b.name);
  const out = a.get('out') ?? join(root, 'out', 'campaign-bugs');
  const base = Number(a.get('seed-base') ?? 2000);
  mkdirSync(out, { recursive: true });
  const file = join(out, 'results.jsonl');
  for (const name of names) {
    const flag = BUGS.find((b) => b.name === name);
    if (flag === undefined) throw new Error(`unknown bug ${name}`);
    const nemeses = a.get('nemesis')?.split(';') ?? EXPOSED_BY[name];
    for (const nemesis of nemeses) {
      let caught = false;
      for (let i = 0; i < runs && !caught; i++) {
        const r = runOnce('bug', nemesis, String(base + i), i + 1, duration, out, name);
        record(file, r);
        caught = flag.kind === 'safety' && r.exitCode === 1;
      }
      if (caught) break;
    }
  }
}

/** Trace validation's column: every run counts, so none stops the flag's series. */
function validation(): void {
  const a = args();
  const runs = Number(a.get('runs') ?? 5);
  const duration = Number(a.get('duration') ?? 10);
  const names = a.get('bugs')?.split(',') ?? BUGS.map((b) => b.name);
  const out = a.get('out') ?? join(root, 'out', 'campaign-validation');
  const base = Number(a.get('seed-base') ?? 3000);
  mkdirSync(out, { recursive: true });
  const file = join(out, 'results.jsonl');
  for (const name of names) {
    if (!BUGS.some((b) => b.name === name)) throw new Error(`unknown bug ${name}`);
    const nemeses = EXPOSED_BY[name];
    for (let i = 0; i < runs; i++) record(file, runOnce('bug', nemeses[i % nemeses.length], String(base + i), i + 1, duration, out, name));
  }
}

function table(): void {
  const file = process.argv[3];
  if (file === undefined || !existsSync(file)) throw new Error('table <results.jsonl>');
  const rs = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Result);
  const correctRuns = rs.filter((r) => r.kind === 'correct');
  if (correctRuns.length > 0) {
    console.log('| nemesis | runs | linearizable | violation | unknown | errors | ops/s (min–max) | indeterminate ops (mean) | check time (max) |');
    console.log('|---|---:|---:|---:|---:|---:|---|---:|---:|');
    for (const n of [...new Set(correctRuns.map((r) => r.nemesis))]) {
      const g = correctRuns.filter((r) => r.nemesis === n);
      const ok = g.filter((r) => r.exitCode === 0).length;
      const bad = g.filter((r) => r.exitCode === 1).length;
      const unk = g.filter((r) => r.exitCode === 2).length;
      const err = g.length - ok - bad - unk;
      const ops = g.map((r) => r.opsPerSecond ?? 0);
      const ind = g.reduce((s, r) => s + (r.indeterminate ?? 0), 0) / g.length;
      const chk = Math.max(...g.map((r) => r.checkMs ?? 0));
      console.log(`| ${n} | ${g.length} | ${ok} | ${bad} | ${unk} | ${err} | ${Math.min(...ops)}–${Math.max(...ops)} | ${ind.toFixed(1)} | ${(chk / 1000).toFixed(1)} s |`);
    }
  }
  const bugRuns = rs.filter((r) => r.kind === 'bug');
  if (bugRuns.length > 0) {
    console.log('\n| bug | mirrors | kind | nemesis | runs | caught in run | caught by | trace validation |');
    console.log('|---|---|---|---|---:|---:|---|---|');
    for (const b of BUGS) {
      const g = bugRuns.filter((r) => r.bug === b.name);
      if (g.length === 0) continue;
      for (const n of [...new Set(g.map((r) => r.nemesis))]) {
        const h = g.filter((r) => r.nemesis === n);
        const first = h.find((r) => r.exitCode === 1);
        const v = h.map((r) => r.validation ?? '?');
        const validation = v.includes('invalid') ? `invalid in ${v.filter((x) => x === 'invalid').length} of ${h.length}` : v.every((x) => x === 'valid') ? `valid in all ${h.length}` : v.join(', ');
        console.log(`| ${b.name} | ${b.description} | ${b.kind} | ${n} | ${h.length} | ${first ? first.run : 'never'} | ${first ? (first.caughtBy ?? []).join(', ') : b.kind === 'control' ? 'not caught (control: expected)' : 'not caught'} | ${validation} |`);
      }
    }
  }
}

const kind = process.argv[2];
if (kind === 'correct') correct();
else if (kind === 'bugs') bugs();
else if (kind === 'validation') validation();
else if (kind === 'table') table();
else {
  process.stderr.write('usage: campaign.ts correct|bugs|validation|table ... (see the header of impl/fusee/campaign.ts)\n');
  process.exit(64);
}
