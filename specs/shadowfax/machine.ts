// Shadowfax's view-based ownership transfer and scale-out migration (PVLDB 14(8), §3.2 and
// §4) as one machine: the state and its one copy (state.ts), the table of steps
// (steps.ts), the invariants, the client history for the linearizability monitor, and
// the weak fairness the liveness search assumes. Each step follows the extraction
// ../shared/protocols/shadowfax-migration.md (§2.3 source, §2.4 target, §3 client) and
// cites lines `Lnnn` of ../shared/papers/shadowfax.txt.

import { objectList } from '../kit/state.ts';
import type { Machine } from '../../checkers/explore/types.ts';
import { clientHistory } from '../kit/history.ts';
import { tableMachine } from '../kit/table.ts';
import { context, initialValue, rangesOf, sourceThreadName, targetThreadName, type Cx } from './context.ts';
import { done, invariants } from './invariants.ts';
import { shadowfaxKv } from './kv-model.ts';
import { idleSource } from './migration.ts';
import { VARIANTS } from './mutants.ts';
import { copy, encodeState, swappedTwin, RT, S, SERVER_NAMES, T, type Item, type ShadowfaxAction, type ShadowfaxConfig, type State } from './state.ts';
import { table } from './steps.ts';

function initial(cx: Cx): State {
  const { config, keys, ops } = cx;
  const srcLog = objectList<Item>();
  const tgtLog = objectList<Item>();
  keys.forEach((d, k) => {
    for (const v of d.cold ?? []) srcLog.push({ k, v });
  });
  const head = srcLog.length;
  keys.forEach((d, k) => {
    if (d.init !== undefined) (d.range === RT ? tgtLog : srcLog).push({ k, v: d.init });
  });
  const owner = [S, S, T];
  const A = objectList<number | null>(); // the abstract store: numbers and null (not found)
  for (const d of keys) A.push(initialValue(d));
  const snapshot = (log: Item[]) => (cx.crashes ? { log: log.slice(), execd: [] } : null);
  return {
    meta: { owner, view: [1, 1], rangesAt: [[S, 1, rangesOf(owner, S)], [T, 1, rangesOf(owner, T)]], dep: null },
    src: idleSource(cx, srcLog, head, Array.from({ length: config.sourceThreads }, () => ({ view: 1, phase: 'NORMAL' as const }))),
    tgt: { phase: 'NORMAL', view: 1, log: tgtLog, tailStart: 0, pended: objectList() },
    clients: config.clients.map(() => ({
      owner: owner.slice(),
      views: [1, 1],
      sessions: [S, T].map((srv) => ({ view: 1, ranges: rangesOf(owner, srv), inflight: [], rejectFrom: -1, behind: [], lastDone: -1, buffer: [] })),
      next: 0,
    })),
    req: config.clients.map(() => [objectList(), objectList()]),
    resp: config.clients.map(() => [objectList(), objectList()]),
    ctrl: objectList(),
    data: Array.from({ length: config.sourceThreads }, () => objectList()),
    compacted: objectList(),
    migrations: 0,
    swapped: false,
    A,
    execs: ops.map(() => 0),
    status: ops.map(() => 0),
    sentTag: ops.map(() => 0),
    broken: objectList(),
    up: [true, true],
    crashesLeft: cx.crashes,
    execd: [[], []],
    // a checkpoint from before the run stands in for the last one taken before the migration
    pre: [snapshot(srcLog), snapshot(tgtLog)],
    post: [null, null],
    applied: objectList(),
    gone: null,
    deciding: null,
  };
}

/**
 * Weak fairness (§4.5): every thread keeps running (the source's threads, its phase driver
 * S, T's thread t1), every channel keeps delivering, every client thread keeps handling its
 * rejections, the cluster manager and the recovery driver eventually act. Faults (crashes,
 * a partition) and the administrator's migrate() are never obliged to happen. Classes
 * are named physically, so on B4's return trip T drives the phases.
 */
/** A server's physical name in the role srv of the migration under way. */
const physical = (swapped: boolean | undefined, srv: number) => SERVER_NAMES[swapped ? 1 - srv : srv];

