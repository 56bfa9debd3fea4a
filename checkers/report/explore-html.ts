// The HTML view of a counterexample: the numbered steps beside the state after the
// selected one, as a collapsible tree with what the step changed highlighted (before →
// after, lists diffed by identity) and the violated property's message above the state
// where it fails; a sequence diagram with a lane per process and messages drawn from
// send to delivery, when the spec names the actor of each action; and, when the spec has
// a sequential model, the client history as a timeline.

import type { Action, Counterexample, Machine, ObservedEvent } from '../explore/types.ts';
import { UNKNOWN } from '../lin/types.ts';
import { type Bar, esc, page, timeline } from './html.ts';
import { listDiff, type Plain, plain, stateTree } from './state-tree.ts';

export interface ExploreHtmlOptions {
  /** "spec/config with mutant", for the title. */
  title: string;
  /** Statistics lines (states, time, ...), shown under the title. */
  summary?: string[];
  /** Steps drawn at most (the last ones). */
  maxSteps?: number;
  /** The page's size at most, in bytes (default 4 MB): earlier steps' state trees are left out to stay under it. */
  maxBytes?: number;
  /**
   * Top-level state fields that are ghost or monitor state (the spec's bookkeeping for its
   * properties, not the protocol's), hidden unless the reader asks. Default: what the spec
   * declares (`Machine.internal`); none when it declares nothing.
   */
  internal?: readonly string[];
}

function actionDetail(a: Action): string {
  return Object.entries(a)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('\n');
}

/** The client history of the counterexample, re-observed step by step (its states are the spec's own). */
function historyBars(cx: Counterexample, machine: Machine): Bar[] {
  const observer = machine.history;
  if (!observer) return [];
  const model = observer.model;
  const describe = (input: unknown, output: unknown) =>
    model.describeOperation ? model.describeOperation(input, output) : `${JSON.stringify(input)} → ${output === UNKNOWN ? '?' : JSON.stringify(output)}`;
  const inputs = new Map<Bar, unknown>();
  const bars: Bar[] = [];
  const open = new Map<number, Bar>();
  let before = cx.initial;
  cx.steps.forEach((step, k) => {
    const after = step.state;
    let events: readonly ObservedEvent[] = [];
    try {
      events = observer.observe(before, step.action, after);
    } catch {
      // A monitor's observer may need the engine's wrapped state; then there is no picture.
      events = [];
    }
    for (const e of events) {
      if (e.kind === 'invoke') {
        const bar: Bar = { lane: `client ${e.client}`, call: k + 1, label: describe(e.input, UNKNOWN), detail: `client ${e.client}\ninput: ${JSON.stringify(e.input)}\ncalled at step ${k + 1}`, classes: [] };
        inputs.set(bar, e.input);
        open.set(e.client, bar);
        bars.push(bar);
        continue;
      }
      const bar = open.get(e.client);
      if (!bar) continue;
      open.delete(e.client);
      if (e.kind === 'return') {
        bar.ret = k + 1;
        bar.label = describe(inputs.get(bar), e.output);
        bar.detail += `\noutput: ${JSON.stringify(e.output)}\nreturned at step ${k + 1}`;
        bar.classes = ['linearized'];
      } else {
        bar.detail += e.kind === 'crash' ? `\ncrashed at step ${k + 1}: may take effect or not` : `\nfailed at step ${k + 1}: took no effect`;
        if (e.kind === 'fail') bar.ret = k + 1;
      }
    }
    before = after;
  });
  return bars;
}

/** A message: an element added to a list at one step and removed from the same list later. */
export interface Message {
  from: number;
  to: number;
  path: string;
  value: Plain;
}

/** Lists (at any depth) in a plain state, by path. */
function lists(v: Plain, path: string, out: Map<string, Plain[]>, depth = 0): Map<string, Plain[]> {
  if (depth > 8 || v === null || typeof v !== 'object') return out;
  if (Array.isArray(v)) {
    out.set(path, v);
    v.forEach((x, i) => {
      if (x !== null && typeof x === 'object' && !Array.isArray(x)) lists(x, `${path}[${i}]`, out, depth + 1);
    });
    return out;
  }
  for (const [k, x] of Object.entries(v)) lists(x, path ? `${path}.${k}` : k, out, depth + 1);
  return out;
}

/**
 * Messages of a counterexample, found from its states: an object element added to a list
 * by a step of one actor and removed from that list by a later step of another is drawn as
 * a message from the first step to the second (a channel, a queue, a mailbox). Elements
 * are matched by identity (equal values), first sent first delivered.
 */
