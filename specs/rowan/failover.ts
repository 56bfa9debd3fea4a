// Failures and FaRM-style reconfiguration (§3.1-§3.2, L288-L294): a server crashes or is
// falsely suspected (the failure budget), its lease expires, the CM proposes a new term
// without it (rolling an interrupted migration back, L315), every member caches it,
// destroys its QPs to the evicted server and blocks; the CM commits once the evicted
// server's lease has expired; a backup that became primary then starts its promotion
// (promotion.ts). Actor: the server concerned, or the CM.
import { act, none, type Cx, type RowanGlobalStepOf, type RowanStepOf } from './context.ts';
import { cfgOf, curCfg, dropChannels, wipeDram } from './cluster.ts';
import { addSorted, objectList } from '../kit/state.ts';
import { chanFrom, cmW, mapped, own, qpKey, type Dist, type RowanState } from './state.ts';


/** The distribution a failover starts from: rolled back first if a migration is interrupted (L315). */
function baseDist(cx: Cx, st: RowanState, f: number): Dist[] {
  const cfg = curCfg(st);
  // Fix of finding F-M22: when the target fails, the shard is not handed back to the source
  // (whose index and shard version are frozen at the hand-off); the target is failed over
  // like any primary, promoting a surviving backup with the normal gather. M22 rolls back.
  if (cfg.mig && (f === cfg.mig.src || (f === cfg.mig.tgt && cx.mut.M22))) return mapped(cfg.dist, (d, sh) => (sh === cfg.mig!.sh ? cfg.mig!.prev : d));
  return cfg.dist;
}

/** The backups the CM may promote where f was primary ([-1]: f was primary of nothing). */
function primaryChoices(cx: Cx, st: RowanState, f: number): number[] {
  const base = baseDist(cx, st, f);
  const lost = base.findIndex((d) => d.p === f);
  if (lost < 0) return [-1];
  const lag = curCfg(st).lag[lost];
  // M19 breaks §3.4(a): a backup still catching up may be promoted
  return base[lost].bs.filter((b) => !st.cm.down.includes(b) && (cx.mut.M19 || !lag.includes(b)));
}

/**
 * Fix [I] for the migration rollback (finding RB-NOFENCE): a live server that loses the
 * primary role of a shard without being evicted (the target of a rolled-back migration)
 * keeps its QPs, so it waits until its replication SENDs of that shard have landed
 * before it responds; otherwise they land after the new primary's gather.
 */
function drained(st: RowanState, s: number): boolean {
  const was = cfgOf(st, s).dist;
  const now = curCfg(st).dist;
  const losing = was.flatMap((d, sh) => (d.p === s && now[sh].p !== s ? [sh] : []));
  if (!losing.length) return true;
  return st.ch.every((q, i) => chanFrom(st, i) !== s || q.every((m) => !losing.includes(m.e.sh)));
}

function canCommit(cx: Cx, st: RowanState): boolean {
  const cfg = curCfg(st);
  if (!cfg.members.every((m) => st.cm.resp.includes(m))) return false;
  // M13 breaks L294: commit without waiting for the evicted server's lease to expire
  return cx.mut.M13 || st.cm.down.filter((d) => !cfg.members.includes(d)).every((d) => !st.srv[d].lease);
}

/** Actor i of the failure phase is conf.failTargets[i]. */
const target = (cx: Cx, s: RowanState, i: number) => (s.cm.fails > 0 && s.srv[cx.conf.failTargets[i]].up ? cx.conf.failTargets[i] : -1);

