// SNAPSHOT, the client side: WRITE (Alg. 1 with Alg. 4's failure paths) and READ, as the
// extraction ../shared/protocols/fusee-snapshot.md ("X§n") rebuilds them from the paper
// (../shared/papers/fusee.txt, "[Lnnn]"). Each step is one verb or a parallel batch of
// verbs, is named after the spec action it performs (specs/fusee/state.ts `Step`, the
// vocabulary of specs/fusee/README.md, "The trace vocabulary"), and is logged to the protocol trace when it completes.
//
// The same code runs a logical client's operations and the master's redo of a crashed
// client's write (Alg. 3 l.22): `Actor` says on whose behalf.
//
// Verb outcomes and what they mean here:
//   ok       the verb happened at the node
//   fail     the node is known dead (the master announced it): RDMA's FAIL [L532]
//   fenced   the node refused an older epoch: the master's member_prepare_change reached
//            it (A.4.1 [L794]); in-flight writes go to fail_query, others wait and retry
//   revoked  the master declared this client dead: it stops as crashed
//   unknown  sent but no answer (timeout, lost connection): the effect may have happened.
//            A read is simply retried; for a CAS or WRITE the client cannot go on
//            honestly, so it stops as if crashed (FUSE-TRACE: a client that cannot extend
//            its lease) and the master recovers its operation from its log.

import type { TraceWriter } from '../kit/recorder.ts';
import type { MemoryClient, VerbResult } from '../kit/verbs.ts';
import { COMMITTED, decodeOld, E_OLD, E_USED, E_VER, ENTRY, encodeOld, type Layout, objName, OLD_EMPTY } from './layout.ts';

/** The client stops as if crashed (an unknown outcome, or the master revoked it). */
export class Crash extends Error {
  constructor(readonly why: string) {
    super(why);
    this.name = 'Crash';
  }
}

/** The operation was abandoned (a redo aborted by a master episode, or the run is stopping). */
export class Abort extends Error {}

/** The membership as this process knows it (the master's view, X§3.1 step 6). */
export interface View {
  epoch: number;
  /** Nodes removed by reconfiguration (Alg. 3 l.8). */
  removed: ReadonlySet<number>;
  /** Nodes announced dead in this epoch, still in the roles until the master reconfigures. */
  down: ReadonlySet<number>;
}

export interface Env {
  layout: Layout;
  bugs: ReadonlySet<string>;
  trace: TraceWriter;
  mem: (mn: number) => MemoryClient;
  view: () => View;
  /** Resolves when the view changes (a new epoch or a node announced down), or after `ms`. */
  viewChange: (ms: number) => Promise<void>;
  /** RPC_fail_query (Alg. 4 l.8, l.35): the master's value s for `key` from the first decision after `epoch`. */
  failQuery: (key: string, epoch: number) => Promise<number>;
  /** An assertion the implementation checks; a false one is reported as a protocol violation. */
  assert: (ok: boolean, message: string) => void;
  timeoutMs: number;
  /** Loser poll interval ("sleep a little bit", Alg. 1 l.18), ms. */
  pollMs: number;
}

/** On whose behalf the steps run: a client, or the master redoing a crashed client's write. */
export interface Actor {
  /** The trace's process: "c3", or "master" for a redo. */
  proc: string;
  /** The id the memory nodes check against revocations (0: the master). */
  verbId: number;
  /** The client whose embedded log the steps write. */
  logOwner: number;
  /** Extra trace args: a redo names the client it acts for. */
  tag?: Record<string, unknown>;
  /** Checked before each step: throws Abort to abandon the operation. */
  check: () => void;
}

/** A verb's outcome; `at`: when the node executed it (the machine's shared monotonic clock). */
type Step = { k: 'ok'; value: number; counter: number; at: number } | { k: 'fail' } | { k: 'fenced' };

/**
 * The indices of a parallel batch of verbs (one per node) in the order their trace lines
 * go: the executed ones in the order the nodes executed them, FAILed ones (decided from
 * the view, before sending) where they are. Neither the order of the responses nor a
 * fixed order (backup order, the version before) is the order of execution: the verbs of
 * one batch travel on different links and can execute tens of ms apart (the net
 * nemesis's jitter, a loaded machine, a paused client between its writes), other
 * clients' whole steps in between; a trace that logs them in another order gives the
 * validator an order with a cycle, and a correct run an INVALID verdict (c7 logged its
 * mn1 CAS, which saw c3's change 41, before its mn2 CAS, whose change 40 c2 had seen
 * before the write that led c3 to change 41).
 */
