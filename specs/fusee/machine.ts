// FUSEE's SNAPSHOT replication of one index slot (FAST '23, §4.3 Algorithms 1-2, §5
// Algorithms 3-4; extraction ../shared/protocols/fusee-snapshot.md, "X§n" below), with
// memory-node (MN) crashes handled by the master and client crashes repaired from the
// embedded operation log. One action per RDMA verb on one replica (A.1 [L530]: verbs on
// one slot are atomic); each per-backup CAS is its own action (X§1.2).

import type { Action, Machine, ObservedEvent } from '../../checkers/explore/types.ts';
import { UNKNOWN, type Model } from '../../checkers/lin/types.ts';
import {
  keyOf,
  kvSlotModel,
  monCrash,
  monInit,
  monInvoke,
  monReturn,
  OUT_FULL,
  OUT_OK,
  registerModel,
  type Mon,
  type MonOp,
  type SlotModel,
} from './monitor.ts';

/** One client operation. Register level: write(v) / read. KV level: insert / delete / search of key k. */
export type Op =
  | { f: 'write'; v: number }
  | { f: 'read' }
  | { f: 'insert'; k: number; v: number }
  | { f: 'delete'; k: number }
  | { f: 'search'; k: number };

export interface FuseeConfig {
  /** replication factor: one primary and r-1 backups */
  r: number;
  /** one script per client; written values are unique and > 0 (x0 = 0) */
  clients: Op[][];
  clientCrashes: number;
  mnCrashes: number;
  /** per-backup CASes in any order (faithful) or in replica order (smaller) */
  casOrder: 'free' | 'fixed';
  /**
   * An open workload, for validating an implementation's trace (trace.ts): no scripts
   * (`clients` is empty and clients join with `joinClient`); an idle client invokes
   * whatever the trace says (`openInvoke`: a write of `x`, or a read); every client may
   * crash; MNs may crash while anything runs; no ghost bookkeeping, history or invariants.
   */
  open?: boolean;
}

/** replica value of a crashed MN; RDMA verbs on it return FAIL */
export const CRASHED = -1;
/** a CAS not yet returned / an old value not yet written */
export const NONE = -2;
/** M16's re-allocated object for value v has the address v + FRESH */
const FRESH = 50;
/** old-value field of a log the master committed (the special value 1 of [L796]) */
export const COMMITTED = -3;

/**
 * Program counters, named after Alg. 1/2/4 (X§2.1, X§2.4) and the atomic steps of X§6.2.
 * idle | W1 read primary | W2 CAS backups | W3 Rule-3 re-read | W4 fix-up | W5 commit log |
 * W6 CAS primary | L1 loser wait | L2 loser return | F1 fail_query sent | F2 master replied |
 * R2 read backups | RF reader's fail_query | RF2 reader replied | down (crashed)
 */
export type Pc = 'idle' | 'W1' | 'W2' | 'W3' | 'W4' | 'W5' | 'W6' | 'L1' | 'L2' | 'F1' | 'F2' | 'R2' | 'RF' | 'RF2' | 'down';

/** Decisions of EVALUATE_RULES (Alg. 2). */
export const enum Win {
  None = 0,
  R1 = 1,
  R2 = 2,
  R3 = 3,
  Lose = 4,
  Finish = 5,
  Fail = 6,
}

/** Recovery status of a client: live, crashed awaiting RecoverClient, redo agent running, recovered. */
export const enum Rec {
  Live = 0,
  Pending = 1,
  Redo = 2,
  Done = 3,
}

export interface Client {
  pc: Pc;
  /** index of the current (or next) op in the script */
  op: number;
  vOld: number;
  vNew: number;
  /** the primary replica and the backup replicas read at line 6 (clients use the view of that moment) */
  pr: number;
  bk: number[];
  /** v_list: per entry of bk, the CAS's return (NONE while outstanding); winners mark fixed entries v_new */
  vl: number[];
  win: Win;
  /** the master's reply to fail_query */
  rpc: number;
  /** ghost: round (primary changes + master episodes) at line 6 */
  rd: number;
  rec: Rec;
  /** the client's tail embedded log entry [v_new, used bit, old value] (X§2.5) */
  log: [number, number, number];
}

export interface Ghost {
  /** rounds: client/recovery primary changes plus master episodes */
  rnd: number;
  /** values the primary has held (sorted) */
  ph: number[];
  /** proposals "vOld>vNew" of ops that executed line 6 (sorted) */
  props: string[];
  /** round winners "round:vNew" (sorted) */
  wins: string[];
  /** values of ops that responded as non-winners (sorted) */
  dead: number[];
  /** the current round's value x_u (the primary's, also while the primary is crashed) */
  cur: number;
  /** the first complete snapshot of the current round taken before any fix-up, '' if none */
  snap: string;
  /** a fix-up CAS has run in the current round */
  fixing: boolean;
  /** the first transition invariant broken, '' while none */
  tv: string;
}

export interface FuseeState {
  rep: number[];
  primary: number;
  backups: number[];
  /** the master is between member_prepare_change and its decision (Alg. 3 l.3-10) */
  fenced: boolean;
  mnLeft: number;
  clLeft: number;
  cl: Client[];
  g: Ghost;
  mon: Mon;
}

export type Kind =
  | 'invoke'
  | 'read'
  | 'readPrimary'
  | 'casBackup'
  | 'reRead'
  | 'fixup'
  | 'commitLog'
  | 'casPrimary'
  | 'loserWait'
  | 'loserReturn'
  | 'failReply'
  | 'readBackups'
  | 'readReply'
  | 'crashClient'
  | 'recoverClient'
  | 'crashMN'
  | 'prepare'
  | 'decide';

export interface FuseeAction extends Action {
  kind: Kind;
  c: number;
  /** replica index (casBackup/fixup: index into the client's bk) or the master's chosen value */
  x: number;
}

