// MINOS-B <Lin, Synch> without the crash (B-synch, E-synch; C-synch of the full tier) on the kit's word layout: the
// same machine as machine.ts builds for these configs (the same states, transitions, order
// of actions, labels and violations: synch-words.test.ts), with its state as bytes, so that
// the engine copies, hashes and stores the words as they are (its layout path, under its
// linearizability monitor too), as swarm's sg.ts does for Safe-Guess. machine.ts stays the
// reference, and runs every other config and every variant this file does not take
// (`synchWordsRun`). A state is shown (counterexamples, the walk, ITF) as the plain
// machine's State (`plainOf`), so a counterexample reads as machine.ts's does.
//
// Shared with the plain machine, not written twice: the config's writes and the §3.0
// primitives on timestamps (context.ts: lt, glb, the sender sets), the ghosts' and the
// properties' messages (context.ts, machine.ts, invariants.ts), the labels' pieces
// (state.ts) and the history the engine's monitor reads (history.ts).
//
// Every value of these configs is small (timestamps < 64, values < 8, at most 5 nodes), so a
// record's, a coordinator thread's and a script's fields are bytes, four to a word. A
// follower thread is one number that orders as state.ts `cmpFoll` orders the thread, and a
// message one number that orders as kit/network.ts `compareMsg` orders its tuple: the
// follower threads and the network are sorted counted lists of them (kit/layout.ts), in
// the plain machine's order, so that an action's index names the same thread or message.
// The NVM logs are sorted counted lists of (key, TS, value) entries, one number each. The
// three transition properties' ghosts (I2, I11, H-Lin-TS: '' while they hold) are kept as
// numbers, one per distinct message met.

import type { Check, Machine } from '../../checkers/explore/types.ts';
import { filled } from '../kit/state.ts';
import { byte, bytes, countedInsert, countedRemoveAt, countedSort, ints, layout, layoutMachine, Numbered, type LayoutState } from '../kit/layout.ts';
import { context, i11Message, linReadMessage, linWriteMessage, type Cx } from './context.ts';
import { observerOf } from './history.ts';
import { invariantMessages as say } from './invariants.ts';
import { actorOf, i2Message } from './machine.ts';
import { VARIANTS } from './mutants.ts';
import { ACK, INV, MSG, NODE, NONE, TSN, VAL, canonicalConfig, clientAt, clientWriteLabel, keyTS, link, readLabel, mkTS, showTS, ver, type Coord, type Foll, type MinosAction, type MinosConfig, type Msg, type MsgType, type State } from './state.ts';

/** The variants this file takes: each changes one guard or primitive of the steps below (mutants.ts). */
const TAKEN = new Set(['M1', 'M4', 'M5', 'M8', 'M9', 'M17', 'M18', 'M19', 'M23', 'TS-COLLISION']);

const writesOf = (c: MinosConfig): number => c.clients.reduce((n, cl) => n + cl.ops.filter((op) => op.f === 'write').length, 0);

/**
 * Whether this file runs a config: <Lin, Synch>, MINOS-B, no crash, no duplicated ACKs,
 * client-writes and client-reads only, none with a scope (sc 0: the plain machine's
 * threads and INVs order by sc before v and pc, which the numbers below leave out), at most
 * 5 nodes, 4 keys, 7 writes (timestamps then stay under 64 and values under 8, as the
 * numbers below need) and scripts under 256 operations; the plain protocol or one of the
 * variants in TAKEN. The others run on the plain machine. A config out of range (a node or
 * key that is not there) is refused by canonicalConfig, for both machines.
 */
export const synchWordsRun = (given: MinosConfig, variant?: string): boolean => {
  const c = canonicalConfig(given);
  return (variant === undefined || TAKEN.has(variant)) && c.model === 'Synch' && !c.offload && !c.crash && !c.duplicate &&
    c.nodes <= 5 && c.keys <= 4 && writesOf(c) <= 7 && c.clients.every((cl) => cl.ops.length < 256 && cl.ops.every((op) => (op.f === 'write' || op.f === 'read') && op.sc === 0));
};

// ---- a follower thread as one number, ordered as cmpFoll orders the thread ----
// cmpFoll's fields, most significant first: n, k, ts, from, (sc: 0 here), pc, v, tau, sn,
// need; pc as its place's rank in the places' string order (cmpFoll compares the names).
// tau + 1 (NONE is -1). kind is 'write' and items empty in every thread of these configs.
const FOLL_PLACES = ['cspin', 'discard', 'local', 'persist', 'pspin', 'snatch', 'wait'] as const;
const F_CSPIN = 0;
const F_DISCARD = 1;
const F_LOCAL = 2;
const F_PERSIST = 3;
const F_PSPIN = 4;
const F_SNATCH = 5;
const F_WAIT = 6;
const foll = (n: number, k: number, ts: number, from: number, pc: number, v: number, tau: number, sn: number, need: number): number =>
  (((((((((n * 4 + k) * 64 + ts) * 8 + from) * 16 + pc) * 8 + v) * 64 + tau + 1) * 2 + sn) * 4) + need);
const fN = (f: number) => f >>> 27;
const fK = (f: number) => (f >>> 25) & 3;
const fTs = (f: number) => (f >>> 19) & 63;
const fFrom = (f: number) => (f >>> 16) & 7;
const fPc = (f: number) => (f >>> 12) & 15;
const fV = (f: number) => (f >>> 9) & 7;
const fTau = (f: number) => ((f >>> 3) & 63) - 1;
const fSn = (f: number) => (f >>> 2) & 1;
const fNeed = (f: number) => f & 3;
const withPc = (f: number, pc: number) => (f & ~(15 << 12)) | (pc << 12);
const withTau = (f: number, tau: number) => (f & ~(63 << 3)) | ((tau + 1) << 3);
const withSn = (f: number) => f | 4;
const withNeed = (f: number, need: number) => (f & ~3) | need;

// ---- a message as one number, ordered as compareMsg orders its tuple [t, k, ts, from, to, sc, dup, v] (sc, dup: 0) ----
const msg = (t: number, k: number, ts: number, from: number, to: number, v: number): number => ((((t * 4 + k) * 64 + ts) * 8 + from) * 8 + to) * 8 + v;
const mT = (m: number) => m >>> 17;
const mK = (m: number) => (m >>> 15) & 3;
const mTs = (m: number) => (m >>> 9) & 63;
const mFrom = (m: number) => (m >>> 6) & 7;
const mTo = (m: number) => (m >>> 3) & 7;
const mV = (m: number) => m & 7;

