// One partition's search: candidates (a cut of the partial order — how many of each
// process's events are matched — and a spec state), advanced level by level, one event per
// candidate per level, deduplicated by fingerprint. The reduction: a ready local event that
// matches is taken at once and alone; the search branches only when no local event matches
// (over the ready global events: crashes, fences, the master's decisions), and it branches
// only once it knows every process's next event here (README.md, "The search").

import { encodeValue, fingerprint, Words } from '../explore/encode.ts';
import type { Action } from '../explore/types.ts';
import { InputError } from '../../traces/errors.ts';
import { equal, getPath } from './path.ts';
import type { RawEvent } from './read.ts';
import type { Attempt, DeadCandidate, Denotation, EventRef, Missed, Observation, PartitionSpec, WhyNot } from './types.ts';

/** A process of the whole trace, as the merge knows it. */
export interface GProc {
  index: number;
  name: string;
  eof: boolean;
  /** May access shared objects (the merge waits for it before releasing an object's changes). */
  accessor: boolean;
}

/** A shared object of the whole trace: its partition and, per process, the largest count it has shown. */
export interface GObj {
  name: string;
  partition: Partition;
  local: number;
  /** Per process index: the largest objSeq/objSaw of its events read so far (-1: none). */
  wm: Int32Array;
  /** Cache of `released`: the epoch it was computed at, and its value. */
  epoch: number;
  released: number;
  /**
   * What the search took as known on a bet (see README, "Reading ahead") before every
   * process that may access the object had been read past it: every change up to
   * `betChanges` (a gap there as lost with a crash) and every read below `betReads`
   * (0: none). An access there read afterwards is a late event. `betBy`: the event the
   * highest bet was made for, and its `time`, for the reason.
   */
  betChanges: number;
  betReads: number;
  betBy?: { at: string; time: number | undefined };
}

/** What partitions share: the processes, the read epoch, the files' names. */
export interface World {
  procs: GProc[];
  /** Processes not at their end, in index order (rebuilt when one ends). */
  live: GProc[];
  /** Bumped whenever an event is read or a process ends: cached releases are stale. */
  epoch: number;
  /**
   * The smallest `time` of the next unread event over the processes not at their end
   * (undefined when one has none): every event logged before it has been read.
   */
  frontierTime: number | undefined;
  /** The `time` of a process's next unread event (undefined: none, or no time). */
  nextTime(proc: number): number | undefined;
  /** How long after a step its line may be written (ns of `time`), for the bets below. */
  slack: number;
  /** Branches taken on the bet that processes not read yet come later. */
  bets: number;
  files: readonly string[];
  exhaustive: boolean;
  maxFrontier: number;
  maxUnlogged: number;
  maxShown: number;
  trail: number;
}

/** Up to which count an object's accesses are all known: min over the processes that may still access it. */
export function released(world: World, o: GObj): number {
  if (o.epoch === world.epoch) return o.released;
  let min = Number.MAX_SAFE_INTEGER;
  for (const p of world.live) if (p.accessor && o.wm[p.index] < min) min = o.wm[p.index];
  o.epoch = world.epoch;
  o.released = min;
  return min;
}

interface Access {
  /** Partition-local object index. */
  o: number;
  n: number;
  change: boolean;
}

export interface PEvent {
  raw: RawEvent;
  proc: PProc;
  local: boolean;
  acc: Access[];
  /** Global index of the process this event ends, or -1. */
  ends: number;
  recv?: string;
  send?: readonly string[];
}

interface PProc {
  g: GProc;
  /** Its index in candidates' cuts; reused once the process has ended and every candidate matched all its events. */
  slot: number;
  /** Message ids it sent (forgotten with it). */
  sent: string[];
  events: PEvent[];
  /** Chain position of events[0]. */
  base: number;
  /** Events routed here so far. */
  known: number;
}

interface PObj {
  g: GObj;
  /** Known changes not yet consumed by every candidate, sorted. */
  changes: number[];
  /** Known reads per version. */
  reads: Map<number, number>;
  /** Every candidate has consumed the changes up to this one. */
  floor: number;
  maxSeq: number;
  changeCount: number;
}

interface Trail {
  ev: RawEvent;
  steps: readonly Action[];
  prev: Trail | null;
}

interface Candidate<S> {
  /** Events matched. */
  n: number;
  /** Per process of the partition: events matched (missing entries: 0). */
  pos: number[];
  /** Per object: the last change consumed (its objSeq), and the reads consumed since. */
  ver: number[];
  rc: number[];
  s: S;
  trail: Trail | null;
  filled: number;
  /** See DeadCandidate.missed; the raw event, to clear it once matched. */
  missed?: Missed & { raw: RawEvent };
}

const READY = 0;
const NOT_READY = 1;
const UNKNOWN = 2;
/** Not ready, and never will be here: the event accesses an object at a count already passed. */
const LATE = 3;

