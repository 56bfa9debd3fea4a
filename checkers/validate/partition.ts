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
import type { Attempt, DeadCandidate, Denotation, EventRef, Observation, PartitionSpec, WhyNot } from './types.ts';

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
}

/** What partitions share: the processes, the read epoch, the files' names. */
export interface World {
  procs: GProc[];
  /** Processes not at their end, in index order (rebuilt when one ends). */
  live: GProc[];
  /** Bumped whenever an event is read or a process ends: cached releases are stale. */
  epoch: number;
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
  /** Partition-local process index. */
  proc: number;
  local: boolean;
  acc: Access[];
  /** Global index of the process this event ends, or -1. */
  ends: number;
  recv?: string;
  send?: readonly string[];
}

interface PProc {
  g: GProc;
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
  /** Per process of the partition: events matched (missing entries: 0). */
  pos: number[];
  /** Per object: the last change consumed (its objSeq), and the reads consumed since. */
  ver: number[];
  rc: number[];
  s: S;
  trail: Trail | null;
  filled: number;
}

const READY = 0;
const NOT_READY = 1;
const UNKNOWN = 2;

export type PartitionStatus = 'running' | 'valid' | 'invalid' | 'inconclusive';

const SCORE: Record<WhyNot['kind'], number> = { observed: 3, guard: 2, denote: 1, order: 0 };


export class Partition<S = any, A extends Action = Action> {
  readonly procs: PProc[] = [];
  private readonly procOf = new Map<number, number>();
  readonly objs: PObj[] = [];
  private readonly msgs = new Map<string, { proc: number; pos: number }>();
  private frontier: Candidate<S>[];
  level = 0;
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
  dirty = true;
  private words = new Words();
  private fp = new Int32Array(2);

  constructor(
    readonly name: string,
    readonly spec: PartitionSpec<S, A>,
    private readonly world: World,
  ) {
    this.frontier = [{ pos: [], ver: [], rc: [], s: spec.init(), trail: null, filled: 0 }];
  }

  /** Unconsumed events held (for the buffer bound). */
  buffered(): number {
    let n = 0;
    let min: number[] | undefined;
    if (this.frontier.length > 0) min = this.frontier[0].pos;
    for (let i = 0; i < this.procs.length; i++) n += this.procs[i].known - (min?.[i] ?? 0);
    return n;
  }

  frontierSize(): number {
    return this.frontier.length;
  }

  // ---- adding events ------------------------------------------------------------------

  localProc(g: GProc): number {
    let i = this.procOf.get(g.index);
    if (i === undefined) {
      i = this.procs.length;
      this.procs.push({ g, events: [], base: 0, known: 0 });
      this.procOf.set(g.index, i);
    }
    return i;
  }

  localObj(g: GObj): number {
    if (g.local < 0) {
      g.local = this.objs.length;
      this.objs.push({ g, changes: [], reads: new Map(), floor: 0, maxSeq: 0, changeCount: 0 });
    }
    return g.local;
  }

