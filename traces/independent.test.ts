// jepsen.independent histories: values are [key value] tuples, checked key by key (model
// independent:<name>), as Jepsen's independent checker does; and what is refused, with the
// file, the line and the expectation.
import { describe, expect, it } from 'vitest';
import { checkHistorySync, findModel } from '../checkers/lin/index.ts';
import { importHistoryText } from './index.ts';

const edn = (...lines: string[]) => lines.join('\n');

// Key 1 is linearizable; key 2 reads a value never written to key 2 (written to key 1).
const history = edn(
  '{:type :invoke, :f :write, :value [1 3], :process 0, :index 0}',
  '{:type :ok, :f :write, :value [1 3], :process 0, :index 1}',
  '{:type :invoke, :f :read, :value [2 nil], :process 1, :index 2}',
  '{:type :ok, :f :read, :value [2 nil], :process 1, :index 3}',
  '{:type :invoke, :f :read, :value [1 nil], :process 1, :index 4}',
  '{:type :ok, :f :read, :value [1 3], :process 1, :index 5}',
);

describe('jepsen.independent histories', () => {
  it('split by key: each key is its own partition, with its own verdict', () => {
    const h = importHistoryText(history, 'h.edn', { model: 'independent:register' });
    expect(h.operations.map((op) => op.input)).toEqual([
      { f: 'write', key: '1', value: 3 },
      { f: 'read', key: '2' },
      { f: 'read', key: '1' },
    ]);
    const r = checkHistorySync('independent:register', h.operations);
    expect(r.verdict).toBe('ok');
    expect(r.partitions.map((p) => p.operations)).toEqual([[0, 2], [1]]);
    const stale = importHistoryText(history.replace(':value [1 3], :process 1', ':value [1 4], :process 1'), 'h.edn', { model: 'independent:register' });
    const bad = checkHistorySync('independent:register', stale.operations);
    expect(bad.verdict).toBe('illegal');
    expect(bad.partitions.map((p) => p.verdict)).toEqual(['illegal', 'ok']);
    expect(findModel('independent:cas-register')?.name).toBe('independent:cas-register');
  });

  it('a [key nil] read without --independent is refused with the hint', () => {
    expect(() => importHistoryText(history, 'h.edn', { model: 'register' })).toThrow(/^h\.edn:1: .*|^h\.edn:\d+: nil as the :invoke value of :read, not .*--independent \(model independent:register\)/);
  });

  it('refuses what is not a [key value] tuple, a :key field, and a completion of another key', () => {
    const read = (...lines: string[]) => () => importHistoryText(edn(...lines), 'i.edn', { model: 'independent:register' });
    expect(read('{:type :invoke, :f :write, :value 3, :process 0}')).toThrow(/^i\.edn:1: a \[key value\] tuple as the value of :write \(model independent:register: jepsen\.independent keys, an integer or a string\), not 3$/);
    expect(read('{:type :invoke, :f :write, :key 1, :value [1 3], :process 0}')).toThrow(/^i\.edn:1: no :key field in a jepsen\.independent history/);
    expect(read('{:type :invoke, :f :write, :value [1 3], :process 0}', '{:type :ok, :f :write, :value [2 3], :process 0}')).toThrow(/^i\.edn:2: the key "1" of the invocation on line 1, not "2"$/);
  });

  it('an unknown model is an error; an operation without a key under an independent model gives no verdict', () => {
    expect(findModel('independent:nope')).toBeUndefined();
    expect(() => checkHistorySync('independent:nope', [])).toThrow(/unknown model "independent:nope"; known: .*independent:<model> for each/);
    const r = checkHistorySync('independent:register', [{ client: 0, input: { f: 'read' }, output: 0, call: 0, ret: 1 }]);
    expect(r).toMatchObject({ verdict: 'unknown', modelError: { operation: -1, message: expect.stringMatching(/every operation names a key \(input\.key\), not undefined/) } });
    const from = checkHistorySync('independent:register', [{ client: 0, input: { f: 'read' }, output: 0, call: 0, ret: 1, origin: { file: 'h.jsonl', line: 7 } }]);
    expect(from.modelError?.message).toMatch(/every operation names a key \(input\.key\), not undefined \(h\.jsonl:7\)$/);
  });
});
