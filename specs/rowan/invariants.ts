// The invariants I1-I16 of the extraction (§4.2) and H2 (§4.3) as checks over one state.
// I4, I13 and I14 are properties of transitions: the step that breaks one records it in
// the ghost field `bad`, and the invariant reads it.
import type { Check } from '../../checkers/explore/types.ts';
import { cfgOf, curCfg, getAt, keysOf, replicas, serves } from './cluster.ts';
import type { Cx } from './context.ts';
import type { Flags } from '../kit/variants.ts';
import type { Variant } from './mutants.ts';
import { digested, segmentEntries, type PmEntry } from './logs.ts';
import { mapped, pair, type Cfg, type Entry, type RowanConfig, type RowanState, type Seg, type Server } from './state.ts';

type Inv = (s: RowanState) => Check;

/**
 * What several invariants derive from one state, computed once for it: the engine checks a
 * state's invariants one after another, and states are never changed once made.
 */
function perState<T>(f: (st: RowanState) => T): (st: RowanState) => T {
  let last: RowanState | undefined;
  let value: T;
  return (st) => {
    if (st !== last) {
      value = f(st);
      last = st;
    }
    return value;
  };
}

/**
 * A server's entries in PM (logs.ts's pmEntries), kept with the segment list they were
 * listed from, per place: they are read off the segments alone, a server a step writes
 * shares its segment list with the state before until a step changes a segment (`own`),
 * and lists and segments never change once their state is made, so most servers, new or
 * not, are met with the list met before in their place. A list met anew is listed again
 * only for the segments not met before in their place (segments are replaced, never
 * changed). Kept by place rather than in a weak map by object: a weak map's entries cost
 * the collector at every collection (with one, a cold run of the defaults took about 4%
 * more CPU).
 */
const pmSegLists: (Seg[] | undefined)[] = [];
const pmLists: PmEntry[][] = [];
const pmSegs: (Seg | undefined)[][] = [];
const pmSegEntries: PmEntry[][][] = [];
function keptPmEntries(s: Server, st: RowanState): PmEntry[] {
  const i = st.srv.indexOf(s);
  if (pmSegLists[i] !== s.segs) {
    const segs = (pmSegs[i] ??= []);
    const lists = (pmSegEntries[i] ??= []);
    const out: PmEntry[] = [];
    for (let j = 0; j < s.segs.length; j++) {
      const seg = s.segs[j];
      if (seg.st === 'free') continue;
      if (segs[j] !== seg) {
        segs[j] = seg;
        lists[j] = segmentEntries(seg);
      }
      for (const x of lists[j]) out.push(x);
    }
    pmLists[i] = out;
    pmSegLists[i] = s.segs;
  }
  return pmLists[i];
}

/** I9, I10: the newest version of key k (shard sh) at most pv that replica r holds in PM (0: none). */
function newestUpTo(st: RowanState, r: number, sh: number, k: number, pv: number): number {
  let m = 0;
  for (const { e } of keptPmEntries(st.srv[r], st)) if (e.sh === sh && e.k === k && e.v <= pv) m = Math.max(m, e.v);
  return m;
}

/**
 * A check of one server that reads nothing of the state but the server and its cached
 * configuration: its verdict kept with the two, per place, as keptPmEntries's lists are.
 * `same` says whether two servers agree on every field the check reads (a server a step
 * writes is a new object that shares most fields with the one before); by default, only
 * a server with itself. One per check and built machine (Checks).
 */
class ServerVerdicts {
  private readonly servers: (Server | undefined)[] = [];
  private readonly cfgs: (Cfg | undefined)[] = [];
  private readonly verdicts: Check[] = [];

  constructor(
    private readonly check: (ck: Checks, st: RowanState, i: number) => Check,
    private readonly same: (a: Server, b: Server) => boolean = (a, b) => a === b,
  ) {}

  of(ck: Checks, st: RowanState, i: number): Check {
    const s = st.srv[i];
    const cfg = cfgOf(st, i);
    const last = this.servers[i];
    if (last === undefined || this.cfgs[i] !== cfg || !this.same(last, s)) {
      this.verdicts[i] = this.check(ck, st, i);
      this.cfgs[i] = cfg;
    }
    this.servers[i] = s;
    return this.verdicts[i];
  }
}

