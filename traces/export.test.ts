// Native JSON lines written by export.ts read back as the same history.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../checkers/lin/types.ts';
import { toEventLines, toOperationLines } from './export.ts';
import { importHistoryText } from './index.ts';

const model = { name: 'cas-register' };

/** Random histories in which every client runs one operation at a time. */
const histories = fc
  .array(
    fc.record({
      client: fc.integer({ min: 0, max: 3 }),
      gap: fc.integer({ min: 0, max: 3 }),
      length: fc.integer({ min: 0, max: 4 }),
      indeterminate: fc.boolean(),
      f: fc.constantFrom('read', 'write', 'cas'),
      a: fc.integer({ min: 0, max: 3 }),
      b: fc.integer({ min: 0, max: 3 }),
    }),
    { minLength: 1, maxLength: 10 },
  )
  .map((steps) => {
    const free = new Map<number, number>();
    const gone = new Set<number>();
    const ops: Operation[] = [];
    for (const s of steps) {
      if (gone.has(s.client)) continue;
      const call = (free.get(s.client) ?? 0) + s.gap;
      const input = s.f === 'read' ? { f: s.f } : s.f === 'write' ? { f: s.f, value: s.a } : { f: s.f, value: [s.a, s.b] };
      if (s.indeterminate) {
        ops.push({ client: s.client, input, call });
        gone.add(s.client);
        continue;
      }
      const ret = call + s.length;
      ops.push({ client: s.client, input, call, ret, output: s.f === 'read' ? s.a : s.f === 'cas' ? true : null });
      free.set(s.client, ret + 1);
    }
    return ops;
  });

const bare = (ops: readonly Operation[]) => ops.map(({ origin: _, ...op }) => op);

/** Which definite operations precede which: all that linearizability depends on, with the values. */
function precedence(ops: readonly Operation[]): boolean[][] {
  return ops.map((a) => ops.map((b) => a.ret !== undefined && a.ret < b.call));
}

describe('native JSON lines round trip', () => {
  it('operation lines read back as the same operations', () => {
    fc.assert(
      fc.property(histories, (ops) => {
        expect(bare(importHistoryText(toOperationLines(ops), 'h.jsonl', { model }).operations)).toEqual(ops);
      }),
      { numRuns: 200 },
    );
  });

  it('event lines read back with the same real-time order', () => {
    fc.assert(
      fc.property(histories, (ops) => {
        const back = importHistoryText(toEventLines(ops), 'h.jsonl', { model }).operations;
        // Events are read in time order; match operations by their call line's id.
        const byCall = [...ops.keys()].sort((i, j) => ops[i]!.call - ops[j]!.call || i - j);
        const original = byCall.map((i) => ops[i]!);
        expect(back.map(({ client, input, output }) => ({ client, input, output }))).toEqual(
          original.map(({ client, input, output }) => ({ client, input, output })),
        );
        expect(back.map((o) => o.ret === undefined)).toEqual(original.map((o) => o.ret === undefined));
        expect(precedence(back)).toEqual(precedence(original));
      }),
      { numRuns: 200 },
    );
  });
});
