// ROWAN-KV as a state machine: one action per atomic step, named after the paper's steps.
// Line numbers (Lnnn) cite /work/shared/papers/rowan.txt; § numbers cite the extraction
// /work/shared/protocols/rowan.md. `mutant` selects a bug variant (§5); each is read at
// the step it breaks.
import type { Action, Machine, ObservedEvent } from '../../checkers/explore/types.ts';
import { rowanKvModel } from './model.ts';
import { invariants } from './invariants.ts';
import {
  copy, encodeState, insertSorted, segW, opId, qpKey, valueOf,
  type Cfg, type Ctx, type Dist, type Entry, type Item, type Msg, type RowanConfig, type RowanState, type Seg, type Server,
} from './state.ts';

export interface RowanAction extends Action {
  step: string;
  a: number;
  b: number;
  key?: string;
}

const act = (step: string, a = -1, b = -1, key?: string): RowanAction => {
  const args = [a, b].filter((x) => x >= 0).map(String);
  if (key !== undefined) args.push(key);
  return { label: `${step}(${args.join(', ')})`, step, a, b, key };
};

// ---------- helpers shared by the steps ----------

export const cfgOf = (st: RowanState, s: number): Cfg => st.cm.cfgs[st.srv[s].term];
export const curCfg = (st: RowanState): Cfg => st.cm.cfgs[st.cm.term];
export const replicas = (d: Dist) => [d.p, ...d.bs];
export const keysOf = (conf: RowanConfig, sh: number) => conf.keyShard.flatMap((s, k) => (s === sh ? [k] : []));

export interface PmEntry {
  e: Entry;
  loc: string;
  seg: Seg;
  i: number;
}
const segEntries = new WeakMap<Seg, PmEntry[]>();

/**
 * Every persisted entry a server holds in PM, with its location (segments that are not
 * free): the slots the RNIC or a thread wrote in the segment's current life.
 */
export function pmEntries(s: Server): PmEntry[] {
  const out: PmEntry[] = [];
  for (const seg of s.segs) {
    if (seg.st === 'free') continue;
    let list = segEntries.get(seg);
    if (!list) {
      list = [];
      for (let i = 0; i < seg.es.length; i++) {
        const e = seg.es[i];
        if (e.np === 0 && e.t !== 'C') list.push({ e, loc: `${seg.id}.${i}`, seg, i });
      }
      segEntries.set(seg, list);
    }
    for (const x of list) out.push(x);
  }
  return out;
}

export const lookupItem = (s: Server, k: number): Item | null => s.idx[k];

/** Whether the digest applied slot i of b-log segment seg (it skips slots whose DMA was outstanding). */
export const digested = (seg: Seg, i: number) => seg.log !== 'b' || (seg.dg && !seg.bad?.includes(i));

/**
 * serving(s, A) of I12: alive, lease valid, not blocked, promotion and cold start done,
 * primary of A in its cached configuration, and (as a migration target) holding
 * MIGRATE_VERSION.
 */
export function serves(st: RowanState, s: number, sh: number, mutant?: string): boolean {
  const v = st.srv[s];
  if (!v.up || !v.lease || v.com < v.term || v.cold !== 0 || v.shardBlocked[sh]) return false;
  const cfg = cfgOf(st, s);
  if (cfg.dist[sh].p !== s) return false;
  if (cfg.mig && cfg.mig.tgt === s && cfg.mig.sh === sh && v.migVer[sh] < 0 && mutant !== 'M20a') return false;
  return true;
}

/** §2.4 conditional index update; `cond` false is the unconditional variant of M9/M10/M11. */
function apply(st: RowanState, s: Server, e: Entry, loc: string, cond: boolean, mutant?: string) {
  const cur = s.idx[e.k];
  if (cond && cur && e.v < cur.v) return; // L353: omit an update whose version is smaller
  if (cur && e.v < cur.v && !st.bad) st.bad = `I4: an index item of key ${e.k} went from version ${cur.v} back to ${e.v}`;
  // M12 breaks §2.4: DEL removes the item instead of leaving a tombstone
  if (e.t === 'D' && mutant === 'M12') s.idx[e.k] = null;
  else s.idx[e.k] = { v: e.v, d: e.t === 'D', x: e.x, loc };
}

function newSeg(s: Server, log: Seg['log'], st: Seg['st'], es: Entry[] = []): Seg {
  const seg: Seg = { id: s.nextSeg++, log, st, es, dg: false, mv: [] };
  s.segs.push(seg);
  return seg;
}

/** Rebuild the index of the shards in `shards` from every entry in PM (§3.3, §3.8). */
function rebuild(st: RowanState, s: Server, conf: RowanConfig, shards: number[], mutant?: string) {
  for (let k = 0; k < conf.keyShard.length; k++) if (shards.includes(conf.keyShard[k])) s.idx[k] = null;
  // M10 breaks L353 at the digest: physical order wins instead of the version
  for (const { e, loc } of pmEntries(s)) if (shards.includes(e.sh)) apply(st, s, e, loc, mutant !== 'M10', mutant);
}

const maxVersion = (s: Server, sh: number) => pmEntries(s).reduce((m, { e }) => (e.sh === sh ? Math.max(m, e.v) : m), 0);

function wipeDram(s: Server, conf: RowanConfig) {
  const nsh = conf.shards.length;
  s.idx = conf.keyShard.map(() => null);
  s.shardVersion = new Array(nsh).fill(0);
  s.commitVer = new Array(nsh).fill(0);
  s.commitVerArray = new Array(nsh).fill(0);
  s.shardBlocked = new Array(nsh).fill(false);
  s.promoVer = new Array(nsh).fill(-1);
  s.migVer = new Array(nsh).fill(-1);
  s.done = conf.keyShard.map(() => 0);
  s.ctx = [];
  s.promo = null;
  s.rerep = null;
  s.clean = null;
  s.unflushed = [];
  s.dma = [];
  s.pushed = [];
  s.migSent = false;
  s.migCopied = [];
}

function dropChannels(st: RowanState, pred: (from: number, to: number) => boolean) {
  for (const key of Object.keys(st.ch)) {
    const [from, to] = parseChan(key);
    if (pred(from, to)) delete st.ch[key];
  }
}
const parseChan = (key: string): [number, number] => {
  const [fw, to] = key.split('>');
  return [Number(fw.split('.')[0]), Number(to)];
};

/** rowanWrite (§2.6): SEND + trailing READ on the QP from worker w of s to b. */
function rowanWrite(st: RowanState, s: number, w: number, b: number, m: Msg): boolean {
  if (st.dead.includes(qpKey(s, b))) return false; // G5: destroyed QP, error completion
  if (!st.srv[b].up) return true; // never lands; the sender waits
  const key = `${s}.${w}>${b}`;
  (st.ch[key] ??= []).push(m);
  return true;
}

