import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../checkers/lin/types.ts';
import { importHistoryFile, importHistoryText, type ImportOptions } from './index.ts';

const casRegister = { name: 'cas-register' };
const etcd = { name: 'etcd-cas-register', failedOutput: (i: { f: string }) => (i.f === 'cas' ? false : undefined) };
const kv = { name: 'kv-append' };
const set = { name: 'set' };

const text = (lines: string[], file: string, options: ImportOptions) => importHistoryText(lines.join('\n'), file, options);
/** Operations without their origin, for comparing shapes. */
const bare = (ops: Operation[]) => ops.map(({ origin: _, ...op }) => op);

describe('native JSON lines', () => {
  it('reads one operation per line, with indeterminate and failed operations', () => {
    const h = text([
      '{"client": 0, "input": {"f": "write", "value": 1}, "call": 0, "return": 10}',
      '{"client": 1, "input": {"f": "read"}, "call": 2.5, "return": 3, "output": 1}',
      '{"client": 2, "input": {"f": "cas", "value": [1, 2]}, "call": 4}',
      '{"client": 3, "input": {"f": "cas", "value": [5, 6]}, "call": 4, "return": 6, "status": "fail"}',
      '',
      '{"client": "c", "input": {"f": "write", "value": 7}, "call": 20, "return": 30, "status": "info"}',
    ], 'h.jsonl', { model: casRegister });
    expect(h.format).toBe('jsonl');
    expect(bare(h.operations)).toEqual([
      { client: 0, input: { f: 'write', value: 1 }, call: 0, ret: 10, output: null },
      { client: 1, input: { f: 'read' }, call: 2.5, ret: 3, output: 1 },
      { client: 2, input: { f: 'cas', value: [1, 2] }, call: 4 },
      { client: 'c', input: { f: 'write', value: 7 }, call: 20 },
    ]);
    expect(h.counts).toEqual({ failed: 1, nemesis: 0, indeterminate: 2 });
    expect(h.operations[1]!.origin).toEqual({ file: 'h.jsonl', line: 2 });
  });

  it('keeps a failed cas where the model gives :fail a meaning', () => {
    const h = text(['{"client": 3, "input": {"f": "cas", "value": [5, 6]}, "call": 4, "return": 6, "status": "fail"}'], 'h.jsonl', { model: etcd });
    expect(bare(h.operations)).toEqual([{ client: 3, input: { f: 'cas', value: [5, 6] }, call: 4, ret: 6, output: false }]);
  });

  it('reads one event per line, positions as times', () => {
    const h = text([
      '{"type": "call", "id": "a", "client": 0, "input": {"f": "enqueue", "value": 1}}',
      '{"type": "call", "id": "b", "client": 1, "input": {"f": "dequeue"}}',
      '{"type": "return", "id": "a"}',
      '{"type": "call", "id": "c", "client": 0, "input": {"f": "enqueue", "value": 2}}',
      '{"type": "return", "id": "b", "client": 1, "output": 1}',
      '{"type": "return", "id": "c", "status": "info"}',
    ], 'q.jsonl', { model: { name: 'queue' } });
    expect(bare(h.operations)).toEqual([
      { client: 0, input: { f: 'enqueue', value: 1 }, call: 0, ret: 2, output: null },
      { client: 1, input: { f: 'dequeue' }, call: 1, ret: 4, output: 1 },
      { client: 0, input: { f: 'enqueue', value: 2 }, call: 3 },
    ]);
  });

  it('refuses a queue item that is nil: it is what a dequeue of an empty queue returns', () => {
    const queue = { model: { name: 'queue' } };
    const lines = (enqueue: string) => [`{"client": 0, "input": ${enqueue}, "call": 0, "return": 1, "status": "ok"}`, '{"client": 0, "input": {"f": "dequeue"}, "call": 2, "return": 3, "output": null, "status": "ok"}'];
    expect(() => text(lines('{"f": "enqueue", "value": null}'), 'q.jsonl', queue)).toThrow(/q\.jsonl:1: a value for "enqueue" of model queue, not nil/);
    // No value at all is refused as for any write.
    expect(() => text(lines('{"f": "enqueue"}'), 'q.jsonl', queue)).toThrow(/q\.jsonl:1: a value for "enqueue": what it writes/);
  });

  it('reads Jepsen JSON (one Jepsen operation per line)', () => {
    const h = text([
      '{"process": 0, "type": "invoke", "f": "add", "value": 1, "time": 5}',
      '{"process": "nemesis", "type": "info", "f": "start"}',
      '{"process": 0, "type": "ok", "f": "add", "value": 1}',
      '{"process": 1, "type": "invoke", "f": "read", "value": null}',
      '{"process": 1, "type": "ok", "f": "read", "value": [1]}',
    ], 's.json', { model: set });
    expect(bare(h.operations)).toEqual([
      { client: 0, input: { f: 'add', value: 1 }, call: 0, ret: 2, output: null },
      { client: 1, input: { f: 'read' }, call: 3, ret: 4, output: [1] },
    ]);
    expect(h.counts.nemesis).toBe(1);
  });
});

