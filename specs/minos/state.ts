// The state of the MINOS model (extraction §1.2, §7.2): per-node records with their
// metadata (Fig. 1(a)), NVM logs, one coordinator thread per client operation and one
// follower thread per received INV, the unordered network, pending background persists,
// and ghost variables for the durability and history properties (§4). Plain data under
// the kit's discipline (specs/kit/state.ts): `copy` below is the one copy a step makes;
// messages (specs/kit/network.ts tuples) and NVM logs are replaced, never changed.

import { SpecError } from '../../checkers/explore/errors.ts';
import type { StepAction } from '../kit/table.ts';
import { filled, objectList } from '../kit/state.ts';
import { putString } from '../kit/words.ts';

/** The persistency half of <Lin, X> (§2.3). */
export type Persistency = 'Synch' | 'Strict' | 'REnf' | 'Event' | 'Scope';

/** One client operation of a script: a client-write, a client-read or Scope's [PERSIST]sc. */
export interface Op {
  f: 'write' | 'read' | 'persist';
  key?: number;
  /** The scope a write belongs to, or the scope a PERSIST closes (Scope only; 0 = none). */
  sc?: number;
}

/** A sequential client bound to one node (§1.1, recommended client model). */
export interface ClientDef {
  node: number;
  ops: Op[];
}

export interface MinosConfig {
  model: Persistency;
  nodes: number;
  keys: number;
  clients: ClientDef[];
  /** A full-system crash may happen once, anywhere (§1.5). */
  crash: boolean;
  /** §1.5: each node recovers its own max-TS log entry, or the max across all logs is installed everywhere. */
  recovery: 'replica' | 'system';
  /** MINOS-O (§5): vFIFO/dFIFO, no WRLock, drain before release. */
  offload?: boolean;
  /** The network may duplicate an ACK once (for M28). */
  duplicate?: boolean;
}

/**
 * The config in one object shape (every field, in this order; every op with its key and
 * scope): configs written with and without the optional fields, and reads without a scope,
 * would otherwise reach the steps as objects of several shapes, and the engine's compiled
 * code for the steps is thrown away and rebuilt each time a new one arrives. Same meaning:
 * an absent key or scope is 0, an absent flag false.
 */
export function canonicalConfig(c: MinosConfig): MinosConfig {
  checkConfig(c);
  return {
    model: c.model,
    nodes: c.nodes,
    keys: c.keys,
    clients: c.clients.map((cl) => ({ node: cl.node, ops: cl.ops.map(canonicalOp) })),
    crash: c.crash,
    recovery: c.recovery,
    offload: c.offload === true,
    duplicate: c.duplicate === true,
  };
}
export const canonicalOp = (op: Op): Op => ({ f: op.f, key: op.key ?? 0, sc: op.sc ?? 0 });

/**
 * A config both machines can run, else a SpecError naming the field: nodes and keys within
 * the names the labels give them (NODE, KEY), every client on one of the nodes, every op a
 * write, read or persist on one of the keys with a scope >= 0. Out of range, the steps
 * would read a record that is not there (machine.ts: a TypeError; synch-words.ts: another
 * record's bytes, and bogus violations) and the labels would read "undefined".
 */
function checkConfig(c: MinosConfig): void {
  const whole = (x: unknown, lo: number, hi: number): boolean => Number.isInteger(x) && (x as number) >= lo && (x as number) <= hi;
  const bad = (field: string, x: unknown, want: string): never => {
    throw new SpecError(`minos config: ${field} is ${JSON.stringify(x) ?? String(x)}; ${want}`);
  };
  if (!whole(c.nodes, 1, NODE.length)) bad('nodes', c.nodes, `a whole number 1 to ${NODE.length} (nodes ${NODE.join(', ')})`);
  if (!whole(c.keys, 1, KEY.length)) bad('keys', c.keys, `a whole number 1 to ${KEY.length} (keys ${KEY.join(', ')})`);
  c.clients.forEach((cl, i) => {
    if (!whole(cl.node, 0, c.nodes - 1)) bad(`clients[${i}].node`, cl.node, `a node 0 to ${c.nodes - 1} (nodes: ${c.nodes})`);
    cl.ops.forEach((op, j) => {
      const at = `clients[${i}].ops[${j}]`;
      if (op.f !== 'write' && op.f !== 'read' && op.f !== 'persist') bad(`${at}.f`, op.f, "'write', 'read' or 'persist'");
      if (!whole(op.key ?? 0, 0, c.keys - 1)) bad(`${at}.key`, op.key, `a key 0 to ${c.keys - 1} (keys: ${c.keys})`);
      if (!whole(op.sc ?? 0, 0, Number.MAX_SAFE_INTEGER)) bad(`${at}.sc`, op.sc, 'a scope: a whole number >= 0 (0: none)');
    });
  });
}

