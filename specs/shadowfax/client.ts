// The client library (§3): a client thread routes each op by its cached ownership map into
// the session of the owner (§3.1), batches and tags it with the session's view, and on a
// rejection refreshes the map and reissues from the earliest rejected op (L156-158).

import { breakInv, describeOp, rangeBit, rangeOf, rangesAt, rangesOf, serverName, sessionAt, type ActorArgs, type Cx, type MemberArgs, type StepOf } from './context.ts';
import { action, clientW, listW, reqW, respW, sessionsW, sessionW, type Client, type State } from './state.ts';


/** Route an op by the cached mapping into its session (§3.1); with batch size 1, send it. */
export function send(cx: Cx, s: State, c: number, o: number): void {
  const srv = s.clients[c].owner[rangeBit(rangeOf(cx, cx.ops[o].k))];
  const session = sessionW(s, c, srv);
  session.inflight.push(o);
  session.buffer.push(o);
  if (cx.batchSize === 1) cutBatch(cx, s, c, srv);
}

/** ClientSend (§6.2): cut a batch from the session's buffer, tagged with the session's view. */
function cutBatch(cx: Cx, s: State, c: number, srv: number): void {
  const session = sessionW(s, c, srv);
  const n = Math.min(cx.batchSize, session.buffer.length);
  const batch = session.buffer.slice(0, n);
  session.buffer = session.buffer.slice(n);
  // the ranges the metadata store ever gave srv in the session's view (ranges are bits)
  const written = rangesAt(s, srv, session.view);
  for (let i = 0; i < batch.length; i++) {
    const o = batch[i];
    listW(s, 'sentTag')[o] = session.view;
    if ((written & rangeOf(cx, cx.ops[o].k)) === 0) {
      breakInv(s, 'INV-BATCHKEYS', `c${c + 1} sent ${describeOp(cx, o)} to ${serverName(s, srv)} tagged view ${session.view}, whose ranges do not hold ${cx.keys[cx.ops[o].k].name}`);
    }
  }
  reqW(s, c, srv).push({ ops: batch, tag: session.view });
}

/** §3.1: the client's cached ownership map and its sessions' views, from the metadata store (cl: taken with sessionsW). */
export function refreshFromMeta(cx: Cx, s: State, cl: Client): void {
  cl.owner = s.meta.owner.slice();
  cl.views = s.meta.view.slice();
  for (let srv = 0; srv < cl.sessions.length; srv++) {
    const session = cl.sessions[srv];
    // M17: the session keeps its old view number but takes the ranges of the new snapshot
    if (!cx.mut.M17) session.view = s.meta.view[srv];
    session.ranges = rangesOf(s.meta.owner, srv);
  }
}

export const issueStep: StepOf<ActorArgs> = {
  name: 'issue', cites: '§3.1 (route by the cached mapping), L131 (buffer), L133 (pipelining up to depth)',
  enabled: (cx, made, s, c, out) => {
    const script = cx.config.clients[c].script;
    const next = s.clients[c].next;
    let outstanding = 0;
    for (let i = 0; i < script.length; i++) if (s.status[cx.firstOp[c] + i] === 1) outstanding++;
    if (next < script.length && outstanding < cx.config.depth) {
      out.push((made[cx.firstOp[c] + next] ??= action(`issue(c${c + 1}, ${describeOp(cx, cx.firstOp[c] + next)})`, 'issue', { c })));
    }
  },
  effect: (cx, d, a) => {
    const c = a.c!;
    const o = cx.firstOp[c] + clientW(d, c).next++;
    listW(d, 'status')[o] = 1;
    send(cx, d, c, o);
  },
};

export const clientSendStep: StepOf<MemberArgs> = {
  name: 'clientSend', cites: '§6.2 ClientSend, L131: a batch of the buffered ops, tagged with the session view',
  enabled: (_cx, made, s, c, srv, out) => {
    if (s.clients[c].sessions[srv].buffer.length > 0) out.push((made[sessionAt(c, srv, s)] ??= action(`clientSend(c${c + 1}→${serverName(s, srv)})`, 'clientSend', { c, s: srv })));
  },
  effect: (cx, d, a) => cutBatch(cx, d, a.c!, a.s!),
};

