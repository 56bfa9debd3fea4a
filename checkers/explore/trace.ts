// Counterexamples without stored states: each distinct state keeps only its parent's
// number and the index of the action (in the parent's `actions()` list) that reached it.
// A path is rebuilt by re-executing those actions from the initial state, which also
// yields every intermediate state for the report.

import { diff } from './diff.ts';
import { SpecError } from './errors.ts';
import type { Action, Counterexample, Machine } from './types.ts';

export class TraceLog {
  // Small at first: the first search of a process (a small one, in `interleave check`) then runs its growth while this code is still interpreted, so V8's optimised search loop, which inlines it, has seen it: a first growth inside the optimised loop threw the loop's code away (fill, insertAll and insert each compiled again, minos README "Speed, tenth pass").
  private parent = new Int32Array(1 << 6);
  private via: Uint8Array | Uint16Array | Int32Array = new Uint8Array(1 << 6);
  size = 0;

  /** Records a state reached from `parent` (-1 for an initial state) by action `index`
   * (for an initial state: its index in init()); returns its number. */
  add(parent: number, index: number): number {
    const id = this.size++;
    if (id === this.parent.length) {
      const p = new Int32Array(2 * id);
      p.set(this.parent);
      this.parent = p;
      this.via = this.widen(this.via, 2 * id, 0);
    }
    if (index > 255 && this.via instanceof Uint8Array) this.via = this.widen(this.via, this.parent.length, index);
    if (index > 65535 && this.via instanceof Uint16Array) this.via = this.widen(this.via, this.parent.length, index);
    this.parent[id] = parent;
    this.via[id] = index;
    return id;
  }

  private widen(a: Uint8Array | Uint16Array | Int32Array, size: number, index: number) {
    const b = index > 65535 || a instanceof Int32Array ? new Int32Array(size) : index > 255 || a instanceof Uint16Array ? new Uint16Array(size) : new Uint8Array(size);
    b.set(a);
    return b;
  }

  /** The initial-state index and the action indices leading to state `id`. */
  path(id: number): { init: number; actions: number[] } {
    const actions: number[] = [];
    let j = id;
    while (this.parent[j] >= 0) {
      actions.push(this.via[j]);
      j = this.parent[j];
    }
    return { init: this.via[j], actions: actions.reverse() };
  }

  bytes(): number {
    return this.parent.byteLength + this.via.byteLength;
  }
}

/**
 * Re-executes a path of action indices and describes it step by step. `recheck`: the
 * message is the property's own verdict on the path's last state (the state the search
 * met was on words that cannot say it: WordLayout.replayed).
 */
export function replayIndices<S, A extends Action>(
  machine: Machine<S, A>,
  init: number,
  indices: readonly number[],
  property: string,
  message: string,
  recheck = false,
): Counterexample {
  const inits = machine.init();
  let s = inits[init];
  if (s === undefined) throw new Error(`replay: no initial state ${init}`);
  const shown = machine.inner ? (x: S) => machine.inner!(x) : (x: S): unknown => x;
  const initial = shown(s);
  const steps: Counterexample['steps'] = [];
  let before = initial;
  const nondeterministic = (what: string) =>
    new SpecError(
      `the machine is not deterministic: re-executing the path that reached the violation of ${JSON.stringify(property)} (${indices.length} steps), ${what}; init(), actions() and next() must be functions of the state (a counterexample is rebuilt by re-executing it)`,
    );
  for (let i = 0; i < indices.length; i++) {
    const a = machine.actions(s)[indices[i]];
    if (a === undefined) throw nondeterministic(`step ${i + 1} found fewer actions enabled than the search did`);
    s = machine.next(s, a);
    const after = shown(s);
    steps.push({ action: a, state: after, changes: diff(before, after) });
    before = after;
  }
  // The path must end where the search found the violation: a path that violates nothing
  // is no counterexample (review defect 16).
  const invariant = machine.invariants[property];
  if (invariant !== undefined) {
    const verdict = invariant(s);
    if (verdict === true) throw nondeterministic(`its last state satisfies ${JSON.stringify(property)}`);
    if (recheck && typeof verdict === 'string') message = verdict;
  } else if (property === 'deadlock' && machine.mayStop && (machine.actions(s).length > 0 || machine.mayStop(s))) {
    throw nondeterministic('its last state is no deadlock');
  }
  return { property, message, initial, steps };
}

/**
 * Re-executes a path given as action labels (as printed in a counterexample), matching
 * each label against the enabled actions. Throws naming the first label that matches none.
 */
export function replayLabels<S, A extends Action>(
  machine: Machine<S, A>,
  labels: readonly string[],
  initIndex = 0,
): { init: number; indices: number[]; states: S[] } {
  const inits = machine.init();
  if (initIndex >= inits.length) throw new ReplayPathError(`replay: the machine has no initial state ${initIndex}`);
  let s: S = inits[initIndex];
  const states: S[] = [s];
  const indices: number[] = [];
  labels.forEach((label, n) => {
    const enabled = machine.actions(s);
    const k = enabled.findIndex((a) => a.label === label);
    if (k < 0) {
      const list = enabled.map((a) => a.label).join(', ') || 'none';
      throw new ReplayPathError(`replay: step ${n + 1} "${label}" is not enabled; enabled: ${list}`);
    }
    s = machine.next(s, enabled[k]);
    indices.push(k);
    states.push(s);
  });
  return { init: initIndex, indices, states };
}

/** A path that the machine cannot take (a label not enabled, no such initial state): the caller's mistake, not the machine's. */
export class ReplayPathError extends Error {
  override name = 'ReplayPathError';
}

/** A property broken at one state of a replayed path (state 0 is the initial state). */
export interface PathViolation {
  state: number;
  property: string;
  message: string;
}

/**
 * Replays a path of labels (replayLabels) and checks every invariant at every state of it,
 * and, unless `deadlock` is false, that its last state is not a deadlock: what
 * `interleave explore --replay` reports. Throws as replayLabels does on a label that is
 * not enabled.
 */
export function checkPath<S, A extends Action>(
  machine: Machine<S, A>,
  labels: readonly string[],
  options: { deadlock?: boolean; initIndex?: number } = {},
): { init: number; indices: number[]; states: S[]; violations: PathViolation[] } {
  const replayed = replayLabels(machine, labels, options.initIndex);
  const violations: PathViolation[] = [];
  replayed.states.forEach((s, i) => {
    for (const [property, inv] of Object.entries(machine.invariants)) {
      const v = inv(s);
      if (v !== true) violations.push({ state: i, property, message: v });
    }
  });
  const last = replayed.states.length - 1;
  const end = replayed.states[last];
  if (options.deadlock !== false && machine.mayStop && machine.actions(end).length === 0 && !machine.mayStop(end)) {
    violations.push({ state: last, property: 'deadlock', message: 'no action is enabled in a state that may not be final' });
  }
  return { ...replayed, violations };
}
