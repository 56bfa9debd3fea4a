// How MINOS's implementation traces read against this spec (checkers/validate): the
// vocabulary of impl/minos (its README, "The trace"). Each key is one partition, validated
// on its own by the steps of the spec (machine.ts stepsMachine; one key, the run's nodes and model) with an
// open workload: every client operation a node starts (`clientWrite_L4`, `read`,
// `clientPersist`) takes a free coordinator slot of that node in the spec and appends the
// operation to the slot's script; every other event is the step of the coordinator thread,
// follower thread, message or background persist it names. Scope's PERSIST transactions
// and the nodes' recovery are in every partition; the nemesis's power failure is the
// spec's full-system crash, with system-level recovery (extraction §1.5).

import { TraceSpecError, type Denotation, type Observation, type PartitionSpec, type TraceEvent, type TraceInfo, type TraceMapping, type TraceSpec } from '../../checkers/validate/types.ts';
import { context } from './context.ts';
import { stepsMachine } from './machine.ts';
import { VARIANTS } from './mutants.ts';
import { ACK, ACK_C, ACK_P, INV, MSG, NODE, NONE, PERSIST, TSN, VAL, VAL_C, VAL_P, canonicalConfig, canonicalOp, encode, initialState, showTS, type MinosAction, type MinosConfig, type Msg, type MsgType, type Persistency, type State } from './state.ts';

/** A key's partition state: the spec state, and the nodes already down in a power failure under way. */
export interface KeyState {
  s: State;
  down: number;
}

const MODELS: Record<string, Persistency> = { synch: 'Synch', strict: 'Strict', renf: 'REnf', event: 'Event', scope: 'Scope' };

/** The place (pc) of the coordinator thread each event is the step of (coordinator.ts). */
const COORD_PC: Record<string, string> = {
  obsoleteCheck_L5: 'check',
  snatchRDLock_L8: 'snatch',
  localWrite_L9_16: 'local',
  persist_L18: 'persist',
  allACKs_L19_22: 'ackWait',
  allACK_C_e: 'ackWait',
  allACK_P_f: 'ackPWait',
  consistencySpin_L2: 'cspin',
  persistencySpin_L3: 'pspin',
};
/** The place (pc) of the follower thread each event is the step of (follower.ts). */
const FOLL_PC: Record<string, string> = {
  snatchRDLock_L31: 'snatch',
  localWrite_L32_38: 'local',
  persist_L39_40: 'persist',
  consistencySpin_L24: 'cspin',
  persistencySpin_L25: 'pspin',
};
/** The message each receive consumes. */
const RECV: Record<string, MsgType> = {
  recvINV: INV,
  recvACK: ACK,
  recvACK_C: ACK_C,
  recvACK_P: ACK_P,
  recvVAL_l: VAL,
  recvVAL_C_l: VAL_C,
  recvVAL_P_m: VAL_P,
  recvPERSIST: PERSIST,
  recvVAL_P_sc: VAL_P,
};
const MSG_TYPE: Record<string, MsgType> = { VAL, VAL_C, VAL_P };
/** The spec's step (steps.ts) of each of the trace's kinds of action, but for threads' steps (by their place, below). */
const STEP: Record<string, string> = { write: 'clientWrite_L4', read: 'read', persist: 'clientPersist', vdeq: 'vFIFOdequeue', bg: 'backgroundPersist', deliver: 'recv', crash: 'crash' };
/** The spec's step a coordinator (coordinator.ts) or follower (follower.ts) thread takes at each place; ackWait's by model. */
const COORD_STEP: Record<string, string> = {
  check: 'obsoleteCheck_L5', snatch: 'snatchRDLock_L8', local: 'localWrite_L9_16', install: 'install_L11_12', persist: 'persist_L18',
  ackPWait: 'allACK_P_f', cspin: 'consistencySpin_L2', pspin: 'persistencySpin_L3', drain: 'releaseAfterDrain', persistWait: 'allACK_P_sc',
};
const FOLL_STEP: Record<string, string> = {
  snatch: 'snatchRDLock_L31', local: 'localWrite_L32_38', persist: 'persist_L39_40', cspin: 'consistencySpin_L24', pspin: 'persistencySpin_L25', flush: 'ackPersist_sc',
};
/** Steps that persist (a crash may cut off their trace line). */
const PERSISTS = new Set(['backgroundPersist', 'persist_L18', 'persistLate_L18', 'persist_L39_40', 'persist_L39']);

