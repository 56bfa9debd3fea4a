// How FUSEE's implementation traces read against this spec (checkers/validate): the
// vocabulary agreed with impl/fusee (README, "The trace vocabulary" and "Validating
// implementation traces"). Each key's index slot is one partition, validated on its own by the machine
// of machine.ts with an open workload: clients join a key's partition with their first
// event there and invoke what their events say; memory nodes are the key's replicas
// (the header's params.replicas, primary first); the master's fence and the crashes are
// global events, seen by every key.

import {
  TraceSpecError,
  type Access,
  type Denotation,
  type Observation,
  type PartitionSpec,
  type TraceEvent,
  type TraceInfo,
  type TraceMapping,
  type TraceSpec,
} from '../../checkers/validate/types.ts';
import { buildMachine, joinClient, leaveClient, openInvoke } from './machine.ts';
import { CRASHED, NONE, Rec, type FuseeAction, type FuseeState, type Pc, type Step } from './state.ts';
import { recoveryCase } from './steps.ts';

/** A key's partition state: the spec state, and which process holds each client slot. */
export interface SlotState {
  f: FuseeState;
  /** procs[c]: the process (client id) of client slot c. */
  procs: readonly string[];
  /**
   * The master's epoch: 1 + the prepares matched. An implementation whose memory nodes fence
   * by epoch (impl/fusee) logs the epoch of a round's primary read (`readPrimary`'s
   * `args.epoch`), which places the read between that epoch's decision and the next
   * prepare: no object orders them.
   */
  ep: number;
}

const FAIL = 'FAIL';

/** Client steps: by the client itself, or by the master redoing a crashed client's write (args.client). */
const CLIENT_STEPS = new Set<string>(['invoke', 'readPrimary', 'casBackup', 'reRead', 'fixup', 'commitLog', 'casPrimary', 'loserWait', 'loserReturn', 'failReply', 'read', 'readBackups', 'readReply']);
const MASTER_STEPS = new Set<string>(['prepare', 'decide', 'recoverClient']);
const GLOBAL = new Set<string>(['prepare', 'crashMN', 'crashClient']);
const ACTIONS = [...CLIENT_STEPS, ...MASTER_STEPS, 'crashMN', 'crashClient'];

/**
 * The master's recovery of a crashed client: process `master/<client>` (impl/fusee/README.md,
 * deviations), or `master` in traces that log every recovery in the master's one sequence.
 * Its client steps (a c1 redo) carry `args.client`, the client whose write it redoes.
 */
const isRecovery = (proc: string): boolean => proc === 'master' || proc.startsWith('master/');

/** Where each client step is enabled (state.ts's program counters), for explanations. */
const PC_OF: Partial<Record<Step, Pc>> = {
  readPrimary: 'W1',
  casBackup: 'W2',
  reRead: 'W3',
  fixup: 'W4',
  commitLog: 'W5',
  casPrimary: 'W6',
  loserWait: 'L1',
  loserReturn: 'L2',
  failReply: 'F2',
  readBackups: 'R2',
  readReply: 'RF2',
  invoke: 'idle',
  read: 'idle',
};

const PC_TEXT: Record<Pc, string> = {
  idle: 'idle (no operation pending)',
  W1: 'W1 (to read the primary, Alg. 1 l.6)',
  W2: 'W2 (CASing the backups, l.7)',
  W3: 'W3 (to re-read the primary, Alg. 2 l.12)',
  W4: 'W4 (fixing up backups, l.14)',
  W5: 'W5 (to commit its log)',
  W6: 'W6 (to CAS the primary, l.15)',
  L1: 'L1 (a loser waiting for the primary to change, l.17)',
  L2: 'L2 (a loser about to return)',
  F1: 'F1 (waiting for the master, fail_query)',
  F2: "F2 (the master's reply to handle)",
  R2: 'R2 (to read the backups, Alg. 4 l.4)',
  RF: 'RF (a reader waiting for the master)',
  RF2: "RF2 (a reader with the master's reply)",
  down: 'down (crashed)',
};

// ---- reading args ----------------------------------------------------------------------

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isValue = (v: unknown): boolean => (isInt(v) && v >= 0) || v === FAIL;
const has = (o: Record<string, unknown> | undefined, k: string): boolean => o !== undefined && Object.hasOwn(o, k);

interface Params {
  r: number;
  replicas: Map<string, number[]>;
}

