import { describe, expect, it } from 'vitest';
import { EdnChar, EdnFloat, EdnFormStream, EdnMap, EdnSet, EdnSymbol, Keyword, readForms, type Form } from './edn.ts';
import { inputErrorOf } from './input-error-of.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import { growth } from './scaling.ts';

const read = (text: string) => readForms(text, 'f.edn', 1, DEFAULT_LIMITS).map((f) => f.value);

describe('EDN reader', () => {
  it('reads scalars', () => {
    expect(read('nil true false 42 -7 +3 10N 1.5 2e3 1.25M "a\\"b\\n\\u0041" \\a \\newline')).toEqual([
      null, true, false, 42, -7, 3, 10, new EdnFloat(1.5), new EdnFloat(2000), new EdnFloat(1.25, true), 'a"b\nA', new EdnChar('a'), new EdnChar('\n'),
    ]);
  });

  it('keeps integers beyond 2^53 exact as bigints', () => {
    expect(read('9007199254740993')).toEqual([9007199254740993n]);
  });

  it('reads keywords, symbols and collections', () => {
    const [m] = read('{:process 3, :type :invoke, :f :cas, :value [4 0], :s #{1 2}, :l (a b)}');
    expect(m).toBeInstanceOf(EdnMap);
    const map = m as EdnMap;
    expect(map.get('process')).toBe(3);
    expect((map.get('type') as Keyword).name).toBe('invoke');
    expect(map.get('value')).toEqual([4, 0]);
    expect((map.get('s') as EdnSet).items).toEqual([1, 2]);
    expect((map.get('l') as EdnSymbol[]).map((s) => s.name)).toEqual(['a', 'b']);
  });

  it('skips comments, commas and #_ discarded forms', () => {
    expect(read('; a comment\n1, #_ 2 3 ; trailing\n#_{:a 1}')).toEqual([1, 3]);
  });

  it('reads #jepsen.history.Op records as maps and refuses other tags', () => {
    const [m] = read('#jepsen.history.Op{:index 0, :type :ok}');
    expect((m as EdnMap).get('index')).toBe(0);
    expect(inputErrorOf(() => read('#inst "2020-01-01"')).expected).toMatch(/tagged literal #inst/);
  });

  it('reports the line where a string or collection was opened', () => {
    const e = inputErrorOf(() => readForms('1\n{:a "abc\n\n', 'f.edn', 10, DEFAULT_LIMITS));
    expect(e.line).toBe(11);
    expect(e.expected).toMatch(/closing " for the string opened on line 11/);
    const e2 = inputErrorOf(() => readForms('\n[1 2\n{:a 1}', 'f.edn', 1, DEFAULT_LIMITS));
    expect(e2.line).toBe(2);
    expect(e2.expected).toMatch(/closing ] for the \[ opened on line 2/);
  });

  it('refuses mismatched brackets, odd maps, duplicate keys and deep nesting', () => {
    expect(inputErrorOf(() => read('[1 2}')).expected).toMatch(/closing ] .* not }/);
    expect(inputErrorOf(() => read('{:a}')).expected).toMatch(/value for every key/);
    expect(inputErrorOf(() => read('{:a 1 :a 2}')).expected).toMatch(/duplicate keys/);
    expect(inputErrorOf(() => read('['.repeat(100) + ']'.repeat(100))).expected).toMatch(/nested at most 64/);
    expect(inputErrorOf(() => read('1/2')).expected).toMatch(/a number/);
    expect(inputErrorOf(() => read('::foo')).expected).toMatch(/keyword/);
  });
});

describe('EDN form stream', () => {
  function stream(lines: string[]): Form[] {
    const forms: Form[] = [];
    const s = new EdnFormStream('f.edn', DEFAULT_LIMITS, (f) => forms.push(f));
    lines.forEach((l, i) => s.push(l, i + 1));
    s.end(lines.length);
    return forms;
  }

  it('reads one map per line and maps spanning lines, with their lines', () => {
    const forms = stream(['{:a 1}', '', '{:b', ' "x\\"}"', '}  {:c 3}']);
    expect(forms.map((f) => f.line)).toEqual([1, 3, 5]);
    expect((forms[1]!.value as EdnMap).get('b')).toBe('x"}');
  });

  it('reads the elements of a top-level vector one by one', () => {
    const forms = stream(['; history', '[{:a 1}', ' {:a 2} {:a', '3}', ']']);
    expect(forms.map((f) => (f.value as EdnMap).get('a'))).toEqual([1, 2, 3]);
    expect(forms.map((f) => f.line)).toEqual([2, 3, 3]);
  });

  it('refuses content after the history vector and an unclosed vector', () => {
    expect(inputErrorOf(() => stream(['[{:a 1}]', '{:a 2}'])).expected).toMatch(/nothing after the closing ]/);
    const e = inputErrorOf(() => stream(['', '({:a 1}', '{:a 2}']));
    expect(e.line).toBe(2);
    expect(e.expected).toMatch(/closing \) for the history opened on line 2/);
  });

  it('bounds the size of one form', () => {
    const limits = { ...DEFAULT_LIMITS, maxLineBytes: 100 };
    const s = new EdnFormStream('f.edn', limits, () => {});
    s.push('{:a "never closed', 1);
    const e = inputErrorOf(() => {
      for (let i = 2; i < 20; i++) s.push('xxxxxxxxxxxxxxxxxxxx', i);
    });
    expect(e.line).toBe(1);
    expect(e.expected).toMatch(/EDN form of at most 100 bytes/);
  });
});

// The cost of an input 8 times larger: about 8 times (up to twice that with the garbage
// collector's share), 64 times for a quadratic reader.
describe('EDN reader: linear time and a bounded stack on hostile input', () => {
  const limits = { ...DEFAULT_LIMITS, maxLineBytes: 1 << 30 };
  const readAll = (text: string) => readForms(text, 'f.edn', 1, limits);

  it('a map with many keys (a map of 95k keys took 49 s)', () => {
    const map = (n: number) => `{${Array.from({ length: n }, (_, i) => `:k${i} ${i}`).join(' ')}}`;
    expect(growth(readAll, map, 20_000)).toBeLessThan(32);
  });

  it('a string of escapes, and a set with many members', () => {
    expect(growth(readAll, (n) => `"${'\\n'.repeat(n)}"`, 100_000)).toBeLessThan(32);
    expect(growth(readAll, (n) => `#{${Array.from({ length: n }, (_, i) => i).join(' ')}}`, 20_000)).toBeLessThan(32);
  });

  it('chains of #_ discards are read in a loop: no stack overflow', () => {
    expect(read(`${'#_ '.repeat(100_000)}${'1 '.repeat(100_000)}2`)).toEqual([2]);
    expect(read(`[${'#_'.repeat(100_000)}${' x'.repeat(100_000)}]`)).toEqual([[]]);
  });

  it('chains of tags count against the depth limit', () => {
    expect(inputErrorOf(() => read(`${'#jepsen.history.Op '.repeat(100_000)}{}`)).expected).toMatch(/nested at most 64/);
    expect(read(`${'#jepsen.history.Op '.repeat(10)}{:a 1}`)[0]).toBeInstanceOf(EdnMap);
  });

  it('characters named after Object.prototype members are refused, not read as functions', () => {
    expect(inputErrorOf(() => read('\\constructor')).expected).toMatch(/a character/);
    expect(inputErrorOf(() => read('\\toString')).expected).toMatch(/a character/);
  });
});
