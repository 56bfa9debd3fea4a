// No wrong verdict from a reader: every value a history holds is read as written, or the
// history is refused with an InputError naming the line. Each case here is a history
// whose values or times a lossy reader (JSON.parse, a plain EDN-to-JS conversion) would
// make equal, and for most of them that turns an illegal history into a linearizable one.
import { describe, expect, it } from 'vitest';
import { checkHistorySync, models } from '../checkers/lin/index.ts';
import { InputError } from './errors.ts';
import { inputErrorOf } from './input-error-of.ts';
import { importHistoryText } from './index.ts';
import { decimalKey, inexactNumber, parseJson } from './json.ts';
import { parseTraceLine } from './protocol-trace.ts';
import { growth } from './scaling.ts';

const verdict = (text: string, file: string, model: string) => {
  const h = importHistoryText(text, file, { model: models[model]! });
  return checkHistorySync(model, h.operations).verdict;
};

const op = (o: object) => JSON.stringify(o);
/** A write then a later read of another value: illegal unless the values are equal. */
const jsonl = (written: string, read: string, times = ['0', '1', '2', '3']) =>
  [
    `{"client": 0, "input": {"f": "write", "value": ${written}}, "call": ${times[0]}, "return": ${times[1]}}`,
    `{"client": 1, "input": {"f": "read"}, "call": ${times[2]}, "return": ${times[3]}, "output": ${read}}`,
  ].join('\n');
const edn = (written: string, read: string) =>
  [
    `{:process 0, :type :invoke, :f :write, :value ${written}}`,
    `{:process 0, :type :ok, :f :write, :value ${written}}`,
    '{:process 1, :type :invoke, :f :read, :value nil}',
    `{:process 1, :type :ok, :f :read, :value ${read}}`,
  ].join('\n');
const log = (written: string, read: string) =>
  [
    `INFO  jepsen.util - 0\t:invoke\t:write\t${written}`,
    `INFO  jepsen.util - 0\t:ok\t:write\t${written}`,
    'INFO  jepsen.util - 1\t:invoke\t:read\tnil',
    `INFO  jepsen.util - 1\t:ok\t:read\t${read}`,
  ].join('\n');

interface Refused {
  name: string;
  file: string;
  text: string;
  model?: string;
  line: number;
  expected: RegExp;
}

