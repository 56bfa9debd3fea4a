// Test helper only: the plainest possible linearizability check, to hold the WGL search
// to. It enumerates every order of the operations consistent with real time (an
// operation may come next when no unplaced determinate operation returned before its
// call), lets indeterminate operations come anywhere after their call or not at all, and
// steps the model along each order. No memo, no pruning beyond an illegal step.

import { UNKNOWN, type Model, type NondeterministicModel, type Operation } from './types.ts';

export interface BruteForceAnswer {
  linearizable: boolean;
  /** Orders tried (complete or cut short by an illegal step). */
  orders: number;
}

export function bruteForce(model: Model, history: readonly Operation[]): BruteForceAnswer {
  return bruteForceNondeterministic(
    {
      name: model.name,
      init: () => [model.init()],
      step: (s, input, output) => {
        const r = model.step(s, input, output);
        return r.ok ? [r.state] : [];
      },
    },
    history,
  );
}

export function bruteForceNondeterministic(model: NondeterministicModel, history: readonly Operation[]): BruteForceAnswer {
  const n = history.length;
  const placed = new Array<boolean>(n).fill(false);
  let orders = 0;

  const mayComeNext = (o: number): boolean => {
    for (let p = 0; p < n; p++) {
      const r = history[p].ret;
      if (p !== o && !placed[p] && r !== undefined && r < history[o].call) return false;
    }
    return true;
  };
  const allDeterminatePlaced = (): boolean => history.every((op, i) => placed[i] || op.ret === undefined);

  const extend = (state: unknown): boolean => {
    if (allDeterminatePlaced()) {
      orders++;
      return true;
    }
    for (let o = 0; o < n; o++) {
      if (placed[o] || !mayComeNext(o)) continue;
      const op = history[o];
      const successors = model.step(state, op.input, op.ret === undefined ? UNKNOWN : op.output);
      if (successors.length === 0) {
        orders++;
        continue;
      }
      placed[o] = true;
      for (const s of successors) {
        if (extend(s)) {
          placed[o] = false;
          return true;
        }
      }
      placed[o] = false;
    }
    return false;
  };

  const linearizable = model.init().some((s) => extend(s));
  return { linearizable, orders };
}

/** Whether `order` is a linearization of `history`: real time respected, every step legal. */
export function isLinearization(model: Model, history: readonly Operation[], order: readonly number[]): boolean {
  const seen = new Set(order);
  if (seen.size !== order.length) return false;
  for (let i = 0; i < history.length; i++) if (history[i].ret !== undefined && !seen.has(i)) return false;
  for (let a = 0; a < order.length; a++) {
    for (let b = a + 1; b < order.length; b++) {
      const ret = history[order[b]].ret;
      if (ret !== undefined && ret < history[order[a]].call) return false;
    }
  }
  // An unplaced indeterminate operation never took effect: nothing to check for it.
  let s = model.init();
  for (const i of order) {
    const op = history[i];
    const r = model.step(s, op.input, op.ret === undefined ? UNKNOWN : op.output);
    if (!r.ok) return false;
    s = r.state;
  }
  return true;
}
