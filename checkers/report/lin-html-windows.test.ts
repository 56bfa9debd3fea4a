// Issue 19: on large histories the report draws a window around the failure and every
// other operation is on a window page linked from it (renderLinReport), each page within
// the 2 MB bound. Checked on the largest corpus history with small windows (its
// partitions fit one page at the default bound) and on a generated history of 9,000
// operations at the default bounds: in Chromium, from the report, navigation reaches the
// first and the last operation, the failure is in the first screen, no label overlaps,
// no console error, no request leaves the page's directory, values stay text.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHistory } from '../lin/index.ts';
import { models } from '../lin/models/index.ts';
import type { LinResult, Operation } from '../lin/types.ts';
import { importHistoryText } from '../../traces/index.ts';
import { ARTIFACTS, browserAvailable, inFirstScreen, labelOverlaps, launch } from './browser.ts';
import { renderLinReport, type LinHtmlOptions } from './lin-html.ts';

const corpus = new URL('../../../shared/corpora/porcupine/', import.meta.url);
const EVIL = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">`;

/** A register history of n operations by 6 clients, each overlapping the next; the read at `bad` returns a value never written. */
function generated(n: number, bad: number): Operation[] {
  let last: unknown = null;
  return Array.from({ length: n }, (_, i) => {
    const client = i % 6 === 5 ? EVIL : `c${i % 6}`;
    const op: Operation = i % 3 === 0 ? { client, input: { f: 'write', value: i }, call: 10 * i, ret: 10 * i + 15, output: null } : { client, input: { f: 'read' }, call: 10 * i, ret: 10 * i + 15, output: i === bad ? 'bogus' : last };
    if (i % 3 === 0) last = i;
    return op;
  });
}

interface Case {
  name: string;
  model: string;
  history: () => Operation[];
  options: LinHtmlOptions;
}

const CASES: Case[] = [
  {
    name: 'c50-bad',
    model: 'kv-append',
    history: () => importHistoryText(readFileSync(new URL('kv/c50-bad.txt', corpus), 'utf8'), 'kv/c50-bad.txt', { model: models['kv-append'] }).operations,
    options: { file: 'kv/c50-bad.txt', maxBars: 100 },
  },
  { name: 'generated-9000', model: 'register', history: () => generated(9000, 6001), options: { file: EVIL } },
];

/** The operations (by their #index in the history) a page's timelines draw. */
const drawnOps = (html: string): number[] =>
  [...html.matchAll(/data-timeline="([^"]*)"/g)].flatMap((m) => {
    const json = m[1].replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
    return (JSON.parse(json) as { ops: unknown[][] }).ops.map((o) => Number(/^#(\d+)/.exec(String(o[4]))![1]));
  });

const rendered = new Map<string, { history: Operation[]; result: LinResult; html: string; windows: { name: string; html: string }[] }>();
async function render(c: Case) {
  if (!rendered.has(c.name)) {
    const history = c.history();
    const result = await checkHistory(c.model, history, { timeoutMs: 60_000 });
    const report = renderLinReport(result, history, c.model, { ...c.options, windows: { dir: 'report.windows', main: 'report.html' } });
    rendered.set(c.name, { history, result, ...report });
  }
  return rendered.get(c.name)!;
}

describe('lin report windows, without a browser', () => {
  for (const c of CASES) {
    it(`${c.name}: every page within 2 MB, every operation on a page, the failure on the report`, async () => {
      const { history, result, html, windows } = await render(c);
      expect(result.verdict).toBe('illegal');
      expect(windows.length).toBeGreaterThan(2);
      for (const page of [html, ...windows.map((w) => w.html)]) expect(page.length).toBeLessThanOrEqual(2_000_000);
      const onPages = new Set([html, ...windows.map((w) => w.html)].flatMap(drawnOps));
      expect(onPages.size).toBe(history.length);
      expect(html).toMatch(/Showing \d+ of \d+ operations/);
      // The report links each window it names, and nothing else outside itself.
      const links = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
      for (const l of links) expect(windows.map((w) => `report.windows/${w.name}`)).toContain(l);
    });
  }

  it('without windows the report is the same page as before: no links', async () => {
    const { history, result } = await render(CASES[1]);
    const plain = renderLinReport(result, history, 'register', { file: 'x' });
    expect(plain.windows).toEqual([]);
    expect(plain.html).not.toContain('href=');
  });
});

