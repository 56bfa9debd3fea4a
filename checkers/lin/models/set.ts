// Knossos's set: add v; read returns every member (in any order).
//
// A set grows to the size of the history, and every step of a search makes one, so a
// state must not be a copy of its members. Members get small ids in the order the check
// first meets them (about the order the history adds them), and a state is the ids below
// `prefix` (all of them) plus a short sorted list of larger ids: the adds still out of
// order. Its hash is the sum of its members' hashes; a read's members are turned into ids
// once per output (the same array comes back at every try).

import { fmix32, show } from '../hash.ts';
import { ILLEGAL_STEP, UNKNOWN, type Model, type Operation, type Refutation } from '../types.ts';

export interface SetInput {
  f: 'add' | 'read';
  value?: unknown;
}

/** JSON with object keys sorted, so that equal values have one text. */
function canonical(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return v === undefined ? 'null' : JSON.stringify(v);
}

/** A read's members as texts, once per output array (the hooks and the steps share them). */
const texts = new WeakMap<object, string[]>();

function memberTexts(output: unknown[]): string[] {
  let t = texts.get(output);
  if (t === undefined) {
    t = output.map(canonical);
    texts.set(output, t);
  }
  return t;
}

/** What a read returned, in ids: sorted, without duplicates; the sum of their hashes. */
interface Members {
  ids: readonly number[];
  hash: number;
}

/** The members met in one check (init makes a fresh one): ids, texts, hashes. */
class SetCheck {
  readonly texts: string[] = [];
  private readonly ids = new Map<string, number>();
  /** Finite numbers' ids (0 and -0 have one text, "0", and one key). */
  private readonly numbers = new Map<number, number>();
  private readonly outputs = new WeakMap<object, Members>();
  /** The read asked about last (a search tries one read in several states). */
  private lastOutput: unknown = undefined;
  private lastMembers: Members | undefined = undefined;
  readonly empty: SetState;

  constructor() {
    this.empty = new SetState(this, 0, EMPTY_IDS, 0);
  }

  id(text: string): number {
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.texts.length;
      this.texts.push(text);
      this.ids.set(text, id);
    }
    return id;
  }

  /** An added value's id: a finite number's without building its text again. */
  idOf(value: unknown): number {
    if (typeof value === 'number' && Number.isFinite(value)) {
      let id = this.numbers.get(value);
      if (id === undefined) this.numbers.set(value, (id = this.id(String(value))));
      return id;
    }
    return this.id(canonical(value));
  }

  /** A read's output as members (computed once per output array). */
  members(output: unknown): Members {
    if (output === this.lastOutput) return this.lastMembers!;
    if (!Array.isArray(output)) throw new Error(`set: read must return an array of members, got ${show(output)}`);
    let m = this.outputs.get(output);
    if (m === undefined) {
      // Ids sorted (insertion: reads are short or come nearly in id order), duplicates dropped.
      const texts = memberTexts(output);
      const ids: number[] = [];
      for (let k = 0; k < texts.length; k++) {
        const id = this.id(texts[k]);
        let j = ids.length - 1;
        while (j >= 0 && ids[j] > id) j--;
        if (j >= 0 && ids[j] === id) continue;
        if (j === ids.length - 1) ids.push(id);
        else ids.splice(j + 1, 0, id);
      }
      let hash = 0;
      for (let k = 0; k < ids.length; k++) hash = (hash + memberHash(ids[k])) | 0;
      m = { ids, hash };
      this.outputs.set(output, m);
    }
    this.lastOutput = output;
    this.lastMembers = m;
    return m;
  }
}

/** Shared by every empty state, never written. */
const EMPTY_IDS: readonly number[] = [];

function memberHash(id: number): number {
  return fmix32(Math.imul(id + 1, 0x9e3779b1));
}

/**
 * Ids 0 .. prefix-1, and `rest` (sorted, each above prefix). `rest` is a plain array: a
 * search makes a state at most steps, and a typed array costs several times as much to make.
 */
