// Shadowfax's view-based ownership transfer and scale-out migration (PVLDB 14(8), §3.2 and
// §4), one atomic step per action, following the extraction
// ../shared/protocols/shadowfax-migration.md (§2.3 source, §2.4 target, §3 client; `Lnnn`
// are lines of ../shared/papers/shadowfax.txt as cited there).

import type { Action, Check, Machine, ObservedEvent } from '../../checkers/explore/types.ts';
import { clonePlain } from '../kit/clone.ts';
import { shadowfaxKv } from './kv-model.ts';
import {
  type Client,
  type Snapshot,
  type Source,
  type SourceThread,
  type Control,
  type Item,
  type KeyDef,
  type OpKind,
  type ShadowfaxConfig,
  type State,
  R,
  RANGE_NAMES,
  RT,
  S,
  SERVER_NAMES,
  T,
} from './state.ts';

export interface ShadowfaxAction extends Action {
  step: string;
  c?: number;
  s?: number;
  t?: number;
  e?: number;
  i?: number;
  k?: number;
  /** Enabled on B4's return trip, where the roles are swapped (fairness names the physical threads). */
  swapped?: boolean;
}

interface Op {
  c: number;
  f: OpKind;
  k: number;
  arg: number;
}

type Lookup = { kind: 'rec'; v: number | null; addr: number } | { kind: 'indir'; addr: number; outOfRange: boolean } | { kind: 'absent' };

