// FUSEE's steps as a table (specs/kit/table.ts): one action per RDMA verb on one replica
// (A.1 [L530]: verbs on one slot are atomic), each per-backup CAS its own action (X§1.2).
// A client's steps come in the order of its program counter (state.ts `Pc`, each step's
// `at`): a client is at one pc, so only that pc's steps can be enabled (one of them, but
// for invoke/read at idle), with one instance per backup where the CASes run in parallel. Then the master (Alg. 3) and the environment's
// crashes. The order is the order the spec always enumerated in, so breadth-first search
// finds the same counterexamples.

import { addSorted } from '../kit/state.ts';
import type { ActionTable, ActorStep, GlobalStep } from '../kit/table.ts';
import { cas, staleBackup, checkI11, ghost, isWrite, loserResponds, newRound, observeCrash, observeInvoke, opOf, primaryChanged, readOut, respond, broke, type Cx } from './context.ts';
import { describeOp, keyOf, OUT_FULL, OUT_OK } from './models.ts';
import { decided, evaluate, rule3 } from './rules.ts';
import { act, pair, COMMITTED, CRASHED, FRESH, idleClient, NONE, operation, ownClient, ownRep, Rec, replaceClient, Win, type Client, type FuseeAction, type FuseeState, type Op, type Pc } from './state.ts';

type Step = ActorStep<FuseeState, FuseeAction>;
type Global = GlobalStep<FuseeState, FuseeAction>;

const PENDING: ReadonlySet<Pc> = new Set(['W1', 'W2', 'W3', 'W4', 'W5', 'W6', 'L1', 'L2', 'F1', 'F2', 'R2', 'RF', 'RF2']);
/** Writes between their primary read and their return, which the master's fence diverts. */
const IN_FLIGHT: ReadonlySet<Pc> = new Set(['W2', 'W3', 'W4', 'W5', 'W6', 'L1']);

/** The op client c invokes next from its script; none in an open workload (the trace invokes, openInvoke). */
const scriptOp = (cx: Cx, s: FuseeState, c: number): Op | undefined => (cx.open ? undefined : cx.cfg.clients[c][s.cl[c].op]);

/**
 * A step of client c enabled at program counter `pc` (and when `also` holds), one instance.
 * Its action depends on c alone, so each is made once (actions never change).
 */
const guardAt = (pc: Pc, name: FuseeAction['step'], also?: (s: FuseeState, me: Client) => boolean): Step['enabled'] => {
  const made: FuseeAction[] = [];
  return (s, c, out) => {
    const me = s.cl[c];
    if (me.pc === pc && (!also || also(s, me))) out.push(made[c] ?? (made[c] = act(name, `${name}(c${c})`, c)));
  };
};

/**
 * Actions by a small key (client, replica, value …): each made, and its label built, once
 * per machine, since actions never change; a guard that makes them anew for every state
 * it is asked about costs an object and a label each time (and the engine's coverage a
 * lookup of a new string).
 */
class Made {
  private readonly m = new Map<number, FuseeAction>();
  get(key: number): FuseeAction | undefined {
    return this.m.get(key);
  }
  put(key: number, a: FuseeAction): FuseeAction {
    this.m.set(key, a);
    return a;
  }
}
/** A key for (client, index, replica), each under 64 (else the action is made afresh, uncached). */
const key3 = (c: number, i: number, b: number): number => (i < 64 && b < 64 && b >= 0 ? (c * 64 + i) * 64 + b : -1);

/** The restart of client c's write (Alg. 4 l.37, X§2.4, X§5.1 item 16): from l.6 with the same v_new, its log entry rewritten. */
function retry(d: FuseeState, c: number, rpc = NONE): void {
  const me = ownClient(d, c);
  me.pc = 'W1';
  me.vOld = NONE;
  me.pr = -1;
  me.bk = [];
  me.vl = [];
  me.win = Win.None;
  me.rpc = rpc;
  me.log = [me.vNew, 1, NONE];
}

