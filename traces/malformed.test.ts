// Every kind of bad input gets an InputError naming the file, the line and what was expected.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from './errors.ts';
import { importHistoryFile, type ImportOptions } from './index.ts';

const dir = mkdtempSync(join(tmpdir(), 'interleave-malformed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const casRegister = { name: 'cas-register' };

interface Case {
  name: string;
  file: string;
  content: string | Buffer;
  line: number;
  expected: RegExp;
  options?: Partial<ImportOptions>;
}

const op = (o: object) => JSON.stringify(o);
const read = { client: 1, input: { f: 'read' }, call: 0, return: 1, output: null };

const cases: Case[] = [
  { name: 'bad JSON', file: 'a.jsonl', content: `${op(read)}\n{"client": 1, "input":`, line: 2, expected: /^a JSON object \(/ },
  { name: 'missing field', file: 'a.jsonl', content: op({ client: 1, input: { f: 'read' }, return: 3, output: 1 }), line: 1, expected: /^"call" to be a number \(missing\)$/ },
  { name: 'wrong type', file: 'a.jsonl', content: `${op(read)}\n${op({ ...read, call: '5' })}`, line: 2, expected: /^"call" to be a number \(got "5"\)$/ },
  { name: 'negative time', file: 'a.jsonl', content: op({ ...read, call: -1 }), line: 1, expected: /^"call" to be a time ≥ 0 \(got -1\)$/ },
  { name: 'infinite time', file: 'a.jsonl', content: '{"client": 1, "input": {"f": "read"}, "call": 1e999}', line: 1, expected: /^a finite number, not 1e999/ },
  { name: 'NaN time', file: 'a.jsonl', content: '{"client": 1, "input": {"f": "read"}, "call": NaN}', line: 1, expected: /^a JSON object \(/ },
  { name: 'return before call', file: 'a.jsonl', content: op({ ...read, call: 5, return: 2 }), line: 1, expected: /^"return" ≥ "call" \(it returns at 2, before its call at 5\)$/ },
  { name: 'unknown field', file: 'a.jsonl', content: op({ ...read, retrun: 3 }), line: 1, expected: /unknown: "retrun"/ },
  { name: 'ok read without output', file: 'a.jsonl', content: op({ client: 1, input: { f: 'read' }, call: 0, return: 1 }), line: 1, expected: /^an "output": what the "read" returned$/ },
  { name: 'one client, overlapping operations', file: 'a.jsonl', content: [op({ ...read, call: 0, return: 5 }), op({ ...read, call: 3, return: 6 })].join('\n'), line: 2, expected: /client 1 to run one operation at a time/ },
  { name: 'operations and events mixed', file: 'a.jsonl', content: [op(read), op({ type: 'call', id: 1, client: 2, input: { f: 'read' } })].join('\n'), line: 2, expected: /does not mix/ },
  { name: 'return without call', file: 'a.jsonl', content: [op({ type: 'call', id: 1, client: 1, input: { f: 'read' } }), op({ type: 'return', id: 9, output: 1 })].join('\n'), line: 2, expected: /^a call with "id" 9 before its return$/ },
  { name: 'unknown event type', file: 'a.jsonl', content: op({ type: 'cal', id: 1, client: 1, input: { f: 'read' } }), line: 1, expected: /"type": "call" or "return"/ },
  { name: '__proto__ key (JSON)', file: 'a.jsonl', content: '{"__proto__": {"polluted": 1}}', line: 1, expected: /^no "__proto__" key/ },
  { name: '__proto__ key nested in a value', file: 'a.jsonl', content: '{"client": 1, "input": {"f": "write", "value": {"__proto__": {"polluted": 1}}}, "call": 0}', line: 1, expected: /^no "__proto__" key/ },
  { name: '__proto__ key (EDN)', file: 'a.edn', content: '{:process 1, :type :invoke, :f :write, :value {"__proto__" {:polluted 1}}}', line: 1, expected: /^no "__proto__" key/ },
  { name: 'double invoke by one process', file: 'a.edn', content: '{:process 1, :type :invoke, :f :write, :value 1}\n{:process 1, :type :invoke, :f :read, :value nil}', line: 2, expected: /process 1's :write invoked on line 1 before it invokes again/ },
  { name: 'completion without invoke', file: 'a.edn', content: '{:process 1, :type :invoke, :f :write, :value 1}\n{:process 2, :type :ok, :f :write, :value 1}', line: 2, expected: /^an :invoke by process 2 before this :ok completion$/ },
  { name: 'completion of another function', file: 'a.edn', content: '{:process 1, :type :invoke, :f :write, :value 1}\n{:process 1, :type :ok, :f :read, :value 1}', line: 2, expected: /completion of :write .* not of :read/ },
  { name: 'unterminated EDN string', file: 'a.edn', content: '{:process 1, :type :invoke, :f :write, :value 1}\n{:process 1, :type :ok, :f :write, :value "1}\n', line: 2, expected: /closing " for the string opened on line 2/ },
  { name: 'unknown :type', file: 'a.edn', content: '{:process 1, :type :start, :f :write, :value 1}', line: 1, expected: /^:type to be one of :invoke, :ok, :fail, :info \(got "start"\)$/ },
  { name: 'missing :process', file: 'a.edn', content: '{:type :invoke, :f :write, :value 1}', line: 1, expected: /^:process to be .* \(missing\)$/ },
  { name: 'unknown :f for the model', file: 'a.edn', content: '{:process 1, :type :invoke, :f :append, :value 1}', line: 1, expected: /^a function of model cas-register \(read, write, cas\), not :append$/ },
  { name: 'cas value not a pair', file: 'a.edn', content: '{:process 1, :type :invoke, :f :cas, :value 3}', line: 1, expected: /^a \[from to\] pair as the value of :cas \(got 3\)$/ },
  { name: 'kv operation without a key', file: 'a.edn', content: '{:process 1, :type :invoke, :f :put, :value "x"}', line: 1, expected: /^a key for :put \(model kv-append partitions by key\)$/, options: { model: { name: 'kv-append' } } },
  { name: 'kv value not a string', file: 'a.edn', content: '{:process 1, :type :invoke, :f :put, :key "k", :value 1}', line: 1, expected: /^a string value for :put of model kv-append \(got 1\)$/, options: { model: { name: 'kv-append' } } },
  { name: 'kv get returning nil', file: 'a.edn', content: '{:process 1, :type :invoke, :f :get, :key "k", :value nil}\n{:process 1, :type :ok, :f :get, :key "k", :value nil}', line: 2, expected: /^a string result for :get of model kv-append \(""/, options: { model: { name: 'kv-append' } } },
  { name: 'EDN element not a map', file: 'a.edn', content: '[{:process 1, :type :invoke, :f :write, :value 1}\n 42]', line: 2, expected: /^an operation map/ },
  { name: 'EDN tagged literal', file: 'a.edn', content: '{:process 1, :type :invoke, :f :write, :value #inst "2020"}', line: 1, expected: /tagged literal #inst/ },
  { name: 'EDN integer beyond 2^53', file: 'a.edn', content: '{:process 1, :type :invoke, :f :write, :value 9007199254740993}', line: 1, expected: /an integer within/ },
  { name: 'jepsen log: bad process', file: 'a.log', content: 'noise\nINFO  jepsen.util - x\t:invoke\t:read\tnil\n', line: 2, expected: /^a process: an integer ≥ 0 .* or a keyword/ },
  { name: 'jepsen log: no operation lines', file: 'a.log', content: 'just\nnoise\n', line: 2, expected: /^at least one operation line/ },
  { name: 'empty file', file: 'a.jsonl', content: '', line: 1, expected: /^a history with at least one operation \(the file is empty\)$/ },
  { name: 'blank file', file: 'a.edn', content: '\n  \n\n', line: 1, expected: /^a history with at least one operation \(the file has no records, only blank lines\)$/ },
  { name: 'unrecognisable content', file: 'a.txt', content: 'hello\nworld\n', line: 1, expected: /^a history: JSON lines .* use --format/ },
  { name: 'binary garbage (invalid UTF-8)', file: 'a.jsonl', content: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x00, 0x80, 0x0a]), line: 1, expected: /^UTF-8 text/ },
  { name: 'binary garbage (NUL bytes)', file: 'a.bin', content: Buffer.from('\u0000\u0001\u0002\u0000abc'), line: 1, expected: /^text, not binary data/ },
  { name: 'line over the limit', file: 'a.jsonl', content: `${op(read)}\n${'x'.repeat(300)}\n`, line: 2, expected: /^a line of at most 200 bytes$/, options: { limits: { maxLineBytes: 200 } } },
  { name: 'file over the limit', file: 'a.jsonl', content: `${op(read)}\n`.repeat(50), line: 0, expected: /^a file of at most 1 KiB/, options: { limits: { maxFileBytes: 1024 } } },
  { name: 'wrong explicit format', file: 'a.jsonl', content: op(read), line: 1, expected: /^a keyword like :name, not a lone : \(is this JSON\?/, options: { format: 'edn' } },
];

describe('malformed histories', () => {
  it.each(cases)('$name', async ({ file, content, line, expected, options }) => {
    const path = join(dir, `${cases.findIndex((c) => c.file === file && c.content === content)}-${file}`);
    writeFileSync(path, content);
    const error = await importHistoryFile(path, { model: casRegister, ...options }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InputError);
    const e = error as InputError;
    expect(e.file).toBe(path);
    expect(e.line).toBe(line === 0 ? undefined : line);
    expect(e.expected).toMatch(expected);
    expect(e.message).toBe(`${path}${line === 0 ? '' : `:${line}`}: ${e.expected}`);
  });

  it('a missing file is an InputError too', async () => {
    const path = join(dir, 'absent.jsonl');
    await expect(importHistoryFile(path, { model: casRegister })).rejects.toThrow(`${path}: a readable history file (no such file)`);
  });

  it('__proto__ lines do not pollute Object.prototype', async () => {
    const path = join(dir, 'proto.jsonl');
    writeFileSync(path, '{"__proto__": {"polluted": 1}}\n');
    await expect(importHistoryFile(path, { model: casRegister })).rejects.toBeInstanceOf(InputError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });
});

describe('an InputError message echoes no control character (review3 defect 6)', () => {
  it('writes C0 (but tab and newline), DEL and C1 characters as \\u escapes, whatever site composed it', () => {
    const e = new InputError('t.jsonl', 2, 'seq 1 of process n0\u001b[31mRED\u0007\u009b2J\r\u007f next\tnow\nand');
    expect(e.message).toBe('t.jsonl:2: seq 1 of process n0\\u001b[31mRED\\u0007\\u009b2J\\u000d\\u007f next\tnow\nand');
  });
});
