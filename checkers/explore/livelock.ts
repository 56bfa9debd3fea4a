// Livelock: a reachable cycle in which no transition is progress. Progress is what the
// spec says (Machine.progress); without it, a client operation completing (a 'return'
// event of the history observer). The search stores the reachable graph, keeps the edges
// that are not progress, finds their strongly connected components (Tarjan) and reports a
// lasso: a shortest path from an initial state to a state on such a cycle, then a cycle
// back to it, as a counterexample whose `lassoStart` is the step where the cycle begins.
//
// Fairness. Without `Machine.fairness` none is assumed: a cycle that some scheduler could
// repeat forever counts, even while another actor stays enabled, and the lasso is the
// shortest one. With it, each fairness class is weakly fair: a class enabled in every state
// of a cycle must be taken on it. A component holds a fair cycle iff every class is
// disabled in one of its states or taken on one of its edges (enabledness counts every
// enabled action, progress ones included; taken, only the component's own edges): the
// cycle through all its states and edges is then fair, and a smaller cycle, staying in
// fewer states and taking fewer edges, cannot be fair when that one is not. The reported
// cycle starts at the component's state closest to an initial state and visits, greedily
// nearest first, a state disabling or an edge taking each class enabled where it starts,
// then returns: short, not necessarily shortest.
//
// States are stored as 64-bit fingerprints (as in the explorer's default store), and the
// lasso is rebuilt by replaying action indices. Reductions are not applied (symmetry and
// ample sets preserve safety, not cycles), so it runs on the machine as the spec gives it.

import { diff } from './diff.ts';
import { fingerprint, makeEncoder, Words } from './encode.ts';
import type { Action, Counterexample, ExploreOptions, ExploreResult, Machine } from './types.ts';

export const LIVELOCK = 'livelock';

/**
 * Cycles searched (one breadth-first search each) for the shortest lasso. The lasso is the
 * shortest one when fewer candidates are closer to an initial state than it is long.
 */
const MAX_CYCLE_SEARCHES = 1000;

export interface LivelockOptions {
  /** Stop (incomplete) rather than store more states than this (default: no bound). */
  maxStates?: number;
}

export interface LivelockResult {
  status: 'holds' | 'violation' | 'incomplete';
  incompleteReason?: string;
  states: number;
  transitions: number;
  /** Transitions that are not progress. */
  idle: number;
  /** Components of non-progress cycles none of which is fair (0 without fairness). */
  excused: number;
  counterexample?: Counterexample;
}

/** The progress predicate: the spec's, or a completed client operation. */
export function progressOf<S, A extends Action>(machine: Machine<S, A>): (before: S, a: A, after: S) => boolean {
  if (machine.progress) return machine.progress.bind(machine);
  const observer = machine.history;
  if (observer) return (b, a, c) => observer.observe(b, a, c).some((e) => e.kind === 'return');
  throw new Error('livelock detection needs Machine.progress, or a history observer whose returns count as progress');
}

class IntList {
  buf = new Int32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.buf.length) {
      const b = new Int32Array(this.buf.length * 2);
      b.set(this.buf);
      this.buf = b;
    }
    this.buf[this.length++] = v;
  }
}

/** 64-bit fingerprints to state numbers: open addressing over typed arrays (0 marks an empty slot). */
class FingerprintIds {
  private hi = new Int32Array(1 << 12);
  private lo = new Int32Array(1 << 12);
  private id = new Int32Array(1 << 12);
  size = 0;

  /** The number stored for fp, or else stores `fresh` and returns -1. */
  getOrAdd(fp: Int32Array, fresh: number): number {
    if (2 * (this.size + 1) > this.hi.length) this.grow();
    const mask = this.hi.length - 1;
    for (let i = fp[1] & mask; ; i = (i + 1) & mask) {
      if (this.hi[i] === 0) {
        this.hi[i] = fp[0];
        this.lo[i] = fp[1];
        this.id[i] = fresh;
        this.size++;
        return -1;
      }
      if (this.hi[i] === fp[0] && this.lo[i] === fp[1]) return this.id[i];
    }
  }

