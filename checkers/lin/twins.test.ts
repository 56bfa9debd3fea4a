import { describe, expect, it } from 'vitest';
import { models } from './models/index.ts';
import type { Operation } from './types.ts';
import { wglSearch } from './wgl.ts';

// Twin updates (equal input and output) are tried once per frame: the first to return.
// Equal is valueEqual's: an object value's key order does not matter.
describe('twin updates', () => {
  // Six concurrent writes, then reads of the first three values in turn (illegal: the
  // register holds one value once every write has returned, so the search tries them all).
  // reorder: the last three inputs with their keys in the other order.
  const explored = (writes: unknown[], reorder = false): number => {
    const ops: Operation[] = writes.map((value, i) => ({ client: i, input: reorder && i >= 3 ? { value, f: 'write' } : { f: 'write', value }, call: i, ret: 20 + i, output: null }));
    for (let i = 0; i < 3; i++) ops.push({ client: 6 + i, input: { f: 'read' }, call: 30 + 2 * i, ret: 31 + 2 * i, output: writes[(i + 2) % 3] });
    const r = wglSearch(models.register, ops);
    expect(r.verdict).toBe('illegal');
    return r.explored;
  };

  it('are found among objects whatever their key order, as among numbers', () => {
    const numbers = explored([1, 2, 3, 1, 2, 3]);
    const values = [{ a: 1, b: ['x', { c: null }] }, { a: 2, b: 'y' }, { b: 3, a: [1] }];
    const reordered = values.map((v) => Object.fromEntries(Object.entries(v).reverse()));
    expect(explored([...values, ...reordered], true)).toBe(numbers);
    // Without twins (six distinct values) the search tries more.
    expect(explored([1, 2, 3, 11, 12, 13])).toBeGreaterThan(numbers);
  });
});
