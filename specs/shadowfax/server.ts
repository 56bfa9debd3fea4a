// The servers' side of a batch (§3.2, §4.1): the one view check per batch (L148), execution
// at the source (sampling copies, pending I/O) and at the target (pend until the record
// has arrived, L182, L190), and the steps that finish an op later.

import type { GlobalStep, MemberStep } from '../kit/table.ts';
import { removeAt } from '../kit/state.ts';
import { breakInv, describeOp, rangeOf, serverName, sessionAt, sourceThreadName, threadAt, threadsAt, bindAll, type Cx, type GlobalArgs, type MemberArgs, type StepOf } from './context.ts';
import { blobRead, lookup, store } from './storage.ts';
import { action, execdW, listW, R, RANGE_NAMES, reqW, respW, S, srcW, T, tgtW, type Lookup, type ShadowfaxAction, type State } from './state.ts';

type Member = MemberStep<State, ShadowfaxAction>;
type Global = GlobalStep<State, ShadowfaxAction>;

/** The op's effect on the value it resolved; INV-FRESH compares that value with A (§4.3). */
function apply(cx: Cx, s: State, srv: number, o: number, found: number | null): { out: number | null; write?: number } {
  const op = cx.ops[o];
  if (found !== s.A[op.k]) {
    breakInv(s, 'INV-FRESH', `${serverName(s, srv)} executed ${describeOp(cx, o)} on ${cx.keys[op.k].name} = ${found ?? 'NOT_FOUND'}, but the latest write left ${s.A[op.k] ?? 'NOT_FOUND'}`);
  }
  listW(s, 'execs')[o]++;
  execdW(s, srv).push(o);
  if (op.f === 'read') return { out: found };
  const write = op.f === 'upsert' ? op.arg : (found ?? 0) + op.arg;
  listW(s, 'A')[op.k] = write;
  listW(s, 'applied').push([o, op.k, write]);
  return { out: null, write };
}

const respond = (s: State, c: number, srv: number, o: number, out: number | null) => void respW(s, c, srv).push({ op: o, out });

/**
 * A source thread executes an accepted op (§2.3: sampling copies apply in SAMPLING). A
 * record on SSD sends the op pending on I/O; `fromIO` completes it (§1.6, L82).
 */
function executeAtSource(cx: Cx, s: State, t: number, c: number, o: number, fromIO = false): void {
  const { k } = cx.ops[o];
  const src = s.src;
  let at = lookup(cx, src.log, k, 0);
  if (!fromIO && at.kind === 'rec' && at.addr < src.head) {
    srcW(s).pendingIO.push({ op: o, c, t });
    return;
  }
  // L178-180: copy a record accessed during Sampling to the tail, once (addr < tailStart)
  if (src.threads[t].phase === 'SAMPLING' && rangeOf(cx, k) === R && at.kind === 'rec' && (at.addr < src.tailStart || cx.mut.M19)) {
    // M20: without the PREPARE_TO_SAMPLE latch the copy is read now and installed later,
    // while a thread still in NORMAL may update the old record in place
    if (cx.mut.M20) {
      srcW(s).copying.push({ op: o, c, t, v: at.v });
      return;
    }
    const log = srcW(s).log;
    log.push({ k, v: at.v });
    at = { kind: 'rec', v: at.v, addr: log.length - 1 };
  }
  const { out, write } = apply(cx, s, S, o, at.kind === 'rec' ? at.v : null);
  if (write !== undefined) store(srcW(s).log, src.head, k, at, write);
  respond(s, c, S, o, out);
}

/** Whether the target can execute op o now, or must pend it (§2.4, §2.6, §2.11). */
export function targetDecision(cx: Cx, s: State, o: number): 'execute' | 'pend' | 'fetch' {
  const { k } = cx.ops[o];
  const tgt = s.tgt;
  if (rangeOf(cx, k) !== R) {
    const at = lookup(cx, tgt.log, k, tgt.tailStart);
    return at.kind === 'indir' && !at.outOfRange ? 'fetch' : 'execute';
  }
  if (tgt.phase === 'NORMAL') return 'execute'; // only reachable through M6/M17: INV-TGT-PEND
  if (tgt.phase === 'T_PREPARE') return cx.mut.M5 ? 'execute' : 'pend'; // L182
  const at = lookup(cx, tgt.log, k, tgt.tailStart);
  // L190: a record below tailStart is a leftover of an older ownership of R (B4: the
  // original source taking R back), not yet the migrated copy (README)
  if (at.kind === 'rec' && (at.addr >= tgt.tailStart || cx.mut['stale-leftover'])) return 'execute';
  if (at.kind === 'indir') return at.outOfRange ? 'execute' : 'fetch';
  if (tgt.phase === 'T_RECEIVE') return cx.mut.M8 ? 'execute' : 'pend'; // L190: not yet arrived
  return 'execute'; // after CompleteMigration a missing key is NOT_FOUND ([impl])
}

