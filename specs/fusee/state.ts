// FUSEE's SNAPSHOT machine: its config, state, actions, and the one copy next() makes
// (specs/kit/state.ts: copy what steps change in place, share what they only replace).
// Names follow the paper (FAST '23 Alg. 1-4: v_old, v_new, v_list) and the extraction
// (../shared/protocols/fusee-snapshot.md, "X§n"): the program counters are the atomic
// steps of X§6.2.

import type { StepAction } from '../kit/table.ts';
import { ByteWords, cachedWords } from '../kit/words.ts';
import type { Mon } from '../kit/object-ghost.ts';

/**
 * One client operation. Register level: write(v) / read. KV level: insert / delete / search
 * of key k. Every op has both fields (k = 0 at the register level, v = 0 where the op writes
 * none), made by `operation` alone: register and KV ops are then one hidden class, and the steps
 * that read them stay optimized for both.
 */
export interface Op {
  f: 'write' | 'read' | 'insert' | 'delete' | 'search';
  k: number;
  v: number;
}

export const operation = (f: Op['f'], k: number, v: number): Op => ({ f, k, v });

export interface FuseeConfig {
  /** replication factor: one primary and r-1 backups */
  r: number;
  /** one script per client; written values are unique and > 0 (x0 = 0) */
  clients: Op[][];
  clientCrashes: number;
  mnCrashes: number;
  /** per-backup CASes in any order (faithful) or in replica order (smaller) */
  casOrder: 'free' | 'fixed';
  /**
   * An open workload, for validating an implementation's trace (trace.ts): no scripts
   * (`clients` is empty and clients join with `joinClient`); an idle client invokes
   * whatever the trace says (`openInvoke`: a write of `x`, or a read); every client may
   * crash; MNs may crash while anything runs; no ghost bookkeeping, history or invariants.
   */
  open?: boolean;
}

/** replica value of a crashed MN; RDMA verbs on it return FAIL */
export const CRASHED = -1;
/** a CAS not yet returned / an old value not yet written */
export const NONE = -2;
/** M16's re-allocated object for value v has the address v + FRESH */
export const FRESH = 50;
/** old-value field of a log the master committed (the special value 1 of [L796]) */
export const COMMITTED = -3;

/**
 * Program counters, named after Alg. 1/2/4 (X§2.1, X§2.4) and the atomic steps of X§6.2.
 * idle | W1 read primary | W2 CAS backups | W3 Rule-3 re-read | W4 fix-up | W5 commit log |
 * W6 CAS primary | L1 loser wait | L2 loser return | F1 fail_query sent | F2 master replied |
 * R2 read backups | RF reader's fail_query | RF2 reader replied | down (crashed)
 */
export type Pc = 'idle' | 'W1' | 'W2' | 'W3' | 'W4' | 'W5' | 'W6' | 'L1' | 'L2' | 'F1' | 'F2' | 'R2' | 'RF' | 'RF2' | 'down';

/** Decisions of EVALUATE_RULES (Alg. 2). */
export const enum Win {
  None = 0,
  R1 = 1,
  R2 = 2,
  R3 = 3,
  Lose = 4,
  Finish = 5,
  Fail = 6,
}

/** Recovery status of a client: live, crashed awaiting RecoverClient, redo agent running, recovered. */
export const enum Rec {
  Live = 0,
  Pending = 1,
  Redo = 2,
  Done = 3,
}

/** The client's tail embedded log entry (X§2.5): [v_new, used bit, old value]. */
export type LogEntry = [vNew: number, used: number, old: number];

/** A client; a step that changes it copies it first (`ownClient`), so a state's clients never change once made. Its arrays are replaced, never changed. */
export interface Client {
  pc: Pc;
  /** index of the current (or next) op in the script */
  op: number;
  vOld: number;
  vNew: number;
  /** the primary replica and the backup replicas read at line 6 (clients use the view of that moment) */
  pr: number;
  bk: number[];
  /** v_list: per entry of bk, the CAS's return (NONE while outstanding); winners mark fixed entries v_new */
  vl: number[];
  win: Win;
  /** the master's reply to fail_query */
  rpc: number;
  /** ghost: round (primary changes + master episodes) at line 6 */
  rd: number;
  rec: Rec;
  log: LogEntry;
}