export const clientRecvStep: StepOf<MemberArgs> = {
  name: 'clientRecv', cites: '§3.2.1 L156: an answer, or VIEW_CHANGED with the earliest point to reissue from',
  enabled: (_cx, made, s, c, srv, out) => {
    if (s.resp[c][srv].length > 0) out.push((made[sessionAt(c, srv, s)] ??= action(`clientRecv(c${c + 1}←${serverName(s, srv)})`, 'clientRecv', { c, s: srv })));
  },
  effect: (_cx, d, a) => {
    const r = respW(d, a.c!, a.s!).shift()!;
    const session = sessionW(d, a.c!, a.s!);
    if (!session.inflight.includes(r.op)) return; // answer to an op already reissued
    if ('rejected' in r) {
      // the rejection of a batch sent before the op's latest reissue is already handled
      if (r.tag < d.sentTag[r.op]) return;
      // A server behind the client's view rejects this batch, but may accept the next ones
      // once it catches up: only this batch is retried, not the suffix (README).
      if (r.rejected < r.tag) session.behind.push(r.op);
      else if (session.rejectFrom < 0) session.rejectFrom = r.op; // L156: the earliest point
      return;
    }
    session.inflight = without(session.inflight, r.op);
    session.lastDone = r.op;
    listW(d, 'status')[r.op] = 2;
  },
};

/** Whether a session of the client thread has a rejection to handle. */
function rejected(cl: Client): boolean {
  for (let srv = 0; srv < cl.sessions.length; srv++) if (cl.sessions[srv].rejectFrom >= 0 || cl.sessions[srv].behind.length > 0) return true;
  return false;
}

/** xs without o (a new list; loops rather than filter's closure, for V8's compile cost: README). */
function without(xs: number[], o: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < xs.length; i++) if (xs[i] !== o) out.push(xs[i]);
  return out;
}

/** xs without the ops in os (a new list). */
function withoutAll(xs: number[], os: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < xs.length; i++) if (!os.includes(xs[i])) out.push(xs[i]);
  return out;
}

/** The ops a session reissues after VIEW_CHANGED: the rejected suffix, or what a mutant picks instead. */
function chosenSuffix(cx: Cx, s: State, c: number, srv: number): number[] {
  const session = s.clients[c].sessions[srv];
  const suffix = session.inflight.slice(session.inflight.indexOf(session.rejectFrom));
  let chosen = suffix;
  if (cx.mut.M15) chosen = [session.rejectFrom]; // only the first rejected batch
  // M15b: from too early a point, taking in the last op the session already answered
  if (cx.mut.M15b && session.lastDone >= 0) chosen = [session.lastDone, ...suffix];
  if (cx.mut.M29) chosen = []; // the rejection carried no reissue point
  if (chosen.length !== suffix.length || withoutAll(chosen, suffix).length > 0) {
    const show = (os: number[]) => os.map((o) => describeOp(cx, o)).join(', ');
    breakInv(s, 'INV-REISSUE', `c${c + 1} reissued [${show(chosen)}] from ${serverName(s, srv)}, but the rejected suffix is [${show(suffix)}]`);
  }
  return chosen;
}

export const handleViewChangeStep: StepOf<ActorArgs> = {
  name: 'handleViewChange', cites: '§3.2.1 L156-158: refresh the mapping, shuffle the rejected suffix to the right sessions',
  enabled: (_cx, made, s, c, out) => {
    if (rejected(s.clients[c])) out.push((made[c] ??= action(`handleViewChange(c${c + 1})`, 'handleViewChange', { c })));
  },
  effect: (cx, d, a) => {
    const c = a.c!;
    const cl = sessionsW(d, c);
    // M16: no refresh, so the suffix goes back to the stale owner with the old tag
    if (!cx.mut.M16) refreshFromMeta(cx, d, cl);
    const reissue: number[] = [];
    for (let srv = 0; srv < cl.sessions.length; srv++) {
      const session = cl.sessions[srv];
      const retry = session.behind;
      session.behind = [];
      session.inflight = withoutAll(session.inflight, retry);
      for (let i = 0; i < retry.length; i++) reissue.push(retry[i]);
      if (session.rejectFrom < 0) continue;
      const chosen = chosenSuffix(cx, d, c, srv);
      // L158: marked invalid in the old session, buffered or sent
      session.inflight = withoutAll(session.inflight, chosen);
      session.buffer = withoutAll(session.buffer, chosen);
      session.rejectFrom = -1;
      for (let i = 0; i < chosen.length; i++) reissue.push(chosen[i]);
    }
    for (let i = 0; i < reissue.length; i++) send(cx, d, c, reissue[i]);
  },
};
