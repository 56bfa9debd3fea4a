// Knossos's set: add v; read returns every member (in any order).
//
// A set grows to the size of the history, and every step of a search makes one, so a
// state must not be a copy of its members. Members get small ids in the order the check
// first meets them (about the order the history adds them), and a state is the ids below
// `prefix` (all of them) plus a short sorted list of larger ids: the adds still out of
// order. Its hash is the sum of its members' hashes; a read's members are turned into ids
// once per output (the same array comes back at every try).

import { fmix32, show } from '../hash.ts';
import { ILLEGAL, stepFrom, UNKNOWN, type Illegal, type Model, type Operation, type Refutation } from '../types.ts';

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

/**
 * A member's key: a finite number is its own key, anything else its canonical text. No
 * text of a non-number reads as a number's (strings are quoted, arrays bracketed), so two
 * members are one exactly when their texts are (0 and -0 one key in a Map, NaN and null
 * the text "null"); numbers, the common members, never become strings.
 */
function keyOf(v: unknown): number | string {
  // `v - v === 0`: finite (NaN and the infinities give NaN), without Number.isFinite's call,
  // a builtin's first execution in a first check (~2.5 us; RESULTS-issue21.md, lin-10c).
  return typeof v === 'number' && v - v === 0 ? v : canonical(v);
}

const textOf = (key: number | string): string => (typeof key === 'number' ? String(key) : key);

/** What a read returned, in ids: sorted, without duplicates; the sum of their hashes. */
interface Members {
  ids: readonly number[];
  hash: number;
}

/** The members met in one check (init makes a fresh one): ids, texts, hashes. */
class SetCheck {
  // Declared and set in the constructor (SetState says why): init makes one per check.
  /** Each id's key (keyOf). */
  declare readonly keys: (number | string)[];
  declare private readonly ids: Map<number | string, number>;
  /** Made when a second read's output is met (a small history's search may meet one). */
  declare private outputs: WeakMap<object, Members> | undefined;
  /** The read asked about last (a search tries one read in several states). */
  declare private lastOutput: unknown;
  declare private lastMembers: Members | undefined;
  /**
   * The texts of ids 0 .. sortedUpTo-1 in code-unit order, for describing states (made at
   * the first describe). An illegal report describes the state after every step of its
   * longest, whose prefix only grows: each describe adds the few new ids' texts here
   * instead of sorting every member's text again (quadratic in a long set history).
   */
  declare private sorted: string[] | undefined;
  declare private sortedUpTo: number;
  declare readonly empty: SetState;

  constructor() {
    this.keys = [];
    this.ids = new Map();
    this.outputs = undefined;
    this.lastOutput = undefined;
    this.lastMembers = undefined;
    this.sorted = undefined;
    this.sortedUpTo = 0;
    this.empty = new SetState(this, 0, EMPTY_IDS, 0);
  }

  id(key: number | string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.keys.length;
      this.keys.push(key);
      this.ids.set(key, id);
    }
    return id;
  }

  /** A read's output as members (computed once per output array). */
  members(output: unknown): Members {
    if (output === this.lastOutput) return this.lastMembers!;
    if (!Array.isArray(output)) throw new Error(`set: read must return an array of members, got ${show(output)}`);
    let outputs = this.outputs;
    if (outputs === undefined && this.lastOutput !== undefined) {
      // A second output: from here every output is kept, the first one too.
      outputs = this.outputs = new WeakMap();
      outputs.set(this.lastOutput as unknown[], this.lastMembers!);
    }
    let m = outputs?.get(output);
    if (m === undefined) {
      // Ids sorted (insertion: reads are short or come nearly in id order), duplicates dropped.
      const ids: number[] = [];
      for (let k = 0; k < output.length; k++) {
        const id = this.id(keyOf(output[k]));
        let j = ids.length - 1;
        while (j >= 0 && ids[j] > id) j--;
        if (j >= 0 && ids[j] === id) continue;
        if (j === ids.length - 1) ids.push(id);
        else ids.splice(j + 1, 0, id);
      }
      let hash = 0;
      for (let k = 0; k < ids.length; k++) hash = (hash + (ids[k] < HASHED ? HASHES[ids[k]] : memberHash(ids[k]))) | 0;
      m = { ids, hash };
      outputs?.set(output, m);
    }
    this.lastOutput = output;
    this.lastMembers = m;
    return m;
  }

  /**
   * The texts of ids 0 .. prefix-1 in code-unit order; the array is this check's, and
   * changes at the next call. Texts are distinct (keyOf and textOf are one-to-one), so any
   * sort of them gives the one order.
   */
  sortedBelow(prefix: number): readonly string[] {
    let sorted = this.sorted;
    if (sorted === undefined || prefix < this.sortedUpTo) {
      sorted = this.sorted = [];
      this.sortedUpTo = 0;
    }
    addTexts(sorted, this.keys, this.sortedUpTo, prefix, undefined);
    this.sortedUpTo = prefix;
    return sorted;
  }
}