/**
 * Per shard, the alive, caught-up replicas of the shard in the CM's configuration. They
 * depend on the configuration (an object never changed once made, one per configuration:
 * state.ts `Configs`) and on which servers are up, so the lists are kept per configuration,
 * per set of live servers, and handed out again (callers must not change them). A weak map
 * of a few entries: a machine makes few configurations, and breadth-first search meets
 * states of each in turn (with only the last one kept, 41,952 lists were made over the
 * defaults).
 */
const caughtUpLists = new WeakMap<Cfg, (number[][] | undefined)[]>();
const caughtUpOf = (st: RowanState, cfg: Cfg): number[][] =>
  mapped(cfg.dist, (d, sh) => replicas(d).filter((r) => st.srv[r].up && !cfg.lag[sh].includes(r) && cfg.rb !== r));
const caughtUpAll = perState((st: RowanState): number[][] => {
  const cfg = curCfg(st);
  if (st.srv.length > 30) return caughtUpOf(st, cfg);
  let byUp = caughtUpLists.get(cfg);
  if (byUp === undefined) caughtUpLists.set(cfg, (byUp = []));
  let up = 0;
  for (let i = 0; i < st.srv.length; i++) if (st.srv[i].up) up |= 1 << i;
  let lists = byUp[up];
  if (lists === undefined) lists = byUp[up] = caughtUpOf(st, cfg);
  return lists;
});
/** Alive, caught-up replicas of shard sh in the CM's configuration. */
const caughtUp = (st: RowanState, sh: number): number[] => caughtUpAll(st)[sh];

/**
 * Replica s durably has key k at version v or newer: an entry in PM, or a reclaimed
 * tombstone at least as new (tombGc: nothing older of the key was left when it went).
 */
function holds(st: RowanState, r: number, sh: number, k: number, v: number): boolean {
  const s = st.srv[r];
  if (s.tomb[k] >= v) return true;
  const list = keptPmEntries(s, st);
  for (let i = 0; i < list.length; i++) {
    const e = list[i].e;
    if (e.sh === sh && e.k === k && e.v >= v) return true;
  }
  return false;
}

/**
 * Entries that exist: in the PM of live members of the CM's configuration, or in flight. An
 * evicted server's log is out of the system (§3.3: entries only on the failed primary are dropped).
 */
const existingNow: Entry[] = [];
const existing = perState((st: RowanState): Entry[] => {
  // One list, filled again for each state (read only by the invariants of that state),
  // written by index and cut to length at the end: emptying it first (length 0) would
  // give its storage back and every state would grow it again.
  const out = existingNow;
  let n = 0;
  const members = curCfg(st).members;
  for (let i = 0; i < st.srv.length; i++) {
    const s = st.srv[i];
    if (s.up && members.includes(i)) for (const { e } of keptPmEntries(s, st)) out[n++] = e;
  }
  for (const q of st.ch) for (const m of q) if (m.e.t !== 'C') out[n++] = m.e;
  out.length = n;
  return out;
});

/**
 * I5's check of one entry against those seen before in the same state (`seen`, emptied per
 * state): the entry first seen with each (shard, version) is the one the others must match.
 * A plain list: a state holds a few dozen entries at most. Its first `seenN` are this
 * state's (not emptied: that would give its storage back, as for `existing`).
 */
const seen: Entry[] = [];
let seenN = 0;
function sameId(e: Entry): string | undefined {
  for (let j = 0; j < seenN; j++) {
    const other = seen[j];
    if (other.sh !== e.sh || other.v !== e.v) continue;
    if (other.t !== e.t || other.k !== e.k || other.x !== e.x) return `version ${e.v} of shard ${e.sh} names both ${what(other)} and ${what(e)}`;
    return undefined;
  }
  seen[seenN++] = e;
  return undefined;
}
const what = (e: Entry) => `${e.t} k${e.k}=${e.x}`;

/**
 * What the checks of one built machine share: the context, the keys of each shard (looked
 * up once: keysOf asks a weak map), the serving (server, shard) pairs of the last state
 * asked, and I11's and I15's verdicts per server. A class, as Cx is (context.ts); the checks
 * are functions made once for every configuration that take it first, so that each is
 * compiled once, not once per configuration (as the steps, context.ts `bound`).
 */
