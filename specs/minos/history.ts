// The client history the explorer checks for linearizability (§4.4 H-Lin): per key a
// read/write register, each write with a unique value (write w writes w+1; a read of the
// initial v0 returns null, the project's convention for "never written").

import { UNKNOWN, type Model, type Operation } from '../../checkers/lin/types.ts';
import type { HistoryObserver, ObservedEvent } from '../../checkers/explore/types.ts';
import type { MinosAction, Setup } from './machine.ts';
import { KEY, type State } from './state.ts';

export interface KvInput {
  f: 'read' | 'write';
  key: string;
  value?: number;
}

/** Registers by key: the state is the list of current values, in key order. */
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
 * register operation and is not recorded). Post-crash reads (an extra client, the last id)
 * join the history only when `durable` is set: durable linearizability is <Lin, Synch>'s
 * floor under system-level recovery (§4.4); the other models do not promise it.
 */
export function observer(su: Setup, durable: boolean): HistoryObserver<State, MinosAction> {
  const { cfg, writeOf } = su;
  const reader = cfg.clients.length;
  const val = (v: number) => (v === 0 ? null : v);
  return {
    model: keyedRegister(cfg.keys),
    clients: cfg.clients.length + 1,
    observe(before, a, after) {
      const out: ObservedEvent[] = [];
      if (a.f === 'crash') {
        for (let c = 0; c < before.co.length; c++) {
          const th = before.co[c];
          if (th && th.kind !== 'persist' && !th.resp) out.push({ kind: 'crash', client: c });
        }
        return out;
      }
      if (a.f === 'postRead') {
        if (!durable) return out;
        out.push({ kind: 'invoke', client: reader, input: { f: 'read', key: KEY[a.k] } });
        out.push({ kind: 'return', client: reader, output: val(before.rec[a.i][a.k].val) });
        return out;
      }
      if (a.f === 'write') {
        const w = writeOf[a.i][before.cl[a.i]];
        out.push({ kind: 'invoke', client: a.i, input: { f: 'write', key: KEY[a.k], value: w + 1 } });
        return out;
      }
      if (a.f === 'read') {
        out.push({ kind: 'invoke', client: a.i, input: { f: 'read', key: KEY[a.k] } });
        if (after.co[a.i] === null) out.push({ kind: 'return', client: a.i, output: val(before.rec[cfg.clients[a.i].node][a.k].val) });
        return out;
      }
      if (a.f === 'coord') {
        const th = before.co[a.i]!;
        if (th.kind === 'persist' || after.cl[a.i] === before.cl[a.i]) return out;
        const output = th.kind === 'read' ? val(before.rec[cfg.clients[a.i].node][th.k].val) : null;
        out.push({ kind: 'return', client: a.i, output });
      }
      return out;
    },
  };
}