  /** The number stored for fp, or -1. */
  has(fp: Int32Array): number {
    const mask = this.hi.length - 1;
    for (let i = fp[1] & mask; this.hi[i] !== 0; i = (i + 1) & mask) if (this.hi[i] === fp[0] && this.lo[i] === fp[1]) return this.id[i];
    return -1;
  }

  private grow(): void {
    const { hi, lo, id } = this;
    this.hi = new Int32Array(hi.length * 2);
    this.lo = new Int32Array(hi.length * 2);
    this.id = new Int32Array(hi.length * 2);
    const mask = this.hi.length - 1;
    for (let j = 0; j < hi.length; j++) {
      if (hi[j] === 0) continue;
      let i = lo[j] & mask;
      while (this.hi[i] !== 0) i = (i + 1) & mask;
      this.hi[i] = hi[j];
      this.lo[i] = lo[j];
      this.id[i] = id[j];
    }
  }
}

export function findLivelock<S, A extends Action>(machine: Machine<S, A>, options: LivelockOptions = {}): LivelockResult {
  const progress = progressOf(machine);
  const fairness = machine.fairness?.bind(machine);
  const maxStates = options.maxStates ?? Infinity;
  const encode = makeEncoder(machine);
  const words = new Words();
  const fp = new Int32Array(2);
  const ids = new FingerprintIds();
  // The breadth-first queue: a state is dropped once expanded (the lasso is rebuilt by replay).
  const states: (S | undefined)[] = [];
  // Breadth-first tree: parent, action index in the parent's actions(), depth.
  const parent = new IntList();
  const via = new IntList();
  const depth = new IntList();
  // Idle (non-progress) edges in CSR form: state i's are targets[start[i]..start[i+1]).
  const start = new IntList();
  const targets = new IntList();
  const labels = new IntList();
  // With fairness: the class of each idle edge (-1: none), and the classes enabled in each
  // state, state i's being enabledClasses[enabledStart[i]..enabledStart[i+1]).
  const classIds = new Map<string, number>();
  const classNames: string[] = [];
  const edgeClass = new IntList();
  const enabledStart = new IntList();
  const enabledClasses = new IntList();
  const seenIn: number[] = [];
  let transitions = 0;
  let incompleteReason: string | undefined;

  const classOf = (a: A): number => {
    const name = fairness!(a);
    if (name === undefined) return -1;
    let id = classIds.get(name);
    if (id === undefined) {
      id = classNames.length;
      classIds.set(name, id);
      classNames.push(name);
      seenIn.push(-1);
    }
    return id;
  };

  const idOf = (s: S, from: number, index: number): number => {
    encode(s, words);
    fingerprint(words.buf, words.length, fp);
    if (states.length >= maxStates) {
      const known = ids.has(fp);
      if (known < 0) incompleteReason ??= `state budget of ${maxStates} reached`;
      return known;
    }
    const id = states.length;
    const known = ids.getOrAdd(fp, id);
    if (known >= 0) return known;
    states.push(s);
    parent.push(from);
    via.push(index);
    depth.push(from < 0 ? 0 : depth.buf[from] + 1);
    return id;
  };

  machine.init().forEach((s, i) => idOf(s, -1, i));
  for (let i = 0; i < states.length; i++) {
    start.push(targets.length);
    if (fairness) enabledStart.push(enabledClasses.length);
    const s = states[i]!;
    states[i] = undefined;
    const enabled = machine.actions(s);
    for (let j = 0; j < enabled.length; j++) {
      transitions++;
      const cls = fairness ? classOf(enabled[j]) : -1;
      if (cls >= 0 && seenIn[cls] !== i) {
        seenIn[cls] = i;
        enabledClasses.push(cls);
      }
      const t = machine.next(s, enabled[j]);
      const id = idOf(t, i, j);
      if (id >= 0 && !progress(s, enabled[j], t)) {
        targets.push(id);
        labels.push(j);
        if (fairness) edgeClass.push(cls);
      }
    }
  }
  start.push(targets.length);
  if (fairness) enabledStart.push(enabledClasses.length);
  const n = states.length;
  const scc = components(n, start.buf, targets.buf);
  const graph: Graph = { start: start.buf, targets: targets.buf, component: scc.component, edgeClass: edgeClass.buf, enabledStart: enabledStart.buf, enabledClasses: enabledClasses.buf };
  const fair = fairness ? fairComponents(n, scc, graph) : scc.cyclic;
  const excused = scc.cyclic.filter((c, i) => c && !fair[i]).length;
  const base = { states: n, transitions, idle: targets.length, excused };

  // Candidates: the members of components with a (fair) cycle, closest to an initial state
  // first (states are numbered breadth-first, so in order of depth); with fairness, only
  // the closest member of each. A lasso through v is at least depth(v) + 1 long, which
  // bounds the search.
  const seen = new Uint8Array(scc.cyclic.length);
  let best: { entry: number; cycle: number[]; length: number } | undefined;
  let tried = 0;
  for (let v = 0; v < n; v++) {
    const c = scc.component[v];
    if (!fair[c] || (fairness && seen[c])) continue;
    seen[c] = 1;
    if (best && (depth.buf[v] + 1 >= best.length || tried >= MAX_CYCLE_SEARCHES)) break;
    tried++;
    const cycle = fairness ? fairCycle(v, graph) : shortestCycle(v, graph);
    const length = depth.buf[v] + cycle.length;
    if (!best || length < best.length) best = { entry: v, cycle, length };
  }
  if (!best) {
    return { status: incompleteReason ? 'incomplete' : 'holds', ...(incompleteReason ? { incompleteReason } : {}), ...base };
  }

  // The lasso as action indices: the tree path to the entry, then the cycle's edges.
  const prefix: number[] = [];
  let v = best.entry;
  for (; parent.buf[v] >= 0; v = parent.buf[v]) prefix.push(via.buf[v]);
  prefix.reverse();
  const indices = [...prefix, ...best.cycle.map((e) => labels.buf[e])];
  const init = via.buf[v];
  let s = machine.init()[init];
  const initial = s;
  const steps: Counterexample['steps'] = [];
  for (const k of indices) {
    const a = machine.actions(s)[k];
    const after = machine.next(s, a);
    steps.push({ action: a, state: after, changes: diff(s, after) });
    s = after;
  }
  const counterexample: Counterexample = {
    property: LIVELOCK,
    message: `a cycle of ${best.cycle.length} step${best.cycle.length === 1 ? '' : 's'} in which no transition is progress${machine.progress ? '' : ' (no client operation completes)'}, reached after ${prefix.length} step${prefix.length === 1 ? '' : 's'}${fairness ? fairnessNote(best.entry, best.cycle, graph, classNames) : ''}`,
    initial,
    steps,
    lassoStart: prefix.length,
  };
  return { status: 'violation', ...base, counterexample };
}