const act = (kind: Kind, label: string, c = -1, x = -1): FuseeAction => ({ label, kind, c, x });

const isWrite = (op: Op): boolean => op.f === 'write' || op.f === 'insert' || op.f === 'delete';
const IN_FLIGHT: ReadonlySet<Pc> = new Set(['W2', 'W3', 'W4', 'W5', 'W6', 'L1']);
const PENDING_WRITE: ReadonlySet<Pc> = new Set(['W1', 'W2', 'W3', 'W4', 'W5', 'W6', 'L1', 'L2', 'F1', 'F2']);
const PENDING_READ: ReadonlySet<Pc> = new Set(['R2', 'RF', 'RF2']);

const insertSorted = <T extends number | string>(xs: T[], x: T): T[] =>
  xs.includes(x) ? xs : [...xs, x].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

function idleClient(op: number, rec: Rec, log: [number, number, number]): Client {
  return { pc: rec === Rec.Live ? 'idle' : 'down', op, vOld: NONE, vNew: NONE, pr: -1, bk: [], vl: [], win: Win.None, rpc: NONE, rd: 0, rec, log };
}

/** Mutable working copy of one transition; next() copies what it changes. */
interface Tx {
  s: FuseeState;
  ev: ObservedEvent[];
}

/** The machine, and (for trace.ts) the steps of one client alone. */
export type FuseeMachine = Machine<FuseeState, FuseeAction> & { clientActions(s: FuseeState, c: number): FuseeAction[] };

