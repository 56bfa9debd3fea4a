// ROWAN-KV state: plain data only. Names follow the paper and the extraction
// (/work/shared/protocols/rowan.md §1.3): t-log, b-log, segment states, shard version,
// CommitVer, CommitVerArray, MaxVerArray, configuration term.
import { objectList, rewritten } from '../kit/state.ts';
import { ByteWords, KeptWords } from '../kit/words.ts';

export type OpKind = 'put' | 'del' | 'get';
export interface ClientOp {
  f: OpKind;
  k: number;
}

export interface RowanConfig {
  servers: number;
  /** Per shard, its initial replicas: [primary, ...backups]. */
  shards: number[][];
  /** The shard of each key (keys are 0..n-1). */
  keyShard: number[];
  /** Worker threads at each server; client c is bound to worker c % workers (L337). */
  workers: number;
  clients: ClientOp[][];
  /** Failure budget: crashes plus false suspicions (§1.6). */
  failures: number;
  failKinds: ('crash' | 'suspect')[];
  /** The servers that may crash or be suspected. */
  failTargets: number[];
  /** A spare server the CM adds as a new backup on failover (§3.4), or -1. */
  spare: number;
  /** Slots per segment (one log entry = one slot, §6.1). */
  segCap: number;
  /** b-log segments each server owns (posted to the MP SRQ at start-up, L270). */
  segs: number;
  /** How many CommitVer disseminations may happen (0: CommitVer off). */
  commitVer: number;
  /** t-log segments become committed when full and fully replicated (L247). */
  tlogCommit: boolean;
  /** How many clean-thread runs may happen (0: GC off). */
  gc: number;
  /** One whole-cluster power failure, then cold start (§3.8). */
  powerFail: boolean;
  /** "landed" split into received and persisted (the trailing READ), t-log persist separate. */
  split: boolean;
  /** One primary migration of shard 0 from src to tgt (§3.9). */
  migrate: null | { src: number; tgt: number };
  /**
   * Split DMA (§6.3): landing is split into allocSlot and dmaDone, markUsed honours the
   * 2 ms wait, and a sender retries a replication write whose DMA is outstanding (L274).
   */
  dma: boolean;
  /** The RNIC may pop the next receive buffer when a SEND does not fit in the space left (L184). */
  tailSkip: boolean;
  /** CommitVer is written on its 15 ms timer, also when it has not advanced (L280). */
  cvTimer: boolean;
  /** Clean threads reclaim a tombstone once no older entry of its key is left in the server's PM ([I]). */
  tombGc: boolean;
}

/** A log entry (§1.3). COMMITVER records carry the watermark in x. */
export interface Entry {
  t: 'P' | 'D' | 'C';
  sh: number;
  v: number;
  k: number;
  x: number;
  /**
   * 1 while not yet in the persistence domain (split config only); 2 while the slot is
   * allocated but its DMA is outstanding (dma config only): the slot holds no valid entry.
   */
  np: number;
}

export type SegState = 'free' | 'using' | 'used' | 'committed';
/** A segment (L238-L247). log: t-log, b-log, r = recovery/scatter/migration store, c = clean. */
export interface Seg {
  id: number;
  log: 't' | 'b' | 'r' | 'c';
  st: SegState;
  es: Entry[];
  /** Digested (b-log) */
  dg: boolean;
  /** MaxVerArray of this segment, by shard (L282). */
  mv: number[];
  /** Slots whose DMA was outstanding when the digest read them (checksum invalid: skipped), or null: none. */
  bad: number[] | null;
  /** The RNIC left the tail of this buffer unused and popped the next one (tailSkip). */
  sk: boolean;
  /** Mutant M23: what the slots held in the segment's previous life (slot 0 zeroed), still checksum-valid; null: nothing. */
  old: (Entry | null)[] | null;
}

/** An index item: the version and location of the entry it points to (L353). */
export interface Item {
  v: number;
  /** Tombstone: the item points to a DEL entry (§2.4 [I]). */
  d: boolean;
  x: number;
  loc: string;
}

/** A PUT/DEL coroutine context at the primary (L333, L343). */
export interface Ctx {
  op: number;
  c: number;
  e: Entry;
  /** The backups of the shard when the PUT started. */
  bs: number[];
  acks: number[];
  /** A SEND hit a destroyed QP (G5): this PUT never completes. */
  err: boolean;
  /** Backups the write was retried to (dma config): only the retry's ACK counts (L274). */
  rt: number[];
}

