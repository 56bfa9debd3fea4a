// FUSEE's master (§5, Alg. 3; X§3): the membership service with leases, the handling of a
// memory-node crash (fence, choose, write everywhere, commit, reconfigure, reply), and the
// recovery of crashed clients from their embedded logs. The paper replicates the master
// with SMR [L291]; here it is one process the nemesis never crashes, pauses or cuts off
// from the memory nodes.
//
// Fencing is real: an episode raises the epoch at every alive memory node before it reads
// or writes anything, so every verb a client sent in the old epoch is refused from then
// on; a dead client is revoked at every node before its log is read.

import type { TraceWriter } from '../kit/recorder.ts';
import type { Rng } from '../kit/rng.ts';
import { monoNs, type MemoryClient, type VerbResult } from '../kit/verbs.ts';
import { COMMITTED, decodeOld, E_OLD, ENTRY, type Layout, objName, OLD_EMPTY, OP_BITS, RING, writerOf } from './layout.ts';
import { Abort, Crash, type Env, mergeEntry, Snapshot, type View } from './snapshot.ts';

export interface MasterOptions {
  layout: Layout;
  bugs: ReadonlySet<string>;
  trace: TraceWriter;
  rng: Rng;
  mem: (mn: number) => MemoryClient;
  /** Asks the harness to kill a node whose lease lapsed; resolves once it is dead. */
  killNode: (mn: number) => Promise<void>;
  /** Sends a message to every client process. */
  broadcast: (message: Record<string, unknown>) => void;
  assert: (ok: boolean, message: string) => void;
  /** A memory node's lease (ms): unanswered this long, it is suspected. */
  mnLeaseMs: number;
  /** A client's lease (ms): not heard from this long, it is dead. */
  clientLeaseMs: number;
  timeoutMs: number;
  pollMs: number;
}

interface ClientState {
  proc: string;
  lastSeen: number;
  state: 'live' | 'dead' | 'recovering' | 'recovered';
}

