// One worker of a parallel breadth-first search (parallel.ts drives it). It rebuilds the
// machine from the target, expands the states of its share of each level, inserts their
// successors into the shared fingerprint table, and keeps the new ones it inserted as its
// share of the next level. States never need to be sent unless the coordinator moves some
// to balance the load.

import { parentPort, workerData } from 'node:worker_threads';
import { fingerprint, makeEncoder, Words } from './encode.ts';
import { loadMachine, machineFrom } from './load.ts';
import { layoutOf } from './layout-search.ts';
import { prepare } from './prepare.ts';
import { Coverage } from './result.ts';
import { sharedAdd, sharedTouch } from './store.ts';
import type { Action, ExploreOptions, ExploreTarget, Machine } from './types.ts';
import { CTL, type ToCoordinator, type ToWorker, type WorkerViolation } from './protocol.ts';
import { checkEnabled } from './errors.ts';

const port = parentPort!;
const { target, options } = workerData as { target: ExploreTarget; options: ExploreOptions };
/** The target module itself, when a bundled worker's entry (parallel.ts) put it there before this module ran. */
const bundled = (globalThis as { interleaveTarget?: Record<string, unknown> }).interleaveTarget;
const machine: Machine<unknown, Action> = prepare(bundled ? machineFrom(bundled, target) : await loadMachine(target), options);
const encode = makeEncoder(machine);
/** Layout states (Machine.layout) are sent between threads as their words. */
const layout = layoutOf(machine);
const words = new Words();
const fp = new Int32Array(2);
const invariants = Object.entries(machine.invariants);
const checkDeadlock = options.deadlock !== false && machine.mayStop !== undefined;

let table: Int32Array<ArrayBufferLike> = new Int32Array(0);
let capacity = 0;
let quota = 0;
let ctl: Int32Array<ArrayBufferLike> = new Int32Array(0);
let frontier: unknown[] = [];
let next: unknown[] = [];
let resume = 0;
let depth = 0;
let cutLevel = false;
const coverage = new Coverage();
const violated = new Set<string>();

function send(m: ToCoordinator): void {
  port.postMessage(m);
}

/** States expanded together (see Batch in search.ts: the table reads of a batch overlap). */
const BATCH = 32;
let succ: unknown[] = [];
let his = new Int32Array(256);
let los = new Int32Array(256);
const enabledOf: Action[][] = [];
const ends: number[] = [];
/** Keeps the table reads from being optimised away. */
let touched = 0;

function room(min: number): void {
  let size = his.length * 2;
  while (size < min) size *= 2;
  const h = new Int32Array(size);
  const l = new Int32Array(size);
  h.set(his);
  l.set(los);
  his = h;
  los = l;
}

/**
 * Expands frontier[resume..]; pauses once it has inserted `quota` new states (so that the
 * coordinator can grow the table or stop at the state budget), or stops when told to.
 * Only the shared table and the stop word are touched by both threads.
 */
function runLevel(): void {
  let transitions = 0;
  let added = 0;
  let depthCut = false;
  const violations: WorkerViolation[] = [];
  const report = (property: string, message: string, at: number) => {
    if (violated.has(property)) return;
    violated.add(property);
    violations.push({ property, message, depth: at });
    if (!options.all) Atomics.store(ctl, CTL.stop, 1);
  };
  let i = resume;
  batches: while (i < frontier.length) {
    if (Atomics.load(ctl, CTL.stop) !== 0) break;
    // Successors and fingerprints of frontier[i..i1), then one pass of table reads.
    const i0 = i;
    const i1 = Math.min(frontier.length, i0 + BATCH);
    let n = 0;
    for (let b = i0; b < i1; b++) {
      const s = frontier[b];
      const enabled = machine.actions(s);
      if (!Array.isArray(enabled)) checkEnabled(enabled);
      enabledOf[b - i0] = enabled;
      if (!cutLevel) {
        if (n + enabled.length > his.length) room(n + enabled.length);
        for (let k = 0; k < enabled.length; k++) {
          const t = machine.next(s, enabled[k]);
          encode(t, words);
          fingerprint(words.buf, words.length, fp);
          succ[n] = t;
          his[n] = fp[0];
          los[n] = fp[1];
          n++;
        }
      }
      ends[b - i0] = n;
    }
    touched ^= sharedTouch(table, capacity, his, n);
    for (; i < i1; i++) {
      if (added >= quota) break batches;
      const s = frontier[i];
      const enabled = enabledOf[i - i0];
      if (enabled.length === 0) {
        if (checkDeadlock && !violated.has('deadlock') && !machine.mayStop!(s)) {
          report('deadlock', 'no action is enabled in a state that may not be final', depth);
        }
        continue;
      }
      if (cutLevel) {
        depthCut = true;
        continue;
      }
      coverage.count(enabled);
      let j = i === i0 ? 0 : ends[i - i0 - 1];
      for (let k = 0; k < enabled.length; k++, j++) {
        transitions++;
        const t = succ[j];
        if (!sharedAdd(table, capacity, his[j], los[j])) continue;
        added++;
        next.push(t);
        for (let v = 0; v < invariants.length; v++) {
          const [name, inv] = invariants[v];
          if (violated.has(name)) continue;
          const verdict = inv(t);
          if (verdict !== true) report(name, verdict, depth + 1);
        }
      }
    }
    succ.fill(undefined, 0, n);
  }
  succ.fill(undefined);
  resume = i;
  const finished = i === frontier.length;
  send({ type: finished ? 'levelDone' : 'paused', transitions, added, depthCut, next: next.length, violations });
}

port.on('message', (m: ToWorker) => {
  switch (m.type) {
    case 'table':
      table = new Int32Array(m.table, 0, 2 * m.capacity);
      capacity = m.capacity;
      ctl = new Int32Array(m.ctl);
      send({ type: 'ready' });
      return;
    case 'seed':
      frontier = machine.init().filter((_, k) => m.indices.includes(k));
      send({ type: 'ready' });
      return;
    case 'level':
      depth = m.depth;
      cutLevel = m.cut;
      quota = m.quota;
      resume = 0;
      next = [];
      runLevel();
      return;
    case 'resume':
      quota = m.quota;
      runLevel();
      return;
    case 'advance':
      frontier = next;
      next = [];
      send({ type: 'ready' });
      return;
    case 'give': {
      const states = next.splice(next.length - m.count, m.count);
      send({ type: 'states', states: layout ? states.map((x) => layout.wordsOf(x).slice()) : states });
      return;
    }
    case 'take':
      for (const s of m.states) next.push(layout ? layout.fromWords(s as Int32Array) : s);
      send({ type: 'ready' });
      return;
    case 'finish':
      send({ type: 'coverage', counts: coverage.entries() });
      return;
  }
});
send({ type: 'ready' });
