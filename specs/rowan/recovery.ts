// Cold start (§3.8, L317-L319): one whole-cluster power failure loses DRAM and messages;
// every primary re-pushes the entries of its using t-log segments to the backups, then
// every server rebuilds its index from PM. Migration (§3.9, L300-L315): the CM moves shard
// 0's primary from src to tgt; the source hands over its shard version, then copies its
// index entries; a failure of either rolls it back (failover.ts).
import { act, type Cx, type RowanGlobalStepOf, type RowanStepOf } from './context.ts';
import { curCfg, keysOf, replicas, wipeDram } from './cluster.ts';
import { maxVersion, rebuild, storeAndDigest } from './logs.ts';
import { addSorted } from '../kit/state.ts';
import { clientW, noChannels, cmW, mapped, own, segWith, type Entry, type RowanState } from './state.ts';

const primaryShards = (s: RowanState, p: number) => curCfg(s).dist.flatMap((d, sh) => (d.p === p ? [sh] : []));
const cold = (s: RowanState, p: number) => s.srv[p].up && !!s.srv[p].cold;
const both = (cx: Cx) => (cx.conf.migrate ? [cx.conf.migrate.src, cx.conf.migrate.tgt] : []);
/** The migration task is running: the source's state. */
const running = (cx: Cx, s: RowanState) => (cx.conf.migrate && s.cm.mig === 1 ? s.srv[cx.conf.migrate.src] : null);