function executeAtTarget(cx: Cx, s: State, c: number, o: number): void {
  const { k } = cx.ops[o];
  const tgt = s.tgt;
  if (rangeOf(cx, k) === R && (tgt.phase === 'NORMAL' || tgt.phase === 'T_PREPARE')) {
    breakInv(s, 'INV-TGT-PEND', `${serverName(s, T)} executed ${describeOp(cx, o)} in ${tgt.phase}, before it received TransferedOwnership or any record batch`);
  }
  const at = lookup(cx, tgt.log, k, tgt.tailStart);
  let found: number | null = null;
  if (at.kind === 'rec') found = at.v;
  else if (at.kind === 'indir') {
    // reachable only for an out-of-range indirection (M12): the lookup follows it into S's log
    breakInv(s, 'INV-INDIR-SCOPE', `a lookup of ${cx.keys[k].name} (range ${RANGE_NAMES[rangeOf(cx, k)]}) followed an indirection scoped to R`);
    found = blobRead(s.src, at.addr, k);
  }
  const { out, write } = apply(cx, s, T, o, found);
  if (write !== undefined) store(tgtW(s).log, 0, k, at.kind === 'rec' ? at : { kind: 'absent' }, write);
  respond(s, c, T, o, out);
}

/** The steps of a client thread's session with server `srv` that the server takes. */
const SERVER_RECV_STEPS = {
  serverRecvBatch: {
    name: 'serverRecvBatch', cites: '§3.2 L146-150 (one view check per batch), §4.1 L182, L190',
    enabled: (_cx, made, s, c, srv, out) => {
      if (s.req[c][srv].length === 0 || !s.up[srv]) return;
      out.push((made[sessionAt(c, srv, s)] ??= action(`serverRecvBatch(c${c + 1}→${serverName(s, srv)})`, 'serverRecvBatch', { c, s: srv })));
    },
    effect: (cx, d, a) => {
      // L148: equal views execute the whole batch; any other tag is rejected with the server's view
      const c = a.c!;
      const srv = a.s!;
      const { ops: batch, tag } = reqW(d, c, srv).shift()!;
      if (srv === S) {
        const t = cx.config.clients[c].sThread;
        const view = d.src.threads[t].view;
        // M1: the source skips the check and keeps serving R after its cut
        if (tag !== view && !cx.mut.M1) return void respW(d, c, S).push({ op: batch[0], rejected: view, tag });
        for (let i = 0; i < batch.length; i++) executeAtSource(cx, d, t, c, batch[i]);
        return;
      }
      // M6: the prototype's rule, accepting batches tagged with a newer view (§1.4)
      const accept = cx.mut.M6 ? tag >= d.tgt.view : tag === d.tgt.view;
      if (!accept) return void respW(d, c, T).push({ op: batch[0], rejected: d.tgt.view, tag });
      for (let i = 0; i < batch.length; i++) {
        const o = batch[i];
        if (targetDecision(cx, d, o) === 'execute') executeAtTarget(cx, d, c, o);
        else tgtW(d).pended.push({ op: o, c });
      }
    },
  },
  serverRecvBatchSplit: {
    name: 'serverRecvBatchSplit', cites: 'M18 against §3.2 L148 (a batch is accepted or rejected whole)',
    enabled: (cx, split, s, c, srv, out) => {
      // M18: a thread passes its cut in the middle of a batch, after executing part of it
      if (!cx.mut.M18 || srv !== S || s.req[c][S].length === 0 || !s.up[S]) return;
      const th = s.src.threads[cx.config.clients[c].sThread];
      if (s.req[c][S][0].ops.length > 1 && s.src.phase === 'TRANSFER' && th.phase !== 'TRANSFER') {
        out.push((split[c] ??= action(`serverRecvBatch(c${c + 1}→S, cut mid-batch)`, 'serverRecvBatchSplit', { c, s: S })));
      }
    },
    effect: (cx, d, a) => {
      // the first op runs, the thread enters Transfer, the rest of the batch is rejected whole
      const c = a.c!;
      const t = cx.config.clients[c].sThread;
      const { ops: batch, tag } = reqW(d, c, S).shift()!;
      executeAtSource(cx, d, t, c, batch[0]);
      srcW(d).threads[t] = { phase: 'TRANSFER', view: d.meta.view[S] };
      breakInv(d, 'INV-REJECT-ATOMIC', `s${t + 1} executed ${describeOp(cx, batch[0])} and then rejected its batch`);
      respW(d, c, S).push({ op: batch[0], rejected: d.src.threads[t].view, tag });
    },
  },
} satisfies Record<string, StepOf<MemberArgs>>;

