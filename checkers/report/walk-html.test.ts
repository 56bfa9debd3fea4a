import { describe, expect, it } from 'vitest';
import { renderWalkPage, walkHref } from './walk-html.ts';

describe('the serve page', () => {
  it('links each enabled action to the path one step longer, and back to the path one shorter', () => {
    const html = renderWalkPage({
      title: 't',
      init: 0,
      inits: 1,
      path: [2, 0],
      steps: [{ label: 'a', detail: '' }, { label: 'b', detail: '' }],
      state: { x: 1 },
      before: { x: 0 },
      invariants: { Inv: true, Bad: 'broken' },
      actions: [{ label: 'c', detail: '', index: 0, violates: ['Bad'] }],
      deadlock: false,
    });
    expect(html).toContain('href="/?path=2.0.0"');
    expect(html).toContain('<a id="back" href="/?path=2"');
    expect(html).toMatch(/<li class="inv violated" data-invariant="Bad">✗ <strong>Bad<\/strong>: broken<\/li>.*data-invariant="Inv"/s); // violated first
    expect(html).toContain('→ violates Bad');
    expect(walkHref(1, [])).toBe('/?init=1');
    expect(walkHref(0, [])).toBe('/');
  });

  it('escapes labels, invariant messages and state', () => {
    const evil = '<img src=x onerror="alert(1)">';
    const html = renderWalkPage({ title: evil, init: 0, inits: 1, path: [0], steps: [{ label: evil, detail: evil }], state: { [evil]: evil }, invariants: { [evil]: evil }, actions: [{ label: evil, detail: evil, index: 0, violates: [evil] }], deadlock: true, note: evil });
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=&#34;alert(1)&#34;&#62;');
  });
});
