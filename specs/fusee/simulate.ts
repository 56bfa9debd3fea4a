// Traces of FUSEE runs made by the spec itself, in the implementation's vocabulary
// (README.md, "The trace vocabulary"): many keys (one machine.ts slot each, open workload), clients running
// random writes and reads, the master's fences, decisions, recoveries and redos, memory-node
// and client crashes, one JSON line per step, one file per process. For testing and
// benchmarking the validator while no implementation's traces exist, and with a mutant
// (`mutant`) to check that validation against the correct spec catches it. Independent of
// trace.ts: it keeps its own client slots and counters.

import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { buildMachine, joinClient, leaveClient, openInvoke } from './machine.ts';
import { CRASHED, Rec, type FuseeAction, type FuseeState } from './state.ts';
import { recoveryCase } from './steps.ts';

export interface SimOptions {
  /** Clients running at once (a killed one is replaced by a fresh id). */
  clients: number;
  keys: number;
  /** Operations to invoke in all. */
  ops: number;
  seed: number;
  /** Replicas per key (default 3). */
  r?: number;
  /** Memory nodes (default r). */
  mns?: number;
  /** Fraction of reads (default 0.2). */
  reads?: number;
  /** Clients killed by the nemesis over the run (expected count). */
  clientKills?: number;
  /** Clients that time out and log their own crash (expected count). */
  timeouts?: number;
  /** Memory nodes killed (at most r - 1). */
  mnKills?: number;
  /** Probability that a killed client's last line is lost with it (default 0.3). */
  lose?: number;
  /** Skewed key choice: a few hot keys take most operations. */
  hotKeys?: boolean;
  casOrder?: 'free' | 'fixed';
  /** Simulate this mutant of machine.ts (validate against the correct spec to catch it). */
  mutant?: string;
  /** Write `time` (default true). */
  time?: boolean;
}

export interface SimStats {
  events: number;
  ops: number;
  clientKills: number;
  timeouts: number;
  mnKills: number;
  lostLines: number;
  processes: number;
  /** The run stopped with work left that nothing could do (a mutant's deadlock). */
  stuck: boolean;
}

type Json = Record<string, unknown>;

/** A seeded PRNG (mulberry32): the same seed gives the same trace. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ (t + t);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface KeyState {
  name: string;
  replicas: number[];
  s: FuseeState;
  /** Slot c's client id. */
  slots: string[];
}

interface Client {
  id: string;
  seq: number;
  /** The key of its op in progress, or null when idle. */
  key: KeyState | null;
  /** Its last event, held back until the next one (a kill may lose it). */
  held: Json | null;
}

/**
 * Runs the simulation and hands every line to `emit` (the header first, then events in the
 * order they happened). Lines of one process come in its seq order.
 */
