// PUT/DEL at the primary (§2.3, L219/L259): ① version and persistent t-log append, ②
// ROWAN write to every backup, ③ after every ACK the conditional index update (point V)
// and the reply; t-log commit (L247) and CommitVer (§2.9, L280). Actor: the client
// (putStart, admitted at its server) or the primary p.
import { act, type Cx, type RowanStepOf } from './context.ts';
import { admit, cfgOf, serves } from './cluster.ts';
import { apply, newSeg, rowanWrite } from './logs.ts';
import { clientW, cmW, mapped, opId, own, persisted, segW, segWith, valueOf, withNp, type Ctx, type Entry, type RowanState, type Seg, type Server } from './state.ts';


function complete(cx: Cx, st: RowanState, p: number, ctx: Ctx): boolean {
  // M2 breaks L219: reply after the first ACK instead of all
  if (cx.mut.M2) return ctx.acks.length >= Math.min(1, ctx.bs.length);
  // §3.5 (i) [I]: every backup the SEND went to must ACK, unless the cached configuration
  // has evicted it (a re-replicating newcomer is covered by the drain before its traversal)
  const members = cfgOf(st, p).members;
  return ctx.bs.every((b) => ctx.acks.includes(b) || !members.includes(b));
}

function tlogCommittable(cx: Cx, s: Server, seg: Seg): boolean {
  // M17 breaks L247: committed as soon as full, before all its entries are ACKed
  if (cx.mut.M17) return true;
  return seg.es.every((e) => e.np === 0 && !s.ctx.some((x) => x.e.sh === e.sh && x.e.v === e.v));
}

/** CommitVer (L280): the contiguous watermark of versions that completed point C. */
function watermark(cx: Cx, s: Server, sh: number): number {
  const inflight = s.ctx.filter((x) => x.e.sh === sh).map((x) => x.e.v);
  // M16 breaks L280: the largest completed version, not the contiguous watermark
  if (cx.mut.M16) {
    let v = s.shardVersion[sh];
    while (v > 0 && inflight.includes(v)) v--;
    return v;
  }
  return inflight.length ? Math.min(...inflight) - 1 : s.shardVersion[sh];
}