/** The stored graph: idle edges (CSR), components, and with fairness the classes of edges and states. */
interface Graph {
  start: Int32Array;
  targets: Int32Array;
  component: Int32Array;
  edgeClass: Int32Array;
  enabledStart: Int32Array;
  enabledClasses: Int32Array;
}

function enabledAt(g: Graph, v: number, cls: number): boolean {
  for (let i = g.enabledStart[v]; i < g.enabledStart[v + 1]; i++) if (g.enabledClasses[i] === cls) return true;
  return false;
}

/**
 * Which cyclic components hold a weakly fair cycle: those where no class is enabled in every
 * state and never taken on an edge inside. A class enabled everywhere is enabled in the
 * component's first state, so only that state's classes need counting.
 */
function fairComponents(n: number, scc: { component: Int32Array; cyclic: boolean[] }, g: Graph): boolean[] {
  const k = scc.cyclic.length;
  const size = new Int32Array(k);
  const first = new Int32Array(k).fill(-1);
  for (let v = 0; v < n; v++) {
    const c = scc.component[v];
    size[c]++;
    if (first[c] < 0) first[c] = v;
  }
  // Per component, per class of its first state: states enabling it, and whether an edge inside takes it.
  const enabledIn = new Map<number, Map<number, number>>();
  const takenIn = new Map<number, Set<number>>();
  for (let c = 0; c < k; c++) {
    if (!scc.cyclic[c]) continue;
    const counts = new Map<number, number>();
    for (let i = g.enabledStart[first[c]]; i < g.enabledStart[first[c] + 1]; i++) counts.set(g.enabledClasses[i], 0);
    enabledIn.set(c, counts);
    takenIn.set(c, new Set());
  }
  for (let v = 0; v < n; v++) {
    const c = scc.component[v];
    const counts = enabledIn.get(c);
    if (!counts) continue;
    for (let i = g.enabledStart[v]; i < g.enabledStart[v + 1]; i++) {
      const cls = g.enabledClasses[i];
      const m = counts.get(cls);
      if (m !== undefined) counts.set(cls, m + 1);
    }
    for (let e = g.start[v]; e < g.start[v + 1]; e++) if (scc.component[g.targets[e]] === c && g.edgeClass[e] >= 0) takenIn.get(c)!.add(g.edgeClass[e]);
  }
  return scc.cyclic.map((cyclic, c) => cyclic && [...enabledIn.get(c)!].every(([cls, m]) => m < size[c] || takenIn.get(c)!.has(cls)));
}

