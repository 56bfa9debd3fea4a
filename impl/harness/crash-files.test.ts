// The files `interleave run` writes for a run with a full-system crash: the whole run as a
// history `interleave lin` reads, and the durability check's input beside it.
import { describe, expect, it } from 'vitest';
import { checkDurability, DURABILITY_MODELS, type DurOp } from '../../checkers/durability/index.ts';
import { checkHistory } from '../../checkers/lin/index.ts';
import { findModel } from '../../checkers/lin/models/index.ts';
import { importHistoryText } from '../../traces/index.ts';
import type { RunOp } from '../kit/history.ts';
import { crashFiles } from './run.ts';
import type { CrashMarker } from './types.ts';

// MINOS-like: a put's output is its version (TS_WR); a persist closes a scope; one put is in
// flight at the crash (t = 60); the recovery read (after t = 70) sees the acknowledged put.
const ops: RunOp[] = [
  { client: 0, f: 'put', key: 'k0', value: 'a', call: 10, ret: 20, output: 3 },
  { client: 1, f: 'get', key: 'k0', call: 30, ret: 40, output: 'a' },
  { client: 0, f: 'persist', value: 's1', call: 41, ret: 42 },
  { client: 1, f: 'put', key: 'k0', value: 'b', call: 50 },
  { client: 2, f: 'get', key: 'k0', call: 80, ret: 90, output: 'a' },
];
const markers: CrashMarker[] = [
  { event: 'crash', time: 60 },
  { event: 'recovered', time: 70 },
];

describe('crashFiles', () => {
  it('crash-history.jsonl is a history `interleave lin` reads and checks: the whole run, across the crash', async () => {
    const { history } = crashFiles(ops, markers);
    const imported = importHistoryText(history, 'crash-history.jsonl', { model: findModel('kv-append')!, format: 'jsonl' });
    expect(imported.operations).toHaveLength(4);
    expect((await checkHistory('kv-append', imported.operations)).verdict).toBe('ok');
    // The put in flight at the crash is indeterminate; no version, persist or marker is in it.
    expect(history).toContain('{"client":1,"input":{"f":"put","key":"k0","value":"b"},"call":50,"status":"info"}');
    expect(history).not.toMatch(/version|persist|"event"/);
  });

  it("durability.jsonl is the durability check's input: versions, persists, markers (traces/README.md, \"Crash histories\")", () => {
    const lines = crashFiles(ops, markers).durability.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(7);
    expect(lines[0]).toEqual({ client: 0, input: { f: 'put', key: 'k0', value: 'a' }, call: 10, return: 20, status: 'ok', version: 3 });
    expect(lines[2]).toMatchObject({ input: { f: 'persist', value: 's1' } });
    expect(lines.slice(5)).toEqual([{ event: 'crash', time: 60 }, { event: 'recovered', time: 70 }]);
  });

  it("durability.jsonl holds exactly what the durability check judged: read back, the same operations, markers and verdict (review defect 21: the file is the check's evidence)", () => {
    const files = crashFiles(ops, markers);
    const back: DurOp[] = [];
    const marks: CrashMarker[] = [];
    for (const l of files.durability.trimEnd().split('\n')) {
      const o = JSON.parse(l) as { event?: 'crash' | 'recovered'; time?: number; client: number; input: { f: string; key?: string; value?: unknown }; call: number; return?: number; output?: unknown; version?: number };
      if (o.event !== undefined) marks.push({ event: o.event, time: o.time! });
      else {
        const d: DurOp = { client: o.client, f: o.input.f, key: o.input.key, value: o.input.value, call: o.call, ret: o.return };
        if (o.version !== undefined) d.version = o.version;
        else if (o.input.f !== 'put' && o.input.f !== 'write') d.output = o.output;
        back.push(d);
      }
    }
    expect(back).toEqual(files.judged);
    expect(marks).toEqual(markers);
    for (const model of DURABILITY_MODELS) expect(checkDurability(model, back, marks)).toEqual(checkDurability(model, files.judged, markers));
    // a write that survives (the put acknowledged before the crash) is judged so
    expect(checkDurability('synch', files.judged, markers).verdict).toBe('durable');
  });
});