export class SetState {
  constructor(
    readonly check: SetCheck,
    readonly prefix: number,
    readonly rest: readonly number[],
    readonly hash: number,
  ) {}

  get size(): number {
    return this.prefix + this.rest.length;
  }

  has(id: number): boolean {
    if (id < this.prefix) return true;
    const rest = this.rest;
    let lo = 0;
    let hi = rest.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (rest[mid] === id) return true;
      if (rest[mid] < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  with(id: number): SetState {
    if (this.has(id)) return this;
    const hash = (this.hash + memberHash(id)) | 0;
    const old = this.rest;
    let prefix = this.prefix;
    let rest: readonly number[];
    if (id === prefix) {
      prefix++;
      let k = 0;
      while (k < old.length && old[k] === prefix) {
        prefix++;
        k++;
      }
      rest = k === 0 ? old : old.slice(k);
    } else {
      const next: number[] = [];
      let k = 0;
      while (k < old.length && old[k] < id) next.push(old[k++]);
      next.push(id);
      while (k < old.length) next.push(old[k++]);
      rest = next;
    }
    return new SetState(this.check, prefix, rest, hash);
  }

  /** Exactly the members `m`. */
  is(m: Members): boolean {
    const ids = m.ids;
    if (ids.length !== this.size || m.hash !== this.hash) return false;
    // Sorted distinct ids hold 0 .. prefix-1 exactly when the prefix-th is prefix-1.
    if (this.prefix > 0 && ids[this.prefix - 1] !== this.prefix - 1) return false;
    for (let k = 0; k < this.rest.length; k++) if (ids[this.prefix + k] !== this.rest[k]) return false;
    return true;
  }

  equals(other: SetState): boolean {
    if (this === other) return true;
    if (this.prefix !== other.prefix || this.hash !== other.hash || this.rest.length !== other.rest.length) return false;
    for (let k = 0; k < this.rest.length; k++) if (this.rest[k] !== other.rest[k]) return false;
    return true;
  }

  texts(): string[] {
    const ids: number[] = [];
    for (let id = 0; id < this.prefix; id++) ids.push(id);
    for (const id of this.rest) ids.push(id);
    const texts = this.check.texts;
    return ids.map((id) => texts[id]).sort();
  }
}

/**
 * Crashed adds of a value no read returned. A member stays for good, so no read came
 * after such an add, and removing it changes no read's result.
 */
function unobserved(history: readonly Operation<SetInput, unknown>[]): boolean[] {
  const n = history.length;
  const out = new Array<boolean>(n).fill(false);
  /** Crashed adds by their value's text, until a read is found that returned it. */
  let pending: Map<string, number[]> | undefined;
  for (let i = 0; i < n; i++) {
    const op = history[i];
    if (op.ret !== undefined || op.input.f !== 'add') continue;
    const t = canonical(op.input.value);
    pending ??= new Map();
    const ids = pending.get(t);
    if (ids === undefined) pending.set(t, [i]);
    else ids.push(i);
    out[i] = true;
  }
  // The last reads are the largest sets: most values are found in the first one looked at.
  for (let i = n - 1; i >= 0 && pending !== undefined && pending.size > 0; i--) {
    const op = history[i];
    if (op.ret === undefined || op.input.f !== 'read' || !Array.isArray(op.output)) continue;
    for (const t of memberTexts(op.output)) {
      const ids = pending.get(t);
      if (ids === undefined) continue;
      for (const j of ids) out[j] = false;
      pending.delete(t);
    }
  }
  return out;
}

/**
 * The order to try: where the set had as many members as each read returned. A read at
 * its size; an add just before the smallest read that returned its value (never read:
 * last). The reads of a linearizable history see a growing chain of sets, whatever their
 * calls and returns, so adds are tried in the order the reads saw them.
 */
function priority(history: readonly Operation<SetInput, unknown>[]): number[] {
  const n = history.length;
  const out = new Array<number>(n);
  const firstSeen = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const op = history[i];
    out[i] = Infinity;
    if (op.ret === undefined || op.input.f !== 'read' || !Array.isArray(op.output)) continue;
    const members = new Set(memberTexts(op.output));
    const size = (out[i] = members.size);
    for (const c of members) {
      const at = firstSeen.get(c);
      if (at === undefined || size < at) firstSeen.set(c, size);
    }
  }
  for (let i = 0; i < n; i++) {
    const input = history[i].input;
    if (input.f === 'add') out[i] = (firstSeen.get(canonical(input.value)) ?? Infinity) - 0.5;
  }
  return out;
}

/**
 * A read the set's growth rules out: it returned a member no add was called to put in by
 * its return, or it missed a member whose add (known to have happened) returned before
 * its call. Members stay for good. The read with the earliest return is refuted.
 */
function refute(history: readonly Operation<SetInput, unknown>[]): Refutation | undefined {
  const firstCall = new Map<string, number>();
  /** Per member: the earliest return of an add of it (known to have happened). */
  const firstRet = new Map<string, number>();
  for (let i = 0; i < history.length; i++) {
    const op = history[i];
    if (op.input.f !== 'add') continue;
    const t = canonical(op.input.value);
    const c = firstCall.get(t);
    if (c === undefined || op.call < c) firstCall.set(t, op.call);
    const r = firstRet.get(t);
    if (op.ret !== undefined && (r === undefined || op.ret < r)) firstRet.set(t, op.ret);
  }
  const rets = Float64Array.from(firstRet.values()).sort();
  let found: Refutation | undefined;
  let foundRet = Infinity;
  reads: for (let i = 0; i < history.length; i++) {
    const op = history[i];
    if (op.ret === undefined || op.input.f !== 'read' || !Array.isArray(op.output) || op.ret >= foundRet) continue;
    const members = new Set(memberTexts(op.output));
    let before = 0;
    for (const t of members) {
      const c = firstCall.get(t);
      if (c === undefined || c > op.ret) {
        found = { operation: i, why: c === undefined ? `no add puts ${t} in the set` : `the first add of ${t} is called at ${c}, after the read's return` };
        foundRet = op.ret;
        continue reads;
      }
      const r = firstRet.get(t);
      if (r !== undefined && r < op.call) before++;
    }
    if (before === countBelow(rets, op.call)) continue;
    for (const [t, r] of firstRet) {
      if (r < op.call && !members.has(t)) {
        found = { operation: i, why: `an add of ${t} returned at ${r}, before the read's call, and members stay` };
        foundRet = op.ret;
        continue reads;
      }
    }
  }
  return found;
}

/** How many of the sorted times are before t: the members an add put in for good by then. */
function countBelow(sorted: Float64Array, t: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export const set: Model<SetState, SetInput, unknown> = {
  name: 'set',
  init: () => new SetCheck().empty,
  step(s, input, output) {
    if (input.f === 'add') return { ok: true, state: s.with(s.check.idOf(input.value)) };
    if (input.f === 'read') {
      if (output === UNKNOWN) return { ok: true, state: s };
      return s.is(s.check.members(output)) ? { ok: true, state: s } : ILLEGAL_STEP;
    }
    throw new Error(`set: unknown operation ${show((input as { f: unknown }).f)}`);
  },
  readOnly: (input) => input.f === 'read',
  unobserved,
  priority,
  refute,
  hash: (s) => s.hash,
  equal: (a, b) => a.equals(b),
  describeOperation: (input, output) =>
    input.f === 'add'
      ? `add(${show(input.value)})${output === UNKNOWN ? ' -> ?' : ''}`
      : `read() -> ${output === UNKNOWN ? '?' : show(output)}`,
  describeState: (s) => `{${s.texts().join(', ')}}`,
};