/** Ghost state of the invariants (X§4.3); copied by a step's first change of it (`ownGhost`), its arrays replaced, never changed. */
export interface Ghost {
  /** rounds: client/recovery primary changes plus master episodes */
  rnd: number;
  /** values the primary has held (sorted) */
  ph: number[];
  /** proposals v_old -> v_new of ops that executed line 6, each as `pair(vOld, vNew)` (sorted) */
  props: number[];
  /** round winners, each as `pair(round, vNew)` (sorted) */
  wins: number[];
  /** values of ops that responded as non-winners (sorted) */
  dead: number[];
  /** the current round's value x_u (the primary's, also while the primary is crashed) */
  cur: number;
  /** the first complete snapshot (a v_list) of the current round taken before any fix-up, empty if none */
  snap: number[];
  /** a fix-up CAS has run in the current round */
  fixing: boolean;
  /** the first transition invariant broken, '' while none */
  tv: string;
}

export interface FuseeState {
  /** the slot's value on each replica (MN), CRASHED once its MN crashed */
  rep: number[];
  primary: number;
  backups: number[];
  /** the master is between member_prepare_change and its decision (Alg. 3 l.3-10) */
  fenced: boolean;
  mnLeft: number;
  clLeft: number;
  cl: Client[];
  g: Ghost;
  /** the linearizability ghost of the client history (LIN; kit/object-ghost.ts) */
  mon: Mon;
}

/** The steps, each named after the paper's (steps.ts). */
export type Step =
  | 'invoke'
  | 'read'
  | 'readPrimary'
  | 'casBackup'
  | 'reRead'
  | 'fixup'
  | 'commitLog'
  | 'casPrimary'
  | 'loserWait'
  | 'loserReturn'
  | 'failReply'
  | 'readBackups'
  | 'readReply'
  | 'crashClient'
  | 'recoverClient'
  | 'crashMN'
  | 'prepare'
  | 'decide';

export interface FuseeAction extends StepAction {
  step: Step;
  /** the client, -1 for the master and MN crashes */
  c: number;
  /** replica index (casBackup/fixup: index into the client's bk) or the master's chosen value */
  x: number;
}

/** Pairs the ghost keeps in its sets (a proposal, a round's winner) as one number: each of the two in [0, 64). */
export const PAIR = 64;

/** The pair (a, b) as one number, a * PAIR + b (the ghost's rounds and values are small: a config outside that range is an error, not a collision). */
export function pair(a: number, b: number): number {
  if (!(a >= 0 && a < PAIR && b >= 0 && b < PAIR)) throw new Error(`fusee ghost: (${a}, ${b}) is outside [0, ${PAIR}) (rounds and values of a closed config are small)`);
  return a * PAIR + b;
}

export const act = (step: Step, label: string, c = -1, x = -1): FuseeAction => ({ label, step, c, x });

export function idleClient(op: number, rec: Rec, log: LogEntry): Client {
  return { pc: rec === Rec.Live ? 'idle' : 'down', op, vOld: NONE, vNew: NONE, pr: -1, bk: [], vl: [], win: Win.None, rpc: NONE, rd: 0, rec, log };
}

export const copyClient = (c: Client): Client => ({
  pc: c.pc, op: c.op, vOld: c.vOld, vNew: c.vNew, pr: c.pr, bk: c.bk, vl: c.vl, win: c.win, rpc: c.rpc, rd: c.rd, rec: c.rec, log: c.log,
});

export const copyGhost = (g: Ghost): Ghost => ({
  rnd: g.rnd, ph: g.ph, props: g.props, wins: g.wins, dead: g.dead, cur: g.cur, snap: g.snap, fixing: g.fixing, tv: g.tv,
});

