import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { models } from '../checkers/lin/models/index.ts';
import { traceShapeErrors } from '../impl/fusee/trace-shape.ts';
import { RUN_FILES } from '../impl/harness/run.ts';
import { DescendantWatch, isHelper } from '../impl/kit/proc-check.ts';
import { importHistoryText } from '../traces/index.ts';
import { TraceEvent, TraceHeader } from '../traces/protocol-trace.ts';
import { EXIT } from './exit.ts';
import { runInProcess } from './in-process.ts';
import { runRun, type RunCliOptions } from './run.ts';
import { validateRunTrace } from './validate.ts';

const root = mkdtempSync(join(tmpdir(), 'run-'));
// A nemesis run that does not hold keeps its files (history, trace, validation.html, the
// processes' logs): the summary printed with the failure names them, so that a failure
// that happens once (a loaded CI machine) can be explained afterwards.
let keep = false;
afterAll(() => {
  if (keep) process.stderr.write(`cli/run.test.ts: a run did not hold; its files are kept in ${root}\n`);
  else rmSync(root, { recursive: true, force: true });
});

const defaults: RunCliOptions = { clients: 8, keys: 8, duration: 10, rate: 0, readRatio: 0.5, nemesis: 'none', nodes: 3, replicas: 3, basePort: 0, drain: 10, checkTimeout: 120, timeout: 1000 };

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s) } };
}

/** Runs with a watch on every process the run starts; fails if one outlives it. */
async function watched(name: string, o: Partial<RunCliOptions>): Promise<{ code: number; out: string; err: string }> {
  const watch = new DescendantWatch(process.pid, isHelper).start(50);
  const c = io();
  let code: number;
  try {
    code = await runRun(name, { ...defaults, ...o }, c.io);
  } finally {
    watch.stop();
  }
  expect(await watch.survivors()).toEqual([]);
  return { code, out: c.out.join(''), err: c.err.join('') };
}

