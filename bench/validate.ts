// Trace validation speed and memory (issue 15): events per second on the trace of a 60 s
// FUSEE run with 8 clients (about 720,000 events: 2,000 ops/s for 60 s, simulated by
// specs/fusee/simulate.ts in the vocabulary of specs/fusee/README.md), peak memory at 1x and 10x
// that length (each validation in a process of its own), and other shapes we did not tune
// on. The issue's target: at least 20,000 events/s, and peak memory independent of the
// trace's length. Wall time depends on what else the machine runs: the CPU column (this
// process's user + system time) is the steadier figure, and the load average is printed.
//
//   npm run bench:validate [-- --only <name>] [-- --quick] [-- --cache DIR] [-- --real TRACE [--real-x10 TRACE10]]
//
// Traces are generated once and kept under --cache (default: <tmpdir>/interleave-bench-validate).
// --real TRACE adds the trace of a real run (`interleave run fusee --duration 60 --clients 8
// --out DIR`, then DIR/trace.jsonl) and the same trace stretched to 10x its length: ten
// copies one after the other in time, each on its own keys and processes (k0 -> k0.3,
// c5 -> c5.3), so that every copy is the real run's events (one file per copy: a file is
// at most 256 MiB). That copy has 10x the keys as well as the length; --real-x10 TRACE10
// replaces it with a real run of the same workload (clients, keys, --rate, seed) for 10x
// the --duration: length alone. Memory independence is read off the peak RSS and the
// validator's own bounded structures: the frontier (candidate states) and the read-ahead.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateFiles } from '../checkers/validate/index.ts';
import { simulateToDir, type SimOptions } from '../specs/fusee/simulate.ts';
import { fuseeTrace } from '../specs/fusee/trace.ts';

interface Shape {
  name: string;
  note: string;
  sim: SimOptions;
}

const base = { clients: 8, keys: 64, seed: 1, clientKills: 10, mnKills: 1, timeouts: 2 };
const SHAPES: Shape[] = [
  { name: '60s', note: 'the 60 s run: 8 clients, 64 keys, 10 client kills, 1 MN kill (tuned on)', sim: { ...base, ops: 164_000 } },
  { name: '60s-x10', note: 'the same shape, 10x as long (100 client kills)', sim: { ...base, ops: 1_640_000, clientKills: 100, timeouts: 20 } },
  { name: '1key', note: 'all 8 clients on one key', sim: { ...base, keys: 1, ops: 40_000, seed: 2 } },
  { name: '1024keys', note: '1,024 keys', sim: { ...base, keys: 1024, ops: 40_000, seed: 3 } },
  { name: 'crashes', note: '16 keys, 60 client kills (lines lost), 10 timeouts, 2 MN kills', sim: { ...base, keys: 16, ops: 40_000, clientKills: 60, timeouts: 10, mnKills: 2, lose: 1, seed: 4 } },
  { name: 'n5-hot', note: '5 memory nodes, r = 3, a few hot keys, 30% reads', sim: { ...base, keys: 200, mns: 5, hotKeys: true, reads: 0.3, ops: 40_000, seed: 5 } },
  { name: 'no-time', note: 'no `time` on events (read ahead by watermarks only)', sim: { ...base, keys: 16, ops: 40_000, time: false, seed: 6 } },
];

const here = fileURLToPath(import.meta.url);
const args = process.argv.slice(2);

if (args[0] === '--child') {
  // One validation, in a process of its own: its peak RSS is that run's.
  const dir = args[1];
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => join(dir, f));
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = await validateFiles(files, { name: 'fusee', trace: fuseeTrace });
  const c1 = process.cpuUsage(c0);
  process.stdout.write(
    `${JSON.stringify({ verdict: r.verdict, reason: r.reason, events: r.events, ms: performance.now() - t0, cpuMs: (c1.user + c1.system) / 1000, peakMB: process.resourceUsage().maxRSS / 1024, maxBuffered: r.maxBuffered, maxFrontier: r.maxFrontier, partitions: r.partitions, processes: r.processes, notes: r.notes })}\n`,
  );
  process.exit(0);
}