export interface Promo {
  sh: number;
  coll: number[];
  U: Entry[];
  sc: number[];
}

export interface Server {
  up: boolean;
  lease: boolean;
  /** Term of the cached configuration. */
  term: number;
  /** Last committed term seen: blocked while com < term (L294). */
  com: number;
  idx: (Item | null)[];
  shardVersion: number[];
  commitVer: number[];
  commitVerArray: number[];
  shardBlocked: boolean[];
  /** The shard version set by this server's last promotion (-1: none). */
  promoVer: number[];
  /** MIGRATE_VERSION received (-1: none). */
  migVer: number[];
  /** Ghost: the highest version that reached point V here, or was installed by recovery. */
  done: number[];
  ctx: Ctx[];
  segs: Seg[];
  nextSeg: number;
  /** Current b-log receive buffer (segment id), -1 before the first landing. */
  cur: number;
  /** Received but not yet flushed entries (split config): where they sit and whom to ACK. */
  unflushed: { seg: number; slot: number; from: number; op: number }[];
  /** Allocated slots whose DMA is outstanding (dma config), with the attempt (0, or 1 for the retry). */
  dma: { seg: number; slot: number; from: number; op: number; r: number }[];
  /** Ghost: per key, the version of the last tombstone the clean thread reclaimed here (0: none). */
  tomb: number[];
  promo: Promo | null;
  rerep: { sh: number; r: number; seg: number; done: number[] } | null;
  /** Cold start: 0 normal, 1 recovering (§3.8). */
  cold: number;
  pushed: number[];
  migSent: boolean;
  migCopied: number[];
  /** Clean thread between copying live entries and fixing index pointers (M11). */
  clean: {
    seg: number;
    moved: { k: number; v: number; loc: string; e: Entry }[];
    /** Tombstones reclaimed instead of copied (tombGc): their index items go at cleanFix; null: none. */
    rm: { k: number; v: number; loc: string }[] | null;
  } | null;
}

export interface Dist {
  p: number;
  bs: number[];
}

export interface Cfg {
  members: number[];
  dist: Dist[];
  /** Per shard, replicas that have not caught up yet (re-replication, migration target). */
  lag: number[][];
  mig: null | { src: number; tgt: number; sh: number; prev: Dist };
  /** Variant M22 only: the source the literal rollback reinstates as primary, or -1. */
  rb: number;
  /** A failover configuration (two-phase with blocking) rather than a migration one. */
  fo: boolean;
}

export interface CM {
  term: number;
  cfgs: Cfg[];
  /** Servers the CM considers failed and has not yet removed. */
  down: number[];
  resp: number[];
  phase: 'stable' | 'new';
  fails: number;
  cvLeft: number;
  gcLeft: number;
  pf: boolean;
  /** Migration: 0 not started, 1 running, 2 done, 3 rolled back. */
  mig: number;
}

/** sent: request in flight; wait: PUT/DEL accepted at the primary (point A done). */
export type ClientSt = 'idle' | 'sent' | 'wait' | 'rej' | 'reply' | 'lost' | 'done';
export interface Client {
  pc: number;
  st: ClientSt;
  to: number;
  term: number;
  out: number | null;
  /** Version of the acked PUT/DEL (ghost, for I1/H2). */
  v: number;
}

export interface Msg {
  e: Entry;
  op: number;
  /** 1 for a retried replication write (dma config), else 0. */
  r: number;
}

export interface RowanState {
  srv: Server[];
  /** RC QPs as FIFO channels (§6.1), one per sender, worker and receiver: `ch[chanSlot(…)]`, NO_MSGS when empty. */
  ch: Msg[][];
  /** Destroyed QPs "a-b", a < b. */
  dead: string[];
  cl: Client[];
  cm: CM;
  /** Ghost: acked writes (shard, key, version). */
  acked: { sh: number; k: number; v: number }[];
  /** Ghost: the first transition-property violation (I4, I13, I14), or ''. */
  bad: string;
}