/** A v_list of m CASes all outstanding (NONE): one list per length, shared (a client's lists are replaced, never changed). */
const allNone: number[][] = [];
function outstanding(m: number): number[] {
  return (allNone[m] ??= Array.from({ length: m }, () => NONE));
}

/** Client c goes to program counter pc. */
const goTo = (d: FuseeState, c: number, pc: Pc): void => void (ownClient(d, c).pc = pc);

/** Which case of Fig. 9 / Alg. 3 the tail log entry is in (named in the action's label). */
export function recoveryCase(s: FuseeState, me: Client): string {
  const [vNew, used, old] = me.log;
  if (old === COMMITTED) return 'committed';
  if (used === 0 || vNew === NONE) return 'c0';
  if (old === NONE) return 'c1 redo';
  return s.rep[s.primary] === old ? 'c2' : 'c3';
}

const CASES = ['committed', 'c0', 'c1 redo', 'c2', 'c3'];

function clientSteps(cx: Cx): Step[] {
  const { mut } = cx;
  const invokes = new Made();
  const reads = new Made();
  const casBackups = new Made();
  const fixups = new Made();
  const readBackups = new Made();
  const recovers = new Made();
  return [
    {
      name: 'invoke', at: 'idle', cites: 'X§2.5 step 1, Fig. 9 ①: the KV object and its log entry {old empty, used = 1} in one RDMA_WRITE',
      enabled: (s, c, out) => {
        const op = scriptOp(cx, s, c);
        if (s.cl[c].pc !== 'idle' || !op || !isWrite(op)) return;
        const k = c * 1024 + s.cl[c].op;
        out.push(invokes.get(k) ?? invokes.put(k, act('invoke', `invoke(c${c}, ${describeOp(op)})`, c)));
      },
      effect: (d, a) => {
        const op: Op = cx.open ? operation('write', 0, a.x) : cx.cfg.clients[a.c][d.cl[a.c].op];
        observeInvoke(cx, d, a.c, op);
        const vNew = op.v; // a DELETE writes the empty slot, 0
        const me = ownClient(d, a.c);
        me.pc = 'W1';
        me.vNew = vNew;
        me.log = [vNew, 1, NONE];
      },
    },
    {
      name: 'read', at: 'idle', cites: 'Alg. 1 l.1-4 / Alg. 4 l.2: READ of the primary, the linearization point (invocation merged with it)',
      enabled: (s, c, out) => {
        const op = scriptOp(cx, s, c);
        if (s.cl[c].pc !== 'idle' || !op || isWrite(op)) return;
        if (mut.M4) for (const b of s.backups) out.push(act('read', `read(c${c}, r${b})`, c, b));
        else out.push(reads.get(c) ?? reads.put(c, act('read', `read(c${c})`, c)));
      },
      effect: (d, a) => {
        const op = opOf(cx, d, a.c);
        observeInvoke(cx, d, a.c, op);
        let v = d.rep[d.primary];
        if (mut.M4) v = d.rep[a.x]; // M4: readers read a backup instead of the primary
        // A FAIL goes on to read the backups (Alg. 4 l.3-4).
        if (v === CRASHED) {
          const me = ownClient(d, a.c);
          me.pc = 'R2';
          me.bk = d.backups; // the view's backups, replaced (decide), never changed
          return;
        }
        respond(cx, d, a.c, readOut(cx, op, v));
      },
    },
    {
      // Enabled only when the primary is alive and the master is not fenced: otherwise the
      // client waits for the membership change.
      name: 'readPrimary', at: 'W1', cites: 'Alg. 1 l.6 / Alg. 4 l.12-15: v_old := primary',
      enabled: guardAt('W1', 'readPrimary', (s) => s.rep[s.primary] !== CRASHED && !s.fenced),
      effect: (d, a) => {
        const me = d.cl[a.c];
        const vOld = d.rep[d.primary];
        if (cx.kv) {
          const op = cx.cfg.clients[a.c][me.op];
          // KV level (X§8): INSERT needs the slot empty or its own key's; DELETE needs its key there.
          if (op.f === 'insert' && vOld !== 0 && keyOf(vOld) !== op.k) return void respond(cx, d, a.c, OUT_FULL);
          if (op.f === 'delete' && (vOld === 0 || keyOf(vOld) !== op.k)) {
            ownClient(d, a.c).log = [0, 0, NONE];
            return void respond(cx, d, a.c, OUT_OK);
          }
        }
        if (!cx.open) ghost(cx, d).props = addSorted(d.g.props, pair(vOld, me.vNew));
        const mine = ownClient(d, a.c);
        mine.pc = 'W2';
        mine.vOld = vOld;
        mine.pr = d.primary;
        mine.bk = d.backups; // the view's backups, replaced (decide), never changed
        mine.vl = outstanding(mine.bk.length);
        mine.win = Win.None;
        mine.rd = d.g.rnd;
        if (mine.bk.length === 0) evaluate(cx, d, a.c);
      },
    },
    {
      name: 'casBackup', at: 'W2', cites: 'Alg. 1 l.7: CAS(b, v_old -> v_new), one backup at a time; the last return runs Alg. 1 l.9 and Alg. 2',
      enabled: (s, c, out) => {
        const me = s.cl[c];
        if (me.pc !== 'W2') return;
        for (let i = 0; i < me.bk.length; i++) {
          if (me.vl[i] !== NONE) continue;
          const k = key3(c, i, me.bk[i]);
          out.push((k >= 0 ? casBackups.get(k) : undefined) ?? casBackups.put(k, act('casBackup', `casBackup(c${c}, r${me.bk[i]})`, c, i)));
          if (cx.cfg.casOrder === 'fixed') break;
        }
      },
      effect: (d, a) => {
        const me = d.cl[a.c];
        const prior = cas(cx, d, me.bk[a.x], me.vOld, me.vNew, `c${a.c}`);
        // I9 ([L179]): a backup's first change in round u is a round-u writer's CAS from x_u.
        if (prior === me.vOld && prior !== me.vNew && !cx.kv && (me.rd !== d.g.rnd || prior !== d.g.cur)) {
          broke(cx, d, `I9: c${a.c} of round ${me.rd} changes r${me.bk[a.x]} from ${prior} in round ${d.g.rnd}`);
        }
        const vl = me.vl.slice();
        vl[a.x] = prior;
        ownClient(d, a.c).vl = vl;
        if (!vl.includes(NONE)) evaluate(cx, d, a.c);
      },
    },
    {
      name: 'reRead', at: 'W3', cites: 'Alg. 2 l.12-19: re-read the primary before Rule 3',
      enabled: guardAt('W3', 'reRead'),
      effect: (d, a) => {
        const me = d.cl[a.c];
        const v = d.rep[me.pr];
        if (v === CRASHED) {
          const mine = ownClient(d, a.c);
          mine.win = Win.Fail;
          mine.pc = 'F1';
          return;
        }
        if (v !== me.vOld) return void decided(cx, d, a.c, me.vl, Win.Finish);
        decided(cx, d, a.c, me.vl, rule3(cx, me.vl, me.vNew));
      },
    },
    {
      name: 'fixup', at: 'W4', cites: 'Alg. 1 l.14: CAS(b, v_list[b] -> v_new) on each backup not yet holding v_new; result ignored',
      enabled: (s, c, out) => {
        const me = s.cl[c];
        if (me.pc !== 'W4') return;
        for (let i = 0; i < me.bk.length; i++) {
          if (me.vl[i] === me.vNew) continue;
          const k = key3(c, i, me.bk[i]);
          out.push((k >= 0 ? fixups.get(k) : undefined) ?? fixups.put(k, act('fixup', `fixup(c${c}, r${me.bk[i]})`, c, i)));
          if (cx.cfg.casOrder === 'fixed') break;
        }
      },
      effect: (d, a) => {
        const me = d.cl[a.c];
        const prior = cas(cx, d, me.bk[a.x], me.vl[a.x], me.vNew, `c${a.c} fix-up`);
        // I9: the second change of a backup in a round is the round winner's fix-up.
        if (prior === me.vl[a.x] && prior !== me.vNew && !cx.kv && !cx.open && (me.rd !== d.g.rnd || !d.g.wins.includes(pair(me.rd, me.vNew)))) {
          broke(cx, d, `I9: c${a.c}, winner of round ${me.rd}, fixes up r${me.bk[a.x]} in round ${d.g.rnd}`);
        }
        if (!d.g.fixing) ghost(cx, d).fixing = true;
        const vl = me.vl.slice();
        vl[a.x] = me.vNew;
        const done = vl.every((v) => v === me.vNew);
        if (mut.M5 && done) return void respond(cx, d, a.c, cx.writeOut);
        // M10 committed before the fix-up and M9 commits after the primary CAS: both go on to it.
        const mine = ownClient(d, a.c);
        mine.vl = vl;
        mine.pc = done ? (mut.M10 || mut.M9 ? 'W6' : 'W5') : 'W4';
      },
    },
    {
      name: 'commitLog', at: 'W5', cites: 'X§2.5 step 2, Fig. 9 ③, A.4.2 [L806]: the last writer writes v_old into its log',
      enabled: guardAt('W5', 'commitLog'),
      effect: (d, a) => {
        const me = d.cl[a.c];
        checkI11(cx, d, a.c, 'commits its log');
        const log: Client['log'] = [me.log[0], me.log[1], me.vOld];
        const mine = ownClient(d, a.c);
        mine.log = log;
        if (mut.M9) return void respond(cx, d, a.c, cx.writeOut);
        mine.pc = mut.M10 && me.vl.some((v) => v !== me.vNew) ? 'W4' : 'W6';
      },
    },
    {
      name: 'casPrimary', at: 'W6', cites: 'Alg. 1 l.12/15: CAS(primary, v_old -> v_new); the result is ignored and the op returns',
      enabled: guardAt('W6', 'casPrimary'),
      effect: (d, a) => {
        const me = d.cl[a.c];
        checkI11(cx, d, a.c, 'CASes the primary');
        // I8: only a decided last writer modifies the primary.
        if (me.win !== Win.R1 && me.win !== Win.R2 && me.win !== Win.R3) broke(cx, d, `I8: c${a.c} CASes the primary without winning`);
        const prior = cas(cx, d, me.pr, me.vOld, me.vNew, `c${a.c}`);
        if (prior === me.vOld) primaryChanged(cx, d, me.vOld, me.vNew, `c${a.c}`);
        if (mut.M9) return goTo(d, a.c, 'W5');
        if (mut.M5 && me.vl.some((v) => v !== me.vNew)) return goTo(d, a.c, 'W4');
        respond(cx, d, a.c, cx.writeOut);
      },
    },
    {
      // A guarded action: enabled once the primary changed (or FAILs); the
      // member_prepare_change branch (l.28-29) is the master's prepare.
      name: 'loserWait', at: 'L1', cites: 'Alg. 1 l.17-22 / Alg. 4 l.26-32: a loser waits for the primary to change',
      enabled: guardAt('L1', 'loserWait', (s, me) => s.rep[me.pr] !== me.vOld),
      effect: (d, a) => goTo(d, a.c, d.rep[d.cl[a.c].pr] === CRASHED ? 'F1' : 'L2'),
    },
    {
      name: 'loserReturn', at: 'L2', cites: '[L276]: a non-last writer resets its used bit after the primary changed, and returns',
      enabled: guardAt('L2', 'loserReturn'),
      effect: (d, a) => {
        const me = d.cl[a.c];
        // I12 (Lemma 6): a LOSE/FINISH write returns only after its round ended.
        if (d.g.rnd <= me.rd) broke(cx, d, `I12: c${a.c} returns as a loser in round ${me.rd} before the round ended`);
        if (!mut.M7) ownClient(d, a.c).log = [me.log[0], 0, me.log[2]]; // M7: used bit left set
        // X§5.1 item 16 [CODE]: a losing INSERT retries (another key may have taken the slot).
        if (cx.kv && me.vNew !== 0 && !mut.M23) return retry(d, a.c, me.rpc);
        loserResponds(cx, d, a.c, cx.writeOut);
      },
    },
    {
      name: 'failReply', at: 'F2', cites: 'Alg. 4 l.35-39: the master replied s; s = v_old: retry with the same v_new (X§2.4), else return',
      enabled: guardAt('F2', 'failReply'),
      effect: (d, a) => {
        const me = d.cl[a.c];
        const s = me.rpc;
        if (s === me.vOld && !mut.M13) return retry(d, a.c); // M13 returns instead of retrying
        if (s === me.vNew) return void respond(cx, d, a.c, cx.writeOut); // the master installed my value and committed my log
        if (cx.kv && me.vNew !== 0) return retry(d, a.c); // a KV INSERT whose value was not chosen retries
        ownClient(d, a.c).log = [me.log[0], 0, me.log[2]];
        loserResponds(cx, d, a.c, cx.writeOut);
      },
    },
    {
      name: 'readBackups', at: 'R2', cites: 'Alg. 4 l.4-8: read all alive backups; equal -> that value, else ask the master',
      enabled: (s, c, out) => {
        const me = s.cl[c];
        if (me.pc !== 'R2') return;
        if (mut["M4'"]) me.bk.filter((b) => s.rep[b] !== CRASHED).forEach((b) => out.push(act('readBackups', `readBackups(c${c}, r${b})`, c, b)));
        else out.push(readBackups.get(c) ?? readBackups.put(c, act('readBackups', `readBackups(c${c})`, c)));
      },
      effect: (d, a) => {
        const me = d.cl[a.c];
        const op = opOf(cx, d, a.c);
        const vals = me.bk.map((b) => d.rep[b]).filter((v) => v !== CRASHED);
        if (mut["M4'"]) return void respond(cx, d, a.c, readOut(cx, op, d.rep[a.x])); // M4': one backup, no equality check
        if (vals.every((v) => v === vals[0])) return void respond(cx, d, a.c, readOut(cx, op, vals[0]));
        goTo(d, a.c, 'RF');
      },
    },
    {
      name: 'readReply', at: 'RF2', cites: "Alg. 4 l.8-10: the master's reply s",
      enabled: guardAt('RF2', 'readReply'),
      effect: (d, a) => respond(cx, d, a.c, readOut(cx, opOf(cx, d, a.c), d.cl[a.c].rpc)),
    },
    {
      name: 'recoverClient', at: 'down', cites: 'Alg. 3 l.13-26 RecoverClient on the tail log entry (§5.3 [L311-319], Fig. 9 c0-c3)',
      enabled: (s, c, out) => {
        const me = s.cl[c];
        if (me.pc !== 'down' || me.rec !== Rec.Pending || s.fenced || roleCrashed(s)) return;
        const kase = recoveryCase(s, me);
        const k = c * 8 + CASES.indexOf(kase);
        out.push(recovers.get(k) ?? recovers.put(k, act('recoverClient', `recoverClient(c${c}, ${kase})`, c)));
      },
      effect: (d, a) => recoverClient(cx, d, a.c),
    },
  ];
}

