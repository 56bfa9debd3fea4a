// The single-threaded searches: breadth-first (shortest counterexamples), depth-first
// (memory for one path plus the store) and seeded random simulation. All three share the
// bookkeeping in `Run`: the store, the trace log, the invariant checks, coverage and
// budgets, so that they count and report identically.

import { encodeValue, fingerprint, makeEncoder, NOT_CANONICAL, NOT_PACKED, NOT_UNPACKABLE, packState, Words } from './encode.ts';
import { Frontier } from './frontier.ts';
import { bfsLayout, layoutOf } from './layout-search.ts';
import { buildResult, Coverage } from './result.ts';
import { ExactStore, FingerprintStore, type StateStore } from './store.ts';
import { replayIndices, TraceLog } from './trace.ts';
import type { Action, Check, Counterexample, ExploreOptions, ExploreResult, Machine } from './types.ts';
import { checkEnabled } from './errors.ts';

const CHECK_EVERY = 1024;
const PROGRESS_MS = 100;

/** Outcome of adding a successor: a new state's number, or one of these. */
const SEEN = -1;
const FULL = -2;

export class Run<S, A extends Action> {
  readonly store: StateStore;
  readonly log = new TraceLog();
  readonly words = new Words();
  readonly fp = new Int32Array(2);
  readonly encode: (s: S, out: Words) => void;
  readonly maxStates: number;
  readonly maxDepth: number;
  readonly deadline: number;
  readonly checkDeadlock: boolean;
  /** Invariants still being checked (with `all`, a violated one is dropped). */
  invariants: [string, (s: S) => Check][];
  readonly violations: Counterexample[] = [];
  /**
   * The caller replaces each violation's path by its own (simulate: a walk's states are
   * stored as roots, so the store's path is no path): violated() records none.
   */
  ownPaths = false;
  /** Properties whose message is taken from the replayed path's last state (WordLayout.replayed). */
  replayed: ReadonlySet<string> | undefined = undefined;
  transitions = 0;
  depth = 0;
  stopped: string | undefined;
  /** Set when states beyond the depth bound were left unexpanded. */
  depthCut = false;
  readonly started = performance.now();
  private lastProgress = this.started;
  readonly coverage: Coverage;

  constructor(
    readonly machine: Machine<S, A>,
    readonly options: ExploreOptions,
  ) {
    this.store = options.store === 'exact' ? new ExactStore() : new FingerprintStore(options.tableCapacity);
    this.encode = makeEncoder(machine);
    this.maxStates = options.maxStates ?? Infinity;
    this.maxDepth = options.maxDepth ?? Infinity;
    this.deadline = options.timeLimitMs === undefined ? Infinity : this.started + options.timeLimitMs;
    this.checkDeadlock = options.deadlock !== false && machine.mayStop !== undefined;
    this.invariants = Object.entries(machine.invariants);
    this.coverage = new Coverage(machine.actionNames);
  }

  /** Counts the actions enabled in an expanded state, by family. */
  cover(enabled: readonly A[]): void {
    this.coverage.count(enabled);
  }

  /**
   * Stores s if it is new (reached from state `parent` by action `index`), checks the
   * invariants on it, and returns its number; SEEN if it was known, FULL if the state
   * budget forbids storing it (the run then stops).
   */
  add(s: S, parent: number, index: number, depth: number): number {
    const w = this.words;
    this.encode(s, w);
    fingerprint(w.buf, w.length, this.fp);
    return this.insert(s, parent, index, depth);
  }

  /**
   * add() for a state whose fingerprint is already in this.fp, and whose encoding is
   * words[0..n) (by default this.words; the fingerprint store reads only the fingerprint).
   */
  insert(s: S, parent: number, index: number, depth: number, words: Int32Array = this.words.buf, n: number = this.words.length): number {
    if (this.store.size >= this.maxStates) {
      // Whether it is new decides whether the budget truly cut the search.
      if (this.store.has(words, n, this.fp)) return SEEN;
      this.stopped ??= `state budget of ${this.maxStates} reached`;
      return FULL;
    }
    if (!this.store.add(words, n, this.fp)) return SEEN;
    const id = this.log.add(parent, index);
    if (depth > this.depth) this.depth = depth;
    const invs = this.invariants;
    for (let i = 0; i < invs.length; i++) {
      const verdict = invs[i][1](s);
      if (verdict !== true) this.violated(invs[i][0], verdict, id);
    }
    return id;
  }

