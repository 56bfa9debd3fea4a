// What every step of one built machine shares: the config, the variant flags, the facts
// derived from them once, and the extraction's §3.0 primitives (timestamp order, Obsolete,
// RDLock snatching and release, glb updates) and the effects several steps perform (send,
// persist, install, respond). A variant flag is tested where the paper's rule it breaks is.

import { send as bagSend } from '../kit/network.ts';
import type { Flags } from '../kit/variants.ts';
import type { Variant } from './mutants.ts';
import { KEY, MSG, NODE, NONE, NO_ITEMS, bgOf, clOf, coOf, ghostOf, mkMsg, maxNvm, netOf, nvmOf, showTS, ver, type Coord, type MinosConfig, type MsgType, type Rec, type State } from './state.ts';

/** A write of the config: its client, key and scope. */
export interface WriteDef {
  c: number;
  k: number;
  sc: number;
}

export interface Cx {
  cfg: MinosConfig;
  mut: Flags<Variant>;
  /** The variant's name (the properties it adds: Table I's worded forms, RENF-REPLICA). */
  variant: string | undefined;
  /** Every write of the scripts; writeOf[c][op index] = its write id (-1: not a write). */
  writes: WriteDef[];
  writeOf: number[][];
  scopes: number;
  model: MinosConfig['model'];
  /** MINOS-O. */
  O: boolean;
  N: number;
  /** Followers of node n as a bit mask (every other node). */
  others(n: number): number;
  /** Models whose handleObsolete includes PersistencySpin (Step a/h, [L164]). */
  pspin: boolean;
  nodeOf(c: number): number;
  // §3.0 primitives
  lt(a: number, b: number): boolean;
  glb(cur: number, ts: number): number;
  cur(r: Rec): number;
  obsolete(r: Rec, ts: number): boolean;
  snatch(r: Rec, ts: number): number;
  releaseIfOwner(r: Rec, ts: number): void;
  drained(r: Rec, ts: number): boolean;
  /** A sender set is complete (every other node). */
  full(mask: number, n: number): boolean;
  msgName(t: MsgType): string;
}

export function context(cfg: MinosConfig, mut: Flags<Variant>, variant: string | undefined): Cx {
  return new Context(cfg, mut, variant);
}

/**
 * The primitives as methods of one class rather than closures made per machine: every
 * config's steps then call the same functions, which the engine's compiled code can keep
 * (closures made afresh for each config deoptimized every caller at each new config).
 */
class Context implements Cx {
  readonly writes: WriteDef[] = [];
  readonly writeOf: number[][];
  scopes = 0;
  readonly model: MinosConfig['model'];
  readonly O: boolean;
  readonly N: number;
  readonly pspin: boolean;
  /** Every node as a bit mask. */
  private readonly all: number;

  constructor(
    readonly cfg: MinosConfig,
    readonly mut: Flags<Variant>,
    readonly variant: string | undefined,
  ) {
    this.writeOf = cfg.clients.map((cl, c) =>
      cl.ops.map((op) => {
        this.scopes = Math.max(this.scopes, op.sc ?? 0);
        if (op.f !== 'write') return -1;
        this.writes.push({ c, k: op.key ?? 0, sc: op.sc ?? 0 });
        return this.writes.length - 1;
      }),
    );
    this.all = (1 << cfg.nodes) - 1;
    this.O = cfg.offload === true;
    this.N = cfg.nodes;
    this.model = cfg.model;
    this.pspin = cfg.model === 'Synch' || cfg.model === 'Strict' || cfg.model === 'REnf';
  }

  others(n: number): number {
    return this.all & ~(1 << n);
  }

  nodeOf(c: number): number {
    return this.cfg.clients[c].node;
  }

  /** Older-than [L104]; M17 drops the node-id tie-break (equal versions: not older). */
  lt(a: number, b: number): boolean {
    return this.mut.M17 ? ver(a) < ver(b) : a < b;
  }

  private newer(a: number, b: number): number {
    return this.lt(a, b) ? b : a;
  }