function recoverClient(cx: Cx, d: FuseeState, c: number): void {
  const { mut } = cx;
  const me = d.cl[c];
  const [vNew, used, old] = me.log;
  const done = (): void => void replaceClient(d, c, idleClient(me.op, Rec.Done, me.log));
  if (old === COMMITTED || used === 0 || vNew === NONE) return done(); // committed by the master, or c0
  if (old === NONE) {
    if (mut.M17) return done(); // M17 reclaims instead of redoing
    // c1: redo the op with the v_new in the log (Alg. 3 l.18,22) by an agent that does not crash.
    const v = mut.M16 ? vNew + FRESH : vNew; // M16 redoes with a freshly allocated object
    const agent = replaceClient(d, c, idleClient(me.op, Rec.Redo, mut.M16 ? [v, 1, NONE] : me.log));
    agent.pc = 'W1';
    agent.vNew = v;
    return;
  }
  // c2 / c3: old value complete.
  const p = d.rep[d.primary];
  const guard = cx.kv && !mut.M24 ? staleBackup(d, vNew) < 0 : true; // [CODE] check_recover_need_cas_pr
  if ((p === old || mut.M11) && guard && p !== vNew) {
    // I18: the c2 CAS fires only when all alive backups already hold v_new.
    const stale = staleBackup(d, vNew);
    if (stale >= 0) broke(cx, d, `I18: recovery of c${c} CASes the primary to ${vNew} while backup r${stale} holds ${d.rep[stale]}`);
    const prior = cas(cx, d, d.primary, mut.M11 ? p : old, vNew, `recovery(c${c})`);
    if (prior === p) primaryChanged(cx, d, p, vNew, `recovery(c${c})`);
  }
  done();
}

