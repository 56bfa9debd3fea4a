// A just-in-time linearizability monitor for one sequential object whose state is a number
// (a register, a slot of a KV store), kept as ghost state in the explored state, so that
// linearizability is a state invariant every search engine checks (referenceBfs included),
// and a run can check it alone beside white-box invariants; the engine's own monitor, fed
// by the spec's `history`, checks the same history independently. The object is the
// spec's (`SlotModel`: its initial state, what an operation does and returns): fusee's
// register and KV slot, swarm's register (`registerSlot`, SG-Lin). For a store of
// independent keys, keep one per key.
//
// A configuration is (abstract object state, which pending operations are already
// linearized, and the output each linearized one produced). Configurations are kept
// closed under "linearize one more pending operation", so a return only filters.
// A crashed operation stays pending for ever ("floating"): it may take effect once at any
// later time, or never. A crashed read-only operation is dropped: it has no effect.
// Pending operations are kept in invocation order, or (`SlotModel.byClient`) in client
// order, for specs whose clients have one operation pending at a time: concurrent pending
// operations may be linearized in any order anyway, so the two hold the same information,
// and client order makes equal monitors equal data whatever order the operations came in.
// Configurations are closed when an operation is invoked (fusee), or, with
// `closeAtReturn`, only when one returns (swarm's register, as its ghost always did: the
// monitor is part of the explored state, so how it is kept decides the state counts).

/** One sequential object over a slot value (a number). */
export interface SlotModel {
  readonly init: number;
  /** Applies an operation: the next slot value and the output it returns. */
  apply(state: number, op: MonOp): [number, number];
  /** Operations without effect can be dropped when their client crashes. */
  readOnly(op: MonOp): boolean;
  describe(op: MonOp, out?: number): string;
  /** Keep pending operations in client order (one pending per client), not invocation order. */
  readonly byClient?: boolean;
  /**
   * Close the configurations when an operation returns (the only time they are filtered),
   * not when one is invoked: the same verdicts, but a monitor then also remembers the
   * configurations of its last return, so equal histories may give more distinct monitors.
   */
  readonly closeAtReturn?: boolean;
}

/**
 * A multi-writer register with initial value 0 (⊥) and unique written values v > 0, kept
 * by client (swarm's SG-Lin): a write returns 0, a read the value.
 */
export const registerSlot: SlotModel = {
  init: 0,
  apply: (s, op) => (op.f === 'write' ? [op.v, 0] : [s, s]),
  readOnly: (op) => op.f === 'read',
  describe: (op, out) => (op.f === 'write' ? `write(v${op.v})` : `read() -> ${out === undefined ? '?' : out === 0 ? '⊥' : `v${out}`}`),
  byClient: true,
  closeAtReturn: true,
};

/** An operation: its client, its function (the model's: fusee's 'write', 'read', 'insert', ...), key (KV) and value written. */
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

// Monitors are immutable and many states hold equal ones: equal monitors are made one
// object (interned by their content, per model), and each (monitor, event) is worked out
// once. Pure caching: the monitors returned are the ones the plain functions compute.
// An interned monitor keeps its successors under a symbol (no encoding, JSON or equality
// sees it; a Map can still be filled once its holder is frozen); others, such as
// monInit's, in a weak map. Events are keyed by a number where their fields are small
// integers (the common case), else by a string.
const MEMO_LIMIT = 100_000;
const AFTER = Symbol('monitor successors by event');

interface Memo {
  interned: Map<string, Mon>;
  after: WeakMap<Mon, Map<number | string, Mon>>;
}
const memos = new WeakMap<SlotModel, Memo>();

const opKey = (o: MonOp): string => `${o.c},${o.f},${o.k},${o.v},${o.x ? 1 : 0}`;

/** Distinct operation names (`MonOp.f`), numbered for event keys. */
const fIds = new Map<string, number>();

// kind (0 invoke, 1 return, 2 crash) + 4 * (client + 1024 * payload): injective for
// integer payloads, clients below 1024, and exact while the payload is below 2^40.
const smallClient = (c: number): boolean => Number.isInteger(c) && c >= 0 && c < 1024;
const eventNumber = (kind: number, c: number, payload: number): number => kind + 4 * (c + 1024 * payload);

