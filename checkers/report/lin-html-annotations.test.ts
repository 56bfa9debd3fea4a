import { describe, expect, it } from 'vitest';
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
