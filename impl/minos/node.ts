// One MINOS node: MINOS-B for <Lin, Synch|Strict|REnf|Event|Scope> as the extraction
// (../shared/protocols/minos-ddp.md) rebuilds the paper's Fig. 2 (coordinator Lines 1-22,
// follower Lines 23-44) and Fig. 3 (the per-model Steps a-m), and MINOS-O's ordering
// (vFIFO / dFIFO, drain before release, §5) behind `offload`. The transport and the clock
// are the caller's (node-main.ts: the kit's MessageNode through the fault proxy); the NVM
// is a kit DurableLog, fsynced exactly where the model says a persist completes.
//
// Concurrency is the paper's: one async "thread" per client operation (coordinator) and one
// per received INV or [PERSIST]sc (follower); every step that the spec makes atomic is a
// synchronous stretch of code, and threads interleave at `step()` (a macrotask boundary).
// The spins (ConsistencySpin, PersistencySpin, "await all ACKs") wait on `until`.


export type Model = 'synch' | 'strict' | 'renf' | 'event' | 'scope';
export const MODELS: readonly Model[] = ['synch', 'strict', 'renf', 'event', 'scope'];

/** Timestamps <version, node_id> [L100]-[L104] as one integer ver*TSN + nid: integer order is the paper's order. */
export const TSN = 8;
export const MAX_NODES = TSN;
export const NONE = -1;
export const ver = (t: number): number => Math.floor(t / TSN);
export const nid = (t: number): number => t % TSN;
export const mkTS = (v: number, n: number): number => v * TSN + n;
export const showTS = (t: number): string => (t === NONE ? '<-1,-1>' : `<${ver(t)},n${nid(t)}>`);

export interface Msg {
  type: 'INV' | 'ACK' | 'ACK_C' | 'ACK_P' | 'VAL' | 'VAL_C' | 'VAL_P' | 'PERSIST';
  key: string;
  ts: number;
  /** INV carries the data. */
  v?: string | null;
  /** Scope: the scope a write belongs to, or the scope a PERSIST closes. */
  sc?: string;
  /** The fixed [PERSIST]sc: the scope's writes as [key, TS_WR] (TS-cut writes included). */
  items?: [string, number][];
}

/** One NVM log record: a persisted write, or a scope's PERSIST marker. */
export type NvmRecord = { k: string; ts: number; v: string | null } | { sc: string };

/** The node's NVM: a kit DurableLog (tests pass one whose fsyncs they hold back). */
export interface Nvm {
  /** Appends; resolves once the records are durable (the persist completion event). */
  commitAsync(payloads: readonly Uint8Array[]): Promise<void>;
}

export interface NodeEnv {
  id: number;
  n: number;
  model: Model;
  offload: boolean;
  bugs: ReadonlySet<string>;
  keys: readonly string[];
  log: Nvm;
  /** What recovery found: per key, the max-TS entry (system-level recovery installs the same everywhere). */
  recovered?: ReadonlyMap<string, { ts: number; v: string | null }>;
  /** Reliable point-to-point send (the caller retries until delivered); returns the message id. */
  send(to: number, msg: Msg): string;
  /** Records a protocol step. */
  trace(action: string, args: Record<string, unknown>, extra?: { send?: string[]; recv?: string }): void;
  /** Background persists are group-committed this often (ms). */
  bgFlushMs: number;
  assert(message: string): void;
}

interface Rec {
  val: string | null;
  /** volatileTS, glb_volatileTS, glb_durableTS, RDLock_Owner (Fig. 1(a)). */
  vts: number;
  gv: number;
  gd: number;
  rd: number;
  /** The highest version this node's GenTS issued (the atomic-GenTS fix, extraction §3.4). */
  iss: number;
  /** MINOS-O vFIFO, head first. */
  vq: { ts: number; v: string | null }[];
  /** The max TS of this key in the local NVM log. */
  durable: number;
}

interface Pending {
  rec: NvmRecord;
  sc?: string;
  done: () => void;
}

const step = (): Promise<void> => new Promise((r) => setImmediate(r));