interface Recovery {
  abort: boolean;
  running: Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class Master {
  epoch = 1;
  readonly removed = new Set<number>();
  readonly down = new Set<number>();
  private readonly decisions = new Map<number, Map<string, number>>();
  readonly clients = new Map<number, ClientState>();
  private readonly queries: { epoch: number; key: string; resolve: (s: number) => void }[] = [];
  private readonly recoveries = new Map<number, Recovery>();
  private readonly lastAck: number[];
  private readonly maxSent: number[];
  private readonly suspected = new Set<number>();
  private readonly overBudget = new Set<number>();
  private lastBeat = Date.now();
  private graceUntil = 0;
  private episodeWanted = false;
  private inEpisode = false;
  private viewWaiters: (() => void)[] = [];
  /**
   * The epoch and the removed nodes clients are told (`clientView`): those of the last
   * episode that ended with no node declared dead while it ran. A node that dies during an
   * episode, after the decisions of some keys read or wrote it, is not removed by that
   * episode's reconfiguration: it stays down, the next episode runs at once and handles it,
   * and clients go from the old view to the next episode's. The intermediate view would
   * have no counterpart in the protocol: its roles drop the node for keys whose decision
   * still had it (a harsh-stall run: k0 decided with mn1 as its primary, mn1 declared dead
   * before the episode ended and dropped with mn0; a writer of that epoch would read mn2
   * as k0's primary, which no decision made it).
   */
  private pubEpoch = 1;
  private pubRemoved: ReadonlySet<number> = new Set();
  private stopped = false;
  /** M16's freshly allocated objects: op numbers above the client's own. */
  private fresh = OP_BITS / 2;
  readonly stats = { episodes: 0, recoveries: 0, mnDeaths: 0 };

  constructor(private readonly o: MasterOptions) {
    this.lastAck = Array(o.layout.n).fill(Date.now());
    this.maxSent = Array(o.layout.n).fill(0);
  }

  view(): View {
    return { epoch: this.epoch, removed: new Set(this.removed), down: new Set(this.down) };
  }

  /** The view clients use: the published epoch and removed nodes; every other dead node is down (FAIL). */
  clientView(): { epoch: number; removed: number[]; down: number[] } {
    const down = [...this.removed, ...this.down].filter((mn) => !this.pubRemoved.has(mn));
    return { epoch: this.pubEpoch, removed: [...this.pubRemoved], down };
  }

  private viewChanged(): void {
    for (const w of this.viewWaiters.splice(0)) w();
    this.o.broadcast({ type: 'view', ...this.clientView() });
  }

  private viewChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.viewWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  private alive(mn: number): boolean {
    return !this.removed.has(mn) && !this.down.has(mn);
  }

  // ---- membership ---------------------------------------------------------------------------

  /** A client process says which of its logical clients are alive (a lease extension). */
  heartbeat(proc: string, ids: readonly number[], all: readonly number[]): number[] {
    const now = Date.now();
    for (const id of ids) {
      const c = this.clients.get(id);
      if (c === undefined) this.clients.set(id, { proc, lastSeen: now, state: 'live' });
      else if (c.state === 'live') c.lastSeen = now;
    }
    // A logical client its process no longer lists crashed (it logged crashClient itself).
    const listed = new Set(ids);
    for (const id of all) {
      const c = this.clients.get(id);
      if (c !== undefined && c.state === 'live' && !listed.has(id)) c.state = 'dead';
    }
    return all.filter((id) => {
      const c = this.clients.get(id);
      return c !== undefined && c.state !== 'live';
    });
  }

  /** RPC_fail_query: s of the first decision after `epoch` (an episode runs if none is under way). */
  failQuery(key: string, epoch: number): Promise<number> {
    const known = this.decisions.get(epoch + 1)?.get(key);
    if (known !== undefined) return Promise.resolve(known);
    if (epoch >= this.epoch) this.episodeWanted = true;
    return new Promise((resolve) => this.queries.push({ epoch, key, resolve }));
  }

  /** The control loop: leases, crash handling, recoveries. Runs until stop(). */
  /**
   * Called by each loop: when this process itself has not run for a while (a loaded
   * machine, a long GC), the acks and heartbeats it has not processed yet prove nothing,
   * so nobody is declared dead by lease until it has caught up.
   */
  private beat(): boolean {
    const now = Date.now();
    if (now - this.lastBeat > 250) this.graceUntil = now + 500;
    this.lastBeat = now;
    return now > this.graceUntil;
  }

  async run(): Promise<void> {
    void this.leaseLoop();
    while (!this.stopped) {
      const now = Date.now();
      if (this.beat()) for (const c of this.clients.values()) if (c.state === 'live' && now - c.lastSeen > this.o.clientLeaseMs) c.state = 'dead';
      if (this.episodeWanted || this.down.size > 0) {
        await this.episode();
        continue;
      }
      for (const [id, c] of this.clients) if (c.state === 'dead') this.startRecovery(id, c);
      await sleep(10);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const r of this.recoveries.values()) r.abort = true;
  }

  /** Lease extensions for the memory nodes; a node unanswered for a lease is declared dead. */
  private async leaseLoop(): Promise<void> {
    while (!this.stopped) {
      for (let mn = 0; mn < this.o.layout.n; mn++) {
        if (!this.alive(mn) || this.suspected.has(mn)) continue;
        const until = monoNs() + this.o.mnLeaseMs * 1e6;
        this.maxSent[mn] = until;
        void this.o.mem(mn).lease(until, this.o.mnLeaseMs).then((r) => {
          if (r.status === 'ok') this.lastAck[mn] = Date.now();
          // unreachable (its connection closed and cannot be opened again): suspect it now,
          // and declare it dead once the last lease granted has run out
          else if (r.status === 'notsent' && this.beat()) void this.declareDead(mn);
        });
        if (this.beat() && Date.now() - this.lastAck[mn] > this.o.mnLeaseMs) void this.declareDead(mn);
      }
      await sleep(this.o.mnLeaseMs / 8);
    }
  }

  private async declareDead(mn: number): Promise<void> {
    if (!this.alive(mn) || this.suspected.has(mn)) return;
    const { layout } = this.o;
    const orphan = layout.keys.findIndex((_, k) => layout.replicas(k).every((i) => i === mn || !this.alive(i) || this.suspected.has(i)));
    if (orphan >= 0) {
      // Declaring it would leave a key without a replica (at most r-1 failures [L297]): keep leasing it, and wait.
      if (!this.overBudget.has(mn)) process.stderr.write(`master: mn${mn} looks dead, but it holds the last replica of ${layout.keys[orphan]}: not declaring it\n`);
      this.overBudget.add(mn);
      return;
    }
    this.suspected.add(mn);
    // No lease extension from now on: once the last one granted has run out, the node
    // serves nothing (kit/memory-node.ts); then it is killed for good.
    while (monoNs() <= this.maxSent[mn]) await sleep(10);
    await this.o.killNode(mn);
    this.stats.mnDeaths++;
    this.suspected.delete(mn);
    this.down.add(mn);
    this.viewChanged();
  }

  // ---- memory-node crash (Alg. 3 l.2-10) ------------------------------------------------------

  /**
   * A master verb, retried until it is done, or undefined when the node is declared dead or
   * the verb's epoch was fenced by a newer episode (its caller starts over).
   */
  private async masterVerb(mn: number, send: () => Promise<VerbResult>): Promise<{ values: number[]; counters: number[] } | undefined> {
    for (let i = 0; ; i++) {
      if (!this.alive(mn) || this.stopped) return undefined;
      const r = await send();
      if (r.status === 'ok') return r;
      if (r.status === 'fenced') return undefined;
      if (r.status === 'bad' || r.status === 'revoked') {
        this.o.assert(false, `mn${mn} refused a master verb: ${r.status}`);
        return undefined;
      }
      await sleep(Math.min(100, 5 * 2 ** Math.min(i, 5)));
    }
  }

  private async episode(): Promise<void> {
    this.episodeWanted = false;
    this.inEpisode = true;
    this.stats.episodes++;
    const next = this.epoch + 1;
    // The crashes this episode handles: a node declared dead from now on is the next one's.
    const handled = [...this.down];
    // member_prepare_change (l.2-4): running recoveries are aborted, to restart after the
    // episode (X§3.2 "Gap found", the M15 fix); M15 lets them run on.
    const running = [...this.recoveries.values()];
    if (!this.o.bugs.has('M15')) for (const r of running) r.abort = true;
    for (let mn = 0; mn < this.o.layout.n; mn++) {
      if (this.alive(mn)) await this.masterVerb(mn, () => this.o.mem(mn).fence(next, this.o.timeoutMs));
    }
    if (!this.o.bugs.has('M15')) await Promise.all(running.map((r) => r.running));
    this.o.trace.step('master', 'prepare', { epoch: next });
    // slot modification (l.5-7), per key: s from a random alive backup (the primary if none).
    const chosen = new Map<string, number>();
    const { layout } = this.o;
    for (let k = 0; k < layout.keys.length; k++) {
      const key = layout.keys[k];
      const { primary, backups } = layout.roles(k, this.removed);
      const alive = [...backups, primary].filter((mn) => mn >= 0 && this.alive(mn));
      const read = new Map<number, number>();
      const counter = new Map<number, number>();
      for (const mn of alive) {
        const r = await this.masterVerb(mn, () => this.o.mem(mn).read(next, layout.slotAddr(k), 1, this.o.timeoutMs));
        if (r !== undefined) {
          read.set(mn, r.values[0]);
          counter.set(mn, r.counters[0]);
        }
      }
      const fromBackups = backups.filter((b) => read.has(b));
      let s: number;
      if (fromBackups.length > 0) s = read.get(this.o.rng.pick(fromBackups))!;
      else if (read.has(primary)) s = read.get(primary)!;
      else {
        this.o.assert(false, `every replica of ${key} is lost`);
        continue;
      }
      // Backups first, then the primary (X§3.1 step 3), by CAS from the value read, so an
      // unknown outcome can be settled by reading the word back.
      const wrote: Record<string, number> = {};
      // args.saw: the replicas read and not written, with the change each was read after.
      // It orders the decision after the client steps it chose from (a decision that
      // writes nothing is otherwise ordered with no client step, and a validator could
      // match the next round's writes before it).
      const saw: Record<string, number> = {};
      for (const mn of [...backups, primary]) {
        const cur = read.get(mn);
        if (cur === undefined) continue;
        if (cur === s) {
          saw[objName(mn, key)] = counter.get(mn)!;
          continue;
        }
        const seq = await this.installValue(mn, next, k, cur, s);
        if (seq !== undefined) wrote[objName(mn, key)] = seq;
      }
      if (!this.o.bugs.has('M8')) await this.commitChosen(s, next); // M8 skips l.7
      chosen.set(key, s);
      this.o.trace.step('master', 'decide', { key, value: s, wrote, saw });
    }
    // reconfigure and notify (l.8-10)
    for (const mn of handled) {
      this.removed.add(mn);
      this.down.delete(mn);
    }
    this.epoch = next;
    this.decisions.set(next, chosen);
    this.inEpisode = false;
    if (this.down.size === 0) {
      this.pubEpoch = next;
      this.pubRemoved = new Set(this.removed);
    }
    this.viewChanged();
    for (let i = this.queries.length - 1; i >= 0; i--) {
      const q = this.queries[i];
      const s = this.decisions.get(q.epoch + 1)?.get(q.key);
      if (s !== undefined) {
        this.queries.splice(i, 1);
        q.resolve(s);
      }
    }
  }

  /** CAS(cur -> s) on a replica; returns the change number, reading back after an unknown outcome. */
  private async installValue(mn: number, epoch: number, k: number, cur: number, s: number): Promise<number | undefined> {
    const slot = this.o.layout.slotAddr(k);
    for (;;) {
      if (!this.alive(mn)) return undefined;
      const r = await this.o.mem(mn).cas(epoch, slot, cur, s, this.o.timeoutMs);
      if (r.status === 'ok') return r.values[0] === cur ? r.counters[0] : undefined;
      if (r.status === 'lost' || r.status === 'timeout') {
        const back = await this.masterVerb(mn, () => this.o.mem(mn).read(epoch, slot, 1, this.o.timeoutMs));
        if (back === undefined) return undefined;
        if (back.values[0] === s) return back.counters[0]; // values are unique: nobody else wrote s since
        continue;
      }
      await sleep(20);
    }
  }

  /** l.7: the log entry of write(s) gets the special old value COMMITTED [L796]. */
  private async commitChosen(s: number, epoch: number): Promise<void> {
    if (s === 0) return;
    const { client, op } = writerOf(s % OP_BITS >= this.fresh ? s - this.fresh : s);
    const { layout } = this.o;
    const base = layout.logAddr(client, op);
    const reps = layout.logReplicas(client).filter((mn) => this.alive(mn));
    const copies: number[][] = [];
    for (const mn of reps) {
      const r = await this.masterVerb(mn, () => this.o.mem(mn).read(epoch, base, ENTRY, this.o.timeoutMs));
      if (r !== undefined) copies.push(r.values);
    }
    const e = mergeEntry(copies);
    if (e === undefined || e.vNew !== s || e.used !== 1 || e.old === COMMITTED) return;
    for (const mn of reps) await this.masterVerb(mn, () => this.o.mem(mn).write(epoch, base + E_OLD, [COMMITTED], this.o.timeoutMs));
  }

  // ---- client crash (Alg. 3 l.13-26) ------------------------------------------------------------

  private startRecovery(id: number, c: ClientState): void {
    c.state = 'recovering';
    const rec: Recovery = { abort: false, running: Promise.resolve() };
    this.recoveries.set(id, rec);
    const loop = async () => {
      await this.revoke(id);
      while (!this.stopped) {
        while (this.inEpisode || this.episodeWanted || this.down.size > 0) await sleep(10);
        rec.abort = false;
        let done = false;
        rec.running = this.recoverOnce(id, rec).then(
          () => {
            done = true;
          },
          (e) => {
            if (!(e instanceof Abort)) throw e;
          },
        );
        await rec.running;
        if (done) break;
      }
      this.recoveries.delete(id);
      c.state = 'recovered';
      this.stats.recoveries++;
    };
    void loop();
  }

  /** The client's verbs are refused from now on at every node: it can no longer race its recovery. */
  private async revoke(id: number): Promise<void> {
    for (let mn = 0; mn < this.o.layout.n; mn++) {
      if (this.alive(mn)) await this.masterVerb(mn, () => this.o.mem(mn).revoke(this.epoch, id, this.o.timeoutMs));
    }
  }

  private async recoverOnce(id: number, rec: Recovery): Promise<void> {
    const { layout, bugs } = this.o;
    const check = () => {
      if (rec.abort || this.stopped) throw new Abort();
    };
    const epoch = this.epoch;
    // The tail of the client's log: its newest entry over every alive replica.
    const reps = layout.logReplicas(id).filter((mn) => this.alive(mn));
    const rings: number[][] = [];
    for (const mn of reps) {
      const r = await this.masterVerb(mn, () => this.o.mem(mn).read(epoch, layout.logRingAddr(id), RING * ENTRY, this.o.timeoutMs));
      if (r === undefined) throw new Abort(); // fenced, or the node died: after the episode, again
      rings.push(r.values);
    }
    check();
    let tail: ReturnType<typeof mergeEntry>;
    let tailOp = 0;
    for (let slot = 0; slot < RING; slot++) {
      const e = mergeEntry(rings.map((w) => w.slice(slot * ENTRY, (slot + 1) * ENTRY)));
      if (e !== undefined && (tail === undefined || e.vNew > tail.vNew)) {
        tail = e;
        tailOp = writerOf(e.vNew).op;
      }
    }
    const client = `c${id}`;
    // The recovery of one client is a logical process of its own (README, "Deviations from
    // the first agreed trace vocabulary"): the master recovers several clients at once, so
    // one sequence for all of them would order steps that the memory nodes saw in another
    // order.
    const proc = `master/${client}`;
    // No log entry (the client crashed before any write of it reached a replica, e.g. while
    // reading): c0 on every key, so the recovery changes no slot and has no step to log.
    // The vocabulary's recoverClient names its key (specs/fusee/README.md), and the validator routes each event
    // to its key's slot: a keyless one made the whole trace "malformed" (an INVALID verdict
    // on a correct run: a `net` run whose loaded master declared a reading client dead).
    if (tail === undefined) return;
    if (tail.used === 0) return void this.o.trace.step(proc, 'recoverClient', { client, key: layout.keys[tail.key], case: 'c0' });
    const key = layout.keys[tail.key];
    if (tail.old === COMMITTED) return void this.o.trace.step(proc, 'recoverClient', { client, key, value: tail.vNew, case: 'committed' });
    if (tail.old === OLD_EMPTY) {
      this.o.trace.step(proc, 'recoverClient', { client, key, value: tail.vNew, case: 'c1' });
      if (bugs.has('M17')) return; // M17 reclaims instead of redoing
      // c1: redo the write with the v_new in the log (Alg. 3 l.18, l.22), as the master.
      let vNew = tail.vNew;
      let op = tailOp;
      let resume: { ver: number } | undefined = { ver: tail.ver };
      if (bugs.has('M16')) {
        // M16: a freshly allocated object (same user value, new address) and a new log entry
        op = tailOp + this.fresh;
        vNew = tail.vNew + this.fresh;
        resume = undefined;
      }
      const redo = new Snapshot(this.redoEnv(check), { proc, verbId: 0, logOwner: id, tag: { client }, check });
      try {
        await redo.write(key, vNew, op, resume);
      } catch (e) {
        if (e instanceof Crash) {
          // an unknown outcome of the master's own verb: start the recovery over from the log
          throw new Abort();
        }
        throw e;
      }
      return;
    }
    // c2 / c3: the old value is complete. CAS(primary: v_old -> v_new) does both: it
    // succeeds exactly when v_p = v_old (c2), and only reads otherwise (c3).
    const old = decodeOld(tail.old);
    const k = tail.key;
    const { primary } = layout.roles(k, this.removed);
    const slot = layout.slotAddr(k);
    let expected = old;
    if (bugs.has('M11')) {
      // M11: CAS the primary to v_new whatever it holds
      const r = await this.masterVerb(primary, () => this.o.mem(primary).read(epoch, slot, 1, this.o.timeoutMs));
      check();
      if (r === undefined) throw new Abort();
      expected = r.values[0];
      if (expected === tail.vNew) return void this.o.trace.step(proc, 'recoverClient', { client, key, value: tail.vNew, case: 'c3' }, { obj: objName(primary, key), objSaw: r.counters[0] });
    }
    for (;;) {
      check();
      const r = await this.o.mem(primary).cas(epoch, slot, expected, tail.vNew, this.o.timeoutMs);
      if (r.status === 'ok') {
        const changed = r.values[0] === expected;
        this.o.trace.step(
          proc,
          'recoverClient',
          { client, key, value: tail.vNew, case: changed ? 'c2' : 'c3', expected, swap: tail.vNew, prior: r.values[0] },
          changed ? { obj: objName(primary, key), objSeq: r.counters[0] } : { obj: objName(primary, key), objSaw: r.counters[0] },
        );
        return;
      }
      if (r.status === 'fenced' || !this.alive(primary)) throw new Abort();
      if (r.status === 'lost' || r.status === 'timeout') {
        const back = await this.masterVerb(primary, () => this.o.mem(primary).read(epoch, slot, 1, this.o.timeoutMs));
        if (back === undefined) throw new Abort();
        if (back.values[0] === tail.vNew) {
          this.o.trace.step(proc, 'recoverClient', { client, key, value: tail.vNew, case: 'c2', expected, swap: tail.vNew, prior: expected }, { obj: objName(primary, key), objSeq: back.counters[0] });
          return;
        }
        if (back.values[0] !== expected) {
          this.o.trace.step(proc, 'recoverClient', { client, key, value: tail.vNew, case: 'c3', expected, swap: tail.vNew, prior: back.values[0] }, { obj: objName(primary, key), objSaw: back.counters[0] });
          return;
        }
      }
      await sleep(20);
    }
  }

  private redoEnv(check: () => void): Env {
    return {
      layout: this.o.layout,
      bugs: this.o.bugs,
      trace: this.o.trace,
      mem: this.o.mem,
      view: () => this.view(),
      viewChange: (ms) => this.viewChange(ms),
      // An aborted redo must not wait for the decision of the episode that waits for it.
      failQuery: async (key, epoch) => {
        const answer = this.failQuery(key, epoch);
        let s: number | undefined;
        void answer.then((v) => (s = v));
        while (s === undefined) {
          check();
          await sleep(10);
        }
        return s;
      },
      assert: this.o.assert,
      timeoutMs: this.o.timeoutMs,
      pollMs: this.o.pollMs,
    };
  }

  /** For the harness: recoveries and episodes still under way. */
  busy(): boolean {
    return this.inEpisode || this.episodeWanted || this.down.size > 0 || this.recoveries.size > 0 || [...this.clients.values()].some((c) => c.state === 'dead');
  }
}
