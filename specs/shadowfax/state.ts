import { copyEach, objectList } from '../kit/state.ts';
import { ByteWords } from '../kit/words.ts';
import type { StepAction } from '../kit/table.ts';

// The state of the Shadowfax model: two servers (source S, target T), the metadata store,
// client threads with one session per server, FIFO channels, and ghost state for the
// invariants; the actions; and the one copy next() makes (specs/kit/state.ts: copy what
// steps change in place, share the rest). Plain data only, so states hash and diff as they are.
//
// Indices S and T name the servers in their roles in the current migration. On the return
// trip of config B4 the roles swap (`swapped`): index S is then the source, physically T,
// and index T the target, physically S; labels and messages give the physical names.

/** Hash ranges as bits: R migrates S→T, RS stays on S, RT is T's own. */
export const R = 1;
export const RS = 2;
export const RT = 4;
export const RANGE_NAMES: Record<number, string> = { [R]: 'R', [RS]: 'RS', [RT]: 'RT' };

export const S = 0;
export const T = 1;
export const SERVER_NAMES = ['S', 'T'];

export type OpKind = 'read' | 'upsert' | 'rmw';

export interface KeyDef {
  name: string;
  range: typeof R | typeof RS | typeof RT;
  /** The hash-table bucket entry; keys sharing one share a chain (§1.6). */
  entry: number;
  /** Value of the key's in-memory record at the start, if it has one. */
  init?: number;
  /** Values of older records of the key on the source's SSD (below head), oldest first (§1.6). */
  cold?: number[];
}

export interface ScriptOp {
  f: OpKind;
  key: string;
  arg?: number;
}

export interface ShadowfaxConfig {
  keys: KeyDef[];
  /** Threads of the source S; the target has one. */
  sourceThreads: number;
  /** Per client thread: the S thread its session talks to, and its script (§6.3). */
  clients: { sThread: number; script: ScriptOp[] }[];
  /** Operations a client thread may have outstanding at once (pipelining, L133). */
  depth: number;
  /** Storage tiers: eviction, flushing and indirection records (config B1). */
  tiers: boolean;
  /** Log compaction at the source after the migration, shipping unowned records (config B2, §4.2 L211-217). */
  compaction?: boolean;
  /** Ops per batch (default 1: each op is sent as it is issued; 2 needs a clientSend step). */
  batch?: number;
  /**
   * After the first migration completes, R migrates back from T to S (config B4, the
   * scale-down of L213, L235). Modelled with one thread on each server, without tiers,
   * compaction or crashes.
   */
  roundTrip?: boolean;
  /**
   * Server crashes allowed (config B3). With crashes the servers take the checkpoints of
   * L221-223 and recover by cancellation or independently (§2.5).
   */
  crashes?: number;
}

/** A checkpoint: the server's log and the ops it had executed (its per-session CPR points). */
export interface Snapshot {
  log: Item[];
  execd: number[];
}

/** A log item: a record, or an indirection into the source's log (§2.9, L202). */
export type Item = { k: number; v: number | null } | { indir: number; range: number; addr: number };

export type SourcePhase = 'NORMAL' | 'SAMPLING' | 'PREPARE' | 'TRANSFER' | 'MIGRATE' | 'COMPLETE' | 'DONE';
export type TargetPhase = 'NORMAL' | 'T_PREPARE' | 'T_RECEIVE' | 'T_COMPLETE';

export interface SourceThread {
  view: number;
  /** The phase this thread has entered: its point of the asynchronous cut (§1.5). */
  phase: SourcePhase;
}

export interface Source {
  phase: SourcePhase;
  threads: SourceThread[];
  log: Item[];
  /** Addresses below head are on SSD; below flushed also in the shared blob tier; below begin truncated. */
  head: number;
  flushed: number;
  begin: number;
  /** 'no' / 'shipping' (records sent to their owners) / 'done' (all applied). */
  compaction: 'no' | 'shipping' | 'done';
  tailStart: number;
  /** Bucket entries whose chain a Migrate thread has sent, as a bitmask. */
  claimed: number;
  batchesSent: number;
  batchesAcked: number;
  /** Samples collected early (mutant M4 only). */
  earlySamples: Item[] | null;
  /** Ops accepted by a thread whose record is on SSD: pending on I/O (§2.3 WAIT_FOR_PENDING). */
  pendingIO: { op: number; c: number; t: number }[];
  /** Sampling copies read but not yet installed (mutant M20 only). */
  copying: { op: number; c: number; t: number; v: number | null }[];
}