function readParams(info: TraceInfo): Params {
  const p = info.params;
  const reps = p.replicas;
  if (reps === undefined || reps === null || typeof reps !== 'object' || Array.isArray(reps)) {
    throw new TraceSpecError('a header with params.replicas: each key\'s replica memory nodes, primary first ({"k0": [2, 0, 1], ...}); specs/fusee/README.md, "The trace vocabulary"');
  }
  const replicas = new Map<string, number[]>();
  let r = -1;
  for (const [key, list] of Object.entries(reps as Record<string, unknown>)) {
    if (!Array.isArray(list) || list.length < 1 || !list.every((x) => isInt(x) && x >= 0) || new Set(list).size !== list.length) {
      throw new TraceSpecError(`params.replicas.${key}: distinct memory-node numbers, primary first`);
    }
    if (r >= 0 && list.length !== r) throw new TraceSpecError(`params.replicas: every key with the same number of replicas (${key} has ${list.length}, others ${r})`);
    r = list.length;
    replicas.set(key, list as number[]);
  }
  if (replicas.size === 0) throw new TraceSpecError('params.replicas with at least one key');
  if (p.r !== undefined && p.r !== r) throw new TraceSpecError(`params.r equal to the number of replicas per key (${r})`);
  if (r < 2) throw new TraceSpecError('at least 2 replicas per key (a primary and a backup)');
  return { r, replicas };
}

/** The memory node of an args value: 1 or "mn1". */
function mnOf(v: unknown): number | undefined {
  if (isInt(v) && v >= 0) return v;
  if (typeof v === 'string' && /^(mn)?\d{1,9}$/.test(v)) return Number(v.replace('mn', ''));
  return undefined;
}

/** An object name "mn1/k0" → [1, "k0"]. */
function objOf(name: string): [number, string] | undefined {
  const m = /^mn(\d{1,9})\/(.+)$/.exec(name);
  return m ? [Number(m[1]), m[2]] : undefined;
}

function specValue(v: unknown): number {
  return v === FAIL ? CRASHED : (v as number);
}

