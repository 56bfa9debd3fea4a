// The sequential store Shadowfax clients see (§4.4 of the extraction): read returns the
// value or NOT_FOUND (null), upsert overwrites, RMW adds its delta to the old value (or 0).
import { UNKNOWN, type Model, type Operation } from '../../checkers/lin/types.ts';

export interface KvInput {
  f: 'read' | 'upsert' | 'rmw';
  key: number;
  value: number;
}

type Store = readonly (number | null)[];

/** `initial`: each key's value before the run (null: NOT_FOUND). */
export function shadowfaxKv(initial: readonly (number | null)[]): Model<Store, KvInput, number | null> {
  return {
    name: 'shadowfax-kv',
    init: () => initial.slice(),
    step(state, input, output) {
      const old = state[input.key];
      if (input.f === 'read') return { ok: output === UNKNOWN || output === old, state };
      const next = state.slice();
      next[input.key] = input.f === 'upsert' ? input.value : (old ?? 0) + input.value;
      return { ok: true, state: next };
    },
    partition(history: readonly Operation<KvInput, number | null>[]) {
      const byKey = new Map<number, Operation<KvInput, number | null>[]>();
      for (const op of history) byKey.set(op.input.key, [...(byKey.get(op.input.key) ?? []), op]);
      return [...byKey.values()];
    },
    hash: (state) => state.reduce<number>((h, v) => Math.imul(h ^ (v === null ? -1 : v), 0x9e3779b1) | 0, 17),
    equal: (a, b) => a.every((v, i) => v === b[i]),
    describeOperation: (input, output) =>
      `${input.f}(k${input.key}${input.f === 'read' ? '' : `, ${input.value}`})${input.f === 'read' ? ` → ${output === UNKNOWN ? '?' : (output ?? 'NOT_FOUND')}` : ''}`,
    describeState: (state) => state.map((v, k) => `k${k}=${v ?? '∅'}`).join(' '),
  };
}