export interface Target {
  phase: TargetPhase;
  view: number;
  log: Item[];
  tailStart: number;
  /** Operations pended at the target (L182, L190), with the session to answer on. */
  pended: { op: number; c: number }[];
}

export interface Session {
  view: number;
  ranges: number;
  /** Ops sent on this session and not yet answered, in send order (their LSN order). */
  inflight: number[];
  /** The first op whose batch came back VIEW_CHANGED, or -1. */
  rejectFrom: number;
  /** Ops whose batch a server still in an older view than the batch's tag rejected. */
  behind: number[];
  /** The last op answered on this session (its LSN is the server's lastServicedLSN), or -1. */
  lastDone: number;
  /** Ops buffered for the next batch (L131). */
  buffer: number[];
}

export interface Client {
  /** The cached ownership map: owner per range bit, view per server (§3.1). */
  owner: number[];
  views: number[];
  sessions: Session[];
  next: number;
}

export type Request = { ops: number[]; tag: number };
/** VIEW_CHANGED names the server's view and the tag of the batch it rejected (§3.4). */
export type Response = { op: number; out: number | null } | { op: number; rejected: number; tag: number };
export type Control = { rpc: 'PrepForTransfer' } | { rpc: 'TransferedOwnership'; samples: Item[] } | { rpc: 'CompleteMigration' };

export interface Meta {
  owner: number[];
  view: number[];
  /** Ghost: every (server, view, ranges) ever written; INV-VIEWID says one ranges per view. */
  rangesAt: [number, number, number][];
  dep: null | Dependency;
}

/** The source-target dependency with its completion and cancellation flags (L177, L185, L223). */
export interface Dependency {
  srcDone: boolean;
  tgtDone: boolean;
  cancelled: boolean;
}

export interface State {
  meta: Meta;
  src: Source;
  tgt: Target;
  clients: Client[];
  /** Client c's channel to server s: req[c][s]; answers back: resp[c][s]. FIFO (TCP). */
  req: Request[][][];
  resp: Response[][][];
  ctrl: Control[];
  /** Record batches from each source thread (one FIFO each, L184). */
  data: Item[][][];
  /** Records compaction ships from the source to their current owner (L215). */
  compacted: Item[];
  /** Migrations started: 0, 1, or 2 on a round trip. */
  migrations: number;
  /** The return trip's roles: index S is physically T, index T physically S. */
  swapped: boolean;
  /** Ghost: the abstract store A (§4.2), executions per op, op status (0 new, 1 out, 2 done). */
  A: (number | null)[];
  execs: number[];
  status: number[];
  /** The view tag each op was last sent with (telling a stale rejection from a current one). */
  sentTag: number[];
  /** Ghost: step invariants that failed, with their message (checked as state invariants). */
  broken: [string, string][];
  up: boolean[];
  crashesLeft: number;
  /** Ghost: the ops each server executed, in order, in the surviving lineage. */
  execd: number[][];
  /** Pre-migration and post-migration (Complete) checkpoints per server (L221-223). */
  pre: (Snapshot | null)[];
  post: (Snapshot | null)[];
  /** Ghost: the effective writes (op, key, value) of the surviving lineage; A follows from them. */
  applied: [number, number, number][];
  /** Ghost: the dependency as it was when the cluster manager deleted it (INV-2PC). */
  gone: Dependency | null;
  /** M21b only: a recovery that has read the flags but not yet acted on them. */
  deciding: null | { server: number; cancel: boolean };
}

/** A client operation of the scripts, resolved: its client thread, kind, key index and argument. */
export interface Op {
  c: number;
  f: OpKind;
  k: number;
  arg: number;
}