export type PartitionStatus = 'running' | 'valid' | 'invalid' | 'inconclusive';

const SCORE: Record<WhyNot['kind'], number> = { observed: 3, guard: 2, denote: 1, order: 0 };


export class Partition<S = any, A extends Action = Action> {
  /** The processes with events here still to match (by arrival), and the slots of the cut. */
  private active: PProc[] = [];
  private slots = 0;
  private free: number[] = [];
  private readonly procOf = new Map<number, PProc>();
  readonly objs: PObj[] = [];
  private readonly msgs = new Map<string, { proc: PProc; pos: number }>();
  /** Messages whose receive every candidate has matched, of senders still here; messages of senders that left, not yet received. */
  private readonly receivedIds = new Set<string>();
  private readonly departed = new Set<string>();
  /** Events routed here; matching them all (and every process ended) is the end. */
  private total = 0;
  private frontier: Candidate<S>[];
  /** Events matched: by every candidate (`level`), by the furthest one (`matched`). */
  level = 0;
  matched = 0;
  /** Dead candidates that got furthest, described at their death (for the diagnosis). */
  private dead: { n: number; pos: readonly number[]; dc: DeadCandidate; best?: { event: EventRef; why: WhyNot; score: number; time: number } }[] = [];
  private rounds = 0;
  /** Events routed here (global events count in each partition). */
  events = 0;
  status: PartitionStatus = 'running';
  reason?: string;
  maxFrontier = 1;
  filled = 0;
  failure?: { matched: number; event: EventRef; why: WhyNot; candidates: DeadCandidate[]; frontier: number };
  /**
   * Global process indices this partition waits for (when blocked): `needs` for a next
   * event here (read in time order), `hard` for a release, an end or a message (read now).
   */
  needs = new Set<number>();
  hard = new Set<number>();
  /** Run again once every process has been read past this time (World.frontierTime). */
  waitTime = Infinity;
  dirty = true;
  /** A candidate that died with a late event next (see `known`): the run cannot say invalid. */
  hazard?: string;
  private words = new Words();
  private fp = new Int32Array(2);

  constructor(
    readonly name: string,
    readonly spec: PartitionSpec<S, A>,
    private readonly world: World,
  ) {
    this.frontier = [{ n: 0, pos: [], ver: [], rc: [], s: spec.init(), trail: null, filled: 0 }];
  }

  frontierSize(): number {
    return this.frontier.length;
  }

  // ---- adding events ------------------------------------------------------------------

  localProc(g: GProc): PProc {
    let p = this.procOf.get(g.index);
    if (p === undefined) {
      const reused = this.free.pop();
      const slot = reused ?? this.slots++;
      if (reused !== undefined) for (const x of this.frontier) x.pos[slot] = 0;
      p = { g, slot, sent: [], events: [], base: 0, known: 0 };
      this.active.push(p);
      this.procOf.set(g.index, p);
    }
    return p;
  }

  localObj(g: GObj): number {
    if (g.local < 0) {
      g.local = this.objs.length;
      this.objs.push({ g, changes: [], reads: new Map(), floor: 0, maxSeq: 0, changeCount: 0 });
    }
    return g.local;
  }

  add(raw: RawEvent, g: GProc, local: boolean, acc: { o: GObj; n: number; change: boolean }[], ends: number): void {
    const p = this.localProc(g);
    const accesses: Access[] = [];
    for (const a of acc) {
      const o = this.localObj(a.o);
      const obj = this.objs[o];
      if (a.change) {
        if (a.n <= obj.floor || obj.changes.includes(a.n)) {
          throw new InputError(this.world.files[raw.file], raw.line, `a change of ${obj.g.name} other than its change ${a.n}, which another event already claims (objSeq counts each change once)`);
        }
        insertSorted(obj.changes, a.n);
        obj.changeCount++;
        if (a.n > obj.maxSeq) obj.maxSeq = a.n;
      } else {
        obj.reads.set(a.n, (obj.reads.get(a.n) ?? 0) + 1);
      }
      accesses.push({ o, n: a.n, change: a.change });
    }
    const ev: PEvent = { raw, proc: p, local, acc: accesses, ends };
    if (raw.ev.recv !== undefined) ev.recv = raw.ev.recv;
    if (raw.ev.send !== undefined) {
      ev.send = raw.ev.send;
      for (const id of raw.ev.send) {
        if (this.msgs.has(id)) throw new InputError(this.world.files[raw.file], raw.line, `message ids sent once (${id} was sent before)`);
        this.msgs.set(id, { proc: p, pos: p.known });
        p.sent.push(id);
      }
    }
    p.events.push(ev);
    p.known++;
    this.total++;
    this.events++;
    this.dirty = true;
  }

  /** Object changes missing from the trace (gaps in objSeq): steps lost with crashed processes. */
  missingChanges(): number {
    let n = 0;
    for (const o of this.objs) n += o.maxSeq - o.changeCount;
    return n;
  }

