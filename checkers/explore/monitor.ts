// Linearizability while exploring: every state carries the set of ways the client history
// that led to it can still be linearized, so a state whose set is empty is a violation,
// found at the shortest prefix in BFS. The set is "just in time" (Lowe, "Testing for
// linearizability", 2017): an operation is linearized no later than its return; other
// pending operations are linearized only when that return needs them first.
//
// A configuration is [model state, per client: null or [before, after], indeterminate
// inputs]. Per client, null means the client's pending operation (if any) has not taken
// effect yet; [before, after] means it already took effect, from model state `before` to
// `after`, with its output still unknown: it is checked at the return, when
// `after` must be a legal successor of `before` for the real output. The indeterminate
// inputs are those of crashed operations that have not taken effect (a multiset, sorted):
// each may take effect once, later, or never.
//
// Assumption on the model, checked at every return (a model that breaks it raises an
// error naming it, rather than giving a wrong answer): the legal successors of a state
// for an input and a known output are among the successors for the output UNKNOWN, or
// the state itself (an operation that returned without effect, like a failed cas).

import { SpecError } from './errors.ts';
import { encodeValue, fingerprint, Words } from './encode.ts';
import { canonicalJson } from './reference.ts';
import { layoutOf } from './layout-search.ts';
import type { Action, Check, HistoryObserver, Machine, ObservedEvent, Symmetry, WordLayout } from './types.ts';
import { UNKNOWN, type Model, type NondeterministicModel } from '../lin/types.ts';

/** An operation that took effect before returning: the model states around it. */
type Linearized = [before: unknown, after: unknown];
export type Config = [state: unknown, lin: (Linearized | null)[], indeterminate: unknown[]];

/** The monitor's part of a state: plain data in a canonical form, so it hashes with the state. */
export interface MonitorState {
  /** Per client: its pending operation's input, or null when it has none. */
  pending: ({ input: unknown } | null)[];
  /** The possible configurations, deduplicated and sorted by their canonical encoding. Empty: not linearizable. */
  configs: Config[];
}

/**
 * The history that led to a state, newest event first, each with the monitor state it met
 * (to describe it in the model's words only when a counterexample is reported): a step
 * adds one link and shares the rest.
 */
export interface HistoryLink {
  prev: HistoryLink | null;
  before: MonitorState;
  e: ObservedEvent;
}

/** A state of the monitored machine. `h` (the history) is not part of the view. */
export interface Monitored<S> {
  s: S;
  m: MonitorState;
  h: HistoryLink | null;
}

/** A model as a set-valued step, whatever its kind. */
export interface Stepper {
  name: string;
  init(): unknown[];
  step(state: unknown, input: unknown, output: unknown): unknown[];
  describeOperation(input: unknown, output: unknown): string;
  describeState(state: unknown): string;
}

export function stepper(model: Model | NondeterministicModel): Stepper {
  const describeOperation = (input: unknown, output: unknown) =>
    model.describeOperation ? model.describeOperation(input, output) : `${canonicalJson(input)} -> ${output === UNKNOWN ? '?' : canonicalJson(output)}`;
  const describeState = (s: unknown) => (model.describeState ? model.describeState(s) : canonicalJson(s));
  if ((model as NondeterministicModel).nondeterministic) {
    const m = model as NondeterministicModel;
    return { name: m.name, init: () => m.init(), step: (s, i, o) => m.step(s, i, o), describeOperation, describeState };
  }
  const m = model as Model;
  return {
    name: m.name,
    init: () => [m.init()],
    step(s, i, o) {
      const r = m.step(s, i, o);
      return r.ok ? [r.state] : [];
    },
    describeOperation,
    describeState,
  };
}

function normalize(configs: Config[]): Config[] {
  const byKey = new Map<string, Config>();
  for (const c of configs) byKey.set(canonicalJson(c), c);
  return [...byKey.keys()].sort().map((k) => byKey.get(k)!);
}

export function initialMonitor(model: Stepper, clients: number): MonitorState {
  const lin = Array<null>(clients).fill(null);
  return { pending: Array(clients).fill(null), configs: normalize(model.init().map((q) => [q, lin, []])) };
}

function setAt<T>(xs: readonly T[], i: number, v: T): T[] {
  const out = xs.slice();
  out[i] = v;
  return out;
}

/**
 * Every configuration reachable from `start` by letting pending operations other than
 * `client`'s, and indeterminate ones, take effect, in any order, followed by `client`'s
 * operation returning `output`.
 */