  violated(property: string, message: string, id: number): void {
    if (this.ownPaths) this.violations.push({ property, message, initial: undefined, steps: [] });
    else {
      const { init, actions } = this.log.path(id);
      this.violations.push(replayIndices(this.machine, init, actions, property, message, this.replayed?.has(property)));
    }
    if (this.options.all) {
      this.invariants = this.invariants.filter(([name]) => name !== property);
      if (property === 'deadlock') (this as { checkDeadlock: boolean }).checkDeadlock = false;
    } else {
      this.stopped ??= 'violation';
    }
  }

  /** Called once per expanded state: the deadlock property and coverage. */
  expand(s: S, id: number, enabled: readonly A[]): void {
    if (enabled.length === 0) {
      if (this.checkDeadlock && !this.machine.mayStop!(s)) this.violated('deadlock', 'no action is enabled in a state that may not be final', id);
      return;
    }
    this.cover(enabled);
  }

  /**
   * Time budget and progress; cheap enough to call once per expanded state. The first
   * call checks too (ticks starts one short), so the check has run in the first, small
   * search of a process before V8 optimises the loops that inline it (its first run
   * inside optimised code threw that code away: minos README "Speed, tenth pass").
   */
  private ticks = CHECK_EVERY - 1;
  tick(queue: number): void {
    if (++this.ticks % CHECK_EVERY !== 0) return;
    const now = performance.now();
    if (now > this.deadline) this.stopped ??= `time limit of ${this.options.timeLimitMs} ms reached`;
    if (this.options.onProgress && now - this.lastProgress >= PROGRESS_MS) {
      this.lastProgress = now;
      this.options.onProgress({
        states: this.store.size,
        transitions: this.transitions,
        depth: this.depth,
        queue,
        elapsedMs: now - this.started,
      });
    }
  }

  result(strategy: 'bfs' | 'dfs' | 'simulate', incompleteReason?: string): ExploreResult {
    const reason =
      this.stopped !== undefined && this.stopped !== 'violation'
        ? this.stopped
        : (incompleteReason ?? (this.depthCut ? `depth bound of ${this.maxDepth} reached: deeper states were not explored` : undefined));
    return buildResult({
      strategy,
      store: this.options.store === 'exact' ? 'exact' : 'fingerprint',
      workers: 1,
      states: this.store.size,
      transitions: this.transitions,
      depth: this.depth,
      started: this.started,
      violations: this.violations,
      ...(reason !== undefined ? { incompleteReason: reason } : {}),
      coverage: this.coverage,
      storeBytes: this.store.bytes(),
      logBytes: this.log.bytes(),
    });
  }
}

export function bfs<S, A extends Action>(machine: Machine<S, A>, options: ExploreOptions): ExploreResult {
  const layout = layoutOf(machine);
  if (layout) return bfsLayout(machine, layout, options);
  const run = new Run(machine, options);
  const keys = new Keys(run);
  // The level being expanded and the next one, swapped at each level.
  let level = new Frontier<S>();
  let next = new Frontier<S>();
  const inits = machine.init();
  for (let k = 0; k < inits.length && run.stopped === undefined; k++) {
    keys.clear();
    const id = keys.insert(inits[k], -1, k, 0);
    if (id >= 0) keys.queue(level, id, inits[k]);
  }
  const batched = run.store instanceof FingerprintStore ? new Batch<S, A>(run.store) : undefined;
  for (let depth = 0; level.count > 0 && run.stopped === undefined; depth++) {
    if (batched && depth < run.maxDepth) {
      batched.level(run, keys, level, depth, next);
    } else {
      while (level.left > 0 && run.stopped === undefined) {
        const id = level.id;
        const s = level.shift();
        const enabled = machine.actions(s);
        if (!Array.isArray(enabled)) checkEnabled(enabled);
        if (depth >= run.maxDepth) {
          if (enabled.length > 0) run.depthCut = true;
          else run.expand(s, id, enabled);
          continue;
        }
        run.expand(s, id, enabled);
        run.tick(level.left + 1 + next.count);
        for (let k = 0; k < enabled.length; k++) {
          run.transitions++;
          const t = machine.next(s, enabled[k]);
          keys.clear();
          const tid = keys.insert(t, id, k, depth + 1);
          if (tid >= 0) keys.queue(next, tid, t);
          if (run.stopped !== undefined) break;
        }
      }
    }
    const done = level;
    done.clear();
    level = next;
    next = done;
  }
  return run.result('bfs');
}