/**
 * The copy next() starts from: only the servers the step writes are copied, and in them
 * only the fields; their lists (index, contexts, segments, versions …) are shared until
 * the step takes one with `own`. Log entries, segments, index items, configurations,
 * messages and QP queues are never modified in place (a step that changes a segment
 * replaces it, see segW; one that sends or lands a message replaces the queue), so they
 * are shared. The QP channels, the CM, the clients,
 * the destroyed QPs and the acked writes are shared with the state before too, until a
 * step takes them to change (`chW`, `cmW`, `clientW`) or replaces them: most steps write
 * none of them, and a part shared is a part whose words are copied, not written (encode).
 */
export function copy(st: RowanState, writes: number[] | 'all'): RowanState {
  const srv = st.srv.slice();
  if (writes === 'all') for (let i = 0; i < srv.length; i++) srv[i] = copyServer(srv[i]);
  else for (let j = 0; j < writes.length; j++) srv[writes[j]] = copyServer(st.srv[writes[j]]);
  return { srv, ch: st.ch, dead: st.dead, cl: st.cl, cm: st.cm, acked: st.acked, bad: st.bad };
}

/**
 * The records steps change in place (a state's copy, a server, the CM, a client, a
 * segment), each made by its copy function and rewritten once (kit `rewritten`), so that
 * no config's first rewrite of a field (CommitVer's budget, a power failure, a migration)
 * throws away the code compiled for the configs before it. Called when a machine is
 * built; changes nothing of st (it works on a copy).
 */
export function rewriteFields(st: RowanState): void {
  const d = copy(st, 'all');
  rewritten(d);
  const s = d.srv[0];
  rewritten(s);
  rewritten(cmW(d));
  if (d.cl.length) rewritten(clientW(d, 0));
  if (s.segs.length) rewritten(segW(s, s.segs[0].id));
}

/** Client c of the copy d, to change (a copy, in a copy of the list: clients are shared with the state before). */
export function clientW(d: RowanState, c: number): Client {
  const x = d.cl[c];
  d.cl = d.cl.slice();
  return (d.cl[c] = { pc: x.pc, st: x.st, to: x.to, term: x.term, out: x.out, v: x.v });
}

/** The CM of the copy d, to change (a copy: the CM is shared with the state before; its lists are replaced, never changed, except cfgs, copied here). */
export function cmW(d: RowanState): CM {
  const cm = d.cm;
  return (d.cm = { term: cm.term, cfgs: cm.cfgs.slice(), down: cm.down, resp: cm.resp, phase: cm.phase, fails: cm.fails, cvLeft: cm.cvLeft, gcLeft: cm.gcLeft, pf: cm.pf, mig: cm.mig });
}

/** The QP channels of the copy d, to change (a copy of the list; the queues in it are replaced, never changed). */
export function chW(d: RowanState): Msg[][] {
  return (d.ch = d.ch.slice());
}

// The QP channels are a list with a slot per (sender, worker, receiver), fixed by the
// configuration, not a record keyed by "from.worker>to": a record's set of keys is its
// hidden class, so each set of non-empty channels was another shape (13 over the defaults).
// With servers n and workers W the list has n·W·n slots, so W is read off its length. The
// slots go in the order of the keys "from.worker>to" sorted (for fewer than 10 servers and
// workers), the order the landing steps were enabled in before.

/** The empty queue (shared: queues are replaced, never changed). */
export const NO_MSGS: Msg[] = objectList<Msg>();

/** The QP channels of a configuration, all empty. */
export function noChannels(conf: RowanConfig): Msg[][] {
  return filledWith(conf.servers * conf.workers * conf.servers, NO_MSGS);
}

/** The slot of the QP channel from worker w of server from to server to. */
export function chanSlot(st: RowanState, from: number, w: number, to: number): number {
  const n = st.srv.length;
  return (from * (st.ch.length / (n * n)) + w) * n + to;
}

/** The sender of the QP channel in slot i. */
export const chanFrom = (st: RowanState, i: number): number => Math.floor(i / (st.ch.length / st.srv.length));
/** The receiver of the QP channel in slot i. */
export const chanTo = (st: RowanState, i: number): number => i % st.srv.length;

/** The key "from.worker>to" of the QP channel in slot i (an action's key: how traces name it). */
const chanKeys = new Map<number, string[]>();
export function chanKey(st: RowanState, i: number): string {
  const n = st.srv.length;
  const size = st.ch.length;
  let keys = chanKeys.get(size * 64 + n);
  if (keys === undefined) {
    const W = size / (n * n);
    keys = [];
    for (let j = 0; j < size; j++) keys.push(`${Math.floor(j / (W * n))}.${Math.floor(j / n) % W}>${j % n}`);
    chanKeys.set(size * 64 + n, keys);
  }
  return keys[i];
}