export function buildShadowfax(config: ShadowfaxConfig, mutant?: string): Machine<State, ShadowfaxAction> {
  const keys = config.keys;
  const keyIndex = (name: string) => {
    const k = keys.findIndex((d) => d.name === name);
    if (k < 0) throw new Error(`shadowfax config: unknown key ${name}`);
    return k;
  };
  const ops: Op[] = [];
  const firstOp: number[] = [];
  config.clients.forEach((cl, c) => {
    firstOp.push(ops.length);
    for (const o of cl.script) ops.push({ c, f: o.f, k: keyIndex(o.key), arg: o.arg ?? 0 });
  });
  const m = (name: string) => mutant === name;
  const batchSize = config.batch ?? 1;
  const crashes = config.crashes ?? 0;
  if (config.roundTrip && (config.sourceThreads !== 1 || config.tiers || config.compaction || crashes)) {
    throw new Error('shadowfax config: the round trip is modelled with one source thread, without tiers, compaction or crashes');
  }
  // Physical names: on B4's return trip index S is T and index T is S (state.ts).
  const serverName = (s: State, srv: number) => SERVER_NAMES[s.swapped ? 1 - srv : srv];
  const sourceThreadName = (swapped: boolean | undefined, t: number) => `${swapped ? 't' : 's'}${t + 1}`;
  const targetThreadName = (swapped: boolean | undefined) => (swapped ? 's1' : 't1');
  const describeOp = (o: number) => {
    const op = ops[o];
    return `${op.f}(${keys[op.k].name}${op.f === 'read' ? '' : `, ${op.f === 'rmw' ? '+' : ''}${op.arg}`})#${o}`;
  };
  const rangeOf = (k: number) => keys[k].range;
  const initialValue = (d: KeyDef) => d.init ?? d.cold?.at(-1) ?? null;
  const entryOf = (k: number) => keys[k].entry;
  const entries = [...new Set(keys.filter((d) => d.range === R).map((d) => d.entry))].sort();
  const rangesOf = (owner: number[], srv: number) => owner.reduce((acc, o, bit) => (o === srv ? acc | (1 << bit) : acc), 0);
  const rangeBit = (r: number) => Math.log2(r);

  // ---- storage: chains newest first (§1.6), indirections (§2.9) ----------------------

  /** The first match for k in a log, newest first; indirections apply to their entry. */
  function lookup(log: Item[], k: number, tailStart: number): Lookup {
    for (let i = log.length - 1; i >= 0; i--) {
      const it = log[i];
      if ('k' in it) {
        if (it.k === k) return { kind: 'rec', v: it.v, addr: i };
        continue;
      }
      if (it.indir !== entryOf(k)) continue;
      const inRange = (it.range & rangeOf(k)) !== 0;
      // M12: the range check on an indirection is dropped (§2.9, L204-209)
      if (!inRange && !m('M12')) continue;
      // H1: the prototype stops at the first in-range indirection (§2.8). The fix: a record
      // of k made after the ownership transfer, further down the chain, wins.
      if (!m('H1')) {
        for (let j = i - 1; j >= tailStart; j--) {
          const older = log[j];
          if ('k' in older && older.k === k) return { kind: 'rec', v: older.v, addr: j };
        }
      }
      return { kind: 'indir', addr: it.addr, outOfRange: !inRange };
    }
    return { kind: 'absent' };
  }

  /** What the shared blob tier holds for k at or below addr (L202: flushed records only). */
  function blobRead(s: State, addr: number, k: number): number | null {
    for (let i = Math.min(addr, s.src.flushed - 1); i >= s.src.begin; i--) {
      const it = s.src.log[i];
      if ('k' in it && it.k === k) return it.v;
    }
    return null;
  }

  const breakInv = (s: State, name: string, message: string) => {
    if (!s.broken.some(([n]) => n === name)) s.broken.push([name, message]);
  };

  /** The op's effect on the value it resolved; INV-FRESH compares that value with A (§4.3). */
  function apply(s: State, srv: number, o: number, found: number | null): { out: number | null; write?: number } {
    const op = ops[o];
    if (found !== s.A[op.k]) {
      breakInv(s, 'INV-FRESH', `${serverName(s, srv)} executed ${describeOp(o)} on ${keys[op.k].name} = ${found ?? 'NOT_FOUND'}, but the latest write left ${s.A[op.k] ?? 'NOT_FOUND'}`);
    }
    s.execs[o]++;
    s.execd[srv].push(o);
    if (op.f === 'read') return { out: found };
    const write = op.f === 'upsert' ? op.arg : (found ?? 0) + op.arg;
    s.A[op.k] = write;
    s.applied.push([o, op.k, write]);
    return { out: null, write };
  }

  /** Write v for k on a server's log: in place in the mutable region, else append (§1.6). */
  function store(log: Item[], head: number, k: number, at: Lookup, v: number) {
    if (at.kind === 'rec' && at.addr >= head) log[at.addr] = { k, v };
    else log.push({ k, v });
  }

  /**
   * The target's conditional insert of a migrated copy (§2.8): only if it holds no version
   * of k made after the ownership transfer.
   */
  function conditionalInsert(s: State, k: number, v: number | null) {
    const tgt = s.tgt;
    let insert = true;
    if (!m('M7')) {
      const at = lookup(tgt.log, k, tgt.tailStart);
      if (at.kind === 'rec' && at.addr >= tgt.tailStart) insert = false;
    }
    if (!insert) return;
    tgt.log.push({ k, v });
    const now = lookup(tgt.log, k, tgt.tailStart);
    if (now.kind === 'rec' && now.v !== s.A[k]) {
      breakInv(s, 'INV-COND-INSERT', `${serverName(s, T)} inserted a migrated ${keys[k].name} = ${v ?? 'NOT_FOUND'} over the latest value ${s.A[k] ?? 'NOT_FOUND'}`);
    }
  }

  /** Samples: the newest copy of each R key at or above tailStart (§2.7, [impl] CollectSamples). */
  function collectSamples(s: State): Item[] {
    const out: Item[] = [];
    keys.forEach((d, k) => {
      if (d.range !== R) return;
      const at = lookup(s.src.log, k, 0);
      if (at.kind === 'rec' && at.addr >= s.src.tailStart) out.push({ k, v: at.v });
    });
    return out;
  }

  // ---- server-side execution ----------------------------------------------------------

  function respond(s: State, c: number, srv: number, o: number, out: number | null) {
    s.resp[c][srv].push({ op: o, out });
  }

  /**
   * A source thread executes an accepted op (§2.3: sampling copies apply in SAMPLING). A
   * record on SSD sends the op pending on I/O; `fromIO` completes it (§1.6, L82).
   */
  function executeAtSource(s: State, t: number, c: number, o: number, fromIO = false) {
    const { k } = ops[o];
    const src = s.src;
    let at = lookup(src.log, k, 0);
    if (!fromIO && at.kind === 'rec' && at.addr < src.head) {
      src.pendingIO.push({ op: o, c, t });
      return;
    }
    // L178-180: copy a record accessed during Sampling to the tail, once (addr < tailStart)
    if (src.threads[t].phase === 'SAMPLING' && rangeOf(k) === R && at.kind === 'rec' && (at.addr < src.tailStart || m('M19'))) {
      // M20: without the PREPARE_TO_SAMPLE latch the copy is read now and installed later,
      // while a thread still in NORMAL may update the old record in place
      if (m('M20')) {
        src.copying.push({ op: o, c, t, v: at.v });
        return;
      }
      src.log.push({ k, v: at.v });
      at = { kind: 'rec', v: at.v, addr: src.log.length - 1 };
    }
    const { out, write } = apply(s, S, o, at.kind === 'rec' ? at.v : null);
    if (write !== undefined) store(src.log, src.head, k, at, write);
    respond(s, c, S, o, out);
  }

  /** Whether the target can execute op o now, or must pend it (§2.4, §2.6, §2.11). */
  function targetDecision(s: State, o: number): 'execute' | 'pend' | 'fetch' {
    const { k } = ops[o];
    const tgt = s.tgt;
    if (rangeOf(k) !== R) {
      const at = lookup(tgt.log, k, tgt.tailStart);
      return at.kind === 'indir' && !at.outOfRange ? 'fetch' : 'execute';
    }
    if (tgt.phase === 'NORMAL') return 'execute'; // only reachable through M6/M17: INV-TGT-PEND
    if (tgt.phase === 'T_PREPARE') return m('M5') ? 'execute' : 'pend'; // L182
    const at = lookup(tgt.log, k, tgt.tailStart);
    // a record below tailStart is a leftover of an older ownership of R (B4: the original
    // source taking R back), not yet the migrated copy (see README)
    if (at.kind === 'rec' && (at.addr >= tgt.tailStart || m('stale-leftover'))) return 'execute';
    if (at.kind === 'indir') return at.outOfRange ? 'execute' : 'fetch';
    if (tgt.phase === 'T_RECEIVE') return m('M8') ? 'execute' : 'pend'; // L190: not yet arrived
    return 'execute'; // after CompleteMigration a missing key is NOT_FOUND ([impl])
  }

  function executeAtTarget(s: State, c: number, o: number) {
    const { k } = ops[o];
    const tgt = s.tgt;
    if (rangeOf(k) === R && (tgt.phase === 'NORMAL' || tgt.phase === 'T_PREPARE')) {
      breakInv(s, 'INV-TGT-PEND', `${serverName(s, T)} executed ${describeOp(o)} in ${tgt.phase}, before it received TransferedOwnership or any record batch`);
    }
    const at = lookup(tgt.log, k, tgt.tailStart);
    let found: number | null = null;
    if (at.kind === 'rec') found = at.v;
    else if (at.kind === 'indir') {
      // reachable only for an out-of-range indirection (M12): the lookup follows it into S's log
      breakInv(s, 'INV-INDIR-SCOPE', `a lookup of ${keys[k].name} (range ${RANGE_NAMES[rangeOf(k)]}) followed an indirection scoped to R`);
      found = blobRead(s, at.addr, k);
    }
    const { out, write } = apply(s, T, o, found);
    if (write !== undefined) store(tgt.log, 0, k, at.kind === 'rec' ? at : { kind: 'absent' }, write);
    respond(s, c, T, o, out);
  }

  // ---- client side (§3) ----------------------------------------------------------------

  /** Route an op by the cached mapping into its session (§3.1); with batch size 1, send it. */
  function send(s: State, c: number, o: number) {
    const cl = s.clients[c];
    const srv = cl.owner[rangeBit(rangeOf(ops[o].k))];
    cl.sessions[srv].inflight.push(o);
    cl.sessions[srv].buffer.push(o);
    if (batchSize === 1) cutBatch(s, c, srv);
  }

  /** ClientSend (§6.2): cut a batch from the session's buffer, tagged with the session's view. */
  function cutBatch(s: State, c: number, srv: number) {
    const session = s.clients[c].sessions[srv];
    const batch = session.buffer.splice(0, batchSize);
    const written = s.meta.rangesAt.filter(([sv, v]) => sv === srv && v === session.view).map(([, , r]) => r);
    for (const o of batch) {
      s.sentTag[o] = session.view;
      if (!written.some((r) => (r & rangeOf(ops[o].k)) !== 0)) {
        breakInv(s, 'INV-BATCHKEYS', `c${c + 1} sent ${describeOp(o)} to ${serverName(s, srv)} tagged view ${session.view}, whose ranges do not hold ${keys[ops[o].k].name}`);
      }
    }
    s.req[c][srv].push({ ops: batch, tag: session.view });
  }

  function refreshFromMeta(s: State, cl: Client) {
    cl.owner = s.meta.owner.slice();
    cl.views = s.meta.view.slice();
    cl.sessions.forEach((session, srv) => {
      // M17: the session keeps its old view number but takes the ranges of the new snapshot
      if (!m('M17')) session.view = s.meta.view[srv];
      session.ranges = rangesOf(s.meta.owner, srv);
    });
  }

  // ---- the machine -----------------------------------------------------------------------

  /** A server that is no migration's source yet: its log, the SSD boundary, its threads. */
  function idleSource(log: Item[], head: number, threads: SourceThread[]): Source {
    return {
      phase: 'NORMAL',
      threads,
      log,
      head,
      flushed: config.tiers ? 0 : head,
      begin: 0,
      compaction: 'no',
      tailStart: 0,
      claimed: 0,
      batchesSent: 0,
      batchesAcked: 0,
      earlySamples: null,
      pendingIO: [],
      copying: [],
    };
  }

  function initial(): State {
    const srcLog: Item[] = [];
    const tgtLog: Item[] = [];
    keys.forEach((d: KeyDef, k) => {
      for (const v of d.cold ?? []) srcLog.push({ k, v });
    });
    const head = srcLog.length;
    keys.forEach((d, k) => {
      if (d.init === undefined) return;
      (d.range === RT ? tgtLog : srcLog).push({ k, v: d.init });
    });
    const owner = [S, S, T];
    const snapshot = (log: Item[]) => (crashes ? { log: clonePlain(log), execd: [] } : null);
    const meta = { owner, view: [1, 1], rangesAt: [[S, 1, rangesOf(owner, S)], [T, 1, rangesOf(owner, T)]] as [number, number, number][], dep: null };
    return {
      meta,
      src: idleSource(srcLog, head, Array.from({ length: config.sourceThreads }, () => ({ view: 1, phase: 'NORMAL' as const }))),
      tgt: { phase: 'NORMAL', view: 1, log: tgtLog, tailStart: 0, pended: [] },
      clients: config.clients.map(() => ({
        owner: owner.slice(),
        views: [1, 1],
        sessions: [S, T].map((srv) => ({ view: 1, ranges: rangesOf(owner, srv), inflight: [], rejectFrom: -1, behind: [], lastDone: -1, buffer: [] })),
        next: 0,
      })),
      req: config.clients.map(() => [[], []]),
      resp: config.clients.map(() => [[], []]),
      ctrl: [],
      data: Array.from({ length: config.sourceThreads }, () => []),
      compacted: [],
      migrations: 0,
      swapped: false,
      A: keys.map((d) => initialValue(d)),
      execs: ops.map(() => 0),
      status: ops.map(() => 0),
      sentTag: ops.map(() => 0),
      broken: [],
      up: [true, true],
      crashesLeft: crashes,
      execd: [[], []],
      // a checkpoint from before the run stands in for the last one taken before the migration
      pre: [snapshot(srcLog), snapshot(tgtLog)],
      post: [null, null],
      applied: [],
      gone: null,
      deciding: null,
    };
  }

  function actions(s: State): ShadowfaxAction[] {
    const out: ShadowfaxAction[] = [];
    const src = s.src;
    const tgt = s.tgt;
    const name = (srv: number) => serverName(s, srv);
    const thread = (t: number) => sourceThreadName(s.swapped, t);
    config.clients.forEach((cl, c) => {
      const client = s.clients[c];
      const outstanding = cl.script.reduce((n, _, i) => n + (s.status[firstOp[c] + i] === 1 ? 1 : 0), 0);
      if (client.next < cl.script.length && outstanding < config.depth) {
        out.push({ label: `issue(c${c + 1}, ${describeOp(firstOp[c] + client.next)})`, step: 'issue', c });
      }
      for (const srv of [S, T]) {
        if (client.sessions[srv].buffer.length > 0) out.push({ label: `clientSend(c${c + 1}→${name(srv)})`, step: 'clientSend', c, s: srv });
        if (s.req[c][srv].length > 0 && s.up[srv]) {
          out.push({ label: `serverRecvBatch(c${c + 1}→${name(srv)})`, step: 'serverRecvBatch', c, s: srv });
          // M18: a thread passes its cut in the middle of a batch, after executing part of it
          const th = src.threads[cl.sThread];
          if (m('M18') && srv === S && s.req[c][S][0].ops.length > 1 && src.phase === 'TRANSFER' && th.phase !== 'TRANSFER') {
            out.push({ label: `serverRecvBatch(c${c + 1}→S, cut mid-batch)`, step: 'serverRecvBatchSplit', c, s: S });
          }
        }
        if (s.resp[c][srv].length > 0) out.push({ label: `clientRecv(c${c + 1}←${name(srv)})`, step: 'clientRecv', c, s: srv });
      }
      if (client.sessions.some((x) => x.rejectFrom >= 0 || x.behind.length > 0)) out.push({ label: `handleViewChange(c${c + 1})`, step: 'handleViewChange', c });
    });
    if (crashes) crashActions(s, out);
    const sourceUp = s.up[S];
    const targetUp = s.up[T];
    if (sourceUp && s.migrations === 0) out.push({ label: 'migrate(R, S→T)', step: 'migrate' });
    if (config.roundTrip && s.migrations === 1 && returnTripMayStart(s)) out.push({ label: 'migrate(R, T→S)', step: 'migrate' });
    if (sourceUp && (src.phase === 'SAMPLING' || src.phase === 'PREPARE' || src.phase === 'TRANSFER' || src.phase === 'MIGRATE')) {
      src.threads.forEach((th, t) => {
        if (th.phase !== src.phase) out.push({ label: `threadRefresh(${thread(t)}, ${src.phase})`, step: 'threadRefresh', t });
      });
      if (src.threads.every((th) => th.phase === src.phase) && sourcePhaseWorkDone(s)) {
        out.push({ label: `srcAdvance(${src.phase})`, step: 'srcAdvance' });
      }
    }
    if (sourceUp && src.phase === 'MIGRATE') {
      src.threads.forEach((th, t) => {
        if (th.phase !== 'MIGRATE') return;
        for (const e of entries) if (!(src.claimed & (1 << e))) out.push({ label: `sendChunk(${thread(t)}, e${e})`, step: 'sendChunk', t, e });
      });
    }
    src.pendingIO.forEach((p, i) => out.push({ label: `serverCompleteIO(${thread(p.t)}, ${describeOp(p.op)})`, step: 'serverCompleteIO', i, t: p.t }));
    src.copying.forEach((p, i) => out.push({ label: `installSampleCopy(${thread(p.t)}, ${describeOp(p.op)})`, step: 'installSampleCopy', i, t: p.t }));
    if (!targetUp) return out;
    if (s.ctrl.length > 0) out.push({ label: `tgtRecvControl(${s.ctrl[0].rpc})`, step: 'tgtRecvControl' });
    s.data.forEach((ch, t) => {
      if (ch.length > 0) out.push({ label: `tgtRecvData(${thread(t)})`, step: 'tgtRecvData', t });
    });
    // L340: the target periodically retries pended ops (M28: it never does)
    if (!m('M28')) {
      tgt.pended.forEach((p, i) => {
        if (targetDecision(s, p.op) === 'execute') out.push({ label: `tgtRetryPended(${describeOp(p.op)})`, step: 'tgtRetryPended', i });
      });
    }
    const fetchable = new Set<number>();
    for (const p of tgt.pended) {
      const k = ops[p.op].k;
      if (fetchable.has(k) || targetDecision(s, p.op) !== 'fetch') continue;
      const at = lookup(tgt.log, k, tgt.tailStart);
      if (at.kind !== 'indir') continue;
      // [impl] resolve only after T_COMPLETE (M11: while still receiving); flushed first (M10)
      const phaseOk = tgt.phase === 'T_COMPLETE' || m('M11');
      const flushedOk = at.addr < src.flushed || m('M10');
      if (phaseOk && flushedOk) fetchable.add(k);
    }
    for (const k of fetchable) out.push({ label: `tgtFetchIndirection(${keys[k].name})`, step: 'tgtFetchIndirection', k });
    if (config.compaction && sourceUp && src.phase === 'DONE') {
      if (src.compaction === 'no') out.push({ label: 'compact(S)', step: 'compact' });
      // L217: the compacted region goes once its records are applied (M27: without waiting)
      if (src.begin < src.head && (src.compaction === 'done' || m('M27'))) out.push({ label: 'truncate(S)', step: 'truncate' });
    }
    if (config.compaction && targetUp && s.compacted.length > 0) out.push({ label: 'ownerRecvCompacted(T)', step: 'ownerRecvCompacted' });
    if (config.tiers && sourceUp) {
      if (src.head < src.log.length) out.push({ label: 'evict(S)', step: 'evict' });
      if (src.flushed < src.head) out.push({ label: 'flush(S)', step: 'flush' });
    }
    return out;
  }

  /** B4: R goes back once the first migration is over at both ends and T's pended ops are drained. */
  const returnTripMayStart = (s: State) => s.src.phase === 'DONE' && s.tgt.phase === 'T_COMPLETE' && s.tgt.pended.length === 0;

  /**
   * B4's return trip: T becomes the source of R and S its target. Everything indexed by
   * server changes places, so that index S keeps naming the source (state.ts).
   */
  function swapRoles(s: State) {
    const { src, tgt } = s;
    s.swapped = true;
    s.src = idleSource(tgt.log, 0, [{ view: tgt.view, phase: 'NORMAL' }]); // head 0: no tiers, all in memory
    s.tgt = { phase: 'NORMAL', view: src.threads[0].view, log: src.log, tailStart: 0, pended: [] };
    const other = (srv: number) => 1 - srv;
    s.meta.owner = s.meta.owner.map(other);
    s.meta.view.reverse();
    s.meta.rangesAt = s.meta.rangesAt.map(([srv, v, r]) => [other(srv), v, r]);
    for (const cl of s.clients) {
      cl.owner = cl.owner.map(other);
      cl.views.reverse();
      cl.sessions.reverse();
    }
    for (const channels of [...s.req, ...s.resp]) channels.reverse();
    for (const perServer of [s.up, s.execd, s.pre, s.post]) perServer.reverse();
  }

  function sourcePhaseWorkDone(s: State): boolean {
    const src = s.src;
    // [impl] WAIT_FOR_PENDING, the paper's "completed all work relating to it" (L173); M3 skips it
    if (src.phase === 'TRANSFER') return m('M3') || src.pendingIO.length === 0;
    if (src.phase !== 'MIGRATE') return true;
    // M30: Complete once the first thread is done with its chunks, not the last
    if (m('M30')) return src.claimed !== 0;
    const allClaimed = entries.every((e) => src.claimed & (1 << e));
    // L185 [interp]: every batch acknowledged as inserted (M9: CompleteMigration overtakes the data)
    return allClaimed && (m('M9') || src.batchesAcked === src.batchesSent);
  }

  function sendTransferedOwnership(s: State) {
    const samples = s.src.earlySamples ?? collectSamples(s);
    const stale = samples.find((it) => 'k' in it && it.v !== s.A[it.k]);
    const early = s.src.threads.find((th) => th.view !== s.meta.view[S]);
    const pending = s.src.pendingIO.find((p) => rangeOf(ops[p.op].k) === R);
    if (early || stale || pending) {
      const why = early
        ? 'a source thread is still in the old view'
        : pending
          ? `${describeOp(pending.op)} is still pending on I/O at the source`
          : `the sample of ${keys[(stale as { k: number }).k].name} is stale`;
      breakInv(s, 'INV-TRANSFER', `TransferedOwnership sent while ${why}`);
    }
    s.ctrl.push({ rpc: 'TransferedOwnership', samples });
  }

  function enterReceive(s: State) {
    if (s.tgt.phase === 'NORMAL') s.tgt.view = s.meta.view[T];
    s.tgt.phase = 'T_RECEIVE';
    s.tgt.tailStart = s.tgt.log.length;
  }

  // ---- crashes, checkpoints and recovery (§4.4, L219-227; extraction §2.5, §2.13) -------

  function takeSnapshot(s: State, srv: number) {
    return { log: clonePlain(srv === S ? s.src.log : s.tgt.log), execd: s.execd[srv].slice() };
  }

  /** A crash loses volatile state and every connection of the server (§1.8). */
  function crash(s: State, srv: number) {
    s.up[srv] = false;
    s.crashesLeft--;
    dropConnections(s, srv);
  }

  function dropConnections(s: State, srv: number) {
    s.req.forEach((r) => (r[srv] = []));
    s.resp.forEach((r) => (r[srv] = []));
    s.ctrl = [];
    s.data = s.data.map(() => []);
    if (srv === S) s.src.pendingIO = [];
    else s.tgt.pended = [];
  }

  /**
   * Roll a server back to a checkpoint. Executions after it leave the lineage (A follows
   * the surviving writes); clients learn the CPR point and replay the rest.
   */
  function restore(s: State, srv: number, snap: Snapshot, replay: Set<number>) {
    const rolledBack = s.execd[srv].filter((o) => !snap.execd.includes(o));
    s.execd[srv] = snap.execd.slice();
    if (srv === S) s.src.log = clonePlain(snap.log);
    else s.tgt.log = clonePlain(snap.log);
    for (const o of rolledBack) {
      s.execs[o]--;
      s.applied = s.applied.filter(([x]) => x !== o);
      replay.add(o);
    }
    s.A = keys.map((d, k) => {
      const last = s.applied.findLast(([, key]) => key === k);
      return last ? last[2] : (initialValue(d));
    });
  }

  /** Clients reissue what a restarted server lost or rolled back (CPR replay, L227, L388). */
  function replayClients(s: State, restarted: number[], replay: Set<number>) {
    s.clients.forEach((cl, c) => {
      const reissue: number[] = [];
      for (const srv of restarted) {
        const session = cl.sessions[srv];
        for (const o of session.inflight) {
          if (s.execd[srv].includes(o)) s.status[o] = 2; // inside the recovered prefix
          else reissue.push(o);
        }
        session.inflight = [];
        session.buffer = [];
        session.rejectFrom = -1;
        session.behind = [];
      }
      for (const o of replay) {
        if (ops[o].c === c && !reissue.includes(o) && !cl.sessions.some((x) => x.inflight.includes(o))) reissue.push(o);
      }
      refreshFromMeta(s, cl);
      for (const o of reissue.sort((x, y) => x - y)) {
        s.status[o] = 1;
        send(s, c, o);
      }
    });
  }

  /** Views come from the metadata store after recovery, never from a checkpoint (§1.7). */
  function resetServer(s: State, srv: number, phase: 'idle' | 'done') {
    if (srv === S) {
      s.src.phase = phase === 'done' ? 'DONE' : 'NORMAL';
      s.src.threads = s.src.threads.map(() => ({ view: s.meta.view[S], phase: s.src.phase }));
      s.src.pendingIO = [];
    } else {
      s.tgt.phase = phase === 'done' ? 'T_COMPLETE' : 'NORMAL';
      s.tgt.view = s.meta.view[T];
      s.tgt.pended = [];
    }
  }

  /** L223: cancel the migration: R back to S, both views bumped, both servers restored. */
  function cancelMigration(s: State, crashed: number, restartCrashed: boolean) {
    const d = s.meta.dep!;
    d.cancelled = true;
    s.meta.owner[0] = S;
    s.meta.view[S]++;
    s.meta.view[T]++;
    s.meta.rangesAt.push([S, s.meta.view[S], rangesOf(s.meta.owner, S)], [T, s.meta.view[T], rangesOf(s.meta.owner, T)]);
    // M23: only the crashed server is restored; M24: the "crashed" target is alive and unreachable
    const restored = m('M23') ? [crashed] : [S, T];
    const replay = new Set<number>();
    for (const srv of restored) {
      if (srv === T && !restartCrashed) continue;
      dropConnections(s, srv);
      restore(s, srv, s.pre[srv]!, replay);
      resetServer(s, srv, srv === S ? 'done' : 'idle');
    }
    if (!restored.includes(S)) s.src.phase = 'DONE';
    if (restartCrashed) s.up[crashed] = true;
    replayClients(s, restored.filter((x) => x !== T || restartCrashed), replay);
  }

  /** L221: after both flags, a server recovers on its own from its latest checkpoint. */
  function recoverIndependently(s: State, srv: number) {
    const replay = new Set<number>();
    dropConnections(s, srv); // what clients sent while it was down went nowhere
    restore(s, srv, (s.post[srv] ?? s.pre[srv])!, replay);
    const d = s.meta.dep;
    const committed = s.migrations > 0 && (d ? d.srcDone && d.tgtDone : !s.gone?.cancelled);
    resetServer(s, srv, committed || (d?.cancelled && srv === S) ? 'done' : 'idle');
    s.up[srv] = true;
    replayClients(s, [srv], replay);
  }

  const mustCancel = (s: State) => {
    const d = s.meta.dep;
    return d !== null && !d.cancelled && !(d.srcDone && d.tgtDone);
  };

  function crashActions(s: State, out: ShadowfaxAction[]) {
    const d = s.meta.dep;
    for (const srv of [S, T]) {
      const name = SERVER_NAMES[srv];
      if (s.up[srv] && s.crashesLeft > 0) out.push({ label: `crash(${name})`, step: 'crash', s: srv });
      if (s.up[srv]) continue;
      if (!m('M21b')) out.push({ label: `recover(${name})`, step: 'recover', s: srv });
      else if (!s.deciding) out.push({ label: `recoverReadFlags(${name})`, step: 'recoverReadFlags', s: srv });
      else out.push({ label: `recoverAct(${name})`, step: 'recoverAct', s: srv });
    }
    // M24: the recovery driver takes a partitioned, live target for crashed
    if (m('M24') && s.up[T] && s.crashesLeft > 0 && mustCancel(s)) out.push({ label: 'suspectCrashed(T)', step: 'suspectCrashed' });
    if (s.up[S] && s.src.phase === 'COMPLETE' && d && !d.cancelled) {
      // L221: checkpoint, then set the flag (M22: the other way round)
      if (!s.post[S] && (!m('M22') || d.srcDone)) out.push({ label: 'srcCheckpoint()', step: 'srcCheckpoint' });
      if (!d.srcDone && (s.post[S] || m('M22'))) out.push({ label: 'srcSetFlag()', step: 'srcSetFlag' });
    }
    if (s.up[T] && s.tgt.phase === 'T_COMPLETE' && d && !d.cancelled) {
      if (!s.post[T] && (!m('M22') || d.tgtDone)) out.push({ label: 'tgtCheckpoint()', step: 'tgtCheckpoint' });
      if (!d.tgtDone && (s.post[T] || m('M22'))) out.push({ label: 'tgtSetFlag()', step: 'tgtSetFlag' });
    }
    // L194: the cluster manager deletes the dependency once both flags are set (M21: once either is)
    if (d && !d.cancelled && (m('M21') ? d.srcDone || d.tgtDone : d.srcDone && d.tgtDone)) out.push({ label: 'clusterGC()', step: 'clusterGC' });
  }

  function crashStep(s: State, a: ShadowfaxAction): void {
    const d = s.meta.dep;
    switch (a.step) {
      case 'crash':
        crash(s, a.s!);
        return;
      case 'recover':
        if (mustCancel(s)) cancelMigration(s, a.s!, true);
        else recoverIndependently(s, a.s!);
        return;
      case 'recoverReadFlags':
        s.deciding = { server: a.s!, cancel: mustCancel(s) };
        return;
      case 'recoverAct': {
        const { cancel } = s.deciding!;
        s.deciding = null;
        if (cancel && d) cancelMigration(s, a.s!, true);
        else recoverIndependently(s, a.s!);
        return;
      }
      case 'suspectCrashed':
        s.crashesLeft--;
        cancelMigration(s, T, false);
        return;
      case 'srcCheckpoint':
        s.post[S] = takeSnapshot(s, S);
        break;
      case 'srcSetFlag':
        d!.srcDone = true;
        break;
      case 'tgtCheckpoint':
        s.post[T] = takeSnapshot(s, T);
        break;
      case 'tgtSetFlag':
        d!.tgtDone = true;
        break;
      case 'clusterGC':
        s.gone = { ...d! };
        s.meta.dep = null;
        return;
    }
    if (s.src.phase === 'COMPLETE' && s.post[S] && s.meta.dep?.srcDone) s.src.phase = 'DONE';
  }

  const crashSteps = new Set(['crash', 'recover', 'recoverReadFlags', 'recoverAct', 'suspectCrashed', 'srcCheckpoint', 'srcSetFlag', 'tgtCheckpoint', 'tgtSetFlag', 'clusterGC']);

  function next(before: State, a: ShadowfaxAction): State {
    const s = clonePlain(before);
    const src = s.src;
    const tgt = s.tgt;
    if (crashSteps.has(a.step)) {
      crashStep(s, a);
      return s;
    }
    switch (a.step) {
      case 'issue': {
        // §3.1: route by the cached mapping, buffer, send (batch size 1)
        const c = a.c!;
        const o = firstOp[c] + s.clients[c].next++;
        s.status[o] = 1;
        send(s, c, o);
        break;
      }
      case 'serverRecvBatch': {
        // L148: one view check per batch; equal views execute the whole batch
        const c = a.c!;
        const srv = a.s!;
        const { ops: batch, tag } = s.req[c][srv].shift()!;
        if (srv === S) {
          const t = config.clients[c].sThread;
          const view = src.threads[t].view;
          // M1: the source skips the check and keeps serving R after its cut
          if (tag !== view && !m('M1')) {
            s.resp[c][S].push({ op: batch[0], rejected: view, tag });
            break;
          }
          for (const o of batch) executeAtSource(s, t, c, o);
        } else {
          // M6: the prototype's rule, accepting batches tagged with a newer view (§1.4)
          const accept = m('M6') ? tag >= tgt.view : tag === tgt.view;
          if (!accept) {
            s.resp[c][T].push({ op: batch[0], rejected: tgt.view, tag });
            break;
          }
          for (const o of batch) {
            if (targetDecision(s, o) === 'execute') executeAtTarget(s, c, o);
            else tgt.pended.push({ op: o, c });
          }
        }
        break;
      }
      case 'serverRecvBatchSplit': {
        // M18: the first op runs, the thread enters Transfer, the rest of the batch is rejected whole
        const c = a.c!;
        const t = config.clients[c].sThread;
        const { ops: batch, tag } = s.req[c][S].shift()!;
        executeAtSource(s, t, c, batch[0]);
        src.threads[t] = { phase: 'TRANSFER', view: s.meta.view[S] };
        breakInv(s, 'INV-REJECT-ATOMIC', `s${t + 1} executed ${describeOp(batch[0])} and then rejected its batch`);
        s.resp[c][S].push({ op: batch[0], rejected: src.threads[t].view, tag });
        break;
      }
      case 'clientSend':
        cutBatch(s, a.c!, a.s!);
        break;
      case 'installSampleCopy': {
        const { op: o, c, v } = src.copying.splice(a.i!, 1)[0];
        src.log.push({ k: ops[o].k, v });
        const at: Lookup = { kind: 'rec', v, addr: src.log.length - 1 };
        const { out, write } = apply(s, S, o, v);
        if (write !== undefined) store(src.log, src.head, ops[o].k, at, write);
        respond(s, c, S, o, out);
        break;
      }
      case 'serverCompleteIO': {
        const { op: o, c, t } = src.pendingIO.splice(a.i!, 1)[0];
        executeAtSource(s, t, c, o, true);
        break;
      }
      case 'clientRecv': {
        const c = a.c!;
        const srv = a.s!;
        const r = s.resp[c][srv].shift()!;
        const session = s.clients[c].sessions[srv];
        if (!session.inflight.includes(r.op)) break; // answer to an op already reissued
        if ('rejected' in r) {
          // the rejection of a batch sent before the op's latest reissue is already handled
          if (r.tag < s.sentTag[r.op]) break;
          // A server behind the client's view rejects this batch, but may accept the next ones
          // once it catches up: only this batch is retried, not the suffix (see README).
          if (r.rejected < r.tag) session.behind.push(r.op);
          else if (session.rejectFrom < 0) session.rejectFrom = r.op; // L156: the earliest point
        } else {
          session.inflight = session.inflight.filter((x) => x !== r.op);
          session.lastDone = r.op;
          s.status[r.op] = 2;
        }
        break;
      }
      case 'handleViewChange': {
        // L156-158: refresh the mapping, then shuffle the rejected suffix to the right sessions
        const c = a.c!;
        const cl = s.clients[c];
        // M16: no refresh, so the suffix goes back to the stale owner with the old tag
        if (!m('M16')) refreshFromMeta(s, cl);
        const reissue: number[] = [];
        cl.sessions.forEach((session, srv) => {
          const retry = session.behind;
          session.behind = [];
          session.inflight = session.inflight.filter((x) => !retry.includes(x));
          reissue.push(...retry);
          if (session.rejectFrom < 0) return;
          const p = session.inflight.indexOf(session.rejectFrom);
          const suffix = session.inflight.slice(p);
          let chosen = suffix;
          if (m('M15')) chosen = [session.rejectFrom]; // only the first rejected batch
          // M15b: from too early a point, taking in the last op the session already answered
          if (m('M15b') && session.lastDone >= 0) chosen = [session.lastDone, ...suffix];
          if (m('M29')) chosen = []; // the rejection carried no reissue point
          if (chosen.length !== suffix.length || chosen.some((x) => !suffix.includes(x))) {
            breakInv(s, 'INV-REISSUE', `c${c + 1} reissued [${chosen.map(describeOp).join(', ')}] from ${serverName(s, srv)}, but the rejected suffix is [${suffix.map(describeOp).join(', ')}]`);
          }
          // L158: marked invalid in the old session, buffered or sent
          session.inflight = session.inflight.filter((x) => !chosen.includes(x));
          session.buffer = session.buffer.filter((x) => !chosen.includes(x));
          session.rejectFrom = -1;
          reissue.push(...chosen);
        });
        for (const o of reissue) send(s, c, o);
        break;
      }
      case 'migrate': {
        // B4: the return trip (scale-down, L213, L235) has T as its source and S as its target
        if (s.migrations === 1) swapRoles(s);
        s.migrations++;
        // L175-177: one atomic metadata update: remap R, bump both views, register the dependency
        s.meta.owner[0] = T;
        if (!m('M13')) {
          s.meta.view[S]++;
          if (!m('M14')) s.meta.view[T]++;
        }
        s.meta.rangesAt.push([S, s.meta.view[S], rangesOf(s.meta.owner, S)], [T, s.meta.view[T], rangesOf(s.meta.owner, T)]);
        s.meta.dep = { srcDone: false, tgtDone: false, cancelled: false };
        // L223 "pre-migration checkpoints" [interp: taken now, on both servers]
        if (crashes) s.pre = [takeSnapshot(s, S), takeSnapshot(s, T)];
        s.src.phase = 'SAMPLING'; // s.src, not src: the return trip has a new source
        s.src.tailStart = s.src.log.length; // L180
        break;
      }
      case 'threadRefresh': {
        // §1.5: a thread enters the server's phase at a point of its own choosing
        const th = src.threads[a.t!];
        th.phase = src.phase;
        if (src.phase === 'TRANSFER') {
          th.view = s.meta.view[S]; // L183: the thread moves into vS'
          // M2: TransferedOwnership is sent when the first thread reaches its cut
          if (m('M2') && src.threads.filter((x) => x.phase === 'TRANSFER').length === 1) sendTransferedOwnership(s);
        }
        break;
      }
      case 'srcAdvance': {
        if (src.phase === 'SAMPLING') {
          // L182: Prepare sends PrepForTransfer; M4 collects the samples already here
          if (m('M4')) src.earlySamples = collectSamples(s);
          s.ctrl.push({ rpc: 'PrepForTransfer' });
          src.phase = 'PREPARE';
        } else if (src.phase === 'PREPARE') {
          src.phase = 'TRANSFER'; // L183
        } else if (src.phase === 'TRANSFER') {
          // L183: every thread is in the new view: ship ownership with the samples
          if (!m('M2')) sendTransferedOwnership(s);
          src.phase = 'MIGRATE';
        } else if (src.phase === 'MIGRATE') {
          // L185: CompleteMigration, then the source's completion flag (after a checkpoint, L221)
          s.ctrl.push({ rpc: 'CompleteMigration' });
          if (crashes) src.phase = 'COMPLETE';
          else {
            s.meta.dep!.srcDone = true;
            src.phase = 'DONE';
          }
        }
        break;
      }
      case 'sendChunk': {
        // L184, L202: one bucket entry's chain: an indirection if it reaches SSD, then its in-memory R records
        const e = a.e!;
        src.claimed |= 1 << e;
        const chain: { it: Item; addr: number }[] = [];
        for (let i = src.log.length - 1; i >= 0; i--) {
          const it = src.log[i];
          if ('k' in it && entryOf(it.k) === e) chain.push({ it, addr: i });
        }
        const onDisk = chain.find((x) => x.addr < src.head);
        const records = chain.filter((x) => x.addr >= src.head && rangeOf((x.it as { k: number }).k) === R).map((x) => x.it);
        const indir: Item[] = onDisk ? [{ indir: e, range: R, addr: onDisk.addr }] : [];
        // M11: the indirection and the in-memory records travel in separate batches
        const batches = m('M11') && indir.length && records.length ? [indir, records] : [[...indir, ...records]];
        for (const b of batches) s.data[a.t!].push(b);
        src.batchesSent += batches.length;
        break;
      }
      case 'tgtRecvControl': {
        const msg: Control = s.ctrl.shift()!;
        if (msg.rpc === 'PrepForTransfer') {
          // L182: the target adopts vT' and pends R ops
          if (tgt.phase === 'NORMAL') {
            tgt.phase = 'T_PREPARE';
            tgt.view = s.meta.view[T];
          }
        } else if (msg.rpc === 'TransferedOwnership') {
          // L183: enter Target-Receive, insert the samples, serve R
          if (tgt.phase === 'NORMAL' || tgt.phase === 'T_PREPARE') enterReceive(s);
          for (const it of msg.samples) if ('k' in it) conditionalInsert(s, it.k, it.v);
        } else {
          // L192: CompleteMigration; INV-COMPLETE wants every record batch applied first
          const unapplied = s.data.reduce((n, ch) => n + ch.length, 0);
          if (unapplied > 0) breakInv(s, 'INV-COMPLETE', `T entered T_COMPLETE with ${unapplied} record batch(es) still in flight`);
          tgt.phase = 'T_COMPLETE';
          if (!crashes) s.meta.dep!.tgtDone = true;
        }
        break;
      }
      case 'tgtRecvData': {
        // L190, L202: a data batch proves the transfer; install indirections, insert records conditionally
        const batch = s.data[a.t!].shift()!;
        if (tgt.phase === 'NORMAL' || tgt.phase === 'T_PREPARE') enterReceive(s);
        for (const it of batch) {
          if ('k' in it) conditionalInsert(s, it.k, it.v);
          else tgt.log.push(it); // at the head of the entry's chain, as the prototype does
        }
        src.batchesAcked++;
        break;
      }
      case 'tgtRetryPended': {
        const { op: o, c } = tgt.pended.splice(a.i!, 1)[0];
        executeAtTarget(s, c, o);
        break;
      }
      case 'tgtFetchIndirection': {
        // L204-209: fetch k from the shared tier through the indirection, insert it
        const k = a.k!;
        const at = lookup(tgt.log, k, tgt.tailStart) as { kind: 'indir'; addr: number };
        const v = blobRead(s, at.addr, k);
        if (at.addr >= src.flushed || v !== s.A[k]) {
          breakInv(s, 'INV-INDIR', `T dereferenced the indirection for ${keys[k].name} at address ${at.addr} (blob flushed below ${src.flushed}) and found ${v ?? 'NOT_FOUND'}, but the latest write left ${s.A[k] ?? 'NOT_FOUND'}`);
        }
        tgt.log.push({ k, v });
        break;
      }
      case 'compact': {
        // L215: ship each record whose range S no longer owns; [interp] the live version only (M25: the oldest)
        src.compaction = 'shipping';
        keys.forEach((d, k) => {
          if (s.meta.owner[rangeBit(d.range)] === S) return;
          const versions = src.log.flatMap((it, addr) => ('k' in it && it.k === k && addr < src.head ? [it] : []));
          if (versions.length === 0) return;
          s.compacted.push(m('M25') ? versions[0] : versions[versions.length - 1]);
        });
        if (s.compacted.length === 0) src.compaction = 'done';
        break;
      }
      case 'truncate':
        src.begin = src.head;
        break;
      case 'ownerRecvCompacted': {
        // L215: insert only where the key was not fetched from the shared tier after migration
        const it = s.compacted.shift() as { k: number; v: number | null };
        const at = lookup(tgt.log, it.k, tgt.tailStart);
        if ((at.kind === 'indir' && !at.outOfRange) || m('M26')) {
          tgt.log.push({ k: it.k, v: it.v });
          if (it.v !== s.A[it.k]) breakInv(s, 'INV-COND-INSERT', `T inserted the compaction copy ${keys[it.k].name} = ${it.v ?? 'NOT_FOUND'} over the latest value ${s.A[it.k] ?? 'NOT_FOUND'}`);
        }
        if (s.compacted.length === 0) src.compaction = 'done';
        break;
      }
      case 'evict':
        src.head = src.log.length;
        break;
      case 'flush':
        src.flushed = src.head;
        break;
    }
    return s;
  }

  /** The run may end: every op answered, and the migration committed (and collected) or cancelled. */
  const done = (s: State) => {
    if (!s.status.every((x) => x === 2) || !s.up.every(Boolean) || s.deciding) return false;
    if (s.meta.dep?.cancelled) return true;
    const finished = s.src.phase === 'DONE' && s.tgt.phase === 'T_COMPLETE' && (!config.roundTrip || s.migrations === 2);
    return crashes ? finished && s.meta.dep === null : finished;
  };

  const decided = (s: State) => s.gone !== null || (s.meta.dep !== null && (s.meta.dep.cancelled || (s.meta.dep.srcDone && s.meta.dep.tgtDone)));

  /**
   * Weak fairness (§4.5): every thread keeps running (the source's threads, its phase driver
   * S, T's thread t1), every channel keeps delivering, every client thread keeps handling its
   * rejections, the cluster manager and the recovery driver eventually act. Faults (crashes,
   * a partition) and the administrator's migrate() are never obliged to happen. Classes
   * are named physically, so on B4's return trip T drives the phases.
   */
  function fairness(a: ShadowfaxAction): string | undefined {
    const c = a.c !== undefined ? `c${a.c + 1}` : '';
    const name = (srv: number) => SERVER_NAMES[a.swapped ? 1 - srv : srv];
    switch (a.step) {
      case 'issue':
      case 'clientSend':
      case 'handleViewChange':
        return c;
      case 'serverRecvBatch':
      case 'serverRecvBatchSplit':
        return `${c}→${name(a.s!)}`;
      case 'clientRecv':
        return `${name(a.s!)}→${c}`;
      case 'threadRefresh':
      case 'sendChunk':
      case 'serverCompleteIO':
      case 'installSampleCopy':
        return sourceThreadName(a.swapped, a.t!);
      case 'tgtRecvControl':
        return `${name(S)}→${name(T)} control`;
      case 'tgtRecvData':
        return `${sourceThreadName(a.swapped, a.t!)}→${name(T)} data`;
      case 'ownerRecvCompacted':
        return 'S→T compacted';
      case 'tgtRetryPended':
      case 'tgtFetchIndirection':
      case 'tgtCheckpoint':
      case 'tgtSetFlag':
        return targetThreadName(a.swapped);
      case 'clusterGC':
        return 'cluster manager';
      case 'recover':
      case 'recoverReadFlags':
      case 'recoverAct':
        return 'recovery driver';
      case 'migrate':
      case 'crash':
      case 'suspectCrashed':
        return undefined;
      default: // srcAdvance, srcCheckpoint, srcSetFlag, evict, flush, compact, truncate
        return name(S);
    }
  }

  /** canExecute(s, r) of §4.2: would this server execute an op on range r if one arrived now? */
  function canExecute(s: State, srv: number, r: number): boolean {
    if (!s.up[srv]) return false;
    const ranges = (v: number) => s.meta.rangesAt.filter(([x, y]) => x === srv && y === v).reduce((acc, [, , rs]) => acc | rs, 0);
    if (srv === S) {
      const pendingOnR = s.src.pendingIO.some((p) => (rangeOf(ops[p.op].k) & r) !== 0);
      return pendingOnR || s.src.threads.some((th) => (ranges(th.view) & r) !== 0) || (m('M1') && r === R);
    }
    if (r === R) return s.tgt.phase === 'T_RECEIVE' || s.tgt.phase === 'T_COMPLETE' || (m('M5') && s.tgt.phase === 'T_PREPARE');
    return (ranges(s.tgt.view) & r) !== 0;
  }

  const stepInvariant = (name: string) => (s: State): Check => {
    const hit = s.broken.find(([n]) => n === name);
    return hit ? hit[1] : true;
  };

  const crashInvariants: Record<string, (s: State) => Check> = {
    // C3, L223: commit and cancel exclude each other; the dependency goes only when decided
    'INV-2PC': (s) => {
      const d = s.meta.dep;
      if (d && d.cancelled && d.srcDone && d.tgtDone) return 'the migration is both committed (both flags) and cancelled';
      const g = s.gone;
      if (g && !(g.srcDone && g.tgtDone) && !g.cancelled) return `the dependency was deleted with srcDone=${g.srcDone}, tgtDone=${g.tgtDone}`;
      return true;
    },
    // C4, L221: a completion flag stands on a checkpoint that holds the migration's effects
    'INV-DURABLE-FLAG': (s) => {
      const d = s.meta.dep ?? s.gone;
      if (d?.srcDone && !s.post[S]) return 'S set srcDone before taking its Complete checkpoint';
      if (d?.tgtDone && !s.post[T]) return 'T set tgtDone before taking its Complete checkpoint';
      return true;
    },
    // L223: after a cancellation R is the source's again and the target cannot serve it
    'INV-CANCEL': (s) => {
      if (!s.meta.dep?.cancelled) return true;
      if (s.meta.owner[0] !== S) return 'the migration was cancelled but R is not owned by S';
      return s.up[T] && canExecute(s, T, R) ? 'the migration was cancelled but T still serves R' : true;
    },
  };

  const invariants: Record<string, (s: State) => Check> = {
    // C1, L154: no two servers serve an overlapping hash range at once
    'INV-EXCL': (s) => {
      for (const r of [1, 2, 4]) {
        if (canExecute(s, S, r) && canExecute(s, T, r)) return `both S and T can execute operations on range ${RANGE_NAMES[r]}`;
      }
      return true;
    },
    'INV-VIEWID': (s) => {
      for (const [srv, v, r] of s.meta.rangesAt) {
        const other = s.meta.rangesAt.find(([x, y, q]) => x === srv && y === v && q !== r);
        if (other) return `view ${v} of ${serverName(s, srv)} names two range sets`;
      }
      for (const [c, cl] of s.clients.entries()) {
        for (const [srv, session] of cl.sessions.entries()) {
          const written = s.meta.rangesAt.find(([x, y]) => x === srv && y === session.view);
          if (written && written[2] !== session.ranges) return `c${c + 1}'s session to ${serverName(s, srv)} pairs view ${session.view} with other ranges than that view's`;
        }
      }
      return true;
    },
    'INV-VIEWMONO': (s) => {
      const bad = s.src.threads.findIndex((th) => th.view > s.meta.view[S]);
      if (bad >= 0) return `s${bad + 1} is ahead of the metadata store's view`;
      return s.tgt.view <= s.meta.view[T] ? true : 'T is ahead of the metadata store\'s view';
    },
    'INV-BATCHKEYS': stepInvariant('INV-BATCHKEYS'),
    'INV-EXACTLY-ONCE': (s) => {
      const o = s.execs.findIndex((n) => n > 1);
      return o < 0 ? true : `${describeOp(o)} was executed ${s.execs[o]} times`;
    },
    'INV-REISSUE': stepInvariant('INV-REISSUE'),
    'INV-REJECT-ATOMIC': stepInvariant('INV-REJECT-ATOMIC'),
    'INV-TRANSFER': stepInvariant('INV-TRANSFER'),
    'INV-TGT-PEND': stepInvariant('INV-TGT-PEND'),
    'INV-COND-INSERT': stepInvariant('INV-COND-INSERT'),
    'INV-COMPLETE': stepInvariant('INV-COMPLETE'),
    'INV-INDIR': stepInvariant('INV-INDIR'),
    'INV-INDIR-SCOPE': stepInvariant('INV-INDIR-SCOPE'),
    // the refinement check that implies linearizability; after the specific ones, which name the cause
    'INV-FRESH': stepInvariant('INV-FRESH'),
    // §2.9: the source log an indirection still points into is not truncated
    'INV-LOG-RETAIN': (s) => {
      for (const [k, d] of keys.entries()) {
        if (d.range !== R) continue;
        const at = lookup(s.tgt.log, k, s.tgt.tailStart);
        if (at.kind === 'indir' && at.addr < s.src.begin) return `T's indirection for ${d.name} points at address ${at.addr}, truncated from S's log (begin ${s.src.begin})`;
      }
      return true;
    },
    // at quiescence, the owner of every key resolves it to the latest write
    'INV-NOLOST': (s) => {
      if (!done(s) || s.ctrl.length || s.data.some((ch) => ch.length)) return true;
      for (const [k, d] of keys.entries()) {
        const owner = s.meta.owner[rangeBit(d.range)];
        const log = owner === S ? s.src.log : s.tgt.log;
        const at = lookup(log, k, owner === T ? s.tgt.tailStart : 0);
        const v = at.kind === 'rec' ? at.v : at.kind === 'indir' ? blobRead({ ...s, src: { ...s.src, flushed: s.src.log.length } }, at.addr, k) : null;
        if (v !== s.A[k]) return `${serverName(s, owner)} resolves ${d.name} to ${v ?? 'NOT_FOUND'}, but the latest write left ${s.A[k] ?? 'NOT_FOUND'}`;
      }
      return true;
    },
  };

  if (crashes) Object.assign(invariants, crashInvariants);

  return {
    init: () => [initial()],
    actions: config.roundTrip
      ? (s) => {
          const out = actions(s);
          if (s.swapped) for (const a of out) a.swapped = true;
          return out;
        }
      : actions,
    next,
    invariants,
    mayStop: done,
    // with rollback and CPR replay an acknowledgement is no durability promise (§4.4):
    // crash configs are checked by their invariants, not by the history
    history: crashes ? undefined : {
      model: shadowfaxKv(keys.map((d) => initialValue(d))),
      // a client thread's pipelined ops are concurrent (§3.7), so each op is its own history client
      clients: ops.length,
      observe(before, a, after): ObservedEvent[] {
        if (a.step === 'issue') {
          const o = firstOp[a.c!] + before.clients[a.c!].next;
          return [{ kind: 'invoke', client: o, input: { f: ops[o].f, key: ops[o].k, value: ops[o].arg } }];
        }
        if (a.step === 'clientRecv') {
          const r = before.resp[a.c!][a.s!][0];
          if ('out' in r && before.status[r.op] === 1 && after.status[r.op] === 2) return [{ kind: 'return', client: r.op, output: r.out }];
        }
        return [];
      },
    },
    // L1-L5 (§4.5): an op answered, or the migration decided (committed or cancelled). Phases
    // only move forward, so only request traffic can cycle: the livelock search looks for a
    // fair reject-retry loop in which nothing is answered (L4).
    progress: (before, _a, after) => after.status.some((x, o) => x === 2 && before.status[o] !== 2) || (decided(after) && !decided(before)),
    fairness,
    actor: (a) => {
      if (a.c !== undefined && (a.step === 'issue' || a.step === 'clientRecv' || a.step === 'handleViewChange')) return `c${a.c + 1}`;
      if (a.step === 'clientSend') return `c${a.c! + 1}`;
      if (a.step === 'serverRecvBatch' || a.step === 'serverRecvBatchSplit') return a.s === S ? `s${config.clients[a.c!].sThread + 1}` : 't1';
      if (a.step.startsWith('tgt')) return 't1';
      if (a.step === 'migrate') return 'meta';
      return a.t !== undefined ? `s${a.t + 1}` : 'S';
    },
  };
}
