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