  // ---- the search ---------------------------------------------------------------------

  private eventAt(p: PProc, pos: number): PEvent | undefined {
    return pos < p.known && pos >= p.base ? p.events[pos - p.base] : undefined;
  }

  /**
   * Whether the accesses below `n` of an object are all known: for certain (every process
   * that may access it has been read past n), or, when events carry `time`, because every
   * process has been read past the time this event was logged. The second is a bet that
   * no step was logged long after it happened; a bet lost shows as a late event and makes
   * the run inconclusive, never a wrong verdict.
   */
  private known(obj: PObj, n: number, e: PEvent): boolean {
    if (released(this.world, obj.g) >= n) return true;
    const t = e.raw.ev.time;
    return t !== undefined && this.world.frontierTime !== undefined && t + this.world.slack < this.world.frontierTime;
  }

  private readiness(x: Candidate<S>, e: PEvent, why?: string[]): number {
    for (const a of e.acc) {
      const obj = this.objs[a.o];
      const v = x.ver[a.o] ?? 0;
      if (a.change) {
        if (a.n <= v) return why?.push(`is change ${a.n} of ${obj.g.name}, but change ${v} is matched already: this event was read too late`), LATE;
        if (!this.known(obj, a.n, e)) return why?.push(`is change ${a.n} of ${obj.g.name}: waits until every process that could still access it has been read past it`), UNKNOWN;
        const next = firstAbove(obj.changes, v);
        if (next !== a.n) return why?.push(`is change ${a.n} of ${obj.g.name}: waits for its change ${next} first (matched so far: change ${v})`), NOT_READY;
        let reads = 0;
        for (let w = v; w < a.n; w++) reads += obj.reads.get(w) ?? 0;
        if ((x.rc[a.o] ?? 0) < reads) return why?.push(`is change ${a.n} of ${obj.g.name}: waits for ${reads - (x.rc[a.o] ?? 0)} read(s) of it that saw change ${a.n - 1} or earlier`), NOT_READY;
      } else {
        if (v > a.n) return why?.push(`read ${obj.g.name} after its change ${a.n}, but change ${v} is matched already: this event was read too late`), LATE;
        if (a.n > 0 && !this.known(obj, a.n, e)) return why?.push(`read ${obj.g.name} after its change ${a.n}: waits until every process that could change it has been read past it`), UNKNOWN;
        const next = firstAbove(obj.changes, v);
        if (next !== undefined && next <= a.n) return why?.push(`read ${obj.g.name} after its change ${a.n}: waits for its change ${next} first (matched so far: change ${v})`), NOT_READY;
      }
    }
    if (e.ends >= 0) {
      const victim = this.world.procs[e.ends];
      if (!victim.eof) return why?.push(`waits for the end of ${victim.name}'s log`), UNKNOWN;
      const vp = this.procOf.get(e.ends);
      if (vp !== undefined && (x.pos[vp.slot] ?? 0) < vp.known) return why?.push(`waits for ${victim.name}'s events before its end`), NOT_READY;
    }
    if (e.recv !== undefined) {
      const m = this.msgs.get(e.recv);
      if (m === undefined) return why?.push(`waits for the event that sent message ${e.recv}`), this.world.live.length > 0 ? UNKNOWN : NOT_READY;
      if (this.procOf.get(m.proc.g.index) === m.proc && (x.pos[m.proc.slot] ?? 0) <= m.pos) return why?.push(`waits for ${m.proc.g.name}'s send of message ${e.recv}`), NOT_READY;
    }
    // Ready on a bet (`known` by time): what it takes as known is remembered, so that an
    // access there read later is a late event (a change below a read taken as lost with a
    // crash, its line in fact written after the slack: a process paused between its step
    // and its line), never a mismatch that stands.
    for (const a of e.acc) if (a.n > 0) this.bet(this.objs[a.o].g, a.change ? a.n - 1 : a.n, a.change ? a.n : 0, e);
    return READY;
  }

  /** Records that changes up to `changes` and reads below `reads` of g were taken as known, if on a bet. */
  private bet(g: GObj, changes: number, reads: number, e: PEvent): void {
    if ((changes <= g.betChanges && reads <= g.betReads) || released(this.world, g) >= Math.max(changes, reads)) return;
    if (changes > g.betChanges || reads > g.betReads) g.betBy = { at: `${e.raw.ev.proc} #${e.raw.ev.seq} (${this.world.files[e.raw.file]}:${e.raw.line})`, time: e.raw.ev.time };
    g.betChanges = Math.max(g.betChanges, changes);
    g.betReads = Math.max(g.betReads, reads);
  }

