// The HTML pages as a person gets them from the CLI, opened in a real headless Chromium.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, browserAvailable, launch, openReport } from '../checkers/report/browser.ts';

const root = resolve(import.meta.dirname, '..');
const cli = (...args: string[]) => {
  try {
    return { code: 0, out: execFileSync(process.execPath, ['bin/interleave.js', ...args], { cwd: root, encoding: 'utf8', stdio: 'pipe' }) };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { code: err.status, out: err.stdout + err.stderr };
  }
};

describe.skipIf(!browserAvailable)('HTML pages from the CLI', () => {
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('explore --html draws a spec counterexample: steps, highlighted changes, process lanes, client history', async () => {
    const file = join(ARTIFACTS, 'explore-shadowfax-H1.cli.html');
    const r = cli('explore', 'shadowfax', '--config', 'B1', '--mutant', 'H1', '--html', file, '--force');
    expect(r.code).toBe(1);
    const { page, errors, screenshot } = await openReport(browser, readFileSync(file, 'utf8'), 'explore-shadowfax-H1');
    expect(await page.textContent('#verdict')).toBe('INV-COND-INSERT violated');
    expect(await page.locator('ol.steps li[data-step]').count()).toBe(21);
    expect(await page.locator('[data-state="20"]').isVisible()).toBe(true);
    await page.click('li[data-step="19"]');
    expect(await page.locator('[data-state="19"]').isVisible()).toBe(true);
    expect(await page.locator('[data-state="20"]').isVisible()).toBe(false);
    expect(await page.locator('[data-state="19"] .changed').count()).toBeGreaterThan(0);
    expect(await page.locator('svg.sequence .actor').allTextContents()).toEqual(expect.arrayContaining(['c1', 's1', 't1']));
    expect(await page.locator('svg.timeline .bar').count()).toBeGreaterThan(0);
    expect(await page.locator('svg.sequence .message').count()).toBeGreaterThan(0);
    await page.locator('li[data-step="16"]').hover();
    await expect.poll(() => page.locator('#tooltip').textContent()).toContain('sendChunk');
    await screenshot();
    expect(errors).toEqual([]);
  });

  it('lin --html writes the report of a corpus history and never overwrites the history', async () => {
    const file = join(ARTIFACTS, 'lin-etcd_002.cli.html');
    const history = resolve(root, '../shared/corpora/porcupine/jepsen/etcd_002.log');
    expect(cli('lin', history, '--model', 'etcd-cas-register', '--html', file, '--force').code).toBe(0);
    const { page, errors } = await openReport(browser, readFileSync(file, 'utf8'), 'lin-etcd_002');
    expect(await page.textContent('#verdict')).toBe('linearizable');
    expect(errors).toEqual([]);
    const copy = join(ARTIFACTS, 'history-copy.log');
    writeFileSync(copy, readFileSync(history));
    const r = cli('lin', copy, '--model', 'etcd-cas-register', '--html', copy, '--force');
    expect(r.code).toBe(73);
    expect(readFileSync(copy, 'utf8')).toBe(readFileSync(history, 'utf8'));
  });
});