/**
 * Timestamps <version, node_id> [L100]-[L104] encoded as one integer ver*TSN + nid, so the
 * paper's order (version first, node id breaks ties) is integer order. NONE = <-1,-1>.
 */
export const TSN = 8;
export const NONE = -1;
export const ver = (t: number): number => Math.floor(t / TSN);
export const nid = (t: number): number => t % TSN;
export const mkTS = (v: number, n: number): number => v * TSN + n;
export const NODE = ['A', 'B', 'C', 'D', 'E'];
export const KEY = ['x', 'y', 'z'];
export const showTS = (t: number): string => (t === NONE ? '<-1,-1>' : `<${ver(t)},${NODE[nid(t)]}>`);
// The pieces of the actions' labels (the plain machine's and synch-words.ts's): client c at node n, a key and a TS, a link.
export const clientAt = (c: number, n: number): string => `c${c}@${NODE[n]}`;
export const keyTS = (k: number, ts: number): string => `${KEY[k]}, ${showTS(ts)}`;
export const link = (to: number, from: number): string => `${NODE[to]}<-${NODE[from]}`;
/** A client operation's label: `clientWrite_L4(c0@A, x, v1)`, `read(c2@C, x)` (a client-write names its value: write w writes w+1). */
export const clientWriteLabel = (c: number, n: number, k: number, w: number): string => `clientWrite_L4(${clientAt(c, n)}, ${KEY[k]}, v${w + 1})`;
export const readLabel = (name: string, c: number, n: number, k: number): string => `${name}(${clientAt(c, n)}, ${KEY[k]})`;

/** A record at one node (Fig. 1(a)). val is a write's value: write w writes w+1; 0 is v0. */
export interface Rec {
  val: number;
  /** volatileTS: the version in this node's LLC. */
  vts: number;
  /** glb_volatileTS / glb_durableTS. */
  gv: number;
  gd: number;
  /** RDLock_Owner (a TS, or NONE). */
  rd: number;
  /** WRLock: 1 while held (only observable in the split-step mutant M22). */
  wr: number;
  /** Highest version this node's GenTS issued for the key (the atomic-GenTS fix, §3.4). */
  iss: number;
  /** MINOS-O vFIFO for this record, flat [ts, val, ts, val, ...], head first (replaced, never changed). */
  vq: readonly number[];
}

/** Message types, numbered in the order of their names (the network's sort order). */
export const MSG = ['ACK', 'ACK_C', 'ACK_P', 'INV', 'PERSIST', 'VAL', 'VAL_C', 'VAL_P'] as const;
export type MsgName = (typeof MSG)[number];
export const ACK = 0;
export const ACK_C = 1;
export const ACK_P = 2;
export const INV = 3;
export const PERSIST = 4;
export const VAL = 5;
export const VAL_C = 6;
export const VAL_P = 7;
export type MsgType = typeof ACK | typeof ACK_C | typeof ACK_P | typeof INV | typeof PERSIST | typeof VAL | typeof VAL_C | typeof VAL_P;

/**
 * A message (specs/kit/network.ts: an immutable tuple, the bag kept sorted). k = -1 for
 * Scope's PERSIST transaction (ts then carries the scope); v: INV's data; dup: 1 for a
 * duplicate copy (never duplicated again); items: [PERSIST]sc of the fixed Scope protocol,
 * the scope's writes, flat [key, ts, ...].
 */
export type Msg = readonly [t: MsgType, k: number, ts: number, from: number, to: number, sc: number, dup: number, v: number, ...items: number[]];
export function mkMsg(t: MsgType, k: number, ts: number, from: number, to: number, v: number, sc: number, items: readonly number[]): Msg {
  if (items.length > 0) return [t, k, ts, from, to, sc, 0, v, ...items];
  const key = msgKey(t, k, ts, from, to, v, sc);
  if (key < 0) return [t, k, ts, from, to, sc, 0, v];
  let m = MESSAGES.get(key);
  if (m === undefined) MESSAGES.set(key, (m = [t, k, ts, from, to, sc, 0, v]));
  return m;
}