/** Texts beyond which a batch is sorted natively rather than inserted one by one. */
const INSERT_MAX = 8;

/**
 * Puts the texts of the ids from .. to-1 (of `ids` when given, else the ids themselves)
 * into `sorted`, keeping it in code-unit order.
 */
function addTexts(sorted: string[], keys: readonly (number | string)[], from: number, to: number, ids: readonly number[] | undefined): void {
  if (to - from > INSERT_MAX) {
    for (let k = from; k < to; k++) sorted.push(textOf(keys[ids === undefined ? k : ids[k]]));
    sorted.sort();
    return;
  }
  for (let k = from; k < to; k++) {
    const t = textOf(keys[ids === undefined ? k : ids[k]]);
    sorted.splice(countBelow(sorted, t, false), 0, t);
  }
}

/** Shared by every empty state, never written. */
const EMPTY_IDS: readonly number[] = [];

function memberHash(id: number): number {
  return fmix32(Math.imul(id + 1, 0x9e3779b1));
}

/**
 * memberHash of the first ids, made once (the startup snapshot holds them): a first check's
 * adds and reads read their hashes here, `id < HASHED ? HASHES[id] : memberHash(id)`,
 * without a first call into memberHash and fmix32 (~1.5 us each; RESULTS-issue21.md, lin-10e).
 */
const HASHED = 256;
const HASHES = new Int32Array(HASHED);
for (let id = 0; id < HASHED; id++) HASHES[id] = memberHash(id);

/**
 * Ids 0 .. prefix-1, and `rest` (sorted, each above prefix). `rest` is a plain array: a
 * search makes a state at most steps, and a typed array costs several times as much to make.
 */
export class SetState {
  // Declared and set in the constructor, as kv.ts's KvValue: as parameter properties (ES2022
  // class fields) each was defined and then stored again, at every add's step (a first
  // check's construction 2x the cost: 1.3 against 0.6 us, RESULTS-issue21.md, lin-step).
  declare readonly check: SetCheck;
  declare readonly prefix: number;
  declare readonly rest: readonly number[];
  declare readonly hash: number;

  constructor(check: SetCheck, prefix: number, rest: readonly number[], hash: number) {
    this.check = check;
    this.prefix = prefix;
    this.rest = rest;
    this.hash = hash;
  }

  /**
   * This set and `id`. Whether it holds `id` already is found here, not by a method of its
   * own: a first check pays ~1.5 us for each function it calls for the first time
   * (RESULTS-issue21.md, lin-10e), and every add's step comes here.
   */
  with(id: number): SetState {
    let prefix = this.prefix;
    if (id < prefix) return this;
    const old = this.rest;
    let lo = 0;
    let hi = old.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (old[mid] === id) return this;
      if (old[mid] < id) lo = mid + 1;
      else hi = mid - 1;
    }
    const hash = (this.hash + (id < HASHED ? HASHES[id] : memberHash(id))) | 0;
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
    if (ids.length !== this.prefix + this.rest.length || m.hash !== this.hash) return false;
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

  /** The members' texts in code-unit order (what `sort()` gives), in an array of its own. */
  texts(): string[] {
    const texts = this.check.sortedBelow(this.prefix).slice();
    addTexts(texts, this.check.keys, 0, this.rest.length, this.rest);
    return texts;
  }
}

/**
 * One history's members as small ids, for the hooks (unobserved, priority, refute): each
 * add's value and each determinate read's distinct members. Made once per history and
 * shared by the hooks, which a search asks about the same array: a long history's reads
 * hold most of its size (every member of the set each), and each hook used to build its
 * own texts, Sets and Maps of them.
 */
interface Index {
  /** Each id's key (keyOf). */
  keys: (number | string)[];
  /** Per operation: its add's id, or -1. */
  add: Int32Array;
  /** Per operation: a determinate read's distinct ids (undefined: not such a read). */
  reads: (Int32Array | undefined)[];
}