  /** Some process not at its end has no known next event here at x (collected into needs / list). */
  private unknownNext(x: Candidate<S>, needs?: Set<number>, list?: number[]): boolean {
    let unknown = false;
    for (const g of this.world.live) {
      const p = this.procOf.get(g.index);
      if (p === undefined || (x.pos[p.slot] ?? 0) >= p.known) {
        unknown = true;
        if (!needs && !list) return true;
        needs?.add(g.index);
        list?.push(g.index);
      }
    }
    return unknown;
  }

  private ref(raw: RawEvent): EventRef {
    const e = raw.ev;
    return { proc: e.proc, seq: e.seq, action: e.action, ...(e.args ? { args: e.args } : {}), file: this.world.files[raw.file], line: raw.line };
  }

  private observe(obs: readonly Observation[] | undefined, at: 'before' | 'after', s: S, step: string | undefined): WhyNot | undefined {
    if (!obs) return undefined;
    let inner: unknown;
    for (const o of obs) {
      if (o.at !== at) continue;
      if (inner === undefined) inner = this.spec.inner ? this.spec.inner(s) : s;
      const actual = o.read ? o.read(inner) : getPath(inner, o.path);
      if (!equal(actual, o.expected)) {
        return { kind: 'observed', ...(step ? { step } : {}), field: o.field, path: o.path, ...(o.what ? { what: o.what } : {}), at, expected: o.expected, actual, ...(o.raw !== undefined ? { raw: o.raw } : {}) };
      }
    }
    return undefined;
  }

  /** The event's own `obs` (spec paths, after the step). */
  private eventObs(e: PEvent): Observation[] | undefined {
    const obs = e.raw.ev.obs;
    if (!obs) return undefined;
    return Object.entries(obs).map(([path, expected]) => ({ field: `obs.${path}`, path, expected, at: 'after' as const }));
  }

  /** Matches one denotation from s: the final state, or why not (a false guard first: the observations of a step that cannot be taken say little). */
  private apply(s: S, d: Denotation<S, A>, e: PEvent): { s: S } | WhyNot {
    const s0 = d.before ? d.before(s) : s;
    let t = s0;
    for (const a of d.steps) {
      const g = this.spec.enabled(t, a);
      if (g !== true) return { kind: 'guard', step: a.label, message: g };
      t = this.spec.next(t, a);
    }
    const firstLabel = d.steps[0]?.label;
    const lastLabel = d.steps.length > 0 ? d.steps[d.steps.length - 1].label : undefined;
    const miss = this.observe(d.observe, 'before', s0, firstLabel) ?? this.observe(d.observe, 'after', t, lastLabel) ?? this.observe(this.eventObs(e), 'after', t, lastLabel);
    if (miss) return miss;
    return { s: d.after ? d.after(t) : t };
  }

  private advance(x: Candidate<S>, e: PEvent, s: S, d: Denotation<S, A>, extra: readonly A[] = []): Candidate<S> {
    const pos = x.pos.slice();
    const slot = e.proc.slot;
    while (pos.length <= slot) pos.push(0);
    pos[slot]++;
    let ver = x.ver;
    let rc = x.rc;
    if (e.acc.length > 0) {
      ver = x.ver.slice();
      rc = x.rc.slice();
      for (const a of e.acc) {
        while (ver.length <= a.o) {
          ver.push(0);
          rc.push(0);
        }
        if (a.change) this.bet(this.objs[a.o].g, a.n, a.n, e);
        if (a.change) {
          ver[a.o] = a.n;
          rc[a.o] = 0;
        } else rc[a.o]++;
      }
    }
    const steps = extra.length > 0 ? [...extra, ...d.steps] : d.steps;
    const filled = x.filled + (d.filled ?? 0) + extra.length;
    const missed = x.missed && x.missed.raw !== e.raw ? x.missed : undefined;
    return { n: x.n + 1, pos, ver, rc, s, trail: { ev: e.raw, steps, prev: x.trail }, filled, ...(missed ? { missed } : {}) };
  }

  /** The successors of x by event e (every denotation that matches), and why others did not. */
  private tryEvent(x: Candidate<S>, e: PEvent, out: Candidate<S>[], attempt?: Attempt): boolean {
    const ds = this.spec.denote(x.s, e.raw.ev);
    if (typeof ds === 'string') {
      attempt?.tries.push({ steps: [], why: { kind: 'denote', message: ds } });
      return false;
    }
    let any = false;
    for (const d of ds) {
      const r = this.apply(x.s, d, e);
      if ('s' in r) {
        out.push(this.advance(x, e, r.s, d));
        any = true;
      } else attempt?.tries.push({ steps: d.steps.map((a) => a.label), ...(d.note ? { note: d.note } : {}), why: r });
    }
    return any;
  }