/** What a lookup of a key finds in a log, newest first (§1.6, §2.9). */
export type Lookup = { kind: 'rec'; v: number | null; addr: number } | { kind: 'indir'; addr: number; outOfRange: boolean } | { kind: 'absent' };

export type Step =
  | 'issue' | 'clientSend' | 'serverRecvBatch' | 'serverRecvBatchSplit' | 'clientRecv' | 'handleViewChange'
  | 'crash' | 'recover' | 'recoverReadFlags' | 'recoverAct' | 'suspectCrashed'
  | 'srcCheckpoint' | 'srcSetFlag' | 'tgtCheckpoint' | 'tgtSetFlag' | 'clusterGC'
  | 'migrate' | 'threadRefresh' | 'srcAdvance' | 'sendChunk' | 'serverCompleteIO' | 'installSampleCopy'
  | 'tgtRecvControl' | 'tgtRecvData' | 'tgtRetryPended' | 'tgtFetchIndirection'
  | 'compact' | 'truncate' | 'ownerRecvCompacted' | 'evict' | 'flush';

export interface ShadowfaxAction extends StepAction {
  step: Step;
  /** client thread */
  c?: number;
  /** server (index: its role in the current migration) */
  s?: number;
  /** source thread */
  t?: number;
  /** bucket entry */
  e?: number;
  /** index into a list of the state (pendingIO, copying, pended) */
  i?: number;
  /** key */
  k?: number;
  /** Enabled on B4's return trip, where the roles are swapped (fairness names the physical threads). */
  swapped?: boolean;
}

/**
 * An action with every field present, in one order (undefined where its step has none):
 * the actions of every step have one shape, so that the code reading them (the engine's
 * coverage, the history observer, the effects) meets one.
 */
export function action(label: string, step: Step, p: { c?: number; s?: number; t?: number; e?: number; i?: number; k?: number } = {}): ShadowfaxAction {
  return { label, step, c: p.c, s: p.s, t: p.t, e: p.e, i: p.i, k: p.k, swapped: undefined };
}

/** a, enabled on B4's return trip (roles swapped): the same shape as `action`'s. */
export function swappedTwin(a: ShadowfaxAction): ShadowfaxAction {
  return { label: a.label, step: a.step, c: a.c, s: a.s, t: a.t, e: a.e, i: a.i, k: a.k, swapped: true };
}

// ---- the one copy next() makes ----
// Log items, messages, batches, snapshots, pended and pending entries, rangesAt tuples and
// ghost tuples are replaced, never changed in place, so the copy shares them; arrays that
// steps push to, splice or reverse are sliced; records whose fields steps set are rebuilt
// as literals naming every field (the engine encodes keys sorted: field order is free).

const slice = <T>(xs: readonly T[]): T[] => xs.slice();

function copySession(x: Session): Session {
  return { view: x.view, ranges: x.ranges, inflight: x.inflight.slice(), rejectFrom: x.rejectFrom, behind: x.behind.slice(), lastDone: x.lastDone, buffer: x.buffer.slice() };
}

// The cached map (owner, views) is replaced, never changed in place; sessions are taken one by one.
const copyClient = (cl: Client): Client => ({ owner: cl.owner, views: cl.views, sessions: cl.sessions.slice(), next: cl.next });

const copyThread = (th: SourceThread): SourceThread => ({ view: th.view, phase: th.phase });

function copySource(src: Source): Source {
  return {
    phase: src.phase,
    threads: copyEach(src.threads, copyThread),
    log: src.log.slice(),
    head: src.head,
    flushed: src.flushed,
    begin: src.begin,
    compaction: src.compaction,
    tailStart: src.tailStart,
    claimed: src.claimed,
    batchesSent: src.batchesSent,
    batchesAcked: src.batchesAcked,
    earlySamples: src.earlySamples,
    pendingIO: src.pendingIO.slice(),
    copying: src.copying.slice(),
  };
}

const copyTarget = (tgt: Target): Target => ({ phase: tgt.phase, view: tgt.view, log: tgt.log.slice(), tailStart: tgt.tailStart, pended: tgt.pended.slice() });

