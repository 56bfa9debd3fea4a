// The same Jepsen history written in every format imports to the same operations.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../checkers/lin/types.ts';
import { importHistoryText, type Format } from './index.ts';

const etcd = { name: 'etcd-cas-register', failedOutput: (i: { f: string }) => (i.f === 'cas' ? false : undefined) };

interface Event {
  process: number;
  type: 'invoke' | 'ok' | 'fail' | 'info';
  f: 'read' | 'write' | 'cas';
  value: null | number | [number, number];
}

/** Random well-formed histories: each process invokes, then completes (or never does). */
const histories = fc
  .array(
    fc.record({
      process: fc.integer({ min: 0, max: 3 }),
      f: fc.constantFrom('read' as const, 'write' as const, 'cas' as const),
      a: fc.integer({ min: 0, max: 4 }),
      b: fc.integer({ min: 0, max: 4 }),
      end: fc.constantFrom('ok' as const, 'fail' as const, 'info' as const, 'none' as const),
    }),
    { minLength: 1, maxLength: 12 },
  )
  .map((steps) => {
    const events: Event[] = [];
    const open = new Map<number, Event>();
    for (const s of steps) {
      const pending = open.get(s.process);
      if (pending !== undefined) {
        open.delete(s.process);
        const end = s.end === 'none' ? 'info' : s.end;
        const value = pending.f === 'read' ? (end === 'ok' ? s.a : null) : pending.value;
        events.push({ ...pending, type: end, value });
        continue;
      }
      const value = s.f === 'read' ? null : s.f === 'write' ? s.a : ([s.a, s.b] as [number, number]);
      const invoke: Event = { process: s.process, type: 'invoke', f: s.f, value };
      events.push(invoke);
      open.set(s.process, invoke);
    }
    return events;
  });

const ednValue = (v: Event['value']) => (v === null ? 'nil' : Array.isArray(v) ? `[${v[0]} ${v[1]}]` : `${v}`);
const ednMap = (e: Event) => `{:process ${e.process}, :type :${e.type}, :f :${e.f}, :value ${ednValue(e.value)}}`;

const writers: Record<string, { format: Format; write(events: Event[]): string }> = {
  'edn lines': { format: 'edn', write: (es) => es.map(ednMap).join('\n') },
  'edn vector': { format: 'edn', write: (es) => `[${es.map(ednMap).join('\n ')}]` },
  'edn list, one line, records': { format: 'edn', write: (es) => `(${es.map((e) => `#jepsen.history.Op${ednMap(e)}`).join(' ')})` },
  'jepsen log': { format: 'jepsen-log', write: (es) => es.map((e) => `INFO  jepsen.util - ${e.process}\t:${e.type}\t:${e.f}\t${ednValue(e.value)}`).join('\nnoise\n') },
  'jepsen json': { format: 'jsonl', write: (es) => es.map((e) => JSON.stringify(e)).join('\n') },
};

const bare = (ops: Operation[]) => ops.map(({ origin: _, call: __, ret, ...op }) => ({ ...op, definite: ret !== undefined }));

describe('every format reads the same history the same way', () => {
  it('EDN, Jepsen log and Jepsen JSON agree', () => {
    fc.assert(
      fc.property(histories, (events) => {
        const results = Object.entries(writers).map(([name, w]) => {
          const h = importHistoryText(w.write(events), `h.${name}`, { model: etcd, format: w.format });
          return { name, ops: bare(h.operations), counts: h.counts, times: h.operations.map((o) => [o.call, o.ret]) };
        });
        const [first, ...rest] = results;
        for (const r of rest) {
          expect(r.ops, r.name).toEqual(first!.ops);
          expect(r.counts, r.name).toEqual(first!.counts);
          expect(r.times, r.name).toEqual(first!.times);
        }
        // Times are positions among the records: calls increase, returns follow calls.
        for (const [call, ret] of first!.times) if (ret !== undefined) expect(ret).toBeGreaterThan(call!);
        const invokes = events.filter((e) => e.type === 'invoke').length;
        const droppedReads = events.filter((e) => e.type === 'fail' && e.f !== 'cas').length;
        expect(first!.ops.length).toBe(invokes - droppedReads);
      }),
      { numRuns: 150 },
    );
  });
});