export function buildMachine(config: FuseeConfig, variant?: string): FuseeMachine {
  const mutant = variant ?? '';
  const { r } = config;
  const kv = config.clients.some((script) => script.some((op) => op.f === 'insert' || op.f === 'delete' || op.f === 'search'));
  const model: SlotModel = kv ? kvSlotModel : registerModel;
  const open = config.open === true;
  const writers = config.clients.map((script) => script.some(isWrite));
  const crashBudget = Math.min(config.mnCrashes, r - 1); // at most r-1 MN crashes [L297]

  // ---- helpers over a working copy ------------------------------------------------------

  const setClient = (t: Tx, c: number, patch: Partial<Client>): Client => {
    const cl = t.s.cl.slice();
    cl[c] = { ...cl[c], ...patch };
    t.s.cl = cl;
    return cl[c];
  };
  const broke = (t: Tx, msg: string): void => {
    if (!open && t.s.g.tv === '') t.s.g = { ...t.s.g, tv: msg };
  };
  const setGhost = (t: Tx, patch: Partial<Ghost>): void => {
    if (!open) t.s.g = { ...t.s.g, ...patch };
  };
  /** The op a client runs: its script's, or (open workload) a read / the write of its v_new. */
  const opOf = (s: FuseeState, c: number): Op => (open ? OPEN_READ : config.clients[c][s.cl[c].op]);
  const aliveBackups = (s: FuseeState): number[] => s.backups.filter((b) => s.rep[b] !== CRASHED);

  /** A CAS on replica i; returns the prior value (CRASHED = FAIL). I17: no client CAS succeeds while fenced. */
  const cas = (t: Tx, i: number, expected: number, swap: number, who: string): number => {
    const prior = t.s.rep[i];
    if (prior === CRASHED || prior !== expected) return prior;
    if (t.s.fenced && prior !== swap) broke(t, `I17: ${who} CAS on r${i} succeeded while the master is fenced`);
    const rep = t.s.rep.slice();
    rep[i] = swap;
    t.s.rep = rep;
    return prior;
  };

  /** Primary change by a client or a recovery (I2, I4, round bookkeeping). */
  const primaryChanged = (t: Tx, from: number, to: number, who: string): void => {
    if (from === to) return;
    if (!kv && t.s.g.ph.includes(to)) broke(t, `I2: ${who} installs ${to} in the primary a second time`);
    // I4 (Lemma 4): a round ends with every alive backup already holding the new value.
    const stale = aliveBackups(t.s).filter((b) => t.s.rep[b] !== to);
    if (stale.length > 0) broke(t, `I4: ${who} changes the primary ${from}->${to} while backup r${stale[0]} holds ${t.s.rep[stale[0]]}`);
    setGhost(t, { rnd: t.s.g.rnd + 1, ph: insertSorted(t.s.g.ph, to), cur: to, snap: '', fixing: false });
  };

  const observeInvoke = (t: Tx, c: number, op: Op): void => {
    if (open) return;
    const mop: MonOp = { c, f: op.f, k: 'k' in op ? op.k : 0, v: 'v' in op ? op.v : 0, x: false };
    t.ev.push({ kind: 'invoke', client: c, input: historyInput(op) });
    t.s.mon = monInvoke(model, t.s.mon, mop);
  };
  const observeReturn = (t: Tx, c: number, out: number): void => {
    if (open) return;
    const op = config.clients[c][t.s.cl[c].op];
    t.ev.push({ kind: 'return', client: c, output: historyOutput(op, out) });
    t.s.mon = monReturn(model, t.s.mon, c, out);
  };

  /** The current op of c responds (or, for a redo agent, recovery of c ends). */
  const respond = (t: Tx, c: number, out: number): void => {
    const me = t.s.cl[c];
    if (me.rec === Rec.Redo) {
      t.s.cl = t.s.cl.slice();
      t.s.cl[c] = idleClient(me.op, Rec.Done, me.log);
      return;
    }
    observeReturn(t, c, out);
    t.s.cl = t.s.cl.slice();
    t.s.cl[c] = idleClient(me.op + 1, Rec.Live, me.log);
  };

  /** A write that responds without having installed its value (LOSE, FINISH, FAIL path). */
  const loserResponds = (t: Tx, c: number, out: number): void => {
    const me = t.s.cl[c];
    // I13 ([L276,L806]): a non-winner resets its used bit before it returns.
    if (me.log[1] !== 0 && me.log[2] !== COMMITTED) broke(t, `I13: c${c} returns as a non-winner with its log's used bit still set`);
    setGhost(t, { dead: insertSorted(t.s.g.dead, me.vNew) });
    respond(t, c, out);
  };

  /** A write's output: ignored at the register level, "ok" at the KV level. */
  const writeOut = kv ? OUT_OK : 0;

  // ---- EVALUATE_RULES (Alg. 2), lines 2-11 and the Rule-3 test of line 17 ---------------

  /** Runs after the last backup CAS returned: change_list_value (Alg. 1 l.9), then Alg. 2. */
  const evaluate = (t: Tx, c: number): void => {
    const me = t.s.cl[c];
    // Alg. 1 l.9: a CAS that returned v_old succeeded, so that backup now holds v_new.
    const vl = mutant === 'M18' ? me.vl : me.vl.map((v) => (v === me.vOld ? me.vNew : v)); // M18 breaks Alg. 1 l.9: successes look like v_old
    if (vl.includes(CRASHED)) return void setClient(t, c, { vl, win: Win.Fail, pc: 'F1' }); // Alg. 2 l.4
    if (!kv && me.rd === t.s.g.rnd && !t.s.g.fixing && vl.length > 0) {
      // I10 (footnote [L235]): snapshots completed in a round before its first fix-up agree.
      const snap = vl.join(',');
      if (t.s.g.snap === '') setGhost(t, { snap });
      else if (t.s.g.snap !== snap) broke(t, `I10: c${c} takes snapshot [${snap}] in round ${me.rd}, another took [${t.s.g.snap}]`);
    }
    const m = vl.length;
    if (m === 0) return void decided(t, c, vl, Win.R1); // X§5.1 item 5: no backups left, CAS the primary directly
    const len = mutant === 'M22' ? m + 1 : m; // M22 counts the primary in Len(v_list) (control)
    const counts = new Map<number, number>();
    for (const v of vl) counts.set(v, (counts.get(v) ?? 0) + 1);
    let vMaj = vl[0];
    for (const [v, n] of counts) if (n > counts.get(vMaj)!) vMaj = v;
    const cntMaj = counts.get(vMaj)!;
    if (cntMaj === len) return void decided(t, c, vl, vMaj === me.vNew ? Win.R1 : Win.Lose); // Alg. 2 l.6 Rule 1
    if (mutant === 'M3') {
      // M3: Rule 2 as "modified a (non-strict) majority of backups" [L229], 2*cnt >= m.
      if (2 * (counts.get(me.vNew) ?? 0) >= len) return void decided(t, c, vl, Win.R2);
      if (2 * cntMaj >= len) return void decided(t, c, vl, Win.Lose);
    }
    if (2 * cntMaj > len) return void decided(t, c, vl, vMaj === me.vNew ? Win.R2 : Win.Lose); // Alg. 2 l.8 Rule 2
    if (mutant !== 'M21' && !vl.includes(me.vNew)) return void decided(t, c, vl, Win.Lose); // Alg. 2 l.10 (M21 drops it: control)
    if (mutant === 'M1') return void decided(t, c, vl, Win.Lose); // M1 drops Rule 3: nobody wins a split
    if (mutant === 'M2') return void decided(t, c, vl, rule3(vl, me.vNew)); // M2 skips the re-read of Alg. 2 l.12-16
    setClient(t, c, { vl, pc: 'W3' });
  };

  /** Alg. 2 l.17: Rule 3 goes to the writer of the minimal value. */
  const rule3 = (vl: number[], vNew: number): Win => {
    const pick = mutant === 'M20' ? Math.max(...vl) : Math.min(...vl); // M20: max instead of min (control)
    return pick === vNew ? Win.R3 : Win.Lose;
  };

  /** Acts on a decision (Alg. 1 l.11-24 / Alg. 4 l.20-35). */
  const decided = (t: Tx, c: number, vl: number[], win: Win): void => {
    const me = t.s.cl[c];
    if (win === Win.R1 || win === Win.R2 || win === Win.R3) {
      const key = `${me.rd}:${me.vNew}`;
      const others = t.s.g.wins.filter((w) => w.startsWith(`${me.rd}:`) && w !== key);
      // I5 (Lemma 3): at most one last writer per round (m = 0 has no snapshot to agree on).
      if (others.length > 0 && vl.length > 0 && !kv) broke(t, `I5: c${c} wins round ${me.rd} with ${me.vNew}, already won by ${others[0].split(':')[1]}`);
      setGhost(t, { wins: insertSorted(t.s.g.wins, key) });
      // Rule 1, or nothing left to fix (possible only when the thresholds are mutated): commit.
      let pc: Pc = win === Win.R1 || vl.every((v) => v === me.vNew) ? 'W5' : 'W4';
      if (mutant === 'M19' && win !== Win.R1) pc = 'W5'; // M19: the Rule-2/3 winner skips the fix-up
      if (mutant === 'M10' && pc === 'W4') pc = 'W5'; // M10: commit first, fix up afterwards
      if (mutant === 'M5' && pc === 'W4') pc = 'W5'; // M5: commit and CAS the primary, then fix up
      if (mutant === 'M9' && pc === 'W5') pc = 'W6'; // M9: the primary CAS before the log commit
      setClient(t, c, { vl, win, pc });
      return;
    }
    if (win === Win.Finish) return void setClient(t, c, { vl, win, pc: 'L2' });
    // LOSE: wait for the primary to change (Alg. 1 l.16-22); M6 returns at once.
    setClient(t, c, { vl, win, pc: mutant === 'M6' ? 'L2' : 'L1' });
  };

  // ---- the steps ------------------------------------------------------------------------

  const stepFns: Record<Kind, (t: Tx, a: FuseeAction) => void> = {
    // Invocation merged with phase 1 (X§2.5 step 1, Fig. 9 ①): the KV object and its log
    // entry {old value empty, used = 1} are written in one RDMA_WRITE.
    invoke(t, a) {
      const me = t.s.cl[a.c];
      const op: Op = open ? { f: 'write', v: a.x } : config.clients[a.c][me.op];
      observeInvoke(t, a.c, op);
      const vNew = op.f === 'delete' ? 0 : (op as { v: number }).v;
      setClient(t, a.c, { pc: 'W1', vNew, log: [vNew, 1, NONE] });
    },

    // Alg. 1 l.1-4 / Alg. 4 l.2: READ of the primary, the linearization point. Invocation
    // merged with it; a FAIL goes on to read the backups (Alg. 4 l.3-4).
    read(t, a) {
      const op = opOf(t.s, a.c);
      observeInvoke(t, a.c, op);
      let v = t.s.rep[t.s.primary];
      if (mutant === 'M4') v = t.s.rep[a.x]; // M4: readers read a backup instead of the primary
      if (v === CRASHED) return void setClient(t, a.c, { pc: 'R2', bk: t.s.backups.slice() });
      respond(t, a.c, readOut(op, v));
    },

    // Alg. 4 l.4-8: read all alive backups; equal -> that value, else ask the master.
    readBackups(t, a) {
      const me = t.s.cl[a.c];
      const op = opOf(t.s, a.c);
      const vals = me.bk.map((b) => t.s.rep[b]).filter((v) => v !== CRASHED);
      if (mutant === "M4'") return void respond(t, a.c, readOut(op, t.s.rep[a.x])); // M4': one backup, no equality check
      if (vals.every((v) => v === vals[0])) return void respond(t, a.c, readOut(op, vals[0]));
      setClient(t, a.c, { pc: 'RF' });
    },

    // Alg. 4 l.8-10: the master's reply s.
    readReply(t, a) {
      const me = t.s.cl[a.c];
      respond(t, a.c, readOut(opOf(t.s, a.c), me.rpc));
    },

    // Alg. 1 l.6 / Alg. 4 l.12-15: v_old := primary (enabled only when the primary is alive
    // and the master is not fenced: otherwise the client waits for the membership change).
    readPrimary(t, a) {
      const me = t.s.cl[a.c];
      const vOld = t.s.rep[t.s.primary];
      if (kv) {
        const op = config.clients[a.c][me.op];
        // KV level (X§8): INSERT needs the slot empty or its own key's; DELETE needs its key there.
        if (op.f === 'insert' && vOld !== 0 && keyOf(vOld) !== op.k) return void respond(t, a.c, OUT_FULL);
        if (op.f === 'delete' && (vOld === 0 || keyOf(vOld) !== op.k)) {
          setClient(t, a.c, { log: [0, 0, NONE] });
          return void respond(t, a.c, OUT_OK);
        }
      }
      setGhost(t, { props: insertSorted(t.s.g.props, `${vOld}>${me.vNew}`) });
      const bk = t.s.backups.slice();
      setClient(t, a.c, { pc: 'W2', vOld, pr: t.s.primary, bk, vl: bk.map(() => NONE), win: Win.None, rd: t.s.g.rnd });
      if (bk.length === 0) evaluate(t, a.c);
    },

    // Alg. 1 l.7: CAS(b, v_old -> v_new), one backup at a time; the last return triggers
    // change_list_value and EVALUATE_RULES.
    casBackup(t, a) {
      const me = t.s.cl[a.c];
      const prior = cas(t, me.bk[a.x], me.vOld, me.vNew, `c${a.c}`);
      // I9 ([L179]): a backup's first change in round u is a round-u writer's CAS from x_u.
      if (prior === me.vOld && prior !== me.vNew && !kv && (me.rd !== t.s.g.rnd || prior !== t.s.g.cur)) {
        broke(t, `I9: c${a.c} of round ${me.rd} changes r${me.bk[a.x]} from ${prior} in round ${t.s.g.rnd}`);
      }
      const vl = me.vl.slice();
      vl[a.x] = prior;
      setClient(t, a.c, { vl });
      if (!vl.includes(NONE)) evaluate(t, a.c);
    },

    // Alg. 2 l.12-19: re-read the primary before Rule 3.
    reRead(t, a) {
      const me = t.s.cl[a.c];
      const v = t.s.rep[me.pr];
      if (v === CRASHED) return void setClient(t, a.c, { win: Win.Fail, pc: 'F1' });
      if (v !== me.vOld) return void decided(t, a.c, me.vl, Win.Finish);
      decided(t, a.c, me.vl, rule3(me.vl, me.vNew));
    },

    // Alg. 1 l.14: CAS(b, v_list[b] -> v_new) on each backup not yet holding v_new; result ignored.
    fixup(t, a) {
      const me = t.s.cl[a.c];
      const prior = cas(t, me.bk[a.x], me.vl[a.x], me.vNew, `c${a.c} fix-up`);
      // I9: the second change of a backup in a round is the round winner's fix-up.
      if (prior === me.vl[a.x] && prior !== me.vNew && !kv && (me.rd !== t.s.g.rnd || !t.s.g.wins.includes(`${me.rd}:${me.vNew}`))) {
        broke(t, `I9: c${a.c}, winner of round ${me.rd}, fixes up r${me.bk[a.x]} in round ${t.s.g.rnd}`);
      }
      if (!t.s.g.fixing) setGhost(t, { fixing: true });
      const vl = me.vl.slice();
      vl[a.x] = me.vNew;
      const done = vl.every((v) => v === me.vNew);
      if (mutant === 'M5' && done) return void respond(t, a.c, writeOut);
      // M10 committed before the fix-up and M9 commits after the primary CAS: both go on to it.
      setClient(t, a.c, { vl, pc: done ? (mutant === 'M10' || mutant === 'M9' ? 'W6' : 'W5') : 'W4' });
    },

    // X§2.5 step 2 (Fig. 9 ③, A.4.2 [L806]): the last writer writes v_old into its log.
    commitLog(t, a) {
      const me = t.s.cl[a.c];
      checkI11(t, a.c, 'commits its log');
      const log: [number, number, number] = [me.log[0], me.log[1], me.vOld];
      let pc: Pc = 'W6';
      if (mutant === 'M10' && me.vl.some((v) => v !== me.vNew)) pc = 'W4';
      if (mutant === 'M9') {
        setClient(t, a.c, { log });
        return void respond(t, a.c, writeOut);
      }
      setClient(t, a.c, { log, pc });
    },

    // Alg. 1 l.12/15: CAS(primary, v_old -> v_new); the result is ignored and the op returns.
    casPrimary(t, a) {
      const me = t.s.cl[a.c];
      checkI11(t, a.c, 'CASes the primary');
      // I8: only a decided last writer modifies the primary.
      if (me.win !== Win.R1 && me.win !== Win.R2 && me.win !== Win.R3) broke(t, `I8: c${a.c} CASes the primary without winning`);
      const prior = cas(t, me.pr, me.vOld, me.vNew, `c${a.c}`);
      if (prior === me.vOld) primaryChanged(t, me.vOld, me.vNew, `c${a.c}`);
      if (mutant === 'M9') return void setClient(t, a.c, { pc: 'W5' });
      if (mutant === 'M5' && me.vl.some((v) => v !== me.vNew)) return void setClient(t, a.c, { pc: 'W4' });
      respond(t, a.c, writeOut);
    },

    // Alg. 1 l.17-22 / Alg. 4 l.26-32, as a guarded action: enabled once the primary changed
    // (or FAILs); the member_prepare_change branch (l.28-29) is the master's prepare.
    loserWait(t, a) {
      const me = t.s.cl[a.c];
      if (t.s.rep[me.pr] === CRASHED) return void setClient(t, a.c, { pc: 'F1' });
      setClient(t, a.c, { pc: 'L2' });
    },

    // [L276]: a non-last writer resets its used bit after the primary changed, and returns.
    loserReturn(t, a) {
      const me = t.s.cl[a.c];
      // I12 (Lemma 6): a LOSE/FINISH write returns only after its round ended.
      if (t.s.g.rnd <= me.rd) broke(t, `I12: c${a.c} returns as a loser in round ${me.rd} before the round ended`);
      if (mutant !== 'M7') setClient(t, a.c, { log: [me.log[0], 0, me.log[2]] }); // M7: used bit left set
      if (kv && me.vNew !== 0 && mutant !== 'M23') {
        // X§5.1 item 16 [CODE]: a losing INSERT retries (another key may have taken the slot).
        return void setClient(t, a.c, { pc: 'W1', vOld: NONE, pr: -1, bk: [], vl: [], win: Win.None, log: [me.vNew, 1, NONE] });
      }
      loserResponds(t, a.c, writeOut);
    },

    // Alg. 4 l.35-39: the master replied s. s = v_old: the write did not happen, retry it with
    // the same v_new (X§2.4), rewriting its log entry; otherwise return success.
    failReply(t, a) {
      const me = t.s.cl[a.c];
      const s = me.rpc;
      if (s === me.vOld && mutant !== 'M13') {
        // M13 returns instead of retrying
        return void setClient(t, a.c, { pc: 'W1', vOld: NONE, pr: -1, bk: [], vl: [], win: Win.None, rpc: NONE, log: [me.vNew, 1, NONE] });
      }
      if (s === me.vNew) return void respond(t, a.c, writeOut); // the master installed my value and committed my log
      if (kv && me.vNew !== 0) {
        // a KV INSERT whose value was not chosen retries, like a losing INSERT
        return void setClient(t, a.c, { pc: 'W1', vOld: NONE, pr: -1, bk: [], vl: [], win: Win.None, rpc: NONE, log: [me.vNew, 1, NONE] });
      }
      setClient(t, a.c, { log: [me.log[0], 0, me.log[2]] });
      loserResponds(t, a.c, writeOut);
    },

    // A client crashes at any point (crash-stop [L295]); its pending op becomes indeterminate.
    crashClient(t, a) {
      const me = t.s.cl[a.c];
      const pending = PENDING_WRITE.has(me.pc) || PENDING_READ.has(me.pc);
      if (pending) {
        t.ev.push({ kind: 'crash', client: a.c });
        if (!open) t.s.mon = monCrash(model, t.s.mon, a.c);
      }
      // From now on `op` names the op the tail log entry belongs to (recovery redoes it).
      t.s.cl = t.s.cl.slice();
      t.s.cl[a.c] = idleClient(pending ? me.op : Math.max(0, me.op - 1), Rec.Pending, me.log);
      t.s.clLeft--;
    },

    // Alg. 3 l.13-26 RecoverClient on the tail log entry (§5.3 [L311-319], Fig. 9 c0-c3).
    recoverClient(t, a) {
      const me = t.s.cl[a.c];
      const [vNew, used, old] = me.log;
      const done = (): void => void setClient(t, a.c, idleClient(me.op, Rec.Done, me.log));
      if (old === COMMITTED || used === 0 || vNew === NONE) return done(); // committed by the master, or c0
      if (old === NONE) {
        if (mutant === 'M17') return done(); // M17 reclaims instead of redoing
        // c1: redo the op with the v_new in the log (Alg. 3 l.18,22) by an agent that does not crash.
        const v = mutant === 'M16' ? vNew + FRESH : vNew; // M16 redoes with a freshly allocated object
        return void setClient(t, a.c, { ...idleClient(me.op, Rec.Redo, mutant === 'M16' ? [v, 1, NONE] : me.log), pc: 'W1', vNew: v });
      }
      // c2 / c3: old value complete.
      const p = t.s.rep[t.s.primary];
      const guard = kv && mutant !== 'M24' ? aliveBackups(t.s).every((b) => t.s.rep[b] === vNew) : true; // [CODE] check_recover_need_cas_pr
      if ((p === old || mutant === 'M11') && guard && p !== vNew) {
        // I18: the c2 CAS fires only when all alive backups already hold v_new.
        const stale = aliveBackups(t.s).filter((b) => t.s.rep[b] !== vNew);
        if (stale.length > 0) broke(t, `I18: recovery of c${a.c} CASes the primary to ${vNew} while backup r${stale[0]} holds ${t.s.rep[stale[0]]}`);
        const prior = mutant === 'M11' ? cas(t, t.s.primary, p, vNew, `recovery(c${a.c})`) : cas(t, t.s.primary, old, vNew, `recovery(c${a.c})`);
        if (prior === p) primaryChanged(t, p, vNew, `recovery(c${a.c})`);
      }
      done();
    },

    // An MN crash: the replica FAILs every verb from now on [L532].
    crashMN(t, a) {
      const rep = t.s.rep.slice();
      rep[a.x] = CRASHED;
      t.s.rep = rep;
      t.s.mnLeft--;
    },

    // Alg. 3 l.2-4 (A.4.1 disconnection phase [L794-798]): member_prepare_change fences the
    // slot; in-flight writes are diverted to fail_query (a winner not yet done is "deemed
    // also as a loser" [L798]); running recoveries are aborted, to restart afterwards.
    prepare(t) {
      const cl = t.s.cl.map((c): Client => {
        if (c.rec === Rec.Redo && mutant !== 'M15') return idleClient(c.op, Rec.Pending, c.log); // M15 keeps the recovery going
        if (!IN_FLIGHT.has(c.pc)) return c;
        if (mutant === 'M12' && (c.pc === 'W4' || c.pc === 'W5' || c.pc === 'W6')) return c; // M12: decided winners not fenced
        return { ...c, pc: 'F1' };
      });
      t.s.cl = cl;
      t.s.fenced = true;
    },

    // Alg. 3 l.5-10: choose s from an alive backup (the primary's if none is alive), write it
    // to every alive replica, commit write(s)'s log, reconfigure, reply to fail_queries.
    decide(t, a) {
      const s = a.x;
      const alive = [t.s.primary, ...t.s.backups].filter((i) => t.s.rep[i] !== CRASHED);
      const rep = t.s.rep.slice();
      for (const i of [...aliveBackups(t.s), t.s.primary]) if (rep[i] !== CRASHED) rep[i] = s; // backups before primary
      const pOld = t.s.rep[t.s.primary];
      t.s.rep = rep;
      if (pOld !== CRASHED && pOld !== s && !kv && t.s.g.ph.includes(s)) broke(t, `I2: the master installs ${s} in the primary a second time`);
      const primary = alive[0];
      t.s.primary = primary;
      t.s.backups = alive.slice(1);
      t.s.cl = t.s.cl.map((c): Client => {
        let next = c;
        // l.7: commit the operation log of write(s) (the special value 1, [L796]).
        if (mutant !== 'M8' && c.log[0] === s && c.log[2] !== COMMITTED && c.log[1] === 1) next = { ...next, log: [c.log[0], c.log[1], COMMITTED] }; // M8 skips it
        if (c.pc === 'F1') next = { ...next, pc: 'F2', rpc: s };
        if (c.pc === 'RF') next = { ...next, pc: 'RF2', rpc: s };
        return next;
      });
      setGhost(t, { rnd: t.s.g.rnd + 1, ph: insertSorted(t.s.g.ph, s), cur: s, snap: '', fixing: false });
      t.s.fenced = false;
    },
  };

  /** I11 (fix-up before commit, commit before the primary CAS). */
  const checkI11 = (t: Tx, c: number, what: string): void => {
    const me = t.s.cl[c];
    const stale = aliveBackups(t.s).filter((b) => t.s.rep[b] !== me.vNew);
    if (stale.length > 0) broke(t, `I11: c${c} ${what} while backup r${stale[0]} holds ${t.s.rep[stale[0]]}, not ${me.vNew}`);
    if (what === 'CASes the primary' && me.log[2] === NONE) broke(t, `I11: c${c} CASes the primary before committing its log`);
  };

  // A slot value is the address of a KV object; M16's fresh object holds the same user value.
  const readOut = (op: Op, v: number): number => (op.f === 'search' ? (v !== 0 && keyOf(v) === op.k ? v : 0) : v > FRESH && !open ? v - FRESH : v);

  function step(s: FuseeState, a: FuseeAction): Tx {
    const t: Tx = { s: { ...s }, ev: [] };
    stepFns[a.kind](t, a);
    return t;
  }

  // ---- enabled actions ------------------------------------------------------------------

  /** The steps client c can take in s (its part of `actions`, in the same order). */
  function clientActions(s: FuseeState, c: number, out: FuseeAction[]): void {
    const me = s.cl[c];
    const primaryAlive = s.rep[s.primary] !== CRASHED;
    const op = open ? undefined : config.clients[c][me.op]; // open: invocations come from the trace (openInvoke)
    switch (me.pc) {
      case 'idle':
        if (!op) break;
        if (isWrite(op)) out.push(act('invoke', `invoke(c${c}, ${describeOp(op)})`, c));
        else if (mutant === 'M4') s.backups.forEach((b) => out.push(act('read', `read(c${c}, r${b})`, c, b)));
        else out.push(act('read', `read(c${c})`, c));
        break;
      case 'W1':
        if (primaryAlive && !s.fenced) out.push(act('readPrimary', `readPrimary(c${c})`, c));
        break;
      case 'W2':
        for (let i = 0; i < me.bk.length; i++) {
          if (me.vl[i] !== NONE) continue;
          out.push(act('casBackup', `casBackup(c${c}, r${me.bk[i]})`, c, i));
          if (config.casOrder === 'fixed') break;
        }
        break;
      case 'W3':
        out.push(act('reRead', `reRead(c${c})`, c));
        break;
      case 'W4':
        for (let i = 0; i < me.bk.length; i++) {
          if (me.vl[i] === me.vNew) continue;
          out.push(act('fixup', `fixup(c${c}, r${me.bk[i]})`, c, i));
          if (config.casOrder === 'fixed') break;
        }
        break;
      case 'W5':
        out.push(act('commitLog', `commitLog(c${c})`, c));
        break;
      case 'W6':
        out.push(act('casPrimary', `casPrimary(c${c})`, c));
        break;
      case 'L1':
        if (s.rep[me.pr] !== me.vOld) out.push(act('loserWait', `loserWait(c${c})`, c));
        break;
      case 'L2':
        out.push(act('loserReturn', `loserReturn(c${c})`, c));
        break;
      case 'F2':
        out.push(act('failReply', `failReply(c${c})`, c));
        break;
      case 'R2':
        if (mutant === "M4'") me.bk.filter((b) => s.rep[b] !== CRASHED).forEach((b) => out.push(act('readBackups', `readBackups(c${c}, r${b})`, c, b)));
        else out.push(act('readBackups', `readBackups(c${c})`, c));
        break;
      case 'RF2':
        out.push(act('readReply', `readReply(c${c})`, c));
        break;
      case 'down':
        if (me.rec === Rec.Pending && !s.fenced && ![s.primary, ...s.backups].some((i) => s.rep[i] === CRASHED)) out.push(act('recoverClient', `recoverClient(c${c}, ${recoveryCase(s, me)})`, c));
        break;
    }
  }

  function actions(s: FuseeState): FuseeAction[] {
    const out: FuseeAction[] = [];
    const roleCrashed = [s.primary, ...s.backups].some((i) => s.rep[i] === CRASHED);
    let busy = false;
    s.cl.forEach((me, c) => {
      const op = open ? undefined : config.clients[c][me.op];
      if (me.rec === Rec.Pending || me.rec === Rec.Redo) busy = true;
      if (me.rec === Rec.Live && (me.pc !== 'idle' || op || open)) busy = true;
      clientActions(s, c, out);
    });
    // Master (Alg. 3): triggered by an MN crash in the slot's roles or a pending fail_query.
    // In an open workload (an implementation's trace) the slot is one of many, and the
    // master's member_prepare_change fences them all: an episode for another key's crash
    // or query fences this slot too, and the master then decides it like any other.
    if (!s.fenced) {
      const query = s.cl.some((me) => me.pc === 'F1' || me.pc === 'RF');
      if (roleCrashed || query || open) out.push(act('prepare', 'prepare(master)'));
    } else {
      for (const v of choices(s)) out.push(act('decide', `decide(master, ${v})`, -1, v));
    }
    // Environment: crashes, while the run is not over.
    s.cl.forEach((me, c) => {
      if (s.clLeft > 0 && (open || writers[c]) && me.rec === Rec.Live) out.push(act('crashClient', `crashClient(c${c})`, c));
    });
    if (s.mnLeft > 0 && (busy || open)) {
      for (const i of [s.primary, ...s.backups]) if (s.rep[i] !== CRASHED) out.push(act('crashMN', `crashMN(r${i})`, -1, i));
    }
    return out;
  }

  /** Alg. 3 l.5: the values of the alive backups, or the primary's when none is alive. */
  function choices(s: FuseeState): number[] {
    const p = s.rep[s.primary];
    if (mutant === 'M14' && p !== CRASHED) return [p]; // M14: the master takes the primary's value (control)
    const vals = [...new Set(aliveBackups(s).map((b) => s.rep[b]))].sort((x, y) => x - y);
    return vals.length > 0 ? vals : [p];
  }

  const init = (): FuseeState => ({
    rep: Array(r).fill(0),
    primary: 0,
    backups: Array.from({ length: r - 1 }, (_, i) => i + 1),
    fenced: false,
    mnLeft: crashBudget,
    clLeft: config.clientCrashes,
    cl: config.clients.map(() => idleClient(0, Rec.Live, [NONE, 0, NONE])),
    g: { rnd: 0, ph: [0], props: [], wins: [], dead: [], cur: 0, snap: '', fixing: false, tv: '' },
    mon: monInit(model),
  });

  // The open workload keeps no ghosts, so the invariants (which read them) do not apply.
  const invariants = open ? {} : makeInvariants(config, kv);

  return {
    init: () => [init()],
    actions,
    next: (s, a) => step(s, a).s,
    invariants,
    mayStop: (s) => !s.fenced && s.cl.every((me, c) => me.rec === Rec.Done || (me.rec === Rec.Live && me.pc === 'idle' && (open || me.op === config.clients[c].length))),
    progress: (_before, a) => a.kind === 'read' || a.kind === 'readReply' || a.kind === 'casPrimary' || a.kind === 'loserReturn' || a.kind === 'failReply' || a.kind === 'readBackups',
    ...(open
      ? {}
      : {
          history: {
            model: kv ? kvHistoryModel : registerHistoryModel,
            clients: config.clients.length,
            observe: (before: FuseeState, a: FuseeAction) => step(before, a).ev,
          },
        }),
    actor: (a) => (a.c >= 0 ? `c${a.c}` : a.kind === 'crashMN' ? `r${a.x}` : 'master'),
    clientActions(s, c) {
      const out: FuseeAction[] = [];
      clientActions(s, c, out);
      return out;
    },
  };
}