describe.skipIf(!browserAvailable)('lin report windows in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  for (const c of CASES) {
    it(`${c.name}: from the report, navigation reaches the first and last operations`, async () => {
      const { history, result, html, windows } = await render(c);
      const dir = join(ARTIFACTS, `lin-windows-${c.name}`);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(join(dir, 'report.windows'), { recursive: true });
      writeFileSync(join(dir, 'report.html'), html);
      for (const w of windows) writeFileSync(join(dir, 'report.windows', w.name), w.html);
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const errors: string[] = [];
      const elsewhere: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('request', (r) => {
        if (!r.url().startsWith(pathToFileURL(dir).href)) elsewhere.push(r.url());
      });
      const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `lin-windows-${c.name}-${name}.png`) });
      const check = async () => {
        expect(await labelOverlaps(page)).toEqual([]);
        expect(await page.evaluate('window.__pwned')).toBeUndefined();
        expect(await page.locator('script').count()).toBe(1);
      };
      // The report: opens on the failure.
      await page.goto(pathToFileURL(join(dir, 'report.html')).href);
      expect(await inFirstScreen(page, '.bar.failure rect')).toBe(true);
      await check();
      await shot('report');
      const byCall = [...history.keys()].sort((a, b) => history[a].call - history[b].call || a - b);
      const section = page.locator('section[data-verdict="illegal"]').first();
      const partition = Number(await section.getAttribute('data-partition'));
      const mine = new Set(result.partitions.find((p) => p.index === partition)!.operations);
      const ofPartition = byCall.filter((i) => mine.has(i));
      // First: the partition's first operation by call.
      await section.locator('nav.windows').getByRole('link', { name: '⇤ first' }).click();
      await page.waitForLoadState();
      expect(page.url()).toMatch(new RegExp(`report\\.windows/p${partition}-w1\\.html$`));
      const first = ofPartition[0];
      // (a window holding the failure opens on it: pan to the start)
      await page.locator('.tl-scroll').first().evaluate((e) => {
        e.scrollLeft = 0;
      });
      await page.waitForTimeout(100);
      const firstBar = page.locator(`.bar[data-detail^="#${first} client"] rect`);
      expect(await firstBar.count()).toBe(1);
      expect(await inFirstScreen(page, `.bar[data-detail^="#${first} client"] rect`)).toBe(true);
      await check();
      await shot('first');
      // Last: the partition's last operation, reached by panning to the end.
      await page.getByRole('link', { name: 'last ⇥' }).click();
      await page.waitForLoadState();
      const last = ofPartition[ofPartition.length - 1];
      await page.locator('.tl-scroll').first().evaluate((e) => {
        e.scrollLeft = e.scrollWidth;
      });
      await page.waitForTimeout(100);
      expect(await page.locator(`.bar[data-detail^="#${last} client"] rect`).count()).toBe(1);
      expect(await inFirstScreen(page, `.bar[data-detail^="#${last} client"] rect`)).toBe(true);
      await check();
      await shot('last');
      // Previous, then back to the report.
      const lastName = page.url().split('/').pop()!;
      await page.getByRole('link', { name: '← previous' }).click();
      await page.waitForLoadState();
      expect(page.url().split('/').pop()).not.toBe(lastName);
      expect(await page.locator('nav.windows a[aria-current="page"]').count()).toBe(1);
      await page.getByRole('link', { name: 'report.html' }).click();
      await page.waitForLoadState();
      expect(await inFirstScreen(page, '.bar.failure rect')).toBe(true);
      expect(errors).toEqual([]);
      expect(elsewhere).toEqual([]);
      await page.close();
    });
  }
});
