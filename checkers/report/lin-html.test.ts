import { existsSync, readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHistory, checkHistorySync } from '../lin/index.ts';
import type { LinResult, Operation } from '../lin/types.ts';
import { importHistoryText } from '../../traces/index.ts';
import { models } from '../lin/models/index.ts';
import { browserAvailable, inFirstScreen, labelOverlaps, launch, openReport } from './browser.ts';
import { esc } from './html.ts';
import { PAGE_SCRIPT } from './page-script.ts';
import { renderLinHtml } from './lin-html.ts';

const corpus = new URL('../../../shared/corpora/porcupine/', import.meta.url);
const load = (file: string, model: string) =>
  importHistoryText(readFileSync(new URL(file, corpus), 'utf8'), file, { model: models[model] }).operations;

describe('lin HTML, without a browser', () => {
  it('inlines a page script that parses, backslashes intact', () => {
    expect(() => new Function(PAGE_SCRIPT)).not.toThrow();
    expect(PAGE_SCRIPT).toContain(String.raw`/\.?0+$/`);
  });

  it('escapes every character that could open markup', () => {
    expect(esc(`<img src=x onerror="a('b')">&\``)).toBe('&#60;img src=x onerror=&#34;a(&#39;b&#39;)&#34;&#62;&#38;&#96;');
  });

  it('says why a result is unknown: the memory bound reached, with the hint, escaped (before: nothing)', () => {
    const history = load('kv/c10-bad.txt', 'kv-append-unpartitioned');
    const model = { ...models['kv-append-unpartitioned'], refute: undefined };
    const r = checkHistorySync(model, history, { memoLimitMB: 1 });
    expect(r.partitions[0]).toMatchObject({ reason: 'memory', memoryLimit: { of: 'memo', bytes: 2 ** 20 } });
    const html = renderLinHtml(r, history, model, { hint: 'raise it with --memo-budget <MB>' });
    expect(html).toContain('<p class="why-unknown">The search&#39;s memo reached its memory budget (1 MB) before the search could decide.</p>');
    expect(html).toContain('<p class="hint">raise it with --memo-budget &#60;MB&#62;</p>');
    expect(html).toContain(`(${history.length} operations, memory (the memo&#39;s bound, 1 MB))`);
    const late = checkHistorySync(model, history, { timeoutMs: 0 });
    expect(late.partitions[0].reason).toBe('timeout');
    expect(renderLinHtml(late, history, model)).toContain('<p class="why-unknown">The time budget ran out before the search could decide.</p>');
    // A decided result says nothing of the kind.
    expect(renderLinHtml(checkHistorySync('kv-append-unpartitioned', history), history, 'kv-append-unpartitioned')).not.toContain('why-unknown');
  });

  it('stays bounded on the largest corpus histories', async () => {
    for (const [file, model] of [
      ['kv/c50-bad.txt', 'kv-append'],
      ['kv/c50-ok.txt', 'kv-append'],
      ['jepsen/etcd_000.log', 'etcd-cas-register'],
    ] as const) {
      expect(existsSync(new URL(file, corpus))).toBe(true);
      const history = load(file, model);
      const result = await checkHistory(model, history, { timeoutMs: 60_000 });
      const html = renderLinHtml(result, history, model, { file });
      expect(html.length).toBeLessThan(2_000_000);
      expect(html).toContain('data-timeline=');
    }
  });

  it('shrinks the windows until the page fits its byte budget, and says so', () => {
    const ops: Operation[] = Array.from({ length: 3000 }, (_, i) => ({ client: i % 7, input: { f: 'put', key: 'k', value: 'v'.repeat(50) + i }, call: 10 * i, ret: 10 * i + 15, output: null }));
    const result = { verdict: 'ok', operations: ops.length, elapsedMs: 1, partitions: [{ index: 0, verdict: 'ok', operations: ops.map((_, i) => i), linearization: ops.map((_, i) => i) }] } as unknown as LinResult;
    const big = renderLinHtml(result, ops, 'kv-append', { maxBytes: 10_000_000 });
    const small = renderLinHtml(result, ops, 'kv-append', { maxBytes: 400_000 });
    expect(big.length).toBeGreaterThan(400_000);
    expect(small.length).toBeLessThanOrEqual(400_000);
    expect(small).toMatch(/Showing \d+ of 3000 operations/);
  });
});

