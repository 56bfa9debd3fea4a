// What the readers make of nil values, keys, set results and processes, in every format
// (review of main, 25 Nov): a write of null is a write of null, a write of nothing is
// refused; a key on a model without keys is refused, not dropped; a set read that returned
// no collection, and an EDN process that is a string or a float, are bad input naming the line.
import { describe, expect, it } from 'vitest';
import { checkHistorySync } from '../checkers/lin/index.ts';
import { importHistoryText } from './index.ts';

const read = (lines: string[], file: string, model: string) => importHistoryText(lines.join('\n'), file, { model });
const inputs = (lines: string[], file: string, model: string) => read(lines, file, model).operations.map((op) => op.input);

/** A write of nil, then a read of nil, in each format the readers take. */
const WRITE_NIL_READ_NIL: Record<string, string[]> = {
  'ops.jsonl': ['{"client":0,"input":{"f":"write","value":null},"call":0,"return":1}', '{"client":1,"input":{"f":"read"},"output":null,"call":2,"return":3}'],
  'events.jsonl': [
    '{"type":"call","id":1,"client":0,"input":{"f":"write","value":null}}',
    '{"type":"return","id":1}',
    '{"type":"call","id":2,"client":1,"input":{"f":"read"}}',
    '{"type":"return","id":2,"output":null}',
  ],
  'jepsen.jsonl': [
    '{"process":0,"type":"invoke","f":"write","value":null}',
    '{"process":0,"type":"ok","f":"write","value":null}',
    '{"process":1,"type":"invoke","f":"read","value":null}',
    '{"process":1,"type":"ok","f":"read","value":null}',
  ],
  'h.edn': ['{:process 0, :type :invoke, :f :write, :value nil}', '{:process 0, :type :ok, :f :write, :value nil}', '{:process 1, :type :invoke, :f :read, :value nil}', '{:process 1, :type :ok, :f :read, :value nil}'],
  'h.log': ['INFO  jepsen.util - 0\t:invoke\t:write\tnil', 'INFO  jepsen.util - 0\t:ok\t:write\tnil', 'INFO  jepsen.util - 1\t:invoke\t:read\tnil', 'INFO  jepsen.util - 1\t:ok\t:read\tnil'],
};

describe('a write of nil', () => {
  it('is a write of null in every format, and a later read of nil is linearizable', () => {
    for (const [file, lines] of Object.entries(WRITE_NIL_READ_NIL)) {
      const h = read(lines, file, 'register');
      expect(h.operations.map((op) => op.input), file).toEqual([{ f: 'write', value: null }, { f: 'read' }]);
      expect(checkHistorySync('register', h.operations).verdict, file).toBe('ok');
    }
  });

  it('then a cas from nil holds (cas-register, etcd): the register held nil', () => {
    const lines = [
      '{:process 0, :type :invoke, :f :write, :value 1}',
      '{:process 0, :type :ok, :f :write, :value 1}',
      '{:process 0, :type :invoke, :f :write, :value nil}',
      '{:process 0, :type :ok, :f :write, :value nil}',
      '{:process 1, :type :invoke, :f :cas, :value [nil 2]}',
      '{:process 1, :type :ok, :f :cas, :value [nil 2]}',
    ];
    for (const model of ['cas-register', 'etcd-cas-register']) {
      const h = read(lines, 'c.edn', model);
      expect(h.operations[1]!.input).toEqual({ f: 'write', value: null });
      expect(checkHistorySync(model, h.operations).verdict, model).toBe('ok');
    }
  });

  it('is a member of a set, and refused as a queue item or a kv value', () => {
    expect(inputs(['{"client":0,"input":{"f":"add","value":null},"call":0,"return":1}'], 's.jsonl', 'set')).toEqual([{ f: 'add', value: null }]);
    expect(() => read(['{"client":0,"input":{"f":"enqueue","value":null},"call":0,"return":1}'], 'q.jsonl', 'queue')).toThrow(/^q\.jsonl:1: a value for "enqueue" of model queue, not nil/);
    expect(() => read(['{:process 0, :type :invoke, :f :put, :key "k", :value nil}'], 'k.edn', 'kv-append')).toThrow(/^k\.edn:1: a string value for :put of model kv-append \(got null\)$/);
  });
});

describe('a write of nothing', () => {
  it('is refused in every format, naming the line', () => {
    const cases: [string, string[]][] = [
      ['ops.jsonl', ['{"client":0,"input":{"f":"write"},"call":0,"return":1}']],
      ['events.jsonl', ['{"type":"call","id":1,"client":0,"input":{"f":"read"}}', '{"type":"call","id":2,"client":1,"input":{"f":"write"}}']],
      ['jepsen.jsonl', ['{"process":0,"type":"invoke","f":"write"}']],
      ['h.edn', ['{:process 0, :type :invoke, :f :read, :value nil}', '{:process 1, :type :invoke, :f :write}']],
      ['h.log', ['INFO  jepsen.util - 0\t:invoke\t:write']],
    ];
    for (const [file, lines] of cases) {
      const f = file.endsWith('.jsonl') ? '"write"' : ':write';
      const nil = file.endsWith('.jsonl') ? 'null' : 'nil';
      expect(() => read(lines, file, 'register'), file).toThrow(`${file}:${lines.length}: a value for ${f}: what it writes (${nil} is a value; a write of nothing is not an operation of model register)`);
    }
    expect(() => read(['{"client":0,"input":{"f":"add"},"call":0,"return":1}'], 's.jsonl', 'set')).toThrow(/^s\.jsonl:1: a value for "add"/);
  });

  it('except a mutex, whose operations take no value (and ignore one)', () => {
    const h = read(['{:process 0, :type :invoke, :f :acquire, :value nil}', '{:process 0, :type :ok, :f :acquire, :value nil}', '{:process 0, :type :invoke, :f :release}', '{:process 0, :type :ok, :f :release}'], 'm.edn', 'mutex');
    expect(h.operations.map((op) => [op.input, op.output])).toEqual([[{ f: 'acquire' }, null], [{ f: 'release' }, null]]);
  });
});