class Checks {
  readonly conf: RowanConfig;
  readonly mut: Flags<Variant>;
  readonly shards: number[];
  readonly keysAt: (readonly number[])[];
  readonly i11 = new ServerVerdicts(i11, (a, b) => a.up === b.up && a.cold === b.cold && a.idx === b.idx && a.tomb === b.tomb && a.segs === b.segs);
  readonly i15 = new ServerVerdicts(i15);
  /**
   * The (server, shard) pairs where a server serves, in shard order then server order: a
   * list per set of pairs (bit sh·servers + i), made once and handed out again.
   */
  private readonly servingLists: ({ i: number; sh: number }[] | undefined)[] = [];
  private servingOf: RowanState | undefined = undefined;
  private serving: { i: number; sh: number }[] = [];

  constructor(cx: Cx) {
    this.conf = cx.conf;
    this.mut = cx.mut;
    this.shards = cx.shards;
    this.keysAt = mapped(cx.shards, (sh) => keysOf(cx.conf, sh));
  }

  /** The serving pairs of st (computed once per state: the checks of a state run one after another). */
  servingAt(st: RowanState): { i: number; sh: number }[] {
    if (st !== this.servingOf) {
      this.serving = this.pairs(st);
      this.servingOf = st;
    }
    return this.serving;
  }

  private pairs(st: RowanState): { i: number; sh: number }[] {
    const { shards, mut } = this;
    const n = st.srv.length;
    if (shards.length * n > 30) {
      const out: { i: number; sh: number }[] = [];
      for (const sh of shards) for (let i = 0; i < n; i++) if (serves(st, i, sh, mut)) out.push({ i, sh });
      return out;
    }
    let set = 0;
    for (const sh of shards) for (let i = 0; i < n; i++) if (serves(st, i, sh, mut)) set |= 1 << (sh * n + i);
    let out = this.servingLists[set];
    if (out === undefined) {
      out = this.servingLists[set] = [];
      for (const sh of shards) for (let i = 0; i < n; i++) if (set & (1 << (sh * n + i))) out.push({ i, sh });
    }
    return out;
  }
}

// I11 at backup b: reads only the server (up, cold, idx, tomb, segs) and its cached configuration
function i11(ck: Checks, st: RowanState, b: number): Check {
  const s = st.srv[b];
  if (!s.up || s.cold) return true;
  const cfg = cfgOf(st, b);
  for (const sh of ck.shards) {
    if (!cfg.dist[sh].bs.includes(b)) continue;
    for (const k of ck.keysAt[sh]) {
      const it = s.idx[k];
      if (!it) continue;
      if (it.v < s.tomb[k]) return `backup ${b} indexes k${k}@v${it.v}, but it reclaimed the tombstone v${s.tomb[k]} of k${k}: a deleted key came back`;
      // a cold-start rebuild also reads undigested segments: the item must be a real
      // entry and no older than anything digested
      let max = 0;
      let real = false;
      for (const { e, seg, i } of keptPmEntries(s, st)) {
        if (e.sh !== sh || e.k !== k) continue;
        if (digested(seg, i)) max = Math.max(max, e.v);
        if (e.v === it.v) real = true;
      }
      // M23's readers index checksum-valid bytes beyond a recycled segment's tail: real
      // bytes in PM, though outside the slots written in the segment's current life
      if (!real) {
        const [sid, slot] = pair(it.loc);
        if (s.segs.find((g) => g.id === sid)?.old?.[slot]?.v === it.v) real = true;
      }
      if (it.v < max || !real) return `backup ${b} indexes k${k}@v${it.v}, newest digested is v${max}`;
    }
  }
  return true;
}
// I15 at server i: reads only the server and its cached configuration (serves() too)
function i15(ck: Checks, st: RowanState, i: number): Check {
  const s = st.srv[i];
  if (!s.up || s.cold || s.promo) return true;
  for (const sh of ck.shards) {
    const primary = serves(st, i, sh, ck.mut);
    const backup = cfgOf(st, i).dist[sh].bs.includes(i);
    if (!primary && !backup) continue;
    for (const k of ck.keysAt[sh]) {
      let del = 0;
      for (const { e, seg, i } of keptPmEntries(s, st)) {
        if (e.sh !== sh || e.k !== k || e.t !== 'D') continue;
        const applied = primary ? e.v <= s.done[k] : digested(seg, i);
        if (applied) del = Math.max(del, e.v);
      }
      const it = s.idx[k];
      if (del && (!it || it.v < del)) return `server ${i} applied DEL k${k}@v${del} but indexes ${it ? `v${it.v}` : 'nothing'}`;
    }
  }
  return true;
}
const bad = (prefix: string) => (_v: Checks, st: RowanState): Check => (st.bad.startsWith(prefix) ? st.bad : true);

