// Trace validation: does some behaviour of the spec match an implementation's protocol
// trace? The files are read and checked once (read.ts), each process's events spooled; the
// merge then pulls events process by process, routes them to the spec mapping's partitions
// and lets each partition's search (partition.ts) match as far as the events read allow.
// Knows no protocol: the spec comes in as a TraceSpec (types.ts).

import { InputError } from '../../traces/errors.ts';
import type { TraceEvent } from '../../traces/protocol-trace.ts';
import { Partition, type GObj, type GProc, type World } from './partition.ts';
import { memoryHeaders, memoryTrace, readHeaders, spoolTrace, type EventSource, type Header, type RawEvent, type Spool } from './read.ts';
import { DEFAULT_SLACK_NS, TraceSpecError, type Access, type TraceMapping, type TraceSpec, type ValidateOptions, type ValidateResult } from './types.ts';

export * from './types.ts';
export { InputError };
export { EmptyTraceError } from './read.ts';

export interface SpecRef {
  name: string;
  trace: TraceSpec;
}

function openMapping(spec: SpecRef, header: Header, options: ValidateOptions, where: string): { mapping: TraceMapping; config: string } {
  if (header.spec !== undefined && header.spec !== spec.name) {
    throw new InputError(where, 1, `a trace of spec "${spec.name}" (its header says ${JSON.stringify(header.spec)})`);
  }
  const config = options.config ?? spec.trace.configs[0]?.name ?? 'default';
  try {
    return { mapping: spec.trace.open({ spec: header.spec, params: header.params, config }), config };
  } catch (e) {
    if (e instanceof TraceSpecError) throw new InputError(where, 1, e.message);
    throw e;
  }
}

/** Validates trace files (one per process, or several processes per file) against a spec. */
export async function validateFiles(files: readonly string[], spec: SpecRef, options: ValidateOptions = {}): Promise<ValidateResult> {
  const start = performance.now();
  const header = await readHeaders(files);
  const { mapping, config } = openMapping(spec, header, options, files[0] ?? '(no file)');
  const spool = await spoolTrace(files, mapping);
  try {
    return merge(spool, mapping, files, spec.name, config, options, start);
  } finally {
    spool.cleanup();
  }
}

/** Validates in-memory files (tests, simulators): lines are JSON text or objects. */
export function validateMemory(files: readonly { name: string; lines: readonly (string | object)[] }[], spec: SpecRef, options: ValidateOptions = {}): ValidateResult {
  const start = performance.now();
  const header = memoryHeaders(files);
  const { mapping, config } = openMapping(spec, header, options, files[0]?.name ?? '(no file)');
  const spool = memoryTrace(files, mapping);
  return merge(
    spool,
    mapping,
    files.map((f) => f.name),
    spec.name,
    config,
    options,
    start,
  );
}

function defaultAccesses(ev: TraceEvent): Access[] {
  if (ev.obj === undefined) return [];
  return ev.objSeq !== undefined ? [{ obj: ev.obj, seq: ev.objSeq }] : [{ obj: ev.obj, saw: ev.objSaw ?? 0 }];
}