/**
 * Messages are immutable, so equal ones can be one tuple: a step that sends a message
 * some state has sent before reuses that state's tuple (no new array, and the delivery's
 * action, kept per tuple by network.ts, is found again). By its fields, without items or
 * duplication (those are made afresh).
 */
const MESSAGES = new Map<number, Msg>();

/** A number telling messages apart by their fields, within 30 bits (a small integer); -1 when a field is out of range (such a message is made afresh). */
function msgKey(t: MsgType, k: number, ts: number, from: number, to: number, v: number, sc: number): number {
  if (k < -1 || k > 6 || ts < -1 || ts > 1022 || from > 7 || to > 7 || v < 0 || v > 31 || sc < 0 || sc > 7) return -1;
  return (((((((((((t << 3) | (k + 1)) << 10) | (ts + 1)) << 3) | from) << 3) | to) << 5) | v) << 3) | sc;
}
/** No items (a shared empty list: a default `[]` would be a new array per call). */
export const NO_ITEMS: readonly number[] = [];
export const msgItems = (m: Msg): number[] => m.slice(8);

/** A coordinator thread (client-write, [PERSIST]sc, or the split read of M21). */
export interface Coord {
  kind: 'write' | 'persist' | 'read';
  k: number;
  /** Index of the write in the config (its value is w+1). */
  w: number;
  ts: number;
  /** Where the thread is: the step it takes next (coordinator.ts). */
  pc: string;
  /** The volatileTS snapshot taken when Obsolete() held: the spins wait for glb >= tau. */
  tau: number;
  /** Reached Line 8 (so Lines 20-21 apply). */
  sn: boolean;
  /** INVs were sent (Line 11). */
  sent: boolean;
  /** The client already got its response (REnf, MINOS-O Synch, M13). */
  resp: boolean;
  /** Senders of ACK / ACK_C (bit per node); of ACK_P. */
  ack: number;
  ackP: number;
  /** H-Lin-TS ghost: the largest tag of an operation completed before this one was invoked. */
  low: number;
  sc: number;
}

/** A follower thread, spawned by an INV (or by a [PERSIST]sc under Scope). */
export interface Foll {
  n: number;
  kind: 'write' | 'persist';
  k: number;
  ts: number;
  v: number;
  from: number;
  /** Where the thread is: the step it takes next (follower.ts), or the message it waits for. */
  pc: string;
  tau: number;
  sn: boolean;
  /** Discarded VALs still to come for a write cut short at Line 27. */
  need: number;
  sc: number;
  items: readonly number[];
}

/** A background persist not yet done (Step d off the critical path). */
export type Bg = readonly [node: number, key: number, ts: number, val: number, sc: number];

export interface Ghost {
  /** Per write: its TS_WR once generated, else NONE. */
  wts: number[];
  /** Per write: 0 not invoked, 1 pending, 2 returned to the client, 3 pending at the crash. */
  wst: number[];
  /** Per key: the largest TS a pre-crash read returned. */
  readMax: number[];
  /** Per scope: 1 once its PERSIST returned. */
  pd: number[];
  /** Violations of transition properties, set by next(): '' while they hold. */
  i2: string;
  i11: string;
  lin: string;
}

export interface State {
  /** rec[n][k] */
  rec: Rec[][];
  /** Per node, the NVM log (with MINOS-O's dFIFO, which is already durable): sorted flat [key, ts, val] triples. */
  nvm: number[][];
  /** Per client: its running operation. */
  co: (Coord | null)[];
  /** Per client: index of its next operation. */
  cl: number[];
  /** Follower threads, sorted (cmpFoll). */
  fo: Foll[];
  /** The network: a bag of messages, sorted (specs/kit/network.ts). */
  net: Msg[];
  /** Background persists, sorted. */
  bg: Bg[];
  crashed: boolean;
  /** Post-crash reads done, in order: flat [node, key, val]. */
  pr: number[];
  g: Ghost;
}