/** The slot of the QP channel with key "from.worker>to". */
export function slotOf(st: RowanState, key: string): number {
  const [from, w, to] = chan(key);
  return chanSlot(st, from, w, to);
}

/** A server's lists that copyServer shares with the state before: a step changing one in place takes it with `own`. */
type Shared = 'idx' | 'ctx' | 'segs' | 'shardVersion' | 'commitVer' | 'commitVerArray' | 'shardBlocked' | 'promoVer' | 'migVer' | 'done' | 'tomb' | 'unflushed' | 'dma';

/** List f of server s (a server of the copy), to change in place: a copy of it, in s. */
export function own<K extends Shared>(s: Server, f: K): Server[K] {
  return (s[f] = s[f].slice() as Server[K]);
}

/** Context i of server s (a server of the copy), to change: a copy (contexts are shared with the state before; their lists are replaced, never changed). */
export function ctxW(s: Server, i: number): Ctx {
  const c = s.ctx[i];
  return (own(s, 'ctx')[i] = { op: c.op, c: c.c, e: c.e, bs: c.bs, acks: c.acks, err: c.err, rt: c.rt });
}

// The servers a step writes are copied; what is shared with the state before (the lists
// of `Shared`, the cold-start and migration lists, which are replaced, never changed) is
// copied by the step that changes it.
// A literal naming every field (not a spread): every server then has one shape, which
// keeps copying and reading it fast.
function copyServer(s: Server): Server {
  return {
    up: s.up,
    lease: s.lease,
    term: s.term,
    com: s.com,
    idx: s.idx,
    shardVersion: s.shardVersion,
    commitVer: s.commitVer,
    commitVerArray: s.commitVerArray,
    shardBlocked: s.shardBlocked,
    promoVer: s.promoVer,
    migVer: s.migVer,
    done: s.done,
    ctx: s.ctx,
    segs: s.segs,
    nextSeg: s.nextSeg,
    cur: s.cur,
    unflushed: s.unflushed,
    dma: s.dma,
    tomb: s.tomb,
    // coll, sc and done are replaced, never changed; U grows in place (promoCollect)
    promo: s.promo && { sh: s.promo.sh, coll: s.promo.coll, U: s.promo.U.slice(), sc: s.promo.sc },
    rerep: s.rerep && { sh: s.rerep.sh, r: s.rerep.r, seg: s.rerep.seg, done: s.rerep.done },
    cold: s.cold,
    pushed: s.pushed,
    migSent: s.migSent,
    migCopied: s.migCopied,
    clean: s.clean,
  };
}

// One shape per kind of object: an entry, a segment, a message, a server … is always
// made by a literal naming every field, in the same order, never by a spread (whose
// result V8 gives another hidden class) and never given a field later. The encoder, the
// invariants and the guards then meet one shape of each, in every configuration, and are
// compiled once, not again at each configuration that brings a new one.

// Lists too: V8 gives a list an "elements kind" (small integers, or any value; packed, or
// with holes), part of its hidden class. `[]` starts as small integers and changes class
// when the first object goes in; `new Array(n).fill(v)`, and Array.prototype.map once
// optimised, make lists with holes. The state's lists of objects (entries, segments,
// contexts …) and its per-shard and per-key lists are made by these, and by the kit's `objectList` and `filled` (kit/state.ts), instead.

/** n times v (null, a boolean), as a packed list of values. */
export function filledWith<T>(n: number, v: T): T[] {
  const xs = objectList<T>();
  for (let i = 0; i < n; i++) xs.push(v);
  return xs;
}

/** xs.map(f) for lists of objects or lists (a configuration's, per shard): a packed list. */
export function mapped<T, U>(xs: readonly T[], f: (x: T, i: number) => U): U[] {
  const out = objectList<U>();
  for (let i = 0; i < xs.length; i++) out.push(f(xs[i], i));
  return out;
}

/** The entries es, persisted (np 0): a new list. */
export function persisted(es: Entry[]): Entry[] {
  const out = objectList<Entry>();
  for (const e of es) out.push(withNp(e, 0));
  return out;
}