/**
 * A weakly fair cycle through `entry`, in a component that holds one: from entry, go to the
 * nearest state disabling, or edge taking, a class not yet witnessed (each class enabled at
 * every state so far), until none is left; then back to entry.
 */
function fairCycle(entry: number, g: Graph): number[] {
  const cycle: number[] = [];
  const open = new Set<number>();
  for (let i = g.enabledStart[entry]; i < g.enabledStart[entry + 1]; i++) open.add(g.enabledClasses[i]);
  let at = entry;
  const step = (e: number) => {
    cycle.push(e);
    open.delete(g.edgeClass[e]);
    at = g.targets[e];
    for (const cls of open) if (!enabledAt(g, at, cls)) open.delete(cls);
  };
  while (open.size > 0) {
    const disables = (w: number) => [...open].some((cls) => !enabledAt(g, w, cls));
    for (const e of pathInside(at, g, disables, (e) => open.has(g.edgeClass[e]))) step(e);
  }
  if (cycle.length === 0) return shortestCycle(entry, g);
  if (at !== entry) for (const e of pathInside(at, g, (w) => w === entry, () => false)) step(e);
  return cycle;
}

/**
 * The edges of a shortest path inside from's component from `from` to a state w != from
 * with goal(w), or ending with an edge e with goalEdge(e).
 */
function pathInside(from: number, g: Graph, goal: (w: number) => boolean, goalEdge: (e: number) => boolean): number[] {
  const c = g.component[from];
  // For each state reached: the edge that reached it and the state that edge leaves.
  const edgeTo = new Map<number, number>();
  const source = new Map<number, number>();
  const pathTo = (v: number, last: number) => {
    const path = [last];
    for (let x = v; x !== from; x = source.get(x)!) path.push(edgeTo.get(x)!);
    return path.reverse();
  };
  const queue = [from];
  for (let q = 0; q < queue.length; q++) {
    const v = queue[q];
    for (let e = g.start[v]; e < g.start[v + 1]; e++) {
      const w = g.targets[e];
      if (g.component[w] !== c) continue;
      if (goalEdge(e) || (w !== from && !edgeTo.has(w) && goal(w))) return pathTo(v, e);
      if (w !== from && !edgeTo.has(w)) {
        edgeTo.set(w, e);
        source.set(w, v);
        queue.push(w);
      }
    }
  }
  throw new Error('livelock: no path to a goal inside a component that must hold one (this is a bug)');
}

/** Why the cycle is fair: the classes it takes, and those disabled in one of its states. */
function fairnessNote(entry: number, cycle: number[], g: Graph, names: string[]): string {
  const visited = [entry, ...cycle.map((e) => g.targets[e])];
  const enabled = new Set<number>();
  for (const v of visited) for (let i = g.enabledStart[v]; i < g.enabledStart[v + 1]; i++) enabled.add(g.enabledClasses[i]);
  const taken = [...new Set(cycle.map((e) => g.edgeClass[e]).filter((cls) => cls >= 0))];
  const disabled = [...enabled].filter((cls) => !taken.includes(cls));
  const list = (xs: number[]) => xs.map((cls) => names[cls]).sort().join(', ');
  return `; weakly fair: it takes ${taken.length ? list(taken) : 'no class'}${disabled.length ? `, and ${list(disabled)} ${disabled.length === 1 ? 'is' : 'are each'} disabled in one of its states` : ''}`;
}