  /** glb updates are max(current, TS_WR) (§3.0, AMBIGUOUS); M19 assigns plainly. */
  glb(c: number, ts: number): number {
    return this.mut.M19 ? ts : this.newer(c, ts);
  }

  /**
   * The version Obsolete() compares with: volatileTS, or in MINOS-O the newest of the LLC
   * and the vFIFO (§5, recommended reading).
   */
  cur(r: Rec): number {
    if (!this.O) return r.vts;
    let m = NONE;
    for (let i = 0; i < r.vq.length; i += 2) if (r.vq[i] > m) m = r.vq[i];
    return this.newer(r.vts, m);
  }

  /** Obsolete [L116]: strictly older; M5 compares with glb_volatileTS. */
  obsolete(r: Rec, ts: number): boolean {
    return this.lt(ts, this.mut.M5 ? r.gv : this.cur(r));
  }

  /** Snatch RDLock [L124]: (i) grab a free lock, (ii) snatch from an older owner, (iii) else continue. */
  snatch(r: Rec, ts: number): number {
    if (r.rd === NONE) return ts;
    if (this.lt(r.rd, ts)) return this.mut.M8 ? r.rd : ts; // M8: an older owner keeps the lock
    return r.rd;
  }

  /** Only the owner releases [L96]; M9 releases whoever owns it. */
  releaseIfOwner(r: Rec, ts: number): void {
    if (r.rd === ts || (this.mut.M9 && r.rd !== NONE)) r.rd = NONE;
  }

  drained(r: Rec, ts: number): boolean {
    if (!this.O || this.mut.M25) return true; // M25: release before the vFIFO drains
    for (let i = 0; i < r.vq.length; i += 2) if (r.vq[i] === ts) return false;
    return true;
  }

  full(mask: number, n: number): boolean {
    return this.mut.M28 ? mask >= this.N - 1 : mask === this.others(n);
  }

  msgName(t: MsgType): string {
    return this.cfg.model === 'Scope' ? `[${MSG[t]}]sc` : MSG[t];
  }
}

// --- effects shared by several steps ------------------------------------------------------

export function send(d: State, t: MsgType, from: number, to: number, k: number, ts: number, v = 0, sc = 0, items: readonly number[] = NO_ITEMS): void {
  bagSend(netOf(d), mkMsg(t, k, ts, from, to, v, sc, items));
}

/** One message to every other node (a broadcast is one step: the crash is full-system). */
export function broadcast(cx: Cx, d: State, t: MsgType, from: number, k: number, ts: number, v = 0, sc = 0, items: readonly number[] = NO_ITEMS): void {
  for (let m = 0; m < cx.N; m++) if (m !== from) send(d, t, from, m, k, ts, v, sc, items);
}

/** Appends (key, ts, val) to node n's NVM log: a new log, its triples kept sorted (an entry already there is not repeated). */
export function persistNvm(d: State, n: number, k: number, ts: number, v: number): void {
  const log = d.nvm[n];
  let i = 0;
  for (; i < log.length; i += 3) {
    const c = log[i] - k || log[i + 1] - ts || log[i + 2] - v;
    if (c === 0) return;
    if (c > 0) break;
  }
  const next = log.slice(0, i);
  next.push(k, ts, v);
  for (let j = i; j < log.length; j++) next.push(log[j]);
  nvmOf(d)[n] = next;
}

/** Step d in the background (REnf, Event, Scope; Event/Scope followers' Line 39). */
export function backgroundPersist(cx: Cx, d: State, n: number, k: number, ts: number, v: number, sc: number): void {
  if (cx.mut.M27 && cx.model === 'Event') return; // M27: the background persist is never scheduled
  bgOf(d).push([n, k, ts, v, sc]);
}