// ---- an NVM log entry (key, TS, value) as one number, ordered as the plain log's triples ----
const entry = (k: number, ts: number, v: number) => (k * 64 + ts) * 8 + v;
const eK = (e: number) => e >>> 9;
const eTs = (e: number) => (e >>> 3) & 63;
const eV = (e: number) => e & 7;

/** The coordinator thread's places (a client with no thread: 0). */
const C_NONE = 0;
const C_CHECK = 1;
const C_SNATCH = 2;
const C_LOCAL = 3;
const C_PERSIST = 4;
const C_ACKWAIT = 5;
const C_CSPIN = 6;
const C_PSPIN = 7;
/** The places at which a coordinator thread holds its RDLock (invariants.ts `coordHolds`), by place. */
const COORD_HOLDS = [false, false, true, true, true, true, true, true];
/** The same for follower threads (`follHolds`). */
const FOLL_HOLDS = FOLL_PLACES.map((p) => p !== 'discard');
if (FOLL_PLACES.some((p, i) => i > 0 && !(FOLL_PLACES[i - 1] < p))) throw new Error('synch-words: FOLL_PLACES must be in string order (cmpFoll)');

function synchLayout(N: number, K: number, C: number, W: number) {
  const R = N * K;
  return layout({
    // rec[n][k] at n * K + k (Fig. 1(a)): value, volatileTS, glb_volatileTS, glb_durableTS,
    // RDLock owner + 1 (0: free), WRLock, the highest version GenTS issued.
    val: bytes(R), vts: bytes(R), gv: bytes(R), gd: bytes(R), rd: bytes(R), wr: bytes(R), iss: bytes(R),
    // Per client: its coordinator thread (pc 0: none; every thread a client-write's) and its script position.
    pc: bytes(C), k: bytes(C), write: bytes(C), ts: bytes(C), tau: bytes(C), sn: bytes(C), sent: bytes(C), resp: bytes(C), ack: bytes(C), ackP: bytes(C), low: bytes(C),
    cl: bytes(C),
    // The ghosts: per write its TS_WR + 1 (0: not generated) and status; per key the largest TS a read returned; I2, I11, H-Lin-TS (numbered).
    wts: bytes(W), wst: bytes(W), readMax: bytes(K), i2: byte, i11: byte, lin: byte,
    // Counted lists: NVM logs (per node, W entries), follower threads (one per INV), the network (an INV, ACK and VAL per write and follower).
    nvmN: bytes(N), foN: byte, netN: byte,
    nvm: ints(N * W), fo: ints(W * (N - 1)), net: ints(3 * W * (N - 1)),
  });
}

type S = LayoutState<ReturnType<typeof synchLayout>['fields']>;

interface WordAction extends MinosAction {
  /** The step, as a number (its entry in STEP and STEPS). */
  readonly t: number;
}
// The steps, numbered.
const OBSOLETE_CHECK = 0;
const SNATCH_C = 1;
const LOCAL_WRITE_C = 2;
const PERSIST_C = 3;
const ALL_ACKS = 4;
const CSPIN_C = 5;
const PSPIN_C = 6;
const CLIENT_WRITE = 7;
const READ = 8;
const SNATCH_F = 9;
const LOCAL_WRITE_F = 10;
const PERSIST_F = 11;
const CSPIN_F = 12;
const PSPIN_F = 13;
const RECV = 14;
/** Step names (the plain machine's) by number. */
const STEP = ['obsoleteCheck_L5', 'snatchRDLock_L8', 'localWrite_L9_16', 'persist_L18', 'allACKs_L19_22', 'consistencySpin_L2', 'persistencySpin_L3', 'clientWrite_L4', 'read',
  'snatchRDLock_L31', 'localWrite_L32_38', 'persist_L39_40', 'consistencySpin_L24', 'persistencySpin_L25', 'recv'];

/** What every step of one config reads; the steps are functions of the module taking it first (not closures made per config: sg.ts). */
class Sy {
  readonly N: number;
  readonly K: number;
  readonly C: number;
  readonly W: number;
  readonly node: number[];
  readonly mut: Cx['mut'];
  /** Messages of the ghosts met, numbered (0: ''). */
  readonly said = new Numbered<string>((x) => x);
  /** Actions made once each, by step and what names them. */
  readonly made: Map<number, WordAction>[] = STEP.map(() => new Map());
  constructor(readonly cfg: MinosConfig, readonly cx: Cx) {
    this.N = cfg.nodes;
    this.K = cfg.keys;
    this.C = cfg.clients.length;
    this.W = cx.writes.length;
    this.node = cfg.clients.map((cl) => cl.node);
    this.mut = cx.mut;
    this.said.of('');
  }
}

/** An action of step t made before, by its key (what its label is made of and the actor's index), or undefined. */
const made = (g: Sy, t: number, key: number): WordAction | undefined => g.made[t].get(key);
/** Makes and keeps an action of step t. */
function keep(g: Sy, t: number, key: number, i: number, k: number, label: string): WordAction {
  const a: WordAction = { step: STEP[t], label, i, k, t };
  g.made[t].set(key, a);
  return a;
}