function checkEvent(ev: TraceEvent, params: Params): string | undefined {
  const a = ev.args;
  const act = ev.action;
  const need = (k: string, ok: (v: unknown) => boolean, what: string): string | undefined => (has(a, k) && ok(a![k]) ? undefined : `args.${k}: ${what} (${act})`);
  if (!ACTIONS.includes(act)) return `an action of the fusee vocabulary (${ACTIONS.join(', ')}), not ${JSON.stringify(act)}`;
  if (act === 'crashMN') return need('mn', (v) => mnOf(v) !== undefined, 'a memory node (1 or "mn1")');
  if (act === 'crashClient') return need('client', (v) => typeof v === 'string' && v.length > 0, 'the crashed client process');
  if (act === 'prepare') return undefined;
  const keyErr = need('key', (v) => typeof v === 'string' && params.replicas.has(v), `a key of params.replicas`);
  if (keyErr) return keyErr;
  const key = a!.key as string;
  const reps = params.replicas.get(key)!;
  if (CLIENT_STEPS.has(act) && isRecovery(ev.proc)) {
    const e = need('client', (v) => typeof v === 'string' && v.length > 0, "the client whose write the master redoes (a master's client step)");
    if (e) return e;
  }
  const mnErr = (): string | undefined => need('mn', (v) => mnOf(v) !== undefined && reps.includes(mnOf(v)!), `one of ${key}'s replicas (${reps.join(', ')})`);
  const objErr = (read: boolean, failed: boolean): string | undefined => {
    const mn = mnOf(a!.mn)!;
    if (failed) return ev.objSeq !== undefined ? `no "objSeq" on a verb that FAILed (${act})` : undefined;
    if (ev.obj !== `mn${mn}/${key}`) return `"obj": "mn${mn}/${key}", the slot the verb acted on (${act})`;
    if (read && ev.objSaw === undefined) return `"objSaw": the step only read mn${mn}/${key} (${act})`;
    return undefined;
  };
  switch (act) {
    case 'invoke':
      return need('value', (v) => isInt(v) && v > 0, 'the written value, an integer > 0');
    case 'read':
    case 'readPrimary':
    case 'reRead':
    case 'loserWait':
      if (a!.backups !== undefined && !(Array.isArray(a!.backups) && a!.backups.every((b) => mnOf(b) !== undefined && reps.includes(mnOf(b)!)))) return `args.backups: a list of ${key}'s replicas (${act})`;
      return mnErr() ?? need('result', isValue, 'a value (an integer ≥ 0) or "FAIL"') ?? objErr(true, a!.result === FAIL);
    case 'casBackup':
    case 'fixup':
    case 'casPrimary': {
      const e = mnErr() ?? need('expected', (v) => isInt(v) && v >= 0, 'an integer ≥ 0') ?? need('swap', (v) => isInt(v) && v >= 0, 'an integer ≥ 0') ?? need('prior', isValue, 'a value or "FAIL"');
      if (e) return e;
      const failed = a!.prior === FAIL;
      const o = objErr(false, failed);
      if (o) return o;
      if (!failed && (a!.prior === a!.expected) !== (ev.objSeq !== undefined)) {
        return a!.prior === a!.expected ? `"objSeq": a CAS that returned its expected value changed mn${mnOf(a!.mn)}/${key}` : `"objSaw", not "objSeq": a CAS that failed (prior ≠ expected) did not change the slot`;
      }
      return undefined;
    }
    case 'commitLog':
      return need('old', (v) => isInt(v) && v >= 0, 'the logged old value');
    case 'loserReturn':
      return undefined;
    case 'failReply':
    case 'readReply':
      return need('rpc', isValue, "the master's answer");
    case 'readBackups': {
      const e = need('results', (v) => v !== null && typeof v === 'object' && !Array.isArray(v), 'an object {memory node: value or "FAIL"}');
      if (e) return e;
      for (const [mn, v] of Object.entries(a!.results as Record<string, unknown>)) {
        if (mnOf(mn) === undefined || !reps.includes(mnOf(mn)!)) return `args.results: ${key}'s replicas as keys, not ${JSON.stringify(mn)}`;
        if (!isValue(v)) return `args.results.${mn}: a value or "FAIL"`;
      }
      return sawErr(a!.saw, key, false);
    }
    case 'decide': {
      const e = need('value', (v) => isInt(v) && v >= 0, 'the chosen value') ?? sawErr(a!.wrote, key, true) ?? sawErr(a!.saw, key, false);
      if (e) return e;
      if (has(a, 'saw') && has(a, 'wrote') && Object.keys(a!.saw as object).some((o) => Object.hasOwn(a!.wrote as object, o))) return `args.saw and args.wrote: each replica in one of them (decide)`;
      return undefined;
    }
    case 'recoverClient':
      return (
        need('client', (v) => typeof v === 'string' && v.length > 0, 'the recovered client') ??
        need('case', (v) => v === 'c0' || v === 'c1' || v === 'c2' || v === 'c3' || v === 'committed', 'one of c0, c1, c2, c3, committed')
      );
  }
  return undefined;
}

function sawErr(v: unknown, key: string, writes: boolean): string | undefined {
  const field = writes ? 'wrote' : 'saw';
  if (v === undefined) return undefined;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return `args.${field}: an object {"mn1/${key}": ${writes ? 'objSeq' : 'objSaw'}, ...}`;
  for (const [obj, n] of Object.entries(v as Record<string, unknown>)) {
    const o = objOf(obj);
    if (!o || o[1] !== key) return `args.${field}: objects of ${key} ("mn1/${key}"), not ${JSON.stringify(obj)}`;
    if (!isInt(n) || n < (writes ? 1 : 0)) return `args.${field}.${obj}: an integer ≥ ${writes ? 1 : 0}`;
  }
  return undefined;
}

// ---- the mapping ----------------------------------------------------------------------

