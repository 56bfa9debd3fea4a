// The cluster as the steps see it (§3.1-§3.2): configurations, who serves a shard, the
// admission of a client's request, a GET with the migration target's forwarding, and what
// a failure wipes. Pure functions of the state (the DRAM wipe and the QP drop change the
// copy they are given).
import type { Flags } from '../kit/variants.ts';
import type { Variant } from './mutants.ts';
import { filled, objectList } from '../kit/state.ts';
import { chanFrom, chanTo, chW, NO_MSGS, filledWith, mapped, type Cfg, type Dist, type Item, type Msg, type RowanConfig, type RowanState, type Server } from './state.ts';

export const cfgOf = (st: RowanState, s: number): Cfg => st.cm.cfgs[st.srv[s].term];
export const curCfg = (st: RowanState): Cfg => st.cm.cfgs[st.cm.term];
export const replicas = (d: Dist) => [d.p, ...d.bs];
const keysByShard = new WeakMap<RowanConfig, number[][]>();
/** The keys of shard sh (computed once per config; callers must not change the list). */
export function keysOf(conf: RowanConfig, sh: number): readonly number[] {
  let byShard = keysByShard.get(conf);
  if (!byShard) {
    byShard = mapped(conf.shards, (_r, i) => conf.keyShard.flatMap((s, k) => (s === i ? [k] : [])));
    keysByShard.set(conf, byShard);
  }
  return byShard[sh];
}

/**
 * serving(s, A) of I12: alive, lease valid, not blocked, promotion and cold start done,
 * primary of A in its cached configuration, and (as a migration target) holding
 * MIGRATE_VERSION.
 */
export function serves(st: RowanState, s: number, sh: number, mut: Flags<Variant>): boolean {
  const v = st.srv[s];
  if (!v.up || !v.lease || v.com < v.term || v.cold !== 0 || v.shardBlocked[sh]) return false;
  const cfg = cfgOf(st, s);
  if (cfg.dist[sh].p !== s) return false;
  if (cfg.mig && cfg.mig.tgt === s && cfg.mig.sh === sh && v.migVer[sh] < 0 && !mut.M20a) return false;
  return true;
}

/** Admission checks at server p for client c (§2.2). */
export function admit(st: RowanState, conf: RowanConfig, p: number, c: number, mut: Flags<Variant>): 'none' | 'reject' | 'accept' {
  const v = st.srv[p];
  const cl = st.cl[c];
  const sh = conf.keyShard[conf.clients[c][cl.pc].k];
  if (!v.up || !v.lease || v.cold !== 0 || v.com < v.term) return 'none'; // drop, or hold (L294)
  if (cl.term > v.term) return 'none'; // [AMBIG] newer client config: hold
  // M25 breaks L294: a request with a stale term is served, judged by the client's config
  if (cl.term < v.term && !mut.M25) return 'reject';
  const cfg = mut.M25 ? st.cm.cfgs[cl.term] : cfgOf(st, p);
  if (cfg.dist[sh].p !== p) return 'reject'; // L308: the migration source rejects
  if (v.shardBlocked[sh]) return 'none'; // L296
  // M20a breaks L308: the target serves before MIGRATE_VERSION
  if (cfg.mig && cfg.mig.tgt === p && cfg.mig.sh === sh && v.migVer[sh] < 0 && !mut.M20a) return 'none';
  return 'accept';
}

/** What a GET at s returns (§2.5), with the migration target's forwarding (L311). */
export function getAt(st: RowanState, conf: RowanConfig, s: number, k: number, mut: Flags<Variant>): { ok: boolean; item: Item | null } {
  let item = st.srv[s].idx[k];
  const cfg = cfgOf(st, s);
  const sh = conf.keyShard[k];
  // M21 breaks L311 with tombstones: a deleted key counts as "not found" and is forwarded
  const notFound = item === null || (mut.M21 && item.d);
  if (cfg.mig && cfg.mig.tgt === s && cfg.mig.sh === sh && notFound) {
    const src = st.srv[cfg.mig.src];
    if (!src.up) return { ok: false, item: null };
    item = src.idx[k];
  }
  return { ok: true, item };
}

/** A failure or power failure loses DRAM: the index, versions, contexts and thread states (§1.6). */
export function wipeDram(s: Server, conf: RowanConfig) {
  const nsh = conf.shards.length;
  s.idx = filledWith(conf.keyShard.length, null);
  s.shardVersion = filled(nsh, 0);
  s.commitVer = filled(nsh, 0);
  s.commitVerArray = filled(nsh, 0);
  s.shardBlocked = filledWith(nsh, false);
  s.promoVer = filled(nsh, -1);
  s.migVer = filled(nsh, -1);
  s.done = filled(conf.keyShard.length, 0);
  s.ctx = objectList();
  s.promo = null;
  s.rerep = null;
  s.clean = null;
  s.unflushed = objectList();
  s.dma = objectList();
  s.pushed = [];
  s.migSent = false;
  s.migCopied = [];
}

export function dropChannels(st: RowanState, pred: (from: number, to: number) => boolean) {
  let ch: Msg[][] | undefined;
  for (let i = 0; i < st.ch.length; i++) if (st.ch[i].length && pred(chanFrom(st, i), chanTo(st, i))) (ch ??= chW(st))[i] = NO_MSGS;
}