// ---- §3.0 primitives on a record (at r = n * K + k) ----
const rd = (s: S, r: number) => s.rd[r] - 1;
/** Obsolete [L116]: strictly older than volatileTS (M5: glb_volatileTS). */
const obsolete = (g: Sy, s: S, r: number, ts: number) => g.cx.lt(ts, g.mut.M5 ? s.gv[r] : s.vts[r]);
/** Snatch RDLock [L124]. */
function snatch(g: Sy, d: S, r: number, ts: number): void {
  const owner = rd(d, r);
  if (owner === NONE || (g.cx.lt(owner, ts) && !g.mut.M8)) d.rd[r] = ts + 1;
}
/** Only the owner releases [L96] (M9: whoever owns it). */
function releaseIfOwner(g: Sy, d: S, r: number, ts: number): void {
  if (rd(d, r) === ts || (g.mut.M9 && d.rd[r] !== 0)) d.rd[r] = 0;
}
/** The local-write (Line 12 / 34), with I11's check. */
function install(g: Sy, d: S, n: number, k: number, ts: number, v: number): void {
  const r = n * g.K + k;
  if (!(ts > d.vts[r]) && d.i11 === 0) d.i11 = g.said.of(i11Message(n, ts, d.vts[r]));
  d.val[r] = v;
  d.vts[r] = ts;
}
/** Appends (key, ts, val) to node n's NVM log, kept sorted (an entry already there is not repeated). */
function persistNvm(g: Sy, d: S, n: number, k: number, ts: number, v: number): void {
  const e = entry(k, ts, v);
  const at = n * g.W;
  for (let i = at; i < at + d.nvmN[n]; i++) if (d.nvm[i] === e) return;
  d.nvmN[n] = countedInsert(d.nvm, d.nvmN[n], e, at, g.W);
}
/** The max TS of key k in node n's NVM log (v0's <0,A> = 0). */
function maxNvm(g: Sy, s: S, n: number, k: number): number {
  let m = 0;
  for (let i = n * g.W, end = i + s.nvmN[n]; i < end; i++) if (eK(s.nvm[i]) === k && eTs(s.nvm[i]) > m) m = eTs(s.nvm[i]);
  return m;
}
function send(g: Sy, d: S, t: number, from: number, to: number, k: number, ts: number, v: number): void {
  d.netN = countedInsert(d.net, d.netN, msg(t, k, ts, from, to, v), 0, 3 * g.W * (g.N - 1));
}
function broadcast(g: Sy, d: S, t: number, from: number, k: number, ts: number, v: number): void {
  for (let m = 0; m < g.N; m++) if (m !== from) send(g, d, t, from, m, k, ts, v);
}
/** The largest tag of an operation on k completed so far (H-Lin-TS). */
function maxDone(g: Sy, s: S, k: number): number {
  let m = s.readMax[k];
  for (let w = 0; w < g.W; w++) if (g.cx.writes[w].k === k && s.wst[w] === 2 && s.wts[w] - 1 > m) m = s.wts[w] - 1;
  return m;
}
/** The client-write returns (H-Lin-TS: its tag exceeds every tag completed before its invocation). */
function respond(g: Sy, d: S, c: number): void {
  if (d.resp[c] === 1) return;
  d.resp[c] = 1;
  d.cl[c]++;
  d.wst[d.write[c]] = 2;
  if (!(d.ts[c] > d.low[c]) && d.lin === 0) d.lin = g.said.of(linWriteMessage(d.write[c], c, d.ts[c], d.low[c]));
}
/** The thread ends. */
function finish(d: S, c: number): void {
  d.pc[c] = C_NONE; d.k[c] = 0; d.write[c] = 0; d.ts[c] = 0; d.tau[c] = 0; d.sn[c] = 0; d.sent[c] = 0; d.resp[c] = 0; d.ack[c] = 0; d.ackP[c] = 0; d.low[c] = 0;
}
/** handleObsolete done (Lines 6 / 16): Lines 20-21 if Line 8 was reached, then return. */
function obsoleteDone(g: Sy, d: S, c: number): void {
  if (d.sn[c] === 1) releaseIfOwner(g, d, g.node[c] * g.K + d.k[c], d.ts[c]);
  respond(g, d, c);
  finish(d, c);
}
/** Obsolete() held: snapshot volatileTS for the spins (Lines 6 / 16). */
function toObsolete(d: S, c: number, r: number): void {
  d.tau[c] = d.vts[r] + 1;
  d.pc[c] = C_CSPIN;
}
/** The follower thread at index i replaced by f, the list sorted again (a set of threads). */
function setFoll(d: S, i: number, f: number): void {
  d.fo[i] = f;
  countedSort(d.fo, d.foN);
}
function removeFoll(d: S, i: number): void {
  d.foN = countedRemoveAt(d.fo, d.foN, i);
}

/** The follower thread a VAL m is for, or -1 (network.ts `valTarget`). */
function valTarget(s: S, m: number): number {
  const to = mTo(m);
  const from = mFrom(m);
  for (let i = 0; i < s.foN; i++) {
    const f = s.fo[i];
    if (fN(f) !== to || fFrom(f) !== from || fK(f) !== mK(m) || fTs(f) !== mTs(m)) continue;
    if (fPc(f) === F_DISCARD || fPc(f) === F_WAIT) return i; // Line 30's discard; Step l
  }
  return -1;
}

// ---- the actions, in the plain machine's order (steps.ts `phases`) ----

function actions(g: Sy, s: S): WordAction[] {
  const out: WordAction[] = [];
  // per client: its coordinator thread's step at its place, or its next operation
  for (let c = 0; c < g.C; c++) {
    if (s.pc[c] === C_NONE) clientOp(g, s, c, out);
    else coordinator(g, s, c, out);
  }
  // per follower thread: its step at its place
  for (let i = 0; i < s.foN; i++) follower(g, s, i, out);
  // the network: each distinct message once; a VAL only once a thread takes it
  for (let j = 0; j < s.netN; j++) {
    const m = s.net[j];
    if (j > 0 && s.net[j - 1] === m) continue;
    if (mT(m) === VAL && valTarget(s, m) < 0) continue;
    const key = m * 128 + j; // j < 128: the network holds at most 3 x 7 x 4 messages
    out.push(made(g, RECV, key) ?? keep(g, RECV, key, j, mK(m), `recv${MSG[mT(m)]}(${link(mTo(m), mFrom(m))}, ${keyTS(mK(m), mTs(m))})`));
  }
  return out;
}

/** Client c's next operation, if any (steps.ts `clientSteps`). */
function clientOp(g: Sy, s: S, c: number, out: WordAction[]): void {
  const op = g.cfg.clients[c].ops[s.cl[c]];
  if (op === undefined) return;
  const n = g.node[c];
  const k = op.key!;
  const key = c * 256 + s.cl[c];
  if (op.f === 'write') out.push(made(g, CLIENT_WRITE, key) ?? keep(g, CLIENT_WRITE, key, c, k, clientWriteLabel(c, n, k, g.cx.writeOf[c][s.cl[c]])));
  else if (s.rd[n * g.K + k] === 0) out.push(made(g, READ, key) ?? keep(g, READ, key, c, k, readLabel('read', c, n, k))); // §3.3: a read stalls while RDLock is taken
}