export const fuseeTrace: TraceSpec = {
  configs: [
    { name: 'free', description: 'per-backup CASes in any order (as in the paper: in parallel)' },
    { name: 'fixed', description: 'per-backup CASes in replica order' },
  ],
  open(info) {
    if (info.config !== 'free' && info.config !== 'fixed') throw new TraceSpecError(`a fusee validation config: free or fixed (not ${JSON.stringify(info.config)})`);
    const params = readParams(info);
    const machine = buildMachine({ r: params.r, clients: [], clientCrashes: Number.MAX_SAFE_INTEGER, mnCrashes: params.r - 1, casOrder: info.config, open: true });
    const partitions = new Map<string, PartitionSpec<SlotState, FuseeAction>>();
    const mapping: TraceMapping<SlotState, FuseeAction> = {
      partitions: [...params.replicas.keys()],
      check: (ev) => checkEvent(ev, params),
      route: (ev) => (GLOBAL.has(ev.action) ? 'all' : [ev.args!.key as string]),
      accesses(ev) {
        const out: Access[] = [];
        if (ev.obj !== undefined) out.push(ev.objSeq !== undefined ? { obj: ev.obj, seq: ev.objSeq } : { obj: ev.obj, saw: ev.objSaw ?? 0 });
        if (ev.action === 'decide' && ev.args?.wrote) for (const [obj, n] of Object.entries(ev.args.wrote as Record<string, number>)) out.push({ obj, seq: n });
        if ((ev.action === 'decide' || ev.action === 'readBackups') && ev.args?.saw) for (const [obj, n] of Object.entries(ev.args.saw as Record<string, number>)) out.push({ obj, saw: n });
        return out;
      },
      ends: (ev) => (ev.action === 'crashClient' && ev.args!.client !== ev.proc ? (ev.args!.client as string) : undefined),
      accessesObjects: (proc) => proc !== 'nemesis',
      local: (ev) => CLIENT_STEPS.has(ev.action),
      partition(key) {
        let p = partitions.get(key);
        if (!p) partitions.set(key, (p = keyPartition(key, params.replicas.get(key)!, machine)));
        return p;
      },
    };
    return mapping;
  },
};

type Machine = ReturnType<typeof buildMachine>;

