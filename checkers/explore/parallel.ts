// Parallel breadth-first search on worker threads, level by level. The workers share one
// fingerprint table (compare-and-swap inserts); each expands its share of a level and
// keeps the successors it inserted first as its share of the next. At each barrier the
// coordinator grows the table when needed and moves states between workers when their
// shares are uneven. The set of states stored and the transitions counted do not depend
// on the number of workers or on timing.
//
// Counterexamples are made deterministic by construction: when the workers find a
// violation, the coordinator reruns the single-threaded search, which stops at the first
// violation in its fixed BFS order (at a depth no greater than the one the workers
// reached) — so the result is exactly exploreSync's, at any worker count. With `all`, the
// workers cover the whole space and each violated property is then reproduced the same way.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { Worker } from 'node:worker_threads';
import { fingerprint, makeEncoder, Words } from './encode.ts';
import { FROM_SOURCE, loadMachine, OWN_EXTENSION } from './load.ts';
import { layoutOf } from './layout-search.ts';
import { prepare } from './prepare.ts';
import { bfs } from './search.ts';
import { buildResult, Coverage } from './result.ts';
import { MAX_LOAD, rehash, sharedAdd, TableMemory } from './store.ts';
import { CTL, type ToCoordinator, type ToWorker, type WorkerViolation } from './protocol.ts';
import type { Action, ExploreOptions, ExploreResult, ExploreTarget, Machine } from './types.ts';

const WORKER = new URL(`./worker${OWN_EXTENSION}`, import.meta.url).href;
const INITIAL_CAPACITY = 1 << 16;
/**
 * The table grows by this factor when less than 1/16 of the states stored is left as room:
 * its load then stays between about 0.5 and 0.7, so at most 16 bytes per state.
 */
const PARALLEL_GROWTH = 1.4;
/** Below this many states, uneven shares are not worth moving. */
const BALANCE_MIN = 256;

class WorkerHandle {
  private waiting: ((m: ToCoordinator) => void)[] = [];
  private failure: Error | undefined;

  constructor(readonly worker: Worker) {
    worker.on('message', (m: ToCoordinator) => this.waiting.shift()?.(m));
    worker.on('error', (e) => {
      this.failure = e instanceof Error ? e : new Error(String(e));
      for (const w of this.waiting.splice(0)) w({ type: 'ready' });
    });
  }

  /** The next message from the worker (rejects if it crashed). */
  receive(): Promise<ToCoordinator> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) =>
      this.waiting.push((m) => (this.failure ? reject(this.failure) : resolve(m))),
    );
  }

  async ask(m: ToWorker): Promise<ToCoordinator> {
    const reply = this.receive();
    this.worker.postMessage(m);
    return reply;
  }
}

/**
 * The code a worker runs: worker.ts (or another `entry`) and the target's module in one plain JavaScript bundle
 * (esbuild), or, when the target cannot be bundled, an import of the worker module itself:
 * from the package's JavaScript it loads a .ts target with load.ts's hooks; from the
 * TypeScript sources it first registers tsx (a devDependency). A worker starts without the
 * main thread's TypeScript loader, and a loader costs it a thread of its own: on the
 * benchmark machine a bundled worker starts about 0.3 s sooner, CPU that the other workers
 * would otherwise share.
 */