const indexes = new WeakMap<readonly Operation[], Index>();

/**
 * Members as ids, numbered as first met. Small non-negative integers (Jepsen's set adds the
 * operation's number) by a table: id + 1, 0 for none; any other member by its key in a Map.
 * A class, not a closure made per history: run from source (tsx keeps names), a named
 * closure costs a defineProperty each time it is made.
 */
class MemberIds {
  readonly keys: (number | string)[] = [];
  /** Per small non-negative integer member: its id + 1 (0: none yet). */
  readonly small: Int32Array;
  private readonly byKey = new Map<number | string, number>();

  constructor(smallLimit: number) {
    this.small = new Int32Array(smallLimit);
  }

  of(v: unknown): number {
    const small = this.small;
    if (typeof v === 'number' && v >>> 0 === v && v < small.length) {
      let id = small[v] - 1;
      if (id < 0) {
        id = this.keys.length;
        this.keys.push(v);
        small[v] = id + 1;
      }
      return id;
    }
    const key = keyOf(v);
    let id = this.byKey.get(key);
    if (id === undefined) {
      id = this.keys.length;
      this.keys.push(key);
      this.byKey.set(key, id);
    }
    return id;
  }
}

function indexOf(history: readonly Operation<SetInput, unknown>[]): Index {
  let index = indexes.get(history);
  if (index !== undefined) return index;
  const n = history.length;
  const ids = new MemberIds(2 * n + 16);
  const keys = ids.keys;
  const add = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) if (history[i].input.f === 'add') add[i] = ids.of(history[i].input.value);
  const reads = new Array<Int32Array | undefined>(n);
  // Duplicates within a read: the read's stamp on the id (reads are numbered from 1).
  let stamp = new Int32Array(Math.max(16, keys.length));
  let readNo = 0;
  const small = ids.small;
  for (let i = 0; i < n; i++) {
    const op = history[i];
    if (op.ret === undefined || op.input.f !== 'read' || !Array.isArray(op.output)) continue;
    const output = op.output as unknown[];
    const out = new Int32Array(output.length);
    let count = 0;
    readNo++;
    for (let k = 0; k < output.length; k++) {
      // A member added before (most are) by the table here, without a call per member: a
      // long history's reads hold most of its size, and a first check runs this loop in V8's
      // interpreter, where each call costs.
      const v = output[k];
      const known = typeof v === 'number' && v >>> 0 === v && v < small.length ? small[v] - 1 : -1;
      const id = known >= 0 ? known : ids.of(v);
      if (id >= stamp.length) {
        const grown = new Int32Array(2 * id + 16);
        grown.set(stamp);
        stamp = grown;
      }
      if (stamp[id] === readNo) continue;
      stamp[id] = readNo;
      out[count++] = id;
    }
    reads[i] = count === out.length ? out : out.slice(0, count);
  }
  index = { keys, add, reads };
  indexes.set(history, index);
  return index;
}

/**
 * Crashed adds of a value no read returned. A member stays for good, so no read came
 * after such an add, and removing it changes no read's result.
 */
function unobserved(history: readonly Operation<SetInput, unknown>[]): boolean[] {
  const { keys, add, reads } = indexOf(history);
  const n = history.length;
  const seen = new Uint8Array(keys.length);
  for (let i = 0; i < n; i++) {
    const ids = reads[i];
    if (ids !== undefined) for (let k = 0; k < ids.length; k++) seen[ids[k]] = 1;
  }
  const out = new Array<boolean>(n);
  for (let i = 0; i < n; i++) out[i] = add[i] >= 0 && history[i].ret === undefined && seen[add[i]] === 0;
  return out;
}

/**
 * The order to try: where the set had as many members as each read returned. A read at
 * its size; an add just before the smallest read that returned its value (never read:
 * last). The reads of a linearizable history see a growing chain of sets, whatever their
 * calls and returns, so adds are tried in the order the reads saw them.
 */