/** Which case of Fig. 9 / Alg. 3 the tail log entry is in (named in the action's label). */
export function recoveryCase(s: FuseeState, me: Client): string {
  const [vNew, used, old] = me.log;
  if (old === COMMITTED) return 'committed';
  if (used === 0 || vNew === NONE) return 'c0';
  if (old === NONE) return 'c1 redo';
  return s.rep[s.primary] === old ? 'c2' : 'c3';
}

// ---- the open workload (config.open): clients join and leave, invocations come from outside

const OPEN_READ: Op = { f: 'read' };

/** A new client, idle and live, as the last slot. */
export function joinClient(s: FuseeState): FuseeState {
  return { ...s, cl: [...s.cl, idleClient(0, Rec.Live, [NONE, 0, NONE])] };
}

/** The state without client slot c (a client whose recovery has nothing left to do); later slots move down. */
export function leaveClient(s: FuseeState, c: number): FuseeState {
  return { ...s, cl: s.cl.filter((_, i) => i !== c) };
}

/** The invocation of an open workload's op by client slot c: a write of v, or a read (v undefined). */
export function openInvoke(c: number, v?: number): FuseeAction {
  return v === undefined ? act('read', `read(c${c})`, c) : act('invoke', `invoke(c${c}, write ${v})`, c, v);
}