describe('interleave run: bad usage', () => {
  it('names the valid implementations, bugs and nemeses (exit 64), starting nothing', async () => {
    let r = await watched('nosuch', {});
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(/unknown implementation "nosuch"; known: fusee, minos/);
    r = await watched('fusee', { bug: 'M99' });
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(/unknown bug "M99" for fusee; known: M1, M2, .*M15.*M22/);
    r = await watched('fusee', { nemesis: 'kill-mn,flood' });
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(/unknown nemesis "flood"; known: none, kill-mn, kill-client, pause, partition, net/);
    r = await watched('fusee', { nemesis: 'none,pause' });
    expect(r.code).toBe(EXIT.usage);
    r = await watched('fusee', { replicas: 4 });
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(/--replicas must be between 2 and --nodes \(3\)/);
    // the spec the trace is validated against needs a backup: r = 1 refused before starting
    // (it ran, then the validation called the implementation's trace invalid)
    r = await watched('fusee', { replicas: 1, out: join(root, 'r1') });
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(/--replicas must be at least 2 for fusee/);
    expect(existsSync(join(root, 'r1'))).toBe(false);
    // a nemesis no fault of which fits the run: refused, not "faults: none" and a verdict
    r = await watched('fusee', { nemesis: 'kill-mn', duration: 1.5, out: join(root, 'short') });
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(/--nemesis kill-mn needs --duration 3 or more .*a 1\.5 s run would have none/);
    expect(existsSync(join(root, 'short'))).toBe(false);
  });

  it("a trace the spec's mapping cannot read is not validated (inconclusive), never invalid", async () => {
    const file = join(root, 'r1-trace.jsonl');
    const header = { format: 'interleave-trace/1', spec: 'fusee', params: { r: 1, n: 3, replicas: { k0: [0] }, bugs: [] } };
    writeFileSync(file, `${JSON.stringify(header)}\n`);
    const v = await validateRunTrace('fusee', file);
    expect(v.validation.status).toBe('inconclusive');
    expect(v.validation.detail).toMatch(/not validated: the spec cannot read the trace: .*at least 2 replicas per key/);
  });

  it('refuses bad numbers on the command line (exit 64)', async () => {
    // the command's parsing and error handling, in this process (a process of its own
    // costs a tsx start each; cli/hardening.test.ts spawns the real command)
    for (const bad of [['--clients', '0'], ['--duration', 'x'], ['--read-ratio', '2']]) {
      const p = await runInProcess('run', 'fusee', ...bad);
      expect(p.code).toBe(EXIT.usage);
      expect(p.stderr).toMatch(/expected/);
    }
    // the range the message states is the one enforced (0.05 was refused as "in (0, 86400]")
    for (const bad of ['0.05', '0', '86401']) {
      const p = await runInProcess('run', 'fusee', '--duration', bad);
      expect(p.code).toBe(EXIT.usage);
      expect(p.stderr).toMatch(/expected a number of seconds in \[0\.1, 86400\]/);
    }
  });

  it('never writes into a non-empty directory without --force (exit 73)', async () => {
    const dir = join(root, 'taken');
    mkdirSync(dir);
    writeFileSync(join(dir, 'mine.txt'), 'keep');
    const r = await watched('fusee', { out: dir });
    expect(r.code).toBe(EXIT.cannotCreate);
    expect(r.err).toMatch(/not empty \(pass --force/);
    expect(readFileSync(join(dir, 'mine.txt'), 'utf8')).toBe('keep');
  });

  it('says clearly that a port is in use (exit 70), and leaves no process behind', async () => {
    const server: Server = createServer();
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
    try {
      // the first memory node gets the base port
      const r = await watched('fusee', { basePort: port, out: join(root, 'port') });
      expect(r.code).toBe(EXIT.internal);
      expect(r.err).toMatch(/cannot start the cluster: mn0 exited with code 73 while starting; its last output:\n.*EADDRINUSE/);
      expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      server.close();
    }
  });
});

const NEMESES = ['none', 'kill-mn', 'kill-client', 'pause', 'partition', 'net'];

describe.each(NEMESES)('interleave run fusee --nemesis %s (10 s)', (nemesis) => {
  it('is linearizable, writes files that import back, and leaves no process behind', async () => {
    onTestFailed(() => {
      keep = true;
    });
    const dir = join(root, nemesis);
    const r = await watched('fusee', { nemesis, seed: '7', out: dir });
    expect(r.err, r.out).toBe('');
    // On a failure, the run's own summary says which check failed (lin, validation, stuck).
    expect(r.code, r.out).toBe(EXIT.holds);
    expect(r.out).toMatch(/verdict:\s+linearizable/);
    // the trace validates against specs/fusee (interleave validate), and the page is written
    expect(r.out).toMatch(/validation:\s+valid \([\d,]+ events in [\d.]+ s\)/);
    expect(readFileSync(join(dir, 'validation.html'), 'utf8')).toMatch(/VALID|valid/);
    // the history, in both formats, imports back
    const model = models['kv-append'];
    const jsonl = importHistoryText(readFileSync(join(dir, 'history.jsonl'), 'utf8'), 'history.jsonl', { model, format: 'jsonl' });
    const edn = importHistoryText(readFileSync(join(dir, 'history.edn'), 'utf8'), 'history.edn', { model, format: 'edn' });
    expect(jsonl.operations.length).toBeGreaterThan(200);
    expect(edn.operations.length).toBe(jsonl.operations.length);
    expect(edn.counts.indeterminate).toBe(jsonl.counts.indeterminate);
    // the trace: a header, then events of the schema, each process's seq 1, 2, 3, ...,
    // each object's change numbers never repeated (and, without faults, without gaps)
    const lines = readFileSync(join(dir, 'trace.jsonl'), 'utf8').trimEnd().split('\n');
    expect(TraceHeader.safeParse(JSON.parse(lines[0])).success).toBe(true);
    const seqs = new Map<string, number[]>();
    const changes = new Map<string, number[]>();
    const events: TraceEvent[] = [];
    for (const l of lines.slice(1)) {
      const parsed = TraceEvent.safeParse(JSON.parse(l));
      if (!parsed.success) throw new Error(`bad trace line ${l}: ${parsed.error.message}`);
      const e = parsed.data;
      events.push(e);
      seqs.set(e.proc, [...(seqs.get(e.proc) ?? []), e.seq]);
      const wrote = (e.args?.wrote ?? {}) as Record<string, number>;
      for (const [obj, n] of [...(e.objSeq !== undefined ? [[e.obj!, e.objSeq] as const] : []), ...Object.entries(wrote)]) changes.set(obj, [...(changes.get(obj) ?? []), n]);
    }
    for (const [proc, s] of seqs) expect(s.sort((a, b) => a - b), proc).toEqual(s.map((_, i) => i + 1));
    for (const [obj, c] of changes) {
      const sorted = [...c].sort((a, b) => a - b);
      expect(new Set(sorted).size, obj).toBe(sorted.length);
      if (nemesis === 'none') expect(sorted, obj).toEqual(sorted.map((_, i) => i + 1));
    }
    // every client's events (and every redo's) have the shape of the protocol's operations
    expect(traceShapeErrors(events)).toEqual([]);
    // the report draws the fault windows
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('linearizable');
    if (nemesis !== 'none') expect(html).toMatch(/&#34;marks&#34;:\[\[/); // the timeline's data has windows to draw
    if (nemesis === 'none') {
      // the same seed gives every client the same operations (how far each gets depends on timing)
      const again = join(root, 'none-again');
      expect((await watched('fusee', { seed: '7', duration: 3, out: again })).code).toBe(EXIT.holds);
      const ops = (file: string) => {
        const byClient = new Map<unknown, string[]>();
        for (const o of importHistoryText(readFileSync(file, 'utf8'), file, { model, format: 'jsonl' }).operations.sort((a, b) => a.call - b.call)) {
          const i = o.input as { f: string; key: string; value?: string };
          byClient.set(o.client, [...(byClient.get(o.client) ?? []), `${i.f} ${i.key} ${i.value ?? ''}`]);
        }
        return byClient;
      };
      const first = ops(join(dir, 'history.jsonl'));
      const second = ops(join(again, 'history.jsonl'));
      expect(second.size).toBe(8);
      for (const [client, list] of second) {
        const n = Math.min(list.length, first.get(client)!.length);
        expect(n).toBeGreaterThan(10);
        expect(list.slice(0, n)).toEqual(first.get(client)!.slice(0, n));
      }
    }
  });
});

describe('interleave run: the trace is validated', () => {
  it('a bug flag whose steps the spec does not take (M4: readers read a backup) makes the trace invalid: exit 1, where and why', async () => {
    const dir = join(root, 'm4');
    const r = await watched('fusee', { bug: 'M4', seed: '3', duration: 3, out: dir });
    expect(r.code).toBe(EXIT.violation);
    expect(r.out).toMatch(/validation:\s+INVALID \(partition k\d, after \d+ events: c\d+ #\d+ read \{key: "k\d", mn: \d.*\): args\.mn = \d+.*?, but the primary of k\d \(primary\) before read\(c\d+\) is \d+\)/);
    expect(r.out).toMatch(/verdict:\s+violation: .*the trace does not match the spec/);
    expect(readFileSync(join(dir, 'validation.html'), 'utf8')).toMatch(/INVALID|invalid/);
  });
});

describe('interleave run: no operations', () => {
  it('a run that records none says so and has no verdict (exit 2), not bad input naming its own file (65)', async () => {
    // 0.1 op/s over 8 clients: a client's first operation comes 40 s or more after the start
    const dir = join(root, 'no-ops');
    const r = await watched('fusee', { rate: 0.1, duration: 1, drain: 1, seed: '1', out: dir });
    expect(r.err).not.toMatch(/history\.jsonl:1/);
    expect(r.code).toBe(EXIT.inconclusive);
    expect(r.out).toMatch(/operations:\s+none recorded/);
    expect(r.out).toMatch(/check:\s+not run \(no operations were recorded\)/);
    expect(r.out).toMatch(/verdict:\s+unknown: no operations were recorded: nothing to check/);
    expect(readFileSync(join(dir, 'history.jsonl'), 'utf8')).toBe('');
    expect(existsSync(join(dir, 'report.html'))).toBe(false);
  });
});

describe('interleave run --force', () => {
  it("loses nothing of the user's in the directory, and leaves no file of an earlier run beside the new ones", async () => {
    const dir = join(root, 'forced');
    mkdirSync(join(dir, 'procs'), { recursive: true });
    writeFileSync(join(dir, 'procs', 'notes.txt'), 'precious');
    writeFileSync(join(dir, 'procs', 'cp0.trace.jsonl'), '{"stale": true}\n');
    writeFileSync(join(dir, 'crash-history.jsonl'), 'a minos run\n'); // fusee writes none
    mkdirSync(join(dir, 'report.windows'));
    writeFileSync(join(dir, 'report.windows', 'p0-w1.html'), 'an earlier long run');
    const r = await watched('fusee', { duration: 1, drain: 1, clients: 2, keys: 2, seed: '2', out: dir, force: true });
    expect(r.code).toBe(EXIT.holds);
    expect(readFileSync(join(dir, 'procs', 'notes.txt'), 'utf8')).toBe('precious');
    expect(readFileSync(join(dir, 'procs', 'cp0.trace.jsonl'), 'utf8')).toBe('{"stale": true}\n');
    expect(r.out).toMatch(new RegExp(`logs:\\s+${join(dir, 'procs-2').replace(/[.]/g, '\\.')}\n`));
    expect(existsSync(join(dir, 'procs-2', 'cp0.log'))).toBe(true);
    expect(existsSync(join(dir, 'crash-history.jsonl'))).toBe(false);
    expect(existsSync(join(dir, 'report.windows'))).toBe(false);
    expect(readFileSync(join(dir, 'trace.jsonl'), 'utf8')).not.toMatch(/stale/);
  });
});

describe("the documented ways to validate a run's trace", () => {
  it('(README, validate --help) name the file a run writes its trace to, and only it', async () => {
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    const help = (await runInProcess('validate', '--help')).stdout;
    const commands = [...`${readme}\n${help}`.matchAll(/interleave validate fusee (\S+)/g)].map((m) => m[1]);
    expect(commands.length).toBeGreaterThanOrEqual(2);
    for (const path of commands) {
      // a glob over a run's directory matches its files: only the merged trace may match
      const glob = new RegExp(`^${path.split('/').pop()!.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);
      expect([path, RUN_FILES.filter((f) => glob.test(f))]).toEqual([path, ['trace.jsonl']]);
    }
  });
});

describe('interleave run: interrupted', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('on %s kills every process of the run and exits 128+n', async (sig) => {
    const main = fileURLToPath(new URL('./main.ts', import.meta.url));
    const dir = join(root, `sig-${sig}`);
    const child = spawn(process.execPath, ['--import', 'tsx', main, 'run', 'fusee', '--duration', '60', '--nemesis', 'pause', '--out', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const watch = new DescendantWatch(child.pid!, isHelper).start(50);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    // wait until the cluster is up: the client processes have started logging
    for (let i = 0; i < 600 && !existsSync(join(dir, 'procs', 'cp1.log')); i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1500));
    expect(watch.seen.size).toBeGreaterThanOrEqual(7); // 3 memory nodes, master, proxy, 2 client processes
    child.kill(sig);
    expect(await exited).toBe(sig === 'SIGINT' ? 130 : 143);
    watch.stop();
    expect(await watch.survivors()).toEqual([]);
    expect(stderr).toMatch(new RegExp(`${sig}: stopped every process of the run`));
    // what the run leaves is a trace that says what it is (review defect 19: the per-process
    // files had no header, and validate refused them with 65): every file starts with the
    // run's header, validate reads them, and the message says they are incomplete (the
    // processes were killed mid-step, with no crash event: a verdict on them means nothing)
    const procs = join(dir, 'procs');
    const traces = readdirSync(procs).filter((f) => /^trace-.*\.jsonl$/.test(f)).map((f) => join(procs, f));
    expect(traces.length).toBeGreaterThanOrEqual(4); // nemesis, master, 2 client processes
    for (const f of traces) {
      const header = TraceHeader.parse(JSON.parse(readFileSync(f, 'utf8').split('\n')[0]));
      expect([f, header.spec, Object.keys(header.params ?? {}).sort()]).toEqual([f, 'fusee', ['bugs', 'n', 'r', 'replicas']]);
    }
    expect(stderr).toContain(`partial files are in ${procs}: its trace-*.jsonl (each with the run's header) are incomplete`);
    const v = await runInProcess('validate', 'fusee', ...traces);
    expect(v.code, v.stderr).not.toBe(EXIT.badData);
    expect(v.stdout).toMatch(new RegExp(`trace: +${traces.length} files, [\\d,]+ processes, [\\d,]+ events`));
  });
});