function copyMeta(meta: Meta): Meta {
  const dep = meta.dep && { srcDone: meta.dep.srcDone, tgtDone: meta.dep.tgtDone, cancelled: meta.dep.cancelled };
  return { owner: meta.owner.slice(), view: meta.view.slice(), rangesAt: meta.rangesAt.slice(), dep };
}

/**
 * The copy next() makes: a new top-level record sharing every part with the state before.
 * A step takes the part it changes with `srcW`, `tgtW`, `metaW`, `clientW`, `reqW`, `respW`,
 * `ctrlW`, `dataW`, `compactedW`, `listW` (the broken step invariants, the servers up, the
 * checkpoints, the op status, the sent tags and the ghosts of executions), which copy it
 * (and the lists around it) the first time in the step and hand out that copy after; a
 * step that writes neither server copies neither (most client steps).
 */
export function copy(s: State): State {
  mineCount = 0;
  return {
    meta: s.meta,
    src: s.src,
    tgt: s.tgt,
    clients: s.clients,
    req: s.req,
    resp: s.resp,
    ctrl: s.ctrl,
    data: s.data,
    compacted: s.compacted,
    migrations: s.migrations,
    swapped: s.swapped,
    A: s.A,
    execs: s.execs,
    status: s.status,
    sentTag: s.sentTag,
    broken: s.broken,
    up: s.up,
    crashesLeft: s.crashesLeft,
    execd: s.execd,
    pre: s.pre,
    post: s.post,
    applied: s.applied,
    gone: s.gone,
    deciding: s.deciding,
  };
}

/** The parts copied in the step under way (since the last `copy`): few, so a plain list. */
const mine: unknown[] = [];
let mineCount = 0; // the list's live length (setting `length` costs more than the few stale entries)
function own<T extends object>(x: T, copyOne: (x: T) => T): T {
  for (let i = 0; i < mineCount; i++) if (mine[i] === x) return x;
  const y = copyOne(x);
  mine[mineCount++] = y;
  return y;
}

/** The source (in its role) of the copy d, to change: its threads, log and pending lists copied. */
export const srcW = (d: State): Source => (d.src = own(d.src, copySource));

/** The target (in its role) of the copy d, to change: its log and pended ops copied. */
export const tgtW = (d: State): Target => (d.tgt = own(d.tgt, copyTarget));

/** Client c of the copy d, to change: its fields (its sessions are taken with sessionW). */
export function clientW(d: State, c: number): Client {
  d.clients = own(d.clients, slice);
  return (d.clients[c] = own(d.clients[c], copyClient));
}

/** Client c's session with server srv in the copy d, to change. */
export function sessionW(d: State, c: number, srv: number): Session {
  const sessions = clientW(d, c).sessions;
  return (sessions[srv] = own(sessions[srv], copySession));
}

/** Client c of the copy d with every session, to change (a refresh or a replay writes them all). */
export function sessionsW(d: State, c: number): Client {
  const cl = clientW(d, c);
  for (let srv = 0; srv < cl.sessions.length; srv++) sessionW(d, c, srv);
  return cl;
}

/** The FIFO of requests from client c to server srv in the copy d, to change. */
export function reqW(d: State, c: number, srv: number): Request[] {
  const perClient = (d.req = own(d.req, slice));
  const perServer = (perClient[c] = own(perClient[c], slice));
  return (perServer[srv] = own(perServer[srv], slice));
}

/** The FIFO of responses from server srv to client c in the copy d, to change. */
export function respW(d: State, c: number, srv: number): Response[] {
  const perClient = (d.resp = own(d.resp, slice));
  const perServer = (perClient[c] = own(perClient[c], slice));
  return (perServer[srv] = own(perServer[srv], slice));
}

/** The control channel S→T of the copy d, to change. */
export const ctrlW = (d: State): Control[] => (d.ctrl = own(d.ctrl, slice));

/** Source thread t's data channel of the copy d, to change. */
export function dataW(d: State, t: number): Item[][] {
  const perThread = (d.data = own(d.data, slice));
  return (perThread[t] = own(perThread[t], slice));
}