/** Client c's coordinator thread's step at its place, if its guard holds (coordinator.ts). */
function coordinator(g: Sy, s: S, c: number, out: WordAction[]): void {
  const { cx } = g;
  const n = g.node[c];
  const pc = s.pc[c];
  const k = s.k[c];
  const r = n * g.K + k;
  let t = -1;
  if (pc === C_CHECK) t = OBSOLETE_CHECK;
  else if (pc === C_SNATCH) t = SNATCH_C;
  else if (pc === C_LOCAL) t = s.wr[r] === 0 ? LOCAL_WRITE_C : -1; // Line 9: spin until WRLock acquired
  else if (pc === C_PERSIST) t = PERSIST_C;
  else if (pc === C_ACKWAIT) t = (g.mut.M1 ? s.ack[c] !== 0 : cx.full(s.ack[c], n)) ? ALL_ACKS : -1; // M1: after the first ACK
  else if (pc === C_CSPIN) t = !cx.lt(s.gv[r], s.tau[c] - 1) ? CSPIN_C : -1;
  else if (pc === C_PSPIN) t = !cx.lt(s.gd[r], s.tau[c] - 1) ? PSPIN_C : -1;
  if (t < 0) return;
  const key = (c * 4 + k) * 64 + s.ts[c];
  out.push(made(g, t, key) ?? keep(g, t, key, c, k, `${STEP[t]}(${clientAt(c, n)}, ${keyTS(k, s.ts[c])})`));
}

/** Follower thread i's step at its place, if its guard holds (follower.ts). */
function follower(g: Sy, s: S, i: number, out: WordAction[]): void {
  const { cx } = g;
  const f = s.fo[i];
  const n = fN(f);
  const k = fK(f);
  const r = n * g.K + k;
  const pc = fPc(f);
  let t = -1;
  if (pc === F_SNATCH) t = SNATCH_F;
  else if (pc === F_LOCAL) t = LOCAL_WRITE_F;
  else if (pc === F_PERSIST) t = PERSIST_F;
  else if (pc === F_CSPIN) t = !cx.lt(s.gv[r], fTau(f)) ? CSPIN_F : -1;
  else if (pc === F_PSPIN) t = !cx.lt(s.gd[r], fTau(f)) ? PSPIN_F : -1;
  if (t < 0) return;
  const key = ((i * 8 + n) * 4 + k) * 64 + fTs(f);
  out.push(made(g, t, key) ?? keep(g, t, key, i, k, `${STEP[t]}(${NODE[n]}, ${keyTS(k, fTs(f))})`));
}

// ---- the steps (coordinator.ts, follower.ts, network.ts, steps.ts) ----

// One function per step, named after it (its number's entry in STEPS): each is compiled on
// its own when it is hot, and a step first taken late in the search throws away only its
// own compiled code, not every step's.

/** Fig. 2 Line 4, GenTS [L102]: an atomic per-key fetch-and-increment (§3.4); M18 / TS-COLLISION: volatileTS + 1. */
function clientWrite_L4(g: Sy, d: S, a: WordAction): void {
  const { mut } = g;
  const c = a.i;
  const n = g.node[c];
  const r = n * g.K + a.k;
  const low = maxDone(g, d, a.k);
  const base = ver(d.vts[r]);
  const faithful = mut.M18 || mut['TS-COLLISION'];
  const v = faithful ? base + 1 : Math.max(base, d.iss[r]) + 1;
  if (!faithful) d.iss[r] = v;
  const w = g.cx.writeOf[c][d.cl[c]];
  const ts = mkTS(v, n);
  d.wts[w] = ts + 1;
  d.wst[w] = 1;
  d.pc[c] = C_CHECK; d.k[c] = a.k; d.write[c] = w; d.ts[c] = ts; d.tau[c] = 0; d.low[c] = low;
}
/** §III-D reads [L172]: the RDLock check and the load, one step; H-Lin-TS. */
function read(g: Sy, d: S, a: WordAction): void {
  const c = a.i;
  const low = maxDone(g, d, a.k);
  const val = d.val[g.node[c] * g.K + a.k];
  const tag = val === 0 ? 0 : d.wts[val - 1] - 1;
  if (tag < low && d.lin === 0) d.lin = g.said.of(linReadMessage(c, a.k, val, tag, low));
  if (tag > d.readMax[a.k]) d.readMax[a.k] = tag;
  d.cl[c]++;
}
/** Fig. 2 Line 5 [L122]: the first Obsolete check, no locks. */
function obsoleteCheck_L5(g: Sy, d: S, a: WordAction): void {
  const c = a.i;
  const r = g.node[c] * g.K + d.k[c];
  if (obsolete(g, d, r, d.ts[c])) toObsolete(d, c, r);
  else d.pc[c] = C_SNATCH;
}
/** Fig. 2 Line 8, Snatch RDLock [L124]. */
function snatchRDLock_L8(g: Sy, d: S, a: WordAction): void {
  const c = a.i;
  snatch(g, d, g.node[c] * g.K + d.k[c], d.ts[c]);
  d.sn[c] = 1;
  d.pc[c] = C_LOCAL;
}
/** Fig. 2 Lines 9-16 under WRLock [L126]: the final check (Line 10), then Lines 11-12, then Line 18 (M23: no recheck). */
function localWrite_L9_16(g: Sy, d: S, a: WordAction): void {
  const c = a.i;
  const n = g.node[c];
  const r = n * g.K + d.k[c];
  if (!g.mut.M23 && obsolete(g, d, r, d.ts[c])) {
    toObsolete(d, c, r);
    return;
  }
  broadcast(g, d, INV, n, d.k[c], d.ts[c], d.write[c] + 1); // Line 11: INVs before the local update
  install(g, d, n, d.k[c], d.ts[c], d.write[c] + 1); // Line 12
  d.sent[c] = 1;
  d.pc[c] = C_PERSIST;
}
/** Fig. 2 Line 18, Step d, synchronous in Synch [L140]. */
function persist_L18(g: Sy, d: S, a: WordAction): void {
  const c = a.i;
  persistNvm(g, d, g.node[c], d.k[c], d.ts[c], d.write[c] + 1);
  d.pc[c] = C_ACKWAIT;
}
/** Fig. 2 Lines 19-22, Step e [L142]: glb updates, Lines 20-21, VALs (Step f), return. */
function allACKs_L19_22(g: Sy, d: S, a: WordAction): void {
  const c = a.i;
  const n = g.node[c];
  const r = n * g.K + d.k[c];
  d.gv[r] = g.cx.glb(d.gv[r], d.ts[c]);
  d.gd[r] = g.cx.glb(d.gd[r], d.ts[c]);
  releaseIfOwner(g, d, r, d.ts[c]);
  broadcast(g, d, VAL, n, d.k[c], d.ts[c], 0);
  respond(g, d, c);
  finish(d, c);
}
/** handleObsolete Line 2, ConsistencySpin [L110]; Synch goes on to PersistencySpin. */
function consistencySpin_L2(_g: Sy, d: S, a: WordAction): void {
  d.pc[a.i] = C_PSPIN;
}
/** handleObsolete Line 3, PersistencySpin, Step a [L164]. */
function persistencySpin_L3(g: Sy, d: S, a: WordAction): void {
  obsoleteDone(g, d, a.i);
}
/** Fig. 2 Line 31, Snatch RDLock [L124]. */
function snatchRDLock_L31(g: Sy, d: S, a: WordAction): void {
  const f = d.fo[a.i];
  snatch(g, d, fN(f) * g.K + fK(f), fTs(f));
  setFoll(d, a.i, withPc(withSn(f), F_LOCAL));
}
/** Fig. 2 Lines 32-38 [L144]-[L146]: the final check under WRLock, the install (Line 34). */
function localWrite_L32_38(g: Sy, d: S, a: WordAction): void {
  const f = d.fo[a.i];
  const r = fN(f) * g.K + fK(f);
  if (!g.mut.M4 && obsolete(g, d, r, fTs(f))) {
    setFoll(d, a.i, withPc(withTau(f, d.vts[r]), F_CSPIN));
    return;
  }
  install(g, d, fN(f), fK(f), fTs(f), fV(f));
  setFoll(d, a.i, withPc(f, F_PERSIST));
}
/** Fig. 2 Lines 39-40: persist, then ACK [L146]. */
function persist_L39_40(g: Sy, d: S, a: WordAction): void {
  const f = d.fo[a.i];
  persistNvm(g, d, fN(f), fK(f), fTs(f), fV(f));
  send(g, d, ACK, fN(f), fFrom(f), fK(f), fTs(f), 0);
  setFoll(d, a.i, withPc(f, F_WAIT));
}
/** Fig. 2 Line 24, ConsistencySpin [L144]; Synch goes on to PersistencySpin. */
function consistencySpin_L24(_g: Sy, d: S, a: WordAction): void {
  setFoll(d, a.i, withPc(d.fo[a.i], F_PSPIN));
}
/** Fig. 2 Line 25, PersistencySpin, Step h [L158]; the ACK (Line 29); then the VAL (recheck path) or its discard (Line 30). */
function persistencySpin_L25(g: Sy, d: S, a: WordAction): void {
  const f = d.fo[a.i];
  send(g, d, ACK, fN(f), fFrom(f), fK(f), fTs(f), 0);
  setFoll(d, a.i, fSn(f) === 1 ? withPc(f, F_WAIT) : withNeed(withPc(f, F_DISCARD), 1));
}

