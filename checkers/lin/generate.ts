// Histories as a real system produces them, for tests and benchmarks: C clients drive a
// plain simulation of an object (a register, an etcd cas-register, a kv store with
// get/put/append over a few keys, a FIFO queue, a set). Each client runs one operation at
// a time; the operation takes effect at a random instant between its call and its return.
// An operation crashes with some probability, as a Jepsen client times out: it may have
// taken effect or not, it completes with `:info` (no return: indeterminate), and the
// process is replaced by a new one with a new id (Jepsen: id + clients). Histories are
// linearizable by construction; a corrupted variant changes one output to a stale value
// (one the object held before an update that completed before the call) or to a value no
// operation ever wrote. Deterministic from the seed.

import type { Operation } from './types.ts';

export type Family = 'register' | 'cas-register' | 'kv' | 'queue' | 'set';

export const FAMILIES: readonly Family[] = ['register', 'cas-register', 'kv', 'queue', 'set'];

/** The registered model that checks each family's histories. */
export const FAMILY_MODEL: Record<Family, string> = {
  register: 'register',
  'cas-register': 'etcd-cas-register',
  kv: 'kv-append',
  queue: 'queue',
  set: 'set',
};

export interface GenerateOptions {
  family: Family;
  /** Operations in the history (crashed ones included). */
  ops: number;
  /** Concurrent clients (processes at any time). */
  clients: number;
  seed: number;
  /** Probability that an operation crashes (completes with :info). Default 0.005 (issue 21). */
  crashRate?: number;
  /** Probability that a crashed operation took effect before the crash. Default 0.5. */
  effectRate?: number;
  /** Outputs to corrupt (0: the history is linearizable). Default 0. */
  corrupt?: number;
  /** kv: the number of keys. Default 8. */
  keys?: number;
  /** register, cas-register: values are 0 .. values-1 (Jepsen's (rand-int 5)). Default 5. */
  values?: number;
  /**
   * kv, queue, set: every written value is new (default true, as Jepsen's workloads do);
   * false draws them from 0 .. values-1 too, so that values repeat.
   */
  unique?: boolean;
  /** Scheduler steps per clock tick: above 1, calls and returns share times. Default 1. */
  tick?: number;
}

export interface Corruption {
  /** Index of the corrupted operation in the history. */
  index: number;
  kind: 'stale' | 'never-written';
  output: unknown;
  was: unknown;
}

export interface Generated {
  history: Operation[];
  /** The registered model name to check it with. */
  model: string;
  corruptions: Corruption[];
  crashed: number;
}

type Input = { f: string; key?: string; value?: unknown };