/**
 * The one copy next() makes: the client list, whose entries steps replace. The replicas,
 * a client and the ghost are copied by the step's first change of each (`ownRep`,
 * `ownClient`, `ownGhost`; most steps change one client and nothing else), and then
 * changed in place: a part the step did not copy is its parent's, shared, never changed.
 * The monitor and the view are replaced, never changed, so they are shared.
 */
export function copy(s: FuseeState): FuseeState {
  owned.rep = null;
  owned.g = null;
  owned.n = 0;
  return { rep: s.rep, primary: s.primary, backups: s.backups, fenced: s.fenced, mnLeft: s.mnLeft, clLeft: s.clLeft, cl: s.cl.slice(), g: s.g, mon: s.mon };
}

/** What the step being taken has copied so far (on its first change of each): the replicas, the ghost, the first n of cl. */
const owned = { rep: null as number[] | null, g: null as Ghost | null, cl: [] as Client[], slot: [] as number[], n: 0 };

/** The replicas of d for a step to change: a copy, made on the step's first change. */
export function ownRep(d: FuseeState): number[] {
  if (d.rep !== owned.rep) owned.rep = d.rep = d.rep.slice();
  return d.rep;
}

/** Client c of d for a step to change: a copy, made on the step's first change of it. */
export function ownClient(d: FuseeState, c: number): Client {
  const me = d.cl[c];
  for (let i = 0; i < owned.n; i++) if (owned.cl[i] === me) return me;
  return replaceClient(d, c, copyClient(me));
}

/** Client c of d replaced by a new one (a response, a crash, a recovery), which the step then owns. */
export function replaceClient(d: FuseeState, c: number, me: Client): Client {
  owned.slot[owned.n] = c;
  owned.cl[owned.n++] = me;
  return (d.cl[c] = me);
}

/** The ghost of d for a step to change: a copy, made on the step's first change. */
export function ownGhost(d: FuseeState): Ghost {
  if (d.g !== owned.g) owned.g = d.g = copyGhost(d.g);
  return d.g;
}

// ---- clients and ghosts by value ----
// A config reaches few distinct clients and ghosts (A3: 573 clients, 320 ghosts; E1: 448
// and 144) but its steps make new ones all the time (E1: 483,558 clients over 475,744
// transitions, 105,657 ghosts). After each step, the clients and the ghost it made are
// replaced by the equal one made before, if any (`Pools.settle`): states then share a few
// hundred of each, whose words the encoding makes once (`wordsOnce`), and a step's copies
// die young instead of surviving in every new state. Equal parts are interchangeable (a
// state's parts never change once it is made), so the states, counts and counterexamples
// are the same.

