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
  /** canonical encodings `state|mask|out,out,...`, sorted */
  cfgs: string[];
  /** why the set became empty */
  bad: string;
}

const NO_OUT = -9;

interface Cfg {
  s: number;
  mask: number;
  outs: number[];
}

const enc = (c: Cfg): string => `${c.s}|${c.mask}|${c.outs.join(',')}`;
function dec(x: string): Cfg {
  const [s, mask, outs] = x.split('|');
  return { s: Number(s), mask: Number(mask), outs: outs === '' ? [] : outs.split(',').map(Number) };
}

export function monInit(model: SlotModel): Mon {
  return { ops: [], cfgs: [`${model.init}|0|`], bad: '' };
}

function close(model: SlotModel, ops: MonOp[], cfgs: Iterable<string>): string[] {
  const seen = new Set<string>(cfgs);
  const work = [...seen];
  while (work.length > 0) {
    const cfg = dec(work.pop()!);
    for (let i = 0; i < ops.length; i++) {
      if (cfg.mask & (1 << i)) continue;
      const [s, out] = model.apply(cfg.s, ops[i]);
      const outs = cfg.outs.slice();
      outs[i] = ops[i].x ? NO_OUT : out;
      const e = enc({ s, mask: cfg.mask | (1 << i), outs });
      if (!seen.has(e)) {
        seen.add(e);
        work.push(e);
      }
    }
  }
  return [...seen].sort();
}

/** Removes operation i from every configuration (its bit and output). */
function drop(cfgs: Cfg[], i: number): string[] {
  const out = new Set<string>();
  for (const c of cfgs) {
    const low = c.mask & ((1 << i) - 1);
    const high = (c.mask >> (i + 1)) << i;
    const outs = c.outs.slice();
    outs.splice(i, 1);
    out.add(enc({ s: c.s, mask: low | high, outs }));
  }
  return [...out].sort();
}

export function monInvoke(model: SlotModel, m: Mon, op: MonOp): Mon {
  if (m.bad) return m;
  const ops = [...m.ops, op];
  const cfgs = m.cfgs.map((x) => {
    const c = dec(x);
    return enc({ ...c, outs: [...c.outs, NO_OUT] });
  });
  return { ops, cfgs: close(model, ops, cfgs), bad: '' };
}

export function monReturn(model: SlotModel, m: Mon, client: number, out: number): Mon {
  if (m.bad) return m;
  const i = m.ops.findIndex((o) => o.c === client && !o.x);
  if (i < 0) throw new Error(`monitor: client ${client} returns without a pending operation`);
  const keep = m.cfgs.map(dec).filter((c) => c.mask & (1 << i) && c.outs[i] === out);
  const ops = m.ops.filter((_, j) => j !== i);
  if (keep.length === 0) {
    const pending = m.ops.filter((_, j) => j !== i).map((o) => model.describe(o)).join(', ');
    const bad = `no linearization: c${client} ${model.describe(m.ops[i], out)} (pending: ${pending || 'none'})`;
    return { ops, cfgs: [], bad };
  }
  return { ops, cfgs: drop(keep, i), bad: '' };
}

export function monCrash(model: SlotModel, m: Mon, client: number): Mon {
  if (m.bad) return m;
  const i = m.ops.findIndex((o) => o.c === client && !o.x);
  if (i < 0) return m;
  if (model.readOnly(m.ops[i])) {
    return { ops: m.ops.filter((_, j) => j !== i), cfgs: drop(m.cfgs.map(dec), i), bad: '' };
  }
  const ops = m.ops.map((o, j) => (j === i ? { ...o, x: true } : o));
  const cfgs = new Set<string>();
  for (const c of m.cfgs.map(dec)) {
    const outs = c.outs.slice();
    outs[i] = NO_OUT;
    cfgs.add(enc({ ...c, outs }));
  }
  return { ops, cfgs: [...cfgs].sort(), bad: '' };
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
