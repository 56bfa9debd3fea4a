import { describe, expect, it } from 'vitest';
import { referenceBfs } from './reference.ts';
import { racyCounter } from './fixtures/racy-counter.ts';

describe('reference BFS', () => {
  it('counts the racy counter exactly', () => {
    expect(referenceBfs(racyCounter(2, 2))).toMatchObject({ states: 57, transitions: 82, depth: 8, incomplete: false });
    expect(referenceBfs(racyCounter(3, 3))).toMatchObject({ states: 7646, transitions: 18843, depth: 18 });
  });

  it('finds the shortest lost update', () => {
    const r = referenceBfs(racyCounter(2, 1, { lostUpdateIsBug: true }));
    expect(r.violation?.property).toBe('noLostUpdate');
    expect(r.violation?.path.map((a) => a.label)).toEqual(['p0.read', 'p1.read', 'p0.write', 'p1.write']);
  });

  it('says when a state budget stopped it', () => {
    expect(referenceBfs(racyCounter(2, 2), { maxStates: 10 })).toMatchObject({ states: 10, incomplete: true });
  });
});