/**
 * How bfs keys its states. A machine with neither `encode` nor `view` is keyed by its
 * packed words (encode.ts's packState), which are canonical, so one pass makes both what
 * the store hashes and keeps and what the frontier queues; should a state's packed words
 * not be canonical (it holds a Map or a Set), the store gets encodeValue's words instead,
 * after a word no packed state starts with. Other machines are keyed by their own
 * encoding or view, and their frontier keeps the objects: packing their states apart cost
 * the seed specs (minos, default configs) 20% more CPU time than it saved in collection.
 * Each state's packed words follow the previous one's in `words` (its object headers in
 * `headers`) until clear(): a batch keeps its successors' words for their insertion.
 */
class Keys<S> {
  readonly words = new Words();
  readonly headers = new Words();
  readonly packs: boolean;
  /** The last keyed state's words, headers and packState verdict. */
  from = 0;
  to = 0;
  hfrom = 0;
  hto = 0;
  verdict = 0;

  constructor(private readonly run: Run<S, Action>) {
    this.packs = run.machine.encode === undefined && run.machine.view === undefined;
  }

  clear(): void {
    this.words.reset();
    this.headers.reset();
  }

  /** Keys t: its fingerprint in run.fp, and, when the store needs them, its words in run.words or this.words from 0. */
  key(t: S): void {
    const run = this.run;
    if (!this.packs) {
      run.encode(t, run.words);
      fingerprint(run.words.buf, run.words.length, run.fp);
      return;
    }
    this.from = this.words.length;
    this.hfrom = this.headers.length;
    this.verdict = packState(this.words, t, this.headers);
    this.to = this.words.length;
    this.hto = this.headers.length;
    if (this.verdict & NOT_CANONICAL) {
      const w = run.words;
      w.reset();
      w.push(NOT_PACKED);
      encodeValue(w, t);
      fingerprint(w.buf, w.length, run.fp);
    } else fingerprint(this.words.buf, this.to, run.fp, this.from);
  }

  /** run.insert for t, keyed here first (after clear(): the exact store reads words from 0). */
  insert(t: S, parent: number, index: number, depth: number): number {
    this.key(t);
    return this.packs && !(this.verdict & NOT_CANONICAL)
      ? this.run.insert(t, parent, index, depth, this.words.buf, this.to)
      : this.run.insert(t, parent, index, depth);
  }

  /** Queues the state last keyed (t) on a frontier. */
  queue(frontier: Frontier<S>, id: number, t: S): void {
    if (!this.packs || this.verdict & NOT_UNPACKABLE) frontier.pushKept(t, id);
    else frontier.pushPacked(id, this.words.buf, this.from, this.to, this.headers.buf, this.hfrom, this.hto);
  }
}

/** States expanded together by the batched breadth-first level. */
const BATCH = 32;
/** Keeps the table reads of Batch.level from being optimised away. */
let touched = 0;

/**
 * One BFS level over a fingerprint store, in batches: the successors of BATCH states are
 * computed and fingerprinted first, then the table slots they hash to are read in one
 * tight loop (independent loads, so their cache misses overlap instead of each stalling
 * the search in turn), and only then are they inserted, in the same order and with the
 * same checks as the plain loop above — the same states, numbers and counterexamples.
 */
class Batch<S, A extends Action> {
  private ids = new Int32Array(BATCH);
  private his = new Int32Array(256);
  private los = new Int32Array(256);
  /** Per successor: where its packed words and headers start and end in Keys', its verdict. */
  private from = new Int32Array(256);
  private to = new Int32Array(256);
  private hfrom = new Int32Array(256);
  private hto = new Int32Array(256);
  private verdicts = new Int32Array(256);
  private ends = new Int32Array(BATCH);
  /** A state whose step threw mid-batch: it opens the next batch. */
  private hasPending = false;
  private pending: S | undefined = undefined;
  private pendingId = 0;

  constructor(private readonly store: FingerprintStore) {}