export function executionOrder(batch: readonly (Step | undefined)[]): number[] {
  const order = batch.map((_, i) => i);
  const done = order.filter((i) => batch[i]?.k === 'ok');
  const byTime = [...done].sort((a, b) => (batch[a] as { at: number }).at - (batch[b] as { at: number }).at || a - b);
  done.forEach((place, j) => (order[place] = byTime[j]));
  return order;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** f, run at most once however often it is called. */
function onceOnly(f: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      f();
    }
  };
}

/** Alg. 2's decisions. */
export type Win = 'R1' | 'R2' | 'R3' | 'LOSE' | 'FINISH' | 'FAIL' | 'CANDIDATE';

/**
 * EVALUATE_RULES (Alg. 2 l.2-11) on the snapshot after change_list_value: Rule 1, Rule 2,
 * or a Rule-3 candidate that must re-read the primary first. `vl` holds FAIL as -1.
 */
export function evaluateRules(vl: readonly number[], vNew: number, bugs: ReadonlySet<string>): Win {
  if (vl.includes(-1)) return 'FAIL'; // Alg. 2 l.4
  const m = vl.length;
  if (m === 0) return 'R1'; // X§5.1 item 5: no backup left, CAS the primary directly
  const len = bugs.has('M22') ? m + 1 : m; // M22 counts the primary in Len(v_list) (control)
  const counts = new Map<number, number>();
  for (const v of vl) counts.set(v, (counts.get(v) ?? 0) + 1);
  let vMaj = vl[0];
  for (const [v, c] of counts) if (c > counts.get(vMaj)!) vMaj = v;
  const cntMaj = counts.get(vMaj)!;
  if (cntMaj === len) return vMaj === vNew ? 'R1' : 'LOSE'; // Alg. 2 l.6, Rule 1 [L227]
  if (bugs.has('M3')) {
    // M3: Rule 2 read as "modified a majority" [L229], non-strict: 2*count(v_new) >= m
    if (2 * (counts.get(vNew) ?? 0) >= len) return 'R2';
    if (2 * cntMaj >= len) return 'LOSE';
  }
  if (2 * cntMaj > len) return vMaj === vNew ? 'R2' : 'LOSE'; // Alg. 2 l.8, Rule 2 [L229]
  if (!bugs.has('M21') && !vl.includes(vNew)) return 'LOSE'; // Alg. 2 l.10 (M21 drops it: control)
  if (bugs.has('M1')) return 'LOSE'; // M1 drops Rule 3
  return 'CANDIDATE';
}

/** Alg. 2 l.17: Rule 3 goes to the writer of the minimal value ([L231]; M20: maximal, a control). */
export function rule3(vl: readonly number[], vNew: number, bugs: ReadonlySet<string>): Win {
  return (bugs.has('M20') ? Math.max(...vl) : Math.min(...vl)) === vNew ? 'R3' : 'LOSE';
}

export class Snapshot {
  constructor(
    private readonly env: Env,
    private readonly actor: Actor,
  ) {}

  private get bugs(): ReadonlySet<string> {
    return this.env.bugs;
  }

  private dead(mn: number, v: View = this.env.view()): boolean {
    return v.removed.has(mn) || v.down.has(mn);
  }

  private trace(action: string, args: Record<string, unknown>, order?: { obj: string; objSeq: number } | { obj: string; objSaw: number }): void {
    this.env.trace.step(this.actor.proc, action, { ...this.actor.tag, ...args }, order);
  }

