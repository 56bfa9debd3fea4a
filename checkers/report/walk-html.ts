// The page of `interleave serve`: one state of a spec, reached by a path of steps from an
// initial state, with every invariant's status, the actions enabled there (each a link to
// the state it leads to), the path so far (each step a link back to it) and the state as
// a tree with what the last step changed. A page per state: the URL is the path, so a
// path is shared by sharing the URL and the browser's back button steps back.

import type { Check } from '../explore/types.ts';
import { esc, page } from './html.ts';
import { stateTree } from './state-tree.ts';

export interface WalkStep {
  label: string;
  detail: string;
}

export interface WalkAction extends WalkStep {
  /** The action's index among the enabled actions (the next path element). */
  index: number;
  /** Invariants the state it leads to violates. */
  violates: string[];
}

export interface WalkView {
  /** "spec/config with mutant". */
  title: string;
  init: number;
  inits: number;
  path: readonly number[];
  /** The steps taken along the path (same length). */
  steps: readonly WalkStep[];
  state: unknown;
  /** The state before the last step (undefined at an initial state). */
  before?: unknown;
  invariants: Record<string, Check>;
  actions: readonly WalkAction[];
  /** No action enabled, and the spec does not allow the state to be final. */
  deadlock: boolean;
  /** A line about the counterexample search, once run. */
  note?: string;
  /** Top-level fields the spec declares internal (Machine.internal): hidden unless asked. */
  internal?: readonly string[];
}

/** The URL of a state: `/?init=I&path=a.b.c` (action indices). */
export function walkHref(init: number, path: readonly number[]): string {
  const q = [init !== 0 ? `init=${init}` : '', path.length > 0 ? `path=${path.join('.')}` : ''].filter(Boolean).join('&');
  return q ? `/?${q}` : '/';
}

export function renderWalkPage(v: WalkView): string {
  const body: string[] = [];
  const failing = Object.entries(v.invariants).filter(([, c]) => c !== true);
  const verdict = failing.length > 0 || v.deadlock ? `<span id="verdict" class="verdict-violation">${esc(failing.map(([n]) => n).join(', ') || 'deadlock')} violated</span>` : '<span id="verdict" class="verdict-ok">every invariant holds here</span>';
  body.push(`<h1>${esc(v.title)}: ${verdict}</h1>`);
  const back = v.path.length > 0 ? `<a id="back" href="${esc(walkHref(v.init, v.path.slice(0, -1)))}">← back one step</a>` : '<span class="note">at an initial state</span>';
  body.push(`<p class="nav">${back} · <a id="restart" href="${esc(walkHref(v.init, []))}">restart</a> · <a id="counterexample" href="/counterexample">jump to a counterexample</a> · depth <span id="depth">${v.path.length}</span> · <span class="note">this page's URL is the path: share it to share the state</span></p>`);
  if (v.note) body.push(`<p class="note" id="note">${esc(v.note)}</p>`);
  if (v.inits > 1) {
    body.push(`<p>Initial state: ${Array.from({ length: v.inits }, (_, i) => (i === v.init ? `<strong>${i}</strong>` : `<a href="${esc(walkHref(i, []))}">${i}</a>`)).join(' ')}</p>`);
  }

  // Violated first: they are what a reader looks for.
  const inv = [...failing, ...Object.entries(v.invariants).filter(([, c]) => c === true)].map(([name, c]) =>
    c === true ? `<li class="inv holds" data-invariant="${esc(name)}">✓ ${esc(name)}</li>` : `<li class="inv violated" data-invariant="${esc(name)}">✗ <strong>${esc(name)}</strong>: ${esc(c)}</li>`,
  );
  if (v.deadlock) inv.push('<li class="inv violated" data-invariant="deadlock">✗ <strong>deadlock</strong>: no action is enabled and the spec does not allow this state to be final</li>');
  const actions = v.actions.map(
    (a) =>
      `<li data-detail="${esc(a.detail)}"><a class="action" data-index="${a.index}" href="${esc(walkHref(v.init, [...v.path, a.index]))}">${esc(a.label)}</a>${a.violates.length > 0 ? ` <span class="verdict-violation">→ violates ${esc(a.violates.join(', '))}</span>` : ''}</li>`,
  );
  const path = ['<ol class="walk-path" start="0">', `<li><a href="${esc(walkHref(v.init, []))}">initial state ${v.init}</a></li>`];
  v.steps.forEach((s, k) => {
    const here = k === v.steps.length - 1;
    path.push(`<li value="${k + 1}" data-detail="${esc(s.detail)}">${here ? `<strong>${esc(s.label)}</strong>` : `<a href="${esc(walkHref(v.init, v.path.slice(0, k + 1)))}">${esc(s.label)}</a>`}</li>`);
  });
  path.push('</ol>');

  const top = v.state !== null && typeof v.state === 'object' && !Array.isArray(v.state) ? Object.keys(v.state) : [];
  const internal = new Set((v.internal ?? []).filter((k) => top.includes(k)));
  const toggle = internal.size > 0 ? `<label class="note"><input type="checkbox" data-toggle-class="show-internal"> show ghost and monitor fields (${[...internal].map(esc).join(', ')})</label>` : '';
  const last = v.steps.length > 0 ? `after <strong>${esc(v.steps[v.steps.length - 1].label)}</strong>; what it changed is highlighted` : `initial state ${v.init}`;
  body.push(
    `<div class="columns"><div class="steps-col"><h2>Enabled actions (${v.actions.length})</h2>${v.actions.length > 0 ? `<ol class="actions" start="0">${actions.join('')}</ol>` : '<p class="note">none: a final state</p>'}` +
      `<h2>Invariants</h2><ul class="invariants">${inv.join('')}</ul>` +
      `<h2>Path</h2>${path.join('')}</div>` +
      `<div class="state-col"><h2>State</h2><p class="note">${last}</p>${toggle}${stateTree(v.state, v.before, { internal })}</div></div>`,
  );
  return page(`${v.title}: depth ${v.path.length}`, body.join('\n'));
}