function keyPartition(key: string, replicas: readonly number[], machine: Machine): PartitionSpec<SlotState, FuseeAction> {
  const rid = (mn: unknown): number => replicas.indexOf(mnOf(mn)!);
  const mnName = (i: number): string => (i >= 0 && i < replicas.length ? `mn${replicas[i]}` : `r${i}`);
  const slotName = (s: SlotState, i: number): string => `${mnName(i)}/${key}`;

  /** A step of client slot c, labelled in the trace's words. */
  const step = (s: SlotState, kind: Step, c: number, x = -1, mn?: unknown): FuseeAction => {
    const who = s.procs[c] ?? `slot ${c}`;
    const where = kind === 'casBackup' || kind === 'fixup' ? `, ${mn !== undefined ? `mn${mnOf(mn)}` : mnName(s.f.cl[c]?.bk[x] ?? -1)}` : '';
    return { step: kind, c, x, label: `${kind}(${who}${where})` };
  };
  const relabel = (s: SlotState, a: FuseeAction): FuseeAction => {
    if (a.c >= 0) return step(s, a.step, a.c, a.x);
    if (a.step === 'crashMN') return { ...a, label: `crashMN(${mnName(a.x)})` };
    return a;
  };

  const obs = (field: string, path: string, expected: unknown, what?: string, raw?: unknown, at: 'before' | 'after' = 'before'): Observation => ({
    field,
    path,
    expected,
    at,
    ...(what ? { what } : {}),
    ...(raw !== undefined && raw !== expected ? { raw } : {}),
  });
  const slotObs = (s: SlotState, field: string, mn: unknown, v: unknown): Observation => {
    const i = rid(mn);
    return obs(field, `rep[${i}]`, specValue(v), `${slotName(s, i)}'s value`, v);
  };

  /** Drops client slots that nothing can concern any more: recovered, or crashed with nothing to recover. */
  const retire = (s: SlotState): SlotState => {
    let t = s;
    for (let c = t.f.cl.length - 1; c >= 0; c--) {
      const me = t.f.cl[c];
      const done = me.rec === Rec.Done || (me.rec === Rec.Pending && ['c0', 'c3', 'committed'].includes(recoveryCase(t.f, me)));
      if (done) t = { ...t, f: leaveClient(t.f, c), procs: t.procs.filter((_, i) => i !== c) };
    }
    return t;
  };

  const explain = (s: SlotState, a: FuseeAction): string => {
    const f = s.f;
    if (a.c >= 0) {
      const me = f.cl[a.c];
      const who = s.procs[a.c];
      if (!me) return `${who} has no client slot here`;
      const want = PC_OF[a.step];
      if (a.step === 'crashClient') return me.rec !== Rec.Live ? `${who} has already crashed` : `no client crash is left`;
      if (a.step === 'recoverClient') {
        if (me.rec !== Rec.Pending) return `${who} is not a crashed client awaiting recovery`;
        return f.fenced ? 'recovery waits while the master is fenced (§5.4: memory nodes first)' : 'recovery waits until no replica in the roles is crashed (§5.4: memory nodes first)';
      }
      if (want !== undefined && me.pc !== want) return `${who} is at ${PC_TEXT[me.pc]}, not ${PC_TEXT[want]}`;
      switch (a.step) {
        case 'readPrimary':
          return f.fenced ? 'the master has fenced the slot (between prepare and decide): the client waits' : `the primary ${mnName(f.primary)} is crashed: the client waits for the membership change`;
        case 'casBackup':
          if (a.x < 0) return `the memory node is not one of the backups ${who} read at l.6 (${me.bk.map(mnName).join(', ')})`;
          if (me.vl[a.x] !== NONE) return `${who} has already CASed ${mnName(me.bk[a.x])}`;
          return `per-backup CASes go in replica order (config fixed): ${mnName(me.bk[me.vl.indexOf(NONE)])} first`;
        case 'fixup':
          if (a.x < 0) return `the memory node is not one of the backups ${who} read at l.6 (${me.bk.map(mnName).join(', ')})`;
          if (me.vl[a.x] === me.vNew) return `${mnName(me.bk[a.x])} already holds ${who}'s value ${me.vNew}: no fix-up`;
          return `per-backup fix-ups go in replica order (config fixed)`;
        case 'loserWait':
          return `the primary ${mnName(me.pr)} still holds v_old = ${me.vOld}: the loser keeps waiting`;
      }
      return `${a.label} is not enabled`;
    }
    switch (a.step) {
      case 'prepare':
        return f.fenced ? 'the master has already fenced the slot' : 'no replica in the roles has crashed and no client waits for the master';
      case 'decide': {
        if (!f.fenced) return 'the master decides only after prepare (fenced)';
        const alive = f.backups.filter((b) => f.rep[b] !== CRASHED);
        return alive.length > 0
          ? `${a.x} is not the value of an alive backup (${alive.map((b) => `${slotName(s, b)} = ${f.rep[b]}`).join(', ')}): Alg. 3 l.5`
          : `${a.x} is not the primary's value ${f.rep[f.primary]} (no backup is alive)`;
      }
      case 'crashMN':
        if (f.rep[a.x] === CRASHED) return `${mnName(a.x)} has already crashed`;
        if (f.mnLeft <= 0) return `r - 1 = ${replicas.length - 1} memory nodes have crashed already (at most r - 1, [L297])`;
        return `${mnName(a.x)} is not in the roles of ${key}`;
    }
    return `${a.label} is not enabled`;
  };

  const enabled = (s: SlotState, a: FuseeAction): true | string => {
    if (a.step === 'invoke' || a.step === 'read') {
      const me = s.f.cl[a.c];
      return me && me.rec === Rec.Live && me.pc === 'idle' ? true : explain(s, a);
    }
    // A client's own steps, computed alone (the hot path); crashes and the master's steps from all actions.
    for (const b of a.c >= 0 && a.step !== 'crashClient' ? machine.clientActions(s.f, a.c) : machine.actions(s.f)) if (b.step === a.step && b.c === a.c && b.x === a.x) return true;
    return explain(s, a);
  };

  /** A client step's denotation, with its join when the client is new here. */
  const client = (before: ((t: SlotState) => SlotState) | undefined, steps: FuseeAction[], observe: Observation[] = []): Denotation<SlotState, FuseeAction>[] =>
    before ? [{ before, steps, observe, after: retire }] : [{ steps, observe, after: retire }];

  /** A process joining the key's partition: a fresh client slot. */
  const join =
    (who: string) =>
    (t: SlotState): SlotState => ({ ...t, f: joinClient(t.f), procs: [...t.procs, who] });

  const one = (steps: FuseeAction[], observe: Observation[] = [], extra: Partial<Denotation<SlotState, FuseeAction>> = {}): Denotation<SlotState, FuseeAction>[] => [
    { steps, observe, after: retire, ...extra },
  ];
  /**
   * An event that is no step of this key's spec: the state stays. `inert` when that holds
   * in any state it could meet (a node holding no replica of the key; a client that has
   * ended here).
   */
  const nothing = (note: string): Denotation<SlotState, FuseeAction>[] => [{ steps: [], note, inert: true }];

  const denote = (s: SlotState, ev: TraceEvent): readonly Denotation<SlotState, FuseeAction>[] | string => {
    const a = ev.args ?? {};
    const f = s.f;
    if (CLIENT_STEPS.has(ev.action)) {
      const who = isRecovery(ev.proc) ? (a.client as string) : ev.proc;
      let c = s.procs.indexOf(who);
      let before: ((t: SlotState) => SlotState) | undefined;
      if (c < 0) {
        if (ev.action !== 'invoke' && ev.action !== 'read') return `${who} has no operation in progress on ${key} (no invoke or read of ${who} matched here)`;
        c = f.cl.length;
        before = join(who);
      }
      const me = f.cl[c];
      const cl = `cl[${c}]`;
      const kind = ev.action as Step;
      // Labels of steps taken after a join name the joining process.
      const t: SlotState = before ? { ...s, procs: [...s.procs, who] } : s;
      switch (kind) {
        case 'invoke':
          return client(before, [{ ...openInvoke(c, a.value as number), label: `invoke(${who}, write ${a.value as number})` }]);
        case 'read':
          return client(before, [{ ...openInvoke(c), label: `read(${who})` }], [obs('args.mn', 'primary', rid(a.mn), `the primary of ${key}`, a.mn), slotObs(t, 'args.result', a.mn, a.result)]);
        case 'readPrimary':
          if (isInt(a.epoch) && a.epoch !== s.ep) return `${who} read the primary in epoch ${a.epoch}, but the master's epoch here is ${s.ep} (${s.ep - 1} prepare${s.ep === 2 ? '' : 's'} matched)`;
          if (a.result === FAIL) {
            // A read of a crashed primary: the spec's client waits (no step).
            return client(before, [], [obs('pc', `${cl}.pc`, 'W1', `${who}'s program counter`), slotObs(t, 'args.result', a.mn, a.result)]);
          }
          return client(
            before,
            [step(t, kind, c)],
            [
              obs('args.mn', 'primary', rid(a.mn), `the primary of ${key}`, a.mn),
              slotObs(t, 'args.result', a.mn, a.result),
              // The view's backups the client read with the primary (impl/fusee logs them): no object orders the master's reconfiguration with this read.
              ...(Array.isArray(a.backups) ? [obs('args.backups', `${cl}.bk`, (a.backups as unknown[]).map(rid), `the backups ${who} read at l.6`, a.backups, 'after')] : []),
            ],
          );
        case 'casBackup':
        case 'fixup': {
          const x = me ? me.bk.indexOf(rid(a.mn)) : -1;
          return client(before,
            [step(t, kind, c, x, a.mn)],
            [
              kind === 'casBackup'
                ? obs('args.expected', `${cl}.vOld`, a.expected, `${who}'s v_old`)
                : obs('args.expected', `cl[${c}].vl[${x}]`, a.expected, `what ${who}'s CAS of ${mnName(rid(a.mn))} returned (v_list)`),
              obs('args.swap', `${cl}.vNew`, a.swap, `${who}'s v_new`),
              slotObs(t, 'args.prior', a.mn, a.prior),
            ],
          );
        }
        case 'reRead':
        case 'loserWait':
          return client(before, [step(t, kind, c)], [obs('args.mn', `${cl}.pr`, rid(a.mn), `the primary ${who} read at l.6`, a.mn), slotObs(t, 'args.result', a.mn, a.result)]);
        case 'commitLog':
          return client(before, [step(t, kind, c)], [obs('args.old', `${cl}.vOld`, a.old, `${who}'s v_old`)]);
        case 'casPrimary':
          return client(before,
            [step(t, kind, c)],
            [
              obs('args.mn', `${cl}.pr`, rid(a.mn), `the primary ${who} read at l.6`, a.mn),
              obs('args.expected', `${cl}.vOld`, a.expected, `${who}'s v_old`),
              obs('args.swap', `${cl}.vNew`, a.swap, `${who}'s v_new`),
              slotObs(t, 'args.prior', a.mn, a.prior),
            ],
          );
        case 'loserReturn':
          return client(before, [step(t, kind, c)]);
        case 'failReply':
        case 'readReply':
          return client(before, [step(t, kind, c)], [obs('args.rpc', `${cl}.rpc`, specValue(a.rpc), "the master's reply", a.rpc)]);
        case 'readBackups': {
          // The nodes that answered must be the alive backups of the view read at l.2: only
          // their values decide (Alg. 4 l.4-5, A.4.1 [L802]). A FAIL carries no value
          // ([L532]): the reader may name a crashed node its own, older view still lists
          // (clients learn the membership from the master [A.4, L792], after the master has
          // reconfigured), or leave out a crashed backup; each FAIL is still checked against
          // the replica (crashed in the spec).
          const results = a.results as Record<string, unknown>;
          const answered = Object.keys(results)
            .filter((mn) => results[mn] !== FAIL)
            .map(rid)
            .sort((x, y) => x - y);
          return client(before,
            [step(t, kind, c)],
            [
              {
                field: 'args.results',
                path: `${cl}.bk`,
                what: `the alive backups ${who} read at l.2`,
                expected: answered,
                at: 'before',
                read: (inner) => {
                  const f2 = inner as FuseeState;
                  return f2.cl[c].bk.filter((b) => f2.rep[b] !== CRASHED).sort((x, y) => x - y);
                },
              },
              ...Object.entries(results).map(([mn, v]) => slotObs(t, `args.results.${mn}`, mn, v)),
            ],
          );
        }
      }
      return `unknown client step ${ev.action}`;
    }
    switch (ev.action) {
      case 'prepare': {
        if (isInt(a.epoch) && a.epoch !== s.ep + 1) return `prepare of epoch ${a.epoch}, but the master's epoch here is ${s.ep} (the next prepare is epoch ${s.ep + 1})`;
        const act: FuseeAction = { step: 'prepare', c: -1, x: -1, label: 'prepare(master)' };
        return one([act]);
      }
      case 'decide': {
        const v = a.value as number;
        const wrote = (a.wrote ?? {}) as Record<string, unknown>;
        return one(
          [{ step: 'decide', c: -1, x: v, label: `decide(master, ${key} := ${v})` }],
          Object.keys(wrote).map((o) => {
            const i = replicas.indexOf(objOf(o)![0]);
            return obs(`args.wrote.${o}`, `rep[${i}]`, v, `${o}'s value after the master's WRITE`, undefined, 'after');
          }),
        );
      }
      case 'recoverClient': {
        const who = a.client as string;
        const c = s.procs.indexOf(who);
        const want = a.case === 'c1' ? 'c1 redo' : (a.case as string);
        const idle = c >= 0 && f.cl[c].rec === Rec.Live && f.cl[c].pc === 'idle';
        if ((c < 0 || idle) && (want === 'c0' || want === 'c3' || want === 'committed')) return nothing(`${who} has nothing to recover on ${key}`);
        // A client that crashed while invoking: its log entry reached a replica, its
        // `invoke` line was lost with it (as a killed client's last step is), and the
        // master finds the entry (args.value: its v_new) and redoes the write. Its crash
        // was matched while it was idle here (or had no slot).
        if ((c < 0 || idle) && want === 'c1 redo' && isInt(a.value) && a.value > 0) {
          const c1 = c < 0 ? f.cl.length : c;
          const t: SlotState = c < 0 ? { ...s, procs: [...s.procs, who] } : s;
          return [
            {
              ...(c < 0 ? { before: join(who) } : {}),
              steps: [{ ...openInvoke(c1, a.value), label: `invoke(${who}, write ${a.value})` }, step(t, 'crashClient', c1), { step: 'recoverClient', c: c1, x: -1, label: `recoverClient(${who}, c1)` }],
              filled: 2,
              note: `${who}'s invoke of ${a.value} on ${key}, lost with its crash`,
              after: retire,
            },
          ];
        }
        if (c < 0) {
          return `recoverClient(${who}, ${a.case as string}): in the spec ${who} has nothing to recover on ${key} (its log entry needed no recovery when it crashed, or it never wrote on ${key}), but the trace says case ${a.case as string}`;
        }
        return one(
          [{ step: 'recoverClient', c, x: -1, label: `recoverClient(${who}, ${a.case as string})` }],
          [
            { field: 'args.case', path: `cl[${c}].log`, what: `the case of ${who}'s log entry (Fig. 9)`, expected: want, at: 'before', read: (inner) => recoveryCase(inner as FuseeState, (inner as FuseeState).cl[c]) },
            ...(a.value !== undefined ? [{ field: 'args.value', path: `cl[${c}].log`, what: `the v_new of ${who}'s log entry`, expected: a.value, at: 'before' as const, read: (inner: unknown) => (inner as FuseeState).cl[c].log[0] }] : []),
          ],
        );
      }
      case 'crashMN': {
        const mn = mnOf(a.mn)!;
        const i = replicas.indexOf(mn);
        if (i < 0) return nothing(`mn${mn} holds no replica of ${key}`);
        return one([{ step: 'crashMN', c: -1, x: i, label: `crashMN(mn${mn})` }]);
      }
      case 'crashClient': {
        const who = a.client as string;
        const c = s.procs.indexOf(who);
        if (c < 0) return nothing(`${who} has no client slot on ${key}`);
        // An idle client's crash leaves nothing to recover on this key, whatever else
        // happens here: it is inert (taken at once, not branched over: eight clients
        // crashing together would otherwise give every subset of their crashes). Its slot
        // stays idle; the client logs nothing more, and the master's recovery finds c0.
        if (f.cl[c].rec === Rec.Live && f.cl[c].pc === 'idle') return nothing(`${who} is idle on ${key}: nothing to recover here`);
        const crash = step(s, 'crashClient', c);
        const out = one([crash]);
        // A client's steps whose effect may be in the trace (another process saw it) while
        // their lines are not: a killed client loses the verbs it had in flight, and a
        // client that stops itself on a verb of unknown outcome (a timeout) loses that
        // verb, which may have happened. In flight at once: at most a batch of parallel
        // CASes, one per backup (r - 1), or one verb.
        const lose = (t: FuseeState, steps: FuseeAction[], room: number): void => {
          for (const b of machine.clientActions(t, c)) {
            if (b.step === 'crashClient' || b.step === 'recoverClient' || b.step === 'invoke' || b.step === 'read') continue;
            const lost = [...steps, relabel(s, b)];
            out.push({ steps: [...lost, crash], after: retire, filled: lost.length, note: `${who}'s step${lost.length > 1 ? 's' : ''} ${lost.map((x) => x.label).join(', ')}, lost with its crash` });
            if (room > 1 && (b.step === 'casBackup' || b.step === 'fixup')) lose(machine.next(t, b), lost, room - 1);
          }
        };
        lose(f, [], Math.max(1, replicas.length - 1));
        return out;
      }
    }
    return `unknown action ${ev.action}`;
  };

  return {
    init: () => ({ f: machine.init()[0], procs: [], ep: 1 }),
    view: (s) => {
      const { rep, primary, backups, fenced, mnLeft, clLeft, cl } = s.f;
      return [rep, primary, backups, fenced, mnLeft, clLeft, cl, s.procs, s.ep];
    },
    inner: (s) => s.f,
    show: (s) => showState(s, key, mnName),
    enabled,
    next: (s, a) => ({ f: machine.next(s.f, a), procs: s.procs, ep: a.step === 'prepare' ? s.ep + 1 : s.ep }),
    denote,
  };
}