/** Entry e with persistence flag np: a new entry (entries are never changed in place). */
export const withNp = (e: Entry, np: number): Entry => ({ t: e.t, sh: e.sh, v: e.v, k: e.k, x: e.x, np });

/** A new segment, empty (L270: posted to the MP SRQ, or a new t-log, recovery or clean segment). */
export const newSegment = (id: number, log: Seg['log'], st: SegState, es: Entry[]): Seg => ({ id, log, st, es, dg: false, mv: [], bad: null, sk: false, old: null });

/** Segment g with the slots es and the MaxVerArray mv (a copy: segments are never changed once in a state). */
export const segWith = (g: Seg, es: Entry[], mv: number[]): Seg => ({ id: g.id, log: g.log, st: g.st, es, dg: g.dg, mv, bad: g.bad, sk: g.sk, old: g.old });

/** Replace segment `id` of s by a copy that the caller may modify. */
export function segW(s: Server, id: number): Seg {
  const segs = own(s, 'segs');
  const i = segs.findIndex((g) => g.id === id);
  const g = segWith(segs[i], segs[i].es.slice(), segs[i].mv.slice());
  segs[i] = g;
  return g;
}

export const opId = (c: number, pc: number) => c * 16 + pc;
/** Values are unique per PUT (§6.1): client c's op pc writes 10(c+1)+pc. */
export const valueOf = (c: number, pc: number) => (c + 1) * 10 + pc;
export const qpKey = (a: number, b: number) => (a < b ? `${a}-${b}` : `${b}-${a}`);
const segCode = new WeakMap<Seg, string>();
const cfgCode = new WeakMap<Cfg, string>();
const encEntry = (e: Entry) => `${e.t}${e.sh}.${e.v}.${e.k}.${e.x}${e.np === 1 ? '*' : e.np === 2 ? '?' : ''}`;
const encList = (xs: number[]) => xs.join(',');

/**
 * The state as a compact string (Machine.view): every field, in a fixed order, so that
 * equal states encode equally and different states differently.
 */
export function encodeState(st: RowanState): string {
  const parts: string[] = [];
  for (const s of st.srv) {
    parts.push(
      `S${+s.up}${+s.lease}${s.term}/${s.com}/${s.cold}/${encList(s.pushed)}/${+s.migSent}/${encList(s.migCopied)}`,
      s.idx.map((it) => (it ? `${it.v}${it.d ? 'd' : ''}=${it.x}@${it.loc}` : '-')).join(','),
      [s.shardVersion, s.commitVer, s.commitVerArray, s.promoVer, s.migVer, s.done].map(encList).join('|'),
      s.shardBlocked.map(Number).join(''),
      s.ctx.map((c) => `${c.op}:${encEntry(c.e)}:${encList(c.bs)}:${encList(c.acks)}${c.err ? '!' : ''}${c.rt.length ? `r${encList(c.rt)}` : ''}`).join(';'),
      `${s.nextSeg}c${s.cur}:` + s.segs.map(encSeg).join(''),
      s.unflushed.map((u) => `${u.seg}.${u.slot}.${u.from}.${u.op}`).join(',') +
        (s.dma.length ? `D${s.dma.map((d) => `${d.seg}.${d.slot}.${d.from}.${d.op}.${d.r}`).join(',')}` : '') +
        (s.tomb.some((v) => v > 0) ? `T${encList(s.tomb)}` : ''),
      s.promo ? `P${s.promo.sh}${encList(s.promo.coll)}[${s.promo.U.map(encEntry).join(' ')}]${encList(s.promo.sc)}` : '',
      s.rerep ? `R${s.rerep.sh}.${s.rerep.r}.${s.rerep.seg}.${encList(s.rerep.done)}` : '',
      s.clean
        ? `C${s.clean.seg}:${s.clean.moved.map((m) => `${m.k}.${m.v}.${m.loc}.${encEntry(m.e)}`).join(',')}` +
          (s.clean.rm ? `-${s.clean.rm.map((m) => `${m.k}.${m.v}.${m.loc}`).join(',')}` : '')
        : '',
    );
  }
  for (let i = 0; i < st.ch.length; i++) if (st.ch[i].length) parts.push(`${chanKey(st, i)}:${st.ch[i].map((m) => `${m.op}/${encEntry(m.e)}${m.r ? 'r' : ''}`).join(' ')}`);
  parts.push(`D${st.dead.join(',')}`);
  for (const c of st.cl) parts.push(`c${c.pc}${c.st}${c.to}.${c.term}.${c.out}.${c.v}`);
  const cm = st.cm;
  parts.push(`M${cm.term}${cm.phase}${encList(cm.down)}/${encList(cm.resp)}/${cm.fails}/${cm.cvLeft}/${cm.gcLeft}/${+cm.pf}/${cm.mig}`);
  for (const cfg of cm.cfgs) parts.push(encCfg(cfg));
  parts.push(st.acked.map((w) => `${w.sh}.${w.k}.${w.v}`).join(','), st.bad);
  return parts.join('\n');
}

