import { describe, expect, it } from 'vitest';
import { listDiff, plain, stateTree } from './state-tree.ts';

describe('state trees and their diffs', () => {
  it('diffs lists by identity: a queue losing its head shows one element removed', () => {
    const edits = listDiff([{ m: 1 }, { m: 2 }, { m: 3 }], [{ m: 2 }, { m: 3 }]);
    expect(edits.map((e) => e.kind)).toEqual(['removed', 'same', 'same']);
    expect(listDiff([1, 2, 3], [2, 3, 4]).map((e) => e.kind)).toEqual(['removed', 'same', 'same', 'added']);
  });

  it('compares slots (equal lengths) by position when that explains the change in fewer edits', () => {
    expect(listDiff([{ a: 1 }, null], [null, null]).map((e) => e.kind)).toEqual(['changed', 'same']);
    expect(listDiff([1, 2, 3], [1, 9, 3]).map((e) => e.kind)).toEqual(['same', 'changed', 'same']);
  });

  it('stays bounded on long lists (position by position above 200,000 cells)', () => {
    const a = Array.from({ length: 1000 }, (_, i) => i);
    const b = [...a.slice(1), 1000];
    expect(listDiff(a, b)).toHaveLength(1000);
  });

  it('highlights changed leaves with before → after, marks removed and added elements, folds the rest', () => {
    const before = { q: [{ id: 1 }, { id: 2 }], x: 1, big: { a: 'a'.repeat(80), b: 2 } };
    const after = { q: [{ id: 2 }], x: 2, big: before.big };
    const html = stateTree(after, before);
    expect(html).toMatch(/<div class="leaf changed " data-path="x"><span class="key">x<\/span>: <del>1<\/del> → <ins>2<\/ins><\/div>/);
    expect(html).toContain('class="leaf removed changed" data-path="q[0]"');
    expect(html).toMatch(/<details class="node "><summary><span class="key">big<\/span>/); // unchanged: folded
  });

  it('marks ghost fields internal and escapes every value', () => {
    const html = stateTree({ g: { lin: '<b>' }, ['<i>']: '"x"' }, undefined, { internal: new Set(['g']) });
    expect(html).toContain('class="leaf internal"');
    expect(html).toContain('&#60;i&#62;');
    expect(html).not.toContain('<i>');
    expect(html).not.toContain('<b>');
  });

  it('makes Maps, Sets and bigints plain', () => {
    expect(plain({ m: new Map([['k', 1n]]), s: new Set([1]) })).toEqual({ m: { k: '1n' }, s: [1] });
  });
});