function settle(model: Stepper, m: MonitorState, start: Config, client: number, output: unknown, out: Config[]): void {
  const input = m.pending[client]!.input;
  const seen = new Set<string>([canonicalJson(start)]);
  const stack: Config[] = [start];
  const push = (c: Config) => {
    const k = canonicalJson(c);
    if (!seen.has(k)) {
      seen.add(k);
      stack.push(c);
    }
  };
  while (stack.length > 0) {
    const [q, lin, ind] = stack.pop()!;
    const mine = lin[client];
    if (mine === null) {
      for (const q2 of model.step(q, input, output)) out.push([q2, lin, ind]);
    } else {
      const [before, after] = mine;
      const legal = model.step(before, input, output).map(canonicalJson);
      const afterKey = canonicalJson(after);
      if (legal.includes(afterKey)) out.push([q, setAt(lin, client, null), ind]);
      const covered = new Set([canonicalJson(before), ...model.step(before, input, UNKNOWN).map(canonicalJson)]);
      const missed = legal.find((k) => !covered.has(k));
      if (missed !== undefined) {
        throw new Error(
          `linearizability monitor: model ${model.name}: ${model.describeOperation(input, output)} from ${model.describeState(before)} ` +
            `leads to ${missed}, which the same operation with an unknown output does not; ` +
            'the monitor needs the unknown-output step to cover every legal outcome',
        );
      }
    }
    for (let d = 0; d < lin.length; d++) {
      if (d === client || lin[d] !== null || m.pending[d] === null) continue;
      const din = m.pending[d]!.input;
      // An operation that takes effect before its return: as UNKNOWN says, or without
      // changing the state (both checked against the real output at its return).
      for (const q2 of model.step(q, din, UNKNOWN)) push([q2, setAt(lin, d, [q, q2]), ind]);
      push([q, setAt(lin, d, [q, q]), ind]);
    }
    for (let j = 0; j < ind.length; j++) {
      if (j > 0 && canonicalJson(ind[j]) === canonicalJson(ind[j - 1])) continue;
      const rest = ind.slice(0, j).concat(ind.slice(j + 1));
      for (const q2 of model.step(q, ind[j], UNKNOWN)) push([q2, lin, rest]);
    }
  }
}

function sortedInsert(xs: readonly unknown[], x: unknown): unknown[] {
  const k = canonicalJson(x);
  const out = xs.slice();
  let i = 0;
  while (i < out.length && canonicalJson(out[i]) <= k) i++;
  out.splice(i, 0, x);
  return out;
}

/** The monitor after one history event. Throws on an event the history cannot have. */
export function advance(model: Stepper, m: MonitorState, e: ObservedEvent): MonitorState {
  const c = e.client;
  if (!Number.isInteger(c) || c < 0 || c >= m.pending.length) {
    throw new Error(`linearizability monitor: event for client ${c}, but the observer declares clients 0..${m.pending.length - 1}`);
  }
  if (e.kind === 'invoke') {
    if (m.pending[c] !== null) throw new Error(`linearizability monitor: client ${c} invokes while its previous operation is pending`);
    return { pending: setAt(m.pending, c, { input: e.input }), configs: m.configs };
  }
  if (m.pending[c] === null) throw new Error(`linearizability monitor: ${e.kind} for client ${c}, which has no pending operation`);
  const pending = setAt(m.pending, c, null);
  const configs: Config[] = [];
  for (const cfg of m.configs) {
    const [q, lin, ind] = cfg;
    switch (e.kind) {
      case 'return':
        settle(model, m, cfg, c, e.output, configs);
        break;
      case 'crash':
        // Not yet in effect: it may still take effect, once, or never.
        if (lin[c] === null) configs.push([q, lin, sortedInsert(ind, m.pending[c]!.input)]);
        else configs.push([q, setAt(lin, c, null), ind]);
        break;
      case 'fail':
        if (lin[c] === null) configs.push(cfg);
        break;
    }
  }
  return { pending, configs: normalize(configs) };
}

function describeEvent(model: Stepper, m: MonitorState, e: ObservedEvent): string {
  switch (e.kind) {
    case 'invoke':
      return `c${e.client} calls ${model.describeOperation(e.input, UNKNOWN)}`;
    case 'return':
      return `c${e.client} returns ${model.describeOperation(m.pending[e.client]?.input, e.output)}`;
    case 'crash':
      return `c${e.client} crashes during ${model.describeOperation(m.pending[e.client]?.input, UNKNOWN)}`;
    case 'fail':
      return `c${e.client} fails ${model.describeOperation(m.pending[e.client]?.input, UNKNOWN)}`;
  }
}