function encSeg(g: Seg): string {
  let code = segCode.get(g);
  if (code === undefined) {
    code = `${g.id}${g.log}${g.st}${+g.dg}${encList(g.mv)}[${g.es.map(encEntry).join(' ')}]` +
      (g.bad ? `b${encList(g.bad)}` : '') + (g.sk ? 's' : '') + (g.old ? `o[${g.old.map((e) => (e ? encEntry(e) : '0')).join(' ')}]` : '');
    segCode.set(g, code);
  }
  return code;
}

function encCfg(cfg: Cfg): string {
  let code = cfgCode.get(cfg);
  if (code === undefined) {
    code = cfgText(cfg);
    cfgCode.set(cfg, code);
  }
  return code;
}

const cfgText = (cfg: Cfg): string =>
  `F${encList(cfg.members)}/${cfg.dist.map((d) => `${d.p}>${encList(d.bs)}`).join(';')}/${cfg.lag.map(encList).join(';')}/${cfg.rb}/${+cfg.fo}/` +
  (cfg.mig ? `${cfg.mig.src}.${cfg.mig.tgt}.${cfg.mig.sh}.${cfg.mig.prev.p}>${encList(cfg.mig.prev.bs)}` : '');

/**
 * One object per configuration (of one built machine): a step that makes a configuration
 * (failover, re-replication or migration done) gets the one made before with the same
 * fields, if any. Configurations are never changed once made, so this changes no state's
 * meaning, only which objects are equal by identity: many paths reach the same
 * configuration, and what is kept by configuration (the invariants' caught-up replicas and
 * verdicts, the configuration's words) is then found again instead of worked out anew for
 * each path's own copy (41,323 times over the defaults before).
 */
export class Configs {
  private readonly known = new Map<string, Cfg>();

  of(cfg: Cfg): Cfg {
    const text = cfgText(cfg);
    const had = this.known.get(text);
    if (had !== undefined) return had;
    this.known.set(text, cfg);
    return cfg;
  }
}

// ---- the same state as words (Machine.encode) ----
// Field for field what encodeState writes, as integers: the engine hashes these words
// instead of encoding the string. Written with the kit's ByteWords (an integer in [-8, 231]
// one byte, four a word): nearly every field is a small integer, and the engine hashes
// every successor's words (a state is about a third of the 220-290 words it took one
// integer a word). Kept and cached parts are aligned to a word at places the code fixes,
// so the encoding stays a prefix code. Equal states give equal words and different states
// different words exactly when their encodeState strings are equal (rowan.test.ts checks
// it over every state of several configs), so the counts are the string view's.

const SEG_STATES: Record<SegState, number> = { free: 0, using: 1, used: 2, committed: 3 };
const CLIENT_STATES: Record<ClientSt, number> = { idle: 0, sent: 1, wait: 2, rej: 3, reply: 4, lost: 5, done: 6 };
/** "a.b" (a location: segment and slot; a QP channel's sender and worker) as two integers, parsed once (the same list each time: not to be changed). */
const pairs = new Map<string, [number, number]>();
export function pair(x: string): readonly [number, number] {
  let p = pairs.get(x);
  if (p === undefined) {
    const m = /^(\d+)[.-](\d+)$/.exec(x);
    if (!m) throw new Error(`rowan encode: "${x}" is not a pair of numbers`);
    p = [Number(m[1]), Number(m[2])];
    pairs.set(x, p);
  }
  return p;
}
/** A QP channel "from.worker>to" as three integers. */
const chans = new Map<string, [number, number, number]>();
function chan(key: string): [number, number, number] {
  let c = chans.get(key);
  if (c === undefined) {
    const [fw, to] = key.split('>');
    if (to === undefined || !/^\d+$/.test(to)) throw new Error(`rowan encode: "${key}" is not a QP channel`);
    c = [...pair(fw), Number(to)];
    chans.set(key, c);
  }
  return c;
}

