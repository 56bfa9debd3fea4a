// The HTML report of a linearizability check: per partition, a timeline of every
// client's operations from call to return; for a linearizable partition its
// linearization order and points, for an illegal one the longest partial linearization,
// the operations that could not follow it, and the model's states along the way.
//
// The page stays bounded on huge histories: at most `maxPartitions` partitions are drawn
// (illegal ones first), at most `maxBars` operations per timeline (a window around the
// failure), and if the page would still exceed `maxBytes` the windows shrink until it
// does not; the page says what it left out. The page opens on the failure: the first
// operation (by call) that could not follow the longest partial linearization.

import { resolveModel, type ModelArg } from '../lin/check.ts';
import { UNKNOWN, type LinResult, type Model, type Operation, type PartitionReport } from '../lin/types.ts';
import { type Bar, esc, type Mark, page, timeline } from './html.ts';
import { unknownWords } from './lin-text.ts';

export interface LinHtmlOptions {
  /** The history's file name, shown in the title. */
  file?: string;
  maxPartitions?: number;
  /** Operations per timeline at most (default 2,000): a window around the failure. */
  maxBars?: number;
  /** The page's size at most, in bytes (default 2 MB): windows shrink to stay under it. */
  maxBytes?: number;
  /** Steps of a linearization listed in words. */
  maxSteps?: number;
  /** Time windows drawn across the timelines (a run's faults), in the history's time unit. */
  annotations?: readonly Mark[];
  /** Write window pages (renderLinReport): every operation the report leaves out is on one. */
  windows?: WindowLinks;
  /** What to do about an unknown result (the CLI's hint: the memory bound to raise), shown under why it is unknown. */
  hint?: string;
}

const VERDICT = { ok: 'linearizable', illegal: 'NOT linearizable', unknown: 'unknown (inconclusive)' } as const;

function opText(model: Model, op: Operation): string {
  return cut(opTextFull(model, op), 200);
}

