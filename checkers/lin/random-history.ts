// Test helper only: random small concurrent histories for the property tests. Clients
// run operations one at a time; each operation takes effect at a random moment between
// its call and its return on a plain simulation of the object, so most histories are
// linearizable; a few outputs are then corrupted, and some operations become
// indeterminate (they may or may not have taken effect, and their output is lost).

import fc from 'fast-check';
import type { Operation } from './types.ts';

export type Family = 'register' | 'cas-register' | 'kv' | 'queue';

interface Simulation {
  input(pick: number): { f: string; key?: string; value?: unknown };
  /** Apply the input to the simulated object; return its output. */
  effect(input: { f: string; key?: string; value?: unknown }): unknown;
  /** A plausible wrong output. */
  corrupt(input: { f: string; key?: string; value?: unknown }, output: unknown, pick: number): unknown;
}

function simulation(family: Family, keys: number): Simulation {
  switch (family) {
    case 'register':
    case 'cas-register': {
      let v: unknown = null;
      const values = [0, 1, 2];
      return {
        input(pick) {
          const kinds = family === 'register' ? 2 : 3;
          const f = ['read', 'write', 'cas'][pick % kinds];
          if (f === 'read') return { f };
          if (f === 'write') return { f, value: values[(pick >> 2) % 3] };
          return { f, value: [[null, ...values][(pick >> 2) % 4], values[(pick >> 4) % 3]] };
        },
        effect(input) {
          if (input.f === 'read') return v;
          if (input.f === 'write') {
            v = input.value;
            return null;
          }
          const [from, to] = input.value as [unknown, unknown];
          if (v !== from) return false;
          v = to;
          return true;
        },
        corrupt(input, output, pick) {
          if (input.f === 'read') return [null, 0, 1, 2].filter((x) => x !== output)[pick % 3];
          if (input.f === 'cas') return !output;
          return output;
        },
      };
    }
    case 'kv': {
      const m = new Map<string, string>();
      return {
        input(pick) {
          const key = String((pick >> 2) % keys);
          const f = ['get', 'put', 'append', 'get'][pick % 4];
          return f === 'get' ? { f, key } : { f, key, value: `x${(pick >> 4) % 3}` };
        },
        effect(input) {
          const key = input.key!;
          if (input.f === 'get') return m.get(key) ?? '';
          m.set(key, input.f === 'put' ? (input.value as string) : (m.get(key) ?? '') + (input.value as string));
          return null;
        },
        corrupt(input, output, pick) {
          return input.f === 'get' ? ['', 'x0', 'x1', 'x0x1'].filter((x) => x !== output)[pick % 3] : output;
        },
      };
    }
    case 'queue': {
      const q: unknown[] = [];
      return {
        input(pick) {
          return pick % 2 === 0 ? { f: 'enqueue', value: (pick >> 1) % 3 } : { f: 'dequeue' };
        },
        effect(input) {
          if (input.f === 'enqueue') {
            q.push(input.value);
            return null;
          }
          return q.length === 0 ? null : q.shift();
        },
        corrupt(input, output, pick) {
          return input.f === 'dequeue' ? [null, 0, 1, 2].filter((x) => x !== output)[pick % 3] : output;
        },
      };
    }
  }
}

export interface HistoryPlan {
  clients: number;
  /** Each step: which client moves, and a random number for its choices. */
  steps: { client: number; pick: number }[];
  corruptEvery: number;
  keys: number;
  /** Steps per clock tick: above 1, calls and returns share timestamps (closed intervals). */
  tick: number;
}

export function historyPlan(maxOps = 10): fc.Arbitrary<HistoryPlan> {
  return fc.record({
    clients: fc.integer({ min: 1, max: 4 }),
    steps: fc.array(fc.record({ client: fc.nat(3), pick: fc.nat(1 << 16) }), { minLength: 1, maxLength: maxOps * 3 }),
    corruptEvery: fc.integer({ min: 2, max: 6 }),
    keys: fc.integer({ min: 1, max: 3 }),
    tick: fc.integer({ min: 1, max: 3 }),
  });
}

/**
 * Play the plan: a client without an operation calls one; then it takes effect (or, for
 * a few, never); then it returns, or becomes indeterminate. At most `maxOps` operations.
 */
export function buildHistory(family: Family, plan: HistoryPlan, maxOps = 10): Operation[] {
  const sim = simulation(family, plan.keys);
  const ops: Operation[] = [];
  const pending: ({ op: Operation; effected: boolean; out: unknown } | undefined)[] = [];
  let t = 0;
  let count = 0;
  for (const { client: c0, pick } of plan.steps) {
    const client = c0 % plan.clients;
    const cur = pending[client];
    t++;
    if (cur === undefined) {
      if (count >= maxOps) continue;
      count++;
      const op: Operation = { client, input: sim.input(pick), call: Math.floor(t / plan.tick) };
      ops.push(op);
      pending[client] = { op, effected: false, out: undefined };
    } else if (!cur.effected) {
      cur.effected = true;
      // One in eight operations never takes effect; it must end indeterminate.
      if (pick % 8 !== 0) cur.out = sim.effect(cur.op.input as { f: string });
      else cur.out = undefined;
    } else {
      pending[client] = undefined;
      const lost = cur.out === undefined || pick % 7 === 0;
      if (lost) continue; // indeterminate: ret stays undefined
      cur.op.ret = Math.floor(t / plan.tick);
      cur.op.output = pick % plan.corruptEvery === 0 ? sim.corrupt(cur.op.input as { f: string }, cur.out, pick >> 3) : cur.out;
    }
  }
  return ops;
}