function wEntry(w: ByteWords, e: Entry): void {
  w.int(e.t.charCodeAt(0));
  w.int(e.sh);
  w.int(e.v);
  w.int(e.k);
  w.int(e.x);
  w.int(e.np === 1 ? 1 : e.np === 2 ? 2 : 0);
}

function wLoc(w: ByteWords, loc: string): void {
  const [a, b] = pair(loc);
  w.int(a);
  w.int(b);
}

function wSeg(w: ByteWords, g: Seg): void {
  w.int(g.id);
  w.int(g.log.charCodeAt(0));
  w.int(SEG_STATES[g.st]);
  w.int(g.dg ? 1 : 0);
  w.ints(g.mv);
  w.int(g.es.length);
  for (const e of g.es) wEntry(w, e);
  if (g.bad) w.ints(g.bad);
  else w.int(-1);
  w.int(g.sk ? 1 : 0);
  if (g.old) {
    w.int(g.old.length);
    for (const e of g.old) {
      w.int(e ? 1 : 0);
      if (e) wEntry(w, e);
    }
  } else w.int(-1);
}

function wCfg(w: ByteWords, cfg: Cfg): void {
  w.ints(cfg.members);
  w.int(cfg.dist.length);
  for (const d of cfg.dist) {
    w.int(d.p);
    w.ints(d.bs);
  }
  w.int(cfg.lag.length);
  for (const l of cfg.lag) w.ints(l);
  w.int(cfg.rb);
  w.int(cfg.fo ? 1 : 0);
  if (cfg.mig) {
    w.int(1);
    w.int(cfg.mig.src);
    w.int(cfg.mig.tgt);
    w.int(cfg.mig.sh);
    w.int(cfg.mig.prev.p);
    w.ints(cfg.mig.prev.bs);
  } else w.int(0);
}
// The CM's configurations (never changed once made; a CM copied for a step shares them),
// kept per term: compared by identity, not looked up in a weak map.
const cfgWords = new KeptWords(wCfg, 2);

function wIdx(w: ByteWords, idx: (Item | null)[]): void {
  w.int(idx.length);
  for (const it of idx) {
    if (!it) {
      w.int(0);
      continue;
    }
    w.int(1);
    w.int(it.v);
    w.int(it.d ? 1 : 0);
    w.int(it.x);
    wLoc(w, it.loc);
  }
}

function wCtxs(w: ByteWords, ctx: Ctx[]): void {
  w.int(ctx.length);
  for (const c of ctx) {
    w.int(c.op);
    wEntry(w, c.e);
    w.ints(c.bs);
    w.ints(c.acks);
    w.int(c.err ? 1 : 0);
    w.ints(c.rt);
  }
}

function wSegs(w: ByteWords, segs: Seg[]): void {
  w.int(segs.length);
  for (const g of segs) wSeg(w, g);
}

// A server a step writes is a new object, but most of its lists are the state before's
// (copyServer shares them until a step takes one with `own`): the index, the contexts and
// the segments, its largest parts, are kept by identity in the server's slot too.
const idxWords = new KeptWords(wIdx, 2);
const ctxWords = new KeptWords(wCtxs, 2);
const segsWords = new KeptWords(wSegs, 2);