/** A list of the copy d, to change: broken step invariants, servers up, checkpoints, op status, sent tags, the ghosts of executions. */
export const listW = <K extends 'broken' | 'up' | 'pre' | 'post' | 'A' | 'execs' | 'status' | 'sentTag' | 'execd' | 'applied'>(d: State, k: K): State[K] => (d[k] = own(d[k] as unknown[], slice) as State[K]);

/** The ops server srv executed, in the copy d, to change. */
export function execdW(d: State, srv: number): number[] {
  const perServer = listW(d, 'execd');
  return (perServer[srv] = own(perServer[srv], slice));
}

/** The metadata store of the copy d, to change (owner, views, rangesAt and the dependency copied). */
export const metaW = (d: State): Meta => (d.meta = own(d.meta, copyMeta));

/** The records compaction ships, in the copy d, to change. */
export const compactedW = (d: State): Item[] => (d.compacted = own(d.compacted, slice));

/** Every client and channel of the copy d, to change (a role swap or a crash rewrites them all). */
export function allClientsW(d: State): void {
  for (let c = 0; c < d.clients.length; c++) {
    sessionsW(d, c);
    for (let srv = 0; srv < d.req[c].length; srv++) {
      reqW(d, c, srv);
      respW(d, c, srv);
    }
  }
}

/**
 * Every field a step writes in place, written once as the module loads, on an object of
 * each shape, with every kind of value it takes (null and a list or record; null and a
 * number). V8 takes a field only ever written where its object was made for a constant,
 * and a field that has held only null (or only small integers) for one of that kind, and
 * throws away the code it optimized on that (copy, the steps, the encoder wState, the
 * engine's loop that inlines them) when a later config first writes the field or brings
 * the other kind (`gone` stays null until B3's crashes, `swapped` false until B4's return
 * trip, `earlySamples` and `deciding` change only under mutants M4 and M21b). The same
 * idiom as fusee's and minos's `settleFields`; no state is changed
 * (these objects are dropped).
 */