export async function workerCode(target: ExploreTarget, entry: string = WORKER): Promise<string> {
  const viaTsx = FROM_SOURCE ? `import(${JSON.stringify(tsxApi())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })` : `import(${JSON.stringify(entry)})`;
  if (!target.module.startsWith('file:')) return viaTsx;
  try {
    const shim = `import * as target from ${JSON.stringify(fileURLToPath(target.module))};\nglobalThis.interleaveTarget = target;`;
    const r = await esbuild.build({
      stdin: { contents: `import 'interleave:target';\nimport ${JSON.stringify(fileURLToPath(entry))};`, resolveDir: dirname(fileURLToPath(entry)), loader: 'js' },
      plugins: [
        {
          name: 'interleave',
          setup(b) {
            b.onResolve({ filter: /^interleave:target$/ }, () => ({ path: 'target', namespace: 'interleave' }));
            b.onLoad({ filter: /.*/, namespace: 'interleave' }, () => ({ contents: shim, loader: 'js', resolveDir: dirname(fileURLToPath(target.module)) }));
            // An eval'd worker has no module URL of its own: each module's import.meta.url
            // becomes the URL of its file.
            b.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
              const source = readFileSync(args.path, 'utf8');
              if (!source.includes('import.meta.url')) return undefined;
              return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
            });
          },
        },
      ],
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'silent',
    });
    const code = r.outputFiles[0].text;
    // Any other use of import.meta would describe the bundle, not the module; a CommonJS
    // package bundled as ESM (esbuild itself, under the pool's worker) cannot require Node's
    // built-ins from an eval'd worker. Either way the module is loaded as it is instead.
    return code.includes('import.meta') || code.includes('Dynamic require of') ? viaTsx : code;
  } catch {
    return viaTsx;
  }
}

/** tsx's ESM API, resolved only when running from the sources (tsx is not a runtime dependency). */
function tsxApi(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs');
}

function spawn(code: string, target: ExploreTarget, options: ExploreOptions): WorkerHandle {
  const { onProgress: _onProgress, ...plain } = options;
  const worker = new Worker(code, { eval: true, workerData: { target, options: plain } });
  return new WorkerHandle(worker);
}