describe.skipIf(!browserAvailable)('lin HTML in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows an illegal etcd history: timeline, longest partial linearization, stuck operations, hover details', async () => {
    const file = 'jepsen/etcd_000.log';
    const history = load(file, 'etcd-cas-register');
    const result = await checkHistory('etcd-cas-register', history, { timeoutMs: 60_000 });
    expect(result.verdict).toBe('illegal');
    const { page, errors, screenshot } = await openReport(browser, renderLinHtml(result, history, 'etcd-cas-register', { file }), 'lin-etcd_000');
    expect(await page.textContent('#verdict')).toBe('NOT linearizable');
    expect(await page.locator('section[data-verdict="illegal"] svg.timeline .bar').count()).toBeGreaterThan(10);
    expect(await page.locator('.bar.stuck').count()).toBeGreaterThan(0);
    expect(await page.locator('ol.linearization li').count()).toBeGreaterThan(0);
    await page.locator('.bar.stuck rect').first().hover();
    const tip = page.locator('#tooltip');
    await expect.poll(() => tip.isVisible()).toBe(true);
    expect(await tip.textContent()).toMatch(/input: .*\n.*output: .*\n.*call: \d+/s);
    await screenshot();
    expect(errors).toEqual([]);
  });

  // The acceptance: on the largest corpus histories the failure is in the first
  // screen and marked, no label overlaps another element (before and after zooming and
  // panning), and the page stays under its 2 MB bound.
  for (const [file, model, name] of [
    ['kv/c50-bad.txt', 'kv-append', 'lin-c50-bad'],
    ['kv/c50-ok.txt', 'kv-append', 'lin-c50-ok'],
    ['kv/c10-bad.txt', 'kv-append', 'lin-c10-bad'],
    ['jepsen/etcd_000.log', 'etcd-cas-register', 'lin-etcd_000-glance'],
  ] as const) {
    it(`reads at a glance: ${file}`, async () => {
      const history = load(file, model);
      const result = await checkHistory(model, history, { timeoutMs: 60_000 });
      const html = renderLinHtml(result, history, model, { file });
      expect(html.length).toBeLessThan(2_000_000);
      const { page, errors, screenshot } = await openReport(browser, html, name);
      if (result.verdict === 'illegal') {
        expect(await page.locator('.tl').first().locator('.bar.failure').count()).toBe(1);
        expect(await inFirstScreen(page, '.bar.failure rect')).toBe(true);
        expect(await inFirstScreen(page, '.failure-flag text')).toBe(true);
        expect(await page.locator('.bar.failure').first().getAttribute('data-detail')).toMatch(/^#\d+ client/);
      }
      expect(await page.locator('svg.timeline .axis text').count()).toBeGreaterThan(3);
      expect(await labelOverlaps(page)).toEqual([]);
      await screenshot();
      // Zoom in and out, fit, pan: still no overlaps, and zooming changes the bars' widths.
      const tl = page.locator('.tl').first();
      const width = async () => (await tl.locator('.tl-spacer').boundingBox())!.width;
      const before = await width();
      await tl.getByRole('button', { name: '+' }).click();
      expect(await width()).toBeGreaterThan(before);
      expect(await labelOverlaps(page)).toEqual([]);
      await tl.getByRole('button', { name: 'fit' }).click();
      expect(await labelOverlaps(page)).toEqual([]);
      await tl.getByRole('button', { name: '−' }).click();
      await tl.locator('.tl-scroll').evaluate((e) => { e.scrollLeft += 400; });
      await page.waitForTimeout(50);
      expect(await labelOverlaps(page)).toEqual([]);
      if (result.verdict === 'illegal') {
        await tl.getByRole('button', { name: 'failure' }).click();
        expect(await tl.locator('.bar.failure').count()).toBe(1);
      }
      expect(errors).toEqual([]);
    });
  }

  it('shows a linearizable kv history with its linearization points', async () => {
    const file = 'kv/c01-ok.txt';
    const history = load(file, 'kv-append');
    const result = await checkHistory('kv-append', history);
    expect(result.verdict).toBe('ok');
    const { page, errors, screenshot } = await openReport(browser, renderLinHtml(result, history, 'kv-append', { file }), 'lin-c01-ok');
    expect(await page.textContent('#verdict')).toBe('linearizable');
    expect(await page.locator('svg.timeline .point').count()).toBeGreaterThan(0);
    await page.locator('.bar rect').first().hover();
    await expect.poll(() => page.locator('#tooltip').isVisible()).toBe(true);
    await screenshot();
    expect(errors).toEqual([]);
  });

  it('runs nothing from a crafted history and shows its values as text', async () => {
    const evil = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">`;
    const history: Operation[] = [
      { client: evil, input: { f: 'write', value: evil }, call: 0, ret: 2, output: null },
      { client: 'b"><svg onload="window.__pwned=3">', input: { f: 'read' }, call: 1, ret: 3, output: 'other' },
    ];
    const result = await checkHistory('register', history);
    const { page, errors } = await openReport(browser, renderLinHtml(result, history, 'register', { file: evil }), 'lin-crafted');
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('script').count()).toBe(1);
    expect(await page.locator('img, svg [onload]').count()).toBe(0);
    expect(await page.textContent('h1')).toContain(evil);
    await page.locator('.bar[data-op="0"] rect').hover();
    expect(await page.locator('#tooltip').textContent()).toContain(evil);
    expect(errors).toEqual([]);
  });
});