function settleFields(): void {
  const items = objectList<Item>();
  items.push({ k: 0, v: null }, { k: 0, v: 1 }, { indir: 0, range: R, addr: 0 });
  const th = copyThread({ view: 1, phase: 'NORMAL' });
  th.view = 2;
  th.phase = 'DONE';
  const src = copySource({
    phase: 'NORMAL', threads: [th], log: items, head: 0, flushed: 0, begin: 0, compaction: 'no', tailStart: 0,
    claimed: 0, batchesSent: 0, batchesAcked: 0, earlySamples: null, pendingIO: objectList(), copying: objectList(),
  });
  src.phase = 'DONE';
  src.threads = [th];
  src.log = items;
  src.head = src.flushed = src.begin = src.tailStart = src.claimed = src.batchesSent = src.batchesAcked = 1;
  src.compaction = 'done';
  src.earlySamples = items;
  src.earlySamples = null;
  src.pendingIO = objectList();
  src.pendingIO.push({ op: 0, c: 0, t: 0 });
  src.copying = objectList();
  src.copying.push({ op: 0, c: 0, t: 0, v: null }, { op: 0, c: 0, t: 0, v: 1 });
  const tgt = copyTarget({ phase: 'NORMAL', view: 1, log: items, tailStart: 0, pended: objectList() });
  tgt.phase = 'T_COMPLETE';
  tgt.view = tgt.tailStart = 1;
  tgt.log = items;
  tgt.pended = objectList();
  tgt.pended.push({ op: 0, c: 0 });
  const session = copySession({ view: 1, ranges: R, inflight: [], rejectFrom: -1, behind: [], lastDone: -1, buffer: [] });
  session.view = session.ranges = session.rejectFrom = session.lastDone = 2;
  session.inflight = [1];
  session.behind = [1];
  session.buffer = [1];
  const client = copyClient({ owner: [S], views: [1], sessions: [session], next: 0 });
  client.owner = [T];
  client.views = [2];
  client.sessions = [session];
  client.next = 1;
  const dep: Dependency = { srcDone: false, tgtDone: false, cancelled: false };
  dep.srcDone = dep.tgtDone = dep.cancelled = true;
  const meta = copyMeta({ owner: [S], view: [1], rangesAt: [[S, 1, R]], dep: null });
  meta.owner = [T];
  meta.view = [2];
  meta.rangesAt = [[T, 2, R]];
  meta.dep = dep;
  meta.dep = null;
  const requests: Request[] = objectList();
  requests.push({ ops: [0], tag: 1 });
  const responses: Response[] = objectList();
  responses.push({ op: 0, out: null }, { op: 0, out: 1 }, { op: 0, rejected: 1, tag: 1 });
  const controls: Control[] = objectList();
  controls.push({ rpc: 'PrepForTransfer' }, { rpc: 'TransferedOwnership', samples: items });
  const snapshot: Snapshot = { log: items, execd: [0] };
  const A = objectList<number | null>();
  A.push(null, 1);
  const d = copy({
    meta, src, tgt, clients: [client], req: [[requests]], resp: [[responses]], ctrl: controls, data: [[items]], compacted: items,
    migrations: 0, swapped: false, A, execs: [0], status: [0], sentTag: [0], broken: [['', '']], up: [true], crashesLeft: 0,
    execd: [[0]], pre: [snapshot, null], post: [null, snapshot], applied: [[0, 0, 0]], gone: null, deciding: null,
  });
  d.meta = meta;
  d.src = src;
  d.tgt = tgt;
  d.clients = [client];
  d.req = [[requests]];
  d.resp = [[responses]];
  d.ctrl = controls;
  d.data = [[items]];
  d.compacted = items;
  d.migrations = d.crashesLeft = 1;
  d.swapped = true;
  d.A = A;
  d.execs = d.status = d.sentTag = [1];
  d.broken = [['', '']];
  d.up = [false];
  d.execd = [[1]];
  d.pre = d.post = [null, snapshot];
  d.applied = [[1, 1, 1]];
  d.gone = { srcDone: true, tgtDone: false, cancelled: false };
  d.gone = null;
  d.deciding = { server: S, cancel: false };
  d.deciding = null;
  const lookups: Lookup[] = [{ kind: 'rec', v: null, addr: 0 }, { kind: 'rec', v: 1, addr: 0 }, { kind: 'indir', addr: 0, outOfRange: false }, { kind: 'absent' }];
  const made = [action('', 'issue'), action('', 'issue', { c: 0, s: 0, t: 0, e: 0, i: 0, k: 0 })];
  made.push(swappedTwin(made[0]), swappedTwin(made[1]));
  void lookups;
}
settleFields();

// ---- the state as words (Machine.encode) ----
// Every field of State, in a fixed order, as integers: the engine hashes these words
// instead of walking the objects (sorting their keys, tagging every value). Lists carry
// their length, optional parts a tag, so the encoding is injective: two states get the
// same words exactly when they are equal (shadowfax.test.ts checks it against the plain
// encoding over every state of several configs). Every part is written afresh for each
// state (below: keeping parts' words cost more than it saved). The integers are packed, four
// bytes a word (kit/words.ts `ByteWords`: one in [-8, 231] is one byte, as nearly all of
// this state's are): a state is 37-47 words instead of 123-158, and the engine hashes,
// compares and stores each state in time linear in its words.

export const SOURCE_PHASES: Record<SourcePhase, number> = { NORMAL: 0, SAMPLING: 1, PREPARE: 2, TRANSFER: 3, MIGRATE: 4, COMPLETE: 5, DONE: 6 };
const TARGET_PHASES: Record<TargetPhase, number> = { NORMAL: 0, T_PREPARE: 1, T_RECEIVE: 2, T_COMPLETE: 3 };
const COMPACTION: Record<Source['compaction'], number> = { no: 0, shipping: 1, done: 2 };
export const RPCS: Record<Control['rpc'], number> = { PrepForTransfer: 0, TransferedOwnership: 1, CompleteMigration: 2 };