export interface MinosAction extends StepAction {
  /** client (its coordinator thread), follower-thread index, message index, bg index, or node (by step). */
  readonly i: number;
  readonly k: number;
}

/**
 * Actions are immutable, so a step makes each of its actions once and offers the same
 * object in every state that enables it (no label built per state): the number that tells
 * a step's actions apart, from what its label and fields are made of (the actor's index i,
 * a node n, a key k, a TS, a scope). -1 when out of range: such an action is not kept.
 */
export function actionKey(i: number, n: number, k: number, ts: number, sc: number): number {
  // within 30 bits, a small integer (a larger key would be a heap number, made on every call)
  if (i >= 128 || n >= 8 || k >= 14 || sc >= 16 || ts >= 4094) return -1;
  return ((ts + 2) << 18) | (sc << 14) | ((k + 2) << 10) | (i << 3) | n;
}

/** A step's actions made so far, by actionKey. */
export class ActionCache {
  private readonly made = new Map<number, MinosAction>();
  get(key: number): MinosAction | undefined {
    return this.made.get(key);
  }
  keep(key: number, a: MinosAction): MinosAction {
    if (key >= 0) this.made.set(key, a);
    return a;
  }
}



export function initialState(c: MinosConfig, writes: number, scopes: number): State {
  const rec = (): Rec => ({ val: 0, vts: 0, gv: 0, gd: 0, rd: NONE, wr: 0, iss: 0, vq: [] });
  return {
    rec: Array.from({ length: c.nodes }, () => Array.from({ length: c.keys }, rec)),
    nvm: Array.from({ length: c.nodes }, () => []),
    co: c.clients.map(() => null),
    cl: c.clients.map(() => 0),
    fo: objectList(),
    net: objectList(),
    bg: objectList(),
    crashed: false,
    pr: [],
    g: { wts: filled(writes, NONE), wst: filled(writes, 0), readMax: filled(c.keys, 0), pd: filled(scopes + 1, 0), i2: '', i11: '', lin: '' },
  };
}

/**
 * What a step writes in place: at most one record (rec[n][k]; n = -1: none; n = ALL: every
 * node's row, whose records the step replaces), and the coordinator threads and follower
 * threads to copy (one index, ALL, or NO_THREAD). The rest is shared with the state before,
 * the other nodes' rows included. The lists a step may change as a whole (network,
 * background persists, scripts' positions, NVM logs, ghosts, the thread lists) are shared
 * too until the step first writes one: it asks for it with `netOf`, `bgOf`, `clOf`,
 * `nvmOf`, `ghostOf`, `coOf`, `foOf`, which copy it then (copy-on-write).
 */
export interface Writes {
  n: number;
  k: number;
  co: number;
  fo: number;
}
export const ALL = -2;
export const NO_THREAD = -1;

/** The state the step being taken was copied from: a list of d still === its list is shared with it. */
let base: State | undefined;

/** The one copy of a step (specs/kit/state.ts): the parts `w` says the step writes; logs, messages and vFIFOs are replaced, never changed. */
export function copy(s: State, w: Writes): State {
  base = s;
  let rec = s.rec;
  if (w.n === ALL) {
    rec = s.rec.slice();
    for (let n = 0; n < rec.length; n++) rec[n] = s.rec[n].slice();
  } else if (w.n >= 0) {
    rec = s.rec.slice();
    rec[w.n] = s.rec[w.n].slice();
    rec[w.n][w.k] = copyRec(rec[w.n][w.k]);
  }
  let co = s.co;
  if (w.co !== NO_THREAD) {
    co = s.co.slice();
    for (let c = 0; c < co.length; c++) {
      const t = co[c];
      if (t !== null && (w.co === ALL || w.co === c)) co[c] = copyCoord(t);
    }
  }
  let fo = s.fo;
  if (w.fo === ALL) {
    fo = s.fo.slice();
    for (let i = 0; i < fo.length; i++) fo[i] = copyFoll(fo[i]);
  } else if (w.fo >= 0) {
    fo = s.fo.slice();
    fo[w.fo] = copyFoll(fo[w.fo]);
  }
  return { rec, nvm: s.nvm, co, cl: s.cl, fo, net: s.net, bg: s.bg, crashed: s.crashed, pr: s.pr, g: s.g };
}

