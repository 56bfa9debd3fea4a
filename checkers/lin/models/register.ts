// Registers as Knossos models them (knossos.model: register, cas-register), and the etcd
// register of the Jepsen logs (../shared/corpora/README.md). The register starts as null
// (nil: never written).

import { hashValue, show, valueEqual, ValueMap } from '../hash.ts';
import { ILLEGAL, stepFrom, UNKNOWN, type Model, type Operation, type Refutation, type Unknown } from '../types.ts';

export interface RegisterInput {
  f: 'read' | 'write' | 'cas';
  value?: unknown;
}

/**
 * The register's step as Model.next: a state is the value itself, so a legal step makes
 * nothing (a read or a failed cas returns the state, a write its input's value).
 */
function next(name: string, allowCas: boolean) {
  return (state: unknown, input: RegisterInput, output: unknown): unknown => {
    switch (input.f) {
      case 'read':
        // === first: a call into valueEqual only when it can still differ, for an object or
        // NaN (a first check runs this in V8's interpreter, where each call costs, and
        // valueEqual's own for a primitive calls Number.isNaN; RESULTS-issue21.md, lin-10e).
        return output === UNKNOWN || output === state || ((typeof output === 'object' || output !== output) && valueEqual(state, output)) ? state : ILLEGAL;
      case 'write':
        // A missing value is refused, not written as undefined (which no read could return:
        // the write would be judged, wrongly, against the reads of its value).
        if (input.value === undefined) throw new Error(`${name}: write expects a value, got undefined (null is the register's initial value)`);
        return input.value;
      case 'cas': {
        if (!allowCas) break;
        const pair = input.value;
        if (!Array.isArray(pair) || pair.length !== 2 || pair[0] === undefined || pair[1] === undefined) {
          throw new Error(`${name}: cas expects value [from, to], got ${show(pair)}`);
        }
        const from = pair[0];
        const holds = state === from || ((typeof from === 'object' || from !== from) && valueEqual(state, from));
        // output false: the cas definitely failed, so the register did not hold `from`.
        if (output === false) return holds ? ILLEGAL : state;
        return holds ? pair[1] : ILLEGAL;
      }
    }
    throw new Error(`${name}: unknown operation ${show(input.f)}`);
  };
}

function describeOperation(input: RegisterInput, output: unknown | Unknown): string {
  const out = output === UNKNOWN ? ' -> ?' : '';
  switch (input.f) {
    case 'read':
      return `read() -> ${output === UNKNOWN ? '?' : show(output)}`;
    case 'write':
      return `write(${show(input.value)})${out}`;
    case 'cas': {
      const [from, to] = Array.isArray(input.value) ? input.value : [undefined, undefined];
      const res = output === UNKNOWN ? '?' : output === false ? 'failed' : 'ok';
      return `cas(${show(from)}, ${show(to)}) -> ${res}`;
    }
    default:
      return `${String((input as { f: unknown }).f)}(${show(input.value)})`;
  }
}

/**
 * Crashed writes and cas whose value nothing could have read. A value x is observed by a
 * read that returned x, a cas from x that succeeded, a failed cas from anything but x (the
 * register must not have held `from`), and an indeterminate cas from x that is itself
 * kept (it may have taken effect only over x). Removing an unobserved write and the
 * unobserved operations after it leaves every other operation reading what it read: in a
 * linearization, between the write and the next one, nothing but writes can come.
 */
