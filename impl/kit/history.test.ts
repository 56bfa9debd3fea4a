import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { models } from '../../checkers/lin/models/index.ts';
import { importHistoryText } from '../../traces/index.ts';
import { historyEdn, historyJsonl, readRawHistories } from './history.ts';
import { HistoryWriter } from './recorder.ts';

const dir = mkdtempSync(join(tmpdir(), 'hist-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('run histories', () => {
  it("merge the processes' raw files and import back in both formats, indeterminate operations as such", () => {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    writeFileSync(
      a,
      [
        { t: 'inv', c: 1, f: 'put', key: 'k0', value: '16777217', time: 100 },
        { t: 'ok', c: 1, time: 150 },
        { t: 'inv', c: 1, f: 'get', key: 'k0', time: 160 },
        { t: 'ok', c: 1, out: '16777217', time: 170 },
        { t: 'inv', c: 1, f: 'put', key: 'k1', value: '16777218', time: 200 },
        { t: 'info', c: 1, time: 260, why: 'a CAS at mn1 has an unknown outcome (timeout)' },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    // a process killed in the middle of a line, with an operation in flight
    writeFileSync(b, `${JSON.stringify({ t: 'inv', c: 2, f: 'get', key: 'k1', time: 120 })}\n${JSON.stringify({ t: 'ok', c: 2, out: '', time: 130 })}\n${JSON.stringify({ t: 'inv', c: 2, f: 'put', key: 'k0', value: '33554433', time: 210 })}\n{"t":"ok","c`);
    const ops = readRawHistories([a, b], 100);
    expect(ops.map((o) => [o.client, o.f, o.call, o.ret])).toEqual([
      [1, 'put', 0, 50],
      [2, 'get', 20, 30],
      [1, 'get', 60, 70],
      [1, 'put', 100, undefined],
      [2, 'put', 110, undefined],
    ]);
    const model = models['kv-append'];
    const fromJsonl = importHistoryText(historyJsonl(ops), 'h.jsonl', { model, format: 'jsonl' });
    const fromEdn = importHistoryText(historyEdn(ops, [{ start: 5, f: 'kill-mn', target: 'mn1' }, { start: 6, end: 90, f: 'pause', target: 'cp0' }]), 'h.edn', { model, format: 'edn' });
    for (const h of [fromJsonl, fromEdn]) {
      expect(h.operations).toHaveLength(5);
      expect(h.counts.indeterminate).toBe(2);
      expect(h.operations.filter((o) => o.ret !== undefined).map((o) => o.output)).toEqual(expect.arrayContaining(['16777217', '']));
    }
    expect(fromEdn.counts.nemesis).toBeGreaterThan(0);
  });

  it('writes each line with one write, readable after the writer is gone', () => {
    const f = join(dir, 'w.jsonl');
    const w = new HistoryWriter(f);
    w.invoke(7, 'put', 'k2', '1');
    w.ok(7);
    // no close: the file already holds both lines
    const ops = readRawHistories([f], 0);
    expect(ops).toHaveLength(1);
    expect(ops[0].ret).toBeDefined();
    w.close();
  });
});
