// Linearizability as a state invariant: the set of linearization configurations of the
// history so far, carried in the spec's state and updated on every invoke / return /
// crash. It lets the spec check linearizability at every state with any search engine
// (referenceBfs included); the explorer's own monitor, fed by `history`, checks the same
// history independently.
//
// A configuration is (abstract object state, which pending operations are already
// linearized, and the output each linearized one produced). Configurations are kept
// closed under "linearize one more pending operation", so a return only filters.
// A crashed operation stays pending for ever ("floating"): it may take effect once at any
// later time, or never. A crashed read-only operation is dropped: it has no effect.

/** One sequential object over a slot value (a number). */
export interface SlotModel {
  readonly init: number;
  /** Applies an operation: the next slot value and the output it returns. */
  apply(state: number, op: MonOp): [number, number];
  /** Operations without effect can be dropped when their client crashes. */
  readOnly(op: MonOp): boolean;
  describe(op: MonOp, out?: number): string;
}

/** f: 'write' | 'read' | 'insert' | 'delete' | 'search'; k: key (KV); v: value written. */
export interface MonOp {
  c: number;
  f: string;
  k: number;
  v: number;
  /** the client crashed with this operation pending */
  x: boolean;
}

export interface Mon {
  ops: MonOp[];
  /** configurations [state, linearized mask, output of op 0, op 1, ...], sorted */
  cfgs: number[][];
  /** why the set became empty */
  bad: string;
}

const NO_OUT = -9;
const S = 0;
const MASK = 1;
const OUT = 2;

/** Deduplicated and sorted, so that equal sets are equal states. */
function canonical(cfgs: Iterable<number[]>): number[][] {
  const byKey = new Map<string, number[]>();
  for (const c of cfgs) byKey.set(c.join(','), c);
  return [...byKey.values()].sort((a, b) => {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
    return 0;
  });
}

export function monInit(model: SlotModel): Mon {
  return { ops: [], cfgs: [[model.init, 0]], bad: '' };
}

function close(model: SlotModel, ops: MonOp[], cfgs: number[][]): number[][] {
  const seen = new Map<string, number[]>();
  for (const c of cfgs) seen.set(c.join(','), c);
  const work = [...seen.values()];
  while (work.length > 0) {
    const cfg = work.pop()!;
    for (let i = 0; i < ops.length; i++) {
      if (cfg[MASK] & (1 << i)) continue;
      const [s, out] = model.apply(cfg[S], ops[i]);
      const next = cfg.slice();
      next[S] = s;
      next[MASK] = cfg[MASK] | (1 << i);
      next[OUT + i] = ops[i].x ? NO_OUT : out;
      const key = next.join(',');
      if (!seen.has(key)) {
        seen.set(key, next);
        work.push(next);
      }
    }
  }
  return canonical(seen.values());
}

/** Removes operation i from every configuration (its bit and output). */
function drop(cfgs: number[][], i: number): number[][] {
  return canonical(
    cfgs.map((c) => {
      const mask = c[MASK];
      const next = c.slice();
      next[MASK] = (mask & ((1 << i) - 1)) | ((mask >> (i + 1)) << i);
      next.splice(OUT + i, 1);
      return next;
    }),
  );
}

export function monInvoke(model: SlotModel, m: Mon, op: MonOp): Mon {
  if (m.bad) return m;
  const ops = [...m.ops, op];
  return { ops, cfgs: close(model, ops, m.cfgs.map((c) => [...c, NO_OUT])), bad: '' };
}

export function monReturn(model: SlotModel, m: Mon, client: number, out: number): Mon {
  if (m.bad) return m;
  const i = m.ops.findIndex((o) => o.c === client && !o.x);
  if (i < 0) throw new Error(`monitor: client ${client} returns without a pending operation`);
  const keep = m.cfgs.filter((c) => c[MASK] & (1 << i) && c[OUT + i] === out);
  const ops = m.ops.filter((_, j) => j !== i);
  if (keep.length === 0) {
    const pending = ops.map((o) => model.describe(o)).join(', ');
    const bad = `no linearization: c${client} ${model.describe(m.ops[i], out)} (pending: ${pending || 'none'})`;
    return { ops, cfgs: [], bad };
  }
  return { ops, cfgs: drop(keep, i), bad: '' };
}

export function monCrash(model: SlotModel, m: Mon, client: number): Mon {
  if (m.bad) return m;
  const i = m.ops.findIndex((o) => o.c === client && !o.x);
  if (i < 0) return m;
  if (model.readOnly(m.ops[i])) return { ops: m.ops.filter((_, j) => j !== i), cfgs: drop(m.cfgs, i), bad: '' };
  const ops = m.ops.map((o, j) => (j === i ? { ...o, x: true } : o));
  const cfgs = m.cfgs.map((c) => {
    const next = c.slice();
    next[OUT + i] = NO_OUT;
    return next;
  });
  return { ops, cfgs: canonical(cfgs), bad: '' };
}

/** The register of Def. 1 [L540-547]: initial value x0 = 0, writes of unique values. */
export const registerModel: SlotModel = {
  init: 0,
  apply: (s, op) => (op.f === 'write' ? [op.v, 0] : [s, s]),
  readOnly: (op) => op.f === 'read',
  describe: (op, out) =>
    op.f === 'write' ? `write(${op.v})` : `read() -> ${out === undefined ? '?' : out === 0 ? 'x0' : out}`,
};

/** KV value ids encode their key: key = floor(v / 10); 0 is the empty slot. */
export const keyOf = (v: number): number => Math.floor(v / 10);
export const OUT_OK = 1;
export const OUT_FULL = 2;

/**
 * One RACE bucket slot shared by two keys (§3.3 [L108-113]): INSERT fills it unless
 * another key holds it (then "full": the op did not happen); DELETE empties it if it
 * holds the key; SEARCH returns the key's value or 0 (not found).
 */
export const kvSlotModel: SlotModel = {
  init: 0,
  apply(s, op) {
    const mine = s !== 0 && keyOf(s) === op.k;
    switch (op.f) {
      case 'insert':
        return s === 0 || mine ? [op.v, OUT_OK] : [s, OUT_FULL];
      case 'delete':
        return [mine ? 0 : s, OUT_OK];
      default:
        return [s, mine ? s : 0];
    }
  },
  readOnly: (op) => op.f === 'search',
  describe(op, out) {
    const res = out === undefined ? '' : op.f === 'search' ? ` -> ${out === 0 ? 'not found' : out}` : out === OUT_FULL ? ' -> full' : ' -> ok';
    return op.f === 'insert' ? `insert(K${op.k}, ${op.v})${res}` : `${op.f}(K${op.k})${res}`;
  },
};