  /**
   * One verb at node `mn` in epoch `epoch`. Transport failures that prove nothing happened
   * (never sent, node's lease lapsed) are retried until the view changes; an unknown
   * outcome is retried for a read and is a Crash otherwise.
   */
  private async verb(mn: number, epoch: number, modifies: boolean, send: () => Promise<VerbResult>): Promise<Step> {
    for (let attempt = 0; ; attempt++) {
      this.actor.check();
      const view = this.env.view();
      if (this.dead(mn, view)) return { k: 'fail' };
      if (view.epoch > epoch) return { k: 'fenced' };
      const r = await send();
      switch (r.status) {
        case 'ok':
          return { k: 'ok', value: r.values[0], counter: r.counters[0], at: r.at };
        case 'fenced':
          return { k: 'fenced' };
        case 'revoked':
          throw new Crash(`revoked by the master (at mn${mn})`);
        case 'bad':
          this.env.assert(false, `mn${mn} refused a malformed verb`);
          throw new Crash('malformed verb');
        case 'timeout':
        case 'lost':
          if (modifies) throw new Crash(`a CAS or WRITE at mn${mn} has an unknown outcome (${r.status})`);
          break;
        case 'notsent':
        case 'expired':
          break;
      }
      // Nothing happened: wait for the network, the node's lease, or the master's verdict.
      await this.env.viewChange(Math.min(200, 5 * 2 ** Math.min(attempt, 5)));
    }
  }

  /**
   * A WRITE of the log entry to its alive replicas, in parallel. `line` logs the step it
   * belongs to, once, as soon as any replica took the write: recovery merges the copies and
   * the most advanced one counts (`mergeEntry`), so the step has happened even when another
   * replica refused it (a fence) or the step is then abandoned (a redo aborted by an
   * episode; a client that stops as crashed). Logged only on completion, a redo's loser
   * reset that reached one replica before the episode aborted it left no line, and the
   * restarted recovery's c0 matched no step (a harsh-stall run: `recoverClient c2 c0`, the
   * spec's c2 still in c1).
   */
  private async logWrite(epoch: number, op: number, fields: { ver: number; used: number; old: number }, full?: { vNew: number; key: number }, line?: () => void): Promise<'ok' | 'fenced'> {
    const { layout } = this.env;
    const owner = this.actor.logOwner;
    const base = layout.logAddr(owner, op);
    const alive = layout.logReplicas(owner).filter((mn) => !this.dead(mn));
    const words = full ? [full.vNew, full.key, fields.ver, fields.used, fields.old] : [fields.ver, fields.used, fields.old];
    const addr = full ? base : base + E_VER;
    const res = await Promise.allSettled(alive.map((mn) => this.verb(mn, epoch, true, () => this.env.mem(mn).write(epoch, addr, words, this.env.timeoutMs, this.actor.verbId))));
    const done = res.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const reached = done.some((r) => r.k === 'ok');
    if (reached) line?.();
    const thrown = res.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (thrown) throw thrown.reason;
    if (done.some((r) => r.k === 'fenced')) return 'fenced';
    if (!reached) line?.(); // every replica FAILed: the write is done on the alive ones (none)
    return 'ok';
  }

  /** A log write no fence may skip (the invocation, a loser's reset): retried in the new epoch. */
  private async logWriteUnfenced(op: number, fields: { ver: number; used: number; old: number }, full?: { vNew: number; key: number }, line?: () => void): Promise<void> {
    const once = line && onceOnly(line);
    for (;;) {
      const epoch = this.env.view().epoch;
      if ((await this.logWrite(epoch, op, fields, full, once)) === 'ok') return;
      await this.env.viewChange(200);
    }
  }

  // ---- WRITE ------------------------------------------------------------------------------