export const serverRecvSteps = (cx: Cx): Record<keyof typeof SERVER_RECV_STEPS, Member> => bindAll(cx, SERVER_RECV_STEPS);

// the i-th pending entry, its op and its source thread (what the labels name)
const pendingAt = (cx: Cx, i: number, o: number, t: number, s: State) => (i * cx.ops.length + o) * threadsAt(cx) + threadAt(t, s);

/** Ops the servers finish later, written once for every config (context.ts, `StepOf`). */
const SERVER_LATER_STEPS = {
  serverCompleteIO: {
    name: 'serverCompleteIO', cites: '§1.6 L82 (pending I/O), §2.3 WAIT_FOR_PENDING',
    enabled: (cx, completing, s, out) => {
      const pending = s.src.pendingIO;
      for (let i = 0; i < pending.length; i++) {
        const p = pending[i];
        out.push((completing[pendingAt(cx, i, p.op, p.t, s)] ??= action(`serverCompleteIO(${sourceThreadName(s.swapped, p.t)}, ${describeOp(cx, p.op)})`, 'serverCompleteIO', { i, t: p.t })));
      }
    },
    effect: (cx, d, a) => {
      const pending = srcW(d).pendingIO;
      const { op: o, c, t } = pending[a.i!];
      removeAt(pending, a.i!);
      executeAtSource(cx, d, t, c, o, true);
    },
  },
  installSampleCopy: {
    name: 'installSampleCopy', cites: 'M20 against §4.1 L178-180 (the sampling copy without its latch)',
    enabled: (cx, installing, s, out) => {
      const copying = s.src.copying;
      for (let i = 0; i < copying.length; i++) {
        const p = copying[i];
        out.push((installing[pendingAt(cx, i, p.op, p.t, s)] ??= action(`installSampleCopy(${sourceThreadName(s.swapped, p.t)}, ${describeOp(cx, p.op)})`, 'installSampleCopy', { i, t: p.t })));
      }
    },
    effect: (cx, d, a) => {
      const src = srcW(d);
      const { op: o, c, v } = src.copying[a.i!];
      removeAt(src.copying, a.i!);
      src.log.push({ k: cx.ops[o].k, v });
      const at: Lookup = { kind: 'rec', v, addr: src.log.length - 1 };
      const { out, write } = apply(cx, d, S, o, v);
      if (write !== undefined) store(src.log, src.head, cx.ops[o].k, at, write);
      respond(d, c, S, o, out);
    },
  },
  tgtRetryPended: {
    name: 'tgtRetryPended', cites: '§5 L340: the target periodically retries pended ops',
    enabled: (cx, retrying, s, out) => {
      if (!s.up[T] || cx.mut.M28) return; // M28: it never does
      const pended = s.tgt.pended;
      for (let i = 0; i < pended.length; i++) {
        const o = pended[i].op;
        if (targetDecision(cx, s, o) === 'execute') out.push((retrying[i * cx.ops.length + o] ??= action(`tgtRetryPended(${describeOp(cx, o)})`, 'tgtRetryPended', { i })));
      }
    },
    effect: (cx, d, a) => {
      const pended = tgtW(d).pended;
      const { op: o, c } = pended[a.i!];
      removeAt(pended, a.i!);
      executeAtTarget(cx, d, c, o);
    },
  },
} satisfies Record<string, StepOf<GlobalArgs>>;

/** Ops the servers finish later: I/O completions, M20's late sampling copies, T's retries of pended ops. */
export const serverLaterSteps = (cx: Cx): Record<keyof typeof SERVER_LATER_STEPS, Global> => bindAll(cx, SERVER_LATER_STEPS);