export class MinosNode {
  readonly recs = new Map<string, Rec>();
  private waiters: (() => void)[] = [];
  /** ACK senders per write, `${key}|${ts}` (or `sc|${sc}` for [ACK_P]sc): consistency and persistency sets. */
  private readonly acks = new Map<string, { c: Set<number>; p: Set<number> }>();
  /** VALs delivered and not yet consumed, `${type}|${key}|${ts}`; VALs to discard (Line 30). */
  private readonly vals = new Map<string, string[]>();
  private readonly discard = new Map<string, number>();
  private readonly seenInv = new Set<string>();
  private readonly bgQueue: Pending[] = [];
  private bgTimer: NodeJS.Timeout | undefined;
  /** Background persists not yet durable, per scope. */
  private readonly pendingScope = new Map<string, number>();
  private readonly model: Model;
  private readonly bug: (name: string) => boolean;
  private stopped = false;
  /** Threads running (coordinator and follower), for drain and progress. */
  threads = 0;

  constructor(private readonly env: NodeEnv) {
    this.model = env.model;
    this.bug = (name) => env.bugs.has(name);
    for (const k of env.keys) {
      const r = env.recovered?.get(k);
      const ts = r?.ts ?? 0;
      this.recs.set(k, { val: r?.v ?? null, vts: ts, gv: ts, gd: ts, rd: NONE, iss: ver(ts), vq: [], durable: ts });
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.bgTimer);
  }

  // --- §3.0 shared primitives -----------------------------------------------------------

  private rec(k: string): Rec {
    const r = this.recs.get(k);
    if (r === undefined) throw new Error(`minos: unknown key ${k}`);
    return r;
  }

  /** Older-than [L104]; M17 drops the node-id tie-break. */
  private lt(a: number, b: number): boolean {
    return this.bug('M17') ? ver(a) < ver(b) : a < b;
  }

  private newer(a: number, b: number): number {
    return this.lt(a, b) ? b : a;
  }

  /** glb updates are max(current, TS_WR) (§3.0); M19 assigns. */
  private glb(cur: number, ts: number): number {
    return this.bug('M19') ? ts : this.newer(cur, ts);
  }

  /** The version Obsolete() compares with: volatileTS, in MINOS-O the newest of the LLC and the vFIFO. */
  private cur(r: Rec): number {
    let m = r.vts;
    if (this.env.offload) for (const e of r.vq) m = this.newer(m, e.ts);
    return m;
  }

  /** Obsolete [L116]: strictly older; M5 compares with glb_volatileTS. */
  private obsolete(r: Rec, ts: number): boolean {
    return this.lt(ts, this.bug('M5') ? r.gv : this.cur(r));
  }

  /** SnatchRDLock [L124]: grab a free lock, snatch from an older owner, else continue without it. */
  private snatch(r: Rec, ts: number): void {
    if (r.rd === NONE) r.rd = ts;
    else if (this.lt(r.rd, ts) && !this.bug('M8')) r.rd = ts;
  }

  /**
   * Only the owner releases [L96]; M9 releases whoever owns it. Synchronous: the release, the
   * rest of its step and the step's trace line are one stretch (MINOS-O's drain before the
   * release, [L249], is awaited before it: `drain`).
   */
  private releaseIfOwner(k: string, ts: number): void {
    const r = this.rec(k);
    if (r.rd === ts || (this.bug('M9') && r.rd !== NONE)) {
      r.rd = NONE;
      this.notify();
    }
  }

  /** MINOS-O: waits until this write has left the vFIFO; returns nothing (no await) when it has. */
  private drain(k: string, ts: number): Promise<void> | undefined {
    return this.drained(k, ts) ? undefined : this.until(() => this.drained(k, ts));
  }

