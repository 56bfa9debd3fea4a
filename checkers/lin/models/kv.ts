// A key-value store with get / put / append (Porcupine's kv test model): get returns the
// key's whole string ('' when never written), put replaces it, append concatenates.
// Keys are independent, so `kvAppend` partitions by key (P-compositionality); the same
// store with one map state for all keys, `kvAppendUnpartitioned`, is how Porcupine
// benchmarks its search without partitioning.
//
// String values grow by appends, and most steps of a search make a value never seen before
// (c50-ok: 151k distinct values in 174k legal steps). So the per-key model keeps a value as
// the chain of appends that built it (KvValue), one small object per step, with its hash and
// length; the string itself is built only when a get's output has the same hash and length.
// The map of all keys hash-conses values instead (ValueTable), so that a state is an array
// of small ids. Either way an append hashes only its suffix (hash.ts appendHash).

import { appendHash, fmix32, hashString, show } from '../hash.ts';
import { IntPairMap } from '../intmap.ts';
import { absentFrom, checkDeadline, scanned } from './substrings.ts';
import { ILLEGAL, stepFrom, UNKNOWN, type Illegal, type Model, type Operation, type Refutation } from '../types.ts';

export interface KvInput {
  f: 'get' | 'put' | 'append';
  key: string;
  value?: string;
}

function argument(input: KvInput): string {
  if (typeof input.value !== 'string') notAString(input);
  return input.value;
}

function notAString(input: KvInput): never {
  throw new Error(`kv: ${input.f} expects a string value, got ${show(input.value)}`);
}

function unknownOperation(input: KvInput): never {
  throw new Error(`kv: unknown operation ${show((input as { f: unknown }).f)}`);
}

function describeOperation(input: KvInput, output: unknown): string {
  const out = output === UNKNOWN ? '?' : show(output);
  switch (input.f) {
    case 'get':
      return `get(${show(input.key)}) -> ${out}`;
    case 'put':
    case 'append':
      return `${input.f}(${show(input.key)}, ${show(input.value)})${output === UNKNOWN ? ' -> ?' : ''}`;
    default:
      return `${String((input as { f: unknown }).f)}(${show(input.key)})`;
  }
}

/** The indices of each key's operations, the keys in the order of their first operations. */
function indicesByKey(history: readonly Operation<KvInput, unknown>[]): number[][] {
  const byKey = new Map<unknown, number[]>();
  // The parts as keys first appear (the Map's order), without iterating the Map.
  const parts: number[][] = [];
  for (let i = 0; i < history.length; i++) {
    const key = history[i].input?.key;
    let part = byKey.get(key);
    if (part === undefined) {
      byKey.set(key, (part = []));
      parts.push(part);
    }
    part.push(i);
  }
  return parts;
}

function partitionByKey(history: readonly Operation<KvInput, unknown>[]): Operation<KvInput, unknown>[][] {
  return indicesByKey(history).map((ids) => ids.map((i) => history[i]));
}

/**
 * Crashed puts and appends whose value no get (of the same key) returned as part of its
 * string. While a put or an append is in effect its value is a substring of the key's
 * string, until the next put: an unobserved one had no get after it before the next put,
 * and removing it changes no get's result.
 */
function unobserved(history: readonly Operation<KvInput, unknown>[], deadline = Infinity): boolean[] {
  const out = new Array<boolean>(history.length).fill(false);
  const keys = new KeyIndex();
  const pending: number[][] = [];
  const gets: string[][] = [];
  // One pass, each operation's fields read once; the gets of keys with nothing pending are
  // collected too and never looked at.
  for (let i = 0; i < history.length; i++) {
    const op = history[i];
    const input = op.input;
    const f = input.f;
    if (op.ret === undefined) {
      if ((f === 'put' || f === 'append') && typeof input.value === 'string') (pending[keys.of(input.key)] ??= []).push(i);
    } else if (f === 'get') {
      const output = op.output;
      if (typeof output === 'string') (gets[keys.of(input.key)] ??= []).push(output);
    }
  }
  if (pending.length === 0) return out;
  for (let k = 0; k < pending.length; k++) {
    const ids = pending[k];
    if (ids === undefined) continue;
    // Certainly in none of the key's strings (absentFrom, verified: exact within its
    // budget; past it, a filter that only keeps an operation that could have been dropped).
    const values = new Array<string>(ids.length);
    for (let j = 0; j < ids.length; j++) values[j] = history[ids[j]].input.value as string;
    const absent = absentFrom(gets[k] ?? [], values, deadline, true);
    for (let j = 0; j < ids.length; j++) out[ids[j]] = absent[j];
  }
  return out;
}

/**
 * Values written (by a put or an append, crashed or not) that no get returned as part of
 * its string. Once such a value is in the string, it stays there until the next put, and
 * every get before that put fails: all such strings are one state, whatever else they hold
 * or in which order (concurrent writes no get saw are each an order of their own, which the
 * memo could not merge). Undefined when there are none.
 */
