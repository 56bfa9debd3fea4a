// A FIFO queue (Knossos's fifo-queue): enqueue v; dequeue returns the oldest value, or
// null when the queue is empty.

import { fmix32, hashValue, show, valueEqual } from '../hash.ts';
import { UNKNOWN, type Model, type Operation } from '../types.ts';

export interface QueueInput {
  f: 'enqueue' | 'dequeue';
  value?: unknown;
}

/** The queue's contents, oldest first, with its hash kept alongside. */
export interface QueueState {
  items: readonly unknown[];
  hash: number;
}

function hashItems(items: readonly unknown[]): number {
  let h = items.length;
  for (const x of items) h = (Math.imul(h, 0x01000193) + hashValue(x)) | 0;
  return fmix32(h);
}

/**
 * Crashed enqueues of a value no dequeue returned. Such a value, if it was enqueued, was
 * never at the head when a dequeue with a known output ran; removing it, and the crashed
 * dequeue that may have taken it, leaves every other dequeue its result.
 */
function unobserved(history: readonly Operation<QueueInput, unknown>[]): boolean[] {
  const returned = new Map<number, unknown[]>();
  for (const op of history) {
    if (op.ret === undefined || op.input.f !== 'dequeue' || op.output === null) continue;
    const h = hashValue(op.output);
    const b = returned.get(h);
    if (b === undefined) returned.set(h, [op.output]);
    else b.push(op.output);
  }
  return history.map(
    (op) => op.ret === undefined && op.input.f === 'enqueue' && returned.get(hashValue(op.input.value))?.some((v) => valueEqual(v, op.input.value)) !== true,
  );
}

const EMPTY: QueueState = { items: [], hash: hashItems([]) };

export const queue: Model<QueueState, QueueInput, unknown> = {
  name: 'queue',
  init: () => EMPTY,
  step(q, input, output) {
    if (input.f === 'enqueue') {
      const items = [...q.items, input.value];
      return { ok: true, state: { items, hash: hashItems(items) } };
    }
    if (input.f === 'dequeue') {
      if (q.items.length === 0) return { ok: output === UNKNOWN || output === null, state: q };
      if (output !== UNKNOWN && !valueEqual(output, q.items[0])) return { ok: false, state: q };
      const items = q.items.slice(1);
      return { ok: true, state: { items, hash: hashItems(items) } };
    }
    throw new Error(`queue: unknown operation ${show((input as { f: unknown }).f)}`);
  },
  // A dequeue that saw an empty queue changes nothing.
  readOnly: (input, output) => input.f === 'dequeue' && output === null,
  unobserved,
  hash: (q) => q.hash,
  equal: (a, b) => a.hash === b.hash && valueEqual(a.items, b.items),
  describeOperation: (input, output) =>
    input.f === 'enqueue'
      ? `enqueue(${show(input.value)})${output === UNKNOWN ? ' -> ?' : ''}`
      : `dequeue() -> ${output === UNKNOWN ? '?' : show(output)}`,
  describeState: (q) => `[${q.items.map(show).join(', ')}]`,
};