/** Records I11's breach (an install only raises volatileTS), the first one. */
export function checkI11(d: State, n: number, ts: number, r: Rec): void {
  if (!(ts > r.vts) && !d.g.i11) ghostOf(d).i11 = i11Message(n, ts, r.vts);
}
export const i11Message = (n: number, ts: number, vts: number): string => `I11: ${NODE[n]} installs ${showTS(ts)} over volatileTS ${showTS(vts)}`;

/** The local-write (Line 12 / 34): LLC and volatileTS under WRLock, or the vFIFO in MINOS-O. */
export function install(cx: Cx, d: State, n: number, k: number, ts: number, v: number): void {
  const r = d.rec[n][k];
  if (cx.O) {
    r.vq = [...r.vq, ts, v];
    return;
  }
  checkI11(d, n, ts, r);
  r.val = v;
  r.vts = ts;
}

/** The largest tag of an operation on k completed so far (H-Lin-TS). */
export function maxDone(cx: Cx, s: State, k: number): number {
  let m = s.g.readMax[k];
  for (let w = 0; w < cx.writes.length; w++) if (cx.writes[w].k === k && s.g.wst[w] === 2 && s.g.wts[w] > m) m = s.g.wts[w];
  return m;
}

/** The TS_WR of the write that wrote val (v0: <0,A>). */
export const tagOf = (s: State, val: number): number => (val === 0 ? 0 : s.g.wts[val - 1]);

/** The client-write returns: the H-Lin-TS check (a write's tag exceeds every tag completed before its invocation). */
export function respond(d: State, c: number, th: Coord): void {
  if (th.resp) return;
  th.resp = true;
  clOf(d)[c]++;
  if (th.kind !== 'write') return;
  const g = ghostOf(d);
  g.wst[th.w] = 2;
  if (!(th.ts > th.low) && !g.lin) {
    g.lin = linWriteMessage(th.w, c, th.ts, th.low);
  }
}
export const linWriteMessage = (w: number, c: number, ts: number, low: number): string =>
  `H-Lin-TS: write ${w + 1} by c${c} returned with TS ${showTS(ts)}, not above ${showTS(low)} of an operation completed before it was invoked`;

export function finish(d: State, c: number): void {
  coOf(d)[c] = null;
}

/** A read returns: H-Lin-TS (its tag is at least every tag completed before its invocation, `low`). */
export function readValue(cx: Cx, d: State, c: number, k: number, low: number): void {
  const val = d.rec[cx.nodeOf(c)][k].val;
  const tag = tagOf(d, val);
  if (tag < low && !d.g.lin) ghostOf(d).lin = linReadMessage(c, k, val, tag, low);
  if (tag > d.g.readMax[k]) ghostOf(d).readMax[k] = tag;
  clOf(d)[c]++;
}

export const linReadMessage = (c: number, k: number, val: number, tag: number, low: number): string =>
  `H-Lin-TS: c${c} read ${KEY[k]} = v${val} (TS ${showTS(tag)}) after an operation with TS ${showTS(low)} completed`;

/** The scope's writes, for the fixed [PERSIST]sc: [key, TS] pairs whose TS is known. */
export function scopeItems(cx: Cx, s: State, sc: number): number[] {
  const items: number[] = [];
  for (let i = 0; i < cx.writes.length; i++) if (cx.writes[i].sc === sc && s.g.wts[i] !== NONE) items.push(cx.writes[i].k, s.g.wts[i]);
  return items;
}

/**
 * What a node awaits before [ACK_P]sc (or before the coordinator returns): its own background
 * persists of the scope [L168]; in the fixed protocol also a durable version >= each scope
 * write's TS, which covers writes cut short as obsolete (the S-GAP fix, §3.2).
 */
export function scopeDurableHere(cx: Cx, s: State, n: number, sc: number, items: readonly number[]): boolean {
  for (let i = 0; i < s.bg.length; i++) if (s.bg[i][0] === n && s.bg[i][4] === sc) return false;
  if (cx.mut['S-GAP']) return true;
  for (let i = 0; i < items.length; i += 2) if (maxNvm(s, n, items[i]) < items[i + 1]) return false;
  return true;
}