  /**
   * WRITE(key, v_new) from its invocation to its return. `op` numbers the write in the
   * owner's log; `resume` continues a redo whose log entry exists (recovery's c1).
   */
  async write(key: string, vNew: number, op: number, resume?: { ver: number }): Promise<'ok'> {
    const { layout } = this.env;
    const k = layout.keyIndex(key);
    let ver = resume?.ver ?? 1;
    const slot = layout.slotAddr(k);
    const readPrimary = (view: View) => {
      const { primary, backups } = layout.roles(k, view.removed);
      return this.verb(primary, view.epoch, false, () => this.env.mem(primary).read(view.epoch, slot, 1, this.env.timeoutMs, this.actor.verbId)).then(
        (r) => ({ view, primary, backups, r }),
        (error: unknown) => ({ view, primary, backups, error }),
      );
    };
    let prefetched: ReturnType<typeof readPrimary> | undefined;
    if (resume === undefined) {
      // invoke (Fig. 9 ①, X§2.5 step 1): the KV object and its log entry {old value
      // empty, used = 1} in one RDMA_WRITE to every replica of the log, in the same
      // doorbell batch as the primary's read (l.6), which is logged after it.
      prefetched = readPrimary(this.env.view());
      await this.logWriteUnfenced(op, { ver, used: 1, old: OLD_EMPTY }, { vNew, key: k }, () => this.trace('invoke', { key, value: vNew }));
    }
    let logOld = OLD_EMPTY;
    for (;;) {
      // readPrimary (Alg. 1 l.6 / Alg. 4 l.12-15): v_old := primary; with the primary FAILed
      // or fenced, wait for the membership change and read again.
      let vOld: number;
      let pr: number;
      let bk: number[];
      let epoch: number;
      for (;;) {
        const got = await (prefetched ?? readPrimary(this.env.view()));
        prefetched = undefined;
        if ('error' in got) throw got.error;
        ({ primary: pr, backups: bk } = got);
        epoch = got.view.epoch;
        if (got.r.k === 'ok') {
          vOld = got.r.value;
          // args.backups and args.epoch: the view this round uses (its backups, and the epoch
          // its verbs carry); the master's fence and reconfiguration are ordered with this
          // read by no object, so the trace says which view it used.
          this.trace('readPrimary', { key, mn: pr, result: vOld, backups: bk, epoch }, { obj: objName(pr, key), objSaw: got.r.counter });
          break;
        }
        await this.env.viewChange(200);
      }
      // From here on this round's verbs carry its epoch: a fence diverts the write to
      // fail_query (A.4.1 [L794-798]), decided winners included. M12 lets winners through.
      const winnerEpoch = () => (this.bugs.has('M12') ? this.env.view().epoch : epoch);

      const outcome = await this.round(key, k, vNew, op, vOld, pr, bk, epoch, winnerEpoch, () => ver, (v) => (ver = v), (o) => (logOld = o));
      if (outcome === 'ok') return 'ok';
      // fail_query (Alg. 4 l.35-39): the master's value s decides.
      const s = await this.env.failQuery(key, epoch);
      this.actor.check();
      if (s === vOld && !this.bugs.has('M13')) {
        // "the new write round is considered not started" [L309]: retry with the same
        // v_new, the log entry as at the invocation. M13 returns instead.
        const reply = () => this.trace('failReply', { key, rpc: s });
        if (logOld !== OLD_EMPTY) {
          ver++;
          await this.logWriteUnfenced(op, { ver, used: 1, old: OLD_EMPTY }, undefined, reply);
          logOld = OLD_EMPTY;
        } else reply();
        continue;
      }
      const reply = () => this.trace('failReply', { key, rpc: s });
      if (s !== vNew) {
        // Not chosen: reset the used bit as a loser does ([L276], X§2.5 item 3).
        ver++;
        await this.logWriteUnfenced(op, { ver, used: 0, old: logOld }, undefined, reply);
      } else reply();
      return 'ok';
    }
  }