function fairness(a: ShadowfaxAction): string | undefined {
  const c = a.c !== undefined ? `c${a.c + 1}` : '';
  switch (a.step) {
    case 'issue':
    case 'clientSend':
    case 'handleViewChange':
      return c;
    case 'serverRecvBatch':
    case 'serverRecvBatchSplit':
      return `${c}→${physical(a.swapped, a.s!)}`;
    case 'clientRecv':
      return `${physical(a.swapped, a.s!)}→${c}`;
    case 'threadRefresh':
    case 'sendChunk':
    case 'serverCompleteIO':
    case 'installSampleCopy':
      return sourceThreadName(a.swapped, a.t!);
    case 'tgtRecvControl':
      return `${physical(a.swapped, S)}→${physical(a.swapped, T)} control`;
    case 'tgtRecvData':
      return `${sourceThreadName(a.swapped, a.t!)}→${physical(a.swapped, T)} data`;
    case 'ownerRecvCompacted':
      return 'S→T compacted';
    case 'tgtRetryPended':
    case 'tgtFetchIndirection':
    case 'tgtCheckpoint':
    case 'tgtSetFlag':
      return targetThreadName(a.swapped);
    case 'clusterGC':
      return 'cluster manager';
    case 'recover':
    case 'recoverReadFlags':
    case 'recoverAct':
      return 'recovery driver';
    case 'migrate':
    case 'crash':
    case 'suspectCrashed':
      return undefined;
    default: // srcAdvance, srcCheckpoint, srcSetFlag, evict, flush, compact, truncate
      return physical(a.swapped, S);
  }
}

/** The actor a step belongs to, for the counterexample's process lanes. */
function actor(cx: Cx, a: ShadowfaxAction): string {
  if (a.step === 'issue' || a.step === 'clientSend' || a.step === 'clientRecv' || a.step === 'handleViewChange') return `c${a.c! + 1}`;
  if (a.step === 'serverRecvBatch' || a.step === 'serverRecvBatchSplit') return a.s === S ? `s${cx.config.clients[a.c!].sThread + 1}` : 't1';
  if (a.step.startsWith('tgt')) return 't1';
  if (a.step === 'migrate') return 'meta';
  return a.t !== undefined ? `s${a.t + 1}` : 'S';
}

/** The migration is decided: committed (both flags, or the dependency collected) or cancelled. */
const decided = (s: State) => s.gone !== null || (s.meta.dep !== null && (s.meta.dep.cancelled || (s.meta.dep.srcDone && s.meta.dep.tgtDone)));

// The history's hooks (functions written once for every config: context.ts, `StepOf`).
/** The op an `issue` invokes: the client thread's next op, as the model's input. */
function invoked(invocations: readonly Invocation[], firstOp: readonly number[], before: State, a: ShadowfaxAction): Invocation | null {
  return a.step === 'issue' ? invocations[firstOp[a.c!] + before.clients[a.c!].next] : null;
}
const pending = (s: State, o: number): boolean => s.status[o] === 1;
/** An op completes only by its answer (clientRecv): the value is in the message delivered. */
function output(_after: State, o: number, before: State, a: ShadowfaxAction): unknown {
  const r = before.resp[a.c!][a.s!][0];
  return 'out' in r && r.op === o ? r.out : undefined;
}
interface Invocation {
  client: number;
  input: { f: string; key: number; value: number };
}

export function buildShadowfax(config: ShadowfaxConfig, variant?: string): Machine<State, ShadowfaxAction> {
  const cx = context(config, VARIANTS.flags(variant));
  const { ops, firstOp } = cx;
  const steps = tableMachine(table(cx), copy);
  // Each op as the model's input, made once (the monitor keys on them).
  const invocations: Invocation[] = ops.map((op, o) => ({ client: o, input: { f: op.f, key: op.k, value: op.arg } }));
  // B4's return trip: each action marked as enabled with the roles swapped, one twin per action (guards keep theirs)
  const twins = new Map<ShadowfaxAction, ShadowfaxAction>();
  const twin = (a: ShadowfaxAction) => {
    let b = twins.get(a);
    if (b === undefined) twins.set(a, (b = swappedTwin(a)));
    return b;
  };
  return {
    init: () => [initial(cx)],
    actions: config.roundTrip
      ? (s) => {
          const out = steps.actions(s);
          if (s.swapped) for (let i = 0; i < out.length; i++) out[i] = twin(out[i]);
          return out;
        }
      : steps.actions,
    next: steps.next,
    invariants: invariants(cx),
    encode: encodeState,
    mayStop: done.bind(undefined, cx),
    // with rollback and CPR replay an acknowledgement is no durability promise (§4.4):
    // crash configs are checked by their invariants, not by the history
    history: cx.crashes ? undefined : clientHistory<State, ShadowfaxAction>({
      model: shadowfaxKv(cx.keys.map((d) => initialValue(d))),
      // a client thread's pipelined ops are concurrent (§3.7), so each op is its own history client
      clients: ops.length,
      invoked: invoked.bind(undefined, invocations, firstOp),
      pending,
      output,
    }),
    // L1-L5 (§4.5): an op answered, or the migration decided (committed or cancelled). Phases
    // only move forward, so only request traffic can cycle: the livelock search looks for a
    // fair reject-retry loop in which nothing is answered (L4).
    progress: (before, _a, after) => after.status.some((x, o) => x === 2 && before.status[o] !== 2) || (decided(after) && !decided(before)),
    fairness,
    actor: (a) => actor(cx, a),
  };
}