describe('Jepsen EDN', () => {
  const lines = [
    '{:process 0, :type :invoke, :f :write, :value 1, :time 10}',
    '{:process :nemesis, :type :info, :f :start, :value nil}',
    '{:process 1, :type :invoke, :f :cas, :value [1 2]}',
    '{:process 0, :type :ok, :f :write, :value 1}',
    '{:process 1, :type :fail, :f :cas, :value [1 2]}',
    '{:process 2, :type :invoke, :f :read, :value nil}',
    '{:process 3, :type :invoke, :f :cas, :value [1 3]}',
    '{:process 2, :type :ok, :f :read, :value 1}',
    '{:process 3, :type :info, :f :cas, :value [1 3], :error :timeout}',
    '{:process 4, :type :invoke, :f :write, :value 9}',
  ];
  const expected = [
    { client: 0, input: { f: 'write', value: 1 }, call: 0, ret: 3, output: null },
    { client: 2, input: { f: 'read' }, call: 5, ret: 7, output: 1 },
    { client: 3, input: { f: 'cas', value: [1, 3] }, call: 6 },
    { client: 4, input: { f: 'write', value: 9 }, call: 9 },
  ];

  it('pairs by process: :ok definite, :fail dropped, :info and no completion indeterminate, nemesis skipped', () => {
    const h = text(lines, 'h.edn', { model: casRegister });
    expect(h.format).toBe('edn');
    expect(bare(h.operations)).toEqual(expected);
    expect(h.counts).toEqual({ failed: 1, nemesis: 1, indeterminate: 2 });
    expect(h.operations[1]!.origin!.line).toBe(6);
  });

  it('reads a whole vector (or list) of maps the same, with records and comments', () => {
    const vector = ['; a Jepsen history', '[', ...lines.map((l) => ` #jepsen.history.Op${l}`), ']'];
    expect(bare(text(vector, 'h.edn', { model: casRegister }).operations)).toEqual(expected);
    const list = ['(' + lines.join('\n ') + ')'];
    expect(bare(text(list, 'h.edn', { model: casRegister }).operations)).toEqual(expected);
  });

  it('gives a failed cas the model\'s meaning', () => {
    const h = text(lines, 'h.edn', { model: etcd });
    expect(bare(h.operations)).toContainEqual({ client: 1, input: { f: 'cas', value: [1, 2] }, call: 2, ret: 4, output: false });
  });

  it('ignores fields it does not use, whatever they hold', () => {
    const h = text(['{:process 0, :type :invoke, :f :write, :value 1, :time 99999999999999999999, :error #{:a}, :index 0}'], 'h.edn', { model: casRegister });
    expect(bare(h.operations)).toEqual([{ client: 0, input: { f: 'write', value: 1 }, call: 0 }]);
  });

  it('reads set values as arrays and keys as strings', () => {
    const h = text([
      '{:process 0, :type :invoke, :f :read, :value nil}',
      '{:process 0, :type :ok, :f :read, :value #{1 2}}',
    ], 'h.edn', { model: set });
    expect(h.operations[0]!.output).toEqual([1, 2]);
    const k = text(['{:process 0, :type :invoke, :f :put, :key 7, :value "x"}'], 'h.edn', { model: kv });
    expect(k.operations[0]!.input).toEqual({ f: 'put', key: '7', value: 'x' });
  });
});