/** The trace's actions also say what kind of step they are (and, for a thread, where it must be). */
type TraceAction = MinosAction & { f: string; pc?: string };
const kindOf = (a: MinosAction): string => (a as TraceAction).f;
const placeOf = (a: MinosAction): string | undefined => (a as TraceAction).pc;
/**
 * Lines that are no step of their own: the sends of a step logged just before (the spec
 * sends with the step; the line carries the message ids), and Scope's persisted PERSIST
 * marker, which the spec does not model.
 */
const STUTTER = new Set(['releaseVAL_L20_22', 'sendVAL_C_f', 'sendACK_L40', 'sendACK_L29', 'sendACK_C', 'sendACK_P', 'persistScopeMarker', 'recoveredRead']);
const INVOKE = new Set(['clientWrite_L4', 'read', 'clientPersist']);
/** A client-write's response: no step (the spec responds within a coordinator step), but the spec must have responded by then. */
const RETURN = 'clientReturn';
/** Events of Scope's PERSIST transactions: no key, in every partition. */
const SCOPE_EVENTS = new Set(['clientPersist', 'allACK_P_sc', 'recvPERSIST', 'ackPersist_sc', 'recvVAL_P_sc', 'persistScopeMarker']);
const NODE_EVENTS = new Set(['recover', 'recoveredRead']);
const KEYED = new Set([RETURN, ...Object.keys(COORD_PC), ...Object.keys(FOLL_PC), ...Object.keys(RECV), ...STUTTER, 'clientWrite_L4', 'read', 'discardVAL_L30', 'backgroundPersist', 'vFIFOdequeue']);
const ACTIONS = new Set([...KEYED, ...SCOPE_EVENTS, ...NODE_EVENTS, 'crashNode']);

// ---- reading args ----------------------------------------------------------------------

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isTS = (v: unknown): v is number => isInt(v) && v >= 0;

interface Params {
  nodes: number;
  model: Persistency;
  offload: boolean;
  keys: string[];
}

function readParams(info: TraceInfo): Params {
  const p = info.params;
  if (!isInt(p.n) || p.n < 2 || p.n > NODE.length) throw new TraceSpecError(`a header with params.n: the number of nodes, 2 to ${NODE.length} (impl/minos/README.md, "The trace")`);
  if (typeof p.model !== 'string' || MODELS[p.model] === undefined) throw new TraceSpecError(`params.model: one of ${Object.keys(MODELS).join(', ')}`);
  if (!isInt(p.keys) || p.keys < 1 || p.keys > 10_000) throw new TraceSpecError('params.keys: the number of keys (k0, k1, ...), 1 to 10000');
  if (p.offload !== undefined && typeof p.offload !== 'boolean') throw new TraceSpecError('params.offload: true (MINOS-O) or false');
  return { nodes: p.n, model: MODELS[p.model], offload: p.offload === true, keys: Array.from({ length: p.keys }, (_, i) => `k${i}`) };
}

/** One of the run's keys, as the header gives them: k0 .. k(keys - 1), written as they are named. */
function isKeyName(k: string, params: Params): boolean {
  return /^k(?:0|[1-9]\d{0,4})$/.test(k) && Number(k.slice(1)) < params.keys.length;
}

/** The node of a process: n0, or n0.2 for its second incarnation. */
function nodeOf(proc: string): number | undefined {
  const m = /^n(\d{1,2})(?:\.\d{1,9})?$/.exec(proc);
  return m ? Number(m[1]) : undefined;
}