export function simulate(o: SimOptions, emit: (line: Json) => void): SimStats {
  const r = o.r ?? 3;
  const n = o.mns ?? r;
  if (n < r) throw new Error('simulate: mns < r');
  const random = rng(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const machine = buildMachine({ r, clients: [], clientCrashes: Number.MAX_SAFE_INTEGER, mnCrashes: r - 1, casOrder: o.casOrder ?? 'free', open: true }, o.mutant);
  const keys: KeyState[] = [];
  const replicas: Record<string, number[]> = {};
  for (let k = 0; k < o.keys; k++) {
    const h = (k * 7 + 3) % n;
    const reps = Array.from({ length: r }, (_, i) => (h + i) % n);
    replicas[`k${k}`] = reps;
    keys.push({ name: `k${k}`, replicas: reps, s: machine.init()[0], slots: [] });
  }
  emit({ format: 'interleave-trace/1', spec: 'fusee', params: { r, n, replicas } });

  const counters = new Map<string, number>();
  const count = (obj: string): number => counters.get(obj) ?? 0;
  const bump = (obj: string): number => {
    const c = count(obj) + 1;
    counters.set(obj, c);
    return c;
  };
  const stats: SimStats = { events: 0, ops: 0, clientKills: 0, timeouts: 0, mnKills: 0, lostLines: 0, processes: 0, stuck: false };
  let clock = 0;
  const seqs = new Map<string, number>();
  const out = (proc: string, action: string, args: Json, extra: Json = {}): Json => {
    const seq = (seqs.get(proc) ?? 0) + 1;
    seqs.set(proc, seq);
    if (seq === 1) stats.processes++;
    clock += 40_000 + Math.floor(random() * 80_000); // about 12,000 events/s, as a 60 s run of 720,000
    stats.events++;
    return { proc, seq, action, args, ...extra, ...(o.time === false ? {} : { time: clock }) };
  };
  const clients: Client[] = [];
  let nextId = 0;
  const newClient = (): Client => {
    const c: Client = { id: `c${nextId++}`, seq: 0, key: null, held: null };
    clients.push(c);
    return c;
  };
  for (let i = 0; i < o.clients; i++) newClient();
  const emitClient = (c: Client, ev: Json): void => {
    if (c.held) emit(c.held);
    c.held = ev;
  };
  const emitMaster = (ev: Json): void => emit(ev);
  let nextValue = 1;
  const hot = o.hotKeys ? Math.max(1, Math.ceil(o.keys / 20)) : 0;
  const chooseKey = (): KeyState => (hot > 0 && random() < 0.8 ? keys[Math.floor(random() * hot)] : pick(keys));

  const mnOf = (k: KeyState, i: number): number => k.replicas[i];
  const objName = (k: KeyState, i: number): string => `mn${mnOf(k, i)}/${k.name}`;
  const val = (v: number): number | string => (v === CRASHED ? 'FAIL' : v);
  /** obj and objSaw for a read of replica i (none when it FAILed). */
  const saw = (k: KeyState, i: number): Json => (k.s.rep[i] === CRASHED ? {} : { obj: objName(k, i), objSaw: count(objName(k, i)) });

  /** The event of client step a of slot c on key k (before the step), then the step. */
  const clientStep = (k: KeyState, a: FuseeAction, proc: string, clientArg: Json): Json => {
    const s = k.s;
    const me = s.cl[a.c];
    let ev: Json;
    const base = { key: k.name, ...clientArg };
    switch (a.step) {
      case 'invoke':
        ev = out(proc, 'invoke', { ...base, value: a.x });
        break;
      case 'read': {
        // The replica the step read (a mutant's reader may read a backup, x).
        const i = a.x >= 0 ? a.x : s.primary;
        ev = out(proc, 'read', { ...base, mn: mnOf(k, i), result: val(s.rep[i]) }, saw(k, i));
        break;
      }
      case 'readPrimary':
        ev = out(proc, 'readPrimary', { ...base, mn: mnOf(k, s.primary), result: val(s.rep[s.primary]) }, saw(k, s.primary));
        break;
      case 'reRead':
      case 'loserWait':
        ev = out(proc, a.step, { ...base, mn: mnOf(k, me.pr), result: val(s.rep[me.pr]) }, saw(k, me.pr));
        break;
      case 'casBackup':
      case 'fixup':
      case 'casPrimary': {
        const i = a.step === 'casPrimary' ? me.pr : me.bk[a.x];
        const expected = a.step === 'fixup' ? me.vl[a.x] : me.vOld;
        const prior = s.rep[i];
        const obj = prior === CRASHED ? {} : prior === expected ? { obj: objName(k, i), objSeq: bump(objName(k, i)) } : { obj: objName(k, i), objSaw: count(objName(k, i)) };
        ev = out(proc, a.step, { ...base, mn: mnOf(k, i), expected, swap: me.vNew, prior: val(prior) }, obj);
        break;
      }
      case 'commitLog':
        ev = out(proc, 'commitLog', { ...base, old: me.vOld });
        break;
      case 'loserReturn':
        ev = out(proc, 'loserReturn', base);
        break;
      case 'failReply':
      case 'readReply':
        ev = out(proc, a.step, { ...base, rpc: val(me.rpc) });
        break;
      case 'readBackups': {
        const results: Json = {};
        const seen: Json = {};
        for (const b of a.x >= 0 ? [a.x] : me.bk) {
          results[`mn${mnOf(k, b)}`] = val(s.rep[b]);
          if (s.rep[b] !== CRASHED) seen[objName(k, b)] = count(objName(k, b));
        }
        ev = out(proc, 'readBackups', { ...base, results, saw: seen });
        break;
      }
      default:
        throw new Error(`simulate: not a client step ${a.step}`);
    }
    k.s = machine.next(s, a);
    return ev;
  };

  /** Removes slots whose client is recovered (their ids are never used again). */
  const tidy = (k: KeyState): void => {
    for (let c = k.s.cl.length - 1; c >= 0; c--) {
      if (k.s.cl[c].rec === Rec.Done) {
        k.s = leaveClient(k.s, c);
        k.slots.splice(c, 1);
      }
    }
  };

  const slotOf = (k: KeyState, id: string): number => k.slots.indexOf(id);
  const enabledFor = (k: KeyState, c: number): FuseeAction[] =>
    machine.actions(k.s).filter((a) => a.c === c && a.step !== 'crashClient' && a.step !== 'recoverClient');

  let mnLeft = Math.min(o.mnKills ?? 0, r - 1);
  const aliveMn = new Set<number>(Array.from({ length: n }, (_, i) => i));
  let killsLeft = o.clientKills ?? 0;
  let timeoutsLeft = o.timeouts ?? 0;
  const expectedSteps = o.ops * 4.4;
  let episode: Set<KeyState> | null = null;

  const killClient = (c: Client, self: boolean): void => {
    if (self) {
      emitClient(c, out(c.id, 'crashClient', { client: c.id }));
      if (c.held) emit(c.held);
      c.held = null;
      stats.timeouts++;
    } else {
      const lose = o.lose ?? 0.3;
      const held = c.held;
      const action = held?.action;
      if (held && action !== 'invoke' && action !== 'read' && c.key !== null && random() < lose) stats.lostLines++;
      else if (held) emit(held);
      c.held = null;
      emitMaster(out('nemesis', 'crashClient', { client: c.id }));
      stats.clientKills++;
    }
    for (const k of keys) {
      const slot = slotOf(k, c.id);
      if (slot >= 0 && k.s.cl[slot].rec === Rec.Live) {
        k.s = machine.next(k.s, { step: 'crashClient', c: slot, x: -1, label: '' });
        look(k);
      }
    }
    clients.splice(clients.indexOf(c), 1);
    if (stats.ops < o.ops) newClient();
  };

  type Move = () => void;
  /** Keys the master may have work on: a fence (a crashed replica in the roles, a client waiting for it), a recovery. */
  const fenceable = new Set<KeyState>();
  const recovering = new Set<KeyState>();
  const look = (k: KeyState): void => {
    const s = k.s;
    let fence = s.fenced;
    for (let i = 0; i < s.backups.length && !fence; i++) fence = s.rep[s.backups[i]] === CRASHED;
    if (s.rep[s.primary] === CRASHED) fence = true;
    let rec = false;
    for (const x of s.cl) {
      if (x.pc === 'F1' || x.pc === 'RF') fence = true;
      if (x.rec === Rec.Pending || x.rec === Rec.Redo) rec = true;
    }
    if (fence) fenceable.add(k);
    else fenceable.delete(k);
    if (rec) recovering.add(k);
    else recovering.delete(k);
  };

  const clientMoves = (c: Client): Move[] => {
    if (c.key === null) {
      if (stats.ops >= o.ops) return [];
      return [
        () => {
          const k = chooseKey();
          let slot = slotOf(k, c.id);
          if (slot < 0) {
            k.s = joinClient(k.s);
            k.slots.push(c.id);
            slot = k.slots.length - 1;
          }
          c.key = k;
          stats.ops++;
          const write = random() >= (o.reads ?? 0.2);
          const a = openInvoke(slot, write ? nextValue++ : undefined);
          if (!write && o.mutant === 'M4') a.x = pick(k.s.backups); // M4's reader reads a backup (machine.ts: read(c, rb))
          emitClient(c, clientStep(k, a, c.id, {}));
          if (k.s.cl[slot].pc === 'idle') c.key = null;
          look(k);
        },
      ];
    }
    const k = c.key;
    const slot = slotOf(k, c.id);
    return enabledFor(k, slot).map((a) => () => {
      emitClient(c, clientStep(k, a, c.id, {}));
      if (k.s.cl[slot].pc === 'idle') c.key = null;
      look(k);
    });
  };

  // The master: an episode's decisions, else a fence, else recoveries and redos.
  const masterMoves = (): Move[] => {
    const moves: Move[] = [];
    if (episode) {
      for (const k of episode) {
        const ds = machine.actions(k.s).filter((a) => a.step === 'decide');
        if (ds.length === 0) continue;
        moves.push(() => {
          const a = pick(ds);
          const wrote: Json = {};
          for (const i of [k.s.primary, ...k.s.backups]) if (k.s.rep[i] !== CRASHED) wrote[objName(k, i)] = bump(objName(k, i));
          emitMaster(out('master', 'decide', { key: k.name, value: a.x, wrote }));
          k.s = machine.next(k.s, a);
          episode!.delete(k);
          if (episode!.size === 0) episode = null;
          look(k);
        });
      }
      return moves;
    }
    const fence = [...fenceable].filter((k) => machine.actions(k.s).some((a) => a.step === 'prepare'));
    if (fence.length > 0) {
      return [
        () => {
          emitMaster(out('master', 'prepare', {}));
          for (const k of fence) {
            k.s = machine.next(k.s, { step: 'prepare', c: -1, x: -1, label: '' });
            look(k);
          }
          episode = new Set(fence);
        },
      ];
    }
    for (const k of recovering) {
      for (const a of machine.actions(k.s)) {
        if (a.step === 'recoverClient') {
          moves.push(() => {
            const me = k.s.cl[a.c];
            const kase = recoveryCase(k.s, me);
            const before = k.s.rep[k.s.primary];
            const obj = objName(k, k.s.primary);
            k.s = machine.next(k.s, a);
            const cased = k.s.rep[k.s.primary] !== before ? { obj, objSeq: bump(obj) } : {};
            emitMaster(out(`master/${k.slots[a.c]}`, 'recoverClient', { key: k.name, client: k.slots[a.c], case: kase === 'c1 redo' ? 'c1' : kase }, cased));
            tidy(k);
            look(k);
          });
        } else if (a.c >= 0 && k.s.cl[a.c].rec === Rec.Redo && a.step !== 'crashClient') {
          moves.push(() => {
            emitMaster(clientStep(k, a, `master/${k.slots[a.c]}`, { client: k.slots[a.c] }));
            tidy(k);
            look(k);
          });
        }
      }
    }
    return moves;
  };

  for (let steps = 0; ; steps++) {
    // The nemesis, now and then while operations remain.
    if (stats.ops < o.ops) {
      const p = random() * expectedSteps;
      if (p < killsLeft && clients.length > 0) {
        killsLeft--;
        killClient(pick(clients), false);
        continue;
      }
      if (p < timeoutsLeft + killsLeft && clients.some((c) => c.key !== null)) {
        timeoutsLeft--;
        killClient(pick(clients.filter((c) => c.key !== null)), true);
        continue;
      }
      if (p < mnLeft + timeoutsLeft + killsLeft && !episode) {
        mnLeft--;
        const mn = pick([...aliveMn]);
        aliveMn.delete(mn);
        emitMaster(out('nemesis', 'crashMN', { mn }));
        stats.mnKills++;
        for (const k of keys) {
          const i = k.replicas.indexOf(mn);
          if (i >= 0 && k.s.rep[i] !== CRASHED) {
            k.s = machine.next(k.s, { step: 'crashMN', c: -1, x: i, label: '' });
            look(k);
          }
        }
        continue;
      }
    }
    // Who moves: the first process, from a random one on, that has a step to take.
    let moved = false;
    const n = clients.length + 1;
    const from = Math.floor(random() * n);
    for (let j = 0; j < n; j++) {
      const who = (from + j) % n;
      const moves = who === clients.length ? masterMoves() : clientMoves(clients[who]);
      if (moves.length === 0) continue;
      pick(moves)();
      moved = true;
      break;
    }
    if (!moved) {
      stats.stuck = clients.some((c) => c.key !== null) || keys.some((k) => k.s.cl.some((x) => x.rec === Rec.Pending || x.rec === Rec.Redo));
      break;
    }
  }
  for (const c of clients) if (c.held) emit(c.held);
  return stats;
}

/** The simulation as in-memory files, one per process, each starting with the header. */
export function simulateFiles(o: SimOptions): { files: { name: string; lines: Json[] }[]; stats: SimStats } {
  let header: Json | undefined;
  const byProc = new Map<string, Json[]>();
  const stats = simulate(o, (line) => {
    if (!('proc' in line)) {
      header = line;
      return;
    }
    const proc = line.proc as string;
    let list = byProc.get(proc);
    if (!list) byProc.set(proc, (list = [header!]));
    list.push(line);
  });
  return { files: [...byProc].map(([proc, lines]) => ({ name: `${proc}.jsonl`, lines })), stats };
}

/** A process's file name: `master/c2` (a recovery) writes `master-c2.jsonl`. */
const fileOf = (proc: string): string => `${proc.replaceAll('/', '-')}.jsonl`;

/** The simulation written to dir, one file per process (`<proc>.jsonl`), streamed. */
export function simulateToDir(o: SimOptions, dir: string): { files: string[]; stats: SimStats } {
  let header = '';
  const open = new Map<string, { fd: number; buf: string[]; bytes: number }>();
  const flush = (f: { fd: number; buf: string[]; bytes: number }): void => {
    writeSync(f.fd, f.buf.join(''));
    f.buf = [];
    f.bytes = 0;
  };
  const stats = simulate(o, (line) => {
    const text = `${JSON.stringify(line)}\n`;
    if (!('proc' in line)) {
      header = text;
      return;
    }
    const proc = line.proc as string;
    let f = open.get(proc);
    if (!f) {
      f = { fd: openSync(join(dir, fileOf(proc)), 'w'), buf: [header], bytes: header.length };
      open.set(proc, f);
    }
    f.buf.push(text);
    f.bytes += text.length;
    if (f.bytes > 1 << 16) flush(f);
  });
  for (const f of open.values()) {
    flush(f);
    closeSync(f.fd);
  }
  return { files: [...open.keys()].map((p) => join(dir, fileOf(p))), stats };
}