/** §7.2 item 7: message j delivered: Line 26-27's INV, an ACK to the sender sets, a VAL's Steps l (network.ts). */
function recv(g: Sy, d: S, a: WordAction): void {
  const m = d.net[a.i];
  d.netN = countedRemoveAt(d.net, d.netN, a.i);
  const t = mT(m);
  if (t === INV) recvINV(g, d, m);
  else if (t === ACK) recvACK(g, d, m);
  else recvVAL(g, d, m);
}
/** Line 26: a follower thread per INV; Line 27's Obsolete check on arrival. */
function recvINV(g: Sy, d: S, m: number): void {
  const to = mTo(m);
  const r = to * g.K + mK(m);
  const old = !g.mut.M4 && obsolete(g, d, r, mTs(m));
  d.foN = countedInsert(d.fo, d.foN, foll(to, mK(m), mTs(m), mFrom(m), old ? F_CSPIN : F_SNATCH, mV(m), old ? d.vts[r] : NONE, 0, 0), 0, g.W * (g.N - 1));
}
/** The sender set of every thread at the receiver with that (key, TS_WR) [Table I 4c]; an unmatched ACK is dropped. */
function recvACK(g: Sy, d: S, m: number): void {
  const to = mTo(m);
  for (let c = 0; c < g.C; c++) if (d.pc[c] !== C_NONE && g.node[c] === to && d.sent[c] === 1 && d.k[c] === mK(m) && d.ts[c] === mTs(m)) d.ack[c] |= 1 << mFrom(m);
}
/** A VAL reaches the thread valTarget names: Line 30's discard, or Step l (Lines 41-43). */
function recvVAL(g: Sy, d: S, m: number): void {
  const i = valTarget(d, m);
  const f = d.fo[i];
  if (fPc(f) === F_DISCARD) {
    if (fNeed(f) === 1) removeFoll(d, i);
    else setFoll(d, i, withNeed(f, fNeed(f) - 1));
    return;
  }
  // Step l (Line 41): glb updates, then Lines 42-43
  const r = mTo(m) * g.K + mK(m);
  d.gv[r] = g.cx.glb(d.gv[r], mTs(m));
  d.gd[r] = g.cx.glb(d.gd[r], mTs(m));
  releaseIfOwner(g, d, r, mTs(m));
  removeFoll(d, i);
}

/** The steps by number (the order of STEP). */
const STEPS: ((g: Sy, d: S, a: WordAction) => void)[] = [
  obsoleteCheck_L5, snatchRDLock_L8, localWrite_L9_16, persist_L18, allACKs_L19_22, consistencySpin_L2, persistencySpin_L3, clientWrite_L4, read,
  snatchRDLock_L31, localWrite_L32_38, persist_L39_40, consistencySpin_L24, persistencySpin_L25, recv,
];

/** The effect of a on d, a copy of from; then I2 on what it changed. */
function step(g: Sy, d: S, a: WordAction, from: S): void {
  STEPS[a.t](g, d, a);
  checkI2(g, d, from);
}