// Copy-on-write of the step's copy d: each list the first time the step writes it.
export function netOf(d: State): Msg[] {
  if (d.net === base!.net) d.net = d.net.slice();
  return d.net;
}
export function bgOf(d: State): Bg[] {
  if (d.bg === base!.bg) d.bg = d.bg.slice();
  return d.bg;
}
export function clOf(d: State): number[] {
  if (d.cl === base!.cl) d.cl = d.cl.slice();
  return d.cl;
}
export function nvmOf(d: State): number[][] {
  if (d.nvm === base!.nvm) d.nvm = d.nvm.slice();
  return d.nvm;
}
export function coOf(d: State): (Coord | null)[] {
  if (d.co === base!.co) d.co = d.co.slice();
  return d.co;
}
/** Coordinator thread c of d, copied the first time the step writes it (a step that may fill several threads' sender sets). */
export function coordOf(d: State, c: number): Coord {
  const co = coOf(d);
  if (co[c] === base!.co[c]) co[c] = copyCoord(co[c]!);
  return co[c]!;
}
export function foOf(d: State): Foll[] {
  if (d.fo === base!.fo) d.fo = d.fo.slice();
  return d.fo;
}
export function ghostOf(d: State): Ghost {
  const g = d.g;
  if (g === base!.g) d.g = { wts: g.wts.slice(), wst: g.wst.slice(), readMax: g.readMax.slice(), pd: g.pd.slice(), i2: g.i2, i11: g.i11, lin: g.lin };
  return d.g;
}

// Field by field (one object shape each), which is cheaper than a spread.
const copyRec = (x: Rec): Rec => ({ val: x.val, vts: x.vts, gv: x.gv, gd: x.gd, rd: x.rd, wr: x.wr, iss: x.iss, vq: x.vq });
const copyCoord = (t: Coord): Coord => ({
  kind: t.kind, k: t.k, w: t.w, ts: t.ts, pc: t.pc, tau: t.tau, sn: t.sn, sent: t.sent, resp: t.resp, ack: t.ack, ackP: t.ackP, low: t.low, sc: t.sc,
});
const copyFoll = (f: Foll): Foll => ({ n: f.n, kind: f.kind, k: f.k, ts: f.ts, v: f.v, from: f.from, pc: f.pc, tau: f.tau, sn: f.sn, need: f.need, sc: f.sc, items: f.items });

/**
 * Every field a step changes in place, changed once as the module loads, on one object of
 * each shape. To the engine (V8) a field no object has had changed yet is a constant, and
 * the compiled code that reads it relies on that: the first step to change it, midway
 * through the first search, throws that code away (the encoding, the invariants, the
 * search loop), and it is compiled again. Writing them here, before any of it is compiled,
 * leaves nothing to throw away. No state is changed (these objects are dropped).
 */
function settleFields(): void {
  const r = copyRec({ val: 0, vts: 0, gv: 0, gd: 0, rd: NONE, wr: 0, iss: 0, vq: NO_ITEMS });
  r.val = r.vts = r.gv = r.gd = r.rd = r.wr = r.iss = 1;
  r.vq = [1, 1];
  const t = copyCoord({ kind: 'write', k: 0, w: 0, ts: 0, pc: '', tau: NONE, sn: false, sent: false, resp: false, ack: 0, ackP: 0, low: 0, sc: 0 });
  t.pc = 'x';
  t.tau = t.ack = t.ackP = 1;
  t.sn = t.sent = t.resp = true;
  const f = copyFoll({ n: 0, kind: 'write', k: 0, ts: 0, v: 0, from: 0, pc: '', tau: NONE, sn: false, need: 0, sc: 0, items: NO_ITEMS });
  f.pc = 'x';
  f.tau = f.need = 1;
  f.sn = true;
  const d = initialState({ model: 'Synch', nodes: 1, keys: 1, clients: [], crash: false, recovery: 'replica', offload: false, duplicate: false }, 1, 0);
  d.rec = [[r]];
  d.nvm = [[1]];
  d.co = [t];
  d.cl = [1];
  d.fo = [f];
  d.net = objectList();
  d.bg = objectList();
  d.crashed = true;
  d.pr = [1];
  const g: Ghost = { wts: [0], wst: [0], readMax: [0], pd: [0], i2: '', i11: '', lin: '' };
  d.g = g;
  g.wts = [1];
  g.wst = [1];
  g.readMax = [1];
  g.pd = [1];
  g.i2 = g.i11 = g.lin = 'x';
}
settleFields();