export const putSteps: Record<'putStart' | 'putFinish' | 'tlogPersist' | 'tlogCommit' | 'sendCommitVer', RowanStepOf> = {
  putStart: {
    name: 'putStart', cites: '§2.3 ① and ②, L219/L259: version, persistent t-log append, ROWAN write to every backup',
    enabled: (cx, s, c, out) => {
      const cl = s.cl[c];
      if (cl.st === 'sent' && cx.conf.clients[c][cl.pc].f !== 'get' && admit(s, cx.conf, cl.to, c, cx.mut) === 'accept') out.push(act('putStart', cl.to, c));
    },
    effect: (cx, d, a) => {
      const p = d.srv[a.a];
      const c = a.b;
      const cl = clientW(d, c);
      const op = cx.conf.clients[c][cl.pc];
      const sh = cx.conf.keyShard[op.k];
      const v = ++own(p, 'shardVersion')[sh];
      const x = op.f === 'put' ? valueOf(c, cl.pc) : 0;
      const e: Entry = { t: op.f === 'put' ? 'P' : 'D', sh, v, k: op.k, x, np: 0 };
      const open = p.segs.find((g) => g.log === 't' && g.st === 'using' && g.es.length < cx.conf.segCap);
      const seg = open ? segW(p, open.id) : newSeg(p, 't', 'using');
      // M4 breaks L219 ①-before-②: the t-log append is not yet persistent when replicated
      seg.es.push(withNp(e, cx.mut.M4 ? 1 : 0));
      const ctx: Ctx = { op: opId(c, cl.pc), c, e, bs: [...cfgOf(d, a.a).dist[sh].bs], acks: [], err: false, rt: [] };
      for (const b of ctx.bs) if (!rowanWrite(d, a.a, c % cx.conf.workers, b, { e, op: ctx.op, r: 0 })) ctx.err = true;
      own(p, 'ctx').push(ctx);
      cl.st = 'wait';
      // M1 breaks L219 ③-after-②: the index is updated before the replication ACKs
      if (cx.mut.M1) apply(d, p, e, `${seg.id}.${seg.es.length - 1}`, true, cx.mut);
    },
  },
  putFinish: {
    name: 'putFinish', cites: '§2.3 ③ and the reply, L219/L353: conditional index update (point V)',
    enabled: (cx, s, p, out) => {
      if (!s.srv[p].up) return;
      for (const ctx of s.srv[p].ctx) if (!ctx.err && complete(cx, s, p, ctx)) out.push(act('putFinish', p, ctx.op));
    },
    effect: (cx, d, a) => {
      const p = d.srv[a.a];
      const i = p.ctx.findIndex((x) => x.op === a.b);
      const ctx = p.ctx[i];
      own(p, 'ctx').splice(i, 1);
      const seg = p.segs.find((g) => g.log === 't' && g.es.some((e) => e.sh === ctx.e.sh && e.v === ctx.e.v))!;
      const loc = `${seg.id}.${seg.es.findIndex((e) => e.sh === ctx.e.sh && e.v === ctx.e.v)}`;
      // M9 breaks L353 at the primary: completion order wins
      if (!cx.mut.M1) apply(d, p, ctx.e, loc, !cx.mut.M9, cx.mut);
      own(p, 'done')[ctx.e.k] = Math.max(p.done[ctx.e.k], ctx.e.v);
      const waiting = d.cl[ctx.c];
      if (waiting.st === 'wait' && waiting.to === a.a && opId(ctx.c, waiting.pc) === ctx.op) {
        const cl = clientW(d, ctx.c);
        cl.st = 'reply';
        cl.out = null;
        cl.v = ctx.e.v;
      }
    },
  },
  tlogCommit: {
    name: 'tlogCommit', cites: 'L247: a full t-log segment whose entries are all ACKed is committed',
    exists: (cx) => cx.conf.tlogCommit,
    enabled: (cx, s, p, out) => {
      const v = s.srv[p];
      if (!v.up || !cx.conf.tlogCommit || v.cold) return;
      for (const seg of v.segs)
        if (seg.log === 't' && seg.st === 'using' && seg.es.length === cx.conf.segCap && tlogCommittable(cx, v, seg)) out.push(act('tlogCommit', p, seg.id));
    },
    effect: (_cx, d, a) => {
      segW(d.srv[a.a], a.b).st = 'committed';
    },
  },
  tlogPersist: {
    name: 'tlogPersist', cites: 'L219 ① (split config): the ntstore + fence of the t-log append completes',
    exists: (cx) => cx.conf.split,
    enabled: (cx, s, p, out) => {
      const v = s.srv[p];
      if (v.up && cx.conf.split && v.segs.some((g) => g.log === 't' && g.es.some((e) => e.np))) out.push(act('tlogPersist', p));
    },
    effect: (_cx, d, a) => {
      d.srv[a.a].segs = mapped(d.srv[a.a].segs, (g) => (g.log === 't' ? segWith(g, persisted(g.es), g.mv) : g));
    },
  },
  sendCommitVer: {
    name: 'sendCommitVer', cites: '§2.9, L280: write <shard, CommitVer> into every backup\'s b-log through ROWAN',
    exists: (cx) => cx.conf.commitVer > 0,
    enabled: (cx, s, p, out) => {
      const v = s.srv[p];
      if (!v.up || s.cm.cvLeft <= 0) return;
      for (let sh = 0; sh < cx.nsh; sh++)
        if (serves(s, p, sh, cx.mut) && cfgOf(s, p).dist[sh].bs.length && (cx.conf.cvTimer || watermark(cx, v, sh) > v.commitVer[sh])) out.push(act('sendCommitVer', p, sh));
    },
    effect: (cx, d, a) => {
      const p = d.srv[a.a];
      const w = watermark(cx, p, a.b);
      own(p, 'commitVer')[a.b] = w;
      const e: Entry = { t: 'C', sh: a.b, v: 0, k: -1, x: w, np: 0 };
      for (const b of cfgOf(d, a.a).dist[a.b].bs) rowanWrite(d, a.a, 0, b, { e, op: -1, r: 0 });
      cmW(d).cvLeft--;
    },
  },
};