/** The READ completion at the sender; after a retry (L274) only the retry's ACK counts. */
function ack(st: RowanState, from: number, op: number, b: number, r = 0) {
  const ctx = st.srv[from].up ? st.srv[from].ctx.find((x) => x.op === op) : undefined;
  if (ctx && (r === 1 || !ctx.rt.includes(b))) insertSorted(ctx.acks, b);
}

/** The b-log segment an arriving SEND goes to (MP SRQ, L182-L184), or undefined (RNR). */
function receiveBuffer(s: Server, conf: RowanConfig): Seg | undefined {
  const blog = s.segs.filter((g) => g.log === 'b');
  const at = blog.findIndex((g) => g.id === s.cur);
  if (at >= 0 && blog[at].st === 'using' && !blog[at].sk && blog[at].es.length < conf.segCap) return blog[at];
  return nextBuffer(s);
}

/** The next posted receive buffer after the current one (L184: "the RNIC pops a new receive buffer"). */
function nextBuffer(s: Server): Seg | undefined {
  const blog = s.segs.filter((g) => g.log === 'b');
  const at = blog.findIndex((g) => g.id === s.cur);
  return blog.slice(at + 1).find((g) => g.st === 'using' && g.es.length === 0);
}

/** tailSkip: the current buffer has space left, but (entry sizes abstracted) the SEND may not fit in it. */
function canSkipTail(s: Server, conf: RowanConfig): boolean {
  const g = s.segs.find((x) => x.id === s.cur);
  return !!g && g.log === 'b' && g.st === 'using' && !g.sk && g.es.length > 0 && g.es.length < conf.segCap && !!nextBuffer(s);
}

/**
 * The slots a reader parses in a segment, in order, up to the first zero header: the ones
 * written in its current life. Mutant M23 breaks [AMBIG] L272: only the first 64 bits of a
 * recycled segment are zeroed and a reader trusts every checksum-valid entry, so once the
 * first slot is written again it parses on into the previous life's entries beyond the new tail.
 */
function parse(seg: Seg, mutant?: string): { e: Entry; i: number }[] {
  const out = seg.es.map((e, i) => ({ e, i }));
  if (mutant === 'M23' && seg.old && seg.es.length > 0)
    for (let i = seg.es.length; i < seg.old.length && seg.old[i]; i++) out.push({ e: seg.old[i]!, i });
  return out;
}

function storeAndDigest(st: RowanState, s: Server, es: Entry[], state: Seg['st'], digest: boolean, mutant?: string) {
  if (es.length === 0) return;
  const seg = newSeg(s, 'r', state, es.map((e) => ({ ...e, np: 0 })));
  if (digest) seg.es.forEach((e, i) => apply(st, s, e, `${seg.id}.${i}`, mutant !== 'M10', mutant));
}

/** Admission checks at server p for client c (§2.2). */
function admit(st: RowanState, conf: RowanConfig, p: number, c: number, mutant?: string): 'none' | 'reject' | 'accept' {
  const v = st.srv[p];
  const cl = st.cl[c];
  const sh = conf.keyShard[conf.clients[c][cl.pc].k];
  if (!v.up || !v.lease || v.cold !== 0 || v.com < v.term) return 'none'; // drop, or hold (L294)
  if (cl.term > v.term) return 'none'; // [AMBIG] newer client config: hold
  // M25 breaks L294: a request with a stale term is served, judged by the client's config
  if (cl.term < v.term && mutant !== 'M25') return 'reject';
  const cfg = mutant === 'M25' ? st.cm.cfgs[cl.term] : cfgOf(st, p);
  if (cfg.dist[sh].p !== p) return 'reject'; // L308: the migration source rejects
  if (v.shardBlocked[sh]) return 'none'; // L296
  // M20a breaks L308: the target serves before MIGRATE_VERSION
  if (cfg.mig && cfg.mig.tgt === p && cfg.mig.sh === sh && v.migVer[sh] < 0 && mutant !== 'M20a') return 'none';
  return 'accept';
}

/** What a GET at s returns (§2.5), with the migration target's forwarding (L311). */
export function getAt(st: RowanState, conf: RowanConfig, s: number, k: number, mutant?: string): { ok: boolean; item: Item | null } {
  let item = st.srv[s].idx[k];
  const cfg = cfgOf(st, s);
  const sh = conf.keyShard[k];
  // M21 breaks L311 with tombstones: a deleted key counts as "not found" and is forwarded
  const notFound = item === null || (mutant === 'M21' && item.d);
  if (cfg.mig && cfg.mig.tgt === s && cfg.mig.sh === sh && notFound) {
    const src = st.srv[cfg.mig.src];
    if (!src.up) return { ok: false, item: null };
    item = src.idx[k];
  }
  return { ok: true, item };
}

// ---------- the machine ----------