  /** One round from the backup CASes on: 'ok' when the write returned, 'failQuery' when diverted. */
  private async round(
    key: string,
    k: number,
    vNew: number,
    op: number,
    vOld: number,
    pr: number,
    bk: number[],
    epoch: number,
    winnerEpoch: () => number,
    getVer: () => number,
    setVer: (v: number) => void,
    setOld: (o: number) => void,
  ): Promise<'ok' | 'failQuery'> {
    const { layout, bugs } = this.env;
    const slot = layout.slotAddr(k);
    const mem = this.env.mem;
    const t = this.env.timeoutMs;
    const id = this.actor.verbId;

    // casBackup (Alg. 1 l.7): CAS(v_old -> v_new) on every backup in parallel; each
    // returns the prior value, the snapshot. Unknown outcomes are settled after all return.
    // The CASes are logged once all have returned, in the order the nodes executed them
    // (`executionOrder`); the spec (config free) lets a client CAS its backups in any order.
    let crash: Crash | undefined;
    const settle = async <T>(p: Promise<T>): Promise<T | undefined> => {
      try {
        return await p;
      } catch (e) {
        if (e instanceof Crash) {
          crash ??= e;
          return undefined;
        }
        throw e;
      }
    };
    const cas = await Promise.all(bk.map((b) => settle(this.verb(b, epoch, true, () => mem(b).cas(epoch, slot, vOld, vNew, t, id)))));
    executionOrder(cas).forEach((i) => {
      const b = bk[i];
      const r = cas[i];
      if (r?.k === 'ok') this.trace('casBackup', { key, mn: b, expected: vOld, swap: vNew, prior: r.value }, r.value === vOld ? { obj: objName(b, key), objSeq: r.counter } : { obj: objName(b, key), objSaw: r.counter });
      else if (r?.k === 'fail') this.trace('casBackup', { key, mn: b, expected: vOld, swap: vNew, prior: 'FAIL' });
    });
    if (crash) throw crash;
    if (cas.some((r) => r!.k === 'fenced')) return 'failQuery';
    // change_list_value (Alg. 1 l.9): a CAS that returned v_old succeeded, so that backup holds v_new. M18 omits it.
    let vl = cas.map((r) => (r!.k === 'ok' ? (r as { value: number }).value : -1));
    if (!bugs.has('M18')) vl = vl.map((v) => (v === vOld ? vNew : v));
    let win = evaluateRules(vl, vNew, bugs);
    if (win === 'FAIL') return 'failQuery'; // Alg. 4 l.34-35
    if (win === 'CANDIDATE') {
      if (bugs.has('M2')) {
        win = rule3(vl, vNew, bugs); // M2 skips the re-read of Alg. 2 l.12-16
      } else {
        // reRead (Alg. 2 l.12-19): is the primary still v_old? Then no winner of this round
        // has modified it, and the snapshot holds every value that matters [L233].
        const r = await this.verb(pr, epoch, false, () => mem(pr).read(epoch, slot, 1, t, id));
        if (r.k === 'fenced') return 'failQuery';
        if (r.k === 'fail') {
          this.trace('reRead', { key, mn: pr, result: 'FAIL' });
          return 'failQuery';
        }
        this.trace('reRead', { key, mn: pr, result: r.value }, { obj: objName(pr, key), objSaw: r.counter });
        win = r.value !== vOld ? 'FINISH' : rule3(vl, vNew, bugs);
      }
    }

    if (win === 'R1' || win === 'R2' || win === 'R3') {
      const fixup = async (): Promise<'ok' | 'fenced'> => {
        // fixup (Alg. 1 l.14): CAS(v_list[i] -> v_new) on each backup that is not yet mine; results ignored.
        const todo = bk.map((b, i) => ({ b, i })).filter(({ i }) => vl[i] !== vNew && vl[i] !== -1);
        // in parallel, logged in execution order once all have returned (as the casBackups)
        const res = await Promise.all(todo.map(({ b, i }) => settle(this.verb(b, winnerEpoch(), true, () => mem(b).cas(winnerEpoch(), slot, vl[i], vNew, t, id)))));
        executionOrder(res).forEach((j) => {
          const { b, i } = todo[j];
          const r = res[j];
          if (r?.k === 'ok') this.trace('fixup', { key, mn: b, expected: vl[i], swap: vNew, prior: r.value }, r.value === vl[i] ? { obj: objName(b, key), objSeq: r.counter } : { obj: objName(b, key), objSaw: r.counter });
          else if (r?.k === 'fail') this.trace('fixup', { key, mn: b, expected: vl[i], swap: vNew, prior: 'FAIL' });
        });
        if (crash) throw crash;
        if (res.some((r) => r!.k === 'fenced')) return 'fenced';
        vl = vl.map(() => vNew);
        return 'ok';
      };
      const commitLog = async (): Promise<'ok' | 'fenced'> => {
        // commitLog (Fig. 9 ③, A.4.2 [L806]): v_old into the log entry, once every backup
        // holds v_new and before the primary CAS.
        const ver = getVer() + 1;
        // Fenced, the write may still have reached some replicas (then it is logged, and the
        // write goes to fail_query as one that committed): later log writes outrank it.
        setVer(ver);
        setOld(encodeOld(vOld));
        return this.logWrite(winnerEpoch(), op, { ver, used: 1, old: encodeOld(vOld) }, undefined, commitLine);
      };
      // one line per round, also when M12 tries the commit again after a fence
      const commitLine = onceOnly(() => this.trace('commitLog', { key, old: vOld }));
      const casPrimary = async (): Promise<'ok' | 'fenced'> => {
        // casPrimary (Alg. 1 l.12/15): CAS(v_old -> v_new) on the primary read at l.6. A
        // FAILed primary is ignored (X§5.1 item 6): the alive backups all hold v_new.
        const r = await this.verb(pr, winnerEpoch(), true, () => mem(pr).cas(winnerEpoch(), slot, vOld, vNew, t, id));
        if (r.k === 'fenced') return 'fenced';
        if (r.k === 'fail') {
          this.trace('casPrimary', { key, mn: pr, expected: vOld, swap: vNew, prior: 'FAIL' });
          return 'ok';
        }
        this.trace('casPrimary', { key, mn: pr, expected: vOld, swap: vNew, prior: r.value }, r.value === vOld ? { obj: objName(pr, key), objSeq: r.counter } : { obj: objName(pr, key), objSaw: r.counter });
        // The reference code aborts here ("cannot have happened!", X§2.1): only the round's
        // last writer modifies the primary (Lemma 3), unless no backup is left (X§5.1 item 5).
        this.env.assert(r.value === vOld || bk.length === 0, `${this.actor.proc}: last writer ${vNew} of ${key} found the primary at ${r.value}, not v_old ${vOld}`);
        return 'ok';
      };
      const needsFix = win !== 'R1' && vl.some((v) => v !== vNew);
      const steps: (() => Promise<'ok' | 'fenced'>)[] = [];
      if (bugs.has('M5') && needsFix) steps.push(commitLog, casPrimary, fixup); // M5: primary before the fix-up
      else if (bugs.has('M10') && needsFix) steps.push(commitLog, fixup, casPrimary); // M10: commit before the fix-up
      else if (bugs.has('M9')) steps.push(...(needsFix && !bugs.has('M19') ? [fixup] : []), casPrimary, commitLog); // M9: commit after the primary
      else steps.push(...(needsFix && !bugs.has('M19') ? [fixup] : []), commitLog, casPrimary); // M19 skips the fix-up
      for (const step of steps) {
        this.actor.check();
        if ((await step()) === 'fenced') {
          if (!bugs.has('M12')) return 'failQuery';
          // M12: a fenced winner waits for the new epoch and carries on
          await this.env.viewChange(200);
          if ((await step()) === 'fenced') return 'failQuery';
        }
      }
      return 'ok';
    }

    if (win === 'LOSE' && !bugs.has('M6')) {
      // loserWait (Alg. 1 l.17-22): poll the primary until it is no longer v_old. Polls that
      // still see v_old are not logged; a fence is member_prepare_change (l.28-29).
      for (;;) {
        const r = await this.verb(pr, epoch, false, () => mem(pr).read(epoch, slot, 1, t, id));
        if (r.k === 'fenced') return 'failQuery';
        if (r.k === 'fail') {
          this.trace('loserWait', { key, mn: pr, result: 'FAIL' });
          return 'failQuery';
        }
        if (r.value !== vOld) {
          this.trace('loserWait', { key, mn: pr, result: r.value }, { obj: objName(pr, key), objSaw: r.counter });
          break;
        }
        await sleep(this.env.pollMs);
      }
    }
    // loserReturn ([L276]): reset the used bit, return (LOSE after the wait, or FINISH). M7 keeps it set.
    const loserReturn = () => this.trace('loserReturn', { key });
    if (!bugs.has('M7')) {
      const ver = getVer() + 1;
      setVer(ver);
      await this.logWriteUnfenced(op, { ver, used: 0, old: OLD_EMPTY }, undefined, loserReturn);
    } else loserReturn();
    return 'ok';
  }