// What the monitor works out once per distinct monitor state, kept on the (interned)
// object itself under a symbol, which no encoding, JSON or equality sees: its canonical
// words, their 128-bit hash, and its successors by event id. A monitor state that did not
// come from this table (a symmetry's renaming of one, a state moved between workers) has
// none: it is encoded on the spot, or, to be advanced, replaced by its interned twin.
const KNOWN = Symbol('monitor state: words and successors');

interface Known {
  words: Int32Array;
  /** Two 64-bit fingerprints of `words` (the second over the words in reverse order). */
  hash: Int32Array;
  after: Map<number, MonitorState>;
  /** The state's number in a layout machine's words (monitoredLayout), -1 until it has one. */
  number: number;
}

const knownOf = (m: MonitorState): Known | undefined => (m as { [KNOWN]?: Known })[KNOWN];

const scratch = new Words();

function monitorWords(m: MonitorState): Int32Array {
  scratch.reset();
  encodeValue(scratch, m);
  return scratch.buf.subarray(0, scratch.length);
}

function hashWords(words: Int32Array): Int32Array {
  const hash = new Int32Array(4);
  fingerprint(words, words.length, hash);
  const reversed = words.slice().reverse();
  const fp = new Int32Array(2);
  fingerprint(reversed, reversed.length, fp);
  hash[2] = fp[0];
  hash[3] = fp[1];
  return hash;
}

/**
 * Events as small numbers, equal for equal events: the kind, the client and the id of the
 * input (invoke) or output (return). Values are numbered by content: primitives by
 * themselves, flat objects of strings, finite numbers, booleans and null by their fields
 * in insertion order (a path in a trie of Maps, so that no key string is built per event),
 * anything else by its canonical JSON (kept per object: specs often hand the same input
 * object again). Two equal values may get two ids (the same fields in another order); that
 * only costs a second advance() of the same (monitor state, event), never a wrong
 * successor: equal ids always mean equal values.
 */
class EventIds {
  private readonly primitive = new Map<unknown, number>();
  private readonly byKey = new Map<string, number>();
  private readonly byObject = new WeakMap<object, number>();
  private readonly flat = new FlatNode();
  private count = 0;

  constructor(private readonly clients: number) {}

  /** The event's id, or -1 for an event with a client the observer does not declare. */
  of(e: ObservedEvent): number {
    const c = e.client;
    if (!(Number.isInteger(c) && c >= 0 && c < this.clients)) return -1;
    let kind: number;
    let value = 0;
    switch (e.kind) {
      case 'invoke':
        kind = 0;
        value = this.value(e.input);
        break;
      case 'return':
        kind = 1;
        value = this.value(e.output);
        break;
      case 'crash':
        kind = 2;
        break;
      default:
        kind = 3;
    }
    return (value * 4 + kind) * this.clients + c;
  }

  private value(v: unknown): number {
    if (v === null || typeof v !== 'object') {
      let id = this.primitive.get(v);
      if (id === undefined) this.primitive.set(v, (id = this.count++));
      return id;
    }
    let id = this.byObject.get(v);
    if (id !== undefined) return id;
    const leaf = flatLeaf(this.flat, v);
    if (leaf !== undefined) {
      if (leaf.id < 0) leaf.id = this.count++;
      return leaf.id;
    }
    const key = canonicalJson(v);
    id = this.byKey.get(key);
    if (id === undefined) this.byKey.set(key, (id = this.count++));
    // Only objects that are not flat are remembered by identity: a flat one is found again cheaply.
    this.byObject.set(v, id);
    return id;
  }
}

/** A node of the trie of flat objects: per field name, per value, the next node; `id` once an object ends here. */
class FlatNode {
  id = -1;
  next: Map<string, Map<unknown, FlatNode>> | undefined = undefined;
}

/**
 * The trie node of a plain object whose fields are strings, finite numbers other than -0,
 * booleans or null, reached by its fields in insertion order (Map keys tell 1 from '1' and
 * true from 'true'); undefined for any other object.
 */
