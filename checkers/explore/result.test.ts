// Coverage counting (result.ts) against a plain count by label family: labels made anew at
// every step or shared, empty, many families, long enabled lists (its cache of recent
// labels per position must never give a label another's family).

import { describe, expect, it } from 'vitest';
import { Coverage } from './result.ts';
import type { Action } from './types.ts';

describe('Coverage', () => {
  it('counts each family as a plain Map count would', () => {
    let x = 0x1234567;
    const rnd = (n: number) => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) % n;
    };
    const names = ['a', 'b', 'send', 'recv', ''];
    const coverage = new Coverage(['declared', 'a']);
    const expected = new Map<string, number>([['declared', 0], ['a', 0]]);
    for (let s = 0; s < 5000; s++) {
      const enabled: Action[] = [];
      for (let k = rnd(s % 10 === 0 ? 150 : 8); k > 0; k--) {
        const r = rnd(40);
        // New strings every time (as `p${p}.read` makes them), with arguments or without,
        // some of the same length as others.
        const label = r < 25 ? `${names[r % names.length]}(${rnd(3)})` : r < 35 ? `f${rnd(30)}` : `${names[r % names.length]}`;
        enabled.push({ label });
        const paren = label.indexOf('(');
        const family = paren < 0 ? label : label.slice(0, paren);
        expected.set(family, (expected.get(family) ?? 0) + 1);
      }
      coverage.count(enabled);
    }
    const plain = [...expected].map(([family, enabled]) => ({ family, enabled })).sort((a, b) => (a.family < b.family ? -1 : a.family > b.family ? 1 : 0));
    expect(coverage.list()).toEqual(plain);
    expect(plain.length).toBeGreaterThan(16);
  });

  it('counts families first met when kept lists are folded or counts merged, past the 16 it starts with', () => {
    // minos E-synch on words lost one enabled persistencySpin_L25 this way (35, not 36):
    // the count went to the array that growing the counts replaced.
    const lists = Array.from({ length: 40 }, (_, i): Action[] => [{ label: `f${i}(${i})` }, { label: 'g' }]);
    const byList = new Coverage();
    const byAction = new Coverage();
    for (const list of lists) {
      byList.countList(list);
      byAction.count(list);
    }
    expect(new Map(byList.entries())).toEqual(new Map(byAction.entries()));
    const merged = new Coverage();
    merged.merge(byAction.entries());
    expect(new Map(merged.entries())).toEqual(new Map(byAction.entries()));
    expect(byAction.entries().length).toBe(41);
  });

  it('counts kept lists (countList) as count() counts them, also past the lists it remembers', () => {
    const pool = Array.from({ length: 5000 }, (_, i): Action[] => Array.from({ length: i % 5 }, (_, j) => ({ label: `f${(i * 7 + j) % 13}(${j})` })));
    const byList = new Coverage(['never']);
    const byAction = new Coverage(['never']);
    for (let s = 0; s < 20000; s++) {
      const list = pool[(s * 2654435761) % 5000 >>> 0];
      byList.countList(list);
      byAction.count(list);
      if (s === 9000) expect(byList.list()).toEqual(byAction.list());
    }
    expect(byList.list()).toEqual(byAction.list());
    // The families come in another order (first met when folded), each with the same count.
    expect(new Map(byList.entries())).toEqual(new Map(byAction.entries()));
    // Lists made anew for every state: past the lists it remembers, it stops looking them up.
    const fresh = new Coverage();
    const plain = new Coverage();
    for (let s = 0; s < 10000; s++) {
      const list = [{ label: `g${s % 3}` }, { label: 'h(1)' }];
      fresh.countList(list);
      plain.count(list);
    }
    expect(fresh.list()).toEqual(plain.list());
  });
});