  private notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** A spin: resumes whenever something changed, until `cond` holds. */
  private async until(cond: () => boolean): Promise<void> {
    while (!cond()) {
      if (this.stopped) await new Promise(() => undefined); // a stopped node's threads never resume
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /** ConsistencySpin / PersistencySpin (Lines 2-3, 24-25): glb reaches the snapshot tau. */
  private async handleObsolete(k: string, ts: number, tau: number, side: 'coord' | 'foll', pspin = this.pspin(), done?: () => void): Promise<void> {
    const r = this.rec(k);
    await this.until(() => !this.lt(r.gv, tau));
    if (!pspin) done?.(); // what follows the last spin is part of its step (Lines 20-21 on the coordinator)
    this.env.trace(side === 'coord' ? 'consistencySpin_L2' : 'consistencySpin_L24', { key: k, ts, tau });
    if (!pspin) return;
    await this.until(() => !this.lt(r.gd, tau));
    done?.();
    this.env.trace(side === 'coord' ? 'persistencySpin_L3' : 'persistencySpin_L25', { key: k, ts, tau });
  }

  /** MINOS-O: this write has left the record's vFIFO (the drain before release, [L249]; M25 does not wait). */
  private drained(k: string, ts: number): boolean {
    return !this.env.offload || this.bug('M25') || !this.rec(k).vq.some((e) => e.ts === ts);
  }

  /** Models whose handleObsolete includes PersistencySpin (Step a/h, [L164]). */
  private pspin(): boolean {
    return this.model === 'synch' || this.model === 'strict' || this.model === 'renf';
  }

  // --- NVM: where a persist completes ---------------------------------------------------

  private applyDurable(recs: readonly NvmRecord[]): void {
    for (const e of recs) {
      if (!('k' in e)) continue;
      const r = this.rec(e.k);
      if (e.ts > r.durable) r.durable = e.ts;
    }
  }

  /**
   * A synchronous persist (Line 18 / 39; MINOS-O: the dFIFO enqueue): the thread waits for
   * the append's fsync; the node's other threads go on meanwhile, and persists that overlap
   * share an fsync (group commit).
   */
  private async persist(e: NvmRecord, action: string): Promise<void> {
    await this.env.log.commitAsync([Buffer.from(JSON.stringify(e))]);
    this.applyDurable([e]);
    this.notify();
    this.env.trace(action, 'k' in e ? { key: e.k, ts: e.ts } : { sc: e.sc });
  }

  /** Step d in the background: durable at the next group commit (the persist completion event). */
  private backgroundPersist(e: { k: string; ts: number; v: string | null }, sc?: string): void {
    if (this.bug('M27') && this.model === 'event') return;
    if (sc !== undefined) this.pendingScope.set(sc, (this.pendingScope.get(sc) ?? 0) + 1);
    this.bgQueue.push({ rec: e, sc, done: () => this.env.trace('backgroundPersist', { key: e.k, ts: e.ts }) });
    this.bgTimer ??= setTimeout(() => void this.flush(), this.env.bgFlushMs);
  }

  private async flush(): Promise<void> {
    this.bgTimer = undefined;
    if (this.stopped || this.bgQueue.length === 0) return;
    const batch = this.bgQueue.splice(0);
    await this.env.log.commitAsync(batch.map((p) => Buffer.from(JSON.stringify(p.rec))));
    this.applyDurable(batch.map((p) => p.rec));
    for (const p of batch) {
      if (p.sc !== undefined) {
        const left = (this.pendingScope.get(p.sc) ?? 1) - 1;
        if (left === 0) this.pendingScope.delete(p.sc);
        else this.pendingScope.set(p.sc, left);
      }
      p.done();
    }
    this.notify();
  }

  // --- the local write (Line 12 / 34) ----------------------------------------------------

  private install(k: string, ts: number, v: string | null): void {
    const r = this.rec(k);
    if (this.env.offload) {
      r.vq.push({ ts, v });
      setTimeout(() => this.dequeue(k), 1); // the SNIC drains the vFIFO on its own, asynchronously
      return;
    }
    if (!(ts > r.vts) && this.env.bugs.size === 0) {
      this.env.assert(`I11: node n${this.env.id} installs ${showTS(ts)} over volatileTS ${showTS(r.vts)} of ${k}`);
    }
    r.val = v;
    r.vts = ts;
    this.notify();
  }

  /** MINOS-O: the vFIFO's head reaches the LLC, re-checked for obsoleteness [L247]. */
  private dequeue(k: string): void {
    const r = this.rec(k);
    const e = r.vq.shift();
    if (e === undefined) return;
    if (this.bug('M24') || this.lt(r.vts, e.ts)) {
      // M24: no obsoleteness recheck at the dequeue
      r.val = e.v;
      r.vts = e.ts;
    }
    this.env.trace('vFIFOdequeue', { key: k, ts: e.ts });
    this.notify();
  }

  private broadcast(msg: Msg): string[] {
    const ids: string[] = [];
    for (let m = 0; m < this.env.n; m++) if (m !== this.env.id) ids.push(this.env.send(m, msg));
    return ids;
  }

  private ackSet(id: string): { c: Set<number>; p: Set<number> } {
    let a = this.acks.get(id);
    if (a === undefined) {
      a = { c: new Set(), p: new Set() };
      this.acks.set(id, a);
    }
    return a;
  }

  private all(s: Set<number>): boolean {
    return s.size >= this.env.n - 1;
  }

  // --- GenTS (Line 4) --------------------------------------------------------------------

  private genTS(r: Rec): number {
    const base = ver(this.cur(r));
    if (this.bug('TS-COLLISION')) return mkTS(base + 1, this.env.id); // the paper's words: volatileTS + 1
    const v = Math.max(base, r.iss) + 1; // fixed: an atomic fetch-and-increment of the versions issued here
    r.iss = v;
    return mkTS(v, this.env.id);
  }

  // --- coordinator (Fig. 2 left, Fig. 3 (i)(iii)(v)(vii)) --------------------------------

  /** A client-write; resolves when the client gets its response (the thread may go on). */
  write(k: string, v: string, sc?: string, client?: number): Promise<{ ts: number }> {
    return new Promise((respond) => {
      this.threads++;
      void this.coordWrite(k, v, sc, client, respond)
        .catch((e) => this.env.assert(`coordinator write ${k}=${v}: ${String(e)}`))
        .finally(() => this.threads--);
    });
  }

  private async coordWrite(k: string, v: string, sc: string | undefined, client: number | undefined, respond: (r: { ts: number }) => void): Promise<void> {
    const r = this.rec(k);
    const ts = this.genTS(r);
    let responded = false;
    const reply = () => {
      if (responded) return;
      responded = true;
      this.env.trace('clientReturn', { key: k, ts }); // the client gets its response (the thread may go on)
      respond({ ts });
    };
    this.env.trace('clientWrite_L4', { key: k, ts, v, sc, client });
    await step();
    // Line 5: the first Obsolete check, no locks
    if (this.obsolete(r, ts)) {
      const tau = this.cur(r);
      this.env.trace('obsoleteCheck_L5', { key: k, ts, obsolete: true, tau });
      if (!this.bug('M6')) await this.handleObsolete(k, ts, tau, 'coord');
      return reply();
    }
    this.env.trace('obsoleteCheck_L5', { key: k, ts, obsolete: false });
    await step();
    this.snatch(r, ts); // Line 8
    this.env.trace('snatchRDLock_L8', { key: k, ts, owner: r.rd });
    await step();
    // Lines 9-16 under WRLock (this synchronous stretch is the critical section): recheck, INVs, local update
    // M22: the recheck is not under WRLock: other threads run between it and the install
    const stale = !this.bug('M23') && this.obsolete(r, ts);
    if (this.bug('M22') && !stale) await step();
    if (stale) {
      const tau = this.cur(r);
      this.env.trace('localWrite_L9_16', { key: k, ts, obsolete: true, tau });
      // Lines 20-21 run on every path that reached Line 8: in the last spin's step
      // (a write cut short here was never enqueued: nothing to drain)
      if (this.bug('M6')) this.releaseIfOwner(k, ts);
      else await this.handleObsolete(k, ts, tau, 'coord', this.pspin(), () => this.releaseIfOwner(k, ts));
      return reply();
    }
    const acks = this.ackSet(`${k}|${ts}`);
    const sent = this.broadcast({ type: 'INV', key: k, ts, v, sc }); // Line 11: INVs before the local update
    this.install(k, ts, v); // Line 12
    this.env.trace('localWrite_L9_16', { key: k, ts, v, obsolete: false }, { send: sent });
    const entry = { k, ts, v };
    const firstOrAll = (s: Set<number>) => (this.bug('M1') ? s.size >= 1 : this.all(s));
    try {
      switch (this.model) {
        case 'synch': {
          if (this.bug('M3')) this.backgroundPersist(entry);
          else if (!this.bug('M10')) await this.persist(entry, 'persist_L18'); // Step d: synchronous
          await this.until(() => firstOrAll(acks.c)); // Step e: all ACKs
          if (this.bug('M1')) {
            reply();
            await this.until(() => this.all(acks.c));
          }
          if (this.bug('M20')) {
            this.releaseIfOwner(k, ts); // M20: Lines 20-21 before the glb update, which comes a step later
            await step();
          }
          r.gv = this.glb(r.gv, ts);
          r.gd = this.glb(r.gd, ts);
          this.notify();
          this.env.trace('allACKs_L19_22', { key: k, ts });
          if (this.env.offload) reply(); // Fig. 7(a): the batched ACK to the host ends the client-write
          const drained = this.drain(k, ts); // MINOS-O: RDLock is released once the write left the vFIFO
          if (drained) await drained;
          this.releaseIfOwner(k, ts); // Lines 20-21
          this.env.trace('releaseVAL_L20_22', { key: k, ts }, { send: this.broadcast({ type: 'VAL', key: k, ts }) }); // Line 22 (Step f)
          reply();
          if (this.bug('M10')) await this.persist(entry, 'persist_L18'); // M10: Line 18 after Line 22
          return;
        }
        case 'strict': {
          await this.persist(entry, 'persist_L18'); // Step d stays synchronous [L160]
          await this.until(() => firstOrAll(acks.c) && this.drained(k, ts)); // Step e: all ACK_Cs (MINOS-O: and drained, as the step releases RDLock)
          if (this.bug('M1')) {
            reply();
            await this.until(() => this.all(acks.c));
          }
          r.gv = this.glb(r.gv, ts);
          this.notify();
          this.env.trace('allACK_C_e', { key: k, ts });
          this.releaseIfOwner(k, ts);
          this.env.trace('sendVAL_C_f', { key: k, ts }, { send: this.broadcast({ type: 'VAL_C', key: k, ts }) });
          if (this.bug('M13')) reply(); // M13: return after the ACK_Cs
          await this.until(() => this.all(acks.p)); // Step f: all ACK_Ps
          r.gd = this.glb(r.gd, ts);
          this.notify();
          this.env.trace('allACK_P_f', { key: k, ts }, { send: this.broadcast({ type: 'VAL_P', key: k, ts }) });
          return reply();
        }
        case 'renf': {
          this.backgroundPersist(entry); // Step d in the background [L160]
          await this.until(() => firstOrAll(acks.c));
          if (this.bug('M1')) {
            reply();
            await this.until(() => this.all(acks.c));
          }
          r.gv = this.glb(r.gv, ts);
          this.notify();
          this.env.trace('allACK_C_e', { key: k, ts });
          if (this.bug('M11')) {
            this.releaseIfOwner(k, ts); // M11: Event behaviour
            this.env.trace('releaseVAL_L20_22', { key: k, ts }, { send: this.broadcast({ type: 'VAL', key: k, ts }) });
            return reply();
          }
          if (!this.bug('M12')) reply(); // Step e: the client's response; the thread continues
          await this.until(() => this.all(acks.p) && this.drained(k, ts)); // all ACK_Ps (MINOS-O: and drained, as the step releases RDLock)
          r.gd = this.glb(r.gd, ts);
          this.notify();
          this.env.trace('allACK_P_f', { key: k, ts });
          this.releaseIfOwner(k, ts); // "when all ACK_Ps are received, the RDLock is released"
          this.env.trace('releaseVAL_L20_22', { key: k, ts }, { send: this.broadcast({ type: 'VAL', key: k, ts }) });
          return reply();
        }
        default: {
          // Event, Scope: background persist, all ACK_Cs, release, VAL_C, return
          this.backgroundPersist(entry, sc);
          await this.until(() => firstOrAll(acks.c) && this.drained(k, ts)); // Step e: all ACK_Cs (MINOS-O: and drained, as the step releases RDLock)
          if (this.bug('M1')) {
            reply();
            await this.until(() => this.all(acks.c));
          }
          r.gv = this.glb(r.gv, ts);
          this.notify();
          this.env.trace('allACK_C_e', { key: k, ts });
          this.releaseIfOwner(k, ts);
          this.env.trace('sendVAL_C_f', { key: k, ts }, { send: this.broadcast({ type: 'VAL_C', key: k, ts, sc }) });
          return reply();
        }
      }
    } finally {
      this.acks.delete(`${k}|${ts}`);
    }
  }

  /** [PERSIST]sc (Scope): every node persists the scope, the coordinator gathers [ACK_P]sc. */
  persistScope(sc: string, items: [string, number][], client?: number): Promise<void> {
    return new Promise((respond) => {
      this.threads++;
      void (async () => {
        const sent = this.bug('S-GAP') ? [] : items;
        const acks = this.ackSet(`sc|${sc}`);
        this.env.trace('clientPersist', { sc, items: sent, client }, { send: this.broadcast({ type: 'PERSIST', key: '', ts: NONE, sc, items: sent }) });
        if (!this.bug('M16')) await this.scopeDurableHere(sc, sent); // M16: the coordinator does not wait for its own persists
        await this.until(() => this.all(acks.p));
        this.acks.delete(`sc|${sc}`);
        this.env.trace('allACK_P_sc', { sc }, { send: this.broadcast({ type: 'VAL_P', key: '', ts: NONE, sc }) });
        respond();
      })()
        .catch((e) => this.env.assert(`persist ${sc}: ${String(e)}`))
        .finally(() => this.threads--);
    });
  }

  /**
   * What a node awaits before [ACK_P]sc (the coordinator: before returning): its background
   * persists of the scope's writes [L168]; fixed, also a durable version >= each scope
   * write's TS, which covers writes cut short as obsolete (the S-GAP fix, extraction §3.2).
   */
  private async scopeDurableHere(sc: string, items: [string, number][]): Promise<void> {
    await this.until(() => !this.pendingScope.has(sc) && items.every(([k, ts]) => !this.lt(this.rec(k).durable, ts)));
    await this.persist({ sc }, 'persistScopeMarker'); // "persist the [PERSIST]sc request itself"
  }

  /** A client-read: local, stalls while RDLock is taken, loads atomically with the check [L170]. */
  async read(k: string, client?: number): Promise<string | null> {
    const r = this.rec(k);
    await this.until(() => r.rd === NONE);
    if (this.bug('M21')) await new Promise((r) => setTimeout(r, 1)); // M21: the load is a later step than the check
    this.env.trace('read', { key: k, ts: r.vts, v: r.val, client });
    return r.val;
  }

  // --- follower (Fig. 2 right, Fig. 3 (ii)(iv)(vi)(viii)) -------------------------------

  /** A delivered message (node-main's handler). */
  receive(from: number, msg: Msg, id: string): void {
    switch (msg.type) {
      case 'INV': {
        const dedup = `${msg.key}|${msg.ts}|${msg.v}`;
        if (this.seenInv.has(dedup)) return; // a retried send whose first copy arrived
        this.seenInv.add(dedup);
        this.threads++;
        void this.follWrite(from, msg, id)
          .catch((e) => this.env.assert(`follower ${msg.key} ${showTS(msg.ts)}: ${String(e)}`))
          .finally(() => this.threads--);
        return;
      }
      case 'PERSIST':
        this.threads++;
        void this.follPersist(from, msg, id)
          .catch((e) => this.env.assert(`follower persist ${msg.sc}: ${String(e)}`))
          .finally(() => this.threads--);
        return;
      case 'ACK':
      case 'ACK_C':
      case 'ACK_P': {
        const a = this.acks.get(msg.sc !== undefined && msg.key === '' ? `sc|${msg.sc}` : `${msg.key}|${msg.ts}`);
        if (a === undefined) return; // a write already finished (a retried ACK)
        if (msg.type !== 'ACK_P') a.c.add(from);
        if (msg.type !== 'ACK_C') a.p.add(from);
        this.env.trace(`recv${msg.type}`, { key: msg.key, ts: msg.ts, from, sc: msg.sc }, { recv: id });
        this.notify();
        return;
      }
      default: {
        const key = `${msg.type}|${msg.key}|${msg.ts}|${msg.sc ?? ''}`;
        const d = this.discard.get(key);
        if (d !== undefined) {
          if (d <= 1) this.discard.delete(key);
          else this.discard.set(key, d - 1);
          this.env.trace('discardVAL_L30', { key: msg.key, ts: msg.ts, type: msg.type, sc: msg.sc }, { recv: id });
          return; // Line 30: the VAL of a write cut short at Line 27
        }
        const q = this.vals.get(key);
        if (q === undefined) this.vals.set(key, [id]);
        else q.push(id);
        this.notify();
      }
    }
  }

  /** Waits for a VAL-type message and consumes it; returns its id (the trace's `recv`). */
  private async awaitVal(type: Msg['type'], k: string, ts: number, sc = '', also: () => boolean = () => true): Promise<string> {
    const key = `${type}|${k}|${ts}|${sc}`;
    for (;;) {
      await this.until(() => this.vals.has(key) && also());
      // two threads wait for one key only under a TS collision: the other may have taken it
      const q = this.vals.get(key);
      if (q === undefined) continue;
      const id = q.shift()!;
      if (q.length === 0) this.vals.delete(key);
      return id;
    }
  }

  private ack(to: number, type: Msg['type'], k: string, ts: number, sc?: string): string {
    return this.env.send(to, { type, key: k, ts, sc });
  }

  private async follWrite(from: number, msg: Msg, id: string): Promise<void> {
    const { key: k, ts, sc } = msg;
    const v = msg.v ?? null;
    const r = this.rec(k);
    const model = this.model;
    this.env.trace('recvINV', { key: k, ts, v, from }, { recv: id });
    // Line 27: obsolete on arrival: spin, ACK "as if the write was done", discard the VAL
    if (!this.bug('M4') && this.obsolete(r, ts)) {
      const tau = this.cur(r);
      await this.obsoleteAcks(from, k, ts, tau, sc);
      const vals: Msg['type'][] = model === 'synch' || model === 'renf' ? ['VAL'] : model === 'strict' ? ['VAL_C', 'VAL_P'] : ['VAL_C'];
      for (const t of vals) {
        const key = `${t}|${k}|${ts}|${t === 'VAL_C' && sc !== undefined ? sc : ''}`;
        // a VAL that overtook this thread is consumed now, else discarded when it comes
        const early = this.vals.get(key)?.shift();
        if (early !== undefined) {
          if (this.vals.get(key)!.length === 0) this.vals.delete(key);
          this.env.trace('discardVAL_L30', { key: k, ts, type: t }, { recv: early });
        } else this.discard.set(key, (this.discard.get(key) ?? 0) + 1);
      }
      return;
    }
    await step();
    this.snatch(r, ts); // Line 31
    this.env.trace('snatchRDLock_L31', { key: k, ts, owner: r.rd });
    await step();
    // Lines 32-38 under WRLock (MINOS-O: the enqueue, no recheck [L249])
    const installed = this.env.offload || this.bug('M4') || !this.obsolete(r, ts);
    if (installed) {
      this.install(k, ts, v); // Line 34
      this.env.trace('localWrite_L32_38', { key: k, ts, v, obsolete: false });
      if (this.bug('M7')) this.releaseIfOwner(k, ts); // M7: reads proceed before the VAL
      const entry = { k, ts, v };
      if (model === 'synch') {
        if (this.bug('M2')) {
          const sent = this.ack(from, 'ACK', k, ts); // M2: Line 40 before Line 39
          this.env.trace('sendACK_L40', { key: k, ts }, { send: [sent] });
          await this.persist(entry, 'persist_L39_40');
        } else {
          await this.persist(entry, 'persist_L39_40');
          this.env.trace('sendACK_L40', { key: k, ts }, { send: [this.ack(from, 'ACK', k, ts)] });
        }
      } else if (model === 'strict' || model === 'renf') {
        this.env.trace('sendACK_C', { key: k, ts }, { send: [this.ack(from, 'ACK_C', k, ts)] });
        if (this.bug('M14')) {
          this.env.trace('sendACK_P', { key: k, ts }, { send: [this.ack(from, 'ACK_P', k, ts)] }); // M14: before the persist
          await this.persist(entry, 'persist_L39_40');
        } else {
          await this.persist(entry, 'persist_L39_40');
          this.env.trace('sendACK_P', { key: k, ts }, { send: [this.ack(from, 'ACK_P', k, ts)] });
        }
      } else {
        this.env.trace('sendACK_C', { key: k, ts, sc }, { send: [this.ack(from, 'ACK_C', k, ts, sc)] });
        this.backgroundPersist(entry, sc); // Line 39, off the critical path
      }
    } else {
      const tau = this.cur(r);
      this.env.trace('localWrite_L32_38', { key: k, ts, obsolete: true, tau });
      await this.obsoleteAcks(from, k, ts, tau, sc);
    }
    // Step l (and m): the VALs end the transaction
    if (model === 'strict') {
      const valC = await this.awaitVal('VAL_C', k, ts, '', () => this.drained(k, ts));
      r.gv = this.glb(r.gv, ts);
      this.notify();
      this.releaseIfOwner(k, ts);
      this.env.trace('recvVAL_C_l', { key: k, ts }, { recv: valC });
      const valP = await this.awaitVal('VAL_P', k, ts);
      r.gd = this.glb(r.gd, ts);
      this.notify();
      this.env.trace('recvVAL_P_m', { key: k, ts }, { recv: valP });
      return;
    }
    const val = await this.awaitVal(model === 'synch' || model === 'renf' ? 'VAL' : 'VAL_C', k, ts, model === 'event' || model === 'scope' ? (sc ?? '') : '', () => this.drained(k, ts));
    r.gv = this.glb(r.gv, ts);
    if (model === 'synch' || model === 'renf') r.gd = this.glb(r.gd, ts);
    this.notify();
    this.releaseIfOwner(k, ts);
    this.env.trace(model === 'synch' || model === 'renf' ? 'recvVAL_l' : 'recvVAL_C_l', { key: k, ts }, { recv: val });
  }

  /** handleObsolete at a follower with the ACKs each model sends around the spins (Line 28-29). */
  private async obsoleteAcks(from: number, k: string, ts: number, tau: number, sc?: string): Promise<void> {
    const model = this.model;
    if (model === 'synch') {
      await this.handleObsolete(k, ts, tau, 'foll');
      this.env.trace('sendACK_L29', { key: k, ts }, { send: [this.ack(from, 'ACK', k, ts)] });
    } else if (model === 'strict' || model === 'renf') {
      await this.handleObsolete(k, ts, tau, 'foll', false);
      this.env.trace('sendACK_C', { key: k, ts }, { send: [this.ack(from, 'ACK_C', k, ts)] });
      const r = this.rec(k);
      await this.until(() => !this.lt(r.gd, tau));
      this.env.trace('persistencySpin_L25', { key: k, ts, tau });
      this.env.trace('sendACK_P', { key: k, ts }, { send: [this.ack(from, 'ACK_P', k, ts)] });
    } else {
      await this.handleObsolete(k, ts, tau, 'foll');
      this.env.trace('sendACK_C', { key: k, ts, sc }, { send: [this.ack(from, 'ACK_C', k, ts, sc)] });
    }
  }

  private async follPersist(from: number, msg: Msg, id: string): Promise<void> {
    const sc = msg.sc ?? '';
    this.env.trace('recvPERSIST', { sc, from }, { recv: id });
    if (!this.bug('M15')) await this.scopeDurableHere(sc, msg.items ?? []);
    this.env.trace('ackPersist_sc', { sc }, { send: [this.env.send(from, { type: 'ACK_P', key: '', ts: NONE, sc })] });
    const valP = await this.awaitVal('VAL_P', '', NONE, sc);
    this.env.trace('recvVAL_P_sc', { sc }, { recv: valP });
  }

  /** Per key, the NVM entry recovery installs: this node's max-TS record. */
  static recover(records: readonly Buffer[]): Map<string, { ts: number; v: string | null }> {
    const out = new Map<string, { ts: number; v: string | null }>();
    for (const b of records) {
      const e = JSON.parse(b.toString()) as NvmRecord;
      if (!('k' in e)) continue;
      const cur = out.get(e.k);
      if (cur === undefined || e.ts > cur.ts) out.set(e.k, { ts: e.ts, v: e.v });
    }
    return out;
  }
}
