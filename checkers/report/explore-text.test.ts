import { describe, expect, it } from 'vitest';
import { exploreSync } from '../explore/index.ts';
import { racyCounter } from '../explore/fixtures/racy-counter.ts';
import type { Counterexample } from '../explore/types.ts';
import { counterexampleLines, renderCounterexample, renderExploreText, show, TEXT_CHANGES, TEXT_HEAD, TEXT_REPLAY, TEXT_STEPS, TEXT_TAIL } from './explore-text.ts';

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

  // round 4 D2: a 20,000-step counterexample of 200-element states printed 130 MB.
  describe('a long counterexample is bounded, and says what it left out', () => {
    const step = (i: number, fields: number) => ({
      action: { label: `inc(${i})` },
      state: { n: i + 1, arr: Array.from({ length: fields }, (_, j) => i + 1 + j) },
      changes: [{ path: 'n', before: i, after: i + 1 }, ...Array.from({ length: fields }, (_, j) => ({ path: `arr[${j}]`, before: i + j, after: i + 1 + j }))],
    });
    const cx = (steps: number, fields: number, extra: Partial<Counterexample> = {}): Counterexample => ({
      property: 'small',
      message: `n = ${steps}`,
      initial: { n: 0, arr: Array.from({ length: fields }, (_, j) => j) },
      steps: Array.from({ length: steps }, (_, i) => step(i, fields)),
      ...extra,
    });

    it('a short one is printed whole, as before', () => {
      const text = renderCounterexample(cx(3, 2));
      expect(text).toBe(
        [
          'small violated: n = 3',
          '  initial state: {n: 0, arr: [0, 1]}',
          '    1. inc(0)',
          '         n: 0 -> 1',
          '         arr[0]: 0 -> 1',
          '         arr[1]: 1 -> 2',
          '    2. inc(1)',
          '         n: 1 -> 2',
          '         arr[0]: 1 -> 2',
          '         arr[1]: 2 -> 3',
          '    3. inc(2)',
          '         n: 2 -> 3',
          '         arr[0]: 2 -> 3',
          '         arr[1]: 3 -> 4',
          '  replay: --replay "inc(0);inc(1);inc(2)"',
        ].join('\n'),
      );
      expect(renderCounterexample(cx(TEXT_STEPS, 1)).split('\n')).toHaveLength(2 + TEXT_STEPS * 3 + 1);
    });

    it('past TEXT_STEPS steps the middle is one line; past TEXT_CHANGES fields a step counts the rest', () => {
      const lines = [...counterexampleLines(cx(2000, 200, { lassoStart: 500 }))];
      // each shown step: its label and TEXT_CHANGES lines
      expect(lines.length).toBe(2 + (TEXT_HEAD + TEXT_TAIL) * (1 + TEXT_CHANGES) + 2 + 1);
      expect(lines).toContain(`  … 1,500 steps elided (${TEXT_HEAD + 1} to 1,600 of 2,000; the cycle starts at step 501): --json or --itf has every step`);
      const at = lines.findIndex((l) => l.startsWith('  … 1,500 steps elided'));
      expect(lines[at - 1 - TEXT_CHANGES]).toBe(`  ${TEXT_HEAD}. inc(${TEXT_HEAD - 1})`);
      expect(lines[at + 1]).toMatch(/^ {2}state after step 1,600: \{n: 1600, arr: \[1600, 1601, .*…$/);
      expect(lines[at + 2]).toBe('  1601. inc(1600)');
      expect(lines[at + 2 + TEXT_CHANGES]).toBe(`         … and ${201 - (TEXT_CHANGES - 1)} more changed fields (--json lists them all)`);
      expect(lines.at(-1)).toMatch(/^ {2}replay: --replay "inc\(0\);.*;inc\(1999\)"$/);
      expect(lines.every((l) => l.length <= 500 || l.startsWith('  replay: '))).toBe(true);
      expect(replayLine(cx(20_000, 0))).toMatch(/^ {2}replay: the path of 20,000 steps is too long for one argument \(208,889 characters\): --json has its labels/);
      // a path under the bound is printed whole
      expect(replayLine(cx(TEXT_STEPS + 1, 0))).toMatch(/^ {2}replay: --replay "inc\(0\);/);
      expect(TEXT_REPLAY).toBeLessThan(128 * 1024);
    });

    it('a value is rendered only as far as it is shown, and shown as before', () => {
      const big = Array.from({ length: 1_000_000 }, (_, i) => i);
      expect(show(big, 60)).toBe(`${JSON.stringify(big.slice(0, 40)).replaceAll(',', ', ').slice(0, 59)}…`);
      const nested = { m: new Map([['k', new Set([1, 'x'])]]), s: 'a'.repeat(10_000), t: new Uint8Array([1, 2]) };
      expect(show(nested, 1000)).toBe(`{m: Map{"k" => Set{1, "x"}}, s: "${'a'.repeat(10_000)}", t: [1, 2]}`.slice(0, 999) + '…');
      expect(show({ a: [1, { b: 2n }], u: undefined, n: null })).toBe('{a: [1, {b: 2n}], u: undefined, n: null}');
    });
  });
});

function replayLine(c: Counterexample): string {
  return [...counterexampleLines(c)].at(-1)!;
}
