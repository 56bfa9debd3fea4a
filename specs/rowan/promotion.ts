// Promotion (§3.3, L296): the new primary gathers the shard's entries of using and used
// segments from every replica, scatters the union U to the backups, stores and digests U,
// raises the shard version above every version seen and unblocks. Re-replication (§3.4,
// L298): a new backup is filled by the primary's traversal of its index, after the older
// PUTs drained. Actor: the new primary (the server a.a).
import { act, type Cx, type RowanStepOf } from './context.ts';
import { cfgOf, curCfg, keysOf } from './cluster.ts';
import { apply, maxVersion, newSeg, storeAndDigest } from './logs.ts';
import { addSorted } from '../kit/state.ts';
import { cmW, mapped, own, persisted, segW, withNp, type Entry, type Promo, type RowanState } from './state.ts';

// The promotion at n gathers from its replica group: n and the backups of the promotion's
// shard in n's cached configuration (M6b: n alone). The guards below walk the group where
// it is, in that order, rather than making a list of it: they are asked for every server of
// every state, and the lists were an eighth of what a run allocated.

/** The promotion running at n, if n is up. */
const promoAt = (s: RowanState, n: number): Promo | null => (s.srv[n].up ? s.srv[n].promo : null);

/** The backups of the promotion's shard in n's cached configuration (the group but n). */
const backupsOf = (s: RowanState, n: number, pr: Promo): number[] => cfgOf(s, n).dist[pr.sh].bs;

/** Replica r's entries can be gathered: not yet collected, r up and at n's term. */
const collectable = (s: RowanState, n: number, pr: Promo, r: number): boolean => !pr.coll.includes(r) && s.srv[r].up && s.srv[r].term === s.srv[n].term;

/** Every replica the promotion gathers from is collected. */
function collected(cx: Cx, s: RowanState, n: number, pr: Promo): boolean {
  if (!pr.coll.includes(n)) return false;
  // M6b breaks L296: no gather, the new primary uses only its own b-log
  if (cx.mut.M6b) return true;
  const bs = backupsOf(s, n, pr);
  for (let i = 0; i < bs.length; i++) if (!pr.coll.includes(bs[i])) return false;
  return true;
}

/** The shards p serves as an unblocked, committed primary with no promotion running (re-replication's precondition). */
function primaryOf(cx: Cx, s: RowanState, p: number): number[] {
  const v = s.srv[p];
  if (!v.up || v.com < v.term || v.promo) return [];
  const cfg = cfgOf(s, p);
  return cx.shards.filter((sh) => cfg.dist[sh].p === p && !v.shardBlocked[sh]);
}

