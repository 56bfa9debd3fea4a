// The properties of the extraction's §4: invariants I1-I12 (§4.2), the per-model
// durability predicates D-ack / D-read / D-scope (§4.3), the post-crash durability floor
// (§4.4), H-Lin-TS (linearizability in TS order, checked as each operation returns), a
// bounded form of Event's "eventually durable everywhere", and the paper's Table I
// (§4.1) in its corrected forms; the literal forms are added by the `T..-literal` variants
// (mutants.ts). Volatile-protocol properties speak of the run before the crash: each
// begins `if (s.crashed) return true`.

import type { Check } from '../../checkers/explore/types.ts';
import { tagOf, type Cx } from './context.ts';
import { ACK, ACK_C, ACK_P, INV, KEY, MSG, NODE, NONE, PERSIST, VAL, VAL_C, VAL_P, maxNvm, showTS, TSN, type Coord, type Msg, type MsgType, type Rec, type State } from './state.ts';

type Inv = (s: State) => Check;

const MSGS: Record<string, MsgType[]> = {
  Synch: [INV, ACK, VAL],
  Strict: [INV, ACK_C, ACK_P, VAL_C, VAL_P],
  REnf: [INV, ACK_C, ACK_P, VAL],
  Event: [INV, ACK_C, VAL_C],
  Scope: [INV, ACK_C, VAL_C, PERSIST, ACK_P, VAL_P],
};
/** Messages that carry persistency information, per model (for the corrected 3a). */
const P_MSGS: Record<string, MsgType[]> = {
  Synch: [ACK, VAL],
  Strict: [ACK_P, VAL_P],
  REnf: [ACK_P, VAL],
  Event: [],
  Scope: [PERSIST, ACK_P, VAL_P],
};

/** The value of the last NVM entry of (k, ts) before entry i of log n, logs in node order (undefined: none). */
function lastBefore(nvm: readonly (readonly number[])[], n: number, i: number, k: number, ts: number): number | undefined {
  let v: number | undefined;
  for (let p = 0; p <= n; p++) {
    const log = nvm[p];
    const end = p === n ? i : log.length;
    for (let j = 0; j < end; j += 3) if (log[j] === k && log[j + 1] === ts) v = log[j + 2];
  }
  return v;
}

/**
 * The properties' messages (the plain machine's below and synch-words.ts's): timestamps,
 * keys and nodes as the paper writes them.
 */