export function findMessages(states: readonly Plain[], actors: readonly string[], internal: ReadonlySet<string>): Message[] {
  const pending = new Map<string, { step: number; value: Plain }[]>();
  const out: Message[] = [];
  for (let k = 1; k < states.length; k++) {
    const before = lists(states[k - 1], '', new Map());
    const after = lists(states[k], '', new Map());
    for (const [path, b] of after) {
      if (internal.has(path.split(/[.[]/)[0])) continue;
      const a = before.get(path) ?? [];
      for (const e of listDiff(a, b)) {
        if (e.kind === 'added' && e.after !== null && typeof e.after === 'object') {
          const key = `${path}\u0000${JSON.stringify(e.after)}`;
          const q = pending.get(key) ?? [];
          q.push({ step: k, value: e.after });
          pending.set(key, q);
        } else if (e.kind === 'removed') {
          const q = pending.get(`${path}\u0000${JSON.stringify(e.before)}`);
          const sent = q?.shift();
          if (sent && actors[sent.step - 1] !== actors[k - 1]) out.push({ from: sent.step, to: k, path, value: sent.value });
        }
      }
    }
  }
  return out;
}

const ROW = 22;
const HEAD = 26;
const LABELS = 300;
const LANE = 90;

/** The steps as a sequence diagram: one lane per process, a dot per step, messages as arrows. */
function sequenceSvg(cx: Counterexample, machine: Machine, first: number, internal: ReadonlySet<string>): string {
  const actor = machine.actor;
  if (!actor) return '';
  const actors: string[] = [];
  const who = cx.steps.map((s) => {
    let a: string;
    try {
      a = actor.call(machine, s.action);
    } catch {
      a = '?';
    }
    if (!actors.includes(a)) actors.push(a);
    return a;
  });
  const states = [cx.initial, ...cx.steps.map((s) => s.state)].map((s) => plain(s));
  const messages = findMessages(states, who, internal).filter((m) => m.from > first);
  const charW = 6.6;
  const laneX = (a: string) => LABELS + 20 + actors.indexOf(a) * LANE + LANE / 2;
  const rows = cx.steps.length - first;
  const width = LABELS + 20 + actors.length * LANE + 10;
  const height = HEAD + rows * ROW + 10;
  const y = (step: number) => HEAD + (step - first - 1) * ROW + ROW / 2;
  const out: string[] = [`<svg class="sequence" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`];
  out.push('<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>');
  for (const a of actors) {
    const x = laneX(a);
    const max = Math.floor((LANE - 8) / charW);
    out.push(`<g data-detail="${esc(a)}"><text class="actor" x="${x}" y="16" text-anchor="middle">${esc(a.length > max ? `${a.slice(0, max - 1)}…` : a)}</text></g>`);
    out.push(`<line class="lifeline" x1="${x}" x2="${x}" y1="${HEAD - 4}" y2="${height - 4}"/>`);
  }
  const maxLabel = Math.floor((LABELS - 40) / charW);
  for (let k = first; k < cx.steps.length; k++) {
    const s = cx.steps[k];
    const yy = y(k + 1);
    const label = s.action.label.length > maxLabel ? `${s.action.label.slice(0, maxLabel - 1)}…` : s.action.label;
    const last = k === cx.steps.length - 1;
    out.push(`<g class="seq-step${last ? ' failing' : ''}" data-step="${k + 1}" data-detail="${esc(actionDetail(s.action))}">`);
    out.push(`<rect class="row" x="0" y="${yy - ROW / 2}" width="${width}" height="${ROW}"/>`);
    out.push(`<text class="num" x="4" y="${yy + 4}">${k + 1}</text><text class="step-label" x="36" y="${yy + 4}">${esc(label)}</text>`);
    out.push(`<circle cx="${laneX(who[k])}" cy="${yy}" r="5"/></g>`);
  }
  for (const m of messages) {
    const x1 = laneX(who[m.from - 1]);
    const x2 = laneX(who[m.to - 1]);
    const detail = `message ${m.path}, sent at step ${m.from}, delivered at step ${m.to}\n${JSON.stringify(m.value)}`;
    const shorten = x2 > x1 ? -7 : 7;
    out.push(`<g class="message" data-detail="${esc(detail.length > 600 ? `${detail.slice(0, 599)}…` : detail)}"><line class="hit" x1="${x1}" y1="${y(m.from)}" x2="${x2 + shorten}" y2="${y(m.to)}"/><line class="arrow" x1="${x1}" y1="${y(m.from)}" x2="${x2 + shorten}" y2="${y(m.to)}" marker-end="url(#arrowhead)"/></g>`);
  }
  out.push('</svg>');
  const note = messages.length > 0 ? `${messages.length} message${messages.length === 1 ? '' : 's'} drawn from send to delivery (an element one process adds to a list and another removes); hover one for its content.` : 'No messages found (no element one process adds to a list and another removes).';
  return `<h2>Processes</h2><p class="note">One lane per process; a dot is a step of that process. ${note} Click a step to see the state after it.</p><div class="scroll">${out.join('')}</div>`;
}

export function renderCounterexampleHtml(cx: Counterexample, machine: Machine, options: ExploreHtmlOptions): string {
  const maxBytes = options.maxBytes ?? 4_000_000;
  let trees = Math.min(options.maxSteps ?? 500, cx.steps.length) + 1;
  for (;;) {
    const html = renderOnce(cx, machine, options, trees);
    if (html.length <= maxBytes || trees <= 1) return html;
    trees = Math.floor(trees / 2);
  }
}

function renderOnce(cx: Counterexample, machine: Machine, options: ExploreHtmlOptions, trees: number): string {
  const maxSteps = options.maxSteps ?? 500;
  const first = Math.max(0, cx.steps.length - maxSteps);
  const initial = plain(cx.initial);
  const top = initial !== null && typeof initial === 'object' && !Array.isArray(initial) ? Object.keys(initial) : [];
  const internal = new Set((options.internal ?? machine.internal ?? []).filter((k) => top.includes(k)));
  const body: string[] = [];
  body.push(`<h1>${esc(options.title)}: <span id="verdict" class="verdict-violation">${esc(cx.property)} violated</span></h1>`);
  for (const line of options.summary ?? []) body.push(`<p class="note">${esc(line)}</p>`);
  if (cx.lassoStart !== undefined) body.push(`<p>A cycle without progress: steps ${cx.lassoStart + 1} to ${cx.steps.length} repeat forever.</p>`);
  if (first > 0) body.push(`<p class="note">The first ${first} steps are not drawn.</p>`);

  const list: string[] = ['<ol class="steps" start="0">', '<li data-step="0">initial state</li>'];
  for (let k = first; k < cx.steps.length; k++) {
    const step = cx.steps[k];
    const mark = cx.lassoStart === k ? ' <strong>(cycle starts)</strong>' : '';
    const changes = step.changes.length;
    const last = k === cx.steps.length - 1;
    list.push(`<li value="${k + 1}" data-step="${k + 1}" data-detail="${esc(actionDetail(step.action))}"${last ? ' class="selected failing"' : ''}>${esc(step.action.label)}${mark} <span class="note">${changes} change${changes === 1 ? '' : 's'}</span></li>`);
  }
  list.push('</ol>');

  const violated = `<div class="violated"><strong>${esc(cx.property)} violated</strong> here: <span id="message">${esc(cx.message)}</span></div>`;
  // Trees of the last `trees` states are drawn (the page's bound); earlier ones say so.
  const drawnFrom = cx.steps.length + 1 - trees;
  const omitted = '<p class="note">This state is not drawn, to keep the page under its size bound; the text and --itf outputs have every state.</p>';
  const tree = (n: number, after: unknown, before: unknown) => (n >= drawnFrom ? stateTree(after, before, { internal }) : omitted);
  const states: string[] = [`<div data-state="0"${cx.steps.length > 0 ? ' hidden' : ''}><h3>initial state</h3>${cx.steps.length === 0 ? violated : ''}${tree(0, cx.initial, undefined)}</div>`];
  for (let k = first; k < cx.steps.length; k++) {
    const step = cx.steps[k];
    const before = k === 0 ? cx.initial : cx.steps[k - 1].state;
    const last = k === cx.steps.length - 1;
    const hiddenChanges = step.changes.filter((c) => internal.has(c.path.split(/[.[]/)[0])).length;
    const ghost = hiddenChanges > 0 ? ` <span class="note ghost-note">(${hiddenChanges} in ghost fields)</span>` : '';
    states.push(
      `<div data-state="${k + 1}"${last ? '' : ' hidden'}><h3>after step ${k + 1}: ${esc(step.action.label)} <span class="note">${step.changes.length} change${step.changes.length === 1 ? '' : 's'}${ghost}</span></h3>${last ? violated : ''}${tree(k + 1, step.state, before)}</div>`,
    );
  }
  const toggle = internal.size > 0 ? `<label class="note"><input type="checkbox" data-toggle-class="show-internal"> show ghost and monitor fields (${[...internal].map(esc).join(', ')})</label>` : '';
  body.push('<p class="note">Click a step to see the state after it. Changed values are highlighted with before → after; list elements removed are struck through, added ones marked +; folded parts did not change.</p>');
  body.push(`<div class="columns"><div class="steps-col"><h2>Steps</h2>${list.join('\n')}</div><div class="state-col"><h2>State</h2>${toggle}${states.join('\n')}</div></div>`);
  body.push(sequenceSvg(cx, machine, first, internal));
  const bars = historyBars(cx, machine);
  if (bars.length > 0) {
    body.push('<h2>Client history</h2><p class="note">Bars run from the step that invoked an operation to the step that returned it (time in steps); dashed bars never returned.</p>');
    body.push(timeline(bars, { end: cx.steps.length + 1, unit: 'step', open: bars.length - 1 })); // opens on the last operation, near the failure
  }
  return page(`${options.title}: ${cx.property}`, body.join('\n'));
}
