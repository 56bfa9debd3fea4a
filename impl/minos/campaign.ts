// The campaigns of impl/minos/README.md, each run a separate `interleave run minos ... --json`
// process, results appended to a JSON-lines file as they come.
//
//   npx tsx impl/minos/campaign.ts correct [--runs 10] [--duration 30] [--nemesis power] [--models synch,...] [--offload]
//       the correct implementation, --runs runs per model
//   npx tsx impl/minos/campaign.ts bugs [--runs 5] [--duration 10] [--bugs M1,M2,...]
//       each bug flag under its model and nemesis until the first run that catches it (at
//       most --runs); controls run --runs times and must never be caught
//   npx tsx impl/minos/campaign.ts table <results.jsonl>
//
// Options: --out DIR (default out/minos-campaign-<kind>), --seed-base N, --clients, --keys.
// Passing runs' directories are deleted (their summary line stays); failing ones are kept.

import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUGS } from './bugs.ts';
import { MODELS } from './node.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The model and nemesis each bug flag runs under (its spec mutant's config: crashes or not). */
export const EXPOSED_BY: Record<string, { model: string; nemesis: string; offload?: boolean }> = {
  M1: { model: 'synch', nemesis: 'none' },
  M2: { model: 'synch', nemesis: 'power' },
  M3: { model: 'synch', nemesis: 'power' },
  M4: { model: 'synch', nemesis: 'none' },
  M5: { model: 'synch', nemesis: 'none' },
  M6: { model: 'synch', nemesis: 'none' },
  M7: { model: 'synch', nemesis: 'none' },
  M8: { model: 'synch', nemesis: 'none' },
  M9: { model: 'synch', nemesis: 'none' },
  M10: { model: 'synch', nemesis: 'power' },
  M11: { model: 'renf', nemesis: 'power' },
  M12: { model: 'renf', nemesis: 'power' },
  M13: { model: 'strict', nemesis: 'power' },
  M14: { model: 'strict', nemesis: 'power' },
  M15: { model: 'scope', nemesis: 'power' },
  M16: { model: 'scope', nemesis: 'power' },
  M17: { model: 'synch', nemesis: 'none' },
  M19: { model: 'synch', nemesis: 'none' },
  M20: { model: 'synch', nemesis: 'none' },
  M21: { model: 'synch', nemesis: 'none' },
  M22: { model: 'synch', nemesis: 'none' },
  M23: { model: 'synch', nemesis: 'none' },
  M24: { model: 'synch', nemesis: 'none', offload: true },
  M25: { model: 'synch', nemesis: 'none', offload: true },
  M27: { model: 'event', nemesis: 'power' },
  'TS-COLLISION': { model: 'synch', nemesis: 'none' },
  'S-GAP': { model: 'scope', nemesis: 'power' },
};

export interface Result {
  kind: 'correct' | 'bug';
  bug?: string;
  model: string;
  offload: boolean;
  nemesis: string;
  seed: string;
  run: number;
  exitCode: number;
  reasons?: string[];
  lin?: string;
  durability?: string;
  /** The trace validation's verdict and its time (s). */
  validation?: string;
  validationSeconds?: number;
  completed?: number;
  opsPerSecond?: number;
  stuck?: number;
  assertions?: number;
  seconds: number;
}

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def;
}

function runOnce(r: Omit<Result, 'exitCode' | 'seconds'>, duration: number, dir: string, clients: string, keys: string): Result {
  const started = Date.now();
  const args = ['--import', 'tsx', join(root, 'cli/main.ts'), 'run', 'minos', '--model', r.model, '--nemesis', r.nemesis, '--duration', String(duration), '--seed', r.seed, '--clients', clients, '--keys', keys, '--out', dir, '--force', '--json'];
  if (r.offload) args.push('--offload');
  if (r.bug) args.push('--bug', r.bug);
  const p = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const out: Result = { ...r, exitCode: p.status ?? -1, seconds: (Date.now() - started) / 1000 };
  try {
    const env = JSON.parse(p.stdout) as { result: { reasons: string[]; lin?: { verdict: string }; durability?: { verdict: string }; trace?: { validation: { status: string; elapsedMs?: number } }; completed: number; opsPerSecond: number; stuck: unknown[]; assertions: unknown[] } };
    out.reasons = env.result.reasons;
    out.lin = env.result.lin?.verdict;
    out.durability = env.result.durability?.verdict;
    out.validation = env.result.trace?.validation.status;
    if (env.result.trace?.validation.elapsedMs !== undefined) out.validationSeconds = env.result.trace.validation.elapsedMs / 1000;
    out.completed = env.result.completed;
    out.opsPerSecond = Math.round(env.result.opsPerSecond);
    out.stuck = env.result.stuck.length;
    out.assertions = env.result.assertions.length;
  } catch {
    out.reasons = [`no JSON summary (exit ${p.status}): ${p.stderr.slice(-400)}`];
  }
  return out;
}