/** The canonical order of follower threads (a set of threads, kept sorted). */
export const cmpFoll = (a: Foll, b: Foll): number =>
  a.n - b.n || a.k - b.k || a.ts - b.ts || a.from - b.from || a.sc - b.sc || (a.pc < b.pc ? -1 : a.pc > b.pc ? 1 : 0) || a.v - b.v || a.tau - b.tau || +a.sn - +b.sn || a.need - b.need;
export const cmpBg = (x: Bg, y: Bg): number => x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || x[3] - y[3] || x[4] - y[4];

/** The max TS of key k in node n's NVM log (the initial v0 entry has TS <0,A> = 0). */
export function maxNvm(s: State, n: number, k: number): number {
  let m = 0;
  const log = s.nvm[n];
  for (let i = 0; i < log.length; i += 3) if (log[i] === k && log[i + 1] > m) m = log[i + 1];
  return m;
}

/** A compact canonical encoding of a state (the explorer's view): numbers joined, each part tagged. */
export function encode(s: State): string {
  let out = '';
  for (const row of s.rec) for (const r of row) out += `${r.val},${r.vts},${r.gv},${r.gd},${r.rd},${r.wr},${r.iss},${r.vq.join(':')};`;
  out += '|';
  for (const log of s.nvm) out += `${log.join(',')};`;
  out += '|';
  for (const t of s.co) {
    out += t === null ? '-;' : `${t.kind},${t.k},${t.w},${t.ts},${t.pc},${t.tau},${+t.sn},${+t.sent},${+t.resp},${t.ack},${t.ackP},${t.low},${t.sc};`;
  }
  out += `|${s.cl.join(',')}|`;
  for (const f of s.fo) out += `${f.n},${f.kind},${f.k},${f.ts},${f.v},${f.from},${f.pc},${f.tau},${+f.sn},${f.need},${f.sc},${f.items.join(':')};`;
  out += '|';
  for (const m of s.net) out += `${m.join(',')};`;
  out += '|';
  for (const b of s.bg) out += `${b.join(',')};`;
  const g = s.g;
  out += `|${+s.crashed}|${s.pr.join(',')}|${g.wts.join(',')}|${g.wst.join(',')}|${g.readMax.join(',')}|${g.pd.join(',')}|${g.i2}|${g.i11}|${g.lin}`;
  return out;
}

// ---- the engine's fast path (Machine.encode): the same information as `encode`, as words ----

/** Program counters and thread kinds as small integers (a place never seen before gets the next code). */
const CODES = new Map<string, number>(
  ['write', 'persist', 'read', 'check', 'snatch', 'local', 'recheck', 'install', 'ackWait', 'ackPWait', 'glb', 'drain', 'latePersist', 'cspin', 'pspin', 'persistWait', 'load', 'wait', 'waitP', 'discard', 'waitVP', 'flush'].map((x, i) => [x, i]),
);
function code(x: string): number {
  let c = CODES.get(x);
  if (c === undefined) CODES.set(x, (c = CODES.size));
  return c;
}

/** A thread's kind, as `code` numbers it, without the lookup. */
const kindCode = (kind: Coord['kind']): number => (kind === 'write' ? 0 : kind === 'persist' ? 1 : 2);

/** Copies a list of numbers into out at n, its length first; returns the next free index. */
function list(out: Int32Array, n: number, xs: readonly number[]): number {
  const len = xs.length;
  out[n++] = len;
  for (let i = 0; i < len; i++) out[n + i] = xs[i];
  return n + len;
}

/** Copies a list of numbers whose length the config fixes into out at n; returns the next free index. */
function fixed(out: Int32Array, n: number, xs: readonly number[]): number {
  const len = xs.length;
  for (let i = 0; i < len; i++) out[n + i] = xs[i];
  return n + len;
}

/**
 * An injective encoding of a state into out (equal states give equal words, different ones
 * different words, as `encode` gives different strings) among the states of one machine:
 * every list with its length first, except those whose length the config fixes (the
 * records, the NVM logs and threads per node or client, the scripts' positions, the
 * ghosts' lists: one length in every state of a machine, so a word saying so tells no two
 * apart). Returns the number of words, or -1 when out is too small (writes past its end are
 * dropped by the typed array; the engine retries with a larger one). Plain indexed loops:
 * this runs on every successor.
 */
