import { describe, expect, it } from 'vitest';
import { exploreSync } from '../explore/index.ts';
import { racyCounter } from '../explore/fixtures/racy-counter.ts';
import { renderExploreText } from './explore-text.ts';

describe('the explorer report in words', () => {
  it('numbers the steps, shows what each changed and the path to replay', () => {
    const r = exploreSync({ ...racyCounter(2, 1, { lostUpdateIsBug: true }), actionNames: ['p0.read', 'p9.crash'] });
    const text = renderExploreText(r, 'racy');
    expect(text).toMatch(/^racy: 1 property violated/);
    expect(text).toContain('noLostUpdate violated: x = 1 after 2 increments');
    expect(text).toMatch(/ {2}3\. p0\.write\n {9}x: 0 -> 1\n/);
    expect(text).toContain('replay: --replay "p0.read;p1.read;p0.write;p1.write"');
    expect(text).toContain('never enabled: p9.crash');
  });

  it('says INCOMPLETE and why when a budget cut the run', () => {
    const text = renderExploreText(exploreSync(racyCounter(2, 2), { maxStates: 10 }));
    expect(text).toMatch(/INCOMPLETE/);
    expect(text).toContain('stopped early: state budget of 10 reached');
  });

  it("a swarm's sum over jobs is not called distinct states (review defect 13)", () => {
    const r = { ...exploreSync(racyCounter(2, 2), { maxStates: 10 }), states: 284, statesSummedOverJobs: 4 };
    const text = renderExploreText(r);
    expect(text).toContain('284 states visited, summed over 4 jobs (distinct within a job, not across jobs)');
    expect(text).not.toMatch(/\d distinct states/);
    expect(renderExploreText(exploreSync(racyCounter(2, 2)))).toMatch(/\d+ distinct states, /);
  });
});
