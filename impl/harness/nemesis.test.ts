import { describe, expect, it } from 'vitest';
import { MIN_NEMESIS_DURATION_S, notInjected, planFaults } from './nemesis.ts';
import type { Target } from './types.ts';

const targets: Target[] = [
  { name: 'mn0', role: 'server' },
  { name: 'mn1', role: 'server' },
  { name: 'mn2', role: 'server' },
  { name: 'master', role: 'coordinator' },
  { name: 'cp0', role: 'client' },
  { name: 'cp1', role: 'client' },
];
const all = ['kill-mn', 'kill-client', 'pause', 'partition', 'net'];

describe('fault schedules', () => {
  it('follow from the seed', () => {
    expect(planFaults(all, 30_000, targets, 2, 's1')).toEqual(planFaults(all, 30_000, targets, 2, 's1'));
    expect(planFaults(all, 30_000, targets, 2, 's1')).not.toEqual(planFaults(all, 30_000, targets, 2, 's2'));
    expect(planFaults(['none'], 30_000, targets, 2, 's1')).toEqual([]);
  });

  it('stay within the run, the server-fault budget, and one fault at a time (but for mixed crashes)', () => {
    for (let seed = 0; seed < 50; seed++) {
      for (const kinds of [all, ['kill-mn'], ['pause'], ['partition'], ['kill-mn', 'kill-client'], ['net']]) {
        const plan = planFaults(kinds, 30_000, targets, 2, String(seed));
        const serverFaults = plan.filter((f) => f.target.startsWith('mn'));
        expect(serverFaults.length).toBeLessThanOrEqual(2);
        expect(new Set(serverFaults.map((f) => f.target)).size).toBe(serverFaults.length);
        for (const f of plan) {
          expect(kinds).toContain(f.kind);
          expect(f.at).toBeGreaterThanOrEqual(1000);
          expect(f.at).toBeLessThan(30_000);
        }
        const solo = plan.filter((f) => !(kinds.includes('kill-client') && kinds.includes('kill-mn') && f.kind === 'kill-mn'));
        for (let i = 1; i < solo.length; i++) expect(solo[i].at).toBeGreaterThanOrEqual(solo[i - 1].at + solo[i - 1].duration);
      }
      const mixed = planFaults(['kill-mn', 'kill-client'], 30_000, targets, 2, String(seed));
      for (const k of mixed.filter((f) => f.kind === 'kill-mn')) {
        expect(mixed.some((c) => c.kind === 'kill-client' && k.at - c.at >= 100 && k.at - c.at < 1300)).toBe(true);
      }
    }
  });

  it('power and kill: one full-system failure per run, at a seeded moment anywhere in it, beside the other faults', () => {
    const servers: Target[] = [0, 1, 2].map((i) => ({ name: `n${i}`, role: 'server' }));
    const moments = new Set<number>();
    for (let seed = 0; seed < 50; seed++) {
      for (const kinds of [['power'], ['kill'], ['power', 'kill'], ['power', 'pause', 'partition']]) {
        const plan = planFaults(kinds, 30_000, servers, 3, String(seed));
        const crashes = plan.filter((f) => f.kind === 'power' || f.kind === 'kill');
        expect(crashes.length).toBe(1);
        const c = crashes[0];
        expect(c.at).toBeGreaterThanOrEqual(1000);
        expect(c.at).toBeLessThan(29_000);
        expect(c.target).toBe(c.kind === 'power' ? 'all' : c.target);
        if (c.kind === 'kill') expect(servers.map((t) => t.name)).toContain(c.target);
        moments.add(c.at);
        // with no client processes, pauses and partitions hit servers
        for (const f of plan) if (f.kind === 'pause' || f.kind === 'partition') expect(f.target).toMatch(/^n\d$/);
      }
    }
    expect(moments.size).toBeGreaterThan(50); // spread over the run, not a fixed instant
  });

  it(`a run of ${MIN_NEMESIS_DURATION_S} s or more gets a fault of any one nemesis; 2 s or less gets none (cli/run.ts refuses those)`, () => {
    for (let seed = 0; seed < 50; seed++) {
      for (const kind of [...all, 'power', 'kill']) {
        const servers = kind === 'power' || kind === 'kill' ? targets.filter((t) => t.role === 'server') : targets;
        expect(planFaults([kind], MIN_NEMESIS_DURATION_S * 1000, servers, 2, String(seed)).length).toBeGreaterThan(0);
        if (kind !== 'power' && kind !== 'kill') expect(planFaults([kind], 2000, servers, 2, String(seed))).toEqual([]);
      }
    }
  });

  it('name the requested nemeses of which no fault was injected', () => {
    expect(notInjected(['none'], [])).toEqual([]);
    expect(notInjected(['kill-mn', 'pause'], [{ kind: 'pause' }])).toEqual(['kill-mn']);
    expect(notInjected(['kill-mn'], [])).toEqual(['kill-mn']);
  });
});
