// MINOS-B (and MINOS-O, §5) for <Lin, Synch|Strict|REnf|Event|Scope> as a state machine.
// Coordinator Lines 1-22 and Follower Lines 23-44 are the extraction's rebuilt Fig. 2
// (§3.1) with the per-model Steps a-m of Fig. 3 (§3.2); one action per atomic step of §7.2.
// `mutant` flags break the protocol at the step the extraction's §6 names.

import type { Action } from '../../checkers/explore/types.ts';
import {
  KEY,
  NODE,
  NONE,
  durableAll,
  maxNvm,
  mkTS,
  showTS,
  ver,
  type Coord,
  type Foll,
  type MinosConfig,
  type Msg,
  type MsgType,
  type Rec,
  type State,
} from './state.ts';

export interface MinosAction extends Action {
  f: string;
  /** client, follower-thread index, message index, bg index, or node (by f). */
  i: number;
  k: number;
}

/** Facts about a config that every part of the spec needs. */
export interface Setup {
  cfg: MinosConfig;
  mutant: string | undefined;
  /** Per write: its client, key, scope; writeOf[c][op index] = write id. */
  writes: { c: number; k: number; sc: number }[];
  writeOf: number[][];
  scopes: number;
  /** Followers of node n as a bit mask (every other node). */
  others: (n: number) => number;
  /** Models whose handleObsolete includes PersistencySpin (Step a/h, [L164]). */
  pspin: boolean;
}

export function setup(cfg: MinosConfig, mutant: string | undefined): Setup {
  const writes: Setup['writes'] = [];
  let scopes = 0;
  const writeOf = cfg.clients.map((cl, c) =>
    cl.ops.map((op) => {
      scopes = Math.max(scopes, op.sc ?? 0);
      if (op.f !== 'write') return -1;
      writes.push({ c, k: op.key ?? 0, sc: op.sc ?? 0 });
      return writes.length - 1;
    }),
  );
  const all = (1 << cfg.nodes) - 1;
  return {
    cfg,
    mutant,
    writes,
    writeOf,
    scopes,
    others: (n) => all & ~(1 << n),
    pspin: cfg.model === 'Synch' || cfg.model === 'Strict' || cfg.model === 'REnf',
  };
}

/** Copy what next() may change; objects inside are replaced, never mutated in place. */
function draft(s: State): State {
  return {
    rec: s.rec.map((r) => r.map((x) => ({ ...x }))),
    nvm: s.nvm.slice(),
    co: s.co.map((t) => (t ? { ...t } : null)),
    cl: s.cl.slice(),
    fo: s.fo.map((f) => ({ ...f })),
    net: s.net.slice(),
    bg: s.bg.slice(),
    crashed: s.crashed,
    pr: s.pr,
    g: { ...s.g, wts: s.g.wts.slice(), wst: s.g.wst.slice(), readMax: s.g.readMax.slice(), pd: s.g.pd.slice() },
  };
}

const cmpMsg = (a: Msg, b: Msg): number =>
  (a.t < b.t ? -1 : a.t > b.t ? 1 : 0) || a.k - b.k || a.ts - b.ts || a.from - b.from || a.to - b.to || a.sc - b.sc || a.dup - b.dup || a.v - b.v;
const cmpFoll = (a: Foll, b: Foll): number =>
  a.n - b.n || a.k - b.k || a.ts - b.ts || a.from - b.from || a.sc - b.sc || (a.pc < b.pc ? -1 : a.pc > b.pc ? 1 : 0) || a.v - b.v || a.tau - b.tau || +a.sn - +b.sn || a.need - b.need;
const sameMsg = (a: Msg, b: Msg): boolean => cmpMsg(a, b) === 0 && a.items.join() === b.items.join();