function wServer(w: ByteWords, s: Server, slot: number): void {
  w.int(s.up ? 1 : 0);
  w.int(s.lease ? 1 : 0);
  w.int(s.term);
  w.int(s.com);
  w.int(s.cold);
  w.ints(s.pushed);
  w.int(s.migSent ? 1 : 0);
  w.ints(s.migCopied);
  idxWords.write(w, s.idx, slot);
  w.ints(s.shardVersion);
  w.ints(s.commitVer);
  w.ints(s.commitVerArray);
  w.ints(s.promoVer);
  w.ints(s.migVer);
  w.ints(s.done);
  w.bools(s.shardBlocked);
  ctxWords.write(w, s.ctx, slot);
  w.int(s.nextSeg);
  w.int(s.cur);
  segsWords.write(w, s.segs, slot);
  w.int(s.unflushed.length);
  for (const u of s.unflushed) {
    w.int(u.seg);
    w.int(u.slot);
    w.int(u.from);
    w.int(u.op);
  }
  w.int(s.dma.length);
  for (const d of s.dma) {
    w.int(d.seg);
    w.int(d.slot);
    w.int(d.from);
    w.int(d.op);
    w.int(d.r);
  }
  w.ints(s.tomb);
  if (s.promo) {
    w.int(1);
    w.int(s.promo.sh);
    w.ints(s.promo.coll);
    w.int(s.promo.U.length);
    for (const e of s.promo.U) wEntry(w, e);
    w.ints(s.promo.sc);
  } else w.int(0);
  if (s.rerep) {
    w.int(1);
    w.int(s.rerep.sh);
    w.int(s.rerep.r);
    w.int(s.rerep.seg);
    w.ints(s.rerep.done);
  } else w.int(0);
  if (s.clean) {
    w.int(1);
    w.int(s.clean.seg);
    w.int(s.clean.moved.length);
    for (const m of s.clean.moved) {
      w.int(m.k);
      w.int(m.v);
      wLoc(w, m.loc);
      wEntry(w, m.e);
    }
    if (s.clean.rm) {
      w.int(s.clean.rm.length);
      for (const m of s.clean.rm) {
        w.int(m.k);
        w.int(m.v);
        wLoc(w, m.loc);
      }
    } else w.int(-1);
  } else w.int(0);
}


// The non-empty channels: how many, then each one's slot (fixed by the configuration) and queue.
function wChannels(w: ByteWords, chs: Msg[][]): void {
  let busy = 0;
  for (let i = 0; i < chs.length; i++) if (chs[i].length) busy++;
  w.int(busy);
  for (let i = 0; i < chs.length; i++) {
    const q = chs[i];
    if (!q.length) continue;
    w.int(i);
    w.int(q.length);
    for (const m of q) {
      w.int(m.op);
      wEntry(w, m.e);
      w.int(m.r ? 1 : 0);
    }
  }
}

function wClients(w: ByteWords, cl: Client[]): void {
  for (const c of cl) {
    w.int(c.pc);
    w.int(CLIENT_STATES[c.st]);
    w.int(c.to);
    w.int(c.term);
    w.intOrNull(c.out);
    w.int(c.v);
  }
}

function wCm(w: ByteWords, cm: CM): void {
  w.int(cm.term);
  w.int(cm.phase === 'new' ? 1 : 0);
  w.ints(cm.down);
  w.ints(cm.resp);
  w.int(cm.fails);
  w.int(cm.cvLeft);
  w.int(cm.gcLeft);
  w.int(cm.pf ? 1 : 0);
  w.int(cm.mig);
  w.int(cm.cfgs.length);
  for (let i = 0; i < cm.cfgs.length; i++) cfgWords.write(w, cm.cfgs[i], i);
}

// Successors of one state share (copy-on-write, `copy`) every part their step did not
// write: each part's words are kept with the object and copied when it comes again.
const serverWords = new KeptWords(wServer, 2);
const channelWords = new KeptWords(wChannels, 2);
const clientWords = new KeptWords(wClients, 2);
const cmWords = new KeptWords(wCm, 2);

function wState(w: ByteWords, st: RowanState): void {
  for (let i = 0; i < st.srv.length; i++) serverWords.write(w, st.srv[i], i);
  channelWords.write(w, st.ch);
  w.int(st.dead.length);
  for (const d of st.dead) {
    const [a, b] = pair(d);
    w.int(a);
    w.int(b);
  }
  clientWords.write(w, st.cl);
  cmWords.write(w, st.cm);
  w.int(st.acked.length);
  for (const a of st.acked) {
    w.int(a.sh);
    w.int(a.k);
    w.int(a.v);
  }
  w.int(st.bad.length);
  for (let i = 0; i < st.bad.length; i++) w.int(st.bad.charCodeAt(i));
}

const bytes = new ByteWords();
/** Machine.encode: the state as words (the same partition as encodeState). */
export function encodeWords(st: RowanState, out: Int32Array): number {
  wState(bytes.begin(out), st);
  return bytes.end();
}