function flatLeaf(root: FlatNode, o: object): FlatNode | undefined {
  const proto = Object.getPrototypeOf(o);
  if (proto !== Object.prototype && proto !== null) return undefined;
  let node = root;
  for (const k in o) {
    if (!Object.prototype.hasOwnProperty.call(o, k)) return undefined;
    const v = (o as Record<string, unknown>)[k];
    if (!(typeof v === 'string' || v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0)))) return undefined;
    let byValue = node.next?.get(k);
    if (byValue === undefined) (node.next ??= new Map()).set(k, (byValue = new Map()));
    let child = byValue.get(v);
    if (child === undefined) byValue.set(v, (child = new FlatNode()));
    node = child;
  }
  return node;
}

/** Distinct monitor states kept for sharing; beyond it, sharing starts afresh (results are unchanged). */
const MEMO_LIMIT = 200_000;

/** The monitor states met so far, each once, with their successors by event (Known.after). */
interface MonitorTable {
  /** The one object for m's canonical form. */
  intern(m: MonitorState): MonitorState;
  /** The monitor state after event e, worked out once per (monitor state, event). */
  advanced(m: MonitorState, e: ObservedEvent): MonitorState;
  /** The initial monitor state. */
  init: MonitorState;
}

// Many spec states share a monitor state, and meet the same events: equal monitor
// states are made one object, whose words are worked out once, and each (monitor state,
// event) is advanced once.
function monitorTable(model: Stepper, clients: number): MonitorTable {
  const interned = new Map<string, MonitorState>();
  const intern = (m: MonitorState): MonitorState => {
    const key = canonicalJson(m);
    const same = interned.get(key);
    if (same !== undefined) return same;
    if (interned.size >= MEMO_LIMIT) interned.clear();
    // A copy of our own to hang the words on (the given object may be frozen, or another's).
    const own: MonitorState = { pending: m.pending, configs: m.configs };
    const words = monitorWords(own).slice();
    const known: Known = { words, hash: hashWords(words), after: new Map(), number: -1 };
    Object.defineProperty(own, KNOWN, { value: known });
    interned.set(key, own);
    return own;
  };
  const ids = new EventIds(clients);
  const advanced = (m: MonitorState, e: ObservedEvent): MonitorState => {
    const id = ids.of(e);
    if (id < 0) return advance(model, m, e); // throws: the event names an undeclared client
    let known = knownOf(m);
    if (known === undefined) {
      m = intern(m);
      known = knownOf(m)!;
    }
    let next = known.after.get(id);
    if (next === undefined) {
      next = intern(advance(model, m, e));
      known.after.set(id, next);
    }
    return next;
  };
  return { intern, advanced, init: intern(initialMonitor(model, clients)) };
}

/**
 * The table for a model object and a number of clients, shared by every machine that checks
 * against that same object (a spec's configs mostly do): advance() is a function of the model,
 * the monitor state and the event alone, so a config need not work out again, cold, what an
 * earlier one did (rowan's and fusee's defaults: 40% and 51% of their advances); so the model
 * must be pure (HistoryObserver.model). It lives as long as the model object does, and what it
 * holds grows with every search against it: MEMO_LIMIT clears the interning map, but every state
 * met stays reachable from `init` through its successors (a few thousand over a spec's defaults).
 */
const shared = new WeakMap<object, Map<number, MonitorTable>>();

function sharedTable(model: Stepper, key: object, clients: number): MonitorTable {
  let byClients = shared.get(key);
  if (byClients === undefined) shared.set(key, (byClients = new Map()));
  let table = byClients.get(clients);
  if (table === undefined) byClients.set(clients, (table = monitorTable(model, clients)));
  return table;
}

/** The name of the invariant the monitor adds. */
export const LINEARIZABILITY = 'linearizability';

/**
 * The machine whose states carry the linearizability monitor, with an invariant
 * 'linearizability' that fails when no linearization of the history so far exists. The
 * view is [the inner view, the monitor state]. Symmetry groups are carried over; those
 * that rename clients (`clients: true`) rename them in the monitor too. `exact`: the
 * search stores whole encodings (the exact store), so the monitor's part of a state's
 * encoding is its canonical words rather than their hash.
 */