function checkEvent(ev: TraceEvent, params: Params): string | undefined {
  const a = ev.args ?? {};
  const act = ev.action;
  const need = (k: string, ok: (v: unknown) => boolean, what: string): string | undefined => (Object.hasOwn(a, k) && ok(a[k]) ? undefined : `args.${k}: ${what} (${act})`);
  if (!ACTIONS.has(act)) return `an action of the minos vocabulary (impl/minos/README.md, "The trace"), not ${JSON.stringify(act)}`;
  if (act === 'crashNode') {
    if (ev.proc !== 'nemesis') return 'crashNode by the process "nemesis"';
    return need('node', (v) => isInt(v) && v >= 0 && v < params.nodes, `a node 0..${params.nodes - 1}`) ?? need('proc', (v) => typeof v === 'string' && nodeOf(v) === a.node, 'the incarnation that died (n0, n0.2, ...) of that node');
  }
  const n = nodeOf(ev.proc);
  if (n === undefined || n >= params.nodes) return `a node process n0..n${params.nodes - 1} (or an incarnation n0.2, ...), not ${JSON.stringify(ev.proc)} (${act})`;
  if (NODE_EVENTS.has(act)) {
    if (act !== 'recover' || a.table === undefined) return undefined;
    if (a.table === null || typeof a.table !== 'object' || Array.isArray(a.table) || !Object.values(a.table).every(isTS)) return 'args.table: {key: the recovered TS}';
    // The table is read through the run's keys only: a key the header does not give would be ignored.
    const stranger = Object.keys(a.table).find((k) => !isKeyName(k, params));
    return stranger === undefined ? undefined : `args.table: keys k0..k${params.keys.length - 1}, not ${JSON.stringify(stranger)} (recover)`;
  }
  const scoped = SCOPE_EVENTS.has(act) || (act === 'recvACK_P' && a.key === '');
  if (scoped) {
    if (params.model !== 'Scope') return `${act} only under the Scope model`;
    const e = need('sc', (v) => typeof v === 'string' && v.length > 0, 'the scope');
    if (e) return e;
    if ((act === 'recvPERSIST' || act === 'recvACK_P') && !(isInt(a.from) && a.from >= 0 && a.from < params.nodes && a.from !== n)) return `args.from: another node (${act})`;
    return undefined;
  }
  const keyErr = need('key', (v) => typeof v === 'string' && /^k\d{1,5}$/.test(v) && Number(v.slice(1)) < params.keys.length, `a key k0..k${params.keys.length - 1}`);
  if (keyErr) return keyErr;
  if (act === 'consistencySpin_L2' || act === 'persistencySpin_L3' || act === 'consistencySpin_L24' || act === 'persistencySpin_L25') return need('ts', isTS, "the thread's TS_WR") ?? need('tau', isTS, 'the snapshot of volatileTS the spin waits for');
  const tsErr = act === 'read' ? need('ts', isTS, 'the volatileTS read') : need('ts', isTS, 'a TS_WR (version * 8 + node id)');
  if (tsErr) return tsErr;
  if (act === 'clientWrite_L4') return need('v', (v) => typeof v === 'string', 'the written value');
  if (act === 'read') return need('v', (v) => v === null || typeof v === 'string', 'the value read (null: never written)');
  if (act === 'recvINV' || act === 'recvACK' || act === 'recvACK_C' || act === 'recvACK_P') return need('from', (v) => isInt(v) && v >= 0 && v < params.nodes && v !== n, 'the sending node (another node)');
  if (act === 'discardVAL_L30') return need('type', (v) => v === 'VAL' || v === 'VAL_C' || v === 'VAL_P', 'VAL, VAL_C or VAL_P');
  if (act === 'obsoleteCheck_L5' || act === 'localWrite_L9_16' || act === 'localWrite_L32_38') {
    const e = need('obsolete', (v) => typeof v === 'boolean', 'true or false');
    if (e) return e;
    if (a.obsolete === true) return need('tau', isTS, 'the volatileTS that made the write obsolete');
  }
  return undefined;
}

// ---- the mapping ----------------------------------------------------------------------

export const minosTrace: TraceSpec = {
  configs: [{ name: 'default', description: "the spec's fixed protocol (atomic GenTS, max glb updates, PERSIST carrying its writes), system-level recovery" }],
  open(info) {
    if (info.config !== 'default') throw new TraceSpecError(`a minos validation config: default (not ${JSON.stringify(info.config)})`);
    const params = readParams(info);
    const partitions = new Map<string, PartitionSpec<KeyState, MinosAction>>();
    const all = params.keys;
    const mapping: TraceMapping<KeyState, MinosAction> = {
      partitions: all,
      check: (ev) => checkEvent(ev, params),
      route(ev) {
        if (ev.action === 'crashNode') return 'all';
        const k = ev.args?.key;
        return typeof k === 'string' && k !== '' ? [k] : all;
      },
      ends: (ev) => (ev.action === 'crashNode' ? (ev.args!.proc as string) : undefined),
      accessesObjects: () => false,
      // A node's steps act on its own records, threads and NVM and on the messages they name
      // (ordered by send and receive); only the power failure is global.
      local: (ev) => ev.action !== 'crashNode',
      partition(key) {
        let p = partitions.get(key);
        if (!p) partitions.set(key, (p = keyPartition(key, params)));
        return p;
      },
    };
    return mapping;
  },
};