function abstraction(history: readonly Operation<KvInput, unknown>[], deadline = Infinity): ((s: KvValue) => KvValue) | undefined {
  const gets: string[] = [];
  const values: string[] = [];
  for (const op of history) {
    const { f, value } = op.input;
    if (f === 'get' && op.ret !== undefined && typeof op.output === 'string') gets.push(op.output);
    else if ((f === 'put' || f === 'append') && typeof value === 'string' && value !== '') values.push(value);
  }
  // A value absentFrom cannot rule in (a hash collision) is only kept out of `unseen`: never wrong.
  const absent = absentFrom(gets, values, deadline);
  const unseen = new Set<string>();
  for (let i = 0; i < values.length; i++) if (absent[i]) unseen.add(values[i]);
  if (unseen.size === 0) return undefined;
  return (s) => s.abstracted(unseen);
}

/**
 * Small ids for the keys of a history, in order of first appearance. A partition holds
 * one key, so the last key found is compared first (a string compare, no hashing).
 */
class KeyIndex {
  // Declared and set in the constructor (KvValue's fields say why).
  declare private readonly ids: Map<unknown, number>;
  declare private lastKey: unknown;
  declare private lastId: number;

  constructor() {
    this.ids = new Map();
    this.lastKey = undefined;
    this.lastId = -1;
  }

  of(key: unknown): number {
    if (this.lastId >= 0 && key === this.lastKey) return this.lastId;
    let id = this.ids.get(key);
    if (id === undefined) this.ids.set(key, (id = this.ids.size));
    this.lastKey = key;
    this.lastId = id;
    return id;
  }
}

/**
 * The order to try: the order the gets' strings show. A key's string is the value of its
 * last put (or nothing), then the appends since, in order; so each update gets a place
 * (epoch, offset): a put opens the epoch of its value (epochs in the order of the first
 * return of a get that saw them, refined below), an append sits at the offset where the first get (by
 * call) that returned its value shows it, in that get's epoch. Never seen: last. Gets are
 * read-only (tried as soon as they fit) and keep their calls.
 */