export function createMachine(su: Setup) {
  const { cfg, mutant, writes, writeOf } = su;
  const model = cfg.model;
  const O = cfg.offload === true;
  const N = cfg.nodes;
  const nodeOf = (c: number) => cfg.clients[c].node;

  // --- §3.0 shared primitives ---------------------------------------------------------
  // Older-than [L104]; M17 drops the node-id tie-break (equal versions: not older).
  const lt = (a: number, b: number): boolean => (mutant === 'M17' ? ver(a) < ver(b) : a < b);
  const newer = (a: number, b: number): number => (lt(a, b) ? b : a);
  // glb updates are max(current, TS_WR) (§3.0, AMBIGUOUS); M19 assigns plainly.
  const glb = (cur: number, ts: number): number => (mutant === 'M19' ? ts : newer(cur, ts));
  const qmax = (r: Rec): number => {
    let m = NONE;
    for (let i = 0; i < r.vq.length; i += 2) if (r.vq[i] > m) m = r.vq[i];
    return m;
  };
  // The version Obsolete() compares with: volatileTS, or in MINOS-O the newest of the LLC
  // and the vFIFO (§5, recommended reading).
  const cur = (r: Rec): number => (O ? newer(r.vts, qmax(r)) : r.vts);
  // Obsolete [L116]: strictly older; M5 compares with glb_volatileTS.
  const obsolete = (r: Rec, ts: number): boolean => lt(ts, mutant === 'M5' ? r.gv : cur(r));
  // Snatch RDLock [L124]: (i) grab a free lock, (ii) snatch from an older owner, (iii) else continue.
  const snatch = (r: Rec, ts: number): number => {
    if (r.rd === NONE) return ts;
    if (lt(r.rd, ts)) return mutant === 'M8' ? r.rd : ts; // M8: an older owner keeps the lock
    return r.rd;
  };
  // Only the owner releases [L96]; M9 releases whoever owns it.
  const releaseIfOwner = (r: Rec, ts: number): void => {
    if (r.rd === ts || (mutant === 'M9' && r.rd !== NONE)) r.rd = NONE;
  };
  const drained = (r: Rec, ts: number): boolean => {
    if (!O || mutant === 'M25') return true; // M25: release before the vFIFO drains
    for (let i = 0; i < r.vq.length; i += 2) if (r.vq[i] === ts) return false;
    return true;
  };
  const full = (mask: number, n: number): boolean => (mutant === 'M28' ? mask >= N - 1 : mask === su.others(n));
  const msgName = (t: MsgType): string => (model === 'Scope' ? `[${t}]sc` : t);

  // --- effects shared by several steps --------------------------------------------------
  const send = (d: State, t: MsgType, from: number, to: number, k: number, ts: number, v = 0, sc = 0, items: number[] = []) =>
    d.net.push({ t, k, ts, v, from, to, sc, dup: 0, items });
  const broadcast = (d: State, t: MsgType, from: number, k: number, ts: number, v = 0, sc = 0, items: number[] = []) => {
    for (let m = 0; m < N; m++) if (m !== from) send(d, t, from, m, k, ts, v, sc, items);
  };
  const persistNvm = (d: State, n: number, k: number, ts: number, v: number) => {
    const log = d.nvm[n];
    for (let i = 0; i < log.length; i += 3) if (log[i] === k && log[i + 1] === ts && log[i + 2] === v) return;
    const triples: number[][] = [];
    for (let i = 0; i < log.length; i += 3) triples.push([log[i], log[i + 1], log[i + 2]]);
    triples.push([k, ts, v]);
    triples.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    d.nvm[n] = triples.flat();
  };
  // Step d in the background (REnf, Event, Scope; Event/Scope followers' Line 39).
  const backgroundPersist = (d: State, n: number, k: number, ts: number, v: number, sc: number) => {
    if (mutant === 'M27' && model === 'Event') return; // M27: the background persist is never scheduled
    d.bg.push([n, k, ts, v, sc]);
  };
  // The local-write (Line 12 / 34): LLC and volatileTS under WRLock, or the vFIFO in MINOS-O.
  const install = (d: State, n: number, k: number, ts: number, v: number) => {
    const r = d.rec[n][k];
    if (O) {
      r.vq = [...r.vq, ts, v];
      return;
    }
    if (!(ts > r.vts) && !d.g.i11) d.g.i11 = `I11: ${NODE[n]} installs ${showTS(ts)} over volatileTS ${showTS(r.vts)}`;
    r.val = v;
    r.vts = ts;
  };
  const maxDone = (s: State, k: number): number => {
    let m = s.g.readMax[k];
    for (let w = 0; w < writes.length; w++) if (writes[w].k === k && s.g.wst[w] === 2 && s.g.wts[w] > m) m = s.g.wts[w];
    return m;
  };
  const tagOf = (s: State, val: number): number => (val === 0 ? 0 : s.g.wts[val - 1]);
  // The client-write returns: the H-Lin-TS check (a write's tag exceeds every tag completed before its invocation).
  const respond = (d: State, c: number, th: Coord) => {
    if (th.resp) return;
    th.resp = true;
    d.cl[c]++;
    if (th.kind !== 'write') return;
    d.g.wst[th.w] = 2;
    if (!(th.ts > th.low) && !d.g.lin) {
      d.g.lin = `H-Lin-TS: write ${th.w + 1} by c${c} returned with TS ${showTS(th.ts)}, not above ${showTS(th.low)} of an operation completed before it was invoked`;
    }
  };
  const finish = (d: State, c: number) => {
    d.co[c] = null;
  };
  // A read returns: H-Lin-TS (its tag is at least every tag completed before its invocation, `low`).
  const readValue = (d: State, c: number, k: number, low: number) => {
    const val = d.rec[nodeOf(c)][k].val;
    const tag = tagOf(d, val);
    if (tag < low && !d.g.lin) d.g.lin = `H-Lin-TS: c${c} read ${KEY[k]} = v${val} (TS ${showTS(tag)}) after an operation with TS ${showTS(low)} completed`;
    if (tag > d.g.readMax[k]) d.g.readMax[k] = tag;
    d.cl[c]++;
  };

  // --- coordinator (Fig. 2 left, Fig. 3 (i)(iii)(v)(vii)) ------------------------------
  // Lines 11-12 with what follows them per model (Steps d, e).
  const coordInstall = (d: State, c: number, th: Coord) => {
    const n = nodeOf(c);
    const v = th.w + 1;
    broadcast(d, 'INV', n, th.k, th.ts, v, th.sc); // Line 11: INVs before the local update
    install(d, n, th.k, th.ts, v); // Line 12
    th.sent = true;
    if (model === 'Synch') {
      if (mutant === 'M3') backgroundPersist(d, n, th.k, th.ts, v, th.sc); // M3: Step d in the background
      th.pc = mutant === 'M3' || mutant === 'M10' ? 'ackWait' : 'persist';
    } else if (model === 'Strict') {
      th.pc = 'persist'; // Step d stays synchronous for Strict [L160]
    } else {
      backgroundPersist(d, n, th.k, th.ts, v, th.sc); // Step d: background [L160]
      th.pc = 'ackWait';
    }
  };
  // handleObsolete done (Lines 6 / 16): Lines 20-21 if Line 8 was reached, then return.
  const obsoleteDone = (d: State, c: number, th: Coord) => {
    if (th.sn) releaseIfOwner(d.rec[nodeOf(c)][th.k], th.ts);
    respond(d, c, th);
    finish(d, c);
  };
  const toObsolete = (d: State, c: number, th: Coord, r: Rec) => {
    th.tau = cur(r);
    if (mutant === 'M6') obsoleteDone(d, c, th); // M6: the coordinator skips handleObsolete
    else th.pc = 'cspin';
  };

  function coordStep(d: State, c: number): void {
    const th = d.co[c]!;
    const n = nodeOf(c);
    const r = d.rec[n][th.k];
    const v = th.w + 1;
    switch (th.pc) {
      case 'check': // Line 5: first Obsolete check, no locks
        if (obsolete(r, th.ts)) toObsolete(d, c, th, r);
        else th.pc = 'snatch';
        return;
      case 'snatch': // Line 8
        r.rd = snatch(r, th.ts);
        th.sn = true;
        th.pc = mutant === 'M22' ? 'recheck' : 'local';
        return;
      case 'local': // Lines 9-16 under WRLock: the final check (Line 10), then install or give up
        if (mutant !== 'M23' && obsolete(r, th.ts)) toObsolete(d, c, th, r);
        else if (O) th.pc = 'install'; // MINOS-O: no WRLock; the SNIC's check and its atomic enqueue are two steps [L247]
        else coordInstall(d, c, th);
        return;
      case 'recheck': // M22: Line 10 without WRLock, the install is a later step
        if (obsolete(r, th.ts)) toObsolete(d, c, th, r);
        else th.pc = 'install';
        return;
      case 'install':
        coordInstall(d, c, th);
        return;
      case 'persist': // Line 18 (Step d), synchronous in Synch and Strict (MINOS-O: the dFIFO enqueue)
        persistNvm(d, n, th.k, th.ts, v);
        th.pc = 'ackWait';
        return;
      case 'ackWait': // Step e: all ACKs (Synch) / all ACK_Cs
        if (model === 'Synch') {
          if (mutant === 'M20') {
            releaseIfOwner(r, th.ts); // M20: Lines 20-21 before the glb update
            th.pc = 'glb';
            return;
          }
          r.gv = glb(r.gv, th.ts);
          r.gd = glb(r.gd, th.ts);
          if (O) {
            respond(d, c, th); // Fig. 7(a): the batched ACK to the host ends the client-write
            if (mutant === 'M25') {
              releaseIfOwner(r, th.ts);
              broadcast(d, 'VAL', n, th.k, th.ts);
              finish(d, c);
            } else th.pc = 'drain';
            return;
          }
          releaseIfOwner(r, th.ts); // Lines 20-21
          broadcast(d, 'VAL', n, th.k, th.ts); // Line 22 (Step f)
          respond(d, c, th);
          if (mutant === 'M10') th.pc = 'latePersist';
          else finish(d, c);
          return;
        }
        r.gv = glb(r.gv, th.ts);
        if (model === 'Strict') {
          releaseIfOwner(r, th.ts);
          broadcast(d, 'VAL_C', n, th.k, th.ts); // Step f: VAL_C, then wait for the ACK_Ps
          if (mutant === 'M13') respond(d, c, th); // M13: return after the ACK_Cs
          th.pc = 'ackPWait';
        } else if (model === 'REnf') {
          if (mutant === 'M11') {
            releaseIfOwner(r, th.ts); // M11: release and VAL after the ACK_Cs (Event behaviour)
            broadcast(d, 'VAL', n, th.k, th.ts);
            respond(d, c, th);
            finish(d, c);
            return;
          }
          if (mutant !== 'M12') respond(d, c, th); // Step e: return to the client, the thread continues
          th.pc = 'ackPWait';
        } else {
          releaseIfOwner(r, th.ts); // Event, Scope: release, VAL_C, return
          broadcast(d, 'VAL_C', n, th.k, th.ts, 0, th.sc);
          respond(d, c, th);
          finish(d, c);
        }
        return;
      case 'ackPWait': // Strict Step f / REnf Step e: all ACK_Ps
        r.gd = glb(r.gd, th.ts);
        if (model === 'Strict') {
          broadcast(d, 'VAL_P', n, th.k, th.ts);
        } else {
          releaseIfOwner(r, th.ts); // REnf: "when all ACK_Ps are received, the RDLock is released"
          broadcast(d, 'VAL', n, th.k, th.ts);
        }
        respond(d, c, th);
        finish(d, c);
        return;
      case 'glb': // M20: the glb update after the release
        r.gv = glb(r.gv, th.ts);
        r.gd = glb(r.gd, th.ts);
        broadcast(d, 'VAL', n, th.k, th.ts);
        respond(d, c, th);
        finish(d, c);
        return;
      case 'drain': // MINOS-O Synch: release once drained from the vFIFO, then VALs [L249]
        releaseIfOwner(r, th.ts);
        broadcast(d, 'VAL', n, th.k, th.ts);
        finish(d, c);
        return;
      case 'latePersist': // M10: Line 18 after Line 22
        persistNvm(d, n, th.k, th.ts, v);
        finish(d, c);
        return;
      case 'cspin': // ConsistencySpin (Line 2)
        if (su.pspin) th.pc = 'pspin';
        else obsoleteDone(d, c, th);
        return;
      case 'pspin': // PersistencySpin (Line 3, Step a)
        obsoleteDone(d, c, th);
        return;
      case 'persistWait': // [PERSIST]sc: all [ACK_P]sc (and this node's own persists)
        broadcast(d, 'VAL_P', n, -1, th.sc, 0, th.sc);
        d.g.pd[th.sc] = 1;
        respond(d, c, th);
        finish(d, c);
        return;
      case 'load': // M21: the read's load, a step after its RDLock check
        readValue(d, c, th.k, th.low);
        finish(d, c);
        return;
    }
    throw new Error(`minos: coordinator pc ${th.pc}`);
  }

  // The scope's writes, for the fixed [PERSIST]sc: [key, TS] pairs whose TS is known.
  const scopeItems = (s: State, sc: number): number[] => {
    const items: number[] = [];
    writes.forEach((w, i) => {
      if (w.sc === sc && s.g.wts[i] !== NONE) items.push(w.k, s.g.wts[i]);
    });
    return items;
  };
  const noPendingScope = (s: State, n: number, sc: number): boolean => !s.bg.some((b) => b[0] === n && b[4] === sc);
  // What a node awaits before [ACK_P]sc (or before the coordinator returns): its own background
  // persists of the scope [L168]; in the fixed protocol also a durable version >= each scope
  // write's TS, which covers writes cut short as obsolete (the S-GAP fix, §3.2).
  const scopeDurableHere = (s: State, n: number, sc: number, items: number[]): boolean => {
    if (!noPendingScope(s, n, sc)) return false;
    if (mutant === 'S-GAP') return true;
    for (let i = 0; i < items.length; i += 2) if (maxNvm(s, n, items[i]) < items[i + 1]) return false;
    return true;
  };

  function coordEnabled(s: State, c: number): boolean {
    const th = s.co[c]!;
    const n = nodeOf(c);
    const r = th.k >= 0 ? s.rec[n][th.k] : undefined;
    switch (th.pc) {
      case 'local':
        return r!.wr === 0; // Line 9: spin until WRLock acquired
      case 'ackWait': {
        const enough = mutant === 'M1' ? th.ack !== 0 : full(th.ack, n); // M1: return after the first ACK
        if (!enough) return false;
        // MINOS-O: the step that releases RDLock also waits for the vFIFO drain (Event, Scope, Strict)
        return model === 'Synch' || model === 'REnf' ? true : drained(r!, th.ts);
      }
      case 'ackPWait':
        return full(th.ackP, n) && (model === 'Strict' || drained(r!, th.ts));
      case 'drain':
        return drained(r!, th.ts);
      case 'cspin':
        return !lt(r!.gv, th.tau);
      case 'pspin':
        return !lt(r!.gd, th.tau);
      case 'persistWait':
        return full(th.ackP, n) && (mutant === 'M16' || scopeDurableHere(s, n, th.sc, scopeItems(s, th.sc)));
      default:
        return true;
    }
  }

  // --- follower (Fig. 2 right, Fig. 3 (ii)(iv)(vi)(viii)) ------------------------------
  const ackC = (): MsgType => (model === 'Synch' ? 'ACK' : 'ACK_C');
  // After handleObsolete: wait for the VAL (recheck path, Line 38 then Step l), or discard it (Line 30).
  const follAfterObsolete = (f: Foll) => {
    if (f.sn) f.pc = 'wait';
    else {
      f.pc = 'discard';
      f.need = model === 'Strict' ? 2 : 1;
    }
  };
  function follStep(d: State, i: number): void {
    const f = d.fo[i];
    const r = d.rec[f.n][f.k];
    switch (f.pc) {
      case 'snatch': // Line 31
        r.rd = snatch(r, f.ts);
        f.sn = true;
        f.pc = 'local';
        return;
      case 'local': // Lines 32-38 (MINOS-O: the enqueue after the Line-27 check, no recheck [L249])
        if (!O && mutant !== 'M4' && obsolete(r, f.ts)) {
          f.tau = cur(r);
          f.pc = 'cspin';
          return;
        }
        install(d, f.n, f.k, f.ts, f.v); // Line 34
        if (mutant === 'M7') releaseIfOwner(r, f.ts); // M7: reads proceed before the VAL
        if (model === 'Synch') {
          if (mutant === 'M2' || mutant === 'M26') {
            send(d, 'ACK', f.n, f.from, f.k, f.ts); // M2/M26: Line 40 before Line 39
            f.pc = 'latePersist';
          } else f.pc = 'persist';
        } else if (model === 'Strict' || model === 'REnf') {
          send(d, 'ACK_C', f.n, f.from, f.k, f.ts);
          if (mutant === 'M14') {
            send(d, 'ACK_P', f.n, f.from, f.k, f.ts); // M14: ACK_P before the persist completes
            f.pc = 'latePersist';
          } else f.pc = 'persist';
        } else {
          send(d, 'ACK_C', f.n, f.from, f.k, f.ts, 0, f.sc);
          backgroundPersist(d, f.n, f.k, f.ts, f.v, f.sc); // Line 39, off the critical path
          f.pc = 'wait';
        }
        return;
      case 'persist': // Lines 39-40: persist, then ACK (Synch) / ACK_P (Strict, REnf)
        persistNvm(d, f.n, f.k, f.ts, f.v);
        send(d, model === 'Synch' ? 'ACK' : 'ACK_P', f.n, f.from, f.k, f.ts);
        f.pc = 'wait';
        return;
      case 'latePersist':
        persistNvm(d, f.n, f.k, f.ts, f.v);
        f.pc = 'wait';
        return;
      case 'cspin': // ConsistencySpin (Line 24), then ACK_C (Strict/REnf/Event/Scope)
        if (model === 'Synch') {
          if (mutant === "M6''") {
            send(d, 'ACK', f.n, f.from, f.k, f.ts); // M6'': no PersistencySpin
            follAfterObsolete(f);
          } else f.pc = 'pspin';
          return;
        }
        send(d, 'ACK_C', f.n, f.from, f.k, f.ts, 0, f.sc);
        if (su.pspin && mutant !== "M6''") f.pc = 'pspin';
        else {
          if (su.pspin) send(d, 'ACK_P', f.n, f.from, f.k, f.ts); // M6'': ACK_P without PersistencySpin
          follAfterObsolete(f);
        }
        return;
      case 'pspin': // PersistencySpin (Line 25, Step h), then ACK / ACK_P (Line 29)
        send(d, model === 'Synch' ? 'ACK' : 'ACK_P', f.n, f.from, f.k, f.ts);
        follAfterObsolete(f);
        return;
      case 'flush': // [PERSIST]sc at a Follower: persists done, send [ACK_P]sc
        send(d, 'ACK_P', f.n, f.from, -1, f.sc, 0, f.sc);
        f.pc = 'waitVP';
        return;
    }
    throw new Error(`minos: follower pc ${f.pc}`);
  }
  function follEnabled(s: State, i: number): boolean {
    const f = s.fo[i];
    if (f.kind === 'persist') return f.pc === 'flush' && (mutant === 'M15' || scopeDurableHere(s, f.n, f.sc, f.items));
    const r = s.rec[f.n][f.k];
    switch (f.pc) {
      case 'cspin':
        return mutant === "M6'" || !lt(r.gv, f.tau); // M6': the follower skips ConsistencySpin
      case 'pspin':
        return !lt(r.gd, f.tau);
      case 'wait':
      case 'waitP':
      case 'discard':
      case 'waitVP':
        return false; // these wait for a message
      default:
        return true;
    }
  }

  // --- message delivery (§7.2 item 7) ---------------------------------------------------
  /** The follower thread a VAL-type message m is for, or -1. */
  function valTarget(s: State, m: Msg): number {
    for (let i = 0; i < s.fo.length; i++) {
      const f = s.fo[i];
      if (f.n !== m.to || f.from !== m.from) continue;
      if (m.k === -1) {
        if (f.kind === 'persist' && f.sc === m.sc && f.pc === 'waitVP') return i;
        continue;
      }
      if (f.kind !== 'write' || f.k !== m.k || f.ts !== m.ts) continue;
      if (f.pc === 'discard') return i; // Line 30: a later VAL for a cut-short write is discarded
      const r = s.rec[f.n][f.k];
      if (f.pc === 'wait' && m.t !== 'VAL_P' && drained(r, f.ts)) return i;
      if (f.pc === 'waitP' && m.t === 'VAL_P') return i;
    }
    return -1;
  }
  function deliverEnabled(s: State, m: Msg): boolean {
    if (m.t === 'VAL' || m.t === 'VAL_C' || m.t === 'VAL_P') return valTarget(s, m) >= 0;
    return true;
  }
  function deliver(d: State, j: number): void {
    const m = d.net[j];
    d.net.splice(j, 1);
    switch (m.t) {
      case 'INV': {
        // Line 26: a follower thread per INV; Line 27's check happens on arrival.
        const r = d.rec[m.to][m.k];
        const f: Foll = { n: m.to, kind: 'write', k: m.k, ts: m.ts, v: m.v, from: m.from, pc: 'snatch', tau: NONE, sn: false, need: 0, sc: m.sc, items: [] };
        if (mutant !== 'M4' && obsolete(r, m.ts)) {
          f.tau = cur(r);
          f.pc = 'cspin';
        }
        d.fo.push(f);
        return;
      }
      case 'PERSIST':
        d.fo.push({ n: m.to, kind: 'persist', k: -1, ts: NONE, v: 0, from: m.from, pc: 'flush', tau: NONE, sn: false, need: 0, sc: m.sc, items: m.items });
        return;
      case 'ACK':
      case 'ACK_C':
      case 'ACK_P': {
        // The coordinator's sender sets are per (key, TS_WR) [Table I 4c]: every thread with that
        // TS_WR sees the ACK (two only under a TS collision); an unmatched ACK is dropped.
        for (let c = 0; c < d.co.length; c++) {
          const th = d.co[c];
          if (!th || nodeOf(c) !== m.to) continue;
          const forPersist = m.k === -1 ? th.kind === 'persist' && th.sc === m.sc : th.kind === 'write' && th.sent && th.k === m.k && th.ts === m.ts;
          if (!forPersist) continue;
          const bit = 1 << m.from;
          if (m.t === 'ACK_P') th.ackP = mutant === 'M28' ? th.ackP + 1 : th.ackP | bit;
          else th.ack = mutant === 'M28' ? th.ack + 1 : th.ack | bit; // M28: counted, not a sender set
        }
        return;
      }
      default: {
        const i = valTarget(d, m);
        const f = d.fo[i];
        const r = d.rec[f.n][f.k] as Rec | undefined;
        if (f.pc === 'discard') {
          f.need--;
          if (f.need === 0) d.fo.splice(i, 1);
          return;
        }
        if (f.pc === 'waitVP') {
          d.fo.splice(i, 1); // [VAL_P]sc ends the PERSIST transaction
          return;
        }
        if (f.pc === 'waitP') {
          r!.gd = glb(r!.gd, f.ts); // Strict Step m
          d.fo.splice(i, 1);
          return;
        }
        // Step l (Line 41): glb update, then Lines 42-43
        r!.gv = glb(r!.gv, f.ts);
        if (model === 'Synch' || model === 'REnf') r!.gd = glb(r!.gd, f.ts);
        releaseIfOwner(r!, f.ts);
        if (model === 'Strict') f.pc = 'waitP';
        else d.fo.splice(i, 1);
        return;
      }
    }
  }

  // --- crash and recovery (§1.5) -----------------------------------------------------------
  function crash(d: State): void {
    const best = (ns: number[], k: number): [number, number] => {
      let ts = 0;
      let val = 0;
      for (const n of ns) {
        const log = d.nvm[n];
        for (let i = 0; i < log.length; i += 3) {
          if (log[i] === k && (log[i + 1] > ts || (log[i + 1] === ts && log[i + 2] > val))) {
            ts = log[i + 1];
            val = log[i + 2];
          }
        }
      }
      return [ts, val];
    };
    const allNodes = Array.from({ length: N }, (_, n) => n);
    for (let n = 0; n < N; n++) {
      for (let k = 0; k < cfg.keys; k++) {
        const [ts, val] = best(cfg.recovery === 'system' ? allNodes : [n], k);
        d.rec[n][k] = { val, vts: ts, gv: ts, gd: ts, rd: NONE, wr: 0, iss: ver(ts), vq: [] };
      }
    }
    d.co = d.co.map(() => null);
    d.fo = [];
    d.net = [];
    d.bg = [];
    d.g.wst = d.g.wst.map((x) => (x === 1 ? 3 : x));
    d.crashed = true;
  }

  // --- the Machine -----------------------------------------------------------------------
  const opOf = (s: State, c: number) => cfg.clients[c].ops[s.cl[c]];
  const who = (c: number) => `c${c}@${NODE[nodeOf(c)]}`;
  const fLabel = (f: Foll) => (f.kind === 'persist' ? `${NODE[f.n]}, sc${f.sc}` : `${NODE[f.n]}, ${KEY[f.k]}, ${showTS(f.ts)}`);
  const coordLabel: Record<string, string> = {
    check: 'obsoleteCheck_L5',
    snatch: 'snatchRDLock_L8',
    local: O ? 'snicObsoleteCheck' : 'localWrite_L9_16',
    recheck: 'recheck_L10',
    install: O ? 'sendINVs_enqueue_vFIFO' : 'install_L11_12',
    persist: O ? 'dFIFOenqueue_L18' : 'persist_L18',
    ackWait: model === 'Synch' ? 'allACKs_L19_22' : 'allACK_C_e',
    ackPWait: 'allACK_P_f',
    glb: 'glbUpdate',
    drain: 'releaseAfterDrain',
    latePersist: 'persist_L18',
    cspin: 'consistencySpin_L2',
    pspin: 'persistencySpin_L3',
    persistWait: 'allACK_P_sc',
    load: 'readLoad',
  };
  const follLabel: Record<string, string> = {
    snatch: 'snatchRDLock_L31',
    local: O ? 'enqueue_vFIFO' : 'localWrite_L32_38',
    persist: O ? 'dFIFOenqueue_L39_40' : 'persist_L39_40',
    latePersist: 'persist_L39',
    cspin: 'consistencySpin_L24',
    pspin: 'persistencySpin_L25',
    flush: 'ackPersist_sc',
  };

  function actions(s: State): MinosAction[] {
    const out: MinosAction[] = [];
    if (s.crashed) {
      const idx = s.pr.length / 3;
      if (idx < N * cfg.keys) {
        const n = Math.floor(idx / cfg.keys);
        const k = idx % cfg.keys;
        out.push({ label: `recoveredRead(${NODE[n]}, ${KEY[k]})`, f: 'postRead', i: n, k });
      }
      return out;
    }
    for (let c = 0; c < s.co.length; c++) {
      const th = s.co[c];
      if (th) {
        if (coordEnabled(s, c)) {
          const what = th.kind === 'persist' ? `sc${th.sc}` : `${KEY[th.k]}, ${showTS(th.ts)}`;
          out.push({ label: `${coordLabel[th.pc]}(${who(c)}, ${what})`, f: 'coord', i: c, k: th.k });
        }
        continue;
      }
      const op = opOf(s, c);
      if (!op) continue;
      const k = op.key ?? 0;
      if (op.f === 'write') out.push({ label: `clientWrite_L4(${who(c)}, ${KEY[k]}, v${writeOf[c][s.cl[c]] + 1})`, f: 'write', i: c, k });
      else if (op.f === 'persist') out.push({ label: `clientPersist(${who(c)}, sc${op.sc})`, f: 'persist', i: c, k: -1 });
      else if (s.rec[nodeOf(c)][k].rd === NONE) {
        // §3.3: a read stalls while RDLock is taken, then loads atomically with the check (M21: not)
        out.push({ label: `${mutant === 'M21' ? 'readCheck' : 'read'}(${who(c)}, ${KEY[k]})`, f: 'read', i: c, k });
      }
    }
    for (let i = 0; i < s.fo.length; i++) {
      if (follEnabled(s, i)) out.push({ label: `${follLabel[s.fo[i].pc]}(${fLabel(s.fo[i])})`, f: 'foll', i, k: s.fo[i].k });
    }
    for (let j = 0; j < s.net.length; j++) {
      const m = s.net[j];
      if (j > 0 && sameMsg(s.net[j - 1], m)) continue; // identical copies: one delivery action
      if (!deliverEnabled(s, m)) continue;
      const what = m.k === -1 ? `sc${m.sc}` : `${KEY[m.k]}, ${showTS(m.ts)}`;
      out.push({ label: `recv${msgName(m.t)}(${NODE[m.to]}<-${NODE[m.from]}, ${what})`, f: 'deliver', i: j, k: m.k });
      if (cfg.duplicate && m.dup === 0 && m.t.startsWith('ACK')) {
        out.push({ label: `duplicate${msgName(m.t)}(${NODE[m.to]}<-${NODE[m.from]}, ${what})`, f: 'dup', i: j, k: m.k });
      }
    }
    for (let j = 0; j < s.bg.length; j++) {
      const [n, k, ts] = s.bg[j];
      out.push({ label: `backgroundPersist(${NODE[n]}, ${KEY[k]}, ${showTS(ts)})`, f: 'bg', i: j, k });
    }
    if (O) {
      for (let n = 0; n < N; n++) {
        for (let k = 0; k < cfg.keys; k++) {
          if (s.rec[n][k].vq.length) out.push({ label: `vFIFOdequeue(${NODE[n]}, ${KEY[k]}, ${showTS(s.rec[n][k].vq[0])})`, f: 'vdeq', i: n, k });
        }
      }
    }
    if (cfg.crash) out.push({ label: 'crash', f: 'crash', i: 0, k: 0 });
    return out;
  }

  function next(s: State, a: MinosAction): State {
    const d = draft(s);
    switch (a.f) {
      case 'write': {
        // Line 4: GenTS reads volatileTS and adds one [L102]. Fixed: an atomic per-key
        // fetch-and-increment of the highest version issued here (§3.4); M18 / the
        // TS-COLLISION finding use the paper's non-atomic reading.
        const c = a.i;
        const n = nodeOf(c);
        const r = d.rec[n][a.k];
        const base = ver(cur(r));
        const faithful = mutant === 'M18' || mutant === 'TS-COLLISION';
        const v = faithful ? base + 1 : Math.max(base, r.iss) + 1;
        if (!faithful) r.iss = v;
        const w = writeOf[c][s.cl[c]];
        const ts = mkTS(v, n);
        d.g.wts[w] = ts;
        d.g.wst[w] = 1;
        const sc = writes[w].sc;
        d.co[c] = { kind: 'write', k: a.k, w, ts, pc: 'check', tau: NONE, sn: false, sent: false, resp: false, ack: 0, ackP: 0, low: maxDone(s, a.k), sc };
        break;
      }
      case 'persist': {
        const c = a.i;
        const sc = opOf(s, c).sc ?? 0;
        const items = mutant === 'S-GAP' ? [] : scopeItems(s, sc);
        d.co[c] = { kind: 'persist', k: -1, w: -1, ts: NONE, pc: 'persistWait', tau: NONE, sn: false, sent: true, resp: false, ack: 0, ackP: 0, low: 0, sc };
        broadcast(d, 'PERSIST', nodeOf(c), -1, sc, 0, sc, items);
        break;
      }
      case 'read':
        if (mutant === 'M21') {
          d.co[a.i] = { kind: 'read', k: a.k, w: -1, ts: NONE, pc: 'load', tau: NONE, sn: false, sent: false, resp: false, ack: 0, ackP: 0, low: maxDone(s, a.k), sc: 0 };
        } else readValue(d, a.i, a.k, maxDone(s, a.k));
        break;
      case 'coord':
        coordStep(d, a.i);
        break;
      case 'foll':
        follStep(d, a.i);
        break;
      case 'deliver':
        deliver(d, a.i);
        break;
      case 'dup': {
        const m = { ...d.net[a.i], dup: 1 };
        d.net[a.i] = m;
        d.net.push({ ...m });
        break;
      }
      case 'bg': {
        const [n, k, ts, v] = d.bg[a.i];
        d.bg.splice(a.i, 1);
        persistNvm(d, n, k, ts, v);
        break;
      }
      case 'vdeq': {
        // MINOS-O: per-record FIFO dequeue, re-checking obsoleteness before the LLC update [L247]
        const r = d.rec[a.i][a.k];
        const [ts, v] = r.vq;
        r.vq = r.vq.slice(2);
        if (mutant === 'M24' || lt(r.vts, ts)) {
          if (!(ts > r.vts) && !d.g.i11) d.g.i11 = `I11: ${NODE[a.i]} installs ${showTS(ts)} over volatileTS ${showTS(r.vts)}`;
          r.val = v;
          r.vts = ts;
        }
        break;
      }
      case 'crash':
        crash(d);
        break;
      case 'postRead':
        d.pr = [...s.pr, a.i, a.k, d.rec[a.i][a.k].val];
        break;
      default:
        throw new Error(`minos: unknown action ${a.f}`);
    }
    if (!d.crashed) {
      // I2 (an action property): volatileTS, glb_volatileTS, glb_durableTS never decrease.
      for (let n = 0; n < N && !d.g.i2; n++) {
        for (let k = 0; k < cfg.keys; k++) {
          const b = s.rec[n][k];
          const x = d.rec[n][k];
          const name = x.vts < b.vts ? 'volatileTS' : x.gv < b.gv ? 'glb_volatileTS' : x.gd < b.gd ? 'glb_durableTS' : '';
          if (name) {
            const [before, after] = name === 'volatileTS' ? [b.vts, x.vts] : name === 'glb_volatileTS' ? [b.gv, x.gv] : [b.gd, x.gd];
            d.g.i2 = `I2: ${name} of ${KEY[k]} at ${NODE[n]} went from ${showTS(before)} to ${showTS(after)}`;
          }
        }
      }
    }
    d.net.sort(cmpMsg);
    d.fo.sort(cmpFoll);
    d.bg.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || x[3] - y[3] || x[4] - y[4]);
    return d;
  }

  return { actions, next, nodeOf, lt, cur, drained, tagOf, maxDone, durableAll };
}