  add(raw: RawEvent, g: GProc, local: boolean, acc: { o: GObj; n: number; change: boolean }[], ends: number): void {
    const proc = this.localProc(g);
    const p = this.procs[proc];
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
    const ev: PEvent = { raw, proc, local, acc: accesses, ends };
    if (raw.ev.recv !== undefined) ev.recv = raw.ev.recv;
    if (raw.ev.send !== undefined) {
      ev.send = raw.ev.send;
      for (const id of raw.ev.send) {
        if (this.msgs.has(id)) throw new InputError(this.world.files[raw.file], raw.line, `message ids sent once (${id} was sent before)`);
        this.msgs.set(id, { proc, pos: p.known });
      }
    }
    p.events.push(ev);
    p.known++;
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

  private eventAt(p: number, pos: number): PEvent | undefined {
    const pp = this.procs[p];
    return pos < pp.known ? pp.events[pos - pp.base] : undefined;
  }

  private readiness(x: Candidate<S>, e: PEvent, why?: string[]): number {
    for (const a of e.acc) {
      const obj = this.objs[a.o];
      const v = x.ver[a.o] ?? 0;
      const rel = released(this.world, obj.g);
      if (a.change) {
        if (rel < a.n) return why?.push(`is change ${a.n} of ${obj.g.name}: waits until every process that could still access it has been read past it`), UNKNOWN;
        const next = firstAbove(obj.changes, v);
        if (next !== a.n) return why?.push(`is change ${a.n} of ${obj.g.name}: waits for its change ${next} first (matched so far: change ${v})`), NOT_READY;
        let reads = 0;
        for (let w = v; w < a.n; w++) reads += obj.reads.get(w) ?? 0;
        if ((x.rc[a.o] ?? 0) < reads) return why?.push(`is change ${a.n} of ${obj.g.name}: waits for ${reads - (x.rc[a.o] ?? 0)} read(s) of it that saw change ${a.n - 1} or earlier`), NOT_READY;
      } else {
        if (a.n > 0 && rel < a.n) return why?.push(`read ${obj.g.name} after its change ${a.n}: waits until every process that could change it has been read past it`), UNKNOWN;
        if (v > a.n) return why?.push(`read ${obj.g.name} after its change ${a.n}, but change ${v} is matched already`), NOT_READY;
        const next = firstAbove(obj.changes, v);
        if (next !== undefined && next <= a.n) return why?.push(`read ${obj.g.name} after its change ${a.n}: waits for its change ${next} first (matched so far: change ${v})`), NOT_READY;
      }
    }
    if (e.ends >= 0) {
      const victim = this.world.procs[e.ends];
      if (!victim.eof) return why?.push(`waits for the end of ${victim.name}'s log`), UNKNOWN;
      const vp = this.procOf.get(e.ends);
      if (vp !== undefined && (x.pos[vp] ?? 0) < this.procs[vp].known) return why?.push(`waits for ${victim.name}'s events before its end`), NOT_READY;
    }
    if (e.recv !== undefined) {
      const m = this.msgs.get(e.recv);
      if (m === undefined) return why?.push(`waits for the event that sent message ${e.recv}`), this.world.live.length > 0 ? UNKNOWN : NOT_READY;
      if ((x.pos[m.proc] ?? 0) <= m.pos) return why?.push(`waits for ${this.procs[m.proc].g.name}'s send of message ${e.recv}`), NOT_READY;
    }
    return READY;
  }

  /** Some process not at its end has no known next event here at x. */
  private unknownNext(x: Candidate<S>, needs?: Set<number>): boolean {
    let unknown = false;
    for (const g of this.world.live) {
      const p = this.procOf.get(g.index);
      if (p === undefined || (x.pos[p] ?? 0) >= this.procs[p].known) {
        unknown = true;
        if (!needs) return true;
        needs.add(g.index);
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
    while (pos.length <= e.proc) pos.push(0);
    pos[e.proc]++;
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
        if (a.change) {
          ver[a.o] = a.n;
          rc[a.o] = 0;
        } else rc[a.o]++;
      }
    }
    const steps = extra.length > 0 ? [...extra, ...d.steps] : d.steps;
    const filled = x.filled + (d.filled ?? 0) + extra.length;
    return { pos, ver, rc, s, trail: { ev: e.raw, steps, prev: x.trail }, filled };
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
    let unknown = false;
    for (let p = 0; p < this.procs.length; p++) {
      const e = this.eventAt(p, x.pos[p] ?? 0);
      if (e === undefined) continue;
      const r = this.readiness(x, e);
      if (r === UNKNOWN) {
        unknown = true;
        continue;
      }
      if (r === NOT_READY) continue;
      if (e.local && !this.world.exhaustive) {
        if (this.tryEvent(x, e, out)) return 'ok';
      } else ready.push(e);
    }
    if (unknown || this.unknownNext(x)) {
      this.collectNeeds(x);
      return 'wait';
    }
    let any = false;
    for (const e of ready) if (this.tryEvent(x, e, out)) any = true;
    if (any) return 'ok';
    // Nothing matches as it stands: unlogged steps first, for any ready event.
    for (let p = 0; p < this.procs.length; p++) {
      const e = this.eventAt(p, x.pos[p] ?? 0);
      if (e === undefined || this.readiness(x, e) !== READY) continue;
      if (this.tryWithUnlogged(x, e, out)) any = true;
    }
    return 'ok';
  }

  private collectNeeds(x: Candidate<S>): void {
    this.unknownNext(x, this.needs);
    for (let p = 0; p < this.procs.length; p++) {
      const e = this.eventAt(p, x.pos[p] ?? 0);
      if (e === undefined) continue;
      for (const a of e.acc) {
        const obj = this.objs[a.o];
        if (released(this.world, obj.g) >= a.n) continue;
        for (const g of this.world.live) if (g.accessor && obj.g.wm[g.index] < a.n) this.hard.add(g.index);
      }
      if (e.ends >= 0 && !this.world.procs[e.ends].eof) this.hard.add(e.ends);
      if (e.recv !== undefined && !this.msgs.has(e.recv)) for (const g of this.world.live) this.needs.add(g.index);
    }
  }

  private key(pos: readonly number[], s: S): string {
    const w = this.words;
    w.reset();
    const n = this.procs.length;
    w.push(n);
    for (let i = 0; i < n; i++) w.push(pos[i] ?? 0);
    encodeValue(w, this.spec.view ? this.spec.view(s) : s);
    fingerprint(w.buf, w.length, this.fp);
    return `${this.fp[0]}:${this.fp[1]}`;
  }

  /** Total events at which every process here has ended and every event is matched. */
  private finished(): boolean {
    if (this.world.live.length > 0) return false;
    let total = 0;
    for (const p of this.procs) total += p.known;
    return this.level >= total;
  }

  /**
   * Runs levels as far as the events read so far allow. Returns when the partition is
   * decided or needs more events (this.needs says whose).
   */
  run(): void {
    this.needs.clear();
    this.hard.clear();
    this.dirty = false;
    while (this.status === 'running') {
      if (this.finished()) {
        this.status = 'valid';
        this.filled = this.frontier[0].filled;
        this.release();
        return;
      }
      const next: Candidate<S>[] = [];
      let wait = false;
      for (const x of this.frontier) {
        if (this.expand(x, next) === 'wait') wait = true;
      }
      if (wait) return;
      if (next.length === 0) {
        this.diagnose();
        this.status = 'invalid';
        this.release();
        return;
      }
      this.frontier = next.length === 1 ? next : this.dedup(next);
      if (this.frontier.length > this.maxFrontier) this.maxFrontier = this.frontier.length;
      if (this.frontier.length > this.world.maxFrontier) {
        this.status = 'inconclusive';
        this.reason = `the frontier bound: ${this.frontier.length} candidates after ${this.level + 1} events of partition ${this.name} (more than ${this.world.maxFrontier})`;
        this.release();
        return;
      }
      this.level++;
      if ((this.level & 255) === 0) this.compact();
    }
  }

  private dedup(list: Candidate<S>[]): Candidate<S>[] {
    const seen = new Map<string, Candidate<S>>();
    for (const x of list) {
      const k = this.key(x.pos, x.s);
      if (!seen.has(k)) seen.set(k, x);
    }
    return [...seen.values()];
  }

  /** Drops what every candidate is past: matched events, consumed changes and reads, old trail. */
  private compact(): void {
    const f = this.frontier;
    for (let p = 0; p < this.procs.length; p++) {
      let min = Number.MAX_SAFE_INTEGER;
      for (const x of f) min = Math.min(min, x.pos[p] ?? 0);
      const pp = this.procs[p];
      const drop = min - pp.base;
      if (drop > 0 && drop * 2 >= pp.events.length) {
        pp.events = pp.events.slice(drop);
        pp.base = min;
      }
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
    for (const p of this.procs) p.events = [];
    if (this.status !== 'invalid') this.frontier = this.frontier.slice(0, 1);
  }

  // ---- diagnosis --------------------------------------------------------------------

  private diagnose(): void {
    const shown = this.frontier.slice(0, this.world.maxShown);
    const candidates: DeadCandidate[] = [];
    let best: { event: EventRef; why: WhyNot; score: number; time: number } | undefined;
    for (const x of shown) {
      const attempts: Attempt[] = [];
      const waiting: DeadCandidate['waiting'] = [];
      for (let p = 0; p < this.procs.length; p++) {
        const e = this.eventAt(p, x.pos[p] ?? 0);
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
      for (let p = 0; p < this.procs.length; p++) {
        const pos = x.pos[p] ?? 0;
        const last = pos > 0 ? this.eventAt(p, pos - 1) : undefined;
        cut[this.procs[p].g.name] = last ? last.raw.ev.seq : 0;
      }
      const trail: DeadCandidate['trail'] = [];
      for (let t = x.trail; t !== null && trail.length < this.world.trail; t = t.prev) trail.push({ event: this.ref(t.ev), steps: t.steps.map((a) => a.label) });
      trail.reverse();
      const show = this.spec.show ?? this.spec.inner;
      candidates.push({ state: show ? show.call(this.spec, x.s) : x.s, cut, attempts, waiting, trail });
    }
    const waiting = candidates[0]?.waiting ?? [];
    const cycle: WhyNot = {
      kind: 'order',
      message: `no event can come next: each process's next event waits for another, so the order the trace gives (seq, objSeq/objSaw, messages, crashes) has a cycle: ${waiting.map((w) => `${w.event.proc} #${w.event.seq} ${w.waits}`).join('; ')}`,
    };
    this.failure = {
      matched: this.level,
      event: best?.event ?? waiting[0]?.event ?? { proc: '?', seq: 0, action: '?', file: '?', line: 0 },
      why: best?.why ?? cycle,
      candidates,
      frontier: this.frontier.length,
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
