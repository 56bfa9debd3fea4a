// H1 (extraction §4.3): every key is a register, initially absent. PUT(k,x) writes x,
// DEL(k) writes absent, GET(k) returns the current value (null when absent). ROWAN-KV
// has no conditional operations, so keys are independent and the history is checked per
// key (partition).
import type { Model, Operation, StepResult } from '../../checkers/lin/types.ts';
import { UNKNOWN } from '../../checkers/lin/types.ts';

export interface KvInput {
  f: 'put' | 'del' | 'get';
  key: string;
  value?: number;
}

/** The register values by key; a missing key is absent. */
type KvState = Readonly<Record<string, number>>;

function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

function encode(s: KvState): string {
  return Object.keys(s)
    .sort()
    .map((k) => `${k}=${s[k]}`)
    .join(',');
}

export const rowanKvModel: Model<KvState, KvInput, number | null> = {
  name: 'rowan-kv',
  init: () => Object.create(null) as KvState,
  step(state, input, output): StepResult<KvState> {
    const current = input.key in state ? state[input.key] : null;
    if (input.f === 'get') return { ok: output === UNKNOWN || output === current, state };
    const next: Record<string, number> = Object.assign(Object.create(null), state);
    if (input.f === 'put') next[input.key] = input.value as number;
    else delete next[input.key];
    return { ok: true, state: next };
  },
  partition(history: readonly Operation<KvInput, number | null>[]) {
    const byKey = new Map<string, Operation<KvInput, number | null>[]>();
    for (const op of history) {
      const list = byKey.get(op.input.key) ?? [];
      list.push(op);
      byKey.set(op.input.key, list);
    }
    return [...byKey.values()];
  },
  hash: (s) => hashString(encode(s)),
  equal: (a, b) => encode(a) === encode(b),
  describeOperation(input, output) {
    const out = output === UNKNOWN ? '?' : output === null ? 'absent' : String(output);
    if (input.f === 'put') return `put(${input.key}, ${input.value})`;
    if (input.f === 'del') return `del(${input.key})`;
    return `get(${input.key}) -> ${out}`;
  },
  describeState: (s) => `{${encode(s)}}`,
};