function unobserved(history: readonly Operation<RegisterInput, unknown>[]): boolean[] {
  const out = new Array<boolean>(history.length).fill(false);
  const pending: number[] = [];
  for (let i = 0; i < history.length; i++) {
    const op = history[i];
    if (op.ret === undefined && (op.input.f === 'write' || op.input.f === 'cas')) pending.push(i);
  }
  // Only crashed reads: nothing to drop, and no value to look at.
  if (pending.length === 0) return out;
  const seen = new ValueSet();
  const failedFrom = new ValueSet();
  for (let i = 0; i < history.length; i++) {
    const op = history[i];
    if (op.ret === undefined) continue;
    const { f, value } = op.input;
    if (f === 'read') seen.add(op.output);
    else if (f === 'cas' && Array.isArray(value)) (op.output === false ? failedFrom : seen).add(value[0]);
  }
  for (const i of pending) out[i] = true;
  // Kept cas read their `from`, which may keep more: repeat until nothing changes.
  for (let changed = true; changed; ) {
    changed = false;
    for (const i of pending) {
      if (!out[i]) continue;
      const { f, value } = history[i].input;
      const x = f === 'write' ? value : Array.isArray(value) ? value[1] : undefined;
      // Observed: read, or some failed cas needed the register not to hold it.
      if (!(seen.has(x) || failedFrom.size > 1 || (failedFrom.size === 1 && !failedFrom.has(x)))) continue;
      out[i] = false;
      changed = true;
      if (f === 'cas' && Array.isArray(value)) seen.add(value[0]);
    }
  }
  return out;
}

/**
 * A read of a value no write could have put there by the read's return: no write of it,
 * nor a cas to it that did not fail, called by then (the register starts as null, which
 * every read may see). The read with the earliest return is refuted.
 */
function refute(history: readonly Operation<RegisterInput, unknown>[]): Refutation | undefined {
  // Per value written, the earliest call of an operation that may write it.
  const firstWrite = new ValueMap<number>();
  for (let i = 0; i < history.length; i++) {
    const op = history[i];
    const { f, value } = op.input;
    let x: unknown;
    if (f === 'write') x = value;
    else if (f === 'cas' && Array.isArray(value) && value.length === 2 && op.output !== false) x = value[1];
    else continue;
    const c = firstWrite.get(x);
    if (c === undefined || op.call < c) firstWrite.set(x, op.call);
  }
  let found: number | undefined;
  for (let i = 0; i < history.length; i++) {
    const op = history[i];
    if (op.ret === undefined || op.input.f !== 'read' || op.output === null) continue;
    const c = firstWrite.get(op.output);
    if (c !== undefined && c <= op.ret) continue;
    if (found === undefined || op.ret < history[found].ret!) found = i;
  }
  if (found === undefined) return undefined;
  const op = history[found];
  const c = firstWrite.get(op.output);
  return { operation: found, why: c === undefined ? `no operation writes ${show(op.output)}` : `the first operation that writes ${show(op.output)} is called at ${c}, after the read's return` };
}

/** Values compared structurally (hash.ts valueEqual). */
class ValueSet {
  private readonly values = new ValueMap<true>();
  size = 0;

  add(v: unknown): void {
    if (this.values.get(v) !== undefined) return;
    this.values.set(v, true);
    this.size++;
  }

  has(v: unknown): boolean {
    return this.values.get(v) !== undefined;
  }
}

function base(name: string, allowCas: boolean): Model<unknown, RegisterInput, unknown> {
  const nextState = next(name, allowCas);
  return {
    name,
    init: () => null,
    noKeys: true,
    step: stepFrom(nextState),
    next: nextState,
    hash: hashValue,
    equal: valueEqual,
    describeOperation,
    describeState: (s) => show(s),
    readOnly: (input, output) => input.f === 'read' || (allowCas && input.f === 'cas' && output === false),
    // A cas that succeeded fits only where the register holds `from` (a failed one is read-only).
    ...(allowCas ? { conditional: (input: RegisterInput, output: unknown) => input.f === 'cas' && output !== false } : {}),
    unobserved,
    refute,
  };
}

/** read / write; a read returns the last value written, or null. */
export const register = base('register', false);

/** Knossos's cas-register: read / write / cas; failed operations did not happen. */
export const casRegister = base('cas-register', true);

/**
 * The etcd register of the Jepsen logs: as cas-register, but a failed cas is a definite
 * outcome (the register did not hold `from`), recorded with output false.
 */
export const etcdCasRegister: Model<unknown, RegisterInput, unknown> = {
  ...base('etcd-cas-register', true),
  failedOutput: (input) => (input.f === 'cas' ? false : undefined),
};
