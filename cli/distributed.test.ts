// Distributed runs through a real redis-server (127.0.0.1, a free port, a temporary
// directory) with worker processes standing in for hosts: the counts and verdicts of one
// machine, a worker killed mid-run, Redis unreachable, linearizability partitions as jobs,
// swarm verification. Small configs here; every default config of every spec with
// INTERLEAVE_FULL=1.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedBfs } from '../checkers/distributed/bfs.ts';
import { distributedLin } from '../checkers/distributed/lin.ts';
import { connect, keys, liveWorkers, QUEUE_PREFIX, queueName, RedisUnavailable, RUN_ALIVE_MS, RUNS, sweepDeadRuns } from '../checkers/distributed/redis.ts';
import { swarm } from '../checkers/distributed/swarm.ts';
import { startWorker } from '../checkers/distributed/worker.ts';
import { BIN, spawnWorker, startRedis, type RedisServer, type WorkerProcess } from '../checkers/distributed/testing.ts';
import { exploreSync } from '../checkers/explore/index.ts';
import { racyCounter } from '../checkers/explore/fixtures/racy-counter.ts';
import { UnsupportedOption } from '../checkers/explore/errors.ts';
import type { ExploreResult, ExploreTarget } from '../checkers/explore/types.ts';
import { checkHistorySync } from '../checkers/lin/index.ts';
import { generateHistory } from '../checkers/lin/generate.ts';
import { specs } from '../specs/index.ts';
import { runInProcess } from './in-process.ts';
import { specTarget } from './spec-machine.ts';

const FULL = process.env.INTERLEAVE_FULL === '1';
const WORKERS = 3;
/**
 * Leases: the default (10 s) where counts are compared, so that a worker starved of CPU on
 * a busy machine is not taken for dead (a job stalled 3 times makes the run inconclusive);
 * a short one where a worker is killed, so that its job is retried within the test.
 */
const LEASE = { noWorkerMs: 30_000 };
const SHORT_LEASE = { leaseMs: 1500, noWorkerMs: 20_000 };
const COUNTER = pathToFileURL(new URL('../checkers/explore/fixtures/racy-counter.ts', import.meta.url).pathname).href;
const TESTING = pathToFileURL(new URL('../checkers/distributed/testing.ts', import.meta.url).pathname).href;

let redis: RedisServer;
const workers: WorkerProcess[] = [];

async function untilLive(n: number): Promise<void> {
  const r = await connect(redis.url);
  try {
    for (let i = 0; i < 600 && (await liveWorkers(r, 3000)) < n; i++) await new Promise((done) => setTimeout(done, 100));
    expect(await liveWorkers(r, 3000)).toBeGreaterThanOrEqual(n);
  } finally {
    r.disconnect();
  }
}

beforeAll(async () => {
  redis = await startRedis();
  for (let i = 0; i < WORKERS; i++) workers.push(spawnWorker(redis.url));
  await untilLive(WORKERS);
}, 90_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await redis?.stop();
}, 30_000);

/** The figures that must not depend on where the search ran. */
function counts(r: ExploreResult) {
  return { status: r.status, reason: r.incompleteReason, states: r.states, transitions: r.transitions, depth: r.depth, coverage: r.coverage, violated: r.violations.map((v) => v.property).sort(), lengths: r.violations.map((v) => v.steps.length).sort() };
}

