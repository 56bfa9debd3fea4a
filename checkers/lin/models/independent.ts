// Jepsen's independent keys (jepsen.independent): a history of many keys, each an
// independent instance of a model, checked key by key as Jepsen's independent checker
// does. `independent(model)` partitions by the operation's key (then by the model's own
// partition, if any); linearizability is local (Herlihy & Wing), so the history is
// linearizable iff every key's sub-history is. Its name is `independent:<model>`, which
// also names it in `findModel`, `checkHistory` and worker threads.

import { show } from '../hash.ts';
import { nextOf, stepFrom, UNKNOWN, type Model, type Operation } from '../types.ts';

export const INDEPENDENT_PREFIX = 'independent:';

const cache = new WeakMap<Model, Model>();

function keyOf(op: Operation, name: string): string {
  const key = (op.input as { key?: unknown } | null)?.key;
  if (typeof key !== 'string' && typeof key !== 'number') {
    // The readers refuse such a line themselves (traces/history.ts); an API caller's
    // operation may still carry where it came from.
    const at = op.origin;
    const where = at?.line === undefined ? '' : at.file === undefined ? ` (line ${at.line})` : ` (${at.file}:${at.line})`;
    throw new Error(`${name}: every operation names a key (input.key), not ${show(key)}${where}`);
  }
  return String(key);
}

/** The model applied to each key of a history on its own (the same object for the same model). */
export function independent(base: Model): Model {
  const known = cache.get(base);
  if (known) return known;
  const name = `${INDEPENDENT_PREFIX}${base.name}`;
  const model: Model = {
    name,
    init: () => base.init(),
    step: (state, input, output) => base.step(state, input, output),
    partition(history) {
      const byKey = new Map<string, Operation[]>();
      for (const op of history) {
        const k = keyOf(op, name);
        const list = byKey.get(k);
        if (list) list.push(op);
        else byKey.set(k, [op]);
      }
      return [...byKey.values()].flatMap((ops) => (base.partition ? base.partition(ops) : [ops]));
    },
    describeOperation: (input, output) => {
      const key = (input as { key?: unknown }).key;
      const inner = base.describeOperation?.(input, output) ?? `${show(input)} -> ${output === UNKNOWN ? '?' : show(output)}`;
      return `[${show(key)}] ${inner}`;
    },
  };
  // The base's next only where the searches would call it (nextOf): then the wrapper's step
  // is stepFrom of the wrapper's next, so that the searches call that next too.
  const next = nextOf(base);
  if (next === base.next) {
    model.next = (state, input, output) => next.call(base, state, input, output);
    model.step = stepFrom(model.next);
  }
  if (base.hash) model.hash = (s) => base.hash!(s);
  if (base.equal) model.equal = (a, b) => base.equal!(a, b);
  if (base.describeState) model.describeState = (s) => base.describeState!(s);
  if (base.failedOutput) model.failedOutput = (input) => base.failedOutput!(input);
  if (base.readOnly) model.readOnly = (input, output) => base.readOnly!(input, output);
  if (base.conditional) model.conditional = (input, output) => base.conditional!(input, output);
  cache.set(base, model);
  return model;
}
