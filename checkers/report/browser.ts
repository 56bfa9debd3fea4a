// Test support: opens a report in Debian's headless Chromium through playwright-core
// (which downloads no browser), collecting console errors and uncaught exceptions, and
// saving pages and screenshots under artifacts/html/ for people to look at.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = resolve(import.meta.dirname, '../../artifacts/html');

/** Browser tests run where a Chromium is installed, and must run in CI (.ci/run installs it). */
export const browserAvailable = existsSync(CHROMIUM) || process.env.CI === 'true';

export interface OpenedPage {
  page: Page;
  /** Console errors and uncaught exceptions, as text. */
  errors: string[];
  screenshot(): Promise<string>;
}

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
}

export async function openReport(browser: Browser, html: string, name: string): Promise<OpenedPage> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, `${name}.html`);
  writeFileSync(file, html);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(file).href);
  return {
    page,
    errors,
    async screenshot() {
      const png = join(ARTIFACTS, `${name}.png`);
      await page.screenshot({ path: png, fullPage: false });
      return png;
    },
  };
}

export interface Box {
  what: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Labels that overlap another element, from the elements' boxes as Chromium laid them out:
 * every text of the timelines against every other text, bar, point and line of text, except
 * a bar's own label inside its own bar. Returns the pairs that overlap (empty: none).
 */
export async function labelOverlaps(page: Page, scope = 'svg.timeline'): Promise<string[]> {
  // A string, not a function: tsx's helpers (__name) do not exist in the page.
  return page.evaluate(`(() => {
    const found = [];
    const name = (e) => e.tagName + (e.textContent ? ' "' + e.textContent + '"' : '') + ' in ' + ((e.closest('g') && e.closest('g').getAttribute('class')) || 'svg');
    for (const svg of document.querySelectorAll(${JSON.stringify(scope)})) {
      const texts = [...svg.querySelectorAll('text')];
      const shapes = [...svg.querySelectorAll('.bar rect, circle, text, line.arrow')];
      const boxes = new Map(shapes.map((s) => [s, s.getBoundingClientRect()]));
      for (const t of texts) {
        const a = boxes.get(t) || t.getBoundingClientRect();
        if (a.width === 0) continue;
        for (const s of shapes) {
          if (s === t) continue;
          const b = boxes.get(s);
          if (b.right < a.left || b.left > a.right || b.bottom < a.top || b.top > a.bottom) continue;
          // A bar's label sits inside its own bar: that is where it belongs, if it fits.
          if (s.tagName === 'rect' && s.parentElement === t.parentElement && t.classList.contains('label')) {
            const inside = a.left >= b.left - 0.5 && a.right <= b.right + 0.5 && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
            if (!inside) found.push(name(t) + ' sticks out of its bar');
            continue;
          }
          const overlap = Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
          if (overlap) found.push(name(t) + ' overlaps ' + name(s));
        }
      }
    }
    return found;
  })()`);
}

/** Whether the element's box lies inside the window's first screen (no scrolling). */
export async function inFirstScreen(page: Page, selector: string): Promise<boolean> {
  return page.evaluate(`(() => {
    const e = document.querySelector(${JSON.stringify(selector)});
    if (!e) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.left >= 0 && r.top >= 0 && r.right <= window.innerWidth && r.bottom <= window.innerHeight;
  })()`);
}
