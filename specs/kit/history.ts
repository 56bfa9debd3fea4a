// Client operations and their history, for the engine's linearizability monitor: the
// inputs of the register and KV models (checkers/lin/models), and an observer that turns
// a spec's client state into invoke / return / crash events, so that each spec states
// only when an operation starts, whether it is pending, and what it returned.

import type { Action, HistoryObserver, ObservedEvent } from '../../checkers/explore/types.ts';
import type { Model } from '../../checkers/lin/types.ts';
import type { KvInput } from '../../checkers/lin/models/kv.ts';
import type { RegisterInput } from '../../checkers/lin/models/register.ts';

export { register, kvAppend } from '../../checkers/lin/models/index.ts';

/** Register operations (the `register` model). */
export const registerOp = {
  read: (): RegisterInput => ({ f: 'read' }),
  write: (value: unknown): RegisterInput => ({ f: 'write', value }),
};

/** Key-value operations (the `kv` models: get / put / append, string values). */
export const kvOp = {
  get: (key: string): KvInput => ({ f: 'get', key }),
  put: (key: string, value: string): KvInput => ({ f: 'put', key, value }),
  append: (key: string, value: string): KvInput => ({ f: 'append', key, value }),
};

export interface ClientOps<S, A extends Action> {
  model: Model;
  clients: number;
  /** The operation a invokes (client and input), or null. */
  invoked(before: S, a: A): { client: number; input: unknown } | null;
  /** The client a crashes with an operation pending (or the clients: a full-system crash), or null. */
  crashed?(before: S, a: A): number | readonly number[] | null;
  /** Whether client c has a recorded operation pending in s. */
  pending(s: S, c: number): boolean;
  /**
   * What client c's operation that just completed in `after` returned. The step's `before`
   * and action are given too, for specs whose answer is in the message the step delivers
   * rather than in the state.
   */
  output(after: S, c: number, before: S, a: A): unknown;
}

/**
 * A HistoryObserver from a spec's client state: an invoke when a step starts an operation,
 * a crash when it crashes a client with one pending, and a return for every client whose
 * operation was pending before the step (or started by it) and is not after.
 */
const NO_EVENTS = Object.freeze([]) as unknown as ObservedEvent[];

export function clientHistory<S, A extends Action>(ops: ClientOps<S, A>): HistoryObserver<S, A> {
  return {
    model: ops.model,
    clients: ops.clients,
    // Runs on every transition, most of which record nothing: the list is made only when
    // there is an event (the shared empty one is never changed: the monitor only reads it).
    observe(before, a, after) {
      let out = NO_EVENTS;
      const inv = ops.invoked(before, a);
      if (inv) out = [{ kind: 'invoke', client: inv.client, input: inv.input }];
      const crashed = ops.crashed?.(before, a) ?? null;
      if (crashed !== null) {
        for (const c of typeof crashed === 'number' ? [crashed] : crashed) {
          if (ops.pending(before, c)) (out === NO_EVENTS ? (out = []) : out).push({ kind: 'crash', client: c });
        }
        return out;
      }
      for (let c = 0; c < ops.clients; c++) {
        if (!(ops.pending(before, c) || inv?.client === c) || ops.pending(after, c)) continue;
        (out === NO_EVENTS ? (out = []) : out).push({ kind: 'return', client: c, output: ops.output(after, c, before, a) });
      }
      return out;
    },
  };
}