  private noteMissed(x: Candidate<S>, out: Candidate<S>[], from: number): void {
    let first: PEvent | undefined;
    for (const p of this.active) {
      const e = this.eventAt(p, x.pos[p.slot] ?? 0);
      if (e === undefined || !e.local || this.readiness(x, e) !== READY) continue;
      if (!first || (e.raw.ev.time ?? Infinity) < (first.raw.ev.time ?? Infinity)) first = e;
    }
    if (!first) return;
    const attempt: Attempt = { event: this.ref(first.raw), tries: [] };
    this.tryEvent(x, first, [], attempt);
    const t = attempt.tries[0];
    if (!t) return;
    for (let i = from; i < out.length; i++) {
      const y = out[i];
      if (!y.missed) y.missed = { event: attempt.event, why: t.why, then: y.trail ? y.trail.steps.map((a) => a.label) : [], raw: first.raw };
    }
  }

  /**
   * Whether e is inert here (Denotation.inert: no step in any state it could meet): it
   * commutes with everything, so the reduction takes it like a local event.
   */
  private stutters(x: Candidate<S>, e: PEvent): boolean {
    const ds = this.spec.denote(x.s, e.raw.ev);
    return typeof ds !== 'string' && ds.length === 1 && ds[0].inert === true && ds[0].steps.length === 0 && !ds[0].before && !ds[0].after;
  }

  /** Unlogged steps (PartitionSpec.unlogged) then e: breadth first, up to maxUnlogged steps. */
  private tryWithUnlogged(x: Candidate<S>, e: PEvent, out: Candidate<S>[]): boolean {
    const unlogged = this.spec.unlogged;
    if (!unlogged || this.world.maxUnlogged <= 0) return false;
    let layer: { s: S; path: A[] }[] = [{ s: x.s, path: [] }];
    const seen = new Set<string>();
    for (let depth = 1; depth <= this.world.maxUnlogged; depth++) {
      const next: { s: S; path: A[] }[] = [];
      for (const { s, path } of layer) {
        for (const a of unlogged.call(this.spec, s)) {
          if (this.spec.enabled(s, a) !== true) continue;
          const t = this.spec.next(s, a);
          const key = this.key(x.pos, t);
          if (seen.has(key)) continue;
          seen.add(key);
          next.push({ s: t, path: [...path, a] });
        }
      }
      let any = false;
      for (const { s, path } of next) {
        const ds = this.spec.denote(s, e.raw.ev);
        if (typeof ds === 'string') continue;
        for (const d of ds) {
          const r = this.apply(s, d, e);
          if ('s' in r) {
            out.push(this.advance(x, e, r.s, d, path));
            any = true;
          }
        }
      }
      if (any) return true;
      layer = next;
    }
    return false;
  }

  /**
   * The successors of x at this level; 'wait' when x cannot go on without events not yet
   * read (its needs are added to this.needs).
   */
  private expand(x: Candidate<S>, out: Candidate<S>[]): 'ok' | 'wait' {
    const ready: PEvent[] = [];
    /** `time` of the latest ready event (matched or not), and of the earliest one whose readiness is unknown. */
    let latest = -Infinity;
    let unknownAt = Infinity;
    let untimedUnknown = false;
    let untimedReady = false;
    for (const p of this.active) {
      const e = this.eventAt(p, x.pos[p.slot] ?? 0);
      if (e === undefined) continue;
      const r = this.readiness(x, e);
      const t = e.raw.ev.time;
      if (r === UNKNOWN) {
        if (t === undefined) untimedUnknown = true;
        else unknownAt = Math.min(unknownAt, t);
        continue;
      }
      if (r === NOT_READY || r === LATE) continue;
      if (t === undefined) untimedReady = true;
      else latest = Math.max(latest, t);
      if (!this.world.exhaustive && (e.local || this.stutters(x, e))) {
        if (this.tryEvent(x, e, out)) return 'ok';
      } else ready.push(e);
    }
    // No local event matches. Decide over the ready events (branch over the global ones;
    // die if none matches) only once nothing still unknown could come before them: every
    // event whose readiness is unknown, and every process's next event here. With `time`,
    // what was logged more than `slack` after every ready event comes after them (a step's
    // line is written within `slack` of the step: README, "Reading ahead").
    const unknownProcs: number[] = [];
    this.unknownNext(x, undefined, unknownProcs);
    if (unknownAt < Infinity || untimedUnknown || unknownProcs.length > 0) {
      const untimed = untimedUnknown || untimedReady;
      const horizon = latest + this.world.slack;
      const later =
        !this.world.exhaustive &&
        !untimed &&
        latest > -Infinity &&
        unknownAt > horizon &&
        unknownProcs.every((g) => (this.world.nextTime(g) ?? -Infinity) > horizon);
      if (!later) {
        if (!untimed && latest > -Infinity) this.waitTime = Math.min(this.waitTime, horizon);
        this.collectNeeds(x);
        return 'wait';
      }
      this.world.bets++;
    }
    let any = false;
    const from = out.length;
    for (const e of ready) if (this.tryEvent(x, e, out)) any = true;
    if (any) {
      // Remember the earliest local event that did not match here, for the diagnosis.
      if (!x.missed) this.noteMissed(x, out, from);
      return 'ok';
    }
    // Nothing matches as it stands: unlogged steps first, for any ready event.
    for (const p of this.active) {
      const e = this.eventAt(p, x.pos[p.slot] ?? 0);
      if (e === undefined || this.readiness(x, e) !== READY) continue;
      if (this.tryWithUnlogged(x, e, out)) any = true;
    }
    return 'ok';
  }