// An item is written, not looked up (a weak map costs more). A record of a key below 200
// with a value that is null or in [0, 3000) is its key, then 0 for null or the value plus
// one (two or three bytes: every config's records are); any other record is -2 and its
// fields, an indirection -1 and its fields: first integers that no two kinds share.
function wItem(w: ByteWords, it: Item): void {
  if ('indir' in it) {
    w.int(-1);
    w.int(it.indir);
    w.int(it.range);
    w.int(it.addr);
    return;
  }
  const { k, v } = it;
  if (k >= 0 && k < 200 && (v === null || (v >= 0 && v < 3000))) {
    w.int(k);
    w.int(v === null ? 0 : v + 1);
  } else {
    w.int(-2);
    w.int(k);
    w.intOrNull(v);
  }
}

function wItems(w: ByteWords, xs: readonly Item[]): void {
  w.int(xs.length);
  for (let i = 0; i < xs.length; i++) wItem(w, xs[i]);
}

function wNums(w: ByteWords, xs: readonly (number | null)[]): void {
  w.int(xs.length);
  for (let i = 0; i < xs.length; i++) w.intOrNull(xs[i]);
}

function wSnapshotParts(w: ByteWords, x: Snapshot): void {
  wItems(w, x.log);
  w.ints(x.execd);
}

function wSnapshot(w: ByteWords, x: Snapshot | null): void {
  if (x === null) w.int(0);
  else {
    w.int(1);
    wSnapshotParts(w, x);
  }
}

function wRequests(w: ByteWords, req: Request[][][]): void {
  for (let c = 0; c < req.length; c++) {
    const perServer = req[c];
    w.int(perServer.length);
    for (let srv = 0; srv < perServer.length; srv++) {
      const q = perServer[srv];
      w.int(q.length);
      for (let i = 0; i < q.length; i++) {
        const r = q[i];
        w.ints(r.ops);
        w.int(r.tag);
      }
    }
  }
}

function wResponses(w: ByteWords, resp: Response[][][]): void {
  for (let c = 0; c < resp.length; c++) {
    const perServer = resp[c];
    w.int(perServer.length);
    for (let srv = 0; srv < perServer.length; srv++) {
      const q = perServer[srv];
      w.int(q.length);
      for (let i = 0; i < q.length; i++) {
        const r = q[i];
        w.int(r.op);
        if ('rejected' in r) {
          w.int(2);
          w.int(r.rejected);
          w.int(r.tag);
        } else {
          w.int(1);
          w.intOrNull(r.out);
        }
      }
    }
  }
}

function wControl(w: ByteWords, c: Control): void {
  w.int(RPCS[c.rpc]);
  if (c.rpc === 'TransferedOwnership') wItems(w, c.samples);
}

function wDep(w: ByteWords, d: Dependency | null): void {
  if (d === null) w.int(0);
  else {
    w.int(1);
    w.int(d.srcDone ? 1 : 0);
    w.int(d.tgtDone ? 1 : 0);
    w.int(d.cancelled ? 1 : 0);
  }
}

function wSource(w: ByteWords, src: Source): void {
  w.int(SOURCE_PHASES[src.phase]);
  w.int(src.threads.length);
  for (let t = 0; t < src.threads.length; t++) {
    w.int(src.threads[t].view);
    w.int(SOURCE_PHASES[src.threads[t].phase]);
  }
  wItems(w, src.log);
  w.int(src.head);
  w.int(src.flushed);
  w.int(src.begin);
  w.int(COMPACTION[src.compaction]);
  w.int(src.tailStart);
  w.int(src.claimed);
  w.int(src.batchesSent);
  w.int(src.batchesAcked);
  if (src.earlySamples === null) w.int(-1);
  else wItems(w, src.earlySamples);
  w.int(src.pendingIO.length);
  for (let i = 0; i < src.pendingIO.length; i++) {
    const p = src.pendingIO[i];
    w.int(p.op);
    w.int(p.c);
    w.int(p.t);
  }
  w.int(src.copying.length);
  for (let i = 0; i < src.copying.length; i++) {
    const p = src.copying[i];
    w.int(p.op);
    w.int(p.c);
    w.int(p.t);
    w.intOrNull(p.v);
  }
}

