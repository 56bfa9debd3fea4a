// The trace-validation page in a real headless Chromium: the verdict, the failing
// partition's lanes (matched prefix, failing event, events not ready), the diagnosis, hover
// details; everything from the trace escaped.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerTrace } from '../validate/fixtures.ts';
import { validateMemory } from '../validate/index.ts';
import { simulateFiles } from '../../specs/fusee/simulate.ts';
import { fuseeTrace } from '../../specs/fusee/trace.ts';
import { browserAvailable, launch, openReport } from './browser.ts';
import { renderValidateHtml } from './validate-html.ts';

type Line = Record<string, any>;

function invalidFusee() {
  const { files } = simulateFiles({ seed: 11, clients: 3, keys: 2, ops: 60, clientKills: 1, mnKills: 1 });
  const c1 = files.find((f) => f.name === 'c1.jsonl')!;
  const read = (c1.lines as Line[]).find((l, i) => i > 6 && l.action === 'readPrimary' && l.args.result !== 'FAIL')!;
  read.args.result += 1000;
  return { result: validateMemory(files, { name: 'fusee', trace: fuseeTrace }), read };
}

describe('validate HTML, without a browser', () => {
  it('escapes what comes from the trace, and a valid run has no failure section', () => {
    const evil = '<img src=x onerror="alert(1)">';
    const files = [
      { name: evil, lines: [{ proc: evil, seq: 1, action: 'write', args: { v: 1 }, obj: 'reg', objSeq: 1 }] },
      { name: 'p1', lines: [{ proc: 'p1', seq: 1, action: 'read', args: { v: 2 }, obj: 'reg', objSaw: 1 }] },
    ];
    const html = renderValidateHtml(validateMemory(files, { name: 'register', trace: registerTrace() }));
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=&#34;alert(1)&#34;&#62;');
    const ok = renderValidateHtml(validateMemory([{ name: 'p0', lines: [{ proc: 'p0', seq: 1, action: 'write', args: { v: 1 }, obj: 'reg', objSeq: 1 }] }], { name: 'register', trace: registerTrace() }));
    expect(ok).toContain('>VALID<');
    expect(ok).not.toContain('id="failure"');
  });
});

describe.skipIf(!browserAvailable)('validate HTML in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('an invalid FUSEE trace: lanes with the matched prefix and the failing event, the diagnosis, hover details', async () => {
    const { result, read } = invalidFusee();
    expect(result.verdict).toBe('invalid');
    const { page, errors, screenshot } = await openReport(browser, renderValidateHtml(result), 'validate-fusee-invalid');
    expect(await page.textContent('#verdict')).toBe('INVALID');
    expect(await page.textContent('#failing-event')).toContain(`c1 #${read.seq} readPrimary`);
    // The failing event is diagnosed where it was last tried (a fenced slot) and where it was first tried (the changed value).
    expect(await page.textContent('#diagnosis')).toMatch(/readPrimary\(c1\) is not enabled/);
    expect(await page.textContent('body')).toMatch(/args\.result = \d+, but mn\d\/k\d's value \(rep\[\d\]\) before readPrimary\(c1\) is \d+/);
    const first = page.locator('section.candidate').first();
    expect(await first.locator('svg.timeline .bar.linearized').count()).toBeGreaterThan(5);
    expect(await first.locator('svg.timeline .bar.stuck').count()).toBe(1);
    expect(await first.locator('svg.timeline text.lane').allTextContents()).toEqual(expect.arrayContaining(['c1']));
    await first.locator('svg.timeline .bar.stuck rect').hover();
    const tip = page.locator('#tooltip');
    await expect.poll(() => tip.isVisible()).toBe(true);
    expect(await tip.textContent()).toMatch(/c1 #\d+ readPrimary\nargs: .*\nat c1\.jsonl:\d+\ncould not be matched:\nreadPrimary\(c1\)/);
    expect(await first.locator('pre.state').textContent()).toContain('"replicas"');
    expect(await page.locator('table.seq tr').count()).toBe(result.partitions + 1);
    await screenshot();
    expect(errors).toEqual([]);
  });

  it('a hostile process name stays text', async () => {
    const evil = '<img src=x onerror="document.title=1">';
    const files = [
      { name: 'a', lines: [{ proc: evil, seq: 1, action: 'write', args: { v: 1 }, obj: 'reg', objSeq: 1 }] },
      { name: 'b', lines: [{ proc: 'p1', seq: 1, action: 'read', args: { v: 2 }, obj: 'reg', objSaw: 1 }] },
    ];
    const { page, errors } = await openReport(browser, renderValidateHtml(validateMemory(files, { name: 'register', trace: registerTrace() })), 'validate-escaping');
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.title()).not.toBe('1');
    // Lane names are cut to fit; the shown part is text, never markup.
    expect((await page.locator('svg.timeline text.lane').allTextContents()).some((t) => t.startsWith('<img src=x'))).toBe(true);
    expect(errors).toEqual([]);
  });
});