  /**
   * Why the death of x may be an artefact of a bet, described: a next event that accesses
   * an object at a count x has passed (a change matched on a bet), or an unmatched next
   * event of a process x bet would come after a global event.
   */
  private hazardOf(x: Candidate<S>): string | undefined {
    for (const p of this.active) {
      const e = this.eventAt(p, x.pos[p.slot] ?? 0);
      if (e === undefined) continue;
      const at = `${e.raw.ev.proc} #${e.raw.ev.seq} (${this.world.files[e.raw.file]}:${e.raw.line})`;
      const why: string[] = [];
      if (this.readiness(x, e, why) === LATE) return `${at} ${why[0]}`;
    }
    return undefined;
  }

  /**
   * After a death: whether an access to an object below a change matched on a bet (see
   * `known`) could still come — unmatched here, or in events not read yet (`unread`).
   */
  lateAccess(acc: { obj: string; n: number; change: boolean }, at: string, time: number | undefined): string | undefined {
    for (const o of this.objs) {
      if (o.g.name !== acc.obj) continue;
      const g = o.g;
      if (!(acc.change ? acc.n <= g.betChanges : acc.n < g.betReads) || g.betBy === undefined) return undefined;
      const by = g.betBy;
      const what = acc.change ? `is change ${acc.n} of ${g.name}` : `read ${g.name} after its change ${acc.n}`;
      const after = time !== undefined && by.time !== undefined && time > by.time ? `logged ${((time - by.time) / 1e9).toFixed(2)} s after ${by.at}` : `read after ${by.at}`;
      return `${at} ${what}, ${after}, which came after it: more than the slack of ${this.world.slack / 1e9} s`;
    }
    return undefined;
  }

  /** Unmatched events here that are late in the sense of `lateAccess`, described. */
  lateQueued(): string | undefined {
    const at = this.dead[0]?.pos ?? this.frontier[0]?.pos ?? [];
    for (const p of this.active) {
      for (let pos = at[p.slot] ?? 0; pos < p.known; pos++) {
        const e = this.eventAt(p, pos);
        if (!e) continue;
        for (const a of e.acc) {
          const late = this.lateAccess({ obj: this.objs[a.o].g.name, n: a.n, change: a.change }, `${e.raw.ev.proc} #${e.raw.ev.seq} (${this.world.files[e.raw.file]}:${e.raw.line})`, e.raw.ev.time);
          if (late !== undefined) return late;
        }
      }
    }
    return undefined;
  }

  private collectNeeds(x: Candidate<S>): void {
    this.unknownNext(x, this.needs);
    for (const p of this.active) {
      const e = this.eventAt(p, x.pos[p.slot] ?? 0);
      if (e === undefined) continue;
      for (const a of e.acc) {
        const obj = this.objs[a.o];
        if (this.known(obj, a.n, e)) continue;
        // With times, reading in time order gets there; without, read the laggards now.
        if (e.raw.ev.time !== undefined && this.world.frontierTime !== undefined) {
          this.waitTime = Math.min(this.waitTime, e.raw.ev.time + this.world.slack);
          continue;
        }
        for (const g of this.world.live) if (g.accessor && obj.g.wm[g.index] < a.n) this.hard.add(g.index);
      }
      if (e.ends >= 0 && !this.world.procs[e.ends].eof) this.hard.add(e.ends);
      if (e.recv !== undefined && !this.msgs.has(e.recv)) for (const g of this.world.live) this.needs.add(g.index);
    }
  }

  private key(pos: readonly number[], s: S): string {
    const w = this.words;
    w.reset();
    const n = this.slots;
    w.push(n);
    for (let i = 0; i < n; i++) w.push(pos[i] ?? 0);
    encodeValue(w, this.spec.view ? this.spec.view(s) : s);
    fingerprint(w.buf, w.length, this.fp);
    return `${this.fp[0]}:${this.fp[1]}`;
  }

  /** A candidate that matched every event here, every process having ended. */
  private finishedBy(list: readonly Candidate<S>[]): Candidate<S> | undefined {
    if (this.world.live.length > 0) return undefined;
    return list.find((x) => x.n >= this.total);
  }