/** Tarjan's strongly connected components, iteratively; a component is cyclic if it has an edge inside it. */
function components(n: number, start: Int32Array, targets: Int32Array): { component: Int32Array; cyclic: boolean[] } {
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const component = new Int32Array(n).fill(-1);
  const cyclic: boolean[] = [];
  const stack: number[] = [];
  const call: number[] = [];
  const next = new Int32Array(n);
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] >= 0) continue;
    call.push(root);
    index[root] = low[root] = counter++;
    next[root] = start[root];
    stack.push(root);
    onStack[root] = 1;
    while (call.length > 0) {
      const v = call[call.length - 1];
      if (next[v] < start[v + 1]) {
        const w = targets[next[v]++];
        if (index[w] < 0) {
          index[w] = low[w] = counter++;
          next[w] = start[w];
          stack.push(w);
          onStack[w] = 1;
          call.push(w);
        } else if (onStack[w]) low[v] = Math.min(low[v], index[w]);
        continue;
      }
      call.pop();
      if (call.length > 0) {
        const u = call[call.length - 1];
        low[u] = Math.min(low[u], low[v]);
      }
      if (low[v] === index[v]) {
        const c = cyclic.length;
        let size = 0;
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          component[w] = c;
          size++;
        } while (w !== v);
        let selfLoop = false;
        if (size === 1) for (let e = start[v]; e < start[v + 1]; e++) if (targets[e] === v) selfLoop = true;
        cyclic.push(size > 1 || selfLoop);
      }
    }
  }
  return { component, cyclic };
}

/** The edges (indices into targets) of a shortest cycle through `entry` inside its component. */
function shortestCycle(entry: number, g: Graph): number[] {
  return pathInside(entry, g, () => false, (e) => g.targets[e] === entry);
}

/**
 * Adds the livelock verdict to a search's result: the counterexample as a violation, or
 * the reason the livelock search could not cover the space. For exploreSync, when
 * `options.livelock` is set (or left unset and the machine declares progress).
 */
export function addLivelock<S, A extends Action>(result: ExploreResult, machine: Machine<S, A>, options: { maxStates?: number }): ExploreResult {
  const r = findLivelock(machine, { maxStates: options.maxStates });
  const notes = [...(result.notes ?? []), `livelock: ${r.states} states, ${r.idle} of ${r.transitions} transitions are not progress${machine.fairness ? `; ${r.excused} component${r.excused === 1 ? '' : 's'} of non-progress cycles, none of them weakly fair` : ''}`];
  if (r.counterexample) return { ...result, status: 'violation', violations: [...result.violations, r.counterexample], notes };
  if (r.status === 'incomplete' && result.status === 'holds') {
    return { ...result, status: 'incomplete', incompleteReason: `livelock search: ${r.incompleteReason}`, notes };
  }
  return { ...result, notes };
}

/**
 * exploreSync's livelock step, on the machine as the spec gives it: when
 * `options.livelock` is set, or left unset and the machine declares progress. Skipped,
 * with a note, after a search that stopped at a violation or a budget, or a simulation.
 */
export function livelockAfter<S, A extends Action>(result: ExploreResult, machine: Machine<S, A>, options: ExploreOptions): ExploreResult {
  if (!(options.livelock ?? machine.progress !== undefined)) return result;
  const skip = (why: string) => ({ ...result, notes: [...(result.notes ?? []), `livelock: not searched (${why})`] });
  if (result.status === 'violation' && !options.all) return skip('the search stopped at a violation');
  if (result.status === 'incomplete') return skip('the search did not cover the space');
  if (result.strategy === 'simulate') return skip('random simulation does not cover the space');
  return addLivelock(result, machine, { maxStates: options.maxStates });
}