function keyPartition(key: string, params: Params): PartitionSpec<KeyState, MinosAction> {
  const cfg: MinosConfig = canonicalConfig({ model: params.model, nodes: params.nodes, keys: 1, clients: [], crash: false, recovery: 'system', offload: params.offload });
  const su = context(cfg, VARIANTS.flags(undefined), undefined);
  const machine = stepsMachine(su);
  const N = params.nodes;
  const allDown = (1 << N) - 1;
  /** The written values: the spec's value of write w is w + 1 (0: never written). */
  const valueOf = new Map<string, number>();
  const scopes = new Map<string, number>();
  /** Per invoking event (proc#seq): its coordinator slot and the operation's index in the slot's script. */
  const invoked = new Map<string, { c: number; op: number }>();

  const scopeOf = (sc: unknown): number => {
    if (typeof sc !== 'string') return 0;
    let i = scopes.get(sc);
    if (i === undefined) scopes.set(sc, (i = scopes.size + 1));
    return i;
  };
  const specValue = (v: unknown): number => (v === null || v === undefined ? 0 : (valueOf.get(v as string) ?? -2) + 1);
  const showValue = (val: number): string => {
    if (val === 0) return 'null';
    for (const [v, w] of valueOf) if (w + 1 === val) return JSON.stringify(v);
    return `v${val}`;
  };
  const act = (f: string, i: number, label: string, k = 0): MinosAction => ({ f, step: STEP[f], i, k, label }) as TraceAction;
  /** A thread's step at place pc. */
  const threadAct = (f: 'coord' | 'foll', i: number, label: string, pc: string): MinosAction => {
    const step = f === 'foll' ? FOLL_STEP[pc] : pc === 'ackWait' ? (params.model === 'Synch' ? 'allACKs_L19_22' : 'allACK_C_e') : COORD_STEP[pc];
    return { f, step, i, k: 0, label, pc } as TraceAction;
  };

  const obs = (field: string, path: string, expected: unknown, at: 'before' | 'after', what: string, read?: (s: State) => unknown, raw?: unknown): Observation => ({
    field,
    path,
    expected,
    at,
    what,
    ...(read ? { read: (inner: unknown) => read(inner as State) } : {}),
    ...(raw !== undefined && raw !== expected ? { raw } : {}),
  });

  /** A free coordinator slot of node n: none running, its script done. */
  const freeSlot = (s: State, n: number): number => {
    for (let c = 0; c < cfg.clients.length; c++) {
      if (cfg.clients[c].node !== n) continue;
      if (c >= s.co.length || (s.co[c] === null && s.cl[c] >= cfg.clients[c].ops.length)) return c;
    }
    cfg.clients.push({ node: n, ops: [] });
    su.writeOf.push([]);
    return cfg.clients.length - 1;
  };

  /** An invocation: the slot, the op appended to its script (once per event), the state made ready for it. */
  const invoke = (s: State, ev: TraceEvent, n: number): { c: number; before: (t: KeyState) => KeyState } => {
    const id = `${ev.proc}#${ev.seq}`;
    let m = invoked.get(id);
    if (m === undefined) {
      const c = freeSlot(s, n);
      const a = ev.args ?? {};
      const script = cfg.clients[c];
      if (ev.action === 'clientWrite_L4') {
        const w = su.writes.length;
        su.writes.push({ c, k: 0, sc: scopeOf(a.sc) });
        valueOf.set(a.v as string, w);
        script.ops.push(canonicalOp({ f: 'write', key: 0, sc: scopeOf(a.sc) }));
        su.writeOf[c].push(w);
      } else if (ev.action === 'read') {
        script.ops.push(canonicalOp({ f: 'read', key: 0 }));
        su.writeOf[c].push(-1);
      } else {
        script.ops.push(canonicalOp({ f: 'persist', sc: scopeOf(a.sc) }));
        su.writeOf[c].push(-1);
      }
      su.scopes = scopes.size;
      m = { c, op: script.ops.length - 1 };
      invoked.set(id, m);
    }
    const { c, op } = m;
    const before = (t: KeyState): KeyState => {
      const s2: State = { ...t.s, co: t.s.co.slice(), cl: t.s.cl.slice(), g: { ...t.s.g, wts: t.s.g.wts.slice(), wst: t.s.g.wst.slice(), pd: t.s.g.pd.slice() } };
      while (s2.co.length <= c) {
        s2.co.push(null);
        s2.cl.push(0);
      }
      s2.cl[c] = op;
      while (s2.g.wts.length < su.writes.length) {
        s2.g.wts.push(NONE);
        s2.g.wst.push(0);
      }
      while (s2.g.pd.length <= scopes.size) s2.g.pd.push(0);
      return { s: s2, down: t.down };
    };
    return { c, before };
  };

  const coordOf = (s: State, n: number, kind: 'write' | 'persist', match: (th: NonNullable<State['co'][number]>) => boolean): number[] => {
    const out: number[] = [];
    for (let c = 0; c < s.co.length; c++) {
      const th = s.co[c];
      if (th && th.kind === kind && cfg.clients[c].node === n && match(th)) out.push(c);
    }
    return out;
  };
  const msgIndex = (s: State, t: MsgType, from: number, to: number, match: (m: Msg) => boolean): number => s.net.findIndex((m) => m[0] === t && m[3] === from && m[4] === to && match(m));

  const enabled = (ks: KeyState, a: MinosAction): true | string => {
    if (kindOf(a) === 'crash') return true;
    const s = ks.s;
    if (kindOf(a) === 'coord') {
      const th = s.co[a.i];
      const want = placeOf(a);
      if (!th) return `${a.label}: the thread has finished`;
      if (want !== undefined && th.pc !== want) return `${a.label}: the thread is at ${th.pc}, not ${want}`;
    }
    if (kindOf(a) === 'foll') {
      const f = s.fo[a.i];
      const want = placeOf(a);
      if (want !== undefined && f.pc !== want) return `${a.label}: the follower thread is at ${f.pc}, not ${want}`;
    }
    for (const b of machine.actions(s)) if (b.step === a.step && b.i === a.i) return true;
    return `${a.label} is not enabled: ${why(s, a)}`;
  };

  /** The false guard of a step, in the spec's words. */
  const why = (s: State, a: MinosAction): string => {
    if (kindOf(a) === 'read') return `RDLock of ${key} at ${NODE[cfg.clients[a.i].node]} is held by ${showTS(s.rec[cfg.clients[a.i].node][0].rd)} (a read stalls, §3.3)`;
    if (kindOf(a) === 'coord') {
      const th = s.co[a.i]!;
      const r = s.rec[cfg.clients[a.i].node][0];
      switch (th.pc) {
        case 'ackWait':
        case 'ackPWait':
        case 'persistWait':
          return `not every ${th.pc === 'ackWait' ? 'consistency ACK' : 'persistency ACK'} has arrived (senders ${(th.pc === 'ackWait' ? th.ack : th.ackP).toString(2)})`;
        case 'cspin':
          return `glb_volatileTS ${showTS(r.gv)} is below tau ${showTS(th.tau)} (ConsistencySpin)`;
        case 'pspin':
          return `glb_durableTS ${showTS(r.gd)} is below tau ${showTS(th.tau)} (PersistencySpin)`;
      }
    }
    if (kindOf(a) === 'foll') {
      const f = s.fo[a.i];
      const r = s.rec[f.n][0];
      if (f.pc === 'cspin') return `glb_volatileTS ${showTS(r.gv)} at ${NODE[f.n]} is below tau ${showTS(f.tau)} (ConsistencySpin)`;
      if (f.pc === 'pspin') return `glb_durableTS ${showTS(r.gd)} at ${NODE[f.n]} is below tau ${showTS(f.tau)} (PersistencySpin)`;
      if (f.pc === 'flush') return `the scope's writes are not durable at ${NODE[f.n]} yet`;
    }
    if (kindOf(a) === 'deliver') return 'no thread takes this message now (a VAL before its follower waits for it)';
    return 'its guard is false';
  };

  const deno = (steps: MinosAction[], observe: Observation[] = [], extra: Partial<Denotation<KeyState, MinosAction>> = {}): Denotation<KeyState, MinosAction> => ({ steps, observe, ...extra });

  const denote = (ks: KeyState, ev: TraceEvent): readonly Denotation<KeyState, MinosAction>[] | string => {
    const s = ks.s;
    const a = ev.args ?? {};
    const action = ev.action;
    if (action === 'crashNode') {
      const bit = 1 << (a.node as number);
      const down = ks.down | bit;
      if (down !== allDown) return [deno([], [], { after: (t) => ({ s: t.s, down }), note: `${a.proc as string} dies (the power failure is under way)` })];
      // The last node dies: the spec's full-system crash. A persist whose fsync completed just
      // before may have lost its trace line with the process: one such step may be filled in.
      const crash = act('crash', 0, 'crash (power failure)');
      const after = (t: KeyState): KeyState => ({ s: { ...t.s, crashed: false, pr: [] }, down: 0 });
      const out = [deno([crash], [], { after })];
      for (const b of machine.actions(s)) {
        if (PERSISTS.has(b.step)) out.push(deno([b, crash], [], { after, filled: 1, note: `${b.label}, its line lost with the crash` }));
      }
      return out;
    }
    const n = nodeOf(ev.proc)!;
    const who = `${ev.proc}`;
    if (action === 'recover') {
      const table = (a.table ?? undefined) as Record<string, number> | undefined;
      if (table === undefined) return [deno([])];
      const want = table[key] ?? 0;
      return [deno([], [obs(`args.table.${key}`, `rec[${n}][0].vts`, want, 'before', `${key}'s volatileTS at ${NODE[n]} after recovery (the max TS of every NVM log)`, undefined, undefined)])];
    }
    // MINOS-O Synch: the release after the drain is a step of its own (coordinator.ts releaseAfterDrain)
    const drainStep = params.offload && params.model === 'Synch' && action === 'releaseVAL_L20_22';
    if (STUTTER.has(action) && !drainStep) return [deno([])];
    if (INVOKE.has(action)) {
      const { c, before } = invoke(s, ev, n);
      if (action === 'clientWrite_L4') {
        const w = su.writeOf[c][invoked.get(`${ev.proc}#${ev.seq}`)!.op];
        return [deno([act('write', c, `clientWrite_L4(${who}, ${key}, ${JSON.stringify(a.v)})`)], [obs('args.ts', `g.wts[${w}]`, a.ts, 'after', `the TS_WR GenTS gave (Line 4)`)], { before })];
      }
      if (action === 'read') {
        return [
          deno([act('read', c, `read(${who}, ${key})`)], [obs('args.v', `rec[${n}][0].val`, specValue(a.v), 'before', `${key}'s value at ${NODE[n]}`, undefined, a.v), obs('args.ts', `rec[${n}][0].vts`, a.ts, 'before', `${key}'s volatileTS at ${NODE[n]}`)], { before }),
        ];
      }
      return [deno([act('persist', c, `clientPersist(${who}, ${a.sc as string})`, -1)], [], { before })];
    }
    const ts = a.ts as number;
    if (action === RETURN) {
      const state = (t: State): string => (t.co.some((th, c) => th !== null && th.kind === 'write' && th.ts === ts && cfg.clients[c].node === n && !th.resp) ? 'not returned' : 'returned');
      return [deno([], [obs('action', 'co', 'returned', 'before', `the spec's client-write ${showTS(ts)} at ${NODE[n]} (returned once its coordinator took the step that responds)`, state)])];
    }
    const coordStep = (cs: number[], pc: string, label: string, observe: (c: number) => Observation[] = () => []): readonly Denotation<KeyState, MinosAction>[] | string => {
      if (cs.length === 0) return `${who} has no coordinator thread for ${label.replace(/^\w+\(/, '').replace(/\)$/, '')} (no clientWrite_L4 matched, or it has finished)`;
      return cs.map((c) => deno([threadAct('coord', c, label, pc)], observe(c)));
    };
    if (drainStep) return coordStep(coordOf(s, n, 'write', (th) => th.ts === ts), 'drain', `releaseAfterDrain(${who}, ${key}, ${showTS(ts)})`);
    if (action === 'vFIFOdequeue') {
      if (s.rec[n][0].vq.length === 0) return `the vFIFO of ${key} at ${NODE[n]} is empty in the spec`;
      return [deno([act('vdeq', n, `vFIFOdequeue(${who}, ${key}, ${showTS(ts)})`)], [obs('args.ts', `rec[${n}][0].vq[0]`, ts, 'before', `the head of ${key}'s vFIFO at ${NODE[n]}`)])];
    }
    if (COORD_PC[action] !== undefined) {
      const label = `${action}(${who}, ${key}, ${showTS(ts)})`;
      const cs = coordOf(s, n, 'write', (th) => th.ts === ts);
      if (params.offload && action === 'localWrite_L9_16' && a.obsolete === false) {
        // MINOS-O: the SNIC's check and its enqueue are two steps of the spec ([L247]); the implementation does both at once
        if (cs.length === 0) return `${who} has no coordinator thread for ${key} ${showTS(ts)}`;
        return cs.map((c) => deno([threadAct('coord', c, `snicObsoleteCheck(${who}, ${key}, ${showTS(ts)})`, 'local'), threadAct('coord', c, label, 'install')]));
      }
      return coordStep(cs, COORD_PC[action], label, (c) => {
        const o: Observation[] = [];
        if (action === 'obsoleteCheck_L5' || action === 'localWrite_L9_16') {
          o.push(obs('args.obsolete', `co[${c}].pc`, a.obsolete, 'after', 'whether Obsolete() held (the thread went to ConsistencySpin)', (t) => t.co[c] === null || t.co[c]!.pc === 'cspin'));
          if (a.obsolete === true) o.push(obs('args.tau', `co[${c}].tau`, a.tau, 'after', 'the volatileTS snapshot the spins wait for', (t) => t.co[c]?.tau ?? NONE));
        }
        if (action === 'snatchRDLock_L8') o.push(obs('args.owner', `rec[${n}][0].rd`, a.owner, 'after', `RDLock_Owner of ${key} at ${NODE[n]}`));
        if (action === 'consistencySpin_L2' || action === 'persistencySpin_L3') o.push(obs('args.tau', `co[${c}].tau`, a.tau, 'before', 'the snapshot the spin waits for'));
        return o;
      });
    }
    if (FOLL_PC[action] !== undefined) {
      const label = `${action}(${who}, ${key}, ${showTS(ts)})`;
      const is: number[] = [];
      s.fo.forEach((f, i) => {
        if (f.n === n && f.kind === 'write' && f.ts === ts) is.push(i);
      });
      if (is.length === 0) return `${who} has no follower thread for ${key} ${showTS(ts)} (no recvINV matched, or it has finished)`;
      return is.map((i) => {
        const o: Observation[] = [];
        if (action === 'localWrite_L32_38') {
          o.push(obs('args.obsolete', `fo[${i}].pc`, a.obsolete, 'after', 'whether Obsolete() held under WRLock (the thread went to ConsistencySpin)', (t) => t.fo.some((f) => f.n === n && f.kind === 'write' && f.ts === ts && f.pc === 'cspin')));
        }
        if (action === 'snatchRDLock_L31') o.push(obs('args.owner', `rec[${n}][0].rd`, a.owner, 'after', `RDLock_Owner of ${key} at ${NODE[n]}`));
        if (action === 'consistencySpin_L24' || action === 'persistencySpin_L25') o.push(obs('args.tau', `fo[${i}].tau`, a.tau, 'before', 'the snapshot the spin waits for'));
        return deno([threadAct('foll', i, label, FOLL_PC[action])], o);
      });
    }
    if (action === 'allACK_P_sc') {
      const sc = scopeOf(a.sc);
      return coordStep(coordOf(s, n, 'persist', (th) => th.sc === sc), 'persistWait', `allACK_P_sc(${who}, ${a.sc as string})`);
    }
    if (action === 'ackPersist_sc') {
      const sc = scopeOf(a.sc);
      const i = s.fo.findIndex((f) => f.n === n && f.kind === 'persist' && f.sc === sc);
      if (i < 0) return `${who} has no follower thread for PERSIST ${a.sc as string} (no recvPERSIST matched)`;
      return [deno([threadAct('foll', i, `ackPersist_sc(${who}, ${a.sc as string})`, 'flush')])];
    }
    if (action === 'backgroundPersist') {
      const j = s.bg.findIndex((b) => b[0] === n && b[1] === 0 && b[2] === ts);
      if (j < 0) return `no background persist of ${key} ${showTS(ts)} is pending at ${NODE[n]}`;
      return [deno([act('bg', j, `backgroundPersist(${who}, ${key}, ${showTS(ts)})`)])];
    }
    if (RECV[action] !== undefined || action === 'discardVAL_L30') {
      const t = action === 'discardVAL_L30' ? MSG_TYPE[a.type as string] : RECV[action];
      const scoped = SCOPE_EVENTS.has(action) || (action === 'recvACK_P' && a.key === '');
      // VALs come from the write's coordinator (TS_WR's node id); the others name their sender
      const from = isInt(a.from) ? a.from : scoped ? -1 : ts % TSN;
      const sc = scoped ? scopeOf(a.sc) : 0;
      const match = scoped ? (m: Msg) => m[1] === -1 && m[5] === sc && (from < 0 || m[3] === from) : (m: Msg) => m[1] === 0 && m[2] === ts && (action !== 'recvINV' || m[7] === specValue(a.v));
      const j = from >= 0 ? msgIndex(s, t, from, n, match) : s.net.findIndex((m) => m[0] === t && m[4] === n && match(m));
      const what = scoped ? `${MSG[t]} ${a.sc as string}` : `${MSG[t]} ${key} ${showTS(ts)}`;
      if (j < 0) {
        const inFlight = s.net.filter((m) => m[4] === n).map(([mt, mk, mts, mfrom]) => `${MSG[mt]}${mk === -1 ? '' : ` ${showTS(mts)}`} from ${NODE[mfrom]}`);
        return `no ${what} from ${from >= 0 ? NODE[from] : 'any node'} to ${NODE[n]} is in flight in the spec (in flight to ${NODE[n]}: ${inFlight.length > 0 ? inFlight.join(', ') : 'nothing'})`;
      }
      return [deno([act('deliver', j, `${action}(${who}, ${what} from ${NODE[s.net[j][3]]})`)])];
    }
    return `no step of the spec reads ${action} (impl/minos/README.md, "The trace")`;
  };

  return {
    init: () => ({ s: initialState(cfg, 0, 0), down: 0 }),
    // The ghost variables (history and invariant bookkeeping) grow with the run and decide no
    // step: states equal without them match the same events (the TS_WRs they hold are observed).
    view: (ks) => `${encode({ ...ks.s, g: NO_GHOST })}#${ks.down}`,
    inner: (ks) => ks.s,
    show: (ks) => show(ks, key, N, showValue),
    enabled,
    next: (ks, a) => ({ s: compact(machine.next(ks.s, a)), down: ks.down }),
    denote,
  };
}

