import { describe, expect, it } from 'vitest';
import { matchers } from 'interleave/vitest';
import { models, type Model, type Operation } from '../checkers/lin/index.ts';
import { HistoryRecorder } from './recorder.ts';

expect.extend(matchers);

const ok: Operation[] = [
  { client: 0, input: { f: 'write', value: 1 }, call: 0, ret: 1 },
  { client: 1, input: { f: 'read' }, output: 1, call: 2, ret: 3 },
];
const stale: Operation[] = [ok[0]!, { ...ok[1]!, output: 0 }];

describe('expect(history).toBeLinearizable(model)', () => {
  it('passes a linearizable history, by model name or object, and fails a stale read with the diagnosis', () => {
    expect(ok).toBeLinearizable('register');
    expect(ok).toBeLinearizable(models.register!);
    expect(stale).not.toBeLinearizable('register');
    expect(() => expect(stale).toBeLinearizable('register')).toThrow(/expected the history to be linearizable under register:[\s\S]*NOT linearizable[\s\S]*After it, none of these leads to a linearization/);
    expect(() => expect(ok).not.toBeLinearizable('register')).toThrow(/not to be linearizable under register, but it is/);
  });

  it('takes a recorder and jepsen.independent models by name', async () => {
    const recorder = new HistoryRecorder();
    await recorder.record(0, { f: 'write', key: 'a', value: 1 }, async () => null);
    await recorder.record(1, { f: 'write', key: 'b', value: 2 }, async () => null);
    await recorder.record(0, { f: 'read', key: 'a' }, async () => 1);
    expect(recorder).toBeLinearizable('independent:register');
    // Under a model without keys the keys are refused (a model error: no verdict), not ignored.
    expect(() => expect(recorder).not.toBeLinearizable('register')).toThrow(/no verdict[\s\S]*register has no keys/);
  });

  it('is no verdict either way when the check cannot decide, and refuses what is not a history', () => {
    const throws: Model = { name: 'broken', init: () => 0, step: () => { throw new Error('boom'); } };
    expect(() => expect(ok).toBeLinearizable(throws)).toThrow(/no verdict for 2 operations under broken/);
    expect(() => expect(ok).not.toBeLinearizable(throws)).toThrow(/no verdict/);
    expect(() => expect(42).toBeLinearizable('register')).toThrow(/expected a history/);
  });
});

describe('HistoryRecorder', () => {
  it('records calls and returns on a logical clock; a throw leaves the operation indeterminate', async () => {
    const r = new HistoryRecorder();
    const slow = r.record(0, { f: 'write', value: 1 }, () => new Promise((done) => setTimeout(() => done(null), 5)));
    await expect(r.record(1, { f: 'read' }, async () => { throw new Error('timeout'); })).rejects.toThrow('timeout');
    await slow;
    expect(r.operations).toEqual([
      { client: 0, input: { f: 'write', value: 1 }, call: 0, ret: 2, output: null },
      { client: 1, input: { f: 'read' }, call: 1 },
    ]);
    const i = r.call(2, { f: 'read' });
    expect(() => r.call(2, { f: 'read' })).toThrow(/client 2 calls again before its operation returned/);
    r.ok(i, 1);
  });
});