function roleCrashed(s: FuseeState): boolean {
  if (s.rep[s.primary] === CRASHED) return true;
  for (const i of s.backups) if (s.rep[i] === CRASHED) return true;
  return false;
}

/** A client waits for the master (a writer's or a reader's fail_query). */
function queried(s: FuseeState): boolean {
  for (const me of s.cl) if (me.pc === 'F1' || me.pc === 'RF') return true;
  return false;
}

/** Alg. 3 l.5: the values of the alive backups, or the primary's when none is alive. */
function choices(cx: Cx, s: FuseeState): number[] {
  const p = s.rep[s.primary];
  if (cx.mut.M14 && p !== CRASHED) return [p]; // M14: the master takes the primary's value (control)
  // (a loop: this is the guard of decide, asked in every fenced state)
  const vals: number[] = [];
  for (const b of s.backups) {
    const v = s.rep[b];
    if (v === CRASHED || vals.includes(v)) continue;
    let i = vals.length; // inserted in ascending order
    vals.push(v);
    for (; i > 0 && vals[i - 1] > v; i--) vals[i] = vals[i - 1];
    vals[i] = v;
  }
  return vals.length > 0 ? vals : [p];
}

function masterSteps(cx: Cx): Global[] {
  const { mut } = cx;
  const prepare = act('prepare', 'prepare(master)');
  const decides = new Made();
  return [
    {
      // Triggered by an MN crash in the slot's roles or a pending fail_query. In an open
      // workload (an implementation's trace) the slot is one of many, and the master's
      // member_prepare_change fences them all: an episode for another key's crash or query
      // fences this slot too, and the master then decides it like any other.
      name: 'prepare', cites: 'Alg. 3 l.2-4, A.4.1 disconnection phase [L794-798]: member_prepare_change fences the slot',
      enabled: (s, out) => {
        if (!s.fenced && (roleCrashed(s) || queried(s) || cx.open)) out.push(prepare);
      },
      // In-flight writes are diverted to fail_query (a winner not yet done is "deemed also as
      // a loser" [L798]); running recoveries are aborted, to restart afterwards.
      effect: (d) => {
        for (let c = 0; c < d.cl.length; c++) {
          const me = d.cl[c];
          if (me.rec === Rec.Redo && !mut.M15) replaceClient(d, c, idleClient(me.op, Rec.Pending, me.log)); // M15 keeps the recovery going
          else if (IN_FLIGHT.has(me.pc) && !(mut.M12 && (me.pc === 'W4' || me.pc === 'W5' || me.pc === 'W6'))) goTo(d, c, 'F1'); // M12: decided winners not fenced
        }
        d.fenced = true;
      },
    },
    {
      name: 'decide', cites: 'Alg. 3 l.5-10: choose s, write it to every alive replica, commit write(s)\'s log, reconfigure, reply',
      enabled: (s, out) => {
        if (s.fenced) for (const v of choices(cx, s)) out.push(decides.get(v) ?? decides.put(v, act('decide', `decide(master, ${v})`, -1, v)));
      },
      effect: (d, a) => decide(cx, d, a.x),
    },
  ];
}

