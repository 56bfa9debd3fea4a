import { describe, expect, it } from 'vitest';
import { COMMITTED, encodeOld, Layout, OLD_EMPTY, valueOf, writerOf } from './layout.ts';
import { evaluateRules, mergeEntry, rule3 } from './snapshot.ts';

const none = new Set<string>();
const FAIL = -1;

describe('EVALUATE_RULES (Alg. 2)', () => {
  it('decides as the paper\u2019s rules do, by replication factor', () => {
    // r = 3 (m = 2): Rule 1 or a 1-1 split (Rule 3 after the re-read); Rule 2 is unreachable
    expect(evaluateRules([5, 5], 5, none)).toBe('R1');
    expect(evaluateRules([7, 7], 5, none)).toBe('LOSE');
    expect(evaluateRules([5, 7], 5, none)).toBe('CANDIDATE');
    expect(evaluateRules([7, 9], 5, none)).toBe('LOSE'); // l.10: v_new not in v_list
    // r = 4 (m = 3): Rule 2 on a strict majority
    expect(evaluateRules([5, 5, 7], 5, none)).toBe('R2');
    expect(evaluateRules([5, 7, 7], 5, none)).toBe('LOSE');
    expect(evaluateRules([5, 7, 9], 5, none)).toBe('CANDIDATE');
    // any FAIL short-circuits (l.4); no backup left: the writer CASes the primary (X§5.1 item 5)
    expect(evaluateRules([5, FAIL], 5, none)).toBe('FAIL');
    expect(evaluateRules([], 5, none)).toBe('R1');
    expect(rule3([5, 7], 5, none)).toBe('R3');
    expect(rule3([5, 3], 5, none)).toBe('LOSE');
  });

  it('changes as each bug flag says', () => {
    expect(evaluateRules([5, 7], 5, new Set(['M1']))).toBe('LOSE'); // no Rule 3
    expect(evaluateRules([5, 7], 5, new Set(['M3']))).toBe('R2'); // 2*1 >= 2
    expect(evaluateRules([7, 5], 7, new Set(['M3']))).toBe('R2'); // both writers of a split win
    expect(evaluateRules([7, 9], 5, new Set(['M21']))).toBe('CANDIDATE');
    expect(rule3([5, 7], 5, new Set(['M20']))).toBe('LOSE');
    expect(evaluateRules([5, 5, 7], 5, new Set(['M22']))).toBe('CANDIDATE'); // 2*2 > 4 fails
  });
});

describe('log entries over their replicas', () => {
  const e = (vNew: number, ver: number, used: number, old: number) => [vNew, 0, ver, used, old];

  it('count the most advanced copy, and the master\u2019s commit on any replica', () => {
    expect(mergeEntry([])).toBeUndefined();
    expect(mergeEntry([[0, 0, 0, 0, 0]])).toBeUndefined();
    expect(mergeEntry([e(10, 1, 1, OLD_EMPTY), e(10, 2, 1, encodeOld(0))])).toMatchObject({ vNew: 10, ver: 2, old: encodeOld(0) });
    expect(mergeEntry([e(10, 3, 0, OLD_EMPTY), e(10, 2, 1, encodeOld(0))])).toMatchObject({ used: 0 });
    expect(mergeEntry([e(10, 1, 1, COMMITTED), e(10, 2, 1, OLD_EMPTY)])).toMatchObject({ old: COMMITTED });
    // a newer op in the ring slot wins over an older one
    expect(mergeEntry([e(10, 4, 0, OLD_EMPTY), e(14, 1, 1, OLD_EMPTY)])).toMatchObject({ vNew: 14, ver: 1 });
    expect(mergeEntry([e(14, 1, 1, OLD_EMPTY), e(10, 4, 0, COMMITTED)])).toMatchObject({ vNew: 14, old: OLD_EMPTY });
  });
});

describe('layout', () => {
  it('places keys on consecutive nodes and values name their writer', () => {
    const l = new Layout(['k0', 'k1', 'k2'], 4, 3);
    for (let k = 0; k < 3; k++) {
      const reps = l.replicas(k);
      expect(new Set(reps).size).toBe(3);
      expect(reps[1]).toBe((reps[0] + 1) % 4);
      const roles = l.roles(k, new Set([reps[0]]));
      expect(roles.primary).toBe(reps[1]);
      expect(roles.backups).toEqual([reps[2]]);
    }
    expect(writerOf(valueOf(17, 5))).toEqual({ client: 17, op: 5 });
    expect(valueOf(4095, 2 ** 24 - 1)).toBeLessThan(2 ** 53);
    expect(() => l.logAddr(0, 1)).toThrow(RangeError);
  });
});