  level(run: Run<S, A>, keys: Keys<S>, level: Frontier<S>, depth: number, next: Frontier<S>): void {
    while ((level.left > 0 || this.hasPending) && run.stopped === undefined) {
      const needsObject = !keys.packs || run.invariants.length > 0;
      // The batch's states, enabled lists and successors, in arrays made for it: young
      // arrays, so storing young objects in them costs the collector nothing (in arrays
      // kept across batches, which grow old, each store would cost a remembered slot).
      const states: S[] = [];
      const enabledOf: A[][] = [];
      const succ: S[] = [];
      keys.clear();
      const b = this.fill(run, keys, level, needsObject, states, enabledOf, succ);
      touched ^= this.store.touch(this.his, b === 0 ? 0 : this.ends[b - 1]);
      this.insertAll(run, keys, level, depth, next, needsObject, b, states, enabledOf, succ);
    }
  }

  /**
   * The next BATCH states, their successors and the successors' fingerprints; returns how
   * many states. Should a spec's step throw, the batch ends before that state, which the
   * next batch then meets first (as `pending`), exactly where the plain loop would have.
   * (A method of its own, as insertAll is: each is compiled apart, so a config that
   * brings the spec's step new shapes recompiles this one, not the whole level.)
   */
  private fill(run: Run<S, A>, keys: Keys<S>, level: Frontier<S>, needsObject: boolean, states: S[], enabledOf: A[][], succ: S[]): number {
    const machine = run.machine;
    const fp = run.fp;
    let n = 0;
    let b = 0;
    for (; b < BATCH && (level.left > 0 || this.hasPending); b++) {
      let s: S;
      if (this.hasPending) {
        s = this.pending as S;
        this.ids[b] = this.pendingId;
        this.pending = undefined;
        this.hasPending = false;
      } else {
        this.ids[b] = level.id;
        s = level.shift();
      }
      states[b] = s;
      try {
        const enabled = machine.actions(s);
        if (!Array.isArray(enabled)) checkEnabled(enabled);
        if (n + enabled.length > this.his.length) this.grow(n + enabled.length);
        for (let k = 0; k < enabled.length; k++) {
          const t = machine.next(s, enabled[k]);
          keys.key(t);
          // Kept only where insert() or the frontier needs the object: an old array
          // holding a young object costs the collector a remembered slot.
          if (needsObject || keys.verdict & NOT_UNPACKABLE) succ[n] = t;
          this.his[n] = fp[0];
          this.los[n] = fp[1];
          this.from[n] = keys.from;
          this.to[n] = keys.to;
          this.hfrom[n] = keys.hfrom;
          this.hto[n] = keys.hto;
          this.verdicts[n] = keys.verdict;
          n++;
        }
        enabledOf[b] = enabled;
        this.ends[b] = n;
      } catch (e) {
        if (b === 0) throw e;
        this.pending = s;
        this.pendingId = this.ids[b];
        this.hasPending = true;
        break;
      }
    }
    return b;
  }

  /** The batch's successors inserted, in order, with the checks of the plain loop. */
  private insertAll(run: Run<S, A>, keys: Keys<S>, level: Frontier<S>, depth: number, next: Frontier<S>, needsObject: boolean, b: number, states: S[], enabledOf: A[][], succ: S[]): void {
    const fp = run.fp;
    const words = keys.words.buf;
    const headers = keys.headers.buf;
    for (let i = 0; i < b && run.stopped === undefined; i++) {
      const s = states[i];
      const id = this.ids[i];
      const enabled = enabledOf[i];
      run.expand(s, id, enabled);
      run.tick(level.left + b - i + next.count);
      let j = i === 0 ? 0 : this.ends[i - 1];
      for (let k = 0; k < enabled.length; k++, j++) {
        run.transitions++;
        fp[0] = this.his[j];
        fp[1] = this.los[j];
        const t = needsObject || this.verdicts[j] & NOT_UNPACKABLE ? succ[j] : (undefined as S);
        // The fingerprint store reads the fingerprint only.
        const tid = run.insert(t, id, k, depth + 1, words, 0);
        if (tid >= 0) {
          if (!keys.packs || this.verdicts[j] & NOT_UNPACKABLE) next.pushKept(t, tid);
          else next.pushPacked(tid, words, this.from[j], this.to[j], headers, this.hfrom[j], this.hto[j]);
        }
        if (run.stopped !== undefined) break;
      }
    }
  }

  private grow(min: number): void {
    let size = this.his.length * 2;
    while (size < min) size *= 2;
    const bigger = (a: Int32Array) => {
      const b = new Int32Array(size);
      b.set(a);
      return b;
    };
    this.his = bigger(this.his);
    this.los = bigger(this.los);
    this.from = bigger(this.from);
    this.to = bigger(this.to);
    this.hfrom = bigger(this.hfrom);
    this.hto = bigger(this.hto);
    this.verdicts = bigger(this.verdicts);
  }
}

