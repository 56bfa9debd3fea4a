// A small spec with a trace mapping, for the validator's own tests: processes write and
// read a register (a shared object), prepare each write with an internal step the trace
// does not log, send and receive messages, and crash; an admin bumps the register (a global
// event). `simulateRegister` makes valid traces of it from a seed.

import type { Action } from '../explore/types.ts';
import type { Denotation, PartitionSpec, TraceEvent, TraceMapping, TraceSpec } from './types.ts';

export interface RegState {
  x: number;
  /** Processes whose next write is prepared (the unlogged step). */
  ready: string[];
  dead: string[];
  /** Messages sent and not yet received. */
  chan: string[];
}

export interface RegAction extends Action {
  kind: 'prep' | 'write' | 'read' | 'bump' | 'crash' | 'send' | 'recv';
  p: string;
  v: number;
  m: string;
}

const act = (kind: RegAction['kind'], p: string, v = 0, m = ''): RegAction => ({ kind, p, v, m, label: `${kind}(${p}${kind === 'write' || kind === 'read' ? `, ${v}` : ''}${m ? `, ${m}` : ''})` });

const sorted = (xs: string[], x: string): string[] => [...xs, x].sort();

function regNext(s: RegState, a: RegAction): RegState {
  switch (a.kind) {
    case 'prep':
      return { ...s, ready: sorted(s.ready, a.p) };
    case 'write':
      return { ...s, x: a.v, ready: s.ready.filter((p) => p !== a.p) };
    case 'read':
      return s;
    case 'bump':
      return { ...s, x: s.x + 100 };
    case 'crash':
      return { ...s, dead: sorted(s.dead, a.p), ready: s.ready.filter((p) => p !== a.p) };
    case 'send':
      return { ...s, chan: sorted(s.chan, a.m) };
    case 'recv':
      return { ...s, chan: s.chan.filter((m) => m !== a.m) };
  }
}

function regEnabled(s: RegState, a: RegAction): true | string {
  if (a.kind !== 'bump' && s.dead.includes(a.p)) return `${a.p} has crashed`;
  if (a.kind === 'prep' && s.ready.includes(a.p)) return `${a.p} is already prepared`;
  if (a.kind === 'write' && !s.ready.includes(a.p)) return `${a.p} has not prepared its write`;
  if (a.kind === 'recv' && !s.chan.includes(a.m)) return `message ${a.m} is not in flight`;
  return true;
}

export function registerPartition(options: { unlogged?: boolean } = {}): PartitionSpec<RegState, RegAction> {
  return {
    init: () => ({ x: 0, ready: [], dead: [], chan: [] }),
    enabled: regEnabled,
    next: regNext,
    denote(_s, ev): Denotation<RegState, RegAction>[] {
      const a = ev.args ?? {};
      switch (ev.action) {
        case 'write':
          return [{ steps: [act('write', ev.proc, a.v as number)] }];
        case 'read':
          return [{ steps: [act('read', ev.proc, a.v as number)], observe: [{ field: 'args.v', path: 'x', expected: a.v, at: 'before' }] }];
        case 'bump':
          return [{ steps: [act('bump', ev.proc)] }];
        case 'crash':
          return [{ steps: [act('crash', a.p as string)] }];
        case 'send':
          return [{ steps: [act('send', ev.proc, 0, ev.send![0])] }];
        case 'recv':
          return [{ steps: [act('recv', ev.proc, 0, ev.recv!)] }];
      }
      return [];
    },
    ...(options.unlogged === false
      ? {}
      : {
          unlogged: (s: RegState) => ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'].filter((p) => !s.ready.includes(p) && !s.dead.includes(p)).map((p) => act('prep', p)),
        }),
  };
}