  /**
   * Runs levels as far as the events read so far allow. Returns when the partition is
   * decided or needs more events (this.needs says whose).
   */
  run(): void {
    this.needs.clear();
    this.hard.clear();
    this.waitTime = Infinity;
    this.dirty = false;
    // Candidates advance one event per round; one that needs events not read yet is parked
    // (until the partition is run again) while the others go on.
    let active = this.frontier;
    const parked: Candidate<S>[] = [];
    while (this.status === 'running') {
      const done = this.finishedBy(active);
      if (done) {
        this.status = 'valid';
        this.filled = done.filled;
        this.matched = this.level = this.total;
        this.frontier = [done];
        this.release();
        return;
      }
      if (active.length === 0) {
        this.frontier = parked;
        if (parked.length > 0) return this.measure();
        this.fail();
        return;
      }
      const next: Candidate<S>[] = [];
      for (const x of active) {
        const before = next.length;
        if (this.expand(x, next) === 'wait') parked.push(x);
        else if (next.length === before) this.died(x);
      }
      // (A successor equal to a parked candidate is rare and only costs work: not looked for.)
      active = next.length <= 1 ? next : this.dedup(next);
      const size = active.length + parked.length;
      if (size > this.maxFrontier) this.maxFrontier = size;
      if (size > this.world.maxFrontier) {
        this.status = 'inconclusive';
        this.reason = `the frontier bound: ${size} candidates after ${active[0]?.n ?? parked[0]?.n} events of partition ${this.name} (more than ${this.world.maxFrontier})`;
        this.release();
        return;
      }
      if ((++this.rounds & 255) === 0) {
        this.frontier = [...active, ...parked];
        this.compact();
      }
    }
  }

  private measure(): void {
    let min = Infinity;
    let max = 0;
    for (const x of this.frontier) {
      if (x.n < min) min = x.n;
      if (x.n > max) max = x.n;
    }
    this.level = min === Infinity ? this.level : min;
    this.matched = Math.max(this.matched, max);
  }

  /** Every candidate is dead: invalid, or inconclusive when a death may come from a bet (`hazardOf`). */
  private fail(): void {
    this.diagnose();
    if (this.hazard !== undefined) {
      this.status = 'inconclusive';
      this.reason = `a late event in partition ${this.name}: ${this.hazard}`;
    } else this.status = 'invalid';
    this.release();
  }

  private dedup(list: Candidate<S>[]): Candidate<S>[] {
    const seen = new Map<string, Candidate<S>>();
    for (const x of list) {
      const k = this.key(x.pos, x.s);
      if (!seen.has(k)) seen.set(k, x);
    }
    return [...seen.values()];
  }

  /** A message's receive is matched by every candidate: forget the message once its sender has left too. */
  private received(id: string): void {
    if (this.departed.delete(id)) this.msgs.delete(id);
    else if (this.msgs.has(id)) this.receivedIds.add(id);
  }

  /** Drops what every candidate is past: matched events, consumed changes and reads, old trail. */
  private compact(): void {
    const f = this.frontier;
    const done: PProc[] = [];
    for (const p of this.active) {
      let min = Number.MAX_SAFE_INTEGER;
      for (const x of f) min = Math.min(min, x.pos[p.slot] ?? 0);
      // Keep the last matched event: the diagnosis names it.
      const drop = min - 1 - p.base;
      if (drop > 0 && drop * 2 >= p.events.length) {
        for (let i = 0; i < drop; i++) {
          const id = p.events[i].recv;
          if (id !== undefined) this.received(id);
        }
        p.events = p.events.slice(drop);
        p.base += drop;
      }
      if (p.g.eof && min === p.known) done.push(p);
    }
    // A process that has ended, with every event matched by every candidate, leaves: its
    // slot is free for the next (client ids are never reused, so the list would only grow).
    for (const p of done) {
      this.active.splice(this.active.indexOf(p), 1);
      this.procOf.delete(p.g.index);
      for (const e of p.events) if (e.recv !== undefined) this.received(e.recv);
      // Its messages not yet received stay known (sent, and every candidate is past the send):
      // a receiver may come much later (a node that ran on after its peer was killed).
      for (const id of p.sent) {
        if (this.receivedIds.delete(id)) this.msgs.delete(id);
        else this.departed.add(id);
      }
      this.free.push(p.slot);
    }
    for (let o = 0; o < this.objs.length; o++) {
      let min = Number.MAX_SAFE_INTEGER;
      for (const x of f) min = Math.min(min, x.ver[o] ?? 0);
      const obj = this.objs[o];
      if (min > obj.floor) {
        obj.floor = min;
        let k = 0;
        while (k < obj.changes.length && obj.changes[k] <= min) k++;
        if (k > 0) obj.changes.splice(0, k);
        for (const v of obj.reads.keys()) if (v < min) obj.reads.delete(v);
      }
    }
    // Keep the trails short: cut each after the report's length (candidates share trail
    // nodes, but all stand at the same level, so a shared node is as far from every head).
    for (const x of f) {
      let t = x.trail;
      for (let i = 1; t !== null && i < this.world.trail; i++) t = t.prev;
      if (t !== null) t.prev = null;
    }
  }