export function buildMachine(conf: RowanConfig, mutant?: string): Machine<RowanState, RowanAction> {
  const nsh = conf.shards.length;
  const servers = [...Array(conf.servers).keys()];

  const init = (): RowanState[] => {
    const members = [...new Set(conf.shards.flat().concat(conf.migrate ? [conf.migrate.tgt] : []))].sort((a, b) => a - b);
    const cfg0: Cfg = {
      members,
      dist: conf.shards.map((r) => ({ p: r[0], bs: r.slice(1) })),
      lag: conf.shards.map(() => []),
      mig: null,
      rb: -1,
      fo: true,
    };
    const srv = servers.map((): Server => {
      // tomb is a ghost of PM (which tombstones went), so a crash keeps it
      const s = { up: true, lease: true, term: 0, com: 0, segs: [], nextSeg: 0, cur: -1, cold: 0, tomb: conf.keyShard.map(() => 0) } as unknown as Server;
      wipeDram(s, conf);
      // L270: the control thread posts b-log segments to the MP SRQ at start-up
      for (let i = 0; i < conf.segs; i++) newSeg(s, 'b', 'using');
      return s;
    });
    const cm = {
      term: 0, cfgs: [cfg0], down: [], resp: [], phase: 'stable' as const, fails: conf.failures,
      cvLeft: conf.commitVer, gcLeft: conf.gc, pf: conf.powerFail, mig: 0,
    };
    const cl = conf.clients.map(() => ({ pc: 0, st: 'idle' as const, to: -1, term: 0, out: null, v: 0 }));
    return [{ srv, ch: {}, dead: [], cl, cm, acked: [], bad: '' }];
  };

  function actions(st: RowanState): RowanAction[] {
    const out: RowanAction[] = [];
    const { cm } = st;
    // --- clients (§2.1)
    st.cl.forEach((cl, c) => {
      if (cl.st === 'idle' && cl.pc < conf.clients[c].length) out.push(act('invoke', c));
      if (cl.st === 'reply') out.push(act('clientReturn', c));
      if (cl.st === 'rej') out.push(act('refetchConfig', c));
      if (cl.st === 'lost') out.push(act('clientTimeout', c));
      if (cl.st === 'sent' || cl.st === 'wait') {
        // [I] §3.7: a client times out only when its server cannot answer: crashed, lease
        // expired, evicted from the configuration, or recovering from a power failure
        const p = st.srv[cl.to];
        if (!p.up || !p.lease || p.cold !== 0 || !curCfg(st).members.includes(cl.to)) out.push(act('clientTimeout', c));
      }
      if (cl.st === 'sent') {
        const verdict = admit(st, conf, cl.to, c, mutant);
        if (verdict === 'reject') out.push(act('reject', cl.to, c));
        if (verdict === 'accept') {
          const op = conf.clients[c][cl.pc];
          if (op.f === 'get') {
            if (getAt(st, conf, cl.to, op.k, mutant).ok) out.push(act('get', cl.to, c));
          } else out.push(act('putStart', cl.to, c));
        }
      }
    });
    // --- primaries: PUT/DEL completion, t-log commit, CommitVer (§2.3, §2.9)
    st.srv.forEach((s, p) => {
      if (!s.up) return;
      for (const ctx of s.ctx) if (!ctx.err && complete(st, p, ctx)) out.push(act('putFinish', p, ctx.op));
      if (conf.tlogCommit && !s.cold)
        for (const seg of s.segs)
          if (seg.log === 't' && seg.st === 'using' && seg.es.length === conf.segCap && tlogCommittable(s, seg))
            out.push(act('tlogCommit', p, seg.id));
      if (conf.split) {
        if (s.segs.some((g) => g.log === 't' && g.es.some((e) => e.np))) out.push(act('tlogPersist', p));
        if (s.unflushed.length) out.push(act('readFlush', p));
      }
      if (cm.cvLeft > 0)
        for (let sh = 0; sh < nsh; sh++)
          if (serves(st, p, sh, mutant) && cfgOf(st, p).dist[sh].bs.length && (conf.cvTimer || watermark(s, sh) > s.commitVer[sh]))
            out.push(act('sendCommitVer', p, sh));
    });
    // --- receiver RNIC: land one SEND from any non-empty QP (§2.6); with split DMA (§6.3)
    // the landing only allocates the slot, and the DMA completes in a later step
    for (const key of Object.keys(st.ch).sort()) {
      const [, to] = parseChan(key);
      if (!st.srv[to].up) continue;
      if (receiveBuffer(st.srv[to], conf)) out.push(act(conf.dma ? 'allocSlot' : 'rnicLand', to, -1, key));
      if (conf.tailSkip && canSkipTail(st.srv[to], conf)) out.push(act('rnicLandNext', to, -1, key));
    }
    st.srv.forEach((s, b) => {
      if (!s.up) return;
      for (const d of s.dma) {
        out.push(act('dmaDone', b, -1, `${d.seg}.${d.slot}`));
        // L274: the sender retries a replication write not ACKed within 1 ms; M18 removes the retry
        const p = st.srv[d.from];
        const ctx = d.r === 0 && p.up ? p.ctx.find((x) => x.op === d.op) : undefined;
        if (ctx && !ctx.err && !ctx.rt.includes(b) && mutant !== 'M18') out.push(act('retry', d.from, b, String(d.op)));
      }
    });
    // --- control and digest threads (§2.7, §2.8)
    st.srv.forEach((s, b) => {
      if (!s.up || s.cold) return;
      const blog = s.segs.filter((g) => g.log === 'b');
      blog.forEach((g, i) => {
        // L272: the first 64 bits of a later segment are non-zero (its first slot written)
        const later = blog.slice(i + 1).some((h) => h.es.length > 0 && h.es[0].np !== 2);
        if (g.st === 'using' && later && waited(st, b, g)) out.push(act('markUsed', b, g.id));
        if (g.st === 'used' && !g.dg) out.push(act('digest', b, g.id));
        // CV-OFF-BY-ONE breaks L282: a segment commits with MaxVer one above CommitVer
        if (conf.commitVer && g.st === 'used' && g.dg && g.mv.every((m, sh) => m <= s.commitVerArray[sh] + (mutant === 'CV-OFF-BY-ONE' ? 1 : 0)))
          out.push(act('commitSegment', b, g.id));
      });
      // GC (§2.10)
      if (s.clean) out.push(act('cleanFix', b, s.clean.seg));
      else if (cm.gcLeft > 0)
        for (const g of s.segs)
          if ((g.st === 'committed' || (mutant === 'M24' && g.st === 'used')) && !s.dma.some((d) => d.seg === g.id)) out.push(act('cleanCopy', b, g.id));
    });
    // --- failures and the CM (§3.1, §3.2)
    if (cm.fails > 0)
      for (const s of conf.failTargets) {
        if (!st.srv[s].up) continue;
        if (conf.failKinds.includes('crash')) out.push(act('crash', s));
        if (conf.failKinds.includes('suspect') && !cm.down.includes(s)) out.push(act('suspect', s));
      }
    for (const s of cm.down) if (st.srv[s].lease) out.push(act('leaseExpire', s));
    for (const f of cm.down) if (curCfg(st).members.includes(f)) for (const n of primaryChoices(st, f)) out.push(act('cmNewConfig', f, n));
    st.srv.forEach((s, i) => {
      if (s.up && s.term < cm.term && curCfg(st).members.includes(i) && (drained(st, i) || mutant === 'RB-NOFENCE'))
        out.push(act('newConfig', i));
    });
    if (cm.phase === 'new' && canCommit(st)) out.push(act('cmCommit'));
    st.srv.forEach((s, i) => {
      if (cm.phase === 'stable' && s.up && s.term === cm.term && s.com < s.term) out.push(act('commit', i));
    });
    // --- promotion (§3.3)
    st.srv.forEach((s, n) => {
      const pr = s.promo;
      if (!s.up || !pr) return;
      const group = [n, ...cfgOf(st, n).dist[pr.sh].bs];
      // M6b breaks L296: no gather, the new primary uses only its own b-log
      const from = mutant === 'M6b' ? [n] : group;
      for (const r of from) if (!pr.coll.includes(r) && st.srv[r].up && st.srv[r].term === s.term) out.push(act('promoCollect', n, r));
      if (!from.every((r) => pr.coll.includes(r))) return;
      for (const b of group.slice(1)) if (!pr.sc.includes(b) && st.srv[b].up) out.push(act('promoScatter', n, b));
      // M7 breaks [AMBIG->I] of §3.3: unblock before the scatter reached the backups
      if (mutant === 'M7' || group.slice(1).every((b) => pr.sc.includes(b))) out.push(act('promoFinish', n, pr.sh));
    });
    // --- re-replication (§3.4)
    st.srv.forEach((s, p) => {
      if (!s.up || s.com < s.term || s.promo) return;
      const cfg = cfgOf(st, p);
      for (let sh = 0; sh < nsh; sh++) {
        if (cfg.dist[sh].p !== p || s.shardBlocked[sh]) continue;
        if (s.rerep && s.rerep.sh === sh) {
          const left = keysOf(conf, sh).filter((k) => !s.rerep!.done.includes(k));
          if (left.length && st.srv[s.rerep.r].up) out.push(act('rerepCopy', p, left[0]));
          if (!left.length) out.push(act('rerepDone', p, s.rerep.r));
        } else if (!s.rerep) {
          for (const r of curCfg(st).lag[sh]) {
            if (cfg.dist[sh].bs.includes(r) && st.srv[r].up && st.srv[r].term === s.term && (cfg.mig?.tgt !== r)) {
              // M15 breaks §3.4(b): the traversal starts without draining older PUTs
              const drained = s.ctx.every((x) => x.e.sh !== sh || x.bs.includes(r));
              if (drained || mutant === 'M15') out.push(act('rerepStart', p, r));
            }
          }
        }
      }
    });
    // --- cold start (§3.8)
    if (cm.pf && cm.phase === 'stable' && cm.mig !== 1 && st.srv.every((s) => !s.promo)) out.push(act('powerFailure'));
    st.srv.forEach((s, p) => {
      if (!s.up || !s.cold) return;
      const cfg = curCfg(st);
      const mine = cfg.dist.flatMap((d, sh) => (d.p === p ? [sh] : []));
      for (const sh of mine) if (!s.pushed.includes(sh)) out.push(act('coldPush', p, sh));
      if (mine.every((sh) => s.pushed.includes(sh))) out.push(act('coldIndex', p));
    });
    // --- migration (§3.9)
    if (conf.migrate) {
      const { src, tgt } = conf.migrate;
      if (cm.mig === 0 && cm.phase === 'stable' && cm.down.length === 0 && st.srv[src].up && st.srv[tgt].up)
        out.push(act('cmMigrate', src, tgt));
      if (cm.mig === 1) {
        const s = st.srv[src];
        if (s.up && s.term === cm.term && !s.migSent) {
          // M20b breaks L308: MIGRATE_VERSION sent before in-flight PUTs of the shard finish
          if (mutant === 'M20b' || s.ctx.every((x) => x.e.sh !== 0)) out.push(act('migrateVersion', src, tgt));
        }
        if (s.up && s.migSent && st.srv[tgt].up) {
          const left = keysOf(conf, 0).filter((k) => !s.migCopied.includes(k));
          if (left.length) out.push(act('migrateCopy', src, left[0]));
          else out.push(act('migrateDone', tgt));
        }
      }
    }
    return out;
  }

  /**
   * §6.3, L274: the 2 ms wait before marking a segment used outlasts every DMA into it,
   * except one slow enough that its sender has already retried the write (1 ms). M18
   * removes the wait (and the retry).
   */
  function waited(st: RowanState, b: number, g: Seg): boolean {
    if (mutant === 'M18') return true;
    return st.srv[b].dma.every(
      (d) => d.seg !== g.id || (d.r === 0 && st.srv[d.from].up && st.srv[d.from].ctx.some((x) => x.op === d.op && x.rt.includes(b))),
    );
  }

  function complete(st: RowanState, p: number, ctx: Ctx): boolean {
    // M2 breaks L219: reply after the first ACK instead of all
    if (mutant === 'M2') return ctx.acks.length >= Math.min(1, ctx.bs.length);
    // §3.5 (i) [I]: every backup the SEND went to must ACK, unless the cached configuration
    // has evicted it (a re-replicating newcomer is covered by the drain before its traversal)
    const members = cfgOf(st, p).members;
    return ctx.bs.every((b) => ctx.acks.includes(b) || !members.includes(b));
  }

  function tlogCommittable(s: Server, seg: Seg): boolean {
    // M17 breaks L247: committed as soon as full, before all its entries are ACKed
    if (mutant === 'M17') return true;
    return seg.es.every((e) => e.np === 0 && !s.ctx.some((x) => x.e.sh === e.sh && x.e.v === e.v));
  }

  /** CommitVer (L280): the contiguous watermark of versions that completed point C. */
  function watermark(s: Server, sh: number): number {
    const inflight = s.ctx.filter((x) => x.e.sh === sh).map((x) => x.e.v);
    // M16 breaks L280: the largest completed version, not the contiguous watermark
    if (mutant === 'M16') {
      let v = s.shardVersion[sh];
      while (v > 0 && inflight.includes(v)) v--;
      return v;
    }
    return inflight.length ? Math.min(...inflight) - 1 : s.shardVersion[sh];
  }

  function primaryChoices(st: RowanState, f: number): number[] {
    const base = baseDist(st, f);
    const lost = base.findIndex((d) => d.p === f);
    if (lost < 0) return [-1];
    const lag = curCfg(st).lag[lost];
    // M19 breaks §3.4(a): a backup still catching up may be promoted
    return base[lost].bs.filter((b) => !st.cm.down.includes(b) && (mutant === 'M19' || !lag.includes(b)));
  }

  /** The distribution a failover starts from: rolled back first if a migration is interrupted (L315). */
  function baseDist(st: RowanState, f: number): Dist[] {
    const cfg = curCfg(st);
    // Fix of finding F-M22: when the target fails, the shard is not handed back to the source
    // (whose index and shard version are frozen at the hand-off); the target is failed over
    // like any primary, promoting a surviving backup with the normal gather. M22 rolls back.
    if (cfg.mig && (f === cfg.mig.src || (f === cfg.mig.tgt && mutant === 'M22'))) return cfg.dist.map((d, sh) => (sh === cfg.mig!.sh ? cfg.mig!.prev : d));
    return cfg.dist;
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
    return Object.entries(st.ch).every(([key, q]) => parseChan(key)[0] !== s || q.every((m) => !losing.includes(m.e.sh)));
  }

  function canCommit(st: RowanState): boolean {
    const cfg = curCfg(st);
    if (!cfg.members.every((m) => st.cm.resp.includes(m))) return false;
    // M13 breaks L294: commit without waiting for the evicted server's lease to expire
    return mutant === 'M13' || st.cm.down.filter((d) => !cfg.members.includes(d)).every((d) => !st.srv[d].lease);
  }

  /**
   * A terminal state where a SEND waits for a receive buffer (RNR): the b-log's bounded
   * segment pool is used up. A bound of the model (the real control thread keeps posting
   * free segments, L270), not a deadlock.
   */
  function rnrStall(st: RowanState): boolean {
    return Object.keys(st.ch).some((key) => {
      const b = st.srv[parseChan(key)[1]];
      return b.up && !receiveBuffer(b, conf);
    });
  }

  /** The servers a step may modify (the others are shared with the previous state). */
  function writes(s0: RowanState, a: RowanAction): number[] | 'all' {
    switch (a.step) {
      case 'rnicLand':
      case 'allocSlot':
      case 'rnicLandNext':
        return [a.a, parseChan(a.key!)[0]];
      case 'dmaDone': {
        const [seg, slot] = a.key!.split('.').map(Number);
        return [a.a, s0.srv[a.a].dma.find((d) => d.seg === seg && d.slot === slot)!.from];
      }
      case 'readFlush':
      case 'powerFailure':
      case 'coldPush':
        return 'all';
      case 'promoScatter':
      case 'rerepStart':
      case 'migrateVersion':
        return [a.a, a.b];
      case 'rerepCopy':
        return [a.a, s0.srv[a.a].rerep!.r];
      case 'migrateCopy':
      case 'migrateDone':
        return conf.migrate ? [conf.migrate.src, conf.migrate.tgt] : [];
      default:
        return a.a >= 0 && a.a < conf.servers ? [a.a] : [];
    }
  }

  function next(s0: RowanState, a: RowanAction): RowanState {
    const st = copy(s0, writes(s0, a));
    const { cm } = st;
    switch (a.step) {
      // §2.1: the client sends an RPC to the key's primary in its cached configuration (L217)
      case 'invoke': {
        const cl = st.cl[a.a];
        const op = conf.clients[a.a][cl.pc];
        cl.st = 'sent';
        cl.to = cm.cfgs[cl.term].dist[conf.keyShard[op.k]].p;
        break;
      }
      case 'reject': // L294: stale term, or not the primary (L308)
        st.cl[a.b].st = 'rej';
        break;
      case 'refetchConfig': {
        // L294: on a rejection the client fetches the configuration from the CM and resends
        const cl = st.cl[a.a];
        cl.term = cm.term;
        cl.to = cm.cfgs[cl.term].dist[conf.keyShard[conf.clients[a.a][cl.pc].k]].p;
        cl.st = 'sent';
        break;
      }
      case 'clientTimeout': {
        // [I] §3.7: no reply; the attempt stays pending, the client refetches and moves on
        const cl = st.cl[a.a];
        cl.term = cm.term;
        cl.pc++;
        cl.st = cl.pc < conf.clients[a.a].length ? 'idle' : 'done';
        break;
      }
      case 'clientReturn': {
        const cl = st.cl[a.a];
        const op = conf.clients[a.a][cl.pc];
        if (op.f !== 'get') st.acked.push({ sh: conf.keyShard[op.k], k: op.k, v: cl.v });
        cl.pc++;
        cl.st = cl.pc < conf.clients[a.a].length ? 'idle' : 'done';
        break;
      }
      // §2.5, L221: index lookup and value read, the GET's linearization point
      case 'get': {
        const cl = st.cl[a.b];
        const op = conf.clients[a.b][cl.pc];
        const { item } = getAt(st, conf, a.a, op.k, mutant);
        cl.st = 'reply';
        cl.out = item && !item.d ? item.x : null;
        break;
      }
      // §2.3 ① and ②, L219/L259: version, persistent t-log append, ROWAN write to every backup
      case 'putStart': {
        const p = st.srv[a.a];
        const c = a.b;
        const cl = st.cl[c];
        const op = conf.clients[c][cl.pc];
        const sh = conf.keyShard[op.k];
        const v = ++p.shardVersion[sh];
        const x = op.f === 'put' ? valueOf(c, cl.pc) : 0;
        const e: Entry = { t: op.f === 'put' ? 'P' : 'D', sh, v, k: op.k, x, np: 0 };
        const open = p.segs.find((g) => g.log === 't' && g.st === 'using' && g.es.length < conf.segCap);
        const seg = open ? segW(p, open.id) : newSeg(p, 't', 'using');
        // M4 breaks L219 ①-before-②: the t-log append is not yet persistent when replicated
        seg.es.push({ ...e, np: mutant === 'M4' ? 1 : 0 });
        const ctx: Ctx = { op: opId(c, cl.pc), c, e, bs: [...cfgOf(st, a.a).dist[sh].bs], acks: [], err: false, rt: [] };
        for (const b of ctx.bs) if (!rowanWrite(st, a.a, c % conf.workers, b, { e, op: ctx.op })) ctx.err = true;
        p.ctx.push(ctx);
        cl.st = 'wait';
        // M1 breaks L219 ③-after-②: the index is updated before the replication ACKs
        if (mutant === 'M1') apply(st, p, e, `${seg.id}.${seg.es.length - 1}`, true, mutant);
        break;
      }
      case 'tlogPersist': // split config: the ntstore + fence of ① completes
        st.srv[a.a].segs = st.srv[a.a].segs.map((g) => (g.log === 't' ? { ...g, es: g.es.map((e) => ({ ...e, np: 0 })) } : g));
        break;
      // §2.3 ③ and the reply, L219/L353: conditional index update (point V)
      case 'putFinish': {
        const p = st.srv[a.a];
        const i = p.ctx.findIndex((x) => x.op === a.b);
        const ctx = p.ctx[i];
        p.ctx.splice(i, 1);
        const seg = p.segs.find((g) => g.log === 't' && g.es.some((e) => e.sh === ctx.e.sh && e.v === ctx.e.v))!;
        const loc = `${seg.id}.${seg.es.findIndex((e) => e.sh === ctx.e.sh && e.v === ctx.e.v)}`;
        // M9 breaks L353 at the primary: completion order wins
        if (mutant !== 'M1') apply(st, p, ctx.e, loc, mutant !== 'M9', mutant);
        p.done[ctx.e.k] = Math.max(p.done[ctx.e.k], ctx.e.v);
        const cl = st.cl[ctx.c];
        if (cl.st === 'wait' && cl.to === a.a && opId(ctx.c, cl.pc) === ctx.op) {
          cl.st = 'reply';
          cl.out = null;
          cl.v = ctx.e.v;
        }
        break;
      }
      case 'tlogCommit': // L247
        segW(st.srv[a.a], a.b).st = 'committed';
        break;
      // §2.9, L280: write <shard, CommitVer> into every backup's b-log through ROWAN
      case 'sendCommitVer': {
        const p = st.srv[a.a];
        const w = watermark(p, a.b);
        p.commitVer[a.b] = w;
        const e: Entry = { t: 'C', sh: a.b, v: 0, k: -1, x: w, np: 0 };
        for (const b of cfgOf(st, a.a).dist[a.b].bs) rowanWrite(st, a.a, 0, b, { e, op: -1 });
        cm.cvLeft--;
        break;
      }
      // §2.6, L182-L184: the receiver RNIC places the SEND at the next slot and ACKs it;
      // with split DMA (§6.3) it only allocates the slot (allocSlot); the DMA completes at dmaDone.
      // rnicLandNext: the SEND does not fit in the space left, so the RNIC pops the next buffer (L184)
      case 'rnicLand':
      case 'allocSlot':
      case 'rnicLandNext': {
        const b = st.srv[a.a];
        const [from] = parseChan(a.key!);
        const m = st.ch[a.key!].shift()!;
        if (st.ch[a.key!].length === 0) delete st.ch[a.key!];
        if (a.step === 'rnicLandNext') segW(b, b.cur).sk = true;
        const seg = segW(b, receiveBuffer(b, conf)!.id);
        b.cur = seg.id;
        seg.es.push({ ...m.e, np: conf.dma ? 2 : conf.split ? 1 : 0 });
        // I13 (L294): nothing from an evicted server lands once the CM has committed
        const cfg = cfgOf(st, a.a);
        if (!cfg.members.includes(from) && (cm.term > b.term || cm.phase === 'stable') && !st.bad)
          st.bad = `I13: an entry from evicted server ${from} landed at ${a.a} after term ${b.term} committed`;
        if (conf.dma) b.dma.push({ seg: seg.id, slot: seg.es.length - 1, from, op: m.op, r: m.r ?? 0 });
        else if (!conf.split || mutant === 'M3') {
          // M3 breaks L174-L178: ACK on SEND completion, before the persisting READ
          if (m.op >= 0) ack(st, from, m.op, a.a);
        }
        if (conf.split) b.unflushed.push({ seg: seg.id, slot: seg.es.length - 1, from, op: m.op });
        break;
      }
      case 'dmaDone': {
        // §6.3: the DMA into an allocated slot completes; the trailing READ then returns (G2)
        const b = st.srv[a.a];
        const [sid, slot] = a.key!.split('.').map(Number);
        const i = b.dma.findIndex((d) => d.seg === sid && d.slot === slot);
        const d = b.dma[i];
        b.dma.splice(i, 1);
        const g = segW(b, sid);
        g.es[slot] = { ...g.es[slot], np: 0 };
        if (d.op >= 0) ack(st, d.from, d.op, a.a, d.r);
        break;
      }
      case 'retry': {
        // L274: a replication write not ACKed within 1 ms is issued again on the same QP;
        // it lands as a duplicate, and only its ACK counts
        const p = st.srv[a.a];
        const ctx = p.ctx.find((x) => x.op === Number(a.key))!;
        insertSorted(ctx.rt, a.b);
        if (!rowanWrite(st, a.a, ctx.c % conf.workers, a.b, { e: ctx.e, op: ctx.op, r: 1 })) ctx.err = true;
        break;
      }
      case 'readFlush': {
        // split config: the trailing 1 B READ flushes the RNIC/PCIe buffers, then completes (G2)
        const b = st.srv[a.a];
        for (const u of b.unflushed) {
          const g = segW(b, u.seg);
          g.es[u.slot] = { ...g.es[u.slot], np: 0 };
          if (mutant !== 'M3' && u.op >= 0) ack(st, u.from, u.op, a.a);
        }
        b.unflushed = [];
        break;
      }
      case 'markUsed': // L272-L274: a later segment is non-empty (atomic landing: no DMA outstanding)
        segW(st.srv[a.a], a.b).st = 'used';
        break;
      // §2.8, L278-L282: digest a used segment in slot order
      case 'digest': {
        const b = st.srv[a.a];
        const seg = segW(b, a.b);
        seg.mv = new Array(nsh).fill(0);
        for (const { e, i } of parse(seg, mutant)) {
          // a slot whose DMA is still outstanding fails its checksum (L253): skipped
          if (e.np === 2) seg.bad = [...(seg.bad ?? []), i];
          else if (e.t === 'C') b.commitVerArray[e.sh] = Math.max(b.commitVerArray[e.sh], e.x);
          else {
            // M10 breaks L353 at the backup: b-log order is taken as the serialization
            apply(st, b, e, `${seg.id}.${i}`, mutant !== 'M10', mutant);
            seg.mv[e.sh] = Math.max(seg.mv[e.sh], e.v);
          }
        }
        seg.dg = true;
        break;
      }
      case 'commitSegment': // L282: MaxVerArray <= CommitVerArray
        segW(st.srv[a.a], a.b).st = 'committed';
        break;
      // §2.10, L284: copy live entries of a committed segment into a clean segment
      case 'cleanCopy': {
        const s = st.srv[a.a];
        const seg = s.segs.find((g) => g.id === a.b)!;
        if (seg.st !== 'committed' && !st.bad) st.bad = `I14: segment ${seg.id} of server ${a.a} cleaned while ${seg.st}`;
        const live = parse(seg, mutant).flatMap(({ e, i }) => (e.t !== 'C' && s.idx[e.k]?.loc === `${seg.id}.${i}` ? [{ e, loc: `${seg.id}.${i}` }] : []));
        // tombGc [I]: a live tombstone is dropped, not copied, once no older entry of its key
        // is left in this server's PM outside the segment (otherwise a rebuild would revive it, §3.8)
        const older = (e: Entry) => pmEntries(s).some((x) => x.seg.id !== seg.id && x.e.sh === e.sh && x.e.k === e.k && x.e.v < e.v);
        const reclaim = live.filter(({ e }) => conf.tombGc && e.t === 'D' && !older(e));
        const keep = live.filter((x) => !reclaim.includes(x)).map(({ e }) => e);
        const dst = newSeg(s, 'c', 'committed', keep.map((e) => ({ ...e })));
        s.clean = { seg: seg.id, moved: keep.map((e, i) => ({ k: e.k, v: e.v, loc: `${dst.id}.${i}`, e })) };
        if (reclaim.length) s.clean.rm = reclaim.map(({ e, loc }) => ({ k: e.k, v: e.v, loc }));
        cm.gcLeft--;
        break;
      }
      case 'cleanFix': {
        // L284: update the index to the copies (equal version moves the pointer), free the segment
        const s = st.srv[a.a];
        const cl = s.clean!;
        // M11 breaks L353 in the clean thread: unconditional pointer update
        for (const m of cl.moved) {
          const cur = s.idx[m.k];
          if (mutant === 'M11' || (cur && cur.v === m.v)) apply(st, s, m.e, m.loc, mutant !== 'M11', mutant);
        }
        for (const m of cl.rm ?? [])
          if (s.idx[m.k]?.loc === m.loc) {
            s.idx[m.k] = null;
            s.tomb[m.k] = Math.max(s.tomb[m.k], m.v);
          }
        const seg = segW(s, cl.seg);
        for (const { e, i } of parse(seg, mutant))
          if (e.t !== 'C' && s.idx[e.k]?.loc === `${seg.id}.${i}` && !st.bad) st.bad = `I14: live entry ${seg.id}.${i} freed`;
        // M23: what the slots hold when the segment is posted again with only its first 64 bits zeroed
        const old = mutant === 'M23' ? [...Array(conf.segCap).keys()].map((i) => (i === 0 ? null : (seg.es[i] ?? seg.old?.[i] ?? null))) : [];
        seg.st = 'free';
        seg.es = [];
        s.clean = null;
        if (seg.log === 'b') {
          // L270-L272: a free segment is posted again at the tail of the b-log. [I] Every slot's
          // first word is zeroed, so a reader stops at the new tail (M23 zeroes only the first)
          s.segs = s.segs.filter((g) => g.id !== seg.id);
          const again: Seg = { id: seg.id, log: 'b', st: 'using', es: [], dg: false, mv: [] };
          if (old.some((e) => e)) again.old = old;
          s.segs.push(again);
          if (s.cur === seg.id) s.cur = -1;
        }
        break;
      }
      // §1.6: a server fails; DRAM is lost, PM survives; its lease renewals stop
      case 'crash': {
        const s = st.srv[a.a];
        s.up = false;
        wipeDram(s, conf);
        dropChannels(st, (_f, to) => to === a.a);
        insertSorted(cm.down, a.a);
        cm.fails--;
        break;
      }
      case 'suspect': // a live server falsely suspected: the CM stops renewing its lease
        insertSorted(cm.down, a.a);
        cm.fails--;
        break;
      case 'leaseExpire': // [I] FaRM: a server whose lease expired stops serving
        st.srv[a.a].lease = false;
        break;
      // §3.2, L292-L294: new term, membership without f, a backup promoted where f was primary
      case 'cmNewConfig': {
        const f = a.a;
        const old = curCfg(st);
        const dist = baseDist(st, f).map((d) => ({ p: d.p, bs: [...d.bs] }));
        const lag = old.lag.map((l) => l.filter((x) => x !== f));
        const members = old.members.filter((m) => m !== f);
        let rb = old.rb === f ? -1 : old.rb;
        let mig = old.mig;
        if (old.mig && (f === old.mig.src || f === old.mig.tgt)) {
          // L315: roll the distribution back, drop the task, then normal failover
          mig = null;
          cm.mig = 3;
          lag[old.mig.sh] = lag[old.mig.sh].filter((x) => x !== old.mig!.tgt);
          if (f === old.mig.tgt && mutant === 'M22') rb = old.mig.src;
        }
        dist.forEach((d, sh) => {
          const had = d.p === f || d.bs.includes(f);
          if (d.p === f) {
            d.p = a.b;
            d.bs = d.bs.filter((x) => x !== a.b);
          } else d.bs = d.bs.filter((x) => x !== f);
          // L292/L298: the CM adds a new backup, which re-replicates
          if (had && conf.spare >= 0 && !members.includes(conf.spare) && st.srv[conf.spare].up) {
            d.bs.push(conf.spare);
            insertSorted(members, conf.spare);
            insertSorted(lag[sh], conf.spare);
          }
        });
        cm.term++;
        cm.cfgs.push({ members, dist, lag, mig, rb, fo: true });
        cm.phase = 'new';
        cm.resp = [];
        break;
      }
      // L294: cache the configuration, destroy QPs with evicted servers, block, respond
      case 'newConfig': {
        const s = st.srv[a.a];
        s.term = cm.term;
        const cfg = curCfg(st);
        if (!cfg.fo) {
          s.com = s.term; // a migration configuration: no blocking (L306-L308)
          break;
        }
        // M14 breaks L294: the QPs to the evicted server are not destroyed before responding
        if (mutant !== 'M14')
          for (const x of servers)
            if (x !== a.a && !cfg.members.includes(x)) {
              if (!st.dead.includes(qpKey(a.a, x))) {
                st.dead.push(qpKey(a.a, x));
                st.dead.sort();
              }
              dropChannels(st, (f, t) => (f === a.a && t === x) || (f === x && t === a.a));
            }
        s.promo = null;
        s.rerep = null;
        insertSorted(cm.resp, a.a);
        break;
      }
      case 'cmCommit': {
        const cfg = curCfg(st);
        cm.phase = 'stable';
        cm.down = cm.down.filter((d) => cfg.members.includes(d));
        break;
      }
      // L294-L296: unblock; a backup that became primary starts its promotion
      case 'commit': {
        const s = st.srv[a.a];
        const was = cm.cfgs[s.com];
        s.com = s.term;
        const cfg = cfgOf(st, a.a);
        for (let sh = 0; sh < nsh; sh++) {
          if (cfg.dist[sh].p !== a.a) continue;
          // Finding M22: the literal rollback (L315): the source resumes with no reconciliation
          if (cfg.rb === a.a) continue;
          if (was.dist[sh].p === a.a && !s.shardBlocked[sh]) continue;
          // M5 breaks L296: the new primary does not block the shard while its index is built
          s.shardBlocked[sh] = mutant !== 'M5';
          s.promo = { sh, coll: [], U: [], sc: [] };
        }
        break;
      }
      // L296: gather the shard's entries of using and used segments from a replica
      case 'promoCollect': {
        const n = st.srv[a.a];
        const pr = n.promo!;
        const r = st.srv[a.b];
        for (const g of r.segs) {
          // M6a breaks L296: the scan skips using segments
          const scan = (g.log === 'b' && ((g.st === 'using' && mutant !== 'M6a') || g.st === 'used')) || (g.log === 'r' && g.st === 'using');
          if (!scan) continue;
          for (const e of g.es)
            if (e.np === 0 && e.t !== 'C' && e.sh === pr.sh && !pr.U.some((u) => u.v === e.v)) pr.U.push({ ...e });
        }
        insertSorted(pr.coll, a.b);
        break;
      }
      // L296: scatter the union; the backup stores it into segments and digests it
      case 'promoScatter': {
        const pr = st.srv[a.a].promo!;
        const b = st.srv[a.b];
        // M26 breaks L296/L243: reconciled entries are stored as committed at once
        storeAndDigest(st, b, pr.U, mutant === 'M26' ? 'committed' : 'using', !b.cold, mutant);
        insertSorted(pr.sc, a.b);
        break;
      }
      // L296: store U, build the index, set the shard version above every version seen, unblock
      case 'promoFinish': {
        const n = st.srv[a.a];
        const pr = n.promo!;
        const sh = pr.sh;
        // the digest threads finish the index: digested segments are in it already, U on top
        const seg = newSeg(n, 'r', 'using', pr.U.map((e) => ({ ...e, np: 0 })));
        seg.es.forEach((e, i) => apply(st, n, e, `${seg.id}.${i}`, mutant !== 'M10', mutant));
        // M8 breaks L296: the shard version is not raised above the gathered maximum
        if (mutant !== 'M8') n.shardVersion[sh] = Math.max(n.shardVersion[sh], maxVersion(n, sh));
        n.commitVer[sh] = n.shardVersion[sh];
        n.promoVer[sh] = n.shardVersion[sh];
        for (const k of keysOf(conf, sh)) n.done[k] = n.idx[k]?.v ?? 0;
        n.shardBlocked[sh] = false;
        n.promo = null;
        break;
      }
      // §3.4, L298: the new backup initialises its index and asks the primary to traverse
      case 'rerepStart': {
        const p = st.srv[a.a];
        const sh = cfgOf(st, a.a).dist.findIndex((d) => d.bs.includes(a.b) && d.p === a.a);
        const r = st.srv[a.b];
        for (const k of keysOf(conf, sh)) r.idx[k] = null;
        const seg = newSeg(r, 'r', 'using');
        p.rerep = { sh, r: a.b, seg: seg.id, done: [] };
        break;
      }
      case 'rerepCopy': {
        const p = st.srv[a.a];
        const rr = p.rerep!;
        const item = p.idx[a.b];
        if (item) {
          const r = st.srv[rr.r];
          const seg = segW(r, rr.seg);
          const e: Entry = { t: item.d ? 'D' : 'P', sh: rr.sh, v: item.v, k: a.b, x: item.x, np: 0 };
          seg.es.push(e);
          apply(st, r, e, `${seg.id}.${seg.es.length - 1}`, true, mutant);
        }
        insertSorted(rr.done, a.b);
        break;
      }
      case 'rerepDone': {
        const p = st.srv[a.a];
        const rr = p.rerep!;
        const cfg = curCfg(st);
        cm.cfgs[cm.term] = { ...cfg, lag: cfg.lag.map((l, sh) => (sh === rr.sh ? l.filter((x) => x !== rr.r) : l)) };
        p.rerep = null;
        break;
      }
      // §3.8, L317-L319: whole-cluster power failure; volatile state and messages are lost
      case 'powerFailure': {
        cm.pf = false;
        st.ch = {};
        for (const s of st.srv) {
          if (!s.up) continue;
          wipeDram(s, conf);
          s.cold = 1;
          s.segs = s.segs.map((g) => (g.es.some((e) => e.np) ? { ...g, es: g.es.filter((e) => e.np === 0) } : g));
        }
        for (const cl of st.cl) if (cl.st === 'sent' || cl.st === 'wait' || cl.st === 'reply' || cl.st === 'rej') cl.st = 'lost';
        break;
      }
      // L319: the primary pushes entries of using t-log segments to every backup
      case 'coldPush': {
        const p = st.srv[a.a];
        const sh = a.b;
        const es = p.segs.filter((g) => g.log === 't' && g.st === 'using').flatMap((g) => g.es.filter((e) => e.sh === sh && e.t !== 'C'));
        for (const b of curCfg(st).dist[sh].bs) if (st.srv[b].up) storeAndDigest(st, st.srv[b], es, 'using', !st.srv[b].cold, mutant);
        insertSorted(p.pushed, sh);
        break;
      }
      case 'coldIndex': {
        // L319: build the indexes from every segment, larger version wins; valid shard versions
        const s = st.srv[a.a];
        const cfg = curCfg(st);
        const mine = cfg.dist.flatMap((d, sh) => (replicas(d).includes(a.a) ? [sh] : []));
        rebuild(st, s, conf, mine, mutant);
        for (const sh of mine)
          if (cfg.dist[sh].p === a.a) {
            s.shardVersion[sh] = maxVersion(s, sh);
            s.commitVer[sh] = 0;
          }
        for (let k = 0; k < conf.keyShard.length; k++) s.done[k] = s.idx[k]?.v ?? 0;
        s.cold = 0;
        break;
      }
      // §3.9, L306: a new configuration moving shard 0's primary from src to tgt
      case 'cmMigrate': {
        const old = curCfg(st);
        const prev = old.dist[0];
        const dist = old.dist.map((d, sh) => (sh === 0 ? { p: a.b, bs: prev.bs.filter((x) => x !== a.b) } : d));
        const lag = old.lag.map((l, sh) => (sh === 0 ? [...l, a.b].sort() : l));
        cm.term++;
        cm.cfgs.push({ members: old.members, dist, lag, mig: { src: a.a, tgt: a.b, sh: 0, prev }, rb: -1, fo: false });
        cm.mig = 1;
        break;
      }
      case 'migrateVersion': {
        // L308: the source sends the shard version; the target continues from it
        const s = st.srv[a.a];
        const t = st.srv[a.b];
        t.migVer[0] = s.shardVersion[0];
        // M20a breaks L308: the target does not continue the source's counter
        if (mutant !== 'M20a') t.shardVersion[0] = Math.max(t.shardVersion[0], s.shardVersion[0]);
        s.migSent = true;
        break;
      }
      case 'migrateCopy': {
        // L310-L311: the source writes an indexed entry to the target, which installs it by version
        const s = st.srv[a.a];
        const t = st.srv[conf.migrate!.tgt];
        const item = s.idx[a.b];
        if (item) {
          const e: Entry = { t: item.d ? 'D' : 'P', sh: 0, v: item.v, k: a.b, x: item.x, np: 0 };
          storeAndDigest(st, t, [e], 'using', true, mutant);
          t.done[a.b] = Math.max(t.done[a.b], item.v);
        }
        insertSorted(s.migCopied, a.b);
        break;
      }
      case 'migrateDone': {
        // L313: the CM drops the task; the source frees its index of the shard
        const cfg = curCfg(st);
        cm.cfgs[cm.term] = { ...cfg, mig: null, lag: cfg.lag.map((l, sh) => (sh === 0 ? l.filter((x) => x !== a.a) : l)) };
        cm.mig = 2;
        const src = st.srv[conf.migrate!.src];
        for (const k of keysOf(conf, 0)) src.idx[k] = null;
        break;
      }
      default:
        throw new Error(`rowan: unknown step ${a.step}`);
    }
    return st;
  }

  const observe = (before: RowanState, a: RowanAction): readonly ObservedEvent[] => {
    if (a.step === 'invoke') {
      const c = a.a;
      const pc = before.cl[c].pc;
      const op = conf.clients[c][pc];
      const input = op.f === 'put' ? { f: 'put', key: `k${op.k}`, value: valueOf(c, pc) } : { f: op.f, key: `k${op.k}` };
      return [{ kind: 'invoke', client: c, input }];
    }
    if (a.step === 'clientReturn') return [{ kind: 'return', client: a.a, output: before.cl[a.a].out }];
    if (a.step === 'clientTimeout') return [{ kind: 'crash', client: a.a }];
    return [];
  };

  return {
    init,
    actions,
    next,
    invariants: invariants(conf, mutant),
    view: encodeState,
    mayStop: (s) => s.cl.every((c) => c.st === 'done') || rnrStall(s),
    history: { model: rowanKvModel, clients: conf.clients.length, observe: (b, a) => observe(b, a) },
    actor: (a) => (a.step.startsWith('client') || a.step === 'invoke' || a.step === 'refetchConfig' ? `c${a.a}` : a.step.startsWith('cm') ? 'CM' : `s${a.a}`),
  };
}