export const invariantMessages = {
  I1: (k: number, ts: number, va: number, n: number, vb: number, p: number) => `${KEY[k]} has version ${showTS(ts)} with v${va} at ${NODE[n]} but v${vb} at ${NODE[p]}`,
  I1nvm: (v: number, v2: number, k: number, ts: number) => `NVM logs hold v${v} and v${v2} for ${KEY[k]} ${showTS(ts)}`,
  I1unique: (a: number, b: number, ts: number) => `writes v${a + 1} and v${b + 1} were both issued TS_WR ${showTS(ts)}`,
  I3gd: (gd: number, gv: number, k: number, n: number) => `glb_durableTS ${showTS(gd)} > glb_volatileTS ${showTS(gv)} of ${KEY[k]} at ${NODE[n]}`,
  I3gv: (gv: number, v: number, k: number, n: number) => `glb_volatileTS ${showTS(gv)} > volatileTS ${showTS(v)} of ${KEY[k]} at ${NODE[n]}`,
  I3nvm: (n: number, t: number, v: number, k: number) => `NVM of ${NODE[n]} holds ${showTS(t)} > volatileTS ${showTS(v)} of ${KEY[k]}`,
  I4: (gv: number, k: number, n: number, v: number, p: number) => `glb_volatileTS ${showTS(gv)} of ${KEY[k]} at ${NODE[n]} is ahead of volatileTS ${showTS(v)} at ${NODE[p]}`,
  I5: (t: number, k: number, n: number, some: boolean) => `glb_durableTS ${showTS(t)} of ${KEY[k]} at ${NODE[n]} but it is not durable at ${some ? 'any node' : 'every node'}`,
  I6: (k: number, n: number, vts: number, gv: number) => `${KEY[k]} at ${NODE[n]} is read-unlocked with volatileTS ${showTS(vts)} but glb_volatileTS ${showTS(gv)}`,
  I7: (k: number, n: number, vts: number, gd: number) => `${KEY[k]} at ${NODE[n]} is read-unlocked with volatileTS ${showTS(vts)} but glb_durableTS ${showTS(gd)}`,
  I8: (n: number, k: number, ts: number, allAckC: boolean) => `${NODE[n]} shows ${KEY[k]} ${showTS(ts)} read-unlocked before its coordinator has all ${allAckC ? 'persistency' : 'consistency'} ACKs`,
  I9: (k: number, n: number, t: number) => `RDLock of ${KEY[k]} at ${NODE[n]} is owned by ${showTS(t)}, which has no thread left to release it`,
  I10: (w: number, ts: number, n: number, k: number, v: number) => `write v${w + 1} ${showTS(ts)} returned to its client but ${NODE[n]} has ${KEY[k]} at ${showTS(v)}`,
  I12msg: (t: number, ts: number) => `message ${MSG[t]} carries TS ${showTS(ts)} out of range`,
  I12ts: (k: number, n: number, bad: number) => `${KEY[k]} at ${NODE[n]} has a TS ${showTS(bad)} out of range`,
  I12rd: (k: number, n: number, rd: number) => `RDLock of ${KEY[k]} at ${NODE[n]} is ${showTS(rd)}, out of range`,
  I12wr: (k: number, n: number, wr: number) => `WRLock of ${KEY[k]} at ${NODE[n]} is ${wr}`,
  I12acks: (c: number) => `ACK sender sets of c${c} include a node outside Nodes \\ {self}`,
  Dack: (k: number, t: number) => `a write of ${KEY[k]} with TS ${showTS(t)} returned to its client but is not durable at every node`,
  Dread: (k: number, t: number, all: boolean) => `a read returned ${KEY[k]} ${showTS(t)}, not durable at ${all ? 'every' : 'any'} node`,
  EventuallyDurableAll: (k: number, t: number) => `all done, but ${KEY[k]} ${showTS(t)} is not durable at every node`,
  T2a: (k: number, vts: string, gv: string) => `${KEY[k]} is read-unlocked everywhere with volatileTS ${vts}, glb_volatileTS ${gv}`,
  T2b: (ts: number, p: number, vts: number) => `all ACK_Cs for ${showTS(ts)} but ${NODE[p]} has volatileTS ${showTS(vts)}`,
  T2c: (ts: number, p: number) => `not all ACK_Cs for ${showTS(ts)} but glb_volatileTS at ${NODE[p]} is already it`,
  T3a: (k: number, gd: string) => `${KEY[k]} read-unlocked everywhere, no persistency message in flight, glb_durableTS ${gd}`,
  T3b: (ts: number, p: number) => `not all ACK_Ps for ${showTS(ts)} but glb_durableTS at ${NODE[p]} is already it`,
};
const say = invariantMessages;

