import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, labelOverlaps, launch, openReport } from './browser.ts';
import { checkHistorySync } from '../lin/index.ts';
import type { Operation } from '../lin/types.ts';
import { renderLinHtml } from './lin-html.ts';

/** The marks a page's timeline draws (its data attribute, unescaped as the browser does). */
function marks(html: string): unknown[] {
  const attr = /data-timeline="([^"]*)"/.exec(html)![1];
  return JSON.parse(attr.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))).marks;
}

describe('lin HTML annotations (a run\u2019s fault windows)', () => {
  const ops: Operation[] = Array.from({ length: 600 }, (_, i) => ({ client: i % 3, input: { f: 'put', key: 'k', value: String(i) }, call: 10 * i, ret: 10 * i + 5, output: null }));

  it('draws each window across the timeline it overlaps, escaped, and centres a long one on the first', () => {
    const result = checkHistorySync('kv-append', ops);
    const html = renderLinHtml(result, ops, 'kv-append', { maxBars: 400, annotations: [{ from: 4000, to: 4200, label: 'pause <cp0>', detail: 'pause cp0 "4 s"' }, { from: 5000, label: 'kill-mn mn1' }] });
    expect(marks(html)).toHaveLength(2);
    expect(html).toContain('pause &#60;cp0&#62;');
    expect(html).not.toContain('<cp0>');
    expect(html).toContain('the window around the first annotated window');
    const far = renderLinHtml(result, ops, 'kv-append', { annotations: [{ from: 99_999, label: 'late' }] });
    expect(marks(far)).toEqual([]); // outside every drawn timeline: listed only
    expect(far).toContain('<li>late:');
  });
});

describe.skipIf(!browserAvailable)('lin HTML annotations in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shades the windows across the lanes and labels them over the axis, without overlaps', async () => {
    const ops: Operation[] = Array.from({ length: 300 }, (_, i) => ({ client: i % 3, input: { f: 'put', key: 'k', value: String(i) }, call: 10 * i, ret: 10 * i + 5, output: null }));
    const result = checkHistorySync('kv-append', ops);
    const html = renderLinHtml(result, ops, 'kv-append', { annotations: [{ from: 100, to: 400, label: 'pause <cp0>', detail: 'pause cp0 "4 s"' }, { from: 500, label: 'kill-mn mn1' }] });
    const { page, errors, screenshot } = await openReport(browser, html, 'lin-annotations');
    expect(await page.locator('svg.timeline .mark rect').count()).toBeGreaterThanOrEqual(1); // opens on the first
    expect(await labelOverlaps(page)).toEqual([]);
    await page.getByRole('button', { name: 'fit' }).click();
    expect(await page.locator('svg.timeline .mark rect').count()).toBe(2);
    expect(await page.locator('svg.timeline .mark-label text').allTextContents()).toEqual(['pause <cp0>', 'kill-mn mn1']);
    expect(await labelOverlaps(page)).toEqual([]);
    await page.locator('svg.timeline .mark-label').first().hover();
    await expect.poll(() => page.locator('#tooltip').textContent()).toBe('pause cp0 "4 s"');
    await screenshot();
    expect(errors).toEqual([]);
  });
});
