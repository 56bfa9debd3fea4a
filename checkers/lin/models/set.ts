// Knossos's set: add v; read returns every member (in any order).
//
// A set grows to the size of the history, and every step of a search makes one, so a
// state must not be a copy of its members. Members get small ids in the order the check
// first meets them (about the order the history adds them), and a state is the ids below
// `prefix` (all of them) plus a short sorted list of larger ids: the adds still out of
// order. Its hash is the sum of its members' hashes; a read's members are turned into ids
// once per output (the same array comes back at every try).

import { fmix32, show } from '../hash.ts';
import { UNKNOWN, type Model, type Operation, type Refutation } from '../types.ts';

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
  ids: Int32Array;
  hash: number;
}

/** The members met in one check (init makes a fresh one): ids, texts, hashes. */
class SetCheck {
  readonly texts: string[] = [];
  private readonly ids = new Map<string, number>();
  private readonly outputs = new WeakMap<object, Members>();
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

  /** A read's output as members (computed once per output array). */
  members(output: unknown): Members {
    if (!Array.isArray(output)) throw new Error(`set: read must return an array of members, got ${show(output)}`);
    let m = this.outputs.get(output);
    if (m === undefined) {
      const ids = Int32Array.from(new Set(memberTexts(output).map((t) => this.id(t)))).sort();
      let hash = 0;
      for (const id of ids) hash = (hash + memberHash(id)) | 0;
      m = { ids, hash };
      this.outputs.set(output, m);
    }
    return m;
  }
}

const EMPTY_IDS = new Int32Array(0);

function memberHash(id: number): number {
  return fmix32(Math.imul(id + 1, 0x9e3779b1));
}

/** Ids 0 .. prefix-1, and `rest` (sorted, each above prefix). */
export class SetState {
  constructor(
    readonly check: SetCheck,
    readonly prefix: number,
    readonly rest: Int32Array,
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
    let prefix = this.prefix;
    let rest: Int32Array;
    if (id === prefix) {
      prefix++;
      let k = 0;
      while (k < this.rest.length && this.rest[k] === prefix) {
        prefix++;
        k++;
      }
      rest = k === 0 ? this.rest : this.rest.slice(k);
    } else {
      rest = new Int32Array(this.rest.length + 1);
      let k = 0;
      while (k < this.rest.length && this.rest[k] < id) rest[k] = this.rest[k++];
      rest[k] = id;
      rest.set(this.rest.subarray(k), k + 1);
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
    ids.push(...this.rest);
    return ids.map((id) => this.check.texts[id]).sort();
  }
}

/**
 * Crashed adds of a value no read returned. A member stays for good, so no read came
 * after such an add, and removing it changes no read's result.
 */
function unobserved(history: readonly Operation<SetInput, unknown>[]): boolean[] {
  const seen = new Set<string>();
  for (const op of history) {
    if (op.ret !== undefined && op.input.f === 'read' && Array.isArray(op.output)) for (const t of memberTexts(op.output)) seen.add(t);
  }
  return history.map((op) => op.ret === undefined && op.input.f === 'add' && !seen.has(canonical(op.input.value)));
}

/**
 * The order to try: where the set had as many members as each read returned. A read at
 * its size; an add just before the smallest read that returned its value (never read:
 * last). The reads of a linearizable history see a growing chain of sets, whatever their
 * calls and returns, so adds are tried in the order the reads saw them.
 */
function priority(history: readonly Operation<SetInput, unknown>[]): number[] {
  const firstSeen = new Map<string, number>();
  const size = new Map<Operation<SetInput, unknown>, number>();
  for (const op of history) {
    if (op.ret === undefined || op.input.f !== 'read' || !Array.isArray(op.output)) continue;
    const members = new Set(memberTexts(op.output));
    size.set(op, members.size);
    for (const c of members) {
      const at = firstSeen.get(c);
      if (at === undefined || members.size < at) firstSeen.set(c, members.size);
    }
  }
  return history.map((op) => (op.input.f === 'add' ? (firstSeen.get(canonical(op.input.value)) ?? Infinity) - 0.5 : (size.get(op) ?? Infinity)));
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
  for (const op of history) {
    if (op.input.f !== 'add') continue;
    const t = canonical(op.input.value);
    const c = firstCall.get(t);
    if (c === undefined || op.call < c) firstCall.set(t, op.call);
    const r = firstRet.get(t);
    if (op.ret !== undefined && (r === undefined || op.ret < r)) firstRet.set(t, op.ret);
  }
  const rets = Float64Array.from(firstRet.values()).sort();
  /** How many members an add put in for good before time t. */
  const inBefore = (t: number): number => {
    let lo = 0;
    let hi = rets.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (rets[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  let found: Refutation | undefined;
  let foundRet = Infinity;
  history.forEach((op, i) => {
    if (op.ret === undefined || op.input.f !== 'read' || !Array.isArray(op.output) || op.ret >= foundRet) return;
    const members = new Set(memberTexts(op.output));
    let before = 0;
    for (const t of members) {
      const c = firstCall.get(t);
      if (c === undefined || c > op.ret) {
        found = { operation: i, why: c === undefined ? `no add puts ${t} in the set` : `the first add of ${t} is called at ${c}, after the read's return` };
        foundRet = op.ret;
        return;
      }
      const r = firstRet.get(t);
      if (r !== undefined && r < op.call) before++;
    }
    if (before === inBefore(op.call)) return;
    for (const [t, r] of firstRet) {
      if (r < op.call && !members.has(t)) {
        found = { operation: i, why: `an add of ${t} returned at ${r}, before the read's call, and members stay` };
        foundRet = op.ret;
        return;
      }
    }
  });
  return found;
}

export const set: Model<SetState, SetInput, unknown> = {
  name: 'set',
  init: () => new SetCheck().empty,
  step(s, input, output) {
    if (input.f === 'add') return { ok: true, state: s.with(s.check.id(canonical(input.value))) };
    if (input.f === 'read') {
      if (output === UNKNOWN) return { ok: true, state: s };
      return { ok: s.is(s.check.members(output)), state: s };
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