  // ---- READ -------------------------------------------------------------------------------

  /** READ(key) (Alg. 1 l.1-4, Alg. 4 l.1-10): the slot's value. */
  async read(key: string, pickBackup: () => number): Promise<number> {
    const { layout, bugs } = this.env;
    const k = layout.keyIndex(key);
    const slot = layout.slotAddr(k);
    const t = this.env.timeoutMs;
    const id = this.actor.verbId;
    let bk: number[];
    let readEpoch: number;
    for (;;) {
      // read (Alg. 1 l.2): the primary's value is the READ's linearization point [L240].
      const view = this.env.view();
      readEpoch = view.epoch;
      const roles = layout.roles(k, view.removed);
      bk = roles.backups;
      // M4: read a backup instead of the primary
      const target = bugs.has('M4') && bk.length > 0 ? bk[pickBackup() % bk.length] : roles.primary;
      const r = await this.verb(target, readEpoch, false, () => this.env.mem(target).read(readEpoch, slot, 1, t, id));
      if (r.k === 'ok') {
        this.trace('read', { key, mn: target, result: r.value }, { obj: objName(target, key), objSaw: r.counter });
        return r.value;
      }
      if (r.k === 'fail') {
        this.trace('read', { key, mn: target, result: 'FAIL' });
        break;
      }
      await this.env.viewChange(200);
    }
    // readBackups (Alg. 4 l.4-8): every alive backup of the view read at l.2; retried
    // whole, in the newest epoch, when a fence interrupts it. The spec reads the backups in
    // one step, and the trace logs one line for them: the reads are collected twice, and
    // kept only when no backup changed in between (equal change counters), so that one
    // moment had all the values the line reports (the moment the first collection ended).
    // A single collection's reads execute apart, and a writer's CASes between them could
    // be ordered on both sides of the line (a cycle: an INVALID verdict on a correct run).
    const collect = (epoch: number) => Promise.all(bk.map((b) => this.verb(b, epoch, false, () => this.env.mem(b).read(epoch, slot, 1, t, id))));
    const same = (x: Awaited<ReturnType<typeof collect>>, y: typeof x) =>
      x.every((r, i) => {
        const q = y[i];
        return r.k === 'ok' ? q.k === 'ok' && q.counter === r.counter : r.k === q.k;
      });
    for (let attempt = 0; ; attempt++) {
      const epoch = this.env.view().epoch;
      const first = await collect(epoch);
      const res = first.some((r) => r.k === 'fenced') ? first : await collect(epoch);
      if (res.some((r) => r.k === 'fenced')) {
        await this.env.viewChange(200);
        continue;
      }
      // Writers still in flight when the primary failed end soon (the master fences them),
      // so this settles; the bound only keeps the loop finite.
      if (!same(first, res) && attempt < 100) continue;
      const results: Record<string, number | 'FAIL'> = {};
      const saw: Record<string, number> = {};
      const vals: number[] = [];
      res.forEach((r, i) => {
        if (r.k === 'ok') {
          results[bk[i]] = r.value;
          saw[objName(bk[i], key)] = r.counter;
          vals.push(r.value);
        } else results[bk[i]] = 'FAIL';
      });
      this.trace('readBackups', { key, results, saw });
      if (bugs.has("M4'") && vals.length > 0) return vals[pickBackup() % vals.length]; // M4': no equality check
      if (vals.length > 0 && vals.every((v) => v === vals[0])) return vals[0];
      // readReply (Alg. 4 l.8-10): the alive backups disagree; the master decides.
      const s = await this.env.failQuery(key, epoch);
      this.trace('readReply', { key, rpc: s });
      return s;
    }
  }
}