/** Alg. 3 l.5-10 with s chosen (a.x): from an alive backup, the primary's if none is alive. */
function decide(cx: Cx, d: FuseeState, s: number): void {
  const alive: number[] = [];
  for (let k = -1; k < d.backups.length; k++) {
    const i = k < 0 ? d.primary : d.backups[k];
    if (d.rep[i] !== CRASHED) alive.push(i);
  }
  const pOld = d.rep[d.primary];
  for (const i of d.backups) if (d.rep[i] !== CRASHED) ownRep(d)[i] = s; // backups before primary
  if (pOld !== CRASHED) ownRep(d)[d.primary] = s;
  if (pOld !== CRASHED && pOld !== s && !cx.kv && d.g.ph.includes(s)) broke(cx, d, `I2: the master installs ${s} in the primary a second time`);
  d.primary = alive[0];
  d.backups = alive.slice(1);
  for (let c = 0; c < d.cl.length; c++) {
    const me = d.cl[c];
    // l.7: commit the operation log of write(s) (the special value 1, [L796]); M8 skips it.
    if (!cx.mut.M8 && me.log[0] === s && me.log[2] !== COMMITTED && me.log[1] === 1) ownClient(d, c).log = [me.log[0], me.log[1], COMMITTED];
    // l.9-10: the reply to every waiting fail_query, a writer's or a reader's.
    if (me.pc === 'F1' || me.pc === 'RF') {
      const mine = ownClient(d, c);
      mine.pc = me.pc === 'F1' ? 'F2' : 'RF2';
      mine.rpc = s;
    }
  }
  newRound(cx, d, s);
  d.fenced = false;
}