/** xorshift32 stepped through a splitmix-style scramble of the seed: a uint32 stream. */
export function prng(seed: number): () => number {
  let x = Math.imul((seed | 0) ^ 0x9e3779b9, 0x85ebca6b) ^ 0xc2b2ae35;
  if (x === 0) x = 0x6d2b79f5;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

/** One operation's life in the simulation. */
interface Flight {
  index: number;
  slot: number;
  input: Input;
  crash: boolean;
  /** Whether it takes effect (false only for some crashed operations). */
  effects: boolean;
  effected: boolean;
  output: unknown;
  /** The key's observable value just before this operation's effect. */
  before: unknown;
  /** The order in which operations took effect. */
  seq: number;
}

interface Simulation {
  input(r: () => number, fresh: number): Input;
  /** Apply now; the output, and the value the key held before. */
  effect(input: Input): { output: unknown; before: unknown };
  /** True when the output tells something about the state (a corruption target). */
  observes(input: Input, output: unknown): boolean;
  /** A value no operation writes, in place of `output`. */
  neverWritten(input: Input, output: unknown): unknown;
  /** Whether an operation changes the key's state (so a read after it must see it). */
  updates(input: Input, output: unknown): boolean;
}

function simulation(family: Family, keys: number, values: number, unique: boolean): Simulation {
  switch (family) {
    case 'register':
    case 'cas-register': {
      let v: unknown = null;
      const cas = family === 'cas-register';
      return {
        input(r) {
          const x = r() % 10;
          if (x < (cas ? 4 : 5)) return { f: 'read' };
          if (x < (cas ? 7 : 10)) return { f: 'write', value: r() % values };
          return { f: 'cas', value: [r() % values, r() % values] };
        },
        effect(input) {
          const before = v;
          if (input.f === 'read') return { output: v, before };
          if (input.f === 'write') {
            v = input.value;
            return { output: null, before };
          }
          const [from, to] = input.value as [unknown, unknown];
          if (v !== from) return { output: false, before };
          v = to;
          return { output: true, before };
        },
        observes: (input) => input.f === 'read',
        neverWritten: () => values + 1000,
        updates: (input, output) => input.f === 'write' || (input.f === 'cas' && output === true),
      };
    }
    case 'kv': {
      const m = new Map<string, string>();
      return {
        input(r, fresh) {
          const key = `k${r() % keys}`;
          const x = r() % 10;
          if (x < 5) return { f: 'get', key };
          // Unique values, delimited, as Porcupine's kv tests and Jepsen's append workloads.
          return { f: x < 9 ? 'append' : 'put', key, value: `x${(unique ? fresh : r() % values).toString(36)};` };
        },
        effect(input) {
          const key = input.key!;
          const before = m.get(key) ?? '';
          if (input.f === 'get') return { output: before, before };
          m.set(key, input.f === 'put' ? (input.value as string) : before + (input.value as string));
          return { output: null, before };
        },
        observes: (input) => input.f === 'get',
        neverWritten: () => 'never;',
        updates: (input) => input.f !== 'get',
      };
    }
    case 'queue': {
      const q: number[] = [];
      let head = 0;
      return {
        input(r, fresh) {
          return r() % 2 === 0 ? { f: 'enqueue', value: unique ? fresh : r() % values } : { f: 'dequeue' };
        },
        effect(input) {
          if (input.f === 'enqueue') {
            q.push(input.value as number);
            return { output: null, before: undefined };
          }
          return { output: head === q.length ? null : q[head++], before: undefined };
        },
        observes: (input) => input.f === 'dequeue',
        neverWritten: () => -1,
        updates: (input, output) => input.f === 'enqueue' || output !== null,
      };
    }
    case 'set': {
      const s: number[] = [];
      const members = new Set<number>();
      return {
        input(r, fresh) {
          // Reads return every member: keep them rare enough that the history stays
          // linear in size (a read per ~20 members on average).
          return r() % (s.length + 20) < 4 ? { f: 'read' } : { f: 'add', value: unique ? fresh : r() % values };
        },
        effect(input) {
          if (input.f === 'read') return { output: [...s], before: undefined };
          if (!members.has(input.value as number)) {
            members.add(input.value as number);
            s.push(input.value as number);
          }
          return { output: null, before: undefined };
        },
        observes: (input) => input.f === 'read',
        neverWritten: (_input, output) => [...(output as number[]), -1],
        updates: (input) => input.f === 'add',
      };
    }
  }
}

/** Play the clients against the object: the history, linearizable by construction. */
export function generateHistory(options: GenerateOptions): Generated {
  const { family, ops, clients, seed } = options;
  const crashRate = options.crashRate ?? 0.005;
  const effectRate = options.effectRate ?? 0.5;
  const tick = Math.max(1, options.tick ?? 1);
  const r = prng(seed);
  const chance = (p: number): boolean => r() / 2 ** 32 < p;
  const sim = simulation(family, Math.max(1, options.keys ?? 8), Math.max(1, options.values ?? 5), options.unique ?? true);
  const history: Operation[] = [];
  const flights: Flight[] = [];
  const slotId = Array.from({ length: clients }, (_, c) => c);
  const busy: (Flight | undefined)[] = new Array(clients);
  let crashed = 0;
  let effects = 0;
  let step = 0;
  let done = 0;
  while (done < ops || busy.some((f) => f !== undefined)) {
    const slot = r() % clients;
    const f = busy[slot];
    const time = Math.floor(step++ / tick);
    if (f === undefined) {
      if (flights.length >= ops) continue;
      const crash = chance(crashRate);
      const input = sim.input(r, flights.length);
      const flight: Flight = { index: flights.length, slot, input, crash, effects: !crash || chance(effectRate), effected: false, output: undefined, before: undefined, seq: -1 };
      history.push({ client: slotId[slot], input, call: time });
      flights.push(flight);
      busy[slot] = flight;
    } else if (!f.effected) {
      f.effected = true;
      if (f.effects) {
        ({ output: f.output, before: f.before } = sim.effect(f.input));
        f.seq = effects++;
      }
    } else {
      busy[slot] = undefined;
      done++;
      if (f.crash) {
        crashed++;
        slotId[slot] += clients; // Jepsen replaces a crashed process by a new one
        continue;
      }
      const op = history[f.index];
      op.ret = time;
      op.output = f.output;
    }
  }
  const corruptions: Corruption[] = [];
  for (let k = 0; k < (options.corrupt ?? 0); k++) {
    const c = corruptOne(sim, history, flights, r, corruptions);
    if (c !== undefined) corruptions.push(c);
  }
  return { history, model: FAMILY_MODEL[family], corruptions, crashed };
}

/**
 * Change one determinate observation: to a stale value (the key's value before the last
 * update that returned before the call; for a queue, a value an earlier dequeue already
 * returned; for a set, the members without the last add that returned before the call)
 * when there is one different from the truth, else to a value nothing writes.
 */
function corruptOne(sim: Simulation, history: Operation[], flights: Flight[], r: () => number, done: Corruption[]): Corruption | undefined {
  const taken = new Set(done.map((c) => c.index));
  const targets = flights.filter((f) => !f.crash && !taken.has(f.index) && sim.observes(f.input, f.output));
  if (targets.length === 0) return undefined;
  const target = targets[r() % targets.length];
  const op = history[target.index];
  const was = op.output;
  let stale: unknown;
  // Updates (and dequeues) that returned before the call, in effect order: the last one.
  let last: Flight | undefined;
  for (const f of flights) {
    if (f.crash || f.seq < 0 || f.index === target.index) continue;
    const o = history[f.index];
    if (o.ret === undefined || o.ret >= op.call) continue;
    if (f.input.key !== target.input.key) continue;
    if (target.input.f === 'dequeue' ? f.input.f === 'dequeue' && f.output !== null : sim.updates(f.input, f.output)) {
      if (last === undefined || f.seq > last.seq) last = f;
    }
  }
  if (last !== undefined) {
    if (target.input.f === 'dequeue') stale = last.output;
    else if (target.input.f === 'read' && Array.isArray(was)) stale = (was as unknown[]).filter((x) => x !== last!.input.value);
    else stale = last.before;
  }
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  const kind = stale !== undefined && !same(stale, was) ? 'stale' : 'never-written';
  op.output = kind === 'stale' ? stale : sim.neverWritten(target.input, was);
  return { index: target.index, kind, output: op.output, was };
}