export function withMonitor<S, A extends Action>(machine: Machine<S, A>, { exact = false }: { exact?: boolean } = {}): Machine<Monitored<S>, A> {
  const observer = machine.history;
  if (!observer) throw new Error('withMonitor: the machine has no history observer');
  const model = stepper(observer.model);
  const innerView = (s: S): unknown => (machine.view ? machine.view(s) : s);
  const invariants: Record<string, (w: Monitored<S>) => Check> = Object.create(null);
  for (const [name, inv] of Object.entries(machine.invariants)) invariants[name] = (w) => inv(w.s);
  if (LINEARIZABILITY in invariants) throw new Error(`withMonitor: the machine already has an invariant named '${LINEARIZABILITY}'`);
  invariants[LINEARIZABILITY] = (w) => {
    if (w.m.configs.length > 0) return true;
    const lines: string[] = [];
    for (let l = w.h; l !== null; l = l.prev) lines.push(describeEvent(model, l.before, l.e));
    const steps = lines.reverse().map((line, i) => `${i + 1}. ${line}`).join('; ');
    return `the history is not linearizable against the ${model.name} model: ${steps}`;
  };
  const L = layoutOf(machine);
  // A layout machine numbers its monitor states in the interned objects (Known.number), its
  // own numbers: it gets a table of its own.
  const { intern, advanced, init } = L !== undefined && L.over !== undefined ? monitorTable(model, observer.clients) : sharedTable(model, observer.model, observer.clients);
  // The monitor's part of a state's words: all of its canonical words for the exact store,
  // which compares whole encodings; their 128-bit hash for the fingerprint store, which
  // hashes the whole encoding to 64 bits anyway (two distinct monitor states share the
  // hash with probability about k^2 / 2^129 among k of them: a few hundred in the seed specs).
  const partOf = exact
    ? (m: MonitorState) => knownOf(m)?.words ?? monitorWords(m)
    : (m: MonitorState) => knownOf(m)?.hash ?? hashWords(monitorWords(m));
  const wrapped: Machine<Monitored<S>, A> = {
    init: () => machine.init().map((s) => ({ s, m: init, h: null })),
    actions: (w) => machine.actions(w.s),
    next(w, a) {
      const s = machine.next(w.s, a);
      const events = observer.observe(w.s, a, s);
      if (events.length === 0) return { s, m: w.m, h: w.h };
      let m = w.m;
      let h = w.h;
      for (let i = 0; i < events.length; i++) {
        const e = events[i];
        h = { prev: h, before: m, e };
        // Once no linearization is left, none comes back: the set stays empty.
        m = advanced(m, e);
      }
      return { s, m, h };
    },
    invariants,
    view: (w) => [innerView(w.s), w.m],
  };
  if (machine.mayStop) wrapped.mayStop = (w) => machine.mayStop!(w.s);
  if (machine.progress) wrapped.progress = (b, a, c) => machine.progress!(b.s, a, c.s);
  if (machine.actor) wrapped.actor = machine.actor;
  if (machine.internal) wrapped.internal = machine.internal;
  if (machine.actionNames) wrapped.actionNames = machine.actionNames;
  if (machine.footprint) wrapped.footprint = (w, a) => machine.footprint!(w.s, a);
  if (L !== undefined && L.over !== undefined) {
    monitoredLayout(wrapped, L as WordLayout<S, A> & { over(w: Int32Array): S }, observer, intern, advanced);
  } else if (machine.encode) {
    // The spec's fast encoding, then the monitor's part (`partOf`), then the length of the
    // spec's part (read from the end, it splits the two: the whole stays injective).
    const inner = machine.encode.bind(machine);
    wrapped.encode = (w, out) => {
      const n = inner(w.s, out);
      if (n < 0) return -1;
      const part = partOf(w.m);
      const len = part.length;
      if (n + len + 1 > out.length) return -1;
      for (let i = 0; i < len; i++) out[n + i] = part[i];
      out[n + len] = n;
      return n + len + 1;
    };
  }
  // The wrapped machine's own observer, so that an outer transformer (histories mode, POR's
  // visibility check) still sees the events.
  wrapped.history = { model: observer.model, clients: observer.clients, observe: (b, a, c) => observer.observe(b.s, a, c.s) };
  if (machine.symmetry) wrapped.symmetry = machine.symmetry.map((g) => monitoredSymmetry(g));
  return wrapped;
}

/** A monitored layout machine's numbering of its monitor states: its spec's word count, and the states by number. */
interface Numbering {
  readonly W: number;
  readonly numbered: MonitorState[];
}

/**
 * A monitored state over words (monitoredLayout): one class for every machine, so that the
 * search and the monitor's steps, compiled for one machine's states, are not compiled again
 * for the next machine's (a class per machine gave each its own hidden class).
 */
class WordState<S> implements Monitored<S> {
  readonly h = null;
  constructor(
    readonly w: Int32Array,
    readonly s: S,
    readonly numbering: Numbering,
  ) {}
  get m(): MonitorState {
    return this.numbering.numbered[this.w[this.numbering.W]];
  }
}