function priority(history: readonly Operation<SetInput, unknown>[]): number[] {
  const { keys, add, reads } = indexOf(history);
  const n = history.length;
  const out = new Array<number>(n);
  // In small integers, twice the sizes: a read at 2 * size, an add at 2 * size - 1, the
  // rest at `last`, past every read's size (at most keys.length). Halves and Infinity
  // would make the hints doubles, each read of which makes a heap number in a first check
  // (and firstSeen's too in a Float64Array); only the hints' order matters.
  const last = 2 * keys.length + 1;
  const firstSeen = new Int32Array(keys.length).fill(last);
  for (let i = 0; i < n; i++) {
    const ids = reads[i];
    out[i] = last;
    if (ids === undefined) continue;
    const size = ids.length;
    out[i] = 2 * size;
    for (let k = 0; k < ids.length; k++) if (size < firstSeen[ids[k]]) firstSeen[ids[k]] = size;
  }
  for (let i = 0; i < n; i++) if (add[i] >= 0) out[i] = firstSeen[add[i]] === last ? last : 2 * firstSeen[add[i]] - 1;
  return out;
}

/**
 * A read the set's growth rules out: it returned a member no add was called to put in by
 * its return, or it missed a member whose add (known to have happened) returned before
 * its call. Members stay for good. The read with the earliest return is refuted.
 */
function refute(history: readonly Operation<SetInput, unknown>[]): Refutation | undefined {
  const { keys, add, reads } = indexOf(history);
  const n = history.length;
  const firstCall = new Float64Array(keys.length).fill(Infinity);
  /** Per member: the earliest return of an add of it (known to have happened). */
  const firstRet = new Float64Array(keys.length).fill(Infinity);
  /** The members some determinate add put in, in the order of the first such add. */
  const returned: number[] = [];
  for (let i = 0; i < n; i++) {
    const id = add[i];
    if (id < 0) continue;
    const op = history[i];
    if (op.call < firstCall[id]) firstCall[id] = op.call;
    if (op.ret === undefined) continue;
    if (firstRet[id] === Infinity) returned.push(id);
    if (op.ret < firstRet[id]) firstRet[id] = op.ret;
  }
  // Per read, the members an add put in for good before its call: the returns counted
  // against the reads' calls, sorted. There are few reads and as many returns as adds:
  // sorting the returns instead took 20-50 ms of a 100,000-op history's 60-ms refute.
  const calls: number[] = [];
  for (let i = 0; i < n; i++) if (reads[i] !== undefined) calls.push(history[i].call);
  calls.sort((a, b) => a - b);
  // settled[p]: the returns before the p-th call (a return r is before the calls after the
  // last one at or below r).
  const settled = new Int32Array(calls.length + 1);
  for (const id of returned) settled[countBelow(calls, firstRet[id], true)]++;
  for (let p = 1; p < settled.length; p++) settled[p] += settled[p - 1];
  const stamp = new Int32Array(keys.length);
  let found: Refutation | undefined;
  let foundRet = Infinity;
  reads: for (let i = 0; i < n; i++) {
    const ids = reads[i];
    const op = history[i];
    if (ids === undefined || op.ret! >= foundRet) continue;
    let before = 0;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k];
      const c = firstCall[id];
      if (c > op.ret!) {
        const t = textOf(keys[id]);
        found = { operation: i, why: c === Infinity ? `no add puts ${t} in the set` : `the first add of ${t} is called at ${c}, after the read's return` };
        foundRet = op.ret!;
        continue reads;
      }
      if (firstRet[id] < op.call) before++;
    }
    if (before === settled[countBelow(calls, op.call, false)]) continue;
    for (let k = 0; k < ids.length; k++) stamp[ids[k]] = i + 1;
    for (const id of returned) {
      if (firstRet[id] < op.call && stamp[id] !== i + 1) {
        found = { operation: i, why: `an add of ${textOf(keys[id])} returned at ${firstRet[id]}, before the read's call, and members stay` };
        foundRet = op.ret!;
        continue reads;
      }
    }
  }
  return found;
}

/** How many of the sorted times (or texts) are before t (orEqual: at or before t). */
function countBelow<T extends number | string>(sorted: readonly T[], t: T, orEqual: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < t || (orEqual && sorted[mid] === t)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function next(s: SetState, input: SetInput, output: unknown): SetState | Illegal {
  if (input.f === 'add') {
    // A missing value is refused, not added as the null its key would read as.
    if (input.value === undefined) throw new Error('set: add expects a value, got undefined');
    return s.with(s.check.id(keyOf(input.value)));
  }
  if (input.f === 'read') return output === UNKNOWN || s.is(s.check.members(output)) ? s : ILLEGAL;
  throw new Error(`set: unknown operation ${show((input as { f: unknown }).f)}`);
}

export const set: Model<SetState, SetInput, unknown> = {
  name: 'set',
  noKeys: true,
  init: () => new SetCheck().empty,
  step: stepFrom(next),
  next,
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
