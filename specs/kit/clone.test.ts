import { describe, expect, it } from 'vitest';
import { clonePlain } from './clone.ts';

describe('clonePlain', () => {
  it('copies deeply, so changing the copy leaves the original alone', () => {
    const original = { a: [1, { b: 2 }], c: null, d: 'x', e: { f: [true] } };
    const copy = clonePlain(original);
    expect(copy).toEqual(original);
    (copy.a[1] as { b: number }).b = 3;
    copy.e.f.push(false);
    expect(original).toEqual({ a: [1, { b: 2 }], c: null, d: 'x', e: { f: [true] } });
  });
});