const checks: Record<string, (ck: Checks, st: RowanState) => Check> = {
  // I1 (C1, L219): an acked write is durable on every caught-up replica
  I1: (ck, st) => {
    for (const w of st.acked)
      for (const r of caughtUp(st, w.sh))
        if (!holds(st, r, w.sh, w.k, w.v)) return `acked write k${w.k}@v${w.v} is not in the PM of replica ${r}`;
    return true;
  },
  // I2: whatever a serving primary makes visible is durable on every caught-up replica
  I2: (ck, st) => {
    for (const { i, sh } of ck.servingAt(st))
      for (const k of ck.keysAt[sh]) {
        const it = st.srv[i].idx[k];
        if (!it) continue;
        for (const r of caughtUp(st, sh))
          if (!holds(st, r, sh, k, it.v)) return `primary ${i} shows k${k}@v${it.v}, not in the PM of replica ${r}`;
      }
    return true;
  },
  // I3 (C4, L353): the primary's index holds the largest version that completed there
  I3: (ck, st) => {
    for (const { i, sh } of ck.servingAt(st)) {
      if (st.srv[i].promo) continue;
      for (const k of ck.keysAt[sh]) {
        const v = st.srv[i].idx[k]?.v ?? 0;
        if (v !== st.srv[i].done[k]) return `primary ${i} indexes k${k}@v${v}, but v${st.srv[i].done[k]} completed`;
      }
    }
    return true;
  },
  I4: bad('I4'),
  // I5 (L264): (shard, version) identifies one entry
  I5: (ck, st) => {
    seenN = 0;
    let bad: string | undefined;
    for (const e of existing(st)) if ((bad = sameId(e))) return bad;
    const members = curCfg(st).members;
    for (let i = 0; i < st.srv.length; i++) {
      if (!members.includes(i)) continue;
      const s = st.srv[i];
      for (const x of s.ctx) if ((bad = sameId(x.e))) return bad;
      if (s.promo) for (const e of s.promo.U) if ((bad = sameId(e))) return bad;
    }
    return true;
  },
  // I6 (L296, L319): a serving primary's shard version dominates every version in existence
  I6: (ck, st) => {
    const ex = existing(st);
    for (const { i, sh } of ck.servingAt(st)) {
      const max = ex.reduce((m, e) => (e.sh === sh ? Math.max(m, e.v) : m), 0);
      if (st.srv[i].shardVersion[sh] < max) return `primary ${i} has shard version ${st.srv[i].shardVersion[sh]} < v${max} in existence`;
    }
    return true;
  },
  // I7 (L243, L247): every entry of a committed segment is on every caught-up replica
  I7: (ck, st) => {
    for (let i = 0; i < st.srv.length; i++) {
      const s = st.srv[i];
      if (!s.up) continue;
      for (const g of s.segs) {
        if (g.st !== 'committed') continue;
        for (const e of g.es) {
          // a slot whose DMA is outstanding holds no entry yet
          if (e.t === 'C' || e.np === 2) continue;
          for (const r of caughtUp(st, e.sh))
            if (!holds(st, r, e.sh, e.k, e.v)) return `committed segment ${g.id} of ${i} holds k${e.k}@v${e.v}, missing at replica ${r}`;
        }
      }
    }
    return true;
  },
  // I8 (L280): every version <= CommitVer (primary) or CommitVerArray (backup) is on every replica
  I8: (ck, st) => {
    const ex = existing(st);
    for (let i = 0; i < st.srv.length; i++) {
      const s = st.srv[i];
      if (!s.up) continue;
      for (const sh of ck.shards) {
        const c = Math.max(s.commitVer[sh], s.commitVerArray[sh]);
        for (const e of ex) {
          if (e.sh !== sh || e.v > c) continue;
          for (const r of caughtUp(st, sh))
            if (!holds(st, r, sh, e.k, e.v)) return `server ${i} has CommitVer ${c} but v${e.v} is not at replica ${r}`;
        }
      }
    }
    return true;
  },
  // I9 (C2, L296): after a promotion, the replicas agree on the newest entry of every key
  I9: (ck, st) => {
    for (const { i, sh } of ck.servingAt(st)) {
      const pv = st.srv[i].promoVer[sh];
      if (pv < 0) continue;
      const group = [i, ...cfgOf(st, i).dist[sh].bs].filter((r) => caughtUp(st, sh).includes(r));
      if (!group.length) continue;
      for (const k of ck.keysAt[sh]) {
        const top = newestUpTo(st, group[0], sh, k, pv);
        if (group.some((r) => newestUpTo(st, r, sh, k, pv) !== top))
          return `after promotion of ${i}, replicas ${group} hold k${k} up to versions ${group.map((r) => newestUpTo(st, r, sh, k, pv))}`;
      }
    }
    return true;
  },
  // I10 (L296): the promoted primary's index covers every entry the surviving replicas hold
  I10: (ck, st) => {
    for (const { i, sh } of ck.servingAt(st)) {
      const pv = st.srv[i].promoVer[sh];
      const s = st.srv[i];
      if (s.promo && s.promo.sh === sh) return `primary ${i} serves shard ${sh} before its promotion finished`;
      if (pv < 0) continue;
      for (const k of ck.keysAt[sh]) {
        let want = 0;
        for (const r of caughtUp(st, sh)) want = Math.max(want, newestUpTo(st, r, sh, k, pv));
        if ((s.idx[k]?.v ?? 0) < want) return `promoted primary ${i} indexes k${k}@v${s.idx[k]?.v ?? 0} but replicas hold v${want}`;
      }
    }
    return true;
  },
  // I11 (L353): a backup's index item is the newest entry it has digested
  I11: (ck, st) => {
    for (let b = 0; b < st.srv.length; b++) {
      const verdict = ck.i11.of(ck, st, b);
      if (verdict !== true) return verdict;
    }
    return true;
  },
  // I12 (C3, L294, L308): at most one server serves a shard
  I12: (ck, st) => {
    for (const sh of ck.shards) {
      let n = 0;
      for (let i = 0; i < st.srv.length; i++) if (serves(st, i, sh, ck.mut)) n++;
      if (n > 1) return `servers ${st.srv.flatMap((_s, i) => (serves(st, i, sh, ck.mut) ? [i] : []))} all serve shard ${sh}`;
    }
    return true;
  },
  I13: bad('I13'),
  I14: bad('I14'),
  // I15 (§2.4 [I]): an applied DEL leaves a tombstone or a newer version, never an absent key
  I15: (ck, st) => {
    for (let i = 0; i < st.srv.length; i++) {
      const verdict = ck.i15.of(ck, st, i);
      if (verdict !== true) return verdict;
    }
    return true;
  },
  // I16 (L319): after a cold start, the primary's index covers every acked write
  I16: (ck, st) => {
    if (st.cm.pf || !ck.conf.powerFail) return true;
    for (const { i, sh } of ck.servingAt(st))
      for (const w of st.acked)
        if (w.sh === sh && (st.srv[i].idx[w.k]?.v ?? 0) < w.v) return `after cold start primary ${i} lost acked k${w.k}@v${w.v}`;
    return true;
  },
  // H2 (§4.3) on states: a serving primary's GET sees a version at least as new as every acked write
  H2: (ck, st) => {
    for (const { i, sh } of ck.servingAt(st))
      for (const w of st.acked) {
        if (w.sh !== sh) continue;
        const g = getAt(st, ck.conf, i, w.k, ck.mut);
        if (g.ok && (g.item?.v ?? 0) < w.v) return `serving primary ${i} would answer k${w.k} from v${g.item?.v ?? 0}, acked v${w.v}`;
      }
    return true;
  },
};

/** The checks of one built machine: each shared function given the machine's Checks. */
export function invariants(cx: Cx): Record<string, Inv> {
  const ck = new Checks(cx);
  const out: Record<string, Inv> = {};
  for (const [name, check] of Object.entries(checks)) out[name] = check.bind(undefined, ck);
  return out;
}