/** The register fixture's mapping: one partition per `args.part` (default "main"); bump and crash are global. */
export function registerTrace(options: { unlogged?: boolean; allLocal?: boolean } = {}): TraceSpec {
  return {
    configs: [{ name: 'default', description: 'the register fixture' }],
    open(info) {
      const parts = (info.params.parts as string[] | undefined) ?? ['main'];
      const mapping: TraceMapping<RegState, RegAction> = {
        partitions: parts,
        check(ev: TraceEvent) {
          if (!['write', 'read', 'bump', 'crash', 'send', 'recv'].includes(ev.action)) return `a register action, not ${ev.action}`;
          if ((ev.action === 'write' || ev.action === 'read') && typeof ev.args?.v !== 'number') return 'args.v: a number';
          if (ev.action === 'crash' && typeof ev.args?.p !== 'string') return 'args.p: the crashed process';
          if (ev.action === 'send' && ev.send?.length !== 1) return 'one message id in "send"';
          if (ev.action === 'recv' && ev.recv === undefined) return 'a message id in "recv"';
          return undefined;
        },
        route: (ev) => (ev.action === 'crash' ? 'all' : [(ev.args?.part as string | undefined) ?? 'main']),
        ends: (ev) => (ev.action === 'crash' ? (ev.args!.p as string) : undefined),
        accessesObjects: (proc) => proc !== 'nemesis',
        local: (ev) => options.allLocal === true || !['bump', 'crash'].includes(ev.action),
        partition: () => registerPartition(options),
      };
      return mapping;
    },
  };
}

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ (t + t);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A valid trace of the register fixture: `procs` processes taking `steps` random steps
 * (writes of fresh values, reads, sends and receives), an admin bumping now and then, and
 * possibly one crash. Returns one file per process, each event carrying its ordering.
 */
export function simulateRegister(seed: number, procs: number, steps: number, options: { crash?: boolean; time?: boolean } = {}): { name: string; lines: object[] }[] {
  const random = rng(seed);
  const names = Array.from({ length: procs }, (_, i) => `p${i}`);
  const files = new Map<string, object[]>();
  const seq = new Map<string, number>();
  let x = 0;
  let changes = 0;
  let value = 1;
  let clock = 0;
  const inFlight: { id: string; to: string }[] = [];
  const dead = new Set<string>();
  let msg = 0;
  const emit = (proc: string, action: string, extra: Record<string, unknown>): void => {
    const n = (seq.get(proc) ?? 0) + 1;
    seq.set(proc, n);
    if (!files.has(proc)) files.set(proc, []);
    files.get(proc)!.push({ proc, seq: n, action, ...extra, ...(options.time === false ? {} : { time: (clock += 10) }) });
  };
  const crashAt = options.crash ? Math.floor(random() * steps) : -1;
  for (let i = 0; i < steps; i++) {
    const alive = names.filter((p) => !dead.has(p));
    if (i === crashAt && alive.length > 1) {
      const p = alive[Math.floor(random() * alive.length)];
      dead.add(p);
      emit('nemesis', 'crash', { args: { p } });
      continue;
    }
    const r = random();
    if (r < 0.05) {
      x += 100;
      emit('admin', 'bump', { obj: 'reg', objSeq: ++changes });
      continue;
    }
    const p = alive[Math.floor(random() * alive.length)];
    const mine = inFlight.findIndex((m) => m.to === p);
    if (r < 0.15 && mine >= 0) {
      const [m] = inFlight.splice(mine, 1);
      emit(p, 'recv', { recv: m.id });
    } else if (r < 0.25) {
      const to = names[Math.floor(random() * names.length)];
      const id = `m${++msg}`;
      inFlight.push({ id, to });
      emit(p, 'send', { send: [id] });
    } else if (r < 0.6) {
      x = value++;
      emit(p, 'write', { args: { v: x }, obj: 'reg', objSeq: ++changes });
    } else {
      emit(p, 'read', { args: { v: x }, obj: 'reg', objSaw: changes });
    }
  }
  return [...files].map(([proc, lines]) => ({ name: `${proc}.jsonl`, lines }));
}