export async function parallelBfs(target: ExploreTarget, options: ExploreOptions): Promise<ExploreResult> {
  const n = options.workers ?? 2;
  const started = performance.now();
  const given = await loadMachine(target);
  const machine: Machine<unknown, Action> = prepare(given, options);
  const sequential = (opts: ExploreOptions, m: Machine<unknown, Action> = machine) => bfs(m, { ...opts, workers: 1 });
  // Layout states cross threads as their words; inside a monitor's or a reduction's states they cannot.
  if (given.layout !== undefined && (layoutOf(machine) === undefined || layoutOf(machine)!.local)) {
    const r = sequential(options);
    return { ...r, notes: [...(r.notes ?? []), 'ran on one thread: the states of a layout spec under a monitor or reduction, or whose words hold numbers only one process knows, do not cross threads'] };
  }

  // Initial states: inserted here, checked here; any violation among them is the
  // single-threaded search's business.
  const encode = makeEncoder(machine);
  const words = new Words();
  const fp = new Int32Array(2);
  let capacity = options.tableCapacity ?? INITIAL_CAPACITY;
  const memory = new TableMemory(8 * capacity);
  let tableBuf = memory.buffer;
  const table = new Int32Array(tableBuf, 0, 2 * capacity);
  const ctlBuf = new SharedArrayBuffer(4 * CTL.size);
  const ctl = new Int32Array(ctlBuf);
  const inits = machine.init();
  const fresh: number[] = [];
  inits.forEach((s, k) => {
    encode(s, words);
    fingerprint(words.buf, words.length, fp);
    if (sharedAdd(table, capacity, fp[0], fp[1])) fresh.push(k);
  });
  let count = fresh.length;
  const initViolated = fresh.some((k) => Object.values(machine.invariants).some((inv) => inv(inits[k]) !== true));
  if (initViolated) return { ...sequential(options), workers: n, elapsedMs: performance.now() - started };

  const code = await workerCode(target);
  const workers = Array.from({ length: n }, () => spawn(code, target, options));
  try {
    await Promise.all(workers.map((w) => w.receive()));
    const startupMs = performance.now() - started;
    const maxStates = options.maxStates ?? Infinity;
    const sendTable = () => Promise.all(workers.map((w) => w.ask({ type: 'table', table: tableBuf, capacity, ctl: ctlBuf })));
    /** New states each worker may insert: the table stays under its load limit, the run near its budget. */
    const quota = () => Math.max(0, Math.floor((Math.min(capacity * MAX_LOAD, maxStates) - count) / n));
    /** Grows the table (workers idle) until every worker has room for a good share; the workers copy it. */
    const ensureRoom = async () => {
      let bigger = capacity;
      while (Math.floor((bigger * MAX_LOAD - count) / n) < Math.max(64, count / (16 * n))) bigger = Math.ceil(bigger * PARALLEL_GROWTH);
      if (bigger === capacity) return;
      // Here, with plain writes, while the workers wait: the copy streams (see rehash) and is
      // bound by memory, so it was no faster split between the workers, even into regions
      // of their own with plain writes (measured on the 2-core benchmark machine).
      const nextBuf = memory.next(8 * bigger);
      rehash(new Int32Array(tableBuf, 0, 2 * capacity), new Int32Array(nextBuf, 0, 2 * bigger), bigger);
      tableBuf = nextBuf;
      capacity = bigger;
      await sendTable();
    };
    await sendTable();
    await Promise.all(workers.map((w, i) => w.ask({ type: 'seed', indices: fresh.filter((_, j) => j % n === i) })));

    const maxDepth = options.maxDepth ?? Infinity;
    const deadline = options.timeLimitMs === undefined ? undefined : after(options.timeLimitMs, () => Atomics.store(ctl, CTL.stop, 2));
    let transitions = 0;
    let depth = 0;
    let depthCut = false;
    let budgetHit = false;
    const violations = new Map<string, WorkerViolation>();
    let shares = workers.map((_, i) => fresh.filter((_, j) => j % n === i).length);
    let lastProgress = started;
    try {
      for (let level = 0; shares.some((c) => c > 0); level++) {
        const cut = level >= maxDepth;
        await ensureRoom();
        if (count >= maxStates) {
          budgetHit = true;
          break;
        }
        const q = Math.max(1, quota());
        let replies = await Promise.all(workers.map((w) => w.ask({ type: 'level', depth: level, cut, quota: q })));
        for (;;) {
          for (const r of replies) {
            if (r.type !== 'levelDone' && r.type !== 'paused') throw new Error(`worker protocol: unexpected ${r.type}`);
            transitions += r.transitions;
            count += r.added;
            depthCut ||= r.depthCut;
            for (const v of r.violations) {
              const known = violations.get(v.property);
              if (!known || v.depth < known.depth) violations.set(v.property, v);
            }
          }
          shares = replies.map((r) => (r.type === 'levelDone' || r.type === 'paused' ? r.next : 0));
          const paused = replies.map((r, i) => (r.type === 'paused' ? i : -1)).filter((i) => i >= 0);
          if (paused.length === 0 || Atomics.load(ctl, CTL.stop) !== 0) break;
          // Some workers used up their quota: the state budget, or the table must grow.
          if (count >= maxStates) {
            budgetHit = true;
            break;
          }
          await ensureRoom();
          const more = Math.max(1, quota());
          const resumed = await Promise.all(paused.map((i) => workers[i].ask({ type: 'resume', quota: more })));
          replies = replies.map((r, i) => (paused.includes(i) ? resumed[paused.indexOf(i)] : { ...r, transitions: 0, added: 0, violations: [] }));
        }
        if (!cut && shares.some((c) => c > 0)) depth = level + 1;
        const now = performance.now();
        if (options.onProgress && now - lastProgress > 100) {
          lastProgress = now;
          options.onProgress({ states: count, transitions, depth, queue: shares.reduce((a, b) => a + b, 0), elapsedMs: now - started });
        }
        if (Atomics.load(ctl, CTL.stop) !== 0 || budgetHit || cut) break;
        shares = await balance(workers, shares);
        await Promise.all(workers.map((w) => w.ask({ type: 'advance' })));
      }
    } finally {
      deadline?.clear();
    }
    // Workers may overshoot their quota by one state's successors: more states than the
    // budget allows means the budget cut the run, as in the single-threaded search.
    if (count > maxStates) budgetHit = true;

    const coverage = new Coverage(machine.actionNames);
    for (const w of workers) {
      const r = await w.ask({ type: 'finish' });
      if (r.type !== 'coverage') throw new Error(`worker protocol: unexpected ${r.type}`);
      coverage.merge(r.counts);
    }

    if (violations.size > 0) {
      // Deterministic counterexamples from the single-threaded search (see the header).
      const rebuilt = 'counterexample rebuilt by the single-threaded search, so that it is the same at any worker count';
      if (!options.all) {
        const r = sequential({ ...options, all: false });
        return { ...r, workers: n, elapsedMs: performance.now() - started, notes: [...(r.notes ?? []), rebuilt] };
      }
      const found = [...violations.values()].sort((a, b) => a.depth - b.depth || (a.property < b.property ? -1 : 1));
      const counterexamples = found.map((v) => {
        const only: Machine<unknown, Action> =
          v.property === 'deadlock'
            ? { ...machine, invariants: {} }
            : { ...machine, invariants: { [v.property]: machine.invariants[v.property] }, mayStop: undefined };
        const r = sequential({ ...options, all: false, maxStates: undefined, timeLimitMs: undefined }, only);
        return r.violations[0];
      });
      return result(counterexamples.filter((c) => c !== undefined), incompleteReason(), ['counterexamples rebuilt by the single-threaded search, so that they are the same at any worker count']);
    }
    return result([], incompleteReason());

    /** Why the run did not cover the space, if so. */
    function incompleteReason(): string | undefined {
      const stop = Atomics.load(ctl, CTL.stop);
      if (budgetHit) return `state budget of ${options.maxStates} reached`;
      if (stop === 2) return `time limit of ${options.timeLimitMs} ms reached`;
      if (depthCut) return `depth bound of ${maxDepth} reached: deeper states were not explored`;
      return undefined;
    }

    function result(found: ExploreResult['violations'], reason: string | undefined, notes?: string[]): ExploreResult {
      return buildResult({
        strategy: 'bfs',
        store: 'fingerprint',
        workers: n,
        states: count,
        transitions,
        depth,
        started,
        startupMs,
        violations: found,
        ...(reason !== undefined ? { incompleteReason: reason } : {}),
        coverage,
        storeBytes: 8 * capacity,
        logBytes: 0,
        ...(notes ? { notes } : {}),
      });
    }
  } finally {
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }
}