describe('keys', () => {
  it('on a model without keys are refused, naming the line and --independent', () => {
    const jsonl = ['{"client":0,"input":{"f":"write","key":"a","value":1},"call":0,"return":1}', '{"client":1,"input":{"f":"read","key":"b"},"output":null,"call":2,"return":3}'];
    expect(() => read(jsonl, 'kr.jsonl', 'register')).toThrow(/^kr\.jsonl:1: no key for "write" \(got "a"\): model register has no keys.*with --independent, which reads each operation's key from "input"\."key"/);
    expect(() => read(['{:process 0, :type :invoke, :f :write, :key :a, :value 1}'], 'kr.edn', 'register')).toThrow(/^kr\.edn:1: no key for :write \(got "a"\): .*--independent, which reads each operation's key from its value, a jepsen\.independent \[key value\] tuple$/);
    expect(() => read(['{"process":0,"type":"invoke","f":"add","key":"a","value":1}'], 'j.jsonl', 'set')).toThrow(/^j\.jsonl:1: no key for "add"/);
    for (const model of ['cas-register', 'etcd-cas-register', 'queue', 'mutex']) {
      const f = model === 'queue' ? 'enqueue' : model === 'mutex' ? 'acquire' : 'write';
      expect(() => read([`{"client":0,"input":{"f":"${f}","key":"a","value":1},"call":0,"return":1}`], 'k.jsonl', model), model).toThrow(/^k\.jsonl:1: no key for /);
    }
  });

  it('with --independent, native JSON lines name each key in "input"."key": a line without one is refused, naming it', () => {
    const keyed = '{"client":0,"input":{"f":"write","key":"a","value":1},"call":0,"return":1}';
    expect(inputs([keyed], 'i.jsonl', 'independent:register')).toEqual([{ f: 'write', key: 'a', value: 1 }]);
    const unkeyed = ['{"client":1,"input":{"f":"read"},"output":null,"call":2,"return":3}', '{"client":1,"input":{"f":"write","value":["a",1]},"call":2,"return":3}'];
    for (const line of unkeyed) {
      expect(() => read([keyed, line], 'i.jsonl', 'independent:register')).toThrow(/^i\.jsonl:2: an "input"\."key" for "(read|write)": --independent \(model independent:register\) checks each key on its own, and native JSON lines name an operation's key there/);
    }
    expect(() => read(['{"type":"call","id":1,"client":0,"input":{"f":"read"}}'], 'e.jsonl', 'independent:set')).toThrow(/^e\.jsonl:1: an "input"\."key" for "read"/);
  });
});

describe('a set read', () => {
  it('returns a collection: anything else is refused at the reader, naming the line', () => {
    for (const output of ['5', '{"a":1}', 'null', '"ab"']) {
      expect(() => read([`{"client":0,"input":{"f":"read"},"output":${output},"call":0,"return":1}`], 's.jsonl', 'set'), output).toThrow(/^s\.jsonl:1: the members of the set as the result of "read" of model set \(an array\), not /);
    }
    expect(() => read(['{:process 0, :type :invoke, :f :read, :value nil}', '{:process 0, :type :ok, :f :read, :value 5}'], 's.edn', 'set')).toThrow(/^s\.edn:2: the members of the set as the result of :read of model set \(a set #\{…\} or a vector\), not 5$/);
    expect(read(['{:process 0, :type :invoke, :f :read, :value nil}', '{:process 0, :type :ok, :f :read, :value #{1 2}}'], 's.edn', 'set').operations[0]!.output).toEqual([1, 2]);
  });
});

describe('an EDN process', () => {
  it('is an integer or a keyword: a string, symbol or float is refused, not merged with the one it spells', () => {
    const pair = (invoke: string, ok: string) => [`{:process ${invoke}, :type :invoke, :f :read, :value nil}`, `{:process ${ok}, :type :ok, :f :read, :value nil}`];
    expect(() => read(pair('"a"', ':a'), 'p.edn', 'register')).toThrow(/^p\.edn:1: :process to be an integer ≥ 0 or a keyword like :nemesis \(got the string "a", which would read as the keyword of that name\)$/);
    expect(() => read(pair(':a', 'a'), 'p.edn', 'register')).toThrow(/^p\.edn:2: :process .*\(got the symbol "a"/);
    expect(() => read(pair('1', '1.0'), 'p.edn', 'register')).toThrow(/^p\.edn:2: :process to be an integer ≥ 0 or a keyword like :nemesis \(got the float 1\.0, which would read as an integer\)$/);
    expect(() => read(pair('1.5', '1.5'), 'p.edn', 'register')).toThrow(/^p\.edn:1: :process .*\(got the float 1\.5\)$/);
    expect(read(pair(':a', ':a').concat(pair('1', '1')), 'p.edn', 'register').operations.map((op) => op.client)).toEqual(['a', 1]);
  });
});