/** The merged view of a client's log entry over its replicas (recovery, decide's commit). */
export interface LogEntry {
  vNew: number;
  key: number;
  ver: number;
  used: number;
  /** OLD_EMPTY, encodeOld(v), or COMMITTED. */
  old: number;
}

/**
 * One entry as the replicas hold it: the most advanced copy (highest version) counts, and
 * the master's COMMITTED on any replica wins. A step whose effect reached any replica has
 * happened; a client that crashed during it had not logged it, which the trace's validator
 * fills in by search.
 */
export function mergeEntry(copies: readonly (readonly number[])[]): LogEntry | undefined {
  let best: LogEntry | undefined;
  let committed = false;
  for (const w of copies) {
    if (w.length < ENTRY || w[0] === 0) continue;
    const e: LogEntry = { vNew: w[0], key: w[1], ver: w[E_VER], used: w[E_USED], old: w[E_OLD] };
    if (best !== undefined && e.vNew !== best.vNew) {
      if (e.vNew < best.vNew) continue; // an older op in this ring slot
      committed = false;
      best = e;
    } else if (best === undefined || e.ver > best.ver) {
      best = e;
    }
    if (e.vNew === best.vNew && e.old === COMMITTED) committed = true;
  }
  if (best !== undefined && committed) best = { ...best, old: COMMITTED };
  return best;
}

export { COMMITTED, decodeOld, OLD_EMPTY };
