// Counterexample pages as a person reads them: a counterexample of each spec, opened in
// Chromium. The specs are reached through cli/spec-machine.ts (test only: the report
// module itself never imports a spec).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exploreSync } from '../explore/index.ts';
import type { Counterexample, Machine } from '../explore/types.ts';
import { specMachine } from '../../cli/spec-machine.ts';
import { browserAvailable, inFirstScreen, labelOverlaps, launch, openReport } from './browser.ts';
import { findMessages, renderCounterexampleHtml } from './explore-html.ts';

// One quick counterexample per spec (each found in well under a second by BFS).
const CASES = [
  ['shadowfax', 'B0', 'M2'],
  ['fusee', 'A0', 'M4'],
  ['minos', 'A-synch', 'M2'],
  ['rowan', 'RK-1', 'M2'],
  ['swarm', 'lock-n1', 'M12'],
] as const;

function counterexample(spec: string, config: string, mutant: string): { cx: Counterexample; machine: Machine } {
  const result = exploreSync(specMachine(spec, config, mutant), { maxStates: 1_000_000 });
  expect(result.status).toBe('violation');
  return { cx: result.violations[0], machine: specMachine(spec, config, mutant) };
}

describe('counterexample HTML, without a browser', () => {
  it('finds messages: an element one actor adds to a list and another removes', () => {
    const states = [{ net: [] }, { net: [{ to: 'B', v: 1 }] }, { net: [{ to: 'B', v: 1 }, { to: 'A', v: 2 }] }, { net: [{ to: 'A', v: 2 }] }];
    expect(findMessages(states, ['A', 'A', 'B'], new Set())).toEqual([{ from: 1, to: 3, path: 'net', value: { to: 'B', v: 1 } }]);
    // The same actor taking back what it added is no message.
    expect(findMessages(states, ['A', 'A', 'A'], new Set())).toEqual([]);
  });

  it("hides the fields each spec declares internal (Machine.internal), and only those", () => {
    for (const [spec, config, mutant] of CASES) {
      const { cx, machine } = counterexample(spec, config, mutant);
      expect([spec, (machine.internal ?? []).length > 0]).toEqual([spec, true]);
      const html = renderCounterexampleHtml(cx, machine, { title: spec });
      const declared = [...html.matchAll(/show ghost and monitor fields \(([^)]*)\)/g)].map((m) => m[1]);
      expect([spec, declared[0]]).toEqual([spec, machine.internal!.join(', ')]);
    }
  });

  it('stays under its byte bound by leaving out early states, and says so', () => {
    const big = { log: Array.from({ length: 800 }, (_, i) => ({ i, pad: 'x'.repeat(20) })) };
    const cx: Counterexample = {
      property: 'P',
      message: 'm',
      initial: big,
      steps: Array.from({ length: 30 }, (_, k) => ({ action: { label: `a${k}` }, state: { ...big, n: k }, changes: [{ path: 'n', before: k - 1, after: k }] })),
    };
    const machine = { init: () => [big], actions: () => [], next: (s: unknown) => s, invariants: {} } as unknown as Machine;
    const html = renderCounterexampleHtml(cx, machine, { title: 't', maxBytes: 400_000 });
    expect(html.length).toBeLessThanOrEqual(400_000);
    expect(html).toContain('This state is not drawn');
  });
});

describe.skipIf(!browserAvailable)('counterexample HTML in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  for (const [spec, config, mutant] of CASES) {
    it(`reads at a glance: ${spec}/${config} with ${mutant}`, async () => {
      const { cx, machine } = counterexample(spec, config, mutant);
      const html = renderCounterexampleHtml(cx, machine, { title: `${spec}/${config} with ${mutant}` });
      expect(html.length).toBeLessThan(4_000_000);
      const { page, errors, screenshot } = await openReport(browser, html, `explore-${spec}-${mutant}`);
      const n = cx.steps.length;
      // The failure: the violated property's message beside the failing state, in the first screen.
      expect(await page.locator(`[data-state="${n}"]`).isVisible()).toBe(true);
      expect(await inFirstScreen(page, `[data-state="${n}"] .violated`)).toBe(true);
      expect(await page.locator(`[data-state="${n}"] .violated`).textContent()).toContain(cx.message);
      expect(await page.locator(`[data-state="${n}"] .tree .changed`).count()).toBeGreaterThan(0);
      // Changed leaves read before → after.
      const leaf = page.locator(`[data-state="${n}"] .tree .leaf.changed:has(del)`).first();
      if ((await leaf.count()) > 0) expect(await leaf.textContent()).toMatch(/: .+ → .+/);
      // The sequence diagram: one lane per process, a step per row, and no label over anything.
      expect(await page.locator('svg.sequence .seq-step').count()).toBe(n);
      expect(await labelOverlaps(page, 'svg.sequence, svg.timeline')).toEqual([]);
      await screenshot();
      // Another step, then the ghost fields.
      await page.locator('svg.sequence .seq-step[data-step="1"] .row').click();
      expect(await page.locator('[data-state="1"]').isVisible()).toBe(true);
      expect(await page.locator(`[data-state="${n}"]`).isVisible()).toBe(false);
      const ghosts = page.locator('[data-state="1"] .tree .internal');
      if ((await ghosts.count()) > 0) {
        expect(await ghosts.first().isVisible()).toBe(false);
        await page.locator('input[data-toggle-class="show-internal"]').check();
        expect(await ghosts.first().isVisible()).toBe(true);
      }
      expect(errors).toEqual([]);
    });
  }

  it('draws messages as arrows from send to delivery (minos)', async () => {
    const { cx, machine } = counterexample('minos', 'A-synch', 'M2');
    const { page, errors } = await openReport(browser, renderCounterexampleHtml(cx, machine, { title: 'minos' }), 'explore-minos-messages');
    expect(await page.locator('svg.sequence .message .arrow').count()).toBeGreaterThan(0);
    const arrow = await page.locator('svg.sequence .message .arrow').first().boundingBox();
    expect(arrow!.width).toBeGreaterThan(20); // between two lanes
    await page.locator('svg.sequence .message').first().hover();
    await expect.poll(() => page.locator('#tooltip').textContent()).toMatch(/^message net, sent at step \d+, delivered at step \d+/);
    expect(errors).toEqual([]);
  });

  it('runs nothing from a crafted state, labels or message and shows them as text', async () => {
    const evil = '<img src=x onerror="window.__pwned=1">';
    const cx: Counterexample = {
      property: evil,
      message: evil,
      initial: { q: [], [evil]: 1 },
      steps: [
        { action: { label: evil }, state: { q: [{ m: evil }], [evil]: 1 }, changes: [{ path: 'q.length', before: 0, after: 1 }] },
        { action: { label: `b ${evil}` }, state: { q: [], [evil]: 2 }, changes: [{ path: 'q.length', before: 1, after: 0 }] },
      ],
    };
    const machine = { init: () => [cx.initial], actions: () => [], next: (s: unknown) => s, invariants: {}, actor: (a: { label: string }) => (a.label.startsWith('b') ? `B${evil}` : `A${evil}`) } as unknown as Machine;
    const { page, errors } = await openReport(browser, renderCounterexampleHtml(cx, machine, { title: evil }), 'explore-crafted');
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('#message').textContent()).toBe(evil);
    expect(await page.locator('svg.sequence .message').count()).toBe(1);
    expect(errors).toEqual([]);
  });
});