const NO_GHOST: State['g'] = { wts: [], wst: [], readMax: [], pd: [], i2: '', i11: '', lin: '' };

/**
 * Each node's NVM log cut to its max-TS entry: every use of the log in the spec (maxNvm, the
 * recovery's best entry) reads only that one, and the logs would otherwise grow with the run.
 */
function compact(s: State): State {
  let nvm: number[][] | undefined;
  for (let n = 0; n < s.nvm.length; n++) {
    const log = s.nvm[n];
    if (log.length <= 3) continue;
    let b = 0;
    for (let i = 3; i < log.length; i += 3) if (log[i + 1] > log[b + 1] || (log[i + 1] === log[b + 1] && log[i + 2] > log[b + 2])) b = i;
    nvm ??= s.nvm.slice();
    nvm[n] = [log[b], log[b + 1], log[b + 2]];
  }
  return nvm ? { ...s, nvm } : s;
}

/** A partition state for people: each node's record of the key, threads, messages in flight, NVM. */
function show(ks: KeyState, key: string, n: number, showValue: (v: number) => string): unknown {
  const s = ks.s;
  const nodes: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const r = s.rec[i][0];
    const nvm: string[] = [];
    for (let j = 0; j < s.nvm[i].length; j += 3) nvm.push(`${showTS(s.nvm[i][j + 1])} ${showValue(s.nvm[i][j + 2])}`);
    nodes[NODE[i]] = { value: showValue(r.val), volatileTS: showTS(r.vts), glb_volatileTS: showTS(r.gv), glb_durableTS: showTS(r.gd), RDLock: r.rd === NONE ? 'free' : showTS(r.rd), nvm };
  }
  const coordinators = s.co.flatMap((th, c) => (th ? [`slot ${c}: ${th.kind} ${th.kind === 'write' ? showTS(th.ts) : `sc${th.sc}`} at ${th.pc}`] : []));
  const followers = s.fo.map((f) => `${NODE[f.n]}: ${f.kind === 'write' ? showTS(f.ts) : `sc${f.sc}`} from ${NODE[f.from]} at ${f.pc}`);
  const net = s.net.map(([t, k, ts, from, to, sc]) => `${MSG[t]} ${k === -1 ? `sc${sc}` : showTS(ts)} ${NODE[from]}->${NODE[to]}`);
  const bg = s.bg.map((b) => `${NODE[b[0]]}: ${showTS(b[2])}`);
  return { key, nodes, coordinators, followers, inFlight: net, backgroundPersists: bg, ...(ks.down ? { down: ks.down.toString(2) } : {}) };
}