function campaign(kind: 'correct' | 'bugs'): void {
  const out = arg('out', join(root, `out/minos-campaign-${kind}`));
  mkdirSync(out, { recursive: true });
  const results = join(out, 'results.jsonl');
  const seedBase = Number(arg('seed-base', kind === 'correct' ? '1000' : '2000'));
  const clients = arg('clients', kind === 'correct' ? '8' : '6');
  const keys = arg('keys', kind === 'correct' ? '8' : '2');
  const record = (r: Result) => {
    appendFileSync(results, `${JSON.stringify(r)}\n`);
    process.stdout.write(`${r.bug ?? 'correct'} ${r.model}${r.offload ? ' offload' : ''} ${r.nemesis} seed ${r.seed}: exit ${r.exitCode} ${r.reasons?.join('; ') ?? ''} (${r.seconds.toFixed(0)} s)\n`);
  };
  if (kind === 'correct') {
    const runs = Number(arg('runs', '10'));
    const duration = Number(arg('duration', '30'));
    const nemesis = arg('nemesis', 'power');
    const models = arg('models', MODELS.join(',')).split(',');
    const offload = process.argv.includes('--offload');
    for (const model of models) {
      for (let i = 0; i < runs; i++) {
        const seed = String(seedBase + i);
        const dir = join(out, `${model}${offload ? '-o' : ''}-${seed}`);
        const r = runOnce({ kind: 'correct', model, offload, nemesis, seed, run: i }, duration, dir, clients, keys);
        record(r);
        if (r.exitCode === 0 && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
      }
    }
    return;
  }
  const runs = Number(arg('runs', '5'));
  const duration = Number(arg('duration', '10'));
  const only = arg('bugs', '').split(',').filter((b) => b !== '');
  for (const b of BUGS) {
    if (only.length > 0 && !only.includes(b.name)) continue;
    const e = EXPOSED_BY[b.name];
    for (let i = 0; i < runs; i++) {
      const seed = String(seedBase + i);
      const dir = join(out, `${b.name}-${seed}`);
      const r = runOnce({ kind: 'bug', bug: b.name, model: e.model, offload: e.offload === true, nemesis: e.nemesis, seed, run: i }, duration, dir, clients, keys);
      record(r);
      if (r.exitCode === 0 && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
      if (r.exitCode !== 0 && b.kind === 'safety') break;
    }
  }
}

function table(file: string): void {
  const rows = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Result);
  const bugs = new Map<string, Result[]>();
  for (const r of rows) if (r.kind === 'bug') bugs.set(r.bug!, [...(bugs.get(r.bug!) ?? []), r]);
  if (bugs.size > 0) {
    console.log('| flag | kind | model | nemesis | runs to catch | which check |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const b of BUGS) {
      const rs = bugs.get(b.name);
      if (!rs) continue;
      const caught = rs.find((r) => r.exitCode !== 0);
      const check = caught === undefined ? `not caught in ${rs.length} run(s)` : (caught.reasons ?? []).map((x) => (x.includes('linearizable') ? 'lin' : x.includes('crash') ? 'durability' : x.includes('assertion') ? 'assertion (I11)' : x.includes('in flight') ? 'stuck' : x.includes('trace') ? 'validation' : x)).join(', ');
      console.log(`| ${b.name} | ${b.kind} | ${rs[0].model}${rs[0].offload ? ' (offload)' : ''} | ${rs[0].nemesis} | ${caught === undefined ? '—' : rs.indexOf(caught) + 1} | ${check} |`);
    }
  }
  const correct = rows.filter((r) => r.kind === 'correct');
  if (correct.length > 0) {
    const by = new Map<string, Result[]>();
    for (const r of correct) by.set(`${r.model}${r.offload ? ' (offload)' : ''}`, [...(by.get(`${r.model}${r.offload ? ' (offload)' : ''}`) ?? []), r]);
    console.log('| model | nemesis | runs | exit 0 | linearizable | durable | valid trace | ops/s (median) | validation s (median) |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    for (const [m, rs] of by) {
      const v = rs.filter((r) => r.validationSeconds !== undefined).map((r) => r.validationSeconds!);
      console.log(`| ${m} | ${rs[0].nemesis} | ${rs.length} | ${rs.filter((r) => r.exitCode === 0).length} | ${rs.filter((r) => r.lin === 'ok').length} | ${rs.filter((r) => r.durability === 'durable').length} | ${rs.filter((r) => r.validation === 'valid').length} | ${median(rs.map((r) => r.opsPerSecond ?? 0))} | ${v.length > 0 ? median(v).toFixed(1) : '—'} |`);
    }
  }
}

const kind = process.argv[2];
if (kind === 'correct' || kind === 'bugs') campaign(kind);
else if (kind === 'table' && process.argv[3] !== undefined) table(process.argv[3]);
else {
  process.stderr.write('usage: campaign.ts correct|bugs [options] | table <results.jsonl>\n');
  process.exitCode = 64;
}