function wClient(w: ByteWords, cl: Client): void {
  w.ints(cl.owner);
  w.ints(cl.views);
  w.int(cl.sessions.length);
  for (let srv = 0; srv < cl.sessions.length; srv++) {
    const x = cl.sessions[srv];
    w.int(x.view);
    w.int(x.ranges);
    w.ints(x.inflight);
    w.int(x.rejectFrom);
    w.ints(x.behind);
    w.int(x.lastDone);
    w.ints(x.buffer);
  }
  w.int(cl.next);
}

function wMeta(w: ByteWords, meta: Meta): void {
  w.ints(meta.owner);
  w.ints(meta.view);
  w.int(meta.rangesAt.length);
  for (let i = 0; i < meta.rangesAt.length; i++) {
    const x = meta.rangesAt[i];
    w.int(x[0]);
    w.int(x[1]);
    w.int(x[2]);
  }
  wDep(w, meta.dep);
}

function wTarget(w: ByteWords, tgt: Target): void {
  w.int(TARGET_PHASES[tgt.phase]);
  w.int(tgt.view);
  wItems(w, tgt.log);
  w.int(tgt.tailStart);
  w.int(tgt.pended.length);
  for (let i = 0; i < tgt.pended.length; i++) {
    w.int(tgt.pended[i].op);
    w.int(tgt.pended[i].c);
  }
}

function wData(w: ByteWords, data: Item[][][]): void {
  w.int(data.length);
  for (let t = 0; t < data.length; t++) {
    const q = data[t];
    w.int(q.length);
    for (let i = 0; i < q.length; i++) wItems(w, q[i]);
  }
}

function wExecd(w: ByteWords, execd: number[][]): void {
  w.int(execd.length);
  for (let srv = 0; srv < execd.length; srv++) w.ints(execd[srv]);
}

function wApplied(w: ByteWords, applied: [number, number, number][]): void {
  w.int(applied.length);
  for (let i = 0; i < applied.length; i++) {
    const x = applied[i];
    w.int(x[0]);
    w.int(x[1]);
    w.int(x[2]);
  }
}

// Every part is written afresh for every state. Keeping each part's words by identity and
// copying them when the part came again (kit `KeptWords`, two ways per slot) cost more than
// it saved once a part was a few bytes: most parts are 1-6 words, and the source, the
// target and the responses missed on 44-72% of the states (README, "eleventh run").

function wState(w: ByteWords, s: State): void {
  wMeta(w, s.meta);
  wSource(w, s.src);
  wTarget(w, s.tgt);
  w.int(s.clients.length);
  for (let c = 0; c < s.clients.length; c++) wClient(w, s.clients[c]);
  wRequests(w, s.req);
  wResponses(w, s.resp);
  w.int(s.ctrl.length);
  for (let i = 0; i < s.ctrl.length; i++) {
    wControl(w, s.ctrl[i]);
  }
  wData(w, s.data);
  wItems(w, s.compacted);
  w.int(s.migrations);
  w.int(s.swapped ? 1 : 0);
  wNums(w, s.A);
  w.ints(s.execs);
  w.ints(s.status);
  w.ints(s.sentTag);
  w.int(s.broken.length);
  for (let i = 0; i < s.broken.length; i++) {
    w.string(s.broken[i][0]);
    w.string(s.broken[i][1]);
  }
  w.bools(s.up);
  w.int(s.crashesLeft);
  wExecd(w, s.execd);
  w.int(s.pre.length);
  for (let srv = 0; srv < s.pre.length; srv++) wSnapshot(w, s.pre[srv]);
  w.int(s.post.length);
  for (let srv = 0; srv < s.post.length; srv++) wSnapshot(w, s.post[srv]);
  wApplied(w, s.applied);
  wDep(w, s.gone);
  if (s.deciding === null) w.int(0);
  else {
    w.int(1);
    w.int(s.deciding.server);
    w.int(s.deciding.cancel ? 1 : 0);
  }
}

const bytes = new ByteWords();

/** Machine.encode: the state as words, injective (states are equal exactly when their words are); -1 when `out` is too short. */
export function encodeState(s: State, out: Int32Array): number {
  wState(bytes.begin(out), s);
  return bytes.end();
}