function sameInts(a: readonly number[], b: readonly number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const mix = (h: number, x: number): number => Math.imul(h ^ x, 0x9e3779b1) ^ (h >>> 15);

function hashInts(h: number, xs: readonly number[]): number {
  h = mix(h, xs.length);
  for (let i = 0; i < xs.length; i++) h = mix(h, xs[i]);
  return h;
}

function hashString(h: number, x: string): number {
  h = mix(h, x.length);
  for (let i = 0; i < x.length; i++) h = mix(h, x.charCodeAt(i));
  return h;
}

const sameClient = (a: Client, b: Client): boolean =>
  a.pc === b.pc && a.op === b.op && a.vOld === b.vOld && a.vNew === b.vNew && a.pr === b.pr && a.win === b.win && a.rpc === b.rpc && a.rd === b.rd && a.rec === b.rec &&
  sameInts(a.bk, b.bk) && sameInts(a.vl, b.vl) && sameInts(a.log, b.log);

function hashClient(c: Client): number {
  let h = mix(PC[c.pc], c.op);
  h = mix(mix(mix(mix(h, c.vOld), c.vNew), c.pr), c.win);
  h = mix(mix(mix(h, c.rpc), c.rd), c.rec);
  return hashInts(hashInts(hashInts(h, c.bk), c.vl), c.log);
}

const sameGhost = (a: Ghost, b: Ghost): boolean =>
  a.rnd === b.rnd && a.cur === b.cur && a.fixing === b.fixing && a.tv === b.tv &&
  sameInts(a.ph, b.ph) && sameInts(a.props, b.props) && sameInts(a.wins, b.wins) && sameInts(a.dead, b.dead) && sameInts(a.snap, b.snap);

function hashGhost(g: Ghost): number {
  let h = mix(mix(mix(g.rnd, g.cur), g.fixing ? 1 : 0), 7);
  h = hashInts(hashInts(hashInts(hashInts(hashInts(h, g.ph), g.props), g.wins), g.dead), g.snap);
  return hashString(h, g.tv);
}

/** Objects by value: the first made of each, by a hash and an equality of their fields. */
class Pool<T> {
  private readonly byHash = new Map<number, T[]>();
  private size = 0;

  constructor(
    private readonly hash: (x: T) => number,
    private readonly same: (a: T, b: T) => boolean,
  ) {}

  /** The object equal to x made first (x itself if none). */
  intern(x: T): T {
    const h = this.hash(x);
    const bucket = this.byHash.get(h);
    if (bucket === undefined) {
      // Beyond this many, pooling starts afresh (results are the same; only sharing is lost).
      if (++this.size > 100_000) {
        this.byHash.clear();
        this.size = 1;
      }
      this.byHash.set(h, [x]);
      return x;
    }
    for (let i = 0; i < bucket.length; i++) if (this.same(bucket[i], x)) return bucket[i];
    bucket.push(x);
    this.size++;
    return x;
  }
}

/** One machine's clients and ghosts by value (its steps' `after`). */
export class Pools {
  private readonly clients = new Pool(hashClient, sameClient);
  private readonly ghosts = new Pool(hashGhost, sameGhost);

  /** Replaces the clients and the ghost the step just taken made (ownClient, replaceClient, ownGhost) by pooled equals. */
  settle(d: FuseeState): void {
    for (let i = 0; i < owned.n; i++) {
      const c = owned.slot[i];
      d.cl[c] = this.clients.intern(d.cl[c]);
    }
    if (owned.g !== null) d.g = this.ghosts.intern(d.g);
  }
}

// ---- the state as words (Machine.encode): every field, in a fixed order ----
// Variable-length parts (the backups, clients, lists, strings, the monitor's operations and
// configurations) carry their length first, so the code is a prefix code: two states get
// the same words exactly when they are equal as plain data, as with the engine's generic
// encoding (the same states, counts and counterexamples), at a fraction of its cost. Small
// integers are one byte each (kit/words.ts `ByteWords`): a state is some 40 words, not
// 130-200, and the engine's hashing and storing of each state is linear in its words.

const PC: Record<Pc, number> = { idle: 0, W1: 1, W2: 2, W3: 3, W4: 4, W5: 5, W6: 6, L1: 7, L2: 8, F1: 9, F2: 10, R2: 11, RF: 12, RF2: 13, down: 14 };

function putClient(w: ByteWords, c: Client): void {
  w.int(PC[c.pc]);
  w.int(c.op);
  w.int(c.vOld);
  w.int(c.vNew);
  w.int(c.pr);
  w.ints(c.bk);
  w.ints(c.vl);
  w.int(c.win);
  w.int(c.rpc);
  w.int(c.rd);
  w.int(c.rec);
  w.int(c.log[0]);
  w.int(c.log[1]);
  w.int(c.log[2]);
}

function putGhost(w: ByteWords, g: Ghost): void {
  w.int(g.rnd);
  w.ints(g.ph);
  w.ints(g.props);
  w.ints(g.wins);
  w.ints(g.dead);
  w.int(g.cur);
  w.ints(g.snap);
  w.int(g.fixing ? 1 : 0);
  w.string(g.tv);
}

function putMon(w: ByteWords, m: Mon): void {
  w.int(m.ops.length);
  for (const o of m.ops) {
    w.int(o.c);
    w.string(o.f);
    w.int(o.k);
    w.int(o.v);
    w.int(o.x ? 1 : 0);
  }
  w.int(m.cfgs.length);
  for (const c of m.cfgs) w.ints(c);
  w.string(m.bad);
}

// Clients, the ghost and the monitor never change once their state is made (a step copies
// what it changes), and few distinct ones are shared by many states (pooled above; the
// monitor's equal values are one object, kit/object-ghost.ts): each one's words are made
// once and kept by the object (a weak map), then copied into every state that holds it.
// The last two met in each slot (a client's index; one slot for the ghost, the monitor)
// are checked first: a state's successors mostly keep their parent's parts, and a weak
// map's lookup costs several times a comparison.
function wordsOnce<T extends object>(put: (w: ByteWords, x: T) => void): (x: T, slot: number) => Int32Array {
  const make = cachedWords(put, new ByteWords());
  const xs: (T | null)[] = [];
  const wss: Int32Array[] = [];
  return (x, slot) => {
    const k = 2 * slot;
    if (xs[k] === x) return wss[k];
    if (xs[k + 1] === x) return wss[k + 1];
    const ws = make(x);
    // the older of the two makes way: the one just met becomes the first
    xs[k + 1] = xs[k] ?? null;
    wss[k + 1] = wss[k];
    xs[k] = x;
    wss[k] = ws;
    return ws;
  };
}

const clientWords = wordsOnce(putClient);
const ghostWords = wordsOnce(putGhost);
const monWords = wordsOnce(putMon);
const bytes = new ByteWords();

/** Machine.encode: the words of s (see above); -1 when `out` is too short. */
export function encode(s: FuseeState, out: Int32Array): number {
  const w = bytes.begin(out);
  w.ints(s.rep);
  w.int(s.primary);
  w.ints(s.backups);
  w.int(s.fenced ? 1 : 0);
  w.int(s.mnLeft);
  w.int(s.clLeft);
  w.int(s.cl.length);
  for (let c = 0; c < s.cl.length; c++) {
    const ws = clientWords(s.cl[c], c);
    w.words(ws, ws.length);
  }
  const gw = ghostWords(s.g, 0);
  w.words(gw, gw.length);
  const mw = monWords(s.mon, 0);
  w.words(mw, mw.length);
  return w.end();
}

// V8 takes a field written only when its object was made for a constant, and throws away
// the code it optimized on that assumption (the machine's steps, copy, encode and the
// engine's loop that inlines them) once a step first writes the field in place. The configs
// bring such steps late (clLeft at the first client crash; fenced, primary, backups, mnLeft
// and a client's rpc at the first MN crash), so each of those writes cost a round of
// recompiling. Every field a step writes in place is written once here, at load, on an
// object of the same shape, so that the code is optimized for them from the start.
function settleFields(): void {
  const me = copyClient(idleClient(0, Rec.Live, [NONE, 0, NONE]));
  me.pc = 'W1';
  me.op = me.vOld = me.vNew = me.pr = me.rpc = me.rd = 1;
  me.bk = [1];
  me.vl = [1];
  me.win = Win.R1;
  me.rec = Rec.Done;
  me.log = [1, 1, 1];
  const g = copyGhost({ rnd: 0, ph: [0], props: [], wins: [], dead: [], cur: 0, snap: [], fixing: false, tv: '' });
  g.rnd = g.cur = 1;
  g.ph = [1];
  g.props = [1];
  g.wins = [1];
  g.dead = [1];
  g.snap = [1];
  g.fixing = true;
  g.tv = '1';
  const s = copy({ rep: [0], primary: 0, backups: [1], fenced: false, mnLeft: 1, clLeft: 1, cl: [me], g, mon: { ops: [], cfgs: [], bad: '' } });
  s.rep = [1];
  s.primary = 1;
  s.backups = [2];
  s.fenced = true;
  s.mnLeft = s.clLeft = 0;
  s.cl = [me];
  s.g = copyGhost(g);
  s.mon = { ops: [], cfgs: [], bad: '' };
}
settleFields();