export const promotionSteps: Record<'promoCollect' | 'promoScatter' | 'promoFinish' | 'rerepCopy' | 'rerepDone' | 'rerepStart', RowanStepOf> = {
  promoCollect: {
    name: 'promoCollect', cites: 'L296: gather the shard\'s entries of using and used segments from a replica',
    exists: (cx) => cx.reconfigures,
    enabled: (cx, s, n, out) => {
      const pr = promoAt(s, n);
      if (!pr) return;
      if (collectable(s, n, pr, n)) out.push(act('promoCollect', n, n));
      if (cx.mut.M6b) return; // M6b: n gathers from itself alone
      for (const r of backupsOf(s, n, pr)) if (collectable(s, n, pr, r)) out.push(act('promoCollect', n, r));
    },
    effect: (cx, d, a) => {
      const pr = d.srv[a.a].promo!;
      for (const g of d.srv[a.b].segs) {
        // M6a breaks L296: the scan skips using segments
        const scan = (g.log === 'b' && ((g.st === 'using' && !cx.mut.M6a) || g.st === 'used')) || (g.log === 'r' && g.st === 'using');
        if (!scan) continue;
        for (const e of g.es)
          if (e.np === 0 && e.t !== 'C' && e.sh === pr.sh && !pr.U.some((u) => u.v === e.v)) pr.U.push(withNp(e, e.np));
      }
      pr.coll = addSorted(pr.coll, a.b);
    },
  },
  promoScatter: {
    name: 'promoScatter', cites: 'L296: scatter the union; the backup stores it into segments and digests it',
    exists: (cx) => cx.reconfigures,
    enabled: (cx, s, n, out) => {
      const pr = promoAt(s, n);
      if (pr && collected(cx, s, n, pr)) for (const b of backupsOf(s, n, pr)) if (!pr.sc.includes(b) && s.srv[b].up) out.push(act('promoScatter', n, b));
    },
    effect: (cx, d, a) => {
      const pr = d.srv[a.a].promo!;
      const b = d.srv[a.b];
      // M26 breaks L296/L243: reconciled entries are stored as committed at once
      storeAndDigest(d, b, pr.U, cx.mut.M26 ? 'committed' : 'using', !b.cold, cx.mut);
      pr.sc = addSorted(pr.sc, a.b);
    },
    writes: (_cx, _s, a) => [a.a, a.b],
  },
  promoFinish: {
    name: 'promoFinish', cites: 'L296: store U, build the index, set the shard version above every version seen, unblock',
    exists: (cx) => cx.reconfigures,
    enabled: (cx, s, n, out) => {
      const pr = promoAt(s, n);
      if (!pr || !collected(cx, s, n, pr)) return;
      // M7 breaks [AMBIG->I] of §3.3: unblock before the scatter reached the backups
      if (!cx.mut.M7) for (const b of backupsOf(s, n, pr)) if (!pr.sc.includes(b)) return;
      out.push(act('promoFinish', n, pr.sh));
    },
    effect: (cx, d, a) => {
      const n = d.srv[a.a];
      const pr = n.promo!;
      const sh = pr.sh;
      // the digest threads finish the index: digested segments are in it already, U on top
      const seg = newSeg(n, 'r', 'using', persisted(pr.U));
      seg.es.forEach((e, i) => apply(d, n, e, `${seg.id}.${i}`, !cx.mut.M10, cx.mut));
      // M8 breaks L296: the shard version is not raised above the gathered maximum
      if (!cx.mut.M8) own(n, 'shardVersion')[sh] = Math.max(n.shardVersion[sh], maxVersion(n, sh));
      own(n, 'commitVer')[sh] = n.shardVersion[sh];
      own(n, 'promoVer')[sh] = n.shardVersion[sh];
      const done = own(n, 'done');
      for (const k of keysOf(cx.conf, sh)) done[k] = n.idx[k]?.v ?? 0;
      own(n, 'shardBlocked')[sh] = false;
      n.promo = null;
    },
  },
  rerepCopy: {
    name: 'rerepCopy', cites: '§3.4, L298: the primary copies one key of its index to the new backup',
    exists: (cx) => cx.conf.spare >= 0 || !!cx.conf.migrate,
    enabled: (cx, s, p, out) => {
      const rr = s.srv[p].rerep;
      if (!rr || !primaryOf(cx, s, p).includes(rr.sh)) return;
      const left = keysOf(cx.conf, rr.sh).filter((k) => !rr.done.includes(k));
      if (left.length && s.srv[rr.r].up) out.push(act('rerepCopy', p, left[0]));
    },
    effect: (cx, d, a) => {
      const p = d.srv[a.a];
      const rr = p.rerep!;
      const item = p.idx[a.b];
      if (item) {
        const r = d.srv[rr.r];
        const seg = segW(r, rr.seg);
        const e: Entry = { t: item.d ? 'D' : 'P', sh: rr.sh, v: item.v, k: a.b, x: item.x, np: 0 };
        seg.es.push(e);
        apply(d, r, e, `${seg.id}.${seg.es.length - 1}`, true, cx.mut);
      }
      rr.done = addSorted(rr.done, a.b);
    },
    writes: (_cx, s, a) => [a.a, s.srv[a.a].rerep!.r],
  },
  rerepDone: {
    name: 'rerepDone', cites: '§3.4, L298: the traversal is done; the CM marks the backup caught up',
    exists: (cx) => cx.conf.spare >= 0 || !!cx.conf.migrate,
    enabled: (cx, s, p, out) => {
      const rr = s.srv[p].rerep;
      if (rr && primaryOf(cx, s, p).includes(rr.sh) && keysOf(cx.conf, rr.sh).every((k) => rr.done.includes(k))) out.push(act('rerepDone', p, rr.r));
    },
    effect: (cx, d, a) => {
      const p = d.srv[a.a];
      const rr = p.rerep!;
      const cfg = curCfg(d);
      const lag = mapped(cfg.lag, (l, sh) => (sh === rr.sh ? l.filter((x) => x !== rr.r) : l));
      cmW(d).cfgs[d.cm.term] = cx.configs.of({ members: cfg.members, dist: cfg.dist, lag, mig: cfg.mig, rb: cfg.rb, fo: cfg.fo });
      p.rerep = null;
    },
  },
  rerepStart: {
    name: 'rerepStart', cites: '§3.4, L298: the new backup initialises its index and asks the primary to traverse (after older PUTs drained, §3.4(b))',
    exists: (cx) => cx.conf.spare >= 0 || !!cx.conf.migrate,
    enabled: (cx, s, p, out) => {
      const v = s.srv[p];
      if (v.rerep) return;
      const cfg = cfgOf(s, p);
      for (const sh of primaryOf(cx, s, p))
        for (const r of curCfg(s).lag[sh]) {
          if (!cfg.dist[sh].bs.includes(r) || !s.srv[r].up || s.srv[r].term !== v.term || cfg.mig?.tgt === r) continue;
          // M15 breaks §3.4(b): the traversal starts without draining older PUTs
          if (cx.mut.M15 || v.ctx.every((x) => x.e.sh !== sh || x.bs.includes(r))) out.push(act('rerepStart', p, r));
        }
    },
    effect: (cx, d, a) => {
      const p = d.srv[a.a];
      const sh = cfgOf(d, a.a).dist.findIndex((x) => x.bs.includes(a.b) && x.p === a.a);
      const r = d.srv[a.b];
      const idx = own(r, 'idx');
      for (const k of keysOf(cx.conf, sh)) idx[k] = null;
      const seg = newSeg(r, 'r', 'using');
      p.rerep = { sh, r: a.b, seg: seg.id, done: [] };
    },
    writes: (_cx, _s, a) => [a.a, a.b],
  },
};