export function dfs<S, A extends Action>(machine: Machine<S, A>, options: ExploreOptions): ExploreResult {
  const run = new Run(machine, options);
  const stackStates: S[] = [];
  const stackActions: A[][] = [];
  const stackNext: number[] = [];
  const stackIds: number[] = [];
  const push = (s: S, id: number) => {
    const depth = stackStates.length;
    const enabled = machine.actions(s);
    if (!Array.isArray(enabled)) checkEnabled(enabled);
    if (depth >= run.maxDepth) {
      if (enabled.length > 0) run.depthCut = true;
      else run.expand(s, id, enabled);
      return;
    }
    run.expand(s, id, enabled);
    stackStates.push(s);
    stackActions.push(enabled);
    stackNext.push(0);
    stackIds.push(id);
  };
  const inits = machine.init();
  for (let k = 0; k < inits.length && run.stopped === undefined; k++) {
    const id = run.add(inits[k], -1, k, 0);
    if (id < 0 || run.stopped !== undefined) continue;
    push(inits[k], id);
    while (stackStates.length > 0 && run.stopped === undefined) {
      const top = stackStates.length - 1;
      const enabled = stackActions[top];
      const k2 = stackNext[top];
      if (k2 === enabled.length) {
        stackStates.pop();
        stackActions.pop();
        stackNext.pop();
        stackIds.pop();
        continue;
      }
      stackNext[top] = k2 + 1;
      run.transitions++;
      run.tick(stackStates.length);
      const t = machine.next(stackStates[top], enabled[k2]);
      const id2 = run.add(t, stackIds[top], k2, top + 1);
      if (id2 >= 0 && run.stopped === undefined) push(t, id2);
    }
  }
  return run.result('dfs');
}

/** A small seeded generator (mulberry32): the same seed gives the same walks. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Random walks: `runs` walks of at most `depth` steps, each from a random initial state
 * taking a random enabled action. Never exhaustive, so never 'holds'. Invariants are
 * checked on each state the first time it is met (the store remembers which).
 */
export function simulate<S, A extends Action>(machine: Machine<S, A>, options: ExploreOptions): ExploreResult {
  const { runs, depth, seed } = options.simulate ?? { runs: 1000, depth: 50, seed: 1 };
  const run = new Run(machine, { ...options, maxStates: options.maxStates });
  run.ownPaths = true;
  const random = rng(seed);
  const inits = machine.init();
  const pathIds: number[] = [];
  let walks = 0;
  // A state met again in a later walk may have been stored with another parent; the
  // counterexample must be this walk's path, so each walk records its own indices.
  for (; walks < runs && run.stopped === undefined && inits.length > 0; walks++) {
    const k0 = Math.floor(random() * inits.length);
    let s = inits[k0];
    const indices: number[] = [];
    pathIds.length = 0;
    const before = run.violations.length;
    const check = (st: S, d: number) => run.add(st, -1, 0, d);
    check(s, 0);
    for (let d = 0; run.stopped === undefined && run.violations.length === before; d++) {
      const enabled = machine.actions(s);
      if (!Array.isArray(enabled)) checkEnabled(enabled);
      if (enabled.length === 0) {
        if (run.checkDeadlock && !machine.mayStop!(s)) {
          run.violations.push({ ...replayIndices(machine, k0, indices, 'deadlock', 'no action is enabled in a state that may not be final'), seed });
          if (!options.all) run.stopped = 'violation';
          else (run as { checkDeadlock: boolean }).checkDeadlock = false;
        }
        break;
      }
      if (d >= depth) break;
      run.cover(enabled);
      run.tick(0);
      const k = Math.floor(random() * enabled.length);
      run.transitions++;
      s = machine.next(s, enabled[k]);
      indices.push(k);
      check(s, d + 1);
    }
    // add() recorded violations with the store's parent links (a root here); replace
    // them by this walk's path, which is what reproduces them.
    for (let v = before; v < run.violations.length; v++) {
      const found = run.violations[v];
      if (found.property === 'deadlock') continue;
      run.violations[v] = { ...replayIndices(machine, k0, indices, found.property, found.message), seed };
    }
  }
  return run.result('simulate', `random simulation (${walks} walks of at most ${depth} steps, seed ${seed}) is not exhaustive`);
}