/** I2 (machine.ts `checkI2`): volatileTS, glb_volatileTS, glb_durableTS never decrease; the first breach kept. */
function checkI2(g: Sy, d: S, s: S): void {
  if (d.i2 !== 0) return;
  for (let r = 0; r < g.N * g.K; r++) {
    const name = d.vts[r] < s.vts[r] ? 'volatileTS' : d.gv[r] < s.gv[r] ? 'glb_volatileTS' : d.gd[r] < s.gd[r] ? 'glb_durableTS' : '';
    if (!name) continue;
    const [before, after] = name === 'volatileTS' ? [s.vts[r], d.vts[r]] : name === 'glb_volatileTS' ? [s.gv[r], d.gv[r]] : [s.gd[r], d.gd[r]];
    d.i2 = g.said.of(i2Message(name, r % g.K, Math.floor(r / g.K), before, after));
    return;
  }
}

// ---- the properties (invariants.ts), named and ordered as there: the first failure a state shows is the same ----
// Functions of the module taking the config's Sy first, bound per config (not closures made
// per config, which the engine compiles again for each).

const said = (g: Sy, x: number): Check => (x === 0 ? true : g.said.values[x]);
const unlocked = (g: Sy, s: S, n: number, k: number) => s.rd[n * g.K + k] === 0;
function allUnlocked(g: Sy, s: S, k: number): boolean {
  for (let n = 0; n < g.N; n++) if (!unlocked(g, s, n, k)) return false;
  return true;
}
/** Every node's copy of k has the same xs (volatileTS, a glb). */
function same(g: Sy, xs: Uint8Array, k: number): boolean {
  for (let n = 1; n < g.N; n++) if (xs[n * g.K + k] !== xs[k]) return false;
  return true;
}
const list = (g: Sy, xs: Uint8Array, k: number) => Array.from({ length: g.N }, (_, n) => `${NODE[n]}:${showTS(xs[n * g.K + k])}`).join(' ');
/** Durable at every node: each NVM log holds a version of k at least t. */
function durableAll(g: Sy, s: S, k: number, t: number): boolean {
  for (let n = 0; n < g.N; n++) if (maxNvm(g, s, n, k) < t) return false;
  return true;
}
/** Client c's thread has every ACK (Synch: the consistency and the persistency ACKs are one). */
const allAcks = (g: Sy, s: S, c: number) => s.ack[c] === g.cx.others(g.node[c]);
/** Client c runs a write thread that has sent its INVs. */
const sentWrite = (s: S, c: number) => s.pc[c] !== C_NONE && s.sent[c] === 1;
function ackedMax(g: Sy, s: S, k: number): number {
  let t = 0;
  for (let i = 0; i < g.W; i++) if (g.cx.writes[i].k === k && s.wst[i] === 2 && s.wts[i] - 1 > t) t = s.wts[i] - 1;
  return t;
}
/** The value of the last NVM entry of (k, ts) before entry i of log n, logs in node order (-1: none). */
function lastBefore(g: Sy, s: S, n: number, i: number, k: number, ts: number): number {
  let v = -1;
  for (let p = 0; p <= n; p++) {
    const end = p === n ? i : s.nvmN[p];
    for (let j = 0; j < end; j++) {
      const e = s.nvm[p * g.W + j];
      if (eK(e) === k && eTs(e) === ts) v = eV(e);
    }
  }
  return v;
}
/** A thread on node n still holding k's RDLock for t. */
function holder(g: Sy, s: S, n: number, k: number, t: number): boolean {
  for (let c = 0; c < g.C; c++) if (g.node[c] === n && s.k[c] === k && s.ts[c] === t && s.sn[c] === 1 && COORD_HOLDS[s.pc[c]]) return true;
  for (let i = 0; i < s.foN; i++) {
    const f = s.fo[i];
    if (fN(f) === n && fK(f) === k && fTs(f) === t && fSn(f) === 1 && FOLL_HOLDS[fPc(f)]) return true;
  }
  return false;
}
/** ver(t) <= writes and nid(t) < N (invariants.ts `tsOk`). */
const tsOk = (g: Sy, t: number) => t >= 0 && t < (g.W + 1) * TSN && t % TSN < g.N;
/** No persistency message (Synch: ACK, VAL) about k in flight. */
function quietFor(s: S, k: number): boolean {
  for (let i = 0; i < s.netN; i++) if (mT(s.net[i]) !== INV && mK(s.net[i]) === k) return false;
  return true;
}