function opTextFull(model: Model, op: Operation): string {
  const output = op.ret === undefined ? UNKNOWN : op.output;
  return model.describeOperation ? model.describeOperation(op.input, output) : `${JSON.stringify(op.input)} → ${op.ret === undefined ? '?' : JSON.stringify(output)}`;
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function opDetail(model: Model, history: readonly Operation[], i: number): string {
  return cut(opDetailFull(model, history, i), 600);
}

function opDetailFull(model: Model, history: readonly Operation[], i: number): string {
  const op = history[i];
  const lines = [
    `#${i} client ${String(op.client)}`,
    opText(model, op),
    `input:  ${JSON.stringify(op.input)}`,
    `output: ${op.ret === undefined ? 'unknown (indeterminate)' : JSON.stringify(op.output)}`,
    `call: ${op.call}   return: ${op.ret ?? 'never (may take effect or not)'}`,
  ];
  if (op.origin?.line !== undefined) lines.push(`line ${op.origin.line}${op.origin.file ? ` of ${op.origin.file}` : ''}`);
  return lines.join('\n');
}

/** Linearization points for ops in order: each at or after its call and its predecessor's point. */
function points(history: readonly Operation[], order: readonly number[]): Map<number, number> {
  const at = new Map<number, number>();
  let t = -Infinity;
  for (const i of order) {
    t = Math.max(t, history[i].call);
    at.set(i, t);
  }
  return at;
}

/** The operations drawn: all of them, or a window of maxBars around the ones that matter. */
function window(history: readonly Operation[], ops: readonly number[], focus: readonly number[], maxBars: number): number[] {
  if (ops.length <= maxBars) return [...ops];
  const byCall = [...ops].sort((a, b) => history[a].call - history[b].call || a - b);
  const centre = focus.length ? Math.max(0, byCall.indexOf(focus[focus.length - 1])) : 0;
  const from = Math.max(0, Math.min(centre - Math.floor(maxBars / 2), byCall.length - maxBars));
  const shown = new Set(byCall.slice(from, from + maxBars));
  for (const f of focus) shown.add(f);
  return byCall.filter((i) => shown.has(i));
}

/** What a partition's pages share: its linearization (or longest partial one), its points, its failure. */
interface Facts {
  order: readonly number[];
  stuck: readonly number[];
  at: Map<number, number>;
  position: Map<number, number>;
  /** Of the operations that could not follow, the one called first. */
  failure?: number;
  /** The partition's operations by call: the order its windows cut. */
  byCall: number[];
}

function factsOf(p: PartitionReport, history: readonly Operation[]): Facts {
  const order = p.verdict === 'ok' ? (p.linearization ?? []) : (p.longest?.[0] ?? []);
  const stuck = p.verdict === 'illegal' ? (p.stuck ?? []) : [];
  const failure = stuck.length > 0 ? stuck.reduce((a, b) => (history[b].call < history[a].call ? b : a)) : undefined;
  const byCall = [...p.operations].sort((a, b) => history[a].call - history[b].call || a - b);
  return { order, stuck, at: points(history, order), position: new Map(order.map((i, k) => [i, k + 1])), failure, byCall };
}

function barsOf(drawn: readonly number[], f: Facts, history: readonly Operation[], model: Model): Bar[] {
  return drawn.map((i) => {
    const op = history[i];
    const classes = f.stuck.includes(i) ? ['stuck'] : f.position.has(i) ? ['linearized'] : [];
    return { lane: `client ${String(op.client)}`, call: op.call, ret: op.ret, label: opText(model, op), detail: opDetail(model, history, i), classes, point: f.at.get(i), order: f.position.get(i) };
  });
}

/** Where a report's window pages live: `dir` beside the report `main`, one page per window. */
export interface WindowLinks {
  /** The directory's name, relative to the report. */
  dir: string;
  /** The report's own file name (window pages link back to it). */
  main: string;
}

/** A partition's windows: its operations by call, cut into runs of `size`. */
interface Windows {
  size: number;
  count: number;
}

const windowFile = (p: number, k: number) => `p${p}-w${k + 1}.html`;
const href = (...parts: string[]) => parts.map((x) => encodeURIComponent(x)).join('/');

/** Links to a partition's windows: first, the one before and after `from..to` (by call rank), last, and every one. */
function windowNav(p: number, w: Windows, byCallLength: number, from: number, to: number, prefix: string[], current?: number): string {
  // Only the window's own number is marked current: the shortcuts (first, previous, next,
  // last) may lead to the same page, and a page has one current link.
  const link = (k: number, text: string, rel = '', numbered = false) => `<a href="${esc(href(...prefix, windowFile(p, k)))}"${rel}${numbered && k === current ? ' aria-current="page"' : ''}>${esc(text)}</a>`;
  const before = from > 0 ? Math.floor((from - 1) / w.size) : undefined;
  const after = to < byCallLength ? Math.floor(to / w.size) : undefined;
  const nav = [link(0, '⇤ first'), before !== undefined ? link(before, '← previous', ' rel="prev"') : '<span class="note">← previous</span>', after !== undefined ? link(after, 'next →', ' rel="next"') : '<span class="note">next →</span>', link(w.count - 1, 'last ⇥')];
  const all = Array.from({ length: w.count }, (_, k) => link(k, String(k + 1), '', true));
  return `<nav class="windows" data-partition="${p}"><span class="note">Operations by call, in windows of ${w.size}:</span> ${nav.join(' ')} <details><summary>all ${w.count} windows</summary>${all.join(' ')}</details></nav>`;
}

function partitionSection(p: PartitionReport, history: readonly Operation[], model: Model, options: Required<Omit<LinHtmlOptions, 'file' | 'maxBytes' | 'windows' | 'hint'>>, parts: number, windows?: { links: WindowLinks; of: Map<number, Windows> }): string {
  const out: string[] = [];
  const title = parts > 1 ? `Partition ${p.index}` : 'History';
  out.push(`<section class="partition" data-partition="${p.index}" data-verdict="${p.verdict}">`);
  const reason = p.reason === undefined ? '' : `, ${p.reason}${p.memoryLimit ? ` (the ${p.memoryLimit.of}'s bound, ${Math.round(p.memoryLimit.bytes / 2 ** 20)} MB)` : ''}`;
  out.push(`<h2>${title}: <span class="verdict-${p.verdict}">${VERDICT[p.verdict]}</span> (${p.operations.length} operations${esc(reason)})</h2>`);
  const f = factsOf(p, history);
  const { order, stuck, failure } = f;
  let focus = [...order.slice(-20), ...stuck];
  // Nothing failed: open on (and, if long, show) the operations around the first annotated
  // window (a fault) instead.
  const mark = options.annotations[0];
  let near: number | undefined;
  if (p.verdict === 'ok' && mark !== undefined && p.operations.length > 0) {
    near = p.operations[0];
    for (const i of p.operations) if (Math.abs(history[i].call - mark.from) < Math.abs(history[near].call - mark.from)) near = i;
    if (p.operations.length > options.maxBars) focus = [near];
  }
  const drawn = window(history, p.operations, focus, options.maxBars);
  const end = Math.max(...drawn.map((i) => history[i].ret ?? history[i].call));
  const bars = barsOf(drawn, f, history, model);
  if (drawn.length < p.operations.length) {
    const around = p.verdict === 'ok' && mark !== undefined ? 'the first annotated window' : 'the end of the longest linearization found';
    out.push(`<p class="note">Showing ${drawn.length} of ${p.operations.length} operations: the window around ${around}${windows ? '; the others are one click away' : ''}.</p>`);
    const w = windows?.of.get(p.index);
    if (windows && w) {
      const rank = new Map(f.byCall.map((i, k) => [i, k]));
      const ranks = drawn.map((i) => rank.get(i)!);
      out.push(windowNav(p.index, w, f.byCall.length, Math.min(...ranks), Math.max(...ranks) + 1, [windows.links.dir]));
    }
  }
  if (failure !== undefined) {
    out.push(`<p class="failure">First operation that could not be linearized: <strong class="stuck-op">${esc(opText(model, history[failure]))}</strong> <span class="note">#${failure}, client ${esc(String(history[failure].client))}, called at ${history[failure].call}</span></p>`);
  }
  const focusIndex = failure !== undefined ? drawn.indexOf(failure) : -1;
  const openIndex = near !== undefined ? drawn.indexOf(near) : -1;
  out.push(timeline(bars, { end, marks: options.annotations, unit: 'time', ...(focusIndex >= 0 ? { focus: focusIndex, focusLabel: '✗ could not be linearized' } : {}), ...(openIndex >= 0 ? { open: openIndex } : {}) }));

  const steps = order.length;
  const first = Math.max(0, steps - options.maxSteps);
  const heading = p.verdict === 'ok' ? 'Linearization' : `Longest partial linearization: ${steps} of ${p.operations.length} operations`;
  if (steps > 0 || p.verdict === 'illegal') out.push(`<h3>${heading}</h3>`);
  if (first > 0) out.push(`<p class="note">${first} earlier steps not listed.</p>`);
  if (steps > 0) {
    out.push(`<ol class="linearization" start="${first + 1}">`);
    for (let k = first; k < steps; k++) {
      const i = order[k];
      const state = p.verdict === 'illegal' ? p.states?.[k] : undefined;
      out.push(`<li data-detail="${esc(opDetail(model, history, i))}">${esc(opText(model, history[i]))} <span class="note">#${i}, client ${esc(String(history[i].client))}</span>${state !== undefined ? `<div class="note">state: ${esc(state)}</div>` : ''}</li>`);
    }
    out.push('</ol>');
  }
  if (stuck.length > 0) {
    out.push('<h3>After it, none of these leads to a linearization</h3><ul class="stuck-list">');
    for (const i of stuck) {
      const crashed = history[i].ret === undefined ? '; indeterminate: taking effect here (or never) does not help either' : '';
      out.push(`<li class="stuck-op" data-detail="${esc(opDetail(model, history, i))}">${esc(opText(model, history[i]))} <span class="note">#${i}, client ${esc(String(history[i].client))}${crashed}</span></li>`);
    }
    out.push('</ul>');
  }
  out.push('</section>');
  return out.join('\n');
}

export function renderLinHtml(result: LinResult, history: readonly Operation[], modelArg: ModelArg, options: LinHtmlOptions = {}): string {
  return renderLinReport(result, history, modelArg, options).html;
}

/** A report and, with `windows`, the window pages that make every operation reachable from it. */
export interface LinReport {
  html: string;
  /** Pages to write into `windows.dir`, by file name: empty when the report drew every operation. */
  windows: { name: string; html: string }[];
}

/**
 * The report, each page at most `maxBytes`. With `options.windows`, every operation the
 * report leaves out is on a window page (its partition's operations by call, `maxBars` at
 * a time, the same bars as the report's), linked from the report and from one another.
 */
export function renderLinReport(result: LinResult, history: readonly Operation[], modelArg: ModelArg, options: LinHtmlOptions = {}): LinReport {
  const maxBytes = options.maxBytes ?? 2_000_000;
  let maxBars = options.maxBars ?? 2000;
  const { model } = resolveModel(modelArg);
  const rank = { illegal: 0, unknown: 1, ok: 2 } as const;
  const ordered = [...result.partitions].sort((a, b) => rank[a.verdict] - rank[b.verdict] || a.index - b.index);
  const maxPartitions = options.maxPartitions ?? 20;
  for (;;) {
    // The partitions the report does not show whole, and their windows (sized as its own).
    const of = new Map<number, Windows>();
    if (options.windows !== undefined) {
      ordered.forEach((p, k) => {
        if (k >= maxPartitions || p.operations.length > maxBars) of.set(p.index, { size: maxBars, count: Math.ceil(p.operations.length / maxBars) });
      });
    }
    const html = renderOnce(result, history, model, ordered, options, maxBars, of);
    if (html.length > maxBytes && maxBars > 10) {
      maxBars = Math.floor(maxBars / 2);
      continue;
    }
    const windows: LinReport['windows'] = [];
    const chain = ordered.filter((p) => of.has(p.index)).map((p) => p.index);
    for (const p of ordered) {
      const w = of.get(p.index);
      if (w === undefined) continue;
      const c = chain.indexOf(p.index);
      const around = { prev: chain[c - 1], next: chain[c + 1] };
      // A window page holds one partition's window: it fits when the report's windows do,
      // unless its operations' texts are longer; then that partition's windows halve.
      let pages = windowPages(result, history, model, p, w, options, around);
      while (pages.some((x) => x.html.length > maxBytes) && w.size > 10) {
        w.size = Math.floor(w.size / 2);
        w.count = Math.ceil(p.operations.length / w.size);
        pages = windowPages(result, history, model, p, w, options, around);
      }
      windows.push(...pages);
    }
    // A partition's windows shrank after the report linked them: link them again.
    const final = windows.length > 0 ? renderOnce(result, history, model, ordered, options, maxBars, of) : html;
    return { html: final, windows };
  }
}

function windowPages(result: LinResult, history: readonly Operation[], model: Model, p: PartitionReport, w: Windows, options: LinHtmlOptions, around: { prev?: number; next?: number }): { name: string; html: string }[] {
  const links = options.windows!;
  const f = factsOf(p, history);
  const marks = options.annotations ?? [];
  const back = `<a href="${esc(href('..', links.main))}">${esc(links.main)}</a>`;
  const partitions = [
    ...(around.prev !== undefined ? [`<a href="${esc(href(windowFile(around.prev, 0)))}">← partition ${around.prev}</a>`] : []),
    ...(around.next !== undefined ? [`<a href="${esc(href(windowFile(around.next, 0)))}">partition ${around.next} →</a>`] : []),
  ];
  const pages: { name: string; html: string }[] = [];
  for (let k = 0; k < w.count; k++) {
    const from = k * w.size;
    const drawn = f.byCall.slice(from, from + w.size);
    const to = from + drawn.length;
    const end = Math.max(...drawn.map((i) => history[i].ret ?? history[i].call));
    const focusIndex = f.failure !== undefined ? drawn.indexOf(f.failure) : -1;
    const body = [
      `<h1>${esc(options.file ?? 'history')}: partition ${p.index}, window ${k + 1} of ${w.count}</h1>`,
      `<p>Part of the report ${back} (<span class="verdict-${result.verdict}">${VERDICT[result.verdict]}</span>); this partition: <span id="verdict" class="verdict-${p.verdict}">${VERDICT[p.verdict]}</span>.</p>`,
      `<p class="note">Operations ${from + 1} to ${to} of the partition's ${p.operations.length}, by call (called at ${history[drawn[0]].call} to ${history[drawn[drawn.length - 1]].call}). Linearization points and numbers are those of the whole partition${p.verdict === 'illegal' ? "'s longest partial linearization" : ''}.</p>`,
      windowNav(p.index, w, f.byCall.length, from, to, [], k),
      ...(partitions.length ? [`<p class="note">Other partitions with windows: ${partitions.join(' ')}</p>`] : []),
      `<section class="partition" data-partition="${p.index}" data-verdict="${p.verdict}" data-window="${k + 1}">`,
      ...(focusIndex >= 0 ? [`<p class="failure">First operation that could not be linearized: <strong class="stuck-op">${esc(opText(model, history[f.failure!]))}</strong> <span class="note">#${f.failure}, client ${esc(String(history[f.failure!].client))}</span></p>`] : []),
      timeline(barsOf(drawn, f, history, model), { end, marks, unit: 'time', ...(focusIndex >= 0 ? { focus: focusIndex, focusLabel: '✗ could not be linearized' } : { open: 0 }) }),
      '</section>',
    ];
    pages.push({ name: windowFile(p.index, k), html: page(`${options.file ?? 'history'}: partition ${p.index}, window ${k + 1} of ${w.count}`, body.join('\n')) });
  }
  return pages;
}

/** At most this many partitions not drawn are listed on the report itself (the rest: counted). */
const MAX_LISTED = 1000;

function renderOnce(result: LinResult, history: readonly Operation[], model: Model, ordered: readonly PartitionReport[], options: LinHtmlOptions, maxBars: number, of: Map<number, Windows>): string {
  const o = { maxPartitions: options.maxPartitions ?? 20, maxBars, maxSteps: options.maxSteps ?? 200, annotations: options.annotations ?? [] };
  const shown = ordered.slice(0, o.maxPartitions);
  const windows = options.windows !== undefined ? { links: options.windows, of } : undefined;
  const body: string[] = [];
  body.push(`<h1>${esc(options.file ?? 'history')}: <span id="verdict" class="verdict-${result.verdict}">${VERDICT[result.verdict]}</span></h1>`);
  body.push('<table class="summary">');
  body.push(`<tr><td>model</td><td>${esc(model.name)}</td></tr>`);
  body.push(`<tr><td>operations</td><td>${result.operations}</td></tr>`);
  body.push(`<tr><td>partitions</td><td>${result.partitions.length}</td></tr>`);
  body.push(`<tr><td>time</td><td>${result.elapsedMs.toFixed(0)} ms</td></tr>`);
  body.push('</table>');
  if (o.annotations.length > 0) {
    body.push(`<p class="note">Shaded on the timelines where they overlap the operations drawn: ${o.annotations.length} annotated windows; hover one for its details.</p>`);
    body.push(`<ul class="annotations">${o.annotations.map((a) => `<li>${esc(a.label)}: ${esc(a.detail ?? `${a.from}${a.to !== undefined ? ` to ${a.to}` : ''}`)}</li>`).join('')}</ul>`);
  }
  if (result.modelError) {
    const e = result.modelError;
    body.push(`<p class="verdict-illegal">The model failed${e.operation >= 0 ? ` on operation #${e.operation}` : ''}: ${esc(e.message)}</p>`);
  }
  const why = unknownWords(result);
  if (why !== undefined) body.push(`<p class="why-unknown">${esc(why)}</p>`);
  if (result.verdict === 'unknown' && options.hint) body.push(`<p class="hint">${esc(options.hint)}</p>`);
  body.push('<p class="note">Bars run from call to return; dashed bars never returned; red bars: none of them leads to a linearization after the longest partial one. Dots under the bars are linearization points, numbered in order. Time runs by event order (the axis shows the recorded times). Zoom with the buttons or ctrl + wheel, pan by scrolling or dragging; hover an operation for its input, output and times.</p>');
  for (const p of shown) body.push(partitionSection(p, history, model, o, result.partitions.length, windows));
  const rest = ordered.slice(o.maxPartitions);
  if (rest.length > 0) {
    const tally = new Map<string, number>();
    for (const p of rest) tally.set(p.verdict, (tally.get(p.verdict) ?? 0) + 1);
    body.push(`<p class="note">${rest.length} more partitions not drawn: ${[...tally].map(([v, n]) => `${n} ${VERDICT[v as keyof typeof VERDICT]}`).join(', ')}.</p>`);
    if (windows) {
      body.push('<ul class="more-partitions">');
      for (const p of rest.slice(0, MAX_LISTED)) {
        const w = of.get(p.index)!;
        body.push(`<li>partition ${p.index}: <span class="verdict-${p.verdict}">${VERDICT[p.verdict]}</span>, ${p.operations.length} operations: <a href="${esc(href(windows.links.dir, windowFile(p.index, 0)))}">its timeline</a>${w.count > 1 ? ` (${w.count} windows)` : ''}</li>`);
      }
      body.push('</ul>');
      if (rest.length > MAX_LISTED) body.push(`<p class="note">The other ${rest.length - MAX_LISTED} are reached from the last one listed: each partition's pages link to the next partition's.</p>`);
    }
  }
  return page(`${options.file ?? 'history'}: ${VERDICT[result.verdict]}`, body.join('\n'));
}
