import { existsSync, readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHistory } from '../lin/index.ts';
import type { Operation } from '../lin/types.ts';
import { importHistoryText } from '../../traces/index.ts';
import { models } from '../lin/models/index.ts';
import { browserAvailable, launch, openReport } from './browser.ts';
import { esc } from './html.ts';
import { renderLinHtml } from './lin-html.ts';

const corpus = new URL('../../../shared/corpora/porcupine/', import.meta.url);
const load = (file: string, model: string) =>
  importHistoryText(readFileSync(new URL(file, corpus), 'utf8'), file, { model: models[model] }).operations;

describe('lin HTML, without a browser', () => {
  it('escapes every character that could open markup', () => {
    expect(esc(`<img src=x onerror="a('b')">&\``)).toBe('&#60;img src=x onerror=&#34;a(&#39;b&#39;)&#34;&#62;&#38;&#96;');
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
      expect(html).toContain('class="timeline"');
    }
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
    await page.locator('.bar rect').first().hover();
    expect(await page.locator('#tooltip').textContent()).toContain(evil);
    expect(errors).toEqual([]);
  });
});