export function invariants(cx: Cx): Record<string, Inv> {
  const { cfg, writes, mut } = cx;
  const model = cfg.model;
  const N = cfg.nodes;
  const K = cfg.keys;
  const maxVers = writes.length + 1;
  const inv: Record<string, Inv> = Object.create(null);
  const nodes = Array.from({ length: N }, (_, n) => n);
  const unlocked = (s: State, n: number, k: number) => s.rec[n][k].rd === NONE;
  const allUnlocked = (s: State, k: number) => {
    for (let n = 0; n < N; n++) if (!unlocked(s, n, k)) return false;
    return true;
  };
  const same = (s: State, k: number, f: 'vts' | 'gv' | 'gd') => {
    for (let n = 1; n < N; n++) if (s.rec[n][k][f] !== s.rec[0][k][f]) return false;
    return true;
  };
  const list = (s: State, k: number, f: 'vts' | 'gv' | 'gd') => nodes.map((n) => `${NODE[n]}:${showTS(s.rec[n][k][f])}`).join(' ');
  /**
   * Coordinator write threads that have sent their INVs (`sentTh`), with the node each runs
   * on (`sentAt`); returns how many. They are read from the thread list alone, which a step
   * that changes a thread replaces (state.ts `copy`): several invariants ask in turn, and
   * successive states share it, so the last list's are kept.
   */
  let sentOf: readonly (Coord | null)[] | null = null;
  let sentCount = 0;
  const sentTh: Coord[] = [];
  const sentAt: number[] = [];
  const sentWrites = (s: State): number => {
    if (s.co === sentOf) return sentCount;
    sentCount = 0;
    for (let c = 0; c < s.co.length; c++) {
      const th = s.co[c];
      if (th !== null && th.kind === 'write' && th.sent) {
        sentTh[sentCount] = th;
        sentAt[sentCount++] = cx.nodeOf(c);
      }
    }
    sentOf = s.co;
    return sentCount;
  };
  /**
   * Per key, the lowest and the highest of the nodes' durable versions (maxNvm): durable at
   * every node / at some node. NVM logs are replaced, never changed, and a step that
   * persists nothing shares them: the last logs' figures are kept.
   */
  let durableOf: readonly (readonly number[])[] | null = null;
  const lowest = Array<number>(K).fill(0);
  const highest = Array<number>(K).fill(0);
  const durable = (s: State): void => {
    if (s.nvm === durableOf) return;
    for (let k = 0; k < K; k++) {
      let lo = Infinity;
      let hi = -Infinity;
      for (let n = 0; n < s.nvm.length; n++) {
        const t = maxNvm(s, n, k);
        if (t < lo) lo = t;
        if (t > hi) hi = t;
      }
      lowest[k] = lo;
      highest[k] = hi;
    }
    durableOf = s.nvm;
  };
  const durableAll = (s: State, k: number, t: number): boolean => {
    durable(s);
    return lowest[k] >= t;
  };
  const durableSome = (s: State, k: number, t: number): boolean => {
    durable(s);
    return highest[k] >= t;
  };
  const allAckC = (th: { ack: number }, n: number) => th.ack === cx.others(n);
  const allAckP = (th: { ack: number; ackP: number }, n: number) =>
    model === 'Synch' ? th.ack === cx.others(n) : th.ackP === cx.others(n);
  const hasPAcks = model === 'Synch' || model === 'Strict' || model === 'REnf';
  const ackedMax = (s: State, k: number) => {
    let t = 0;
    for (let i = 0; i < writes.length; i++) if (writes[i].k === k && s.g.wst[i] === 2 && s.g.wts[i] > t) t = s.g.wts[i];
    return t;
  };

  // I1: at most one value per version, in the LLCs and in the NVM logs.
  inv.I1 = (s) => {
    for (let k = 0; k < K; k++) {
      // each pair once, n < p: the first pair of the full (n, p) order that differs has n < p
      for (let n = 0; n < N; n++) {
        for (let p = n + 1; p < N; p++) {
          const a = s.rec[n][k];
          const b = s.rec[p][k];
          if (a.vts === b.vts && a.val !== b.val) return say.I1(k, a.vts, a.val, n, b.val, p);
        }
      }
    }
    return nvmI1(s.nvm);
  };
  /**
   * I1 in the NVM logs: each entry against the last entry before it (in log order) of the
   * same key and TS. It reads only the logs, which are replaced, never changed, and shared
   * by every state that persists nothing: the last logs' verdict is kept.
   */
  let i1Of: readonly (readonly number[])[] | null = null;
  let i1: Check = true;
  const nvmI1 = (nvm: readonly (readonly number[])[]): Check => {
    if (nvm === i1Of) return i1;
    i1 = true;
    for (let n = 0; n < nvm.length && i1 === true; n++) {
      const log = nvm[n];
      for (let i = 0; i < log.length; i += 3) {
        const v = lastBefore(nvm, n, i, log[i], log[i + 1]);
        if (v !== undefined && v !== log[i + 2]) {
          i1 = say.I1nvm(v, log[i + 2], log[i], log[i + 1]);
          break;
        }
      }
    }
    i1Of = nvm;
    return i1;
  };
  // I1's ghost clause: each (key, TS) is issued by at most one write.
  inv['I1-unique-TS'] = (s) => {
    for (let a = 0; a < writes.length; a++) {
      for (let b = a + 1; b < writes.length; b++) {
        if (writes[a].k === writes[b].k && s.g.wts[a] !== NONE && s.g.wts[a] === s.g.wts[b]) {
          return say.I1unique(a, b, s.g.wts[a]);
        }
      }
    }
    return true;
  };
  inv.I2 = (s) => s.g.i2 || true;
  inv.I3 = (s) => {
    if (s.crashed) return true;
    for (let n = 0; n < N; n++) {
      for (let k = 0; k < K; k++) {
        const r = s.rec[n][k];
        const v = cx.cur(r);
        if (hasPAcks && r.gd > r.gv) return say.I3gd(r.gd, r.gv, k, n);
        if (r.gv > v) return say.I3gv(r.gv, v, k, n);
        if (maxNvm(s, n, k) > v) return say.I3nvm(n, maxNvm(s, n, k), v, k);
      }
    }
    return true;
  };
  inv.I4 = (s) => {
    if (s.crashed) return true;
    for (let k = 0; k < K; k++) {
      // some node's glb_volatileTS ahead of some node's volatileTS: the highest against the lowest
      let gv = NONE;
      let v = Infinity;
      for (let n = 0; n < N; n++) {
        const r = s.rec[n][k];
        if (r.gv > gv) gv = r.gv;
        const c = cx.cur(r);
        if (c < v) v = c;
      }
      if (v >= gv) continue;
      for (let n = 0; n < N; n++) {
        for (let p = 0; p < N; p++) {
          if (cx.cur(s.rec[p][k]) < s.rec[n][k].gv) {
            return say.I4(s.rec[n][k].gv, k, n, cx.cur(s.rec[p][k]), p);
          }
        }
      }
    }
    return true;
  };
  if (model === 'Synch' || model === 'Strict' || model === 'REnf') {
    // I5: what PersistencySpin relies on. REnf as literally written: DurableSome (§4.2).
    const some = model === 'REnf';
    inv.I5 = (s) => {
      for (let n = 0; n < N; n++) {
        for (let k = 0; k < K; k++) {
          const t = s.rec[n][k].gd;
          if (s.crashed) continue;
          if (!(some ? durableSome(s, k, t) : durableAll(s, k, t))) {
            return say.I5(t, k, n, some);
          }
        }
      }
      return true;
    };
  }
  inv.I6 = (s) => {
    if (s.crashed) return true;
    for (let n = 0; n < N; n++) {
      for (let k = 0; k < K; k++) {
        const r = s.rec[n][k];
        if (!unlocked(s, n, k)) continue;
        // MINOS-O form: entries left in the vFIFO are obsolete ones the dequeue will skip (README: the
        // extraction's "vFIFO empty" is too strong: an older write's SNIC check can pass before a newer enqueue).
        for (let i = 0; i < r.vq.length; i += 2) {
          if (r.vq[i] > r.vts) return `${KEY[k]} at ${NODE[n]} is read-unlocked with ${showTS(r.vq[i])} still in its vFIFO over volatileTS ${showTS(r.vts)}`;
        }
        if (r.gv !== r.vts) return say.I6(k, n, r.vts, r.gv);
      }
    }
    return true;
  };
  if (model === 'Synch' || model === 'REnf') {
    inv.I7 = (s) => {
      if (s.crashed) return true;
      for (let n = 0; n < N; n++) {
        for (let k = 0; k < K; k++) {
          const r = s.rec[n][k];
          if (unlocked(s, n, k) && r.gd !== r.vts) return say.I7(k, n, r.vts, r.gd);
        }
      }
      return true;
    };
  }
  inv.I8 = (s) => {
    if (s.crashed) return true;
    for (let j = 0, J = sentWrites(s); j < J; j++) {
      const th = sentTh[j];
      const c = sentAt[j];
      const hidden = !allAckC(th, c) || ((model === 'Synch' || model === 'REnf') && !allAckP(th, c));
      if (!hidden) continue;
      for (let n = 0; n < N; n++) {
        if (s.rec[n][th.k].vts === th.ts && unlocked(s, n, th.k)) {
          return say.I8(n, th.k, th.ts, allAckC(th, c));
        }
      }
    }
    return true;
  };
  const coordHolds = new Set(['snatch', 'local', 'recheck', 'install', 'persist', 'ackWait', 'cspin', 'pspin', 'drain']);
  if (model === 'REnf') coordHolds.add('ackPWait');
  const follHolds = new Set(['snatch', 'local', 'persist', 'latePersist', 'cspin', 'pspin', 'wait']);
  /** A thread on node n still holding k's RDLock for t (loops, not closures: I9 runs on every state). */
  const holder = (s: State, n: number, k: number, t: number): boolean => {
    for (let c = 0; c < s.co.length; c++) {
      const th = s.co[c];
      if (th && th.kind === 'write' && cx.nodeOf(c) === n && th.k === k && th.ts === t && th.sn && coordHolds.has(th.pc)) return true;
    }
    for (let i = 0; i < s.fo.length; i++) {
      const f = s.fo[i];
      if (f.n === n && f.kind === 'write' && f.k === k && f.ts === t && f.sn && follHolds.has(f.pc)) return true;
    }
    return false;
  };
  inv.I9 = (s) => {
    if (s.crashed) return true;
    for (let n = 0; n < N; n++) {
      for (let k = 0; k < K; k++) {
        const t = s.rec[n][k].rd;
        if (t === NONE) continue;
        const live = holder(s, n, k, t);
        if (!live) return say.I9(k, n, t);
      }
    }
    return true;
  };
  inv.I10 = (s) => {
    if (s.crashed) return true;
    for (let w = 0; w < writes.length; w++) {
      if (s.g.wst[w] !== 2) continue;
      const k = writes[w].k;
      for (let n = 0; n < N; n++) {
        if (cx.cur(s.rec[n][k]) < s.g.wts[w]) return say.I10(w, s.g.wts[w], n, k, cx.cur(s.rec[n][k]));
      }
    }
    return true;
  };
  inv.I11 = (s) => s.g.i11 || true;
  // ver(t) <= maxVers - 1 and nid(t) < N, for t >= 0, without the division
  const tsOk = (t: number) => t >= 0 && t < maxVers * TSN && t % TSN < N;
  let allowedTypes = 0;
  for (const t of MSGS[model]) allowedTypes |= 1 << t;
  /**
   * I12 of the messages in flight. The network is replaced, never changed, by a step that
   * sends or delivers (state.ts `netOf`), and the states that follow one another in the
   * search mostly share it: the last network's verdict is kept.
   */
  let netOf12: readonly Msg[] | null = null;
  let net12: Check = true;
  const netI12 = (net: readonly Msg[]): Check => {
    if (net === netOf12) return net12;
    net12 = true;
    for (let i = 0; i < net.length; i++) {
      const m = net[i];
      const t = m[0];
      const k = m[1];
      const ts = m[2];
      if (((allowedTypes >> t) & 1) === 0) {
        net12 = `message ${MSG[t]} is not one of <Lin, ${model}>'s`;
        break;
      }
      if (k >= 0 && !tsOk(ts)) {
        net12 = say.I12msg(t, ts);
        break;
      }
    }
    netOf12 = net;
    return net12;
  };
  /**
   * The records' half reads one node's row at a time and the threads' half the thread list;
   * a step shares every row and list it does not write with the state before (state.ts
   * `copy`), and rows and lists are never changed once the step is taken: the last row of
   * each node and the last thread list found in range are kept, and skipped when met again
   * (most successors change one row, or none). A row or list out of range is never kept,
   * so the first breach found, and its message, are as without the cache.
   */
  const rowsOk: (readonly Rec[] | null)[] = Array<readonly Rec[] | null>(N).fill(null);
  let coOk: readonly (Coord | null)[] | null = null;
  inv.I12 = (s) => {
    const net = netI12(s.net);
    if (net !== true) return net;
    for (let n = 0; n < N; n++) {
      const row = s.rec[n];
      if (row === rowsOk[n]) continue;
      for (let k = 0; k < K; k++) {
        const r = row[k];
        const bad = !tsOk(r.vts) ? r.vts : !tsOk(r.gv) ? r.gv : !tsOk(r.gd) ? r.gd : undefined;
        if (bad !== undefined) return say.I12ts(k, n, bad);
        if (r.rd !== NONE && !tsOk(r.rd)) return say.I12rd(k, n, r.rd);
        if (r.wr !== 0 && r.wr !== 1) return say.I12wr(k, n, r.wr);
      }
      rowsOk[n] = row;
    }
    // Under M28 the bookkeeping holds a count, not a sender set: that mutant is judged by I10.
    if (mut.M28 || s.co === coOk) return true;
    for (let c = 0; c < s.co.length; c++) {
      const th = s.co[c];
      if (!th) continue;
      const allowedSenders = cx.others(cx.nodeOf(c));
      if ((th.ack & ~allowedSenders) !== 0 || (th.ackP & ~allowedSenders) !== 0) return say.I12acks(c);
    }
    coOk = s.co;
    return true;
  };

  // §4.3 per-model durability predicates (NVM survives the crash, so they are checked throughout).
  if (model === 'Synch' || model === 'Strict') {
    inv['D-ack'] = (s) => {
      for (let k = 0; k < K; k++) {
        const t = ackedMax(s, k);
        if (!durableAll(s, k, t)) return say.Dack(k, t);
      }
      return true;
    };
  }
  if (model === 'Synch' || model === 'Strict' || model === 'REnf') {
    const all = model === 'Synch' || mut['RENF-REPLICA'];
    inv['D-read'] = (s) => {
      for (let k = 0; k < K; k++) {
        const t = s.g.readMax[k];
        if (!(all ? durableAll(s, k, t) : durableSome(s, k, t))) return say.Dread(k, t, all);
      }
      return true;
    };
  }
  const scopeFloor = (s: State, k: number) => {
    let t = 0;
    for (let i = 0; i < writes.length; i++) {
      const w = writes[i];
      if (w.k === k && w.sc > 0 && s.g.pd[w.sc] === 1 && s.g.wts[i] > t) t = s.g.wts[i];
    }
    return t;
  };
  if (model === 'Scope') {
    inv['D-scope'] = (s) => {
      for (let w = 0; w < writes.length; w++) {
        const { k, sc } = writes[w];
        if (sc > 0 && s.g.pd[sc] === 1 && !durableAll(s, k, s.g.wts[w])) {
          return `[PERSIST]sc${sc} returned but its write v${w + 1} ${showTS(s.g.wts[w])} of ${KEY[k]} is not durable at every node`;
        }
      }
      return true;
    };
  }
  // §4.4: post-crash reads return at least the model's durability floor, and only written values.
  inv.Floor = (s) => {
    for (let i = 0; i < s.pr.length; i += 3) {
      const n = s.pr[i];
      const k = s.pr[i + 1];
      const val = s.pr[i + 2];
      if (val !== 0 && s.g.wts[val - 1] === NONE) return `post-crash read at ${NODE[n]} returned v${val}, never written`;
      const t = tagOf(s, val);
      let floor = 0;
      if (model === 'Synch') floor = Math.max(ackedMax(s, k), s.g.readMax[k]);
      if (model === 'Strict') floor = ackedMax(s, k);
      if (model === 'REnf') floor = s.g.readMax[k];
      if (model === 'Scope') floor = scopeFloor(s, k);
      if (t < floor) return `post-crash read of ${KEY[k]} at ${NODE[n]} returned v${val} ${showTS(t)}, below the <Lin, ${model}> floor ${showTS(floor)}`;
    }
    return true;
  };
  inv['H-Lin-TS'] = (s) => s.g.lin || true;
  // §4.4 liveness, bounded: once nothing is left to do, every installed version is durable everywhere.
  inv['Eventually-DurableAll'] = (s) => {
    if (s.crashed || s.net.length || s.bg.length || s.fo.length) return true;
    for (let c = 0; c < s.co.length; c++) if (s.co[c] || s.cl[c] < cfg.clients[c].ops.length) return true;
    for (let k = 0; k < K; k++) {
      let t = -Infinity;
      for (let n = 0; n < N; n++) if (s.rec[n][k].vts > t) t = s.rec[n][k].vts;
      if (!durableAll(s, k, t)) return say.EventuallyDurableAll(k, t);
    }
    return true;
  };

  // Table I (§4.1). 2a holds as worded; 2b, 2c, 3b are checked in the corrected forms.
  inv.T2a = (s) => {
    if (s.crashed) return true;
    for (let k = 0; k < K; k++) {
      if (allUnlocked(s, k) && !(same(s, k, 'vts') && same(s, k, 'gv'))) {
        return say.T2a(k, list(s, k, 'vts'), list(s, k, 'gv'));
      }
    }
    return true;
  };
  inv.T2b = (s) => {
    if (s.crashed) return true;
    for (let j = 0, J = sentWrites(s); j < J; j++) {
      const th = sentTh[j];
      const n = sentAt[j];
      if (!allAckC(th, n)) continue;
      for (let p = 0; p < N; p++) if (cx.cur(s.rec[p][th.k]) < th.ts) return say.T2b(th.ts, p, s.rec[p][th.k].vts);
    }
    return true;
  };
  inv.T2c = (s) => {
    if (s.crashed) return true;
    for (let j = 0, J = sentWrites(s); j < J; j++) {
      const th = sentTh[j];
      const n = sentAt[j];
      if (allAckC(th, n)) continue;
      for (let p = 0; p < N; p++) if (s.rec[p][th.k].gv === th.ts) return say.T2c(th.ts, p);
    }
    return true;
  };
  let pMsgs = 0;
  for (const t of P_MSGS[model]) pMsgs |= 1 << t;
  /** No persistency message about k (or a scope's) in flight. */
  const quietFor = (s: State, k: number): boolean => {
    for (let i = 0; i < s.net.length; i++) {
      const msg = s.net[i];
      if ((pMsgs >> msg[0]) & 1 && (msg[1] === k || msg[1] === -1)) return false;
    }
    return true;
  };
  inv.T3a = (s) => {
    if (s.crashed) return true;
    for (let k = 0; k < K; k++) {
      const quiet = quietFor(s, k);
      if (allUnlocked(s, k) && quiet && !same(s, k, 'gd')) return say.T3a(k, list(s, k, 'gd'));
    }
    return true;
  };
  if (hasPAcks) {
    inv.T3b = (s) => {
      if (s.crashed) return true;
      for (let j = 0, J = sentWrites(s); j < J; j++) {
        const th = sentTh[j];
        const n = sentAt[j];
        if (allAckP(th, n)) continue;
        for (let p = 0; p < N; p++) if (s.rec[p][th.k].gd === th.ts) return say.T3b(th.ts, p);
      }
      return true;
    };
  }
  if (mut['T2b-literal']) {
    inv['T2b-literal'] = (s) => {
      if (s.crashed) return true;
      for (let j = 0, J = sentWrites(s); j < J; j++) {
        const th = sentTh[j];
        const n = sentAt[j];
        if (allAckC(th, n) && !same(s, th.k, 'vts')) return `all consistency ACKs for ${showTS(th.ts)}, volatileTS ${list(s, th.k, 'vts')}`;
      }
      return true;
    };
  }
  if (mut['T2c-literal']) {
    inv['T2c-literal'] = (s) => {
      if (s.crashed) return true;
      for (let j = 0, J = sentWrites(s); j < J; j++) {
        const th = sentTh[j];
        const n = sentAt[j];
        if (!allAckC(th, n) && !same(s, th.k, 'gv')) return `not all consistency ACKs for ${showTS(th.ts)}, glb_volatileTS ${list(s, th.k, 'gv')}`;
      }
      return true;
    };
  }
  if (mut['T3a-literal']) {
    inv['T3a-literal'] = (s) => {
      if (s.crashed) return true;
      for (let k = 0; k < K; k++) if (allUnlocked(s, k) && !same(s, k, 'gd')) return `${KEY[k]} read-unlocked everywhere, glb_durableTS ${list(s, k, 'gd')}`;
      return true;
    };
  }
  if (mut['T3b-literal']) {
    inv['T3b-literal'] = (s) => {
      if (s.crashed) return true;
      for (let j = 0, J = sentWrites(s); j < J; j++) {
        const th = sentTh[j];
        const n = sentAt[j];
        if (hasPAcks && !allAckP(th, n) && !same(s, th.k, 'gd')) return `not all persistency ACKs for ${showTS(th.ts)}, glb_durableTS ${list(s, th.k, 'gd')}`;
      }
      return true;
    };
  }
  return inv;
}
