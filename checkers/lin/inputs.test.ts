// What a JavaScript caller gets wrong reaches it in the contract's words (review3 defect 5):
// a model object without its members, a history that is no array. (A registered model's
// name and an array history, the fast path, are untouched: the other tests cover them.)
import { describe, expect, it } from 'vitest';
import { checkHistory, checkHistorySync } from './index.ts';

const op = { client: 0, input: { f: 'write', value: 1 }, call: 0, ret: 1 };

describe('the checker refuses inputs that are not a model or a history', () => {
  it('a history that is no array: a TypeError saying what it is', async () => {
    for (const [history, what] of [[null, 'null'], ['abc', 'the string "abc"'], [undefined, 'undefined'], [{}, 'an object that is not an array']] as const) {
      expect(() => checkHistorySync('register', history as never)).toThrow(TypeError);
      expect(() => checkHistorySync('register', history as never)).toThrow(`history: an array of operations {client, input, call, ret?, output?}; it is ${what}`);
      await expect(checkHistory('register', history as never)).rejects.toThrow(/history: an array of operations/);
    }
  });

  it('an operation that is no object (null, undefined, a number): a TypeError naming the operation (round 4 D1)', async () => {
    for (const [bad, what] of [[null, 'null'], [undefined, 'undefined'], [5, 'number 5'], ['x', 'the string "x"']] as const) {
      const message = `operation 1: expected an operation object {client, input, call, ret?, output?}, got ${what}`;
      expect(() => checkHistorySync('register', [op, bad] as never)).toThrow(TypeError);
      expect(() => checkHistorySync('register', [op, bad] as never)).toThrow(message);
      await expect(checkHistory('register', [op, bad] as never)).rejects.toThrow(message);
    }
    // a hole in a sparse array reads as undefined
    expect(() => checkHistorySync('register', [op, , op] as never)).toThrow('operation 1: expected an operation object');
  });

  it('a model object without name, init or step: a TypeError naming what it lacks', () => {
    expect(() => checkHistorySync({} as never, [op])).toThrow(/a model: a registered model's name, or an object \{name, init\(\), step\(state, input, output\)\}.*; it lacks name \(a string; it is undefined\), init\(\) \(it is undefined\), step\(\) \(it is undefined\)/);
    expect(() => checkHistorySync(null as never, [op])).toThrow(/a model: .*; it is null/);
    // the value is named as the explorer's contract errors name it (one brief, brief.ts; round 4 D4)
    expect(() => checkHistorySync({ name: ['x'], init: () => 0, step: () => ({ ok: true, state: 0 }) } as never, [op])).toThrow(/; it lacks name \(a string; it is an array of 1\)$/);
    expect(() => checkHistorySync({ name: 'x', init: () => 0 } as never, [op])).toThrow(/it lacks step\(\)/);
    expect(() => checkHistorySync({ name: 'x', init: () => 0, nondeterministic: true, next: () => 0 } as never, [op])).toThrow(/it lacks step\(\)/);
    // a model with next and no step (JavaScript callers) is checked by its next
    expect(checkHistorySync({ name: 'x', init: () => 0, next: (s: number) => s } as never, [op]).verdict).toBe('ok');
  });
});