  /** A decided partition keeps only its verdict and its diagnosis. */
  private release(): void {
    if (this.status === 'invalid') return; // the driver still looks for late events (lateQueued)
    for (const p of this.active) p.events = [];
    this.frontier = this.frontier.slice(0, 1);
  }

  /** Turns an invalid verdict into an inconclusive one: a late event may have caused it. */
  retract(reason: string): void {
    this.status = 'inconclusive';
    this.reason = reason;
  }

  // ---- diagnosis --------------------------------------------------------------------

  /** Describes a candidate that has just died, if it is among the furthest so far. */
  private died(x: Candidate<S>): void {
    if (this.hazard === undefined) this.hazard = this.hazardOf(x);
    const max = this.world.maxShown;
    if (this.dead.length >= max && x.n < this.dead[this.dead.length - 1].n) return;
    let best: { event: EventRef; why: WhyNot; score: number; time: number } | undefined;
    const attempts: Attempt[] = [];
    const waiting: DeadCandidate['waiting'] = [];
    for (const p of this.active) {
      const e = this.eventAt(p, x.pos[p.slot] ?? 0);
      if (e === undefined) continue;
      const why: string[] = [];
      if (this.readiness(x, e, why) !== READY) {
        waiting.push({ event: this.ref(e.raw), waits: why[0] ?? 'not ready' });
        continue;
      }
      const attempt: Attempt = { event: this.ref(e.raw), tries: [] };
      this.tryEvent(x, e, [], attempt);
      attempts.push(attempt);
      // The failure shown first: the earliest event by its `time` (presentation only),
      // then the closest miss (a value that differed, then a false guard).
      for (const t of attempt.tries) {
        const score = SCORE[t.why.kind];
        const time = e.raw.ev.time ?? Number.MAX_SAFE_INTEGER;
        if (!best || time < best.time || (time === best.time && score > best.score)) best = { event: attempt.event, why: t.why, score, time };
      }
    }
    const cut: Record<string, number> = Object.create(null);
    for (const p of this.active) {
      const pos = x.pos[p.slot] ?? 0;
      const last = pos > 0 ? this.eventAt(p, pos - 1) : undefined;
      cut[p.g.name] = last ? last.raw.ev.seq : 0;
    }
    const trail: DeadCandidate['trail'] = [];
    for (let t = x.trail; t !== null && trail.length < this.world.trail; t = t.prev) trail.push({ event: this.ref(t.ev), steps: t.steps.map((a) => a.label) });
    trail.reverse();
    const show = this.spec.show ?? this.spec.inner;
    const dc: DeadCandidate = { state: show ? show.call(this.spec, x.s) : x.s, cut, attempts, waiting, trail };
    if (x.missed) {
      const { raw: _raw, ...missed } = x.missed;
      dc.missed = missed;
    }
    this.dead.push({ n: x.n, pos: x.pos, dc, ...(best ? { best } : {}) });
    this.dead.sort((a, b) => b.n - a.n);
    if (this.dead.length > max) this.dead.length = max;
  }

  private diagnose(): void {
    // Over the dead candidates that got furthest: the earliest failing event by `time`, then
    // the closest miss (where it was first tried, DeadCandidate.missed, completes it).
    const furthest = this.dead.filter((d) => d.n === this.dead[0]?.n);
    let best = furthest[0]?.best;
    for (const d of furthest) {
      const b = d.best;
      if (b && (!best || b.time < best.time || (b.time === best.time && b.score > best.score))) best = b;
    }
    const waiting = this.dead[0]?.dc.waiting ?? [];
    const cycle: WhyNot = {
      kind: 'order',
      message: `no event can come next: each process's next event waits for another, so the order the trace gives (seq, objSeq/objSaw, messages, crashes) has a cycle: ${waiting.map((w) => `${w.event.proc} #${w.event.seq} ${w.waits}`).join('; ')}`,
    };
    this.matched = this.dead[0]?.n ?? this.matched;
    this.failure = {
      matched: this.matched,
      event: best?.event ?? waiting[0]?.event ?? { proc: '?', seq: 0, action: '?', file: '?', line: 0 },
      why: best?.why ?? cycle,
      candidates: this.dead.map((d) => d.dc),
      frontier: furthest.length,
    };
  }
}

function insertSorted(xs: number[], x: number): void {
  let i = xs.length;
  xs.push(x);
  while (i > 0 && xs[i - 1] > x) {
    xs[i] = xs[i - 1];
    i--;
  }
  xs[i] = x;
}

function firstAbove(xs: readonly number[], v: number): number | undefined {
  for (let i = 0; i < xs.length; i++) if (xs[i] > v) return xs[i];
  return undefined;
}
