// The sequential objects FUSEE's clients see, for the LIN ghost (kit/object-ghost.ts) and
// for the engine's history (lin Models): the register of Def. 1 and one RACE bucket slot
// shared by two keys (KV level); and how a client operation reads in a history (a
// register read of x0 is null, an insert returns "ok" or "full").

import { UNKNOWN, type Model } from '../../checkers/lin/types.ts';
import type { MonOp, SlotModel } from '../kit/object-ghost.ts';
import type { Op } from './state.ts';

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

/**
 * An op as a history's input. Every input has the three fields, undefined where the op has
 * none (a register op's key, a read's, search's or delete's value): one hidden class for
 * all of them, so that the engine's monitor and the models, which read every input, stay
 * optimized for register and KV ops alike. JSON drops the undefined fields.
 */
export function historyInput(op: Op): { f: string; key?: string; value?: unknown } {
  const key = op.f === 'write' || op.f === 'read' ? undefined : `K${op.k}`;
  const value = op.f === 'write' || op.f === 'insert' ? op.v : undefined;
  return { f: op.f, key, value };
}

export function historyOutput(op: Op, out: number): unknown {
  switch (op.f) {
    case 'read':
      return out === 0 ? null : out;
    case 'search':
      return out === 0 ? null : out;
    case 'insert':
      return out === OUT_FULL ? 'full' : 'ok';
    default:
      return null;
  }
}

export function describeOp(op: Op): string {
  switch (op.f) {
    case 'write':
      return `write ${op.v}`;
    case 'read':
      return 'read';
    case 'insert':
      return `insert K${op.k}=${op.v}`;
    case 'delete':
      return `delete K${op.k}`;
    case 'search':
      return `search K${op.k}`;
  }
}

/** The register of Def. 1 as a lin Model (history values: x0 reads as null). */
export const registerHistoryModel: Model<number | null, { f: string; value?: number }, unknown> = {
  name: 'fusee-register',
  init: () => null,
  step: (s, input, output) =>
    input.f === 'write' ? { ok: true, state: input.value ?? null } : { ok: output === UNKNOWN || output === s, state: s },
  hash: (s) => (s === null ? 0 : s),
};

/** The one-slot KV model of monitor.ts as a lin Model. */
export const kvHistoryModel: Model<number, { f: string; key?: string; value?: number }, unknown> = {
  name: 'fusee-kv-slot',
  init: () => 0,
  step(s, input, output) {
    const op: MonOp = { c: 0, f: input.f, k: Number((input.key ?? 'K0').slice(1)), v: input.value ?? 0, x: false };
    const [next, out] = kvSlotModel.apply(s, op);
    if (output === UNKNOWN) return { ok: true, state: next };
    const expected = op.f === 'search' ? (out === 0 ? null : out) : op.f === 'insert' ? (out === OUT_FULL ? 'full' : 'ok') : null;
    return { ok: expected === output, state: next };
  },
  hash: (s) => s,
};
