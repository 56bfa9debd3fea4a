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
 * system-level recovery (§4.4); the other models do not promise it.
 */
export function observer(cx: Cx, durable: boolean): HistoryObserver<State, MinosAction> {
  const { cfg, writeOf } = cx;
  const reader = cfg.clients.length;
  const val = (v: number) => (v === 0 ? null : v);
  const pending = (s: State, c: number): boolean => {
    const th = c < s.co.length ? s.co[c] : null;
    return th !== null && th.kind !== 'persist' && !th.resp;
  };
  /**
   * Clients 0 .. n - 1 (every client with a thread: the crash is full-system), one list per
   * n, built by push: packed small integers, the kit's `[c]` list's shape. (A list made by
   * `map` is holey, a second shape at the kit's loop over the crashed clients, which threw
   * away its compiled observer: README "Speed, fourteenth pass".)
   */
  const everyone: number[][] = [];
  const everyClient = (n: number): number[] => {
    let list = everyone[n];
    if (list === undefined) {
      list = [];
      for (let c = 0; c < n; c++) list.push(c);
      everyone[n] = list;
    }
    return list;
  };
  const history = clientHistory<State, MinosAction>({
    model: keyedRegister(cfg.keys),
    clients: cfg.clients.length + 1,
    invoked(before, a) {
      if (a.step === 'clientWrite_L4') return { client: a.i, input: { f: 'write', key: KEY[a.k], value: writeOf[a.i][before.cl[a.i]] + 1 } };
      if (a.step === 'read') return { client: a.i, input: { f: 'read', key: KEY[a.k] } };
      if (a.step === 'recoveredRead' && durable) return { client: reader, input: { f: 'read', key: KEY[a.k] } };
      return null;
    },
    crashed: (before, a) => (a.step === 'crash' ? everyClient(before.co.length) : null),
    pending,
    output(_after, c, before, a) {
      if (c === reader) return val(before.rec[a.i][a.k].val);
      const th = before.co[c];
      const k = th === null ? a.k : th.k;
      return th !== null && th.kind === 'write' ? null : val(before.rec[cfg.clients[c].node][k].val);
    },
  });
  // Most steps record nothing: only the four steps above invoke or crash, and a return
  // changes the returning client's thread (co) or script position (cl), which a step that
  // writes neither shares with the state before (copy-on-write, state.ts). Such a step
  // is answered at once, without asking every client whether it is pending.
  const observeAll = history.observe;
  history.observe = (before, a, after) =>
    before.co === after.co && before.cl === after.cl && a.step !== 'clientWrite_L4' && a.step !== 'read' && a.step !== 'recoveredRead' && a.step !== 'crash'
      ? NOTHING
      : observeAll(before, a, after);
  return history;
}

/** No events (shared: the monitor only reads the list). */
const NOTHING: ObservedEvent[] = [];