// ---- invariants of X§4.3 that apply to one slot, by name --------------------------------

function makeInvariants(config: FuseeConfig, kv: boolean): Record<string, (s: FuseeState) => true | string> {
  const all: Record<string, (s: FuseeState) => true | string> = {
    // Linearizability of the client history against the register (KV: the one-slot KV
    // model); crashed clients' ops may take effect once or not at all.
    LIN: (s) => (s.mon.bad ? s.mon.bad : true),
  };
  // Transition invariants are checked when the step fires and recorded in the ghost (the
  // first one broken); each is reported under its own name.
  // I2, I5, I9 and I10 need unique values, which the KV level does not have (DELETE writes the empty slot).
  const transition = kv ? ['I4', 'I8', 'I11', 'I12', 'I13', 'I17', 'I18'] : ['I2', 'I4', 'I5', 'I8', 'I9', 'I10', 'I11', 'I12', 'I13', 'I17', 'I18'];
  for (const name of transition) all[name] = (s) => (s.g.tv.startsWith(`${name}:`) ? s.g.tv : true);
  if (kv) return all;
  return {
    ...all,
    // I1 (A.2): values written are pairwise distinct and differ from x0.
    I1: (s) => {
      const vs = s.cl.map((c) => c.log[0]).filter((v) => v !== NONE);
      return new Set(vs).size === vs.length && !vs.includes(0) ? true : `I1: values written are not unique: ${vs.join(',')}`;
    },
    // I3 (§5.2 [L309], A.4.1 [L796]): backups are never older than the primary.
    I3: (s) => {
      const p = s.rep[s.primary];
      if (p === CRASHED) return true;
      for (const b of s.backups) {
        const v = s.rep[b];
        if (v === CRASHED || v === p) continue;
        if (!s.g.props.includes(`${p}>${v}`)) return `I3: backup r${b} holds ${v}, which is not a proposal from the primary's ${p}`;
      }
      return true;
    },
    // I14: the value of a write that returned as a non-winner never reappears.
    I14: (s) => {
      for (const i of [s.primary, ...s.backups]) {
        if (s.g.dead.includes(s.rep[i])) return `I14: r${i} holds ${s.rep[i]}, the value of a write that returned as a non-winner`;
      }
      return true;
    },
  };
}