function invokeKey(o: MonOp): number | string {
  let f = fIds.get(o.f);
  if (f === undefined && fIds.size < 64) fIds.set(o.f, (f = fIds.size));
  // payload: x (1 bit), f (6 bits), k (10 bits), v + 2^19 (20 bits)
  if (f !== undefined && smallClient(o.c) && Number.isInteger(o.k) && o.k >= 0 && o.k < 1024 && Number.isInteger(o.v) && o.v >= -(1 << 19) && o.v < 1 << 19) {
    return eventNumber(0, o.c, (o.x ? 1 : 0) + 2 * (f + 64 * (o.k + 1024 * (o.v + (1 << 19)))));
  }
  return `i${opKey(o)}`;
}

const returnKey = (c: number, out: number): number | string =>
  smallClient(c) && Number.isInteger(out) && Math.abs(out) < 2 ** 39 ? eventNumber(1, c, out) : `r${c},${out}`;

const crashKey = (c: number): number | string => (smallClient(c) ? eventNumber(2, c, 0) : `c${c}`);

function memo(model: SlotModel, m: Mon, event: number | string, work: (model: SlotModel, m: Mon, a: MonOp | number, b: number) => Mon, a: MonOp | number, b: number): Mon {
  let mm = memos.get(model);
  if (!mm) memos.set(model, (mm = { interned: new Map(), after: new WeakMap() }));
  let known = (m as { [AFTER]?: Map<number | string, Mon> })[AFTER] ?? mm.after.get(m);
  const hit = known?.get(event);
  if (hit) return hit;
  let next = work(model, m, a, b);
  const k = `${next.ops.map(opKey).join(';')}|${next.cfgs.join(';')}|${next.bad}`;
  const same = mm.interned.get(k);
  if (same) next = same;
  else {
    if (mm.interned.size >= MEMO_LIMIT) mm.interned.clear();
    if (Object.isExtensible(next)) Object.defineProperty(next, AFTER, { value: new Map() });
    mm.interned.set(k, next);
  }
  if (!known) mm.after.set(m, (known = new Map()));
  known.set(event, next);
  return next;
}

export const monInvoke = (model: SlotModel, m: Mon, op: MonOp): Mon => memo(model, m, invokeKey(op), invoke, op, 0);

export const monReturn = (model: SlotModel, m: Mon, client: number, out: number): Mon => memo(model, m, returnKey(client, out), ret, client, out);

export const monCrash = (model: SlotModel, m: Mon, client: number): Mon => memo(model, m, crashKey(client), crash, client, 0);

function invoke(model: SlotModel, m: Mon, op: MonOp | number): Mon {
  if (m.bad) return m;
  const o = op as MonOp;
  let at = m.ops.length;
  if (model.byClient) while (at > 0 && m.ops[at - 1].c > o.c) at--;
  if (at === m.ops.length) {
    const ops = [...m.ops, o];
    const cfgs = m.cfgs.map((c) => [...c, NO_OUT]);
    return { ops, cfgs: model.closeAtReturn ? cfgs : close(model, ops, cfgs), bad: '' };
  }
  // Inserted at `at`: its output slot and mask bit go in there, later ones move up.
  const ops = [...m.ops.slice(0, at), o, ...m.ops.slice(at)];
  const low = (1 << at) - 1;
  const cfgs = m.cfgs.map((c) => {
    const next = c.slice();
    next.splice(OUT + at, 0, NO_OUT);
    next[MASK] = (c[MASK] & low) | ((c[MASK] & ~low) << 1);
    return next;
  });
  return { ops, cfgs: model.closeAtReturn ? canonical(cfgs) : close(model, ops, cfgs), bad: '' };
}

function ret(model: SlotModel, m: Mon, client: MonOp | number, out: number): Mon {
  if (m.bad) return m;
  const i = m.ops.findIndex((o) => o.c === client && !o.x);
  if (i < 0) throw new Error(`monitor: client ${client} returns without a pending operation`);
  const cfgs = model.closeAtReturn ? close(model, m.ops, m.cfgs) : m.cfgs;
  const keep = cfgs.filter((c) => c[MASK] & (1 << i) && c[OUT + i] === out);
  const ops = m.ops.filter((_, j) => j !== i);
  if (keep.length === 0) {
    const pending = ops.map((o) => model.describe(o)).join(', ');
    const bad = `no linearization: c${client} ${model.describe(m.ops[i], out)} (pending: ${pending || 'none'})`;
    return { ops, cfgs: [], bad };
  }
  return { ops, cfgs: drop(keep, i), bad: '' };
}

function crash(model: SlotModel, m: Mon, client: MonOp | number): Mon {
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