function environmentSteps(cx: Cx): Global[] {
  const crashClients = new Made();
  const crashMNs = new Made();
  return [
    {
      name: 'crashClient', cites: 'crash-stop [L295]: a client crashes at any point; its pending op becomes indeterminate',
      enabled: (s, out) => {
        if (s.clLeft <= 0) return;
        for (let c = 0; c < s.cl.length; c++) {
          if ((cx.open || cx.writers[c]) && s.cl[c].rec === Rec.Live) out.push(crashClients.get(c) ?? crashClients.put(c, act('crashClient', `crashClient(c${c})`, c)));
        }
      },
      effect: (d, a) => {
        const me = d.cl[a.c];
        const pending = PENDING.has(me.pc);
        if (pending) {
          observeCrash(cx, d, a.c);
        }
        // From now on `op` names the op the tail log entry belongs to (recovery redoes it).
        replaceClient(d, a.c, idleClient(pending ? me.op : Math.max(0, me.op - 1), Rec.Pending, me.log));
        d.clLeft--;
      },
    },
    {
      name: 'crashMN', cites: 'an MN crash [L532]: the replica FAILs every verb from now on; at most r-1 [L297], while anything runs',
      enabled: (s, out) => {
        if (s.mnLeft <= 0 || !(cx.open || busy(cx, s))) return;
        if (s.rep[s.primary] !== CRASHED) out.push(crashMNs.get(s.primary) ?? crashMNs.put(s.primary, act('crashMN', `crashMN(r${s.primary})`, -1, s.primary)));
        for (const i of s.backups) if (s.rep[i] !== CRASHED) out.push(crashMNs.get(i) ?? crashMNs.put(i, act('crashMN', `crashMN(r${i})`, -1, i)));
      },
      effect: (d, a) => {
        ownRep(d)[a.x] = CRASHED;
        d.mnLeft--;
      },
    },
  ];
}

/** Some client has an operation pending or to come, or a recovery to run. */
function busy(cx: Cx, s: FuseeState): boolean {
  for (let c = 0; c < s.cl.length; c++) {
    const me = s.cl[c];
    if (me.rec === Rec.Pending || me.rec === Rec.Redo || (me.rec === Rec.Live && (me.pc !== 'idle' || scriptOp(cx, s, c) !== undefined || cx.open))) return true;
  }
  return false;
}

export function table(cx: Cx): ActionTable<FuseeState, FuseeAction> {
  return {
    actors: (s) => s.cl.length,
    at: (s, c) => s.cl[c].pc,
    perActor: clientSteps(cx),
    global: [...masterSteps(cx), ...environmentSteps(cx)],
  };
}