function merge(spool: Spool, mapping: TraceMapping, files: readonly string[], specName: string, config: string, options: ValidateOptions, start: number): ValidateResult {
  const world: World = {
    procs: [],
    live: [],
    epoch: 0,
    frontierTime: undefined,
    nextTime: (i) => (world.procs[i].eof ? undefined : sources[i].peekTime()),
    slack: options.slackNs ?? DEFAULT_SLACK_NS,
    bets: 0,
    files,
    exhaustive: options.exhaustive === true,
    maxFrontier: options.maxFrontier ?? 10_000,
    maxUnlogged: options.maxUnlogged ?? 2,
    maxShown: options.maxShown ?? 3,
    trail: Math.max(1, options.trail ?? 200),
  };
  const maxBuffered = options.maxBuffered ?? 4_000_000;
  const sources: EventSource[] = [];
  const procByName = new Map<string, GProc>();
  for (const p of spool.procs) {
    const g: GProc = { index: world.procs.length, name: p.name, eof: false, accessor: mapping.accessesObjects?.(p.name) ?? true };
    world.procs.push(g);
    procByName.set(p.name, g);
    sources.push(spool.open(p.name));
  }
  world.live = world.procs.slice();
  const readCount = new Float64Array(world.procs.length);

  const partitions = new Map<string, Partition>();
  const order: Partition[] = [];
  const globals: { raw: ReturnType<EventSource['next']> & object; g: GProc; local: boolean; ends: number }[] = [];
  // A mapping that lists its partitions lists them all; otherwise they appear with their
  // first event, and the global events so far are replayed into each new one.
  const fixed = mapping.partitions.length > 0;
  const partition = (name: string, raw?: RawEvent): Partition => {
    let p = partitions.get(name);
    if (p === undefined) {
      if (fixed && raw) throw new InputError(files[raw.file], raw.line, `an event of one of the partitions the trace's header gives (${mapping.partitions.slice(0, 5).join(', ')}${mapping.partitions.length > 5 ? ', ...' : ''}), not ${JSON.stringify(name)}`);
      p = new Partition(name, mapping.partition(name), world);
      partitions.set(name, p);
      order.push(p);
      for (const x of globals) p.add(x.raw, x.g, x.local, [], x.ends);
    }
    return p;
  };
  for (const name of mapping.partitions) partition(name);
  const objects = new Map<string, GObj>();
  let routed = 0;
  let eventsRead = 0;
  let maxBufferedSeen = 0;
  let bound: string | undefined;

  const readOne = (g: GProc): void => {
    const raw = sources[g.index].next();
    world.epoch++;
    if (raw === undefined) {
      g.eof = true;
      world.live = world.live.filter((x) => x !== g);
      sources[g.index].close();
      for (const p of order) p.dirty = true;
      return;
    }
    eventsRead++;
    readCount[g.index]++;
    const ev = raw.ev;
    const file = files[raw.file];
    const route = mapping.route(ev);
    const targets = route === 'all' ? null : route.map((name) => partition(name, raw));
    const accs = (mapping.accesses ?? defaultAccesses)(ev);
    const acc: { o: GObj; n: number; change: boolean }[] = [];
    for (const a of accs) {
      if (targets === null || targets.length !== 1) throw new InputError(file, raw.line, `an event at shared objects (${a.obj}) to belong to one partition`);
      let o = objects.get(a.obj);
      if (o === undefined) {
        o = { name: a.obj, partition: targets[0], local: -1, wm: new Int32Array(world.procs.length).fill(-1), epoch: -1, released: -1, betChanges: 0, betReads: 0 };
        objects.set(a.obj, o);
      } else if (o.partition !== targets[0]) {
        throw new InputError(file, raw.line, `${a.obj} to stay in partition ${o.partition.name} (this event is in ${targets[0].name})`);
      }
      const change = a.seq !== undefined;
      const n = change ? a.seq : a.saw;
      const before = o.wm[g.index];
      if (change ? n <= before : n < before) {
        throw new InputError(file, raw.line, `${a.obj} seen in order by ${g.name}: ${change ? `change ${n}` : `after change ${n}`}, but an earlier event of ${g.name} already ${before === n ? 'saw' : 'was after'} change ${before}`);
      }
      o.wm[g.index] = Math.max(before, n);
      acc.push({ o, n, change });
    }
    const local = mapping.local(ev);
    const endsName = mapping.ends?.(ev);
    const ends = endsName === undefined ? -1 : procByName.get(endsName)?.index ?? -1;
    if (targets === null) {
      if (!fixed) globals.push({ raw, g, local, ends });
      for (const p of order) p.add(raw, g, local, [], ends);
      routed += order.length;
    } else {
      for (const p of targets) p.add(raw, g, local, acc, ends);
      routed += targets.length;
    }
  };

  let lastProgress = performance.now();
  const progress = (): void => {
    if (!options.onProgress) return;
    const now = performance.now();
    if (now - lastProgress < 100) return;
    lastProgress = now;
    let frontier = 0;
    let matched = 0;
    for (const p of order) {
      frontier = Math.max(frontier, p.frontierSize());
      matched += p.matched;
    }
    options.onProgress({ events: eventsRead, matched, buffered: routed - matched, frontier, elapsedMs: now - start });
  };

  /** Every event logged before this time has been read (undefined: a process's next event has no time). */
  const frontierTime = (): number | undefined => {
    let min = Infinity;
    for (const g of world.live) {
      const t = sources[g.index].peekTime();
      if (t === undefined) return undefined;
      if (t < min) min = t;
    }
    return min;
  };
  world.frontierTime = frontierTime();
  const needed = new Set<number>();
  const hard = new Set<number>();
  for (;;) {
    // Run every partition that has something new.
    let running = 0;
    let failed: Partition | undefined;
    needed.clear();
    hard.clear();
    for (const p of order) {
      if (p.status === 'running' && p.dirty) p.run();
      if (p.status === 'invalid' && !failed) failed = p;
      if (p.status === 'inconclusive' && bound === undefined) bound = p.reason;
      if (p.status === 'running') {
        running++;
        for (const n of p.needs) needed.add(n);
        for (const n of p.hard) hard.add(n);
      }
    }
    if (failed || bound !== undefined || running === 0) break;
    if (world.live.length === 0) throw new Error('validate: a partition is still running after every process ended');
    // What to read next (never the order of events, only how many wait in memory): a
    // process some partition cannot do without (an object's change waits until every
    // process that could still read the object has gone past it, a crash waits for the
    // end of its victim's log) is read at once, a batch each; otherwise the processes
    // whose next event a partition waits for, in the order of their events' `time` where
    // they have one (fewest read first otherwise).
    const batch = Math.max(1, options.readBatch ?? 256);
    if (hard.size > 0) {
      for (const i of hard) for (let k = 0; k < Math.max(1, batch >> 2) && !world.procs[i].eof; k++) readOne(world.procs[i]);
    }
    if (needed.size === 0 && hard.size === 0) for (const g of world.live) needed.add(g.index);
    const candidates = hard.size > 0 ? [] : [...needed].map((i) => world.procs[i]).filter((g) => !g.eof);
    for (let k = 0; k < batch && candidates.length > 0; k++) {
      let best = 0;
      let bestKey = Infinity;
      for (let i = 0; i < candidates.length; i++) {
        const t = sources[candidates[i].index].peekTime();
        const key = t ?? readCount[candidates[i].index];
        if (key < bestKey) {
          bestKey = key;
          best = i;
        }
      }
      const g = candidates[best];
      readOne(g);
      if (g.eof) candidates.splice(best, 1);
    }
    world.frontierTime = frontierTime();
    for (const p of order) if (p.status === 'running' && p.waitTime < (world.frontierTime ?? -Infinity)) p.dirty = true;
    let matched = 0;
    for (const p of order) matched += p.level;
    const buffered = routed - matched;
    if (buffered > maxBufferedSeen) maxBufferedSeen = buffered;
    if (buffered > maxBuffered) {
      bound = `the read-ahead bound: ${buffered} events read and not yet matched (more than ${maxBuffered})`;
      break;
    }
    if (options.timeLimitMs !== undefined && performance.now() - start > options.timeLimitMs) {
      bound = `the time limit of ${options.timeLimitMs / 1000} s`;
      break;
    }
    progress();
  }
  // An invalid verdict stands only if no event still to come could be a late one (an
  // access to what was taken as known on a bet, partition.ts `known` and `bet`: below a
  // change matched, or a change taken as lost below a read that saw it): scan the rest.
  const dead = order.find((p) => p.status === 'invalid');
  if (dead) {
    let late = dead.lateQueued();
    for (const g of world.live) {
      for (let raw = sources[g.index].next(); raw !== undefined && late === undefined; raw = sources[g.index].next()) {
        for (const a of (mapping.accesses ?? defaultAccesses)(raw.ev)) {
          const change = a.seq !== undefined;
          late ??= dead.lateAccess({ obj: a.obj, n: change ? a.seq : a.saw, change }, `${raw.ev.proc} #${raw.ev.seq} (${files[raw.file]}:${raw.line})`, raw.ev.time);
        }
      }
    }
    if (late !== undefined) dead.retract(`a late event in partition ${dead.name}: ${late}`);
  }
  for (const s of sources) s.close();

  const failed = order.find((p) => p.status === 'invalid');
  let matched = 0;
  let maxFrontier = 1;
  let missing = 0;
  let filled = 0;
  for (const p of order) {
    matched += (p.status === 'valid' ? p.events : p.matched);
    maxFrontier = Math.max(maxFrontier, p.maxFrontier);
    missing += p.missingChanges();
    filled += p.filled;
  }
  if (!failed && bound === undefined) bound = order.find((p) => p.status === 'inconclusive')?.reason;
  const verdict: ValidateResult['verdict'] = failed ? 'invalid' : bound !== undefined ? 'inconclusive' : 'valid';
  const notes: string[] = [];
  if (missing > 0) notes.push(`${missing} change${missing === 1 ? '' : 's'} of shared objects not in the trace (objSeq gaps: steps lost with crashed processes)`);
  if (world.bets > 0) notes.push(`${world.bets} branch${world.bets === 1 ? '' : 'es'} taken before every process's next event was read, on events logged more than ${world.slack / 1e9} s later coming later`);
  if (filled > 0) notes.push(`${filled} spec step${filled === 1 ? '' : 's'} filled in that no event logged (steps lost with crashed processes, internal steps)`);
  const summaries = order
    .slice()
    .sort((a, b) => (a === failed ? -1 : b === failed ? 1 : 0))
    .slice(0, 200)
    .map((p) => ({
      name: p.name,
      events: p.events,
      verdict: p.status === 'running' ? ('unfinished' as const) : p.status,
      maxFrontier: p.maxFrontier,
      filled: p.filled,
    }));
  return {
    verdict,
    ...(verdict === 'inconclusive' ? { reason: bound } : {}),
    spec: specName,
    config,
    files: [...files],
    processes: world.procs.length,
    events: spool.events,
    partitions: order.length,
    matched,
    elapsedMs: performance.now() - start,
    maxFrontier,
    maxBuffered: maxBufferedSeen,
    mode: world.exhaustive ? 'exhaustive' : 'reduced',
    ...(failed?.failure ? { failure: { partition: failed.name, ...failed.failure } } : {}),
    perPartition: summaries,
    notes,
  };
}