if (args[0] === '--generate') {
  const [, dir, json] = args;
  const stats = simulateToDir(JSON.parse(json) as SimOptions, dir).stats;
  writeFileSync(join(dir, 'done.json'), JSON.stringify(stats));
  process.exit(0);
}

const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const quick = args.includes('--quick');
const cache = resolve(args.includes('--cache') ? args[args.indexOf('--cache') + 1] : join(tmpdir(), 'interleave-bench-validate'));
mkdirSync(cache, { recursive: true });

function node(...rest: string[]): string {
  return execFileSync(process.execPath, ['--import', 'tsx', here, ...rest], { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'] });
}

function traceOf(shape: Shape): { dir: string; stats: Record<string, number | boolean> } {
  const sim = quick ? { ...shape.sim, ops: Math.round(shape.sim.ops / 20), clientKills: Math.ceil((shape.sim.clientKills ?? 0) / 20) } : shape.sim;
  const hash = createHash('sha256').update(JSON.stringify(sim)).digest('hex').slice(0, 12);
  const dir = join(cache, `${shape.name}-${hash}`);
  if (!existsSync(join(dir, 'done.json'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const t = performance.now();
    node('--generate', dir, JSON.stringify(sim));
    console.log(`# generated ${shape.name} in ${((performance.now() - t) / 1000).toFixed(0)} s: ${dir}`);
  }
  return { dir, stats: JSON.parse(readFileSync(join(dir, 'done.json'), 'utf8')) };
}

const keyOf = (file: string) => createHash('sha256').update(`${resolve(file)} ${statSync(file).size} ${statSync(file).mtimeMs}`).digest('hex').slice(0, 12);

/** A directory holding just a link to the trace (the child validates a directory's files). */
function linked(file: string, prefix: string): string {
  const dir = join(cache, `${prefix}-${keyOf(file)}`);
  if (!existsSync(join(dir, 'trace.jsonl'))) {
    mkdirSync(dir, { recursive: true });
    symlinkSync(resolve(file), join(dir, 'trace.jsonl'));
  }
  return dir;
}

/** A real run's trace, and a real run 10x as long, or the same stretched to ten copies in a row (see the header). */
function realTraces(file: string, long: string | undefined): { name: string; note: string; dir: string }[] {
  const one = linked(file, 'real');
  if (long !== undefined) {
    return [
      { name: 'real-60s', note: `the real run's trace (${file})`, dir: one },
      { name: 'real-60s-x10', note: `a real run of the same workload, 10x as long (${long})`, dir: linked(long, 'real-long') },
    ];
  }
  const hash = keyOf(file);
  const ten = join(cache, `real-x10-${hash}`);
  if (!existsSync(join(ten, 'done.json')) || existsSync(join(ten, 'trace.jsonl'))) {
    rmSync(ten, { recursive: true, force: true });
    mkdirSync(ten, { recursive: true });
    const [head, ...lines] = readFileSync(file, 'utf8').trimEnd().split('\n');
    const header = JSON.parse(head) as { params: { replicas: Record<string, number[]> } };
    const events = lines.map((l) => JSON.parse(l) as Record<string, any>);
    const span = events.reduce((m, e) => Math.max(m, e.time ?? 0), 0) + 1e9;
    const replicas: Record<string, number[]> = {};
    for (let i = 0; i < 10; i++) for (const [k, r] of Object.entries(header.params.replicas)) replicas[`${k}.${i}`] = r;
    const head10 = `${JSON.stringify({ ...header, params: { ...header.params, replicas } })}\n`;
    const objs = (o: Record<string, unknown> | undefined, i: number) => (o ? Object.fromEntries(Object.entries(o).map(([k, v]) => [`${k}.${i}`, v])) : o);
    for (let i = 0; i < 10; i++) {
      const fd = openSync(join(ten, `copy${i}.jsonl`), 'w');
      writeSync(fd, head10);
      const out: string[] = [];
      for (const e of events) {
        const a = e.args ? { ...e.args } : undefined;
        if (a?.key !== undefined) a.key = `${a.key}.${i}`;
        if (a?.client !== undefined) a.client = `${a.client}.${i}`;
        if (a?.saw) a.saw = objs(a.saw, i);
        if (a?.wrote) a.wrote = objs(a.wrote, i);
        out.push(JSON.stringify({ ...e, proc: `${e.proc}.${i}`, ...(a ? { args: a } : {}), ...(e.obj ? { obj: `${e.obj}.${i}` } : {}), ...(e.time !== undefined ? { time: e.time + i * span } : {}) }));
      }
      writeSync(fd, `${out.join('\n')}\n`);
      closeSync(fd);
    }
    writeFileSync(join(ten, 'done.json'), '{}');
  }
  return [
    { name: 'real-60s', note: `the real run's trace (${file})`, dir: one },
    { name: 'real-60s-x10', note: 'the real trace, ten copies in a row (own keys and processes)', dir: ten },
  ];
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
console.log(`# validate bench: load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} on ${availableParallelism()} cores${quick ? ' (--quick: 1/20 of each trace)' : ''}`);
console.log('shape\tevents\tprocesses\tverdict\twall_s\tcpu_s\tevents/s\tevents/cpu_s\tpeak_MB\tmax_read_ahead\tmax_frontier');
const results = new Map<string, { events: number; peakMB: number; eps: number; epcs: number; maxBuffered: number; maxFrontier: number }>();
const real = args.includes('--real') ? realTraces(args[args.indexOf('--real') + 1], args.includes('--real-x10') ? args[args.indexOf('--real-x10') + 1] : undefined) : [];
const all = [...real, ...SHAPES];
for (const shape of all) {
  // --only NAME: that shape alone when one is so named, else every shape whose name contains it
  if (only && (all.some((x) => x.name === only) ? shape.name !== only : !shape.name.includes(only))) continue;
  const { dir } = 'sim' in shape ? traceOf(shape) : shape;
  const r = JSON.parse(node('--child', dir).trim().split('\n').pop()!) as {
    verdict: string;
    reason?: string;
    events: number;
    ms: number;
    cpuMs: number;
    peakMB: number;
    maxBuffered: number;
    maxFrontier: number;
    processes: number;
  };
  const eps = r.events / (r.ms / 1000);
  const epcs = r.events / (r.cpuMs / 1000);
  results.set(shape.name, { events: r.events, peakMB: r.peakMB, eps, epcs, maxBuffered: r.maxBuffered, maxFrontier: r.maxFrontier });
  console.log(
    `${shape.name}\t${fmt(r.events)}\t${r.processes}\t${r.verdict}${r.reason ? ` (${r.reason})` : ''}\t${(r.ms / 1000).toFixed(1)}\t${(r.cpuMs / 1000).toFixed(1)}\t${fmt(eps)}\t${fmt(epcs)}\t${r.peakMB.toFixed(0)}\t${fmt(r.maxBuffered)}\t${r.maxFrontier}`,
  );
}
for (const prefix of ['real-60s', '60s']) {
  const one = results.get(prefix);
  const ten = results.get(`${prefix}-x10`);
  const what = prefix === '60s' ? 'simulated 60 s run' : 'real 60 s run';
  if (one) console.log(`# ${what}: ${fmt(one.eps)} events/s wall, ${fmt(one.epcs)} events/CPU-s (target 20,000 events/s)`);
  if (one && ten) console.log(`# ${what}: peak memory 1x ${one.peakMB.toFixed(0)} MB vs 10x ${ten.peakMB.toFixed(0)} MB (ratio ${(ten.peakMB / one.peakMB).toFixed(2)}); frontier ${one.maxFrontier} vs ${ten.maxFrontier} candidate states; read-ahead ${fmt(one.maxBuffered)} vs ${fmt(ten.maxBuffered)} events; ${fmt(one.events)} vs ${fmt(ten.events)} events`);
}
console.log(`# load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