/** The longest delay a Node timer keeps: a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls f after `ms`, however long: a delay beyond a timer's range is waited in parts. */
function after(ms: number, f: () => void): { clear(): void } {
  let timer: NodeJS.Timeout;
  const arm = (left: number) => {
    timer = setTimeout(() => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : f()), Math.min(left, MAX_TIMER_MS));
  };
  arm(ms);
  return { clear: () => clearTimeout(timer) };
}

/** Moves states from the largest shares to the smallest until they are within ~10%. */
async function balance(workers: WorkerHandle[], shares: number[]): Promise<number[]> {
  const total = shares.reduce((a, b) => a + b, 0);
  const even = Math.ceil(total / workers.length);
  if (total < BALANCE_MIN * workers.length) return shares;
  const out = shares.slice();
  for (;;) {
    let hi = 0;
    let lo = 0;
    for (let i = 1; i < out.length; i++) {
      if (out[i] > out[hi]) hi = i;
      if (out[i] < out[lo]) lo = i;
    }
    const surplus = Math.min(out[hi] - even, even - out[lo]);
    if (surplus < Math.max(BALANCE_MIN, even / 10)) return out;
    const given = await workers[hi].ask({ type: 'give', count: surplus });
    if (given.type !== 'states') throw new Error(`worker protocol: unexpected ${given.type}`);
    await workers[lo].ask({ type: 'take', states: given.states });
    out[hi] -= surplus;
    out[lo] += surplus;
  }
}