export function encodeWords(s: State, out: Int32Array): number {
  let n = 0;
  const rec = s.rec;
  for (let i = 0; i < rec.length; i++) n = rowWords(out, n, rec[i]);
  n = nvmWords(out, n, s.nvm);
  n = coWords(out, n, s.co);
  const cl = s.cl;
  for (let c = 0; c < cl.length; c++) out[n++] = cl[c];
  n = foWords(out, n, s.fo);
  n = netWords(out, n, s.net);
  n = bgWords(out, n, s.bg);
  out[n++] = +s.crashed;
  n = list(out, n, s.pr);
  n = ghostWords(out, n, s.g);
  return n <= out.length ? n : -1;
}

// The parts of encodeWords, each written at n; each returns the next free index. Functions
// of their own, so that V8 compiles each apart: a part first met late (A-renf's first
// background persist, D-scope's persist threads) then throws away and recompiles that
// part, no longer the whole encoding (encodeWords was compiled three times in a fresh run of
// the default configs, now once: README "Speed, fourteenth pass").

/** One node's records. */
function rowWords(out: Int32Array, n: number, row: readonly Rec[]): number {
  for (let j = 0; j < row.length; j++) {
    const r = row[j];
    out[n] = r.val;
    out[n + 1] = r.vts;
    out[n + 2] = r.gv;
    out[n + 3] = r.gd;
    out[n + 4] = r.rd;
    out[n + 5] = r.wr;
    out[n + 6] = r.iss;
    n = list(out, n + 7, r.vq);
  }
  return n;
}

function nvmWords(out: Int32Array, n: number, nvm: readonly (readonly number[])[]): number {
  for (let i = 0; i < nvm.length; i++) n = list(out, n, nvm[i]);
  return n;
}

function coWords(out: Int32Array, n: number, co: readonly (Coord | null)[]): number {
  for (let c = 0; c < co.length; c++) {
    const t = co[c];
    if (t === null) {
      out[n++] = -1;
      continue;
    }
    out[n] = kindCode(t.kind);
    out[n + 1] = t.k;
    out[n + 2] = t.w;
    out[n + 3] = t.ts;
    out[n + 4] = code(t.pc);
    out[n + 5] = t.tau;
    out[n + 6] = +t.sn | (+t.sent << 1) | (+t.resp << 2);
    out[n + 7] = t.ack;
    out[n + 8] = t.ackP;
    out[n + 9] = t.low;
    out[n + 10] = t.sc;
    n += 11;
  }
  return n;
}

function foWords(out: Int32Array, n: number, fo: readonly Foll[]): number {
  out[n++] = fo.length;
  for (let i = 0; i < fo.length; i++) n = follWords(out, n, fo[i]);
  return n;
}

function follWords(out: Int32Array, n: number, f: Foll): number {
  out[n] = f.n;
  out[n + 1] = kindCode(f.kind);
  out[n + 2] = f.k;
  out[n + 3] = f.ts;
  out[n + 4] = f.v;
  out[n + 5] = f.from;
  out[n + 6] = code(f.pc);
  out[n + 7] = f.tau;
  out[n + 8] = +f.sn;
  out[n + 9] = f.need;
  out[n + 10] = f.sc;
  return list(out, n + 11, f.items);
}

function netWords(out: Int32Array, n: number, net: readonly Msg[]): number {
  out[n++] = net.length;
  for (let i = 0; i < net.length; i++) n = list(out, n, net[i]);
  return n;
}

function bgWords(out: Int32Array, n: number, bg: readonly Bg[]): number {
  out[n++] = bg.length;
  for (let i = 0; i < bg.length; i++) n = list(out, n, bg[i]);
  return n;
}

function ghostWords(out: Int32Array, n: number, g: Ghost): number {
  n = fixed(out, n, g.wts);
  n = fixed(out, n, g.wst);
  n = fixed(out, n, g.readMax);
  n = fixed(out, n, g.pd);
  n = putString(out, n, g.i2);
  n = putString(out, n, g.i11);
  return putString(out, n, g.lin);
}