describe('Jepsen text log', () => {
  it('reads operation lines among noise, tabs or spaces; a timed-out read is dropped', () => {
    const h = text([
      '2017-01-01 INFO  jepsen.core - Running test',
      'INFO  jepsen.util - 0\t:invoke\t:read\tnil',
      'INFO  jepsen.util - 1   :invoke :cas    [4 0]',
      'INFO  jepsen.util - :nemesis\t:info\t:start\tnil',
      'INFO  jepsen.util - 0\t:fail\t:read\t:timed-out',
      'INFO  jepsen.util - 1\t:fail\t:cas\t[4 0]',
      'INFO  jepsen.util - 2\t:invoke\t:write\t3',
      'INFO  jepsen.util - 2\t:info\t:write\t3',
    ], 'e.log', { model: etcd });
    expect(h.format).toBe('jepsen-log');
    expect(bare(h.operations)).toEqual([
      { client: 1, input: { f: 'cas', value: [4, 0] }, call: 1, ret: 4, output: false },
      { client: 2, input: { f: 'write', value: 3 }, call: 5 },
    ]);
    expect(h.counts).toEqual({ failed: 1, nemesis: 1, indeterminate: 1 });
  });

  it('reads the corpus: every invocation becomes an operation unless it failed and means nothing', async () => {
    const path = '../shared/corpora/porcupine/jepsen/etcd_000.log';
    const log = readFileSync(path, 'utf8');
    const invokes = log.match(/:invoke/g)!.length;
    const failedReads = log.match(/:fail\s+:read/g)?.length ?? 0;
    const h = await importHistoryFile(path, { model: etcd });
    expect(h.operations.length).toBe(invokes - failedReads);
    const infos = log.match(/:info/g)?.length ?? 0;
    const completions = log.match(/:(ok|fail|info)\s/g)!.length;
    expect(h.operations.filter((o) => o.ret === undefined).length).toBe(infos + invokes - completions);
    expect(h.counts.indeterminate).toBe(infos + invokes - completions);
    expect(h.operations.every((o, i) => i === 0 || o.call > h.operations[i - 1]!.call)).toBe(true);
  });
});

describe('format detection', () => {
  const edn = '{:process 0, :type :invoke, :f :write, :value 1}';
  const json = '{"client": 0, "input": {"f": "write", "value": 1}, "call": 0}';

  it('goes by content, whatever the extension', () => {
    expect(importHistoryText(edn, 'h.jsonl', { model: casRegister }).format).toBe('edn');
    expect(importHistoryText(json, 'h.edn', { model: casRegister }).format).toBe('jsonl');
    expect(importHistoryText(`noise\nINFO  jepsen.util - 0\t:invoke\t:read\tnil`, 'h.txt', { model: casRegister }).format).toBe('jepsen-log');
  });

  it('reads the kv corpus (.txt) as EDN', async () => {
    const h = await importHistoryFile('../shared/corpora/porcupine/kv/c01-ok.txt', { model: kv });
    expect(h.format).toBe('edn');
    expect(h.operations[0]!.input).toEqual({ f: 'append', key: '0', value: 'x 0 0 y' });
    expect(h.operations.some((o) => (o.input as { f: string }).f === 'get' && o.output === '')).toBe(true);
  });

  it('reads CRLF line ends and a byte-order mark', async () => {
    const crlf = `\ufeff${edn}\r\n{:process 0, :type :ok, :f :write, :value 1}\r\n`;
    const h = importHistoryText(crlf, 'h.edn', { model: casRegister });
    expect(bare(h.operations)).toEqual([{ client: 0, input: { f: 'write', value: 1 }, call: 0, ret: 1, output: null }]);
  });

  it('an explicit format is not second-guessed', () => {
    expect(() => importHistoryText(edn, 'h.edn', { model: casRegister, format: 'jsonl' })).toThrow(/h\.edn:1: a JSON object/);
  });
});

describe('the options a JavaScript caller gives (review3 defect 5)', () => {
  const line = '{"client":0,"input":{"f":"write","value":1},"call":0,"return":1}\n';
  it('a format not in FORMATS is named, not read as a Jepsen log', () => {
    expect(() => importHistoryText(line, 'f.jsonl', { model: 'register', format: 'zz' as never })).toThrow(TypeError);
    expect(() => importHistoryText(line, 'f.jsonl', { model: 'register', format: 'zz' as never })).toThrow('unknown format "zz"; one of auto, jsonl, edn, jepsen-log');
    expect(importHistoryText(line, 'f.jsonl', { model: 'register', format: 'jsonl' }).operations).toHaveLength(1);
  });
  it("limits that are not whole numbers ≥ 1: a RangeError naming the limit, not the file's fault", async () => {
    for (const limits of [{ maxLineBytes: -1 }, { maxDepth: NaN }, { maxFileBytes: 0.5 }]) {
      const name = Object.keys(limits)[0];
      expect(() => importHistoryText(line, 'f.jsonl', { model: 'register', limits })).toThrow(RangeError);
      expect(() => importHistoryText(line, 'f.jsonl', { model: 'register', limits })).toThrow(new RegExp(`^limits\\.${name}: a whole number ≥ 1, not `));
      await expect(importHistoryFile('/nonexistent.jsonl', { model: 'register', limits })).rejects.toThrow(RangeError);
    }
  });
  it('no options, or a text that is no string: a TypeError saying what was expected', () => {
    expect(() => importHistoryText(line, 'f.jsonl', undefined as never)).toThrow('import options: an object {model, format?, limits?, deadline?}, not undefined');
    expect(() => importHistoryText(null as never, 'f.jsonl', { model: 'register' })).toThrow("importHistoryText: the history's text as a string, not null");
  });
});