/** A partition state for people: replicas by memory node, clients by process. */
function showState(s: SlotState, key: string, mnName: (i: number) => string): unknown {
  const f = s.f;
  const val = (v: number): unknown => (v === CRASHED ? FAIL : v === NONE ? null : v);
  const clients: Record<string, unknown> = {};
  f.cl.forEach((c, i) => {
    clients[s.procs[i] ?? `slot ${i}`] = {
      pc: c.pc,
      ...(c.pc !== 'idle' && c.pc !== 'down' ? { vOld: val(c.vOld), vNew: val(c.vNew), primary: c.pr >= 0 ? mnName(c.pr) : null, backups: c.bk.map(mnName), vList: c.vl.map(val) } : {}),
      ...(c.rpc !== NONE ? { rpc: val(c.rpc) } : {}),
      log: { vNew: val(c.log[0]), used: c.log[1], old: c.log[2] === -3 ? 'committed' : val(c.log[2]) },
      ...(c.rec !== Rec.Live ? { recovery: ['live', 'pending', 'redo', 'done'][c.rec] } : {}),
    };
  });
  const replicas: Record<string, unknown> = {};
  f.rep.forEach((v, i) => (replicas[`${mnName(i)}/${key}`] = val(v)));
  return { replicas, primary: mnName(f.primary), backups: f.backups.map(mnName), fenced: f.fenced, clients };
}
