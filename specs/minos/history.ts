// The client history the explorer checks for linearizability (§4.4 H-Lin): per key a
// read/write register, each write with a unique value (write w writes w+1; a read of the
// initial v0 returns null, the project's convention for "never written"), recorded by the
// kit's client history (specs/kit/history.ts).

import { UNKNOWN, type Model, type Operation } from '../../checkers/lin/types.ts';
import type { HistoryObserver, ObservedEvent } from '../../checkers/explore/types.ts';
import { clientHistory } from '../kit/history.ts';
import type { Cx } from './context.ts';
import { KEY, type MinosAction, type State } from './state.ts';

export interface KvInput {
  f: 'read' | 'write';
  key: string;
  value?: number;
}

/** Registers by key, with numeric values (the kit's KV models take strings): the state is the list of current values, in key order. */
export function keyedRegister(keys: number): Model<(number | null)[], KvInput, number | null> {
  return {
    name: 'minos-keyed-register',
    init: () => Array(keys).fill(null),
    step(state, input, output) {
      const k = KEY.indexOf(input.key);
      if (k < 0) throw new Error(`minos-keyed-register: unknown key ${input.key}`);
      if (input.f === 'read') return { ok: output === UNKNOWN || output === state[k], state };
      const next = state.slice();
      next[k] = input.value ?? null;
      return { ok: true, state: next };
    },
    partition(history: readonly Operation<KvInput, number | null>[]) {
      const parts = new Map<string, Operation<KvInput, number | null>[]>();
      for (const op of history) {
        const part = parts.get(op.input.key) ?? [];
        part.push(op);
        parts.set(op.input.key, part);
      }
      return [...parts.values()];
    },
    hash: (state) => state.reduce((h: number, v) => (Math.imul(h, 31) + (v ?? -1)) | 0, 7),
    equal: (a, b) => a.every((v, i) => v === b[i]),
    describeOperation: (input, output) =>
      input.f === 'write' ? `write(${input.key}, v${input.value})` : `read(${input.key}) -> ${output === UNKNOWN ? '?' : output === null ? 'v0' : `v${output}`}`,
    describeState: (state) => state.map((v, k) => `${KEY[k]}=${v === null ? 'v0' : `v${v}`}`).join(' '),
  };
}

/**
 * Invocations, returns and crashes of client-writes and client-reads ([PERSIST]sc is not a
 * register operation and is not recorded). A client's operation is pending while its
 * thread has not answered it. Post-crash reads (an extra client, the last id) join the
 * history only when `durable` is set: durable linearizability is <Lin, Synch>'s floor under
 * system-level recovery (§4.4); the other models do not promise it. Read through `at`, from
 * either representation of the state (state.ts's objects, synch-words.ts's words).
 */
export function observerOf<S>(cx: Cx, durable: boolean, at: ClientView<S>): HistoryObserver<S, MinosAction> {
  const { cfg, writeOf } = cx;
  const reader = cfg.clients.length;
  const val = (v: number) => (v === 0 ? null : v);
  /**
   * Every client (the crash is full-system), built by push: packed small integers, the kit's
   * `[c]` list's shape. (A list made by `map` is holey, a second shape at the kit's loop over
   * the crashed clients, which threw away its compiled observer: README "Speed, fourteenth
   * pass", issue-minos19.)
   */
  const everyClient: number[] = [];
  for (let c = 0; c < cfg.clients.length; c++) everyClient.push(c);
  const history = clientHistory<S, MinosAction>({
    model: keyedRegister(cfg.keys),
    clients: cfg.clients.length + 1,
    invoked(before, a) {
      if (a.step === 'clientWrite_L4') return { client: a.i, input: { f: 'write', key: KEY[a.k], value: writeOf[a.i][at.cl(before, a.i)] + 1 } };
      if (a.step === 'read') return { client: a.i, input: { f: 'read', key: KEY[a.k] } };
      if (a.step === 'recoveredRead' && durable) return { client: reader, input: { f: 'read', key: KEY[a.k] } };
      return null;
    },
    crashed: (_before, a) => (a.step === 'crash' ? everyClient : null),
    pending: (s, c) => c < reader && at.pending(s, c),
    output(_after, c, before, a) {
      if (c === reader) return val(at.val(before, a.i, a.k));
      // a write returns nothing; a read (or M21's split read) the value at its node
      const k = at.writing(before, c) ? -1 : at.threadKey(before, c);
      return k === -1 ? null : val(at.val(before, cfg.clients[c].node, k === -2 ? a.k : k));
    },
  });
  // Most steps record nothing: only the four steps above invoke or crash, and a return
  // changes the returning client's thread or script position, which `at.quiet` tells a
  // step did not write. Such a step is answered at once, without asking every client
  // whether it is pending.
  const observeAll = history.observe;
  history.observe = (before, a, after) =>
    at.quiet(before, a, after) && a.step !== 'clientWrite_L4' && a.step !== 'read' && a.step !== 'recoveredRead' && a.step !== 'crash'
      ? NOTHING
      : observeAll(before, a, after);
  return history;
}

/** What the history reads of a state. */
export interface ClientView<S> {
  /** Client c's script position. */
  cl(s: S, c: number): number;
  /** Client c's register operation is pending (its thread has not answered it). */
  pending(s: S, c: number): boolean;
  /** Client c runs a client-write's thread. */
  writing(s: S, c: number): boolean;
  /** The key of client c's thread (-2: no thread). */
  threadKey(s: S, c: number): number;
  /** The value of key k at node n. */
  val(s: S, n: number, k: number): number;
  /** The step wrote no coordinator thread and no script position. */
  quiet(before: S, a: MinosAction, after: S): boolean;
}

/** The history of the plain machine's states. */
export function observer(cx: Cx, durable: boolean): HistoryObserver<State, MinosAction> {
  return observerOf<State>(cx, durable, {
    cl: (s, c) => s.cl[c],
    pending(s, c) {
      const th = s.co[c];
      return th !== null && th.kind !== 'persist' && !th.resp;
    },
    writing: (s, c) => s.co[c]?.kind === 'write',
    threadKey: (s, c) => s.co[c]?.k ?? -2,
    val: (s, n, k) => s.rec[n][k].val,
    // a step that writes neither shares them with the state before (copy-on-write, state.ts)
    quiet: (before, _a, after) => before.co === after.co && before.cl === after.cl,
  });
}

/** No events (shared: the monitor only reads the list). */
const NOTHING: ObservedEvent[] = [];