export const recoverySteps: Record<'powerFailure' | 'cmMigrate' | 'migrateVersion' | 'migrateCopy' | 'migrateDone', RowanGlobalStepOf> & Record<'coldPush' | 'coldIndex', RowanStepOf> = {
  powerFailure: {
    name: 'powerFailure', cites: '§3.8, L317-L319: whole-cluster power failure; volatile state and messages are lost',
    exists: (cx) => cx.conf.powerFail,
    enabled: (_cx, s, out) => {
      const { cm } = s;
      if (cm.pf && cm.phase === 'stable' && cm.mig !== 1 && s.srv.every((v) => !v.promo)) out.push(act('powerFailure'));
    },
    effect: (cx, d) => {
      cmW(d).pf = false;
      d.ch = noChannels(cx.conf);
      for (const s of d.srv) {
        if (!s.up) continue;
        wipeDram(s, cx.conf);
        s.cold = 1;
        s.segs = mapped(s.segs, (g) => (g.es.some((e) => e.np) ? segWith(g, g.es.filter((e) => e.np === 0), g.mv) : g));
      }
      for (let c = 0; c < d.cl.length; c++) {
        const st = d.cl[c].st;
        if (st === 'sent' || st === 'wait' || st === 'reply' || st === 'rej') clientW(d, c).st = 'lost';
      }
    },
    writes: () => 'all',
  },
  coldPush: {
    name: 'coldPush', cites: 'L319: the primary pushes the entries of its using t-log segments to every backup',
    exists: (cx) => cx.conf.powerFail,
    enabled: (_cx, s, p, out) => {
      if (cold(s, p)) for (const sh of primaryShards(s, p)) if (!s.srv[p].pushed.includes(sh)) out.push(act('coldPush', p, sh));
    },
    effect: (cx, d, a) => {
      const p = d.srv[a.a];
      const sh = a.b;
      const es = p.segs.filter((g) => g.log === 't' && g.st === 'using').flatMap((g) => g.es.filter((e) => e.sh === sh && e.t !== 'C'));
      for (const b of curCfg(d).dist[sh].bs) if (d.srv[b].up) storeAndDigest(d, d.srv[b], es, 'using', !d.srv[b].cold, cx.mut);
      p.pushed = addSorted(p.pushed, sh);
    },
    writes: () => 'all',
  },
  coldIndex: {
    name: 'coldIndex', cites: 'L319: build the indexes from every segment, larger version wins; valid shard versions',
    exists: (cx) => cx.conf.powerFail,
    enabled: (_cx, s, p, out) => {
      if (cold(s, p) && primaryShards(s, p).every((sh) => s.srv[p].pushed.includes(sh))) out.push(act('coldIndex', p));
    },
    effect: (cx, d, a) => {
      const s = d.srv[a.a];
      const cfg = curCfg(d);
      const mine = cfg.dist.flatMap((x, sh) => (replicas(x).includes(a.a) ? [sh] : []));
      rebuild(d, s, cx.conf, mine, cx.mut);
      for (const sh of mine)
        if (cfg.dist[sh].p === a.a) {
          own(s, 'shardVersion')[sh] = maxVersion(s, sh);
          own(s, 'commitVer')[sh] = 0;
        }
      const done = own(s, 'done');
      for (let k = 0; k < cx.conf.keyShard.length; k++) done[k] = s.idx[k]?.v ?? 0;
      s.cold = 0;
    },
  },
  cmMigrate: {
    name: 'cmMigrate', cites: '§3.9, L306: a new configuration moving shard 0\'s primary from src to tgt',
    exists: (cx) => !!cx.conf.migrate,
    enabled: (cx, s, out) => {
      if (!cx.conf.migrate) return;
      const { src, tgt } = cx.conf.migrate;
      if (s.cm.mig === 0 && s.cm.phase === 'stable' && s.cm.down.length === 0 && s.srv[src].up && s.srv[tgt].up) out.push(act('cmMigrate', src, tgt));
    },
    effect: (cx, d, a) => {
      const old = curCfg(d);
      const prev = old.dist[0];
      const dist = mapped(old.dist, (x, sh) => (sh === 0 ? { p: a.b, bs: prev.bs.filter((y) => y !== a.b) } : x));
      const lag = mapped(old.lag, (l, sh) => (sh === 0 ? [...l, a.b].sort() : l));
      const cm = cmW(d);
      cm.term++;
      cm.cfgs.push(cx.configs.of({ members: old.members, dist, lag, mig: { src: a.a, tgt: a.b, sh: 0, prev }, rb: -1, fo: false }));
      cm.mig = 1;
    },
  },
  migrateVersion: {
    name: 'migrateVersion', cites: 'L308: the source sends the shard version (after its in-flight PUTs of the shard finish); the target continues from it',
    exists: (cx) => !!cx.conf.migrate,
    enabled: (cx, s, out) => {
      const src = running(cx, s);
      if (!src || !src.up || src.term !== s.cm.term || src.migSent) return;
      // M20b breaks L308: MIGRATE_VERSION sent before in-flight PUTs of the shard finish
      if (cx.mut.M20b || src.ctx.every((x) => x.e.sh !== 0)) out.push(act('migrateVersion', cx.conf.migrate!.src, cx.conf.migrate!.tgt));
    },
    effect: (cx, d, a) => {
      const s = d.srv[a.a];
      const t = d.srv[a.b];
      own(t, 'migVer')[0] = s.shardVersion[0];
      // M20a breaks L308: the target does not continue the source's counter
      if (!cx.mut.M20a) own(t, 'shardVersion')[0] = Math.max(t.shardVersion[0], s.shardVersion[0]);
      s.migSent = true;
    },
    writes: (_cx, _s, a) => [a.a, a.b],
  },
  migrateCopy: {
    name: 'migrateCopy', cites: 'L310-L311: the source writes an indexed entry to the target, which installs it by version',
    exists: (cx) => !!cx.conf.migrate,
    enabled: (cx, s, out) => {
      const src = running(cx, s);
      if (!src || !src.up || !src.migSent || !s.srv[cx.conf.migrate!.tgt].up) return;
      const left = keysOf(cx.conf, 0).filter((k) => !src.migCopied.includes(k));
      if (left.length) out.push(act('migrateCopy', cx.conf.migrate!.src, left[0]));
    },
    effect: (cx, d, a) => {
      const s = d.srv[a.a];
      const t = d.srv[cx.conf.migrate!.tgt];
      const item = s.idx[a.b];
      if (item) {
        const e: Entry = { t: item.d ? 'D' : 'P', sh: 0, v: item.v, k: a.b, x: item.x, np: 0 };
        storeAndDigest(d, t, [e], 'using', true, cx.mut);
        own(t, 'done')[a.b] = Math.max(t.done[a.b], item.v);
      }
      s.migCopied = addSorted(s.migCopied, a.b);
    },
    writes: both,
  },
  migrateDone: {
    name: 'migrateDone', cites: 'L313: the CM drops the task; the source frees its index of the shard',
    exists: (cx) => !!cx.conf.migrate,
    enabled: (cx, s, out) => {
      const src = running(cx, s);
      if (!src || !src.up || !src.migSent || !s.srv[cx.conf.migrate!.tgt].up) return;
      if (keysOf(cx.conf, 0).every((k) => src.migCopied.includes(k))) out.push(act('migrateDone', cx.conf.migrate!.tgt));
    },
    effect: (cx, d) => {
      const cfg = curCfg(d);
      const cm = cmW(d);
      const lag = mapped(cfg.lag, (l, sh) => (sh === 0 ? l.filter((x) => x !== cx.conf.migrate!.tgt) : l));
      cm.cfgs[cm.term] = cx.configs.of({ members: cfg.members, dist: cfg.dist, lag, mig: null, rb: cfg.rb, fo: cfg.fo });
      cm.mig = 2;
      const src = d.srv[cx.conf.migrate!.src];
      const idx = own(src, 'idx');
      for (const k of keysOf(cx.conf, 0)) idx[k] = null;
    },
    writes: both,
  },
};
