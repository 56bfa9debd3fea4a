// The HTML view of a counterexample: the numbered steps beside the state after the
// selected one, with the fields that step changed highlighted; a sequence-diagram lane per
// process when the spec names the actor of each action; and, when the spec has a
// sequential model, the client history so far as a timeline.

import type { Action, Counterexample, Machine, ObservedEvent } from '../explore/types.ts';
import { UNKNOWN } from '../lin/types.ts';
import { type Bar, esc, page, timeline } from './html.ts';

export interface ExploreHtmlOptions {
  /** "spec/config with mutant", for the title. */
  title: string;
  /** Statistics lines (states, time, ...), shown under the title. */
  summary?: string[];
  /** Steps drawn at most (the last ones). */
  maxSteps?: number;
}

function renderValue(value: unknown, path: string, changed: ReadonlySet<string>, indent: string, key: string): string {
  const hit = changed.has(path) || changed.has(`${path}.length`);
  const label = key ? `${esc(key)}: ` : '';
  if (value === null || typeof value !== 'object') {
    const text = `${indent}${label}${esc(value === undefined ? 'undefined' : JSON.stringify(value))}`;
    return hit ? `<span class="changed" data-path="${esc(path)}">${text}</span>\n` : `${text}\n`;
  }
  const isArray = Array.isArray(value);
  const entries: [string, unknown][] = isArray ? (value as unknown[]).map((v, i) => [String(i), v]) : Object.entries(value as Record<string, unknown>);
  const inner = [...changed].some((c) => c.startsWith(`${path}.`) || c.startsWith(`${path}[`)) || path === '';
  if (!inner && !hit) {
    const text = `${indent}${label}${esc(JSON.stringify(value))}`;
    return `${text}\n`;
  }
  const open = `${indent}${label}${isArray ? '[' : '{'}`;
  const lines = [hit ? `<span class="changed" data-path="${esc(path)}">${open}</span>\n` : `${open}\n`];
  for (const [k, v] of entries) {
    const childPath = isArray ? `${path}[${k}]` : path ? `${path}.${k}` : k;
    lines.push(renderValue(v, childPath, changed, `${indent}  `, isArray ? '' : k));
  }
  lines.push(`${indent}${isArray ? ']' : '}'}\n`);
  return lines.join('');
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
    const events: readonly ObservedEvent[] = observer.observe(before, step.action, after);
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
      } else {
        bar.detail += e.kind === 'crash' ? `\ncrashed at step ${k + 1}: may take effect or not` : `\nfailed at step ${k + 1}: took no effect`;
        if (e.kind === 'fail') bar.ret = k + 1;
      }
    }
    before = after;
  });
  return bars;
}

function sequenceTable(cx: Counterexample, machine: Machine, first: number): string {
  const actor = machine.actor;
  if (!actor) return '';
  const actors: string[] = [];
  const who = cx.steps.map((s) => {
    const a = actor.call(machine, s.action);
    if (!actors.includes(a)) actors.push(a);
    return a;
  });
  const rows = [`<tr><th>#</th>${actors.map((a) => `<th>${esc(a)}</th>`).join('')}</tr>`];
  for (let k = first; k < cx.steps.length; k++) {
    const cells = actors.map((a) => (a === who[k] ? `<td class="act" data-detail="${esc(actionDetail(cx.steps[k].action))}">${esc(cx.steps[k].action.label)}</td>` : '<td></td>'));
    rows.push(`<tr data-step="${k + 1}"><td>${k + 1}</td>${cells.join('')}</tr>`);
  }
  return `<h2>Processes</h2><div class="scroll"><table class="seq">${rows.join('')}</table></div>`;
}

export function renderCounterexampleHtml(cx: Counterexample, machine: Machine, options: ExploreHtmlOptions): string {
  const maxSteps = options.maxSteps ?? 500;
  const first = Math.max(0, cx.steps.length - maxSteps);
  const body: string[] = [];
  body.push(`<h1>${esc(options.title)}: <span id="verdict" class="verdict-violation">${esc(cx.property)} violated</span></h1>`);
  body.push(`<p id="message">${esc(cx.message)}</p>`);
  for (const line of options.summary ?? []) body.push(`<p class="note">${esc(line)}</p>`);
  if (cx.lassoStart !== undefined) body.push(`<p>A cycle without progress: steps ${cx.lassoStart + 1} to ${cx.steps.length} repeat forever.</p>`);
  if (first > 0) body.push(`<p class="note">The first ${first} steps are not drawn.</p>`);

  const list: string[] = ['<ol class="steps" start="0">', '<li data-step="0">initial state</li>'];
  for (let k = first; k < cx.steps.length; k++) {
    const step = cx.steps[k];
    const mark = cx.lassoStart === k ? ' <strong>(cycle starts)</strong>' : '';
    const changes = step.changes.length;
    list.push(`<li value="${k + 1}" data-step="${k + 1}" data-detail="${esc(actionDetail(step.action))}">${esc(step.action.label)}${mark} <span class="note">${changes} change${changes === 1 ? '' : 's'}</span></li>`);
  }
  list.push('</ol>');

  const states: string[] = [`<div class="state" data-state="0" hidden>${renderValue(cx.initial, '', new Set(), '', '')}</div>`];
  for (let k = first; k < cx.steps.length; k++) {
    const step = cx.steps[k];
    const changed = new Set(step.changes.map((c) => c.path));
    const changes = step.changes.map((c) => `${esc(c.path)}: ${esc(JSON.stringify(c.before) ?? 'undefined')} → ${esc(JSON.stringify(c.after) ?? 'undefined')}`).join('\n');
    const last = k === cx.steps.length - 1;
    states.push(`<div data-state="${k + 1}"${last ? '' : ' hidden'}><h3>after step ${k + 1}: ${esc(step.action.label)}</h3><div class="state changes">${changes}</div><div class="state">${renderValue(step.state, '', changed, '', '')}</div></div>`);
  }
  body.push('<p class="note">Click a step to see the state after it; the fields it changed are highlighted.</p>');
  body.push(`<div class="columns"><div><h2>Steps</h2>${list.join('\n')}</div><div><h2>State</h2>${states.join('\n')}</div></div>`);
  body.push(sequenceTable(cx, machine, first));
  const bars = historyBars(cx, machine);
  if (bars.length > 0) {
    body.push('<h2>Client history</h2><p class="note">Bars run from the step that invoked an operation to the step that returned it (time in steps).</p>');
    body.push(timeline(bars, { end: cx.steps.length + 1, unit: 'step' }));
  }
  return page(`${options.title}: ${cx.property}`, body.join('\n'));
}