describe('distributed BFS', () => {
  it('counts, verdicts and shortest counterexamples of one machine on the racy counter', async () => {
    const cases: [[number, number, { lostUpdateIsBug?: boolean }], boolean][] = [
      [[3, 2, {}], false],
      [[3, 2, { lostUpdateIsBug: true }], true],
      [[3, 2, { lostUpdateIsBug: true }], false],
    ];
    for (const [args, all] of cases) {
      const target: ExploreTarget = { module: COUNTER, export: 'racyCounter', args };
      const one = exploreSync(racyCounter(...args), { all });
      // One job per partition on the first case, partitions grouped into jobs (the default) on the others.
      const { result, stats } = await distributedBfs(target, { all }, { url: redis.url, partitions: 8, ...(args === cases[0][0] ? { recordsPerJob: 1 } : {}), ...LEASE });
      if (all || one.status === 'holds') expect(counts(result)).toEqual(counts(one));
      else {
        // Without --all, each stops at its first violating level: same verdict, same shortest length.
        expect(result.status).toBe('violation');
        expect(result.violations[0].property).toBe(one.violations[0].property);
        expect(result.violations[0].steps.length).toBe(one.violations[0].steps.length);
      }
      expect(stats.bytesSent).toBeGreaterThan(0);
    }
  }, 60_000);

  // fusee A0 is compared through the CLI below.
  const small = [
    ['minos', 'A-synch'],
    ['minos', 'F-synch'],
  ];
  // INTERLEAVE_FULL=1: every default config (INTERLEAVE_SPECS=a,b to take some specs only,
  // or spec/config items: INTERLEAVE_SPECS=rowan,fusee/E1).
  const only = process.env.INTERLEAVE_SPECS?.split(',');
  const taken = (spec: string, config: string) => !only || only.includes(spec) || only.includes(`${spec}/${config}`);
  const configs = FULL ? specs.flatMap((def) => def.configs.filter((c) => c.tier === 'default' && taken(def.name, c.name)).map((c) => [def.name, c.name])) : small;
  it(`the counts of one machine on ${FULL ? 'every default config' : 'small default configs'} of the bundled specs`, async () => {
    for (const [name, config] of configs) {
      const def = specs.find((d) => d.name === name)!;
      const c = def.configs.find((x) => x.name === config)!.config;
      const built = def.build(c);
      if (def.build(c, undefined, { layout: false }).layout !== undefined) {
        // On the kit's word layout with no plain machine (swarm's In-n-Out): refused, not miscounted.
        await expect(distributedBfs(specTarget(name, config), {}, { url: redis.url, partitions: 16, ...LEASE })).rejects.toThrow(UnsupportedOption);
        if (FULL) process.stderr.write(`| ${name} ${config} | refused: on the word layout, no plain machine |\n`);
        continue;
      }
      // The embedded explorer runs the machine a user gets (on the word layout where the
      // spec has one); the distributed search, the spec's plain machine.
      const t0 = performance.now();
      const one = exploreSync(built, {});
      const t1 = performance.now();
      const { result } = await distributedBfs(specTarget(name, config), {}, { url: redis.url, partitions: 16, ...LEASE });
      const t2 = performance.now();
      // The table in checkers/distributed/README.md.
      if (FULL) process.stderr.write(`| ${name} ${config}${built.layout !== undefined ? ' (words)' : ''} | ${one.status} | ${one.states} / ${one.transitions} | ${result.status} | ${result.states} / ${result.transitions} | ${result.workers} | ${((t1 - t0) / 1000).toFixed(1)} s | ${((t2 - t1) / 1000).toFixed(1)} s |\n`);
      expect({ spec: name, config, ...counts(result) }).toEqual({ spec: name, config, ...counts(one) });
    }
  }, FULL ? 3_600_000 : 60_000);

  it('runs a spec on the word layout on its plain machine, with the embedded explorer\'s counts', async () => {
    // swarm's Safe-Guess (sg.ts) and minos's <Lin, Synch> (synch-words.ts) on words: their
    // states do not travel between processes (v8.serialize drops a layout state's accessors,
    // and their words number values as each process meets them), so the run asks each spec
    // for its plain machine, the reference its layout reproduces state for state.
    for (const [name, config, linearizability] of [['swarm', 'sg-n1-same-writer', undefined], ['swarm', 'sg-n1-same-writer', 'off'], ['minos', 'E-synch', undefined]] as const) {
      const def = specs.find((d) => d.name === name)!;
      const built = def.build(def.configs.find((x) => x.name === config)!.config);
      expect(built.layout).toBeDefined();
      const options = linearizability === undefined ? {} : { linearizability };
      const one = exploreSync(built, options);
      expect(one.status).toBe('holds');
      const { result } = await distributedBfs(specTarget(name, config), options, { url: redis.url, partitions: 4, ...LEASE });
      expect({ name, config, linearizability, ...counts(result) }).toEqual({ name, config, linearizability, ...counts(one) });
    }
  }, 120_000);

  it('refuses a spec on the word layout with no plain machine, with a message saying so', async () => {
    // swarm's In-n-Out is on words only: its build ignores { layout: false }.
    await expect(distributedBfs(specTarget('swarm', 'ino-reuse'), {}, { url: redis.url, partitions: 4, ...LEASE })).rejects.toThrow(/word layout and gives no plain machine/);
  }, 60_000);

  it('explore --redis prints the counts of the embedded explorer (workers of other hosts only)', async () => {
    const embedded = await runInProcess('explore', 'fusee', '--config', 'A0', '--json');
    const spread = await runInProcess('explore', 'fusee', '--config', 'A0', '--json', '--redis', redis.url, '--workers-per-host', '0');
    expect(spread.code).toBe(0);
    const pick = (s: string) => (JSON.parse(s) as { result: { runs: { result: ExploreResult }[] } }).result.runs.map((r) => [r.result.status, r.result.states, r.result.transitions, r.result.depth]);
    expect(pick(spread.stdout)).toEqual(pick(embedded.stdout));
  }, 60_000);

  it('explore --redis --html draws a layout spec\'s counterexample with the plain machine it explored', async () => {
    // Drawn with the layout machine, the plain states lost their client history and showed the ghost fields.
    const dir = mkdtempSync(join(tmpdir(), 'interleave-redis-html-'));
    try {
      const page = (name: string) => readFileSync(join(dir, name), 'utf8');
      const embedded = await runInProcess('explore', 'swarm', '--mutant', 'M8', '--html', join(dir, 'embedded.html'));
      const spread = await runInProcess('explore', 'swarm', '--mutant', 'M8', '--html', join(dir, 'redis.html'), '--redis', redis.url, '--workers-per-host', '0');
      expect(spread.code).toBe(embedded.code);
      expect(page('embedded.html')).toContain('Client history');
      expect(page('redis.html')).toContain('Client history');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("a user's spec that breaks the contract, through Redis", () => {
  it('is said of its file (65), as the local explore says it, whether the coordinator or a job finds it (review defect 18)', async () => {
    // init() returns no state (the coordinator's check); actions() breaks the contract at
    // n = 2 only (a worker's job finds it: it was "a job failed", inconclusive, exit 2).
    const dir = mkdtempSync(join(tmpdir(), 'interleave-redis-contract-'));
    try {
      const module = (name: string, machine: string) => {
        const file = join(dir, `${name}.mjs`);
        writeFileSync(file, `const machine = ${machine};\nexport const spec = { name: '${name}', title: 't', paper: 'p', configs: [{ name: 'A', description: 'a', config: {}, tier: 'default' }], mutants: [], build: () => machine };\n`);
        return file;
      };
      const base = "init: () => [{ n: 0 }], actionNames: ['inc'], next: (s) => ({ n: s.n + 1 }), invariants: { ok: () => true }";
      const cases = [
        [module('noinit', `{ ${base}, init: () => [], actions: () => [] }`), 'init() must return a non-empty array of states; it returned an empty array'],
        [module('deep', `{ ${base}, actions: (s) => (s.n === 2 ? 5 : s.n < 3 ? [{ label: 'inc()' }] : []) }`), 'actions(state) must return an array of actions; it returned number 5'],
      ] as const;
      for (const [file, what] of cases) {
        const message = `interleave: ${file}: the machine breaks the contract: ${what} (exploring A)\n`;
        const local = await runInProcess('explore', file);
        expect([local.code, local.stderr]).toEqual([65, message]);
        for (const swarmJobs of [[], ['--swarm', '2']]) {
          const spread = await runInProcess('explore', file, '--redis', redis.url, '--workers-per-host', '0', ...swarmJobs);
          expect([swarmJobs, spread.code, spread.stderr]).toEqual([swarmJobs, 65, message]);
        }
      }
      // review3 E1: what the spec's own functions throw is the module's error (65), as on
      // one host, whether a job (deep: an invariant at n = 2, next at n = 1) or the
      // coordinator (init) calls it; it was "a job failed (boom)", inconclusive (2)
      const thrown = [
        [module('invthrow', `{ ${base}, actions: (s) => (s.n < 3 ? [{ label: 'inc()' }] : []), invariants: { ok: (s) => { if (s.n === 2) throw new Error('boom'); return true; } } }`), 'Error: boom'],
        [module('nextthrow', `{ ${base}, actions: (s) => (s.n < 3 ? [{ label: 'inc()' }] : []), next: (s) => { if (s.n === 1) throw new RangeError('bad step'); return { n: s.n + 1 }; } }`), 'RangeError: bad step'],
        [module('initthrow', `{ ${base}, actions: () => [], init: () => { throw new TypeError('no init'); } }`), 'TypeError: no init'],
      ] as const;
      for (const [file, what] of thrown) {
        const message = `interleave: ${file}: a spec that does not throw; it threw while exploring A: ${what}\n`;
        const local = await runInProcess('explore', file);
        expect([file, local.code, local.stderr]).toEqual([file, 65, message]);
        for (const swarmJobs of [[], ['--swarm', '2']]) {
          const spread = await runInProcess('explore', file, '--redis', redis.url, '--workers-per-host', '0', ...swarmJobs);
          expect([file, swarmJobs, spread.code, spread.stderr]).toEqual([file, swarmJobs, 65, message]);
        }
      }
      // round 4 D3: a state that is not plain data is the spec's (65), through Redis as on one
      // host: a cycle in an initial state (the coordinator's encoder overflowed its stack:
      // internal error, 70) or in a later one, and a function in a later state (a job's: "a
      // job failed", inconclusive, 2)
      const cyclic = (n: string) => `(n) => { const s = { n, a: [] }; if (n === ${n}) s.a.push(s); return s; }`;
      const notPlain = [
        [module('cycinit', `{ ${base}, init: () => [(${cyclic('0')})(0)], actions: () => [] }`), 'a cycle (a reference back to the state itself, which holds it: a state is a tree, not a graph) at .a[0]'],
        [module('cycdeep', `{ ${base}, actions: (s) => (s.n < 3 ? [{ label: 'inc()' }] : []), next: (s) => (${cyclic('2')})(s.n + 1) }`), 'a cycle (a reference back to the state itself, which holds it: a state is a tree, not a graph) at .a[0]'],
        [module('fndeep', `{ ${base}, actions: (s) => (s.n < 3 ? [{ label: 'inc()' }] : []), next: (s) => ({ n: s.n + 1, f: s.n === 1 ? () => 1 : 0 }) }`), 'a function at .f'],
      ] as const;
      for (const [file, what] of notPlain) {
        const message = `interleave: ${file}: a state must be plain data; found ${what} (exploring A)\n`;
        const local = await runInProcess('explore', file);
        expect([file, local.code, local.stderr]).toEqual([file, 65, message]);
        const spread = await runInProcess('explore', file, '--redis', redis.url, '--workers-per-host', '0');
        expect([file, spread.code, spread.stderr]).toEqual([file, 65, message]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});

describe('a busy host', () => {
  it('keeps its share: a worker whose lease ran out but whose heartbeat beats is waited for, not redone', async () => {
    // Each worker process holds its event loop up for 1.5 s once, with a lease of 0.4 s:
    // BullMQ gives the job to another worker, which waits for the live holder's commit.
    const target: ExploreTarget = { module: TESTING, export: 'slowRacyCounter', args: [2, 2, 1500] };
    const { result, stats } = await distributedBfs(target, {}, { url: redis.url, partitions: 2, leaseMs: 400, noWorkerMs: 20_000 });
    expect(counts(result)).toEqual(counts(exploreSync(racyCounter(2, 2), {})));
    expect(stats.waits).toBeGreaterThan(0);
  }, 30_000);
});

describe('the sweep of dead runs', () => {
  it('also removes keys of a run no longer registered, and keeps a run whose coordinator lives', async () => {
    const r = await connect(redis.url);
    try {
      // A removed run's keys written late (a worker finishing its task), and a run being
      // started (its mark of life first, not registered yet).
      const [late, starting] = ['00c0ffee00c0ffee', '00beef0000beef00'];
      await r.hset(keys(late).stat, 'waits', 1);
      await r.set(`${QUEUE_PREFIX}:${queueName(late)}:stalled-check`, '1');
      await r.set(keys(starting).alive, '1', 'PX', RUN_ALIVE_MS);
      await r.set(keys(starting).desc, '{}');
      await sweepDeadRuns(r); // the workers' own sweeps may have come first: the keys are what counts
      expect(await r.keys(`*${late}*`)).toEqual([]);
      expect((await r.keys(`*${starting}*`)).sort()).toEqual([keys(starting).alive, keys(starting).desc].sort());
      await r.del(keys(starting).alive, keys(starting).desc);
    } finally {
      r.disconnect();
    }
  });
});

describe('a coordinator killed with SIGKILL', () => {
  it('leaves keys that expire, and the next run removes them: nothing accumulates', async () => {
    const r = await connect(redis.url);
    const cli = spawn(process.execPath, [BIN, 'explore', 'fusee', '--config', 'A1', '--redis', redis.url, '--workers-per-host', '0'], { stdio: 'ignore' });
    try {
      let run: string | undefined;
      for (let i = 0; i < 600 && run === undefined; i++) {
        const [id] = await r.smembers(RUNS);
        if (id !== undefined && (await r.exists(keys(id).stat)) === 1) run = id;
        else await new Promise((done) => setTimeout(done, 25));
      }
      expect(run).toBeDefined();
      cli.kill('SIGKILL');
      await new Promise((done) => (cli.exitCode !== null || cli.signalCode !== null ? done(null) : cli.once('exit', done)));
      const left = async () => (await r.keys(`*${run}*`)).length;
      expect(await left()).toBeGreaterThan(0);
      // The run's mark of life expires within RUN_ALIVE_MS; here it is made to expire now.
      const ttl = await r.pttl(keys(run!).alive);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(RUN_ALIVE_MS);
      await r.pexpire(keys(run!).alive, 1);
      await new Promise((done) => setTimeout(done, 5));
      // The next run sweeps it away before it starts.
      const { result } = await distributedBfs({ module: COUNTER, export: 'racyCounter', args: [2, 1] }, {}, { url: redis.url, ...LEASE });
      expect(result.status).toBe('holds');
      expect(await r.sismember(RUNS, run!)).toBe(0);
      // A worker still finishing a task of the killed run can write a key of it after that
      // sweep; the workers' own sweeps (every few seconds) remove such keys too.
      for (let i = 0; i < 600 && (await left()) > 0; i++) await new Promise((done) => setTimeout(done, 25));
      expect(await left()).toBe(0);
    } finally {
      cli.kill('SIGKILL');
      r.disconnect();
    }
  }, 60_000);
});

describe('Redis unreachable', () => {
  it('is an error of its own (exit 69), never a verdict', async () => {
    const closed = `redis://127.0.0.1:${redis.port + 1 === 65536 ? 1 : redis.port + 1}`;
    await expect(distributedBfs({ module: COUNTER, export: 'racyCounter', args: [2, 1] }, {}, { url: closed })).rejects.toBeInstanceOf(RedisUnavailable);
    const r = await runInProcess('explore', 'fusee', '--config', 'A0', '--redis', closed, '--workers-per-host', '0');
    expect(r.code).toBe(69);
    expect(r.stderr).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+.*no verdict/);
    expect(r.stdout).not.toMatch(/holds|violation/);
    const bad = await runInProcess('explore', 'fusee', '--config', 'A0', '--redis', 'http://127.0.0.1:6379');
    expect(bad.code).toBe(64);
  }, 30_000);
});

describe('Redis lost mid-run', () => {
  it('a worker reports it once, through done (69); a stop asked afterwards resolves, never an unhandled rejection (review defect 7)', async () => {
    // `explore --redis` prints its 69 line and SIGTERMs the worker it started, which has
    // lost Redis too: close() then returned the rejected done, and the stop handler's
    // rejection went unhandled (a raw stack trace, or "internal error").
    const own = await startRedis();
    try {
      const w = await startWorker(own.url);
      await own.stop();
      await expect(w.done).rejects.toBeInstanceOf(RedisUnavailable);
      await expect(w.close()).resolves.toBeUndefined();
    } finally {
      await own.stop();
    }
  }, 60_000);
});

describe('a worker stopped while it is still starting', () => {
  it('exits as a stopped worker does (0, nothing on stderr), not by the signal (143) (review defect 17)', async () => {
    // A "Redis" that accepts the connection and never answers: the worker is deterministically
    // still connecting (its ready check waits) when the SIGTERM comes.
    const sockets: Socket[] = [];
    const silent = createServer((c) => {
      sockets.push(c);
      c.on('error', () => {});
    });
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    const connected = new Promise((done) => silent.once('connection', done));
    const w = spawnWorker(`redis://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    try {
      const exit = new Promise<[number | null, string | null]>((done) => w.child.once('exit', (code, sig) => done([code, sig])));
      await connected;
      w.child.kill('SIGTERM');
      expect(await exit).toEqual([0, null]);
      expect(w.stderr()).toBe('');
    } finally {
      await w.kill();
      for (const c of sockets) c.destroy();
      await new Promise((done) => silent.close(done));
    }
  }, 60_000);
});

describe('linearizability partitions as jobs', () => {
  it('gives one machine\'s verdict, partition by partition', async () => {
    for (const corrupt of [0, 1]) {
      const g = generateHistory({ family: 'kv', ops: 1500, clients: 6, keys: 12, seed: 7 + corrupt, corrupt });
      const one = checkHistorySync(g.model, g.history);
      const { result, jobs } = await distributedLin(g.model, g.history, {}, { url: redis.url, ...LEASE });
      expect(jobs).toBe(one.partitions.length);
      expect(result.verdict).toBe(one.verdict);
      expect(result.verdict).toBe(corrupt ? 'illegal' : 'ok');
      if (corrupt === 0) expect(result.partitions.map((p) => [p.operations.length, p.verdict])).toEqual(one.partitions.map((p) => [p.operations.length, p.verdict]));
      else {
        const illegal = (r: typeof one) => r.partitions.filter((p) => p.verdict === 'illegal').map((p) => p.operations);
        expect(illegal(result)).toEqual(illegal(one));
      }
    }
  }, 60_000);
});

describe('swarm verification', () => {
  it('finds the lost update and cancels the rest; without a bug it reports coverage, never holds', async () => {
    const buggy = await swarm({ module: COUNTER, export: 'racyCounter', args: [3, 2, { lostUpdateIsBug: true }] }, {}, { url: redis.url, ...LEASE }, { jobs: 12, walks: 50, depth: 40, statesPerJob: 2000 });
    expect(buggy.result.status).toBe('violation');
    expect(buggy.result.violations[0].property).toBe('noLostUpdate');
    expect(buggy.summary.ran + buggy.summary.cancelled).toBe(12);
    const clean = await swarm({ module: COUNTER, export: 'racyCounter', args: [3, 2] }, {}, { url: redis.url, ...LEASE }, { jobs: 6, walks: 20, depth: 40, statesPerJob: 500 });
    expect(clean.result.status).toBe('incomplete');
    expect(clean.summary.ran).toBe(6);
    expect(clean.result.incompleteReason).toMatch(/never shows that the spec holds/);
    expect(clean.result.notes?.[0]).toMatch(/6 ran .* states visited in all/);
  }, 60_000);
});

describe('a worker killed mid-run', () => {
  it('loses no state: the counts of one machine, or an inconclusive run', async () => {
    const target: ExploreTarget = { module: COUNTER, export: 'racyCounter', args: [3, 3] };
    const one = exploreSync(racyCounter(3, 3), {});
    const watcher = await connect(redis.url);
    const victim = workers[WORKERS - 1];
    let killed = false;
    const kill = (async () => {
      // Once the run has committed some states, kill a worker without a word.
      for (let i = 0; i < 400 && !killed; i++) {
        const [run] = await watcher.smembers(RUNS);
        if (run !== undefined && Number((await watcher.hget(keys(run).stat, 'states')) ?? 0) > 500) {
          await victim.kill();
          killed = true;
        } else await new Promise((done) => setTimeout(done, 25));
      }
    })();
    try {
      const { result } = await distributedBfs(target, {}, { url: redis.url, partitions: 16, ...SHORT_LEASE });
      await kill;
      expect(killed).toBe(true);
      if (process.env.INTERLEAVE_DEBUG === '1') process.stderr.write(`killed worker run: ${result.status} ${result.states} states, ${result.incompleteReason ?? ''}\n`);
      if (result.status === 'holds') expect(counts(result)).toEqual(counts(one));
      else {
        expect(result.status).toBe('incomplete');
        expect(result.states).toBeLessThanOrEqual(one.states);
      }
    } finally {
      watcher.disconnect();
    }
  }, 60_000);
});