function priority(history: readonly Operation<KvInput, unknown>[], deadline = Infinity): number[] {
  const n = history.length;
  const out = new Array<number>(n);
  // Each operation's fields are read once (the operations come in several shapes, so every
  // property read is a slow one): its call, return and string, then plain arrays.
  const call = new Float64Array(n);
  const ret = new Float64Array(n);
  const text = new Array<string>(n);
  const keys = new KeyIndex();
  const byKey: { puts: number[]; gets: number[]; appends: number[] }[] = [];
  let inCallOrder = true;
  for (let i = 0; i < n; i++) {
    const op = history[i];
    const c = (call[i] = out[i] = op.call);
    if (i > 0 && c < call[i - 1]) inCallOrder = false;
    const input = op.input;
    const k = (byKey[keys.of(input.key)] ??= { puts: [], gets: [], appends: [] });
    const f = input.f;
    if (f === 'get') {
      const r = op.ret;
      const output = op.output;
      if (r !== undefined && typeof output === 'string') {
        ret[i] = r;
        text[i] = output;
        k.gets.push(i);
      }
    } else {
      const value = input.value;
      if (typeof value === 'string') {
        if (f === 'put') {
          text[i] = value;
          ret[i] = op.ret ?? Infinity;
          k.puts.push(i);
        } else if (f === 'append' && value !== '') {
          text[i] = value;
          k.appends.push(i);
        }
      }
    }
  }
  let searched = 0;
  for (const { puts, gets, appends } of byKey) {
    if (!inCallOrder) {
      sortByCall(puts, call);
      sortByCall(gets, call);
    }
    // A put opens an epoch: the strings that start with its value (0: before any put).
    const epochOf = new Map<string, number>();
    const lengths: number[] = [];
    for (let e = 0; e < puts.length; e++) {
      const v = text[puts[e]];
      epochOf.set(v, e + 1);
      if (v.length > 0 && !lengths.includes(v.length)) lengths.push(v.length);
    }
    // Epochs in the order of the first return of a get that saw them (concurrent puts
    // take effect in any order of their calls; a long get may have seen a late epoch);
    // `seen[r]`: the time by which the epoch of rank r + 1 had been seen.
    const firstSeen = new Float64Array(puts.length + 1).fill(Infinity);
    const epochs = new Int32Array(gets.length);
    for (let k = 0; k < gets.length; k++) {
      const i = gets[k];
      const e = (epochs[k] = epochOfString(text[i], lengths, epochOf));
      if (ret[i] < firstSeen[e]) firstSeen[e] = ret[i];
    }
    // When every put of the key returned and wrote its own value, the epochs' order is
    // refined (lin-kv2's, kept to these keys: it was reverted for making a 30%-crashed kv
    // history with repeated values 25x slower; RESULTS-issue21.md, lin-kv4). An epoch began
    // by its put's return at the latest, so a put that returned before another's epoch was
    // first seen is tried first; and an epoch a cannot come before an epoch b when a get
    // that saw a was called by the time b had begun (that get would follow b's put): an
    // insertion pass moves b before a, its moves bounded (a hint: never a verdict).
    let refined = epochOf.size === puts.length;
    for (let e = 0; e < puts.length && refined; e++) if (ret[puts[e]] === Infinity) refined = false;
    if (refined) {
      for (let e = 1; e <= puts.length; e++) {
        const r = ret[puts[e - 1]];
        if (firstSeen[e] !== Infinity && r < firstSeen[e]) firstSeen[e] = r;
      }
    }
    const order: number[] = [];
    for (let e = 1; e <= puts.length; e++) if (firstSeen[e] !== Infinity) order.push(e);
    order.sort((x, y) => firstSeen[x] - firstSeen[y] || x - y);
    if (refined) {
      const lastCall = new Float64Array(puts.length + 1).fill(-Infinity);
      for (let k = 0; k < gets.length; k++) {
        const c = call[gets[k]];
        if (c > lastCall[epochs[k]]) lastCall[epochs[k]] = c;
      }
      let moves = 8 * order.length;
      for (let i = 1; i < order.length && moves > 0; i++) {
        for (let j = i; j > 0 && moves > 0 && lastCall[order[j - 1]] >= firstSeen[order[j]]; j--, moves--) {
          const b = order[j];
          order[j] = order[j - 1];
          order[j - 1] = b;
        }
      }
    }
    const rank = new Float64Array(puts.length + 1).fill(-1);
    rank[0] = 0;
    order.forEach((e, r) => (rank[e] = r + 1));
    // A Float64Array, not `order.map`: a plain array's elements kind (small integers or
    // doubles) follows the times, and lastEnd was deoptimized at each change of it.
    const seen = new Float64Array(order.length);
    // Ascending (lastEnd's binary search), though the moves above may leave the times out of order.
    for (let r = 0; r < order.length; r++) seen[r] = r > 0 && seen[r - 1] > firstSeen[order[r]] ? seen[r - 1] : firstSeen[order[r]];
    for (let e = 0; e < puts.length; e++) out[puts[e]] = rank[e + 1] >= 0 ? rank[e + 1] * MAX : lastEnd(seen, call[puts[e]]);
    // Where each append sits: its offset in the longest string gets saw in its epoch (an
    // epoch's strings grow by appends; a value is in one epoch at most). Its epoch is the
    // one last seen by its call or a later one: the next 8 are searched.
    const longestIn = new Array<string>(puts.length + 1).fill('');
    for (let k = 0; k < gets.length; k++) {
      const w = text[gets[k]];
      const e = epochs[k];
      if (w.length > longestIn[e].length) longestIn[e] = w;
    }
    const byRank = [0, ...order];
    // Values in no get's string are never searched for (absentFrom, linear); the others at
    // most PRIORITY_SEARCH_CHARS characters in all (a hint: past it, where no get saw them).
    // The filter only where the searches could be long (it costs passes of its own).
    let total = 0;
    for (const w of longestIn) total += w.length;
    let absent: boolean[] | undefined;
    if (appends.length * total > PRIORITY_FILTER_CHARS) {
      const values = new Array<string>(appends.length);
      for (let j = 0; j < appends.length; j++) values[j] = text[appends[j]];
      absent = absentFrom(longestIn, values, deadline);
    }
    for (let j = 0; j < appends.length; j++) {
      const i = appends[j];
      const v = text[i];
      const end = lastEnd(seen, call[i]);
      out[i] = end;
      if ((absent !== undefined && absent[j]) || searched > PRIORITY_SEARCH_CHARS) continue;
      for (let r = Math.floor(end / MAX); r < byRank.length && r * MAX <= end + 8 * MAX; r++) {
        const s = longestIn[byRank[r]];
        const at = s.indexOf(v);
        searched += at >= 0 ? at + v.length : s.length;
        if (at >= 0) {
          out[i] = r * MAX + Math.min(at + 1, MAX - 2);
          break;
        }
      }
      if ((j & 1023) === 1023) checkDeadline(deadline);
    }
  }
  scanned.chars += searched;
  return out;
}

/** Appends x characters of the gets' strings past which priority filters the values first. */
const PRIORITY_FILTER_CHARS = 1 << 24;
/** Characters priority's searches of the gets' strings may scan (per call). */
const PRIORITY_SEARCH_CHARS = 1 << 27;

/** Offsets in an epoch are below MAX; epochs scale above it. */
const MAX = 2 ** 26;

function sortByCall(ids: number[], call: Float64Array): void {
  ids.sort((a, b) => call[a] - call[b] || a - b);
}

/** The epoch of a get's string: the put whose value starts it (0: none). */
function epochOfString(w: string, lengths: readonly number[], epochOf: ReadonlyMap<string, number>): number {
  for (const l of lengths) {
    const e = epochOf.get(w.slice(0, l));
    if (e !== undefined) return e;
  }
  return 0;
}