function I1(g: Sy, s: S): Check {
  const { N, K } = g;
  for (let k = 0; k < K; k++) {
    for (let n = 0; n < N; n++) {
      for (let p = n + 1; p < N; p++) {
        const a = n * K + k;
        const b = p * K + k;
        if (s.vts[a] === s.vts[b] && s.val[a] !== s.val[b]) return say.I1(k, s.vts[a], s.val[a], n, s.val[b], p);
      }
    }
  }
  for (let n = 0; n < N; n++) {
    for (let i = 0; i < s.nvmN[n]; i++) {
      const e = s.nvm[n * g.W + i];
      const v = lastBefore(g, s, n, i, eK(e), eTs(e));
      if (v !== -1 && v !== eV(e)) return say.I1nvm(v, eV(e), eK(e), eTs(e));
    }
  }
  return true;
}
function I1uniqueTS(g: Sy, s: S): Check {
  const { writes } = g.cx;
  for (let a = 0; a < g.W; a++) {
    for (let b = a + 1; b < g.W; b++) if (writes[a].k === writes[b].k && s.wts[a] !== 0 && s.wts[a] === s.wts[b]) return say.I1unique(a, b, s.wts[a] - 1);
  }
  return true;
}
const I2 = (g: Sy, s: S): Check => said(g, s.i2);
function I3(g: Sy, s: S): Check {
  for (let n = 0; n < g.N; n++) {
    for (let k = 0; k < g.K; k++) {
      const r = n * g.K + k;
      if (s.gd[r] > s.gv[r]) return say.I3gd(s.gd[r], s.gv[r], k, n);
      if (s.gv[r] > s.vts[r]) return say.I3gv(s.gv[r], s.vts[r], k, n);
      if (maxNvm(g, s, n, k) > s.vts[r]) return say.I3nvm(n, maxNvm(g, s, n, k), s.vts[r], k);
    }
  }
  return true;
}
function I4(g: Sy, s: S): Check {
  const { N, K } = g;
  for (let k = 0; k < K; k++) {
    for (let n = 0; n < N; n++) {
      for (let p = 0; p < N; p++) if (s.vts[p * K + k] < s.gv[n * K + k]) return say.I4(s.gv[n * K + k], k, n, s.vts[p * K + k], p);
    }
  }
  return true;
}
function I5(g: Sy, s: S): Check {
  for (let n = 0; n < g.N; n++) {
    for (let k = 0; k < g.K; k++) if (!durableAll(g, s, k, s.gd[n * g.K + k])) return say.I5(s.gd[n * g.K + k], k, n, false);
  }
  return true;
}
// I6 and I7: a read-unlocked record's ghost glb_volatileTS (I6) or glb_durableTS (I7) is its volatileTS.
function unlockedGlbIsTs(g: Sy, s: S, glb: S['gv'], fail: (k: number, n: number, ts: number, glb: number) => Check): Check {
  for (let n = 0; n < g.N; n++) {
    for (let k = 0; k < g.K; k++) {
      const r = n * g.K + k;
      if (s.rd[r] === 0 && glb[r] !== s.vts[r]) return fail(k, n, s.vts[r], glb[r]);
    }
  }
  return true;
}
const I6 = (g: Sy, s: S): Check => unlockedGlbIsTs(g, s, s.gv, say.I6);
const I7 = (g: Sy, s: S): Check => unlockedGlbIsTs(g, s, s.gd, say.I7);
function I8(g: Sy, s: S): Check {
  for (let c = 0; c < g.C; c++) {
    if (!sentWrite(s, c) || allAcks(g, s, c)) continue;
    const k = s.k[c];
    for (let n = 0; n < g.N; n++) if (s.vts[n * g.K + k] === s.ts[c] && unlocked(g, s, n, k)) return say.I8(n, k, s.ts[c], false);
  }
  return true;
}
function I9(g: Sy, s: S): Check {
  for (let n = 0; n < g.N; n++) {
    for (let k = 0; k < g.K; k++) {
      const t = rd(s, n * g.K + k);
      if (t !== NONE && !holder(g, s, n, k, t)) return say.I9(k, n, t);
    }
  }
  return true;
}
function I10(g: Sy, s: S): Check {
  for (let w = 0; w < g.W; w++) {
    if (s.wst[w] !== 2) continue;
    const k = g.cx.writes[w].k;
    for (let n = 0; n < g.N; n++) if (s.vts[n * g.K + k] < s.wts[w] - 1) return say.I10(w, s.wts[w] - 1, n, k, s.vts[n * g.K + k]);
  }
  return true;
}
const I11 = (g: Sy, s: S): Check => said(g, s.i11);
// the network holds INV, ACK and VAL only, by construction (no message type to check)
function I12(g: Sy, s: S): Check {
  for (let i = 0; i < s.netN; i++) if (!tsOk(g, mTs(s.net[i]))) return say.I12msg(mT(s.net[i]), mTs(s.net[i]));
  for (let n = 0; n < g.N; n++) {
    for (let k = 0; k < g.K; k++) {
      const r = n * g.K + k;
      const bad = !tsOk(g, s.vts[r]) ? s.vts[r] : !tsOk(g, s.gv[r]) ? s.gv[r] : !tsOk(g, s.gd[r]) ? s.gd[r] : undefined;
      if (bad !== undefined) return say.I12ts(k, n, bad);
      if (s.rd[r] !== 0 && !tsOk(g, rd(s, r))) return say.I12rd(k, n, rd(s, r));
      if (s.wr[r] !== 0 && s.wr[r] !== 1) return say.I12wr(k, n, s.wr[r]);
    }
  }
  for (let c = 0; c < g.C; c++) {
    const others = g.cx.others(g.node[c]);
    if (s.pc[c] !== C_NONE && ((s.ack[c] & ~others) !== 0 || (s.ackP[c] & ~others) !== 0)) return say.I12acks(c);
  }
  return true;
}
function Dack(g: Sy, s: S): Check {
  for (let k = 0; k < g.K; k++) if (!durableAll(g, s, k, ackedMax(g, s, k))) return say.Dack(k, ackedMax(g, s, k));
  return true;
}
function Dread(g: Sy, s: S): Check {
  for (let k = 0; k < g.K; k++) if (!durableAll(g, s, k, s.readMax[k])) return say.Dread(k, s.readMax[k], true);
  return true;
}
/** §4.4's floor is of post-crash reads, and these configs have no crash: no state has one to check. */
const Floor = (): Check => true;
const HLinTS = (g: Sy, s: S): Check => said(g, s.lin);
function EventuallyDurableAll(g: Sy, s: S): Check {
  if (s.netN !== 0 || s.foN !== 0) return true;
  for (let c = 0; c < g.C; c++) if (s.pc[c] !== C_NONE || s.cl[c] < g.cfg.clients[c].ops.length) return true;
  for (let k = 0; k < g.K; k++) {
    let t = -Infinity;
    for (let n = 0; n < g.N; n++) if (s.vts[n * g.K + k] > t) t = s.vts[n * g.K + k];
    if (!durableAll(g, s, k, t)) return say.EventuallyDurableAll(k, t);
  }
  return true;
}
function T2a(g: Sy, s: S): Check {
  for (let k = 0; k < g.K; k++) if (allUnlocked(g, s, k) && !(same(g, s.vts, k) && same(g, s.gv, k))) return say.T2a(k, list(g, s.vts, k), list(g, s.gv, k));
  return true;
}
function T2b(g: Sy, s: S): Check {
  for (let c = 0; c < g.C; c++) {
    if (!sentWrite(s, c) || !allAcks(g, s, c)) continue;
    for (let p = 0; p < g.N; p++) if (s.vts[p * g.K + s.k[c]] < s.ts[c]) return say.T2b(s.ts[c], p, s.vts[p * g.K + s.k[c]]);
  }
  return true;
}
function T2c(g: Sy, s: S): Check {
  for (let c = 0; c < g.C; c++) {
    if (!sentWrite(s, c) || allAcks(g, s, c)) continue;
    for (let p = 0; p < g.N; p++) if (s.gv[p * g.K + s.k[c]] === s.ts[c]) return say.T2c(s.ts[c], p);
  }
  return true;
}
function T3a(g: Sy, s: S): Check {
  for (let k = 0; k < g.K; k++) if (allUnlocked(g, s, k) && quietFor(s, k) && !same(g, s.gd, k)) return say.T3a(k, list(g, s.gd, k));
  return true;
}
function T3b(g: Sy, s: S): Check {
  for (let c = 0; c < g.C; c++) {
    if (!sentWrite(s, c) || allAcks(g, s, c)) continue; // Synch: all ACK_Ps = all ACKs
    for (let p = 0; p < g.N; p++) if (s.gd[p * g.K + s.k[c]] === s.ts[c]) return say.T3b(s.ts[c], p);
  }
  return true;
}
const INVARIANTS: [string, (g: Sy, s: S) => Check][] = [
  ['I1', I1], ['I1-unique-TS', I1uniqueTS], ['I2', I2], ['I3', I3], ['I4', I4], ['I5', I5], ['I6', I6], ['I7', I7], ['I8', I8], ['I9', I9], ['I10', I10], ['I11', I11], ['I12', I12],
  ['D-ack', Dack], ['D-read', Dread], ['Floor', Floor], ['H-Lin-TS', HLinTS], ['Eventually-DurableAll', EventuallyDurableAll],
  ['T2a', T2a], ['T2b', T2b], ['T2c', T2c], ['T3a', T3a], ['T3b', T3b],
];