export const failoverSteps: Record<'crash' | 'suspect' | 'newConfig' | 'commit', RowanStepOf> & Record<'leaseExpire' | 'cmNewConfig' | 'cmCommit', RowanGlobalStepOf> = {
  crash: {
    name: 'crash', cites: '§1.6: a server fails; DRAM is lost, PM survives; its lease renewals stop',
    exists: (cx) => cx.conf.failures > 0 && cx.conf.failKinds.includes('crash'),
    enabled: (cx, s, i, out) => {
      const f = target(cx, s, i);
      if (f >= 0 && cx.conf.failKinds.includes('crash')) out.push(act('crash', f));
    },
    effect: (cx, d, a) => {
      const s = d.srv[a.a];
      s.up = false;
      wipeDram(s, cx.conf);
      dropChannels(d, (_f, to) => to === a.a);
      const cm = cmW(d);
      cm.down = addSorted(cm.down, a.a);
      cm.fails--;
    },
  },
  suspect: {
    name: 'suspect', cites: '§1.6: a live server is falsely suspected: the CM stops renewing its lease',
    exists: (cx) => cx.conf.failures > 0 && cx.conf.failKinds.includes('suspect'),
    writes: none,
    enabled: (cx, s, i, out) => {
      const f = target(cx, s, i);
      if (f >= 0 && cx.conf.failKinds.includes('suspect') && !s.cm.down.includes(f)) out.push(act('suspect', f));
    },
    effect: (_cx, d, a) => {
      const cm = cmW(d);
      cm.down = addSorted(cm.down, a.a);
      cm.fails--;
    },
  },
  leaseExpire: {
    name: 'leaseExpire', cites: 'L294 [I] FaRM: a server whose lease expired stops serving',
    exists: (cx) => cx.conf.failures > 0,
    enabled: (_cx, s, out) => {
      for (const f of s.cm.down) if (s.srv[f].lease) out.push(act('leaseExpire', f));
    },
    effect: (_cx, d, a) => {
      d.srv[a.a].lease = false;
    },
  },
  cmNewConfig: {
    name: 'cmNewConfig', cites: '§3.2, L292-L294: new term, membership without f, a backup promoted where f was primary; L315: an interrupted migration rolled back',
    exists: (cx) => cx.conf.failures > 0,
    writes: none,
    enabled: (cx, s, out) => {
      for (const f of s.cm.down) if (curCfg(s).members.includes(f)) for (const n of primaryChoices(cx, s, f)) out.push(act('cmNewConfig', f, n));
    },
    effect: (cx, d, a) => {
      const cm = cmW(d);
      const f = a.a;
      const old = curCfg(d);
      const dist = mapped(baseDist(cx, d, f), (x) => ({ p: x.p, bs: [...x.bs] }));
      const lag = mapped(old.lag, (l) => l.filter((x) => x !== f));
      let members = old.members.filter((m) => m !== f);
      let rb = old.rb === f ? -1 : old.rb;
      let mig = old.mig;
      if (old.mig && (f === old.mig.src || f === old.mig.tgt)) {
        // L315: roll the distribution back, drop the task, then normal failover
        mig = null;
        cm.mig = 3;
        lag[old.mig.sh] = lag[old.mig.sh].filter((x) => x !== old.mig!.tgt);
        if (f === old.mig.tgt && cx.mut.M22) rb = old.mig.src;
      }
      dist.forEach((x, sh) => {
        const had = x.p === f || x.bs.includes(f);
        if (x.p === f) {
          x.p = a.b;
          x.bs = x.bs.filter((y) => y !== a.b);
        } else x.bs = x.bs.filter((y) => y !== f);
        // L292/L298: the CM adds a new backup, which re-replicates
        if (had && cx.conf.spare >= 0 && !members.includes(cx.conf.spare) && d.srv[cx.conf.spare].up) {
          x.bs.push(cx.conf.spare);
          members = addSorted(members, cx.conf.spare);
          lag[sh] = addSorted(lag[sh], cx.conf.spare);
        }
      });
      cm.term++;
      cm.cfgs.push(cx.configs.of({ members, dist, lag, mig, rb, fo: true }));
      cm.phase = 'new';
      cm.resp = [];
    },
  },
  newConfig: {
    name: 'newConfig', cites: 'L294: cache the configuration, destroy QPs with evicted servers, block, respond',
    exists: (cx) => cx.reconfigures,
    enabled: (cx, s, i, out) => {
      const v = s.srv[i];
      if (v.up && v.term < s.cm.term && curCfg(s).members.includes(i) && (drained(s, i) || cx.mut['RB-NOFENCE'])) out.push(act('newConfig', i));
    },
    effect: (cx, d, a) => {
      const s = d.srv[a.a];
      s.term = d.cm.term;
      const cfg = curCfg(d);
      if (!cfg.fo) {
        s.com = s.term; // a migration configuration: no blocking (L306-L308)
        return;
      }
      // M14 breaks L294: the QPs to the evicted server are not destroyed before responding
      if (!cx.mut.M14)
        for (const x of cx.servers)
          if (x !== a.a && !cfg.members.includes(x)) {
            if (!d.dead.includes(qpKey(a.a, x))) d.dead = [...d.dead, qpKey(a.a, x)].sort(); // shared: replaced
            dropChannels(d, (f, t) => (f === a.a && t === x) || (f === x && t === a.a));
          }
      s.promo = null;
      s.rerep = null;
      const cm = cmW(d);
      cm.resp = addSorted(cm.resp, a.a);
    },
  },
  cmCommit: {
    name: 'cmCommit', cites: 'L294: the CM commits once every member responded and the evicted servers\' leases expired',
    exists: (cx) => cx.reconfigures,
    enabled: (cx, s, out) => {
      if (s.cm.phase === 'new' && canCommit(cx, s)) out.push(act('cmCommit'));
    },
    effect: (_cx, d) => {
      const cfg = curCfg(d);
      const cm = cmW(d);
      cm.phase = 'stable';
      cm.down = cm.down.filter((x) => cfg.members.includes(x));
    },
  },
  commit: {
    name: 'commit', cites: 'L294-L296: unblock; a backup that became primary starts its promotion',
    exists: (cx) => cx.reconfigures,
    enabled: (_cx, s, i, out) => {
      const v = s.srv[i];
      if (s.cm.phase === 'stable' && v.up && v.term === s.cm.term && v.com < v.term) out.push(act('commit', i));
    },
    effect: (cx, d, a) => {
      const s = d.srv[a.a];
      const was = d.cm.cfgs[s.com];
      s.com = s.term;
      const cfg = cfgOf(d, a.a);
      for (let sh = 0; sh < cx.nsh; sh++) {
        if (cfg.dist[sh].p !== a.a) continue;
        // Finding M22: the literal rollback (L315): the source resumes with no reconciliation
        if (cfg.rb === a.a) continue;
        if (was.dist[sh].p === a.a && !s.shardBlocked[sh]) continue;
        // M5 breaks L296: the new primary does not block the shard while its index is built
        own(s, 'shardBlocked')[sh] = !cx.mut.M5;
        s.promo = { sh, coll: [], U: objectList(), sc: [] };
      }
    },
  },
};