// ---- history conventions (/tmp/brief.md): register read -> value or null; kv get -> '' ---

function historyInput(op: Op): { f: string; key?: string; value?: unknown } {
  switch (op.f) {
    case 'write':
      return { f: 'write', value: op.v };
    case 'read':
      return { f: 'read' };
    case 'insert':
      return { f: 'insert', key: `K${op.k}`, value: op.v };
    case 'delete':
      return { f: 'delete', key: `K${op.k}` };
    case 'search':
      return { f: 'search', key: `K${op.k}` };
  }
}

function historyOutput(op: Op, out: number): unknown {
  switch (op.f) {
    case 'read':
      return out === 0 ? null : out;
    case 'search':
      return out === 0 ? null : out;
    case 'insert':
      return out === OUT_FULL ? 'full' : 'ok';
    default:
      return null;
  }
}

export function describeOp(op: Op): string {
  switch (op.f) {
    case 'write':
      return `write ${op.v}`;
    case 'read':
      return 'read';
    case 'insert':
      return `insert K${op.k}=${op.v}`;
    case 'delete':
      return `delete K${op.k}`;
    case 'search':
      return `search K${op.k}`;
  }
}

/** The register of Def. 1 as a lin Model (history values: x0 reads as null). */
const registerHistoryModel: Model<number | null, { f: string; value?: number }, unknown> = {
  name: 'fusee-register',
  init: () => null,
  step: (s, input, output) =>
    input.f === 'write' ? { ok: true, state: input.value ?? null } : { ok: output === UNKNOWN || output === s, state: s },
  hash: (s) => (s === null ? 0 : s),
};

/** The one-slot KV model of monitor.ts as a lin Model. */
const kvHistoryModel: Model<number, { f: string; key?: string; value?: number }, unknown> = {
  name: 'fusee-kv-slot',
  init: () => 0,
  step(s, input, output) {
    const op: MonOp = { c: 0, f: input.f, k: Number((input.key ?? 'K0').slice(1)), v: input.value ?? 0, x: false };
    const [next, out] = kvSlotModel.apply(s, op);
    if (output === UNKNOWN) return { ok: true, state: next };
    const expected = op.f === 'search' ? (out === 0 ? null : out) : op.f === 'insert' ? (out === OUT_FULL ? 'full' : 'ok') : null;
    return { ok: expected === output, state: next };
  },
  hash: (s) => s,
};