// ---- the state as the plain machine's (state.ts State): counterexamples, the walk and ITF show it as machine.ts does ----

/** The coordinator thread's places by number (C_NONE: no thread), as coordinator.ts names them. */
const COORD_PLACES = ['', 'check', 'snatch', 'local', 'persist', 'ackWait', 'cspin', 'pspin'];

/** s as the plain machine's State, field for field, in its order (a shown state, never stepped). */
function plainOf(g: Sy, s: S): State {
  const { N, K, C, W } = g;
  const coord = (c: number): Coord | null =>
    s.pc[c] === C_NONE ? null : {
      kind: 'write', k: s.k[c], w: s.write[c], ts: s.ts[c], pc: COORD_PLACES[s.pc[c]], tau: s.tau[c] - 1, sn: s.sn[c] === 1, sent: s.sent[c] === 1,
      resp: s.resp[c] === 1, ack: s.ack[c], ackP: s.ackP[c], low: s.low[c], sc: 0,
    };
  const foll = (f: number): Foll => ({ n: fN(f), kind: 'write', k: fK(f), ts: fTs(f), v: fV(f), from: fFrom(f), pc: FOLL_PLACES[fPc(f)], tau: fTau(f), sn: fSn(f) === 1, need: fNeed(f), sc: 0, items: [] });
  const message = (m: number): Msg => [mT(m) as MsgType, mK(m), mTs(m), mFrom(m), mTo(m), 0, 0, mV(m)];
  return {
    rec: Array.from({ length: N }, (_, n) => Array.from({ length: K }, (_, k) => {
      const r = n * K + k;
      return { val: s.val[r], vts: s.vts[r], gv: s.gv[r], gd: s.gd[r], rd: rd(s, r), wr: s.wr[r], iss: s.iss[r], vq: [] };
    })),
    nvm: Array.from({ length: N }, (_, n) => Array.from(s.nvm.subarray(n * W, n * W + s.nvmN[n])).flatMap((e) => [eK(e), eTs(e), eV(e)])),
    co: Array.from({ length: C }, (_, c) => coord(c)),
    cl: Array.from(s.cl),
    fo: Array.from(s.fo.subarray(0, s.foN), foll),
    net: Array.from(s.net.subarray(0, s.netN), message),
    bg: [],
    crashed: false,
    pr: [],
    g: {
      wts: Array.from(s.wts, (t) => t - 1), wst: Array.from(s.wst), readMax: Array.from(s.readMax), pd: filled(g.cx.scopes + 1, 0),
      i2: g.said.values[s.i2], i11: g.said.values[s.i11], lin: g.said.values[s.lin],
    },
  };
}

export function buildSynchWords(given: MinosConfig, variant?: string): Machine {
  if (!synchWordsRun(given, variant)) throw new Error('minos synch-words: not a config this file runs (synchWordsRun)');
  const cfg = canonicalConfig(given);
  const cx = context(cfg, VARIANTS.flags(variant), variant);
  const g = new Sy(cfg, cx);
  const { N, K, C, W } = g;
  const L = synchLayout(N, K, C, W);
  const machine = layoutMachine<typeof L.fields, WordAction>(L, {
    init: () => [{}], // v0 everywhere (<0,A> = 0), every lock free, no thread, no message
    actions: actions.bind(undefined, g),
    step: step.bind(undefined, g),
    invariants: Object.fromEntries(INVARIANTS.map(([name, check]) => [name, check.bind(undefined, g)])),
    // Deadlock: every client finished and no thread left.
    mayStop: (s) => {
      if (s.foN !== 0) return false;
      for (let c = 0; c < C; c++) if (s.pc[c] !== C_NONE || s.cl[c] !== cfg.clients[c].ops.length) return false;
      return true;
    },
    // Livelock: a cycle in which no client operation completes.
    progress: (b, _a, a) => {
      for (let c = 0; c < C; c++) if (a.cl[c] !== b.cl[c]) return true;
      return false;
    },
    actor: (a) => actorOf(a),
  }, { local: true }); // i2, i11, lin are Numbered: another build numbers them in another order
  machine.history = observerOf<S>(cx, false, {
    cl: (s, c) => s.cl[c],
    pending: (s, c) => s.pc[c] !== C_NONE && s.resp[c] === 0,
    writing: (s, c) => s.pc[c] !== C_NONE,
    threadKey: (s, c) => (s.pc[c] === C_NONE ? -2 : s.k[c]),
    val: (s, n, k) => s.val[n * K + k],
    // only these steps write a coordinator thread's response or a script position
    quiet: (_b, a) => a.step !== 'allACKs_L19_22' && a.step !== 'persistencySpin_L3',
  });
  // shown as the plain machine's state, whose ghosts are its field g
  return Object.assign(machine, { inner: (s: S) => plainOf(g, s), internal: ['g'] }) as unknown as Machine;
}