/**
 * The monitor over a layout machine (Machine.layout) keeps its state beside the spec's
 * words: a state is the spec's W words, then the number of its monitor state (numbered as
 * met, one number per distinct monitor state, never reused), so that the breadth-first
 * search's fast path steps, hashes and stores it as words with no object made per step.
 * These words are the wrapped machine's encoding on every path (injective: the spec's
 * words are, and equal monitor states have one number). The numbers are this process's
 * own (`local`), and the words hold no history, which the linearizability message names:
 * that message is taken from the counterexample's replayed path (`replayed`).
 */
function monitoredLayout<S, A extends Action>(
  wrapped: Machine<Monitored<S>, A>,
  L: WordLayout<S, A> & { over(w: Int32Array): S },
  observer: HistoryObserver<S, A>,
  intern: (m: MonitorState) => MonitorState,
  advanced: (m: MonitorState, e: ObservedEvent) => MonitorState,
): void {
  const W = L.words;
  const numbered: MonitorState[] = [];
  // By canonical form, not by object: the interning table may start afresh (MEMO_LIMIT),
  // and a monitor state interned again must keep its number.
  const numbers = new Map<string, number>();
  const numberOf = (m: MonitorState): number => {
    let known = knownOf(m);
    if (known === undefined) known = knownOf((m = intern(m)))!;
    if (known.number < 0) {
      const key = canonicalJson(m);
      let k = numbers.get(key);
      if (k === undefined) {
        numbers.set(key, (k = numbered.length));
        numbered.push(m);
      }
      known.number = k;
    }
    return known.number;
  };
  const numbering: Numbering = { W, numbered };
  const state = (w: Int32Array) => new WordState<S>(w, L.over(w.subarray(0, W)), numbering);
  const ours = (w: Monitored<S>): w is WordState<S> => w instanceof WordState && w.numbering === numbering;
  const inner = L.encode;
  const encode = (w: Monitored<S>, out: Int32Array): number => {
    if (out.length < W + 1) return -1;
    if (inner(w.s, out) < 0) return -1;
    out[W] = ours(w) ? w.w[W] : numberOf(w.m);
    return W + 1;
  };
  wrapped.encode = encode;
  wrapped.layout = {
    words: W + 1,
    make: () => state(new Int32Array(W + 1)),
    wordsOf(w) {
      if (ours(w)) return w.w;
      const words = new Int32Array(W + 1);
      encode(w, words);
      return words;
    },
    fromWords: (w) => state(Int32Array.from(w)),
    over: (w) => state(w),
    step(d, a, from) {
      L.step(d.s, a, from.s);
      const events = observer.observe(from.s, a, d.s);
      if (events.length === 0) return;
      let m = d.m;
      // Once no linearization is left, none comes back: the set stays empty.
      for (let i = 0; i < events.length; i++) m = advanced(m, events[i]);
      (d as WordState<S>).w[W] = numberOf(m);
    },
    next: wrapped.next,
    actions: wrapped.actions,
    encode,
    view: wrapped.view,
    local: true,
    replayed: [LINEARIZABILITY],
  };
}

function monitoredSymmetry<S>(g: Symmetry<S>): Symmetry<Monitored<S>> {
  if (g.clients === undefined) {
    throw new SpecError(
      `symmetry group '${g.name}': with linearizability checking, it must say whether it renames history clients (clients: true or false)`,
    );
  }
  return {
    name: g.name,
    size: g.size,
    clients: g.clients,
    ...(g.firstClient !== undefined ? { firstClient: g.firstClient } : {}),
    permute: (w, p) => ({ s: g.permute(w.s, p), m: g.clients ? permuteMonitor(w.m, p, g.firstClient ?? 0) : w.m, h: w.h }),
  };
}

/** Client first + i becomes client first + p[i]. */
export function permuteMonitor(m: MonitorState, p: readonly number[], first = 0): MonitorState {
  if (first < 0 || first + p.length > m.pending.length) {
    throw new SpecError(`symmetry: clients ${first}..${first + p.length - 1} are renamed, but the observer declares clients 0..${m.pending.length - 1}`);
  }
  const move = <T>(xs: readonly T[]): T[] => {
    const out = xs.slice();
    for (let i = 0; i < p.length; i++) out[first + p[i]] = xs[first + i];
    return out;
  };
  return { pending: move(m.pending), configs: normalize(m.configs.map(([q, lin, ind]) => [q, move(lin), ind])) };
}