/** The end of the epoch last seen by time t (seen: by when each epoch was, ascending): where updates no get saw go. */
function lastEnd(seen: Float64Array, t: number): number {
  let lo = 0;
  let hi = seen.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seen[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo * MAX + (MAX - 1);
}

// Times in a Float64Array: a plain array of them is of small integers or of doubles by the
// history, and `ascending` was deoptimized (wrong map) at each change (issue 21, lin-kv).
function ascending(xs: Float64Array): boolean {
  for (let i = 1; i < xs.length; i++) if (xs[i] < xs[i - 1]) return false;
  return true;
}

/** Whether the puts (appends) are in the order of their returns (ret) or calls. */
function ascendingBy(ps: readonly Put[], ret: boolean): boolean {
  for (let i = 1; i < ps.length; i++) {
    if (ret ? ps[i].ret < ps[i - 1].ret : ps[i].call < ps[i - 1].call) return false;
  }
  return true;
}

/** Required appends checked per (get, put): enough for a proof, bounded for long strings. */
const REQUIRED_APPENDS = 32;

interface Put {
  i: number;
  call: number;
  ret: number;
  value: string;
}

/**
 * Whether the appends returned before the get's call (appends[0 .. done), by return),
 * latest first, that were called after `after` (a put's return) each have their value in
 * s from `from` on.
 */
function required(appends: readonly Put[], done: number, after: number, s: string, from: number): boolean {
  // By return, latest first: once one returned by `after`, none later was called after it.
  for (let a = done - 1, checked = 0; a >= 0 && checked < REQUIRED_APPENDS && appends[a].ret > after; a--, checked++) {
    const A = appends[a];
    if (A.call > after && s.lastIndexOf(A.value) < from) return false;
  }
  return true;
}

/**
 * A get whose string no linearization can produce. At the get, the key's string is the
 * value of the last put before it (P; none: '') followed by the appends between the two.
 * P was called before the get returned, and no other put Q fits between them (Q called
 * after P returned and returned before the get's call); every append called after P
 * returned and returned before the get's call lies between them, so its value is in the
 * string after P's. A get for which no P (nor none) passes these is refuted. Only the
 * latest REQUIRED_APPENDS appends returned before the get's call are looked at (fewer
 * checks refute less, never wrongly). Equal call and return times count as concurrent.
 * Per get, the work is the puts that could still be last (returned after the latest call
 * of a put returned before the get's call; crashed puts stay candidates). Before that, a
 * get whose string no put wrote and no append's value ends (Endings) is refuted. On keys of
 * up to ORDER_MAX_OPS operations, an append concurrent with P that another get's string
 * shows after P (AfterPut) and that returned before the get's call is between them too.
 */
function refute(history: readonly Operation<KvInput, unknown>[]): Refutation | undefined {
  const keys = new KeyIndex();
  const byKey: { puts: Put[]; appends: Put[]; otherAppends: Put[]; gets: number[]; bad: boolean; endings: Endings }[] = [];
  const open = history.length > ENDINGS_MAX_OPS;
  for (let i = 0; i < history.length; i++) {
    const op = history[i];
    const input = op.input;
    const k = (byKey[keys.of(input.key)] ??= { puts: [], appends: [], otherAppends: [], gets: [], bad: false, endings: new Endings(open) });
    const f = input.f;
    if (f === 'get') {
      if (op.ret !== undefined && typeof op.output === 'string') k.gets.push(i);
    } else if ((f === 'put' || f === 'append') && typeof input.value === 'string') {
      const ret = op.ret ?? Infinity;
      if (f === 'put') k.puts.push({ i, call: op.call, ret, value: input.value });
      else if (ret !== Infinity && input.value !== '') k.appends.push({ i, call: op.call, ret, value: input.value });
      else k.otherAppends.push({ i, call: op.call, ret, value: input.value });
      k.endings.add(f, input.value);
    } else k.bad = true; // the step would throw: the search reports it
  }
  // end: the later return of the get refuted and of the get it is refuted with (a pair):
  // the earliest wins (the search's bound, the longest partial linearization, is smaller).
  let found: { i: number; and: number; end: number; why: string } | undefined;
  for (const { puts, appends, otherAppends, gets, bad, endings } of byKey) {
    if (bad) continue;
    // Made when a get first needs it (an append concurrent with the put, returned before the
    // get's call, whose value the get's string lacks), for keys of up to ORDER_MAX_OPS operations.
    let order: AfterPut | null | undefined = puts.length + appends.length + otherAppends.length + gets.length > ORDER_MAX_OPS ? null : undefined;
    // Histories come in call order, mostly: sorted only when they are not.
    const getCalls = new Float64Array(gets.length);
    for (let k = 0; k < gets.length; k++) getCalls[k] = history[gets[k]].call;
    if (!ascending(getCalls)) {
      const order = gets.map((_, k) => k).sort((a, b) => getCalls[a] - getCalls[b] || gets[a] - gets[b]);
      const sorted = order.map((k) => gets[k]);
      gets.splice(0, gets.length, ...sorted);
    }
    if (!ascendingBy(puts, false)) puts.sort((a, b) => a.call - b.call);
    const putsByRet = puts.filter((p) => p.ret !== Infinity);
    if (!ascendingBy(putsByRet, true)) putsByRet.sort((a, b) => a.ret - b.ret);
    if (!ascendingBy(appends, true)) appends.sort((a, b) => a.ret - b.ret);
    // latestCall: the latest call of a put returned before the get's call; a put that
    // returned before it cannot be last (that put comes after it and before the get).
    let latestCall = -Infinity;
    let returned = 0;
    let added = 0;
    let done = 0;
    let reach = -Infinity;
    let live: Put[] = [];
    for (const g of gets) {
      const G = history[g];
      const s = G.output as string;
      const call = G.call;
      const ret = G.ret!;
      if (!endings.possible(s)) {
        if (found === undefined || ret < found.end) found = { i: g, and: -1, end: ret, why: `no put writes ${show(s)} and no append's value ends it` };
        break;
      }
      const before = latestCall;
      while (returned < putsByRet.length && putsByRet[returned].ret < call) latestCall = Math.max(latestCall, putsByRet[returned++].call);
      if (ret > reach) reach = ret;
      while (added < puts.length && puts[added].call <= reach) live.push(puts[added++]);
      if (latestCall !== before) {
        let kept = 0;
        for (const p of live) if (p.ret >= latestCall) live[kept++] = p;
        live.length = kept;
      }
      while (done < appends.length && appends[done].ret < call) done++;
      let possible = latestCall === -Infinity && required(appends, done, -Infinity, s, 0);
      // A get whose string shows, after a candidate put, an append this one's lacks, and that
      // returned after this one was called: the proof is for the pair (one such get for
      // every candidate so refuted; a second one leaves this get unrefuted).
      let pair = -1;
      // The latest called first: the put last before a get is most often a recent one.
      for (let k = live.length - 1; k >= 0 && !possible; k--) {
        const P = live[k];
        possible = P.call <= ret && s.startsWith(P.value) && required(appends, done, P.ret, s, P.value.length);
        if (possible && order !== null && unshown(appends, done, P, s) >= 0) {
          order ??= afterPut(history, puts, appends, otherAppends, gets);
          const by = order === null ? -1 : order.shownAfter(appends, done, P, s);
          if (by >= 0 && by !== g && (history[by].ret! < call || pair < 0 || pair === by)) {
            possible = false;
            if (history[by].ret! >= call) pair = by;
          }
        }
      }
      if (!possible) {
        const end = pair < 0 ? ret : Math.max(ret, history[pair].ret!);
        if (found === undefined || end < found.end) found = { i: g, and: pair, end, why: `no put and the appends that must come between it and this get give ${show(s)}${pair < 0 ? '' : ' (with the other get: its string shows an append after the put that this one lacks)'}` };
        break;
      }
    }
  }
  if (found === undefined) return undefined;
  return found.and < 0 ? { operation: found.i, why: found.why } : { operation: found.i, and: found.and, why: found.why };
}

/**
 * The first of the appends returned before the get's call (appends[0 .. done), by return,
 * latest first) that ran concurrently with put P (called by its return, returned after its
 * call: `required` leaves them out) and whose value is not in s past P's: -1 if none.
 */
function unshown(appends: readonly Put[], done: number, P: Put, s: string): number {
  for (let a = done - 1, checked = 0; a >= 0 && checked < REQUIRED_APPENDS && appends[a].ret > P.call; a--, checked++) {
    const A = appends[a];
    if (A.call <= P.ret && s.lastIndexOf(A.value) < P.value.length) return a;
  }
  return -1;
}

/** Keys of more operations than this are not read for AfterPut (a pass over every get's string). */
const ORDER_MAX_OPS = 64;

/**
 * Appends some get's string shows after a put, in every linearization: where a get's
 * string can be read in only one way as a put's value (or none) followed by values of
 * appends, the last put before that get is that put and the appends are after it. Read
 * only where every put and every append of the key wrote its own non-empty value (a value
 * then names its operation) of at most MAX_ENDING_LENGTHS lengths; "one way" is counted
 * over any sequence of the appends' values (repeats too: more readings than the
 * linearizations can give, so one reading is the only one). Such an append, returned
 * before a later get was called, lies between that put and the get whenever the put is
 * the last before the get, so its value is in the get's string past the put's: a stale
 * get that the per-get rule (appends called after the put returned) cannot refute.
 */
class AfterPut {
  /** (append, put) -> the get (history index) of the earliest return whose string shows the append after the put. */
  declare private readonly shownBy: Map<number, number>;
  declare private readonly rets: Float64Array;
  declare private readonly n: number;

  constructor(n: number) {
    this.shownBy = new Map();
    this.rets = new Float64Array(n);
    this.n = n;
  }

  add(append: number, put: number, get: number, ret: number): void {
    const key = append * this.n + put;
    const by = this.shownBy.get(key);
    if (by === undefined || ret < this.rets[by]) {
      this.shownBy.set(key, get);
      this.rets[get] = ret;
    }
  }

  /**
   * The get (history index; -1: none) of the earliest return that shows after P an append
   * of `unshown`'s (for the get's string s and put P). Returned before this get's call, it
   * comes first in every partial linearization that holds this one, so none holds this one
   * with P last before it; returned later, none holds both with P last before this one (the
   * proof's contract: the search bounds its longest by it, wgl.ts and small.ts).
   */
  shownAfter(appends: readonly Put[], done: number, P: Put, s: string): number {
    let best = -1;
    for (let a = done - 1, checked = 0; a >= 0 && checked < REQUIRED_APPENDS && appends[a].ret > P.call; a--, checked++) {
      const A = appends[a];
      if (A.call > P.ret || s.lastIndexOf(A.value) >= P.value.length) continue;
      const by = this.shownBy.get(A.i * this.n + P.i);
      if (by !== undefined && (best < 0 || this.rets[by] < this.rets[best])) best = by;
    }
    return best;
  }
}

/** The key's AfterPut, or null where its values do not name their operations. */
function afterPut(history: readonly Operation<KvInput, unknown>[], puts: readonly Put[], appends: readonly Put[], otherAppends: readonly Put[], gets: readonly number[]): AfterPut | null {
  const putOf = new Map<string, number>();
  for (const P of puts) {
    if (P.value === '' || putOf.has(P.value)) return null;
    putOf.set(P.value, P.i);
  }
  const appendOf = new Map<string, number>();
  const lengths: number[] = [];
  for (const list of [appends, otherAppends]) {
    for (const A of list) {
      if (A.value === '' || appendOf.has(A.value)) return null;
      appendOf.set(A.value, A.i);
      if (!lengths.includes(A.value.length)) {
        if (lengths.length === MAX_ENDING_LENGTHS) return null;
        lengths.push(A.value.length);
      }
    }
  }
  const order = new AfterPut(history.length);
  const ways: number[] = [];
  for (const g of gets) {
    const s = history[g].output as string;
    // The readings: no put (from 0) or a put whose value starts s, then appends' values to the end.
    let readings = 0;
    let from = -1;
    if (readsAsAppends(s, 0, lengths, appendOf, ways) > 0) {
      readings += ways[s.length];
      from = 0;
    }
    for (const P of puts) {
      if (readings > 1) break;
      if (!s.startsWith(P.value) || readsAsAppends(s, P.value.length, lengths, appendOf, ways) === 0) continue;
      readings += ways[s.length];
      from = P.value.length;
    }
    if (readings !== 1 || from === 0) continue;
    const put = putOf.get(s.slice(0, from))!;
    readsAsAppends(s, from, lengths, appendOf, ways);
    // Back from the end: one reading, so one value ends each prefix that has a reading.
    for (let at = s.length; at > from; ) {
      let l = 0;
      for (const m of lengths) if (m <= at - from && ways[at - m] > 0 && appendOf.has(s.slice(at - m, at))) l = m;
      order.add(appendOf.get(s.slice(at - l, at))!, put, g, history[g].ret!);
      at -= l;
    }
  }
  return order;
}

/**
 * ways[at] (capped at 2): the readings of s[from .. at) as a sequence of the appends'
 * values, for at from `from` to s.length; returns ways[s.length].
 */
function readsAsAppends(s: string, from: number, lengths: readonly number[], appendOf: ReadonlyMap<string, number>, ways: number[]): number {
  ways.length = 0;
  for (let at = 0; at <= s.length; at++) ways.push(at === from ? 1 : 0);
  for (let at = from; at < s.length; at++) {
    const w = ways[at];
    if (w === 0) continue;
    for (const m of lengths) {
      if (at + m <= s.length && appendOf.has(s.slice(at, at + m))) ways[at + m] = Math.min(2, ways[at + m] + w);
    }
  }
  return ways[s.length];
}

/** Distinct append value lengths beyond which Endings gives up (answers possible). */
const MAX_ENDING_LENGTHS = 8;
/**
 * Histories (partitions) longer than this are not checked for Endings: on the issue's
 * 100,000-operation example the pass added 20-40 ms to refute's 30-80, for a search that
 * needs none of it; the rule is for the small partitions with many clients, where a get of
 * a value never written could otherwise cost the search thousands of configurations.
 */
const ENDINGS_MAX_OPS = 4096;

/**
 * How a key's string can end, whenever the operations ran (crashed ones too): a non-empty
 * string is the value of the last put before it, or ends with the value of the last append
 * (an empty append would leave the one before last: then anything is possible). Checked
 * by the suffixes of the few lengths the appends' values have.
 */
class Endings {
  // Declared and set in the constructor (KvValue's fields say why).
  declare private open: boolean;
  declare private readonly puts: Set<string>;
  declare private readonly appends: Set<string>;
  declare private readonly lengths: number[];

  constructor(open: boolean) {
    this.open = open;
    this.puts = new Set();
    this.appends = new Set();
    this.lengths = [];
  }

  add(f: 'put' | 'append', value: string): void {
    if (this.open) return;
    if (f === 'put') this.puts.add(value);
    else if (value === '') this.open = true;
    else if (!this.appends.has(value)) {
      this.appends.add(value);
      if (!this.lengths.includes(value.length)) {
        this.lengths.push(value.length);
        if (this.lengths.length > MAX_ENDING_LENGTHS) this.open = true;
      }
    }
  }

  possible(s: string): boolean {
    if (this.open || s === '' || this.puts.has(s)) return true;
    for (const n of this.lengths) if (n <= s.length && this.appends.has(s.slice(s.length - n))) return true;
    return false;
  }
}

/**
 * The values met during one check, hash-consed: each distinct string gets one small id,
 * and an append is looked up from (old id, suffix) without touching the old string. Map
 * states are then arrays of ids, compared and hashed as integers. The table belongs to
 * one check (init makes a fresh one) and only grows: states stay immutable.
 */
class ValueTable {
  readonly strings: string[] = [''];
  private readonly hashes: number[] = [0];
  /** Ids by hashString: the latest id with that hash, then a chain through sameHash. */
  private readonly byHash = new IntPairMap();
  private readonly sameHash: number[] = [-1];
  /** (value id, suffix id) -> id of the value with the suffix appended. */
  private readonly appended = new IntPairMap();
  private readonly suffixIds = new Map<string, number>();
  readonly keys: string[] = [];
  private readonly keyIds = new Map<string, number>();

  keyId(key: string): number {
    let k = this.keyIds.get(key);
    if (k === undefined) {
      k = this.keys.length;
      this.keys.push(key);
      this.keyIds.set(key, k);
    }
    return k;
  }

  /** The id of string `v`, whose hashString is `h`. */
  intern(v: string, h: number): number {
    if (v.length === 0) return 0;
    const latest = this.byHash.get(h, 0);
    for (let id = latest; id !== -1; id = this.sameHash[id]) if (this.strings[id] === v) return id;
    const id = this.strings.length;
    this.strings.push(v);
    this.hashes.push(h);
    this.sameHash.push(latest);
    if (latest === -1) this.byHash.add(h, 0, id);
    else this.byHash.set(h, 0, id);
    return id;
  }

  /** The id of strings[id] + t. */
  append(id: number, t: string): number {
    let suffix = this.suffixIds.get(t);
    if (suffix === undefined) {
      suffix = this.suffixIds.size;
      this.suffixIds.set(t, suffix);
    }
    let child = this.appended.get(id, suffix);
    if (child === -1) {
      child = t.length === 0 ? id : this.intern(this.strings[id] + t, appendHash(this.hashes[id], t));
      this.appended.add(id, suffix, child);
    }
    return child;
  }
}

/** Pieces of a value that KvValue.is compares with a string before hashing it. */
const PIECES_COMPARED = 32;

/** hashString mod 2^30: a small integer, stored in an object without boxing. */
const HASH_MASK = 0x3fffffff;

/** What the values of one check share: the hashes of the strings gets returned. */
class KvCheck {
  // Declared and set in the constructor (KvValue's fields say why): one KvCheck per key's search.
  /** Made when first needed: KvValue.is hashes a get's string only past a long chain. */
  declare private outputHashes: Map<string, number> | undefined;
  declare readonly empty: KvValue;

  /**
   * Every string holding a value no get of the history returns (Model.abstraction): no get
   * fits until the next put. Its length (-1) matches no get's output. Made at the first
   * abstraction (wgl.ts's searches only): a 10-operation check inits a KvCheck per key.
   */
  declare poisoned: KvValue | undefined;

  constructor() {
    this.outputHashes = undefined;
    this.empty = new KvValue(this, undefined, '', 0, 0);
    this.poisoned = undefined;
  }

  /** hashString(v) & HASH_MASK, computed once per string a get returned. */
  hashOf(v: string): number {
    const hashes = (this.outputHashes ??= new Map());
    let h = hashes.get(v);
    if (h === undefined) {
      h = hashString(v) & HASH_MASK;
      hashes.set(v, h);
    }
    return h;
  }
}

/**
 * One key's value: parent's string followed by suffix (no parent: suffix alone). A step
 * (Model.next) allocates one object: the value it leads to, if new.
 */
export class KvValue {
  // Declared, and set once in the constructor in one order: as ES2022 class fields (the
  // parameter properties too) each would be defined and then stored again, at every step.
  declare private text: string | undefined;
  declare readonly check: KvCheck;
  declare private readonly parent: KvValue | undefined;
  declare private readonly suffix: string;
  /** hashString of the whole string, & HASH_MASK. */
  declare readonly hash: number;
  declare readonly length: number;

  constructor(check: KvCheck, parent: KvValue | undefined, suffix: string, hash: number, length: number) {
    this.text = undefined;
    this.check = check;
    this.parent = parent;
    this.suffix = suffix;
    this.hash = hash;
    this.length = length;
  }

  /**
   * Whether this string is v. Its pieces are compared where they sit in v, the last first,
   * back to a value whose string is known (one that matched a get before: it keeps that
   * get's string, no copy): a value is mostly told from v by its last pieces, and a first
   * check does not hash v in the interpreter (a kv-append 1,000-operation history's gets
   * return ~10,000 characters). Past PIECES_COMPARED pieces (long chains no get looked at)
   * v's hash decides, once per string, and then the whole string.
   */
  is(v: string): boolean {
    if (v.length !== this.length) return false;
    let node: KvValue = this;
    for (let k = 0; k < PIECES_COMPARED; k++) {
      const text = node.text;
      if (text !== undefined) {
        // A string built through the poisoned value is one longer than its length: never v.
        if (text.length !== node.length || (text !== v && !v.startsWith(text))) return false;
        this.text ??= v;
        return true;
      }
      const suffix = node.suffix;
      if (!v.startsWith(suffix, node.length - suffix.length)) return false;
      const parent = node.parent;
      if (parent === undefined) {
        // The first piece of the string, or the poisoned value (length -1): never a string.
        if (node.length !== suffix.length) return false;
        this.text ??= v;
        return true;
      }
      node = parent;
    }
    return this.check.hashOf(v) === this.hash && v === this.toString();
  }

  equals(other: KvValue): boolean {
    return this === other || (this.hash === other.hash && this.length === other.length && this.toString() === other.toString());
  }

  /** The poisoned string if this one is (its last piece a value in `unseen`, or appended to the poisoned string), else itself. */
  abstracted(unseen: ReadonlySet<string>): KvValue {
    const poisoned = (this.check.poisoned ??= new KvValue(this.check, undefined, '', 0, -1));
    return this !== poisoned && (this.parent === poisoned || unseen.has(this.suffix)) ? poisoned : this;
  }

  toString(): string {
    if (this.text === undefined) {
      // Back to the nearest value whose string is known (one a get matched, or built
      // before), not to the first put: a long append chain is joined once, not per value.
      const parts: string[] = [];
      let v: KvValue | undefined = this;
      for (; v !== undefined && v.text === undefined; v = v.parent) parts.push(v.suffix);
      if (v !== undefined) parts.push(v.text!);
      this.text = parts.reverse().join('');
    }
    return this.text;
  }
}

function nextValue(s: KvValue, input: KvInput, output: unknown): KvValue | Illegal {
  switch (input.f) {
    case 'get':
      return output === UNKNOWN || (typeof output === 'string' && s.is(output)) ? s : ILLEGAL;
    // The value's type checked here, not by argument's call: a first check pays ~1.5 us for
    // each function it calls for the first time (RESULTS-issue21.md, lin-10e).
    case 'put': {
      const v = input.value;
      if (typeof v !== 'string') notAString(input);
      return new KvValue(s.check, undefined, v, hashString(v) & HASH_MASK, v.length);
    }
    case 'append': {
      const t = input.value;
      if (typeof t !== 'string') notAString(input);
      return t.length === 0 ? s : new KvValue(s.check, s, t, appendHash(s.hash, t) & HASH_MASK, s.length + t.length);
    }
  }
  return unknownOperation(input);
}

/** The store for one key: used with partitioning, where each key is its own history. */
export const kvAppend: Model<KvValue, KvInput, unknown> = {
  name: 'kv-append',
  init: () => new KvCheck().empty,
  step: stepFrom(nextValue),
  next: nextValue,
  partition: partitionByKey,
  partitionIndices: indicesByKey,
  readOnly: (input) => input.f === 'get',
  unobserved,
  priority,
  refute,
  abstraction,
  hash: (s) => fmix32(s.hash),
  equal: (a, b) => a.equals(b),
  describeOperation,
  describeState: (s) => show(s.toString()),
};

/**
 * Every key's value id (index: the table's key id; missing or 0: ''), and a hash. Only
 * states of one check (one init) are comparable.
 */
export interface KvMap {
  table: ValueTable;
  ids: readonly number[];
  hash: number;
}

/** A key's share of the map's hash; '' contributes nothing, like an absent key. */
function entryHash(key: number, value: number): number {
  return value === 0 ? 0 : fmix32(Math.imul(key + 1, 0x9e3779b1) ^ Math.imul(value, 0x85ebca77));
}

function withValue(m: KvMap, key: number, value: number): KvMap {
  const ids = m.ids.slice();
  while (ids.length <= key) ids.push(0);
  const old = ids[key];
  ids[key] = value;
  return { table: m.table, ids, hash: m.hash ^ entryHash(key, old) ^ entryHash(key, value) };
}

function mapEqual(a: KvMap, b: KvMap): boolean {
  if (a.hash !== b.hash) return false;
  const n = Math.max(a.ids.length, b.ids.length);
  for (let i = 0; i < n; i++) if ((a.ids[i] ?? 0) !== (b.ids[i] ?? 0)) return false;
  return true;
}

function nextMap(m: KvMap, input: KvInput, output: unknown): KvMap | Illegal {
  if (typeof input.key !== 'string') throw new Error(`kv: expects a string key, got ${show(input.key)}`);
  const key = m.table.keyId(input.key);
  const id = key < m.ids.length ? m.ids[key] : 0;
  switch (input.f) {
    case 'get':
      return output === UNKNOWN || output === m.table.strings[id] ? m : ILLEGAL;
    case 'put': {
      const v = argument(input);
      return withValue(m, key, m.table.intern(v, hashString(v)));
    }
    case 'append':
      return withValue(m, key, m.table.append(id, argument(input)));
  }
  return unknownOperation(input);
}

/** The store with one state for all keys (no partitioning). */
export const kvAppendUnpartitioned: Model<KvMap, KvInput, unknown> = {
  name: 'kv-append-unpartitioned',
  init: () => ({ table: new ValueTable(), ids: [], hash: 0 }),
  step: stepFrom(nextMap),
  next: nextMap,
  readOnly: (input) => input.f === 'get',
  unobserved,
  priority,
  refute,
  hash: (m) => m.hash,
  equal: mapEqual,
  describeOperation,
  describeState: (m) =>
    `{${m.table.keys
      .map((k, i) => [k, m.table.strings[m.ids[i] ?? 0]] as const)
      .filter(([, v]) => v !== '')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${show(k)}: ${show(v)}`)
      .join(', ')}}`,
};