const refused: Refused[] = [
  // JSON: numbers JSON.parse would round.
  { name: 'JSON integer values beyond 2^53', file: 'a.jsonl', text: jsonl('9007199254740993', '9007199254740992'), line: 1, expected: /^an integer within ±\(2\^53 − 1\), not 9007199254740993/ },
  { name: 'JSON values beyond the float range', file: 'a.jsonl', text: jsonl('1e400', '1e401'), line: 1, expected: /^a finite number, not 1e400/ },
  { name: 'JSON values below the float range', file: 'a.jsonl', text: jsonl('1e-400', '0'), line: 1, expected: /^a number that a 64-bit float holds as written, not 1e-400 \(it would read as 0/ },
  { name: 'JSON decimals with more digits than a float', file: 'a.jsonl', text: jsonl('0.1', '0.10000000000000001'), line: 2, expected: /not 0\.10000000000000001 \(it would read as 0\.1/ },
  // Times: 9007199254740995 rounds to ...996, making the write end where the read begins.
  { name: 'JSON times beyond 2^53', file: 'a.jsonl', text: jsonl('1', 'null', ['0', '9007199254740995', '9007199254740996', '9007199254740997']), line: 1, expected: /not 9007199254740995/ },
  { name: 'JSON times with more digits than a float', file: 'a.jsonl', text: jsonl('1', 'null', ['0', '1712345678.123456789', '1712345678.12345679', '1712345679']), line: 1, expected: /it would read as 1712345678\.1234567/ },
  { name: 'JSON duplicate keys (the value)', file: 'a.jsonl', text: '{"client": 0, "input": {"f": "write", "value": 1, "value": 2}, "call": 0}', line: 1, expected: /^an object without duplicate keys \("value" appears twice/ },
  { name: 'JSON duplicate keys, one spelled with an escape', file: 'a.jsonl', text: '{"client": 0, "input": {"f": "read"}, "call": 0, "c\\u0061ll": 5, "return": 6, "output": 1}', line: 1, expected: /"call" appears twice/ },
  { name: 'JSON duplicate keys in a value', file: 'a.jsonl', text: jsonl('{"a": 1, "a": 2}', '{"a": 2}'), line: 1, expected: /"a" appears twice/ },
  { name: "Jepsen's JSON form: integer key and string key", file: 'a.jsonl', model: 'kv-append', line: 3, expected: /^one type per key: "1" is a string here and an integer on line 1/,
    text: [op({ process: 0, type: 'invoke', f: 'put', key: 1, value: 'x' }), op({ process: 0, type: 'ok', f: 'put', key: 1, value: 'x' }), op({ process: 1, type: 'invoke', f: 'get', key: '1', value: null }), op({ process: 1, type: 'ok', f: 'get', key: '1', value: 'x' })].join('\n') },
  { name: "Jepsen's JSON form: process beyond 2^53", file: 'a.jsonl', line: 1, expected: /not 9007199254740993/, text: '{"process": 9007199254740993, "type": "invoke", "f": "read", "value": null}' },
  // EDN: values a plain conversion would make equal.
  { name: 'EDN keyword and string', file: 'a.edn', text: edn(':a', '"a"'), line: 4, expected: /^one spelling per value: "a" is a string here and a keyword on line 1/ },
  { name: 'EDN symbol and string', file: 'a.edn', text: edn('a', '"a"'), line: 4, expected: /a string here and a symbol on line 1/ },
  { name: 'EDN character and string', file: 'a.edn', text: edn('\\a', '"a"'), line: 4, expected: /a string here and a character on line 1/ },
  { name: 'EDN integer and float', file: 'a.edn', text: edn('1', '1.0'), line: 4, expected: /1 is a float here and an integer on line 1/ },
  { name: 'EDN float and decimal', file: 'a.edn', text: edn('1.5', '1.5M'), line: 4, expected: /a decimal \(M\) here and a float on line 1/ },
  { name: 'EDN decimal with more digits than a float', file: 'a.edn', text: edn('0.1M', '0.10000000000000000001M'), line: 4, expected: /^a decimal that a 64-bit float holds exactly/ },
  { name: 'EDN integer with leading zeros (octal in Clojure)', file: 'a.edn', text: edn('010', '10'), line: 1, expected: /^an integer without leading zeros, not 010/ },
  { name: 'EDN map keys :a and "a"', file: 'a.edn', text: edn('{:a 1}', '{"a" 1}'), line: 4, expected: /one spelling per value: the map key "a" is a string here and a keyword on line 1/ },
  { name: 'EDN map keys that collide as strings', file: 'a.edn', text: edn('{1 :x, "1" :y}', 'nil'), line: 1, expected: /^map keys that stay distinct as strings/ },
  { name: 'EDN map with a repeated key', file: 'a.edn', text: edn('{:a 1, :a 2}', 'nil'), line: 1, expected: /^a map without duplicate keys \(:a appears twice\)/ },
  { name: 'EDN map with a repeated integer key (1 and 1N)', file: 'a.edn', text: edn('{1 :a, 1N :b}', 'nil'), line: 1, expected: /duplicate keys \(1 appears twice\)/ },
  { name: 'EDN set with a repeated member', file: 'a.edn', text: edn('#{1 1}', 'nil'), line: 1, expected: /^a set without duplicate members/ },
  { name: 'EDN set members that collide once read', file: 'a.edn', text: edn('#{[1 2] (1 2)}', 'nil'), line: 1, expected: /^a set whose members stay distinct/ },
  { name: 'EDN keys :k and "k"', file: 'a.edn', model: 'kv-append', line: 3, expected: /^one spelling per key: "k" is a string here and a keyword on line 1/,
    text: ['{:process 0, :type :invoke, :f :put, :key :k, :value "x"}', '{:process 0, :type :ok, :f :put, :key :k, :value "x"}', '{:process 1, :type :invoke, :f :get, :key "k", :value nil}', '{:process 1, :type :ok, :f :get, :key "k", :value "x"}'].join('\n') },
  { name: 'EDN keys 1 and "1"', file: 'a.edn', model: 'kv-append', line: 3, expected: /^one type per key/,
    text: ['{:process 0, :type :invoke, :f :put, :key 1, :value "x"}', '{:process 0, :type :ok, :f :put, :key 1, :value "x"}', '{:process 1, :type :invoke, :f :get, :key "1", :value nil}', '{:process 1, :type :ok, :f :get, :key "1", :value "x"}'].join('\n') },
  // Jepsen logs: the value is EDN; the process must not round or lose zeros.
  { name: 'jepsen log: keyword and string values', file: 'a.log', text: log(':a', '"a"'), line: 4, expected: /one spelling per value/ },
  { name: 'jepsen log: a process beyond 2^53', file: 'a.log', text: 'INFO  jepsen.util - 9007199254740993\t:invoke\t:read\tnil', line: 1, expected: /^a process: an integer ≥ 0 \(below 2\^53/ },
  { name: 'jepsen log: a process with leading zeros', file: 'a.log', text: 'INFO  jepsen.util - 007\t:invoke\t:read\tnil', line: 1, expected: /without leading zeros/ },
];

describe('readers keep every value exact or refuse the history', () => {
  for (const c of refused) {
    it(c.name, () => {
      const model = models[c.model ?? 'cas-register']!;
      const e = inputErrorOf(() => importHistoryText(c.text, c.file, { model }));
      expect(e.line).toBe(c.line);
      expect(e.expected).toMatch(c.expected);
    });
  }

  it('the histories above that are illegal as written are not read as linearizable', () => {
    // A lossy reader made them legal (equal values, or a write ending where the read
    // begins); as written, they are refused rather than checked.
    for (const c of refused.slice(0, 6)) expect(() => verdict(c.text, c.file, 'cas-register')).toThrow(InputError);
  });

  it('reads what a float holds exactly, in any spelling of the same value', () => {
    expect(verdict(jsonl('9007199254740991', '9007199254740991'), 'a.jsonl', 'cas-register')).toBe('ok');
    expect(verdict(jsonl('1.5', '1.50'), 'a.jsonl', 'cas-register')).toBe('ok');
    expect(verdict(jsonl('100', '1e2'), 'a.jsonl', 'cas-register')).toBe('ok');
    expect(verdict(jsonl('0.1', '0.1'), 'a.jsonl', 'cas-register')).toBe('ok');
    expect(verdict(jsonl('1e300', '1E+300'), 'a.jsonl', 'cas-register')).toBe('ok');
    expect(verdict(jsonl('-0', '0'), 'a.jsonl', 'cas-register')).toBe('ok');
    expect(verdict(jsonl('1', '2'), 'a.jsonl', 'cas-register')).toBe('illegal');
    expect(verdict(edn('1N', '1'), 'a.edn', 'cas-register')).toBe('ok');
    expect(verdict(edn(':a', ':a'), 'a.edn', 'cas-register')).toBe('ok');
    expect(verdict(edn('-0', '0'), 'a.edn', 'cas-register')).toBe('ok');
    expect(verdict(edn('2.0', '2.0'), 'a.edn', 'cas-register')).toBe('ok');
  });

  it('reads EDN sets by their members: #{1 2} is #{2 1}, and not [1 2]', () => {
    expect(verdict(edn('#{1 2}', '#{2 1}'), 'a.edn', 'cas-register')).toBe('ok');
    expect(verdict(edn('#{1 2}', '[1 2]'), 'a.edn', 'cas-register')).toBe('illegal');
    expect(verdict(edn('[1 2]', '[2 1]'), 'a.edn', 'cas-register')).toBe('illegal');
    // The set model still reads its reads as the members.
    const setHistory = [
      '{:process 0, :type :invoke, :f :add, :value 1}',
      '{:process 0, :type :ok, :f :add, :value 1}',
      '{:process 1, :type :invoke, :f :read, :value nil}',
      '{:process 1, :type :ok, :f :read, :value #{1}}',
    ].join('\n');
    expect(verdict(setHistory, 'a.edn', 'set')).toBe('ok');
    expect(verdict(setHistory.replace('#{1}', '#{}'), 'a.edn', 'set')).toBe('illegal');
  });
});

describe('the exact JSON reader', () => {
  it('compares decimal values, not spellings', () => {
    expect(decimalKey('1.50')).toBe(decimalKey('1.5'));
    expect(decimalKey('1500')).toBe(decimalKey('1.5e3'));
    expect(decimalKey('1.5e+21')).toBe(decimalKey('1500000000000000000000'));
    expect(decimalKey('-0.000')).toBe('0');
    expect(decimalKey('0.1')).not.toBe(decimalKey('0.10000000000000001'));
    expect(inexactNumber('123')).toBeUndefined();
    expect(inexactNumber('-9007199254740991')).toBeUndefined();
    expect(inexactNumber('-9007199254740992')).toMatch(/integer within/);
    expect(inexactNumber('5e-324')).toBeUndefined();
    expect(inexactNumber('2e-324')).toMatch(/would read as 0/);
  });

  it('is linear: a line with many keys, numbers and escapes costs about 8 times as much at 8 times the size (64 if quadratic)', () => {
    const line = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k\\u00${(i % 90) + 10}${i}": [${i}.5, -0, "\\n\\"", 1e${i % 300}]`).join(', ')}}`;
    expect(growth((text: string) => parseJson(text, 'f', 1, 8), line, 5_000)).toBeLessThan(32);
  });

  it('normalises -0 to 0, and refuses __proto__ and deep nesting', () => {
    expect(Object.is(parseJson('-0', 'f', 1, 8), 0)).toBe(true);
    expect(Object.is((parseJson('{"a": [-0.0]}', 'f', 1, 8) as { a: number[] }).a[0], 0)).toBe(true);
    expect(inputErrorOf(() => parseJson('{"a": {"__proto__": 1}}', 'f', 1, 8)).expected).toMatch(/__proto__/);
    expect(inputErrorOf(() => parseJson('[[[[1]]]]', 'f', 1, 3)).expected).toMatch(/nested at most 3/);
    // Keys of different objects may repeat; strings that look like keys are not keys.
    expect(parseJson('[{"a": 1}, {"a": 2}, "a", {"b": {"a": "a"}, "a": 3}]', 'f', 1, 8)).toHaveLength(4);
  });
});

describe('protocol traces are read exactly too', () => {
  const event = (extra: string) => `{"proc": "c1", "seq": 1, "action": "casBackup", ${extra}}`;

  it('reads a header and events', () => {
    expect(parseTraceLine('{"format": "interleave-trace/1", "spec": "fusee", "params": {"r": 3}}', 't', 1)).toEqual({ header: { format: 'interleave-trace/1', spec: 'fusee', params: { r: 3 } } });
    expect(parseTraceLine(event('"args": {"key": "k", "prior": 5}, "obj": "mn1/k", "objSeq": 2'), 't', 2)).toMatchObject({ event: { proc: 'c1', args: { prior: 5 }, objSeq: 2 } });
    expect(parseTraceLine('  ', 't', 3)).toBeUndefined();
  });

  it('refuses values, counters and times a float would round, and repeated keys', () => {
    expect(inputErrorOf(() => parseTraceLine(event('"args": {"prior": 9007199254740993}'), 't', 4)).expected).toMatch(/integer within/);
    expect(inputErrorOf(() => parseTraceLine(event('"time": 1e400'), 't', 4)).expected).toMatch(/finite number/);
    expect(inputErrorOf(() => parseTraceLine(event('"obs": {"rep[1]": 1, "rep[1]": 2}'), 't', 4)).expected).toMatch(/"rep\[1\]" appears twice/);
    expect(inputErrorOf(() => parseTraceLine('{"proc": "c1", "seq": 1, "seq": 2, "action": "a"}', 't', 4)).expected).toMatch(/"seq" appears twice/);
    expect(inputErrorOf(() => parseTraceLine(event('"obj": "mn1/k"'), 't', 4)).expected).toMatch(/exactly one of "objSeq"/);
    expect(inputErrorOf(() => parseTraceLine('{"format": "interleave-trace/1"}', 't', 2)).expected).toMatch(/first line only/);
    const e = inputErrorOf(() => parseTraceLine('[1]', 't', 7));
    expect([e.file, e.line]).toEqual(['t', 7]);
  });
});
