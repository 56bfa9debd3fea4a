import { createHash } from 'node:crypto';
import { PAGE_SCRIPT } from './page-script.ts';

// Building blocks of the HTML reports: escaping, the self-contained page, and the
// timeline of operations. Every value from a history or a state reaches the page through
// `esc` (text and attributes alike); the page's script reads details back with
// getAttribute and writes them with textContent, so no value is ever parsed as markup.

export function esc(value: unknown): string {
  return String(value).replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A time window drawn across every lane of a timeline (a fault); `to` undefined: an instant. */
export interface Mark {
  from: number;
  to?: number;
  label: string;
  detail?: string;
}

/** One bar of a timeline: an operation from call to return (`ret` undefined: never returned). */
export interface Bar {
  lane: string;
  call: number;
  ret?: number;
  /** Short text on the bar. */
  label: string;
  /** What hovering shows: input, output, times. */
  detail: string;
  /** CSS classes: 'linearized', 'stuck', 'pending', 'step'... */
  classes?: string[];
  /** A mark inside the bar (its linearization point), in the same time unit. */
  point?: number;
  /** A number drawn at the point (its position in the linearization). */
  order?: number;
}

/** At most this many characters of a bar's label and detail reach the page. */
const MAX_LABEL = 80;
const MAX_DETAIL = 600;

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export interface TimelineOptions {
  /** Where open bars (never returned) end; default: the last time drawn. */
  end?: number;
  marks?: readonly Mark[];
  /** The bar the page opens on, marked (the failure). */
  focus?: number;
  /** The bar the page opens on when nothing is focused. */
  open?: number;
  /** The flag drawn over the focused bar. */
  focusLabel?: string;
  /** What the axis counts, e.g. "time" or "step". */
  unit?: string;
}

/**
 * A timeline of bars, drawn in the page by its script (page-script.ts) from this data: time by rank (each
 * distinct endpoint is one column, as Porcupine does, so bursts of short operations stay
 * readable whatever the clock), lanes ordered by activity (most operations first).
 */
export function timeline(bars: readonly Bar[], options: TimelineOptions = {}): string {
  const count = new Map<string, number>();
  for (const b of bars) count.set(b.lane, (count.get(b.lane) ?? 0) + 1);
  const lanes = [...count.keys()].sort((a, b) => count.get(b)! - count.get(a)!);
  const laneIndex = new Map(lanes.map((l, i) => [l, i]));
  const times = new Set<number>();
  for (const b of bars) {
    times.add(b.call);
    if (b.ret !== undefined) times.add(b.ret);
    if (b.point !== undefined) times.add(b.point);
  }
  if (options.end !== undefined) times.add(options.end);
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of times) {
    if (t < lo) lo = t;
    if (t > hi) hi = t;
  }
  // Marks (fault windows) are drawn where they overlap the bars' time span.
  const marks = times.size === 0 ? [] : (options.marks ?? []).filter((m) => m.from <= hi && (m.to ?? m.from) >= lo);
  for (const m of marks) {
    times.add(Math.max(m.from, lo));
    if (m.to !== undefined) times.add(Math.min(m.to, hi));
  }
  const sorted = [...times].sort((x, y) => x - y);
  const rank = new Map(sorted.map((t, i) => [t, i]));
  const end = options.end !== undefined ? rank.get(options.end)! : Math.max(0, sorted.length - 1);
  const data = {
    lanes,
    times: sorted,
    end,
    unit: options.unit ?? 'time',
    focus: options.focus ?? -1,
    open: options.focus ?? options.open ?? -1,
    focusLabel: options.focusLabel ?? '',
    ops: bars.map((b) => [
      laneIndex.get(b.lane),
      rank.get(b.call),
      b.ret === undefined ? -1 : rank.get(b.ret),
      cut(b.label, MAX_LABEL),
      cut(b.detail, MAX_DETAIL),
      (b.classes ?? []).join(' '),
      b.point === undefined ? -1 : rank.get(b.point),
      b.order ?? 0,
    ]),
    marks: marks.map((m) => [rank.get(Math.max(m.from, lo)), m.to === undefined ? -1 : rank.get(Math.min(m.to, hi)), cut(m.label, MAX_LABEL), cut(m.detail ?? m.label, MAX_DETAIL)]),
  };
  return `<div class="tl" data-timeline="${esc(JSON.stringify(data))}"><p class="note">The timeline is drawn by the page's script.</p></div>`;
}

const CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
.verdict-ok { color: #176c2e; } .verdict-illegal, .verdict-violation { color: #b00020; } .verdict-unknown, .verdict-incomplete { color: #8a5a00; }
.summary td { padding: 0 1em 0 0; }
.scroll { overflow-x: auto; border: 1px solid #ddd; padding: 4px; }
.tl-controls { margin: 4px 0; display: flex; gap: 6px; align-items: center; }
.tl-controls button { font: 12px system-ui, sans-serif; min-width: 2.2em; }
.tl-scroll { position: relative; overflow: auto; height: min(60vh, 560px); border: 1px solid #ccc; cursor: grab; }
.tl-spacer { pointer-events: none; }
svg.timeline { position: sticky; left: 0; top: 0; display: block; }
svg.timeline text { font: 11px monospace; pointer-events: none; }
svg.timeline .lane text { font-weight: bold; pointer-events: auto; }
svg.timeline .lane-line { stroke: #eee; }
svg.timeline .axis line { stroke: #888; }
svg.timeline .axis-bg { fill: #fafafa; }
svg.timeline .axis .unit { fill: #888; }
svg.timeline .bar rect { fill: #cfe0f5; stroke: #5b84b1; }
svg.timeline .bar.linearized rect { fill: #c9ecd0; stroke: #3c8d4f; }
svg.timeline .bar.stuck rect { fill: #f7c6c6; stroke: #b00020; stroke-width: 2; }
svg.timeline .bar.failure rect { stroke-width: 3; }
svg.timeline .bar.pending rect { fill: #eee; stroke-dasharray: 4 3; }
svg.timeline .bar:hover rect { stroke: #000; stroke-width: 2; }
svg.timeline .point { fill: #222; }
svg.timeline .mark rect { fill: #f5a623; opacity: 0.18; }
svg.timeline .mark-label text { font-size: 10px; fill: #8a5a00; pointer-events: auto; }
svg.timeline .failure-flag text { fill: #b00020; font-weight: bold; pointer-events: auto; }
svg.timeline .order { font-size: 9px; fill: #222; }
ol.steps li { padding: 1px 4px; cursor: pointer; } ol.steps li:hover, ol.steps li.selected { background: #fff3c4; }
.stuck-op { color: #b00020; }
.columns { display: flex; gap: 1.5em; align-items: flex-start; }
.columns > div { min-width: 0; }
.steps-col { flex: 0 0 34%; max-height: 80vh; overflow: auto; }
.state-col { flex: 1; position: sticky; top: 0; max-height: 95vh; overflow: auto; }
.steps-col h2, .state-col h2 { margin-top: 0.4em; }
ol.steps li.failing { color: #b00020; }
.violated { border: 2px solid #b00020; background: #fdecec; padding: 6px 10px; margin: 6px 0; border-radius: 4px; }
.tree { font: 12px/1.5 monospace; }
.tree .kids { margin-left: 1.4em; }
.tree details > summary { cursor: pointer; }
.tree .key { color: #5a3e8a; }
.tree .changed { background: #ffe08a; }
.tree .has-change > summary { background: none; }
.tree del { color: #8a1020; background: #fbd5d5; }
.tree ins { color: #145c28; background: #c9ecd0; text-decoration: none; }
.tree .removed { text-decoration: line-through; color: #8a1020; background: #fbd5d5; }
.tree .added { background: #c9ecd0; }
.tree .internal { display: none; }
body.show-internal .tree .internal { display: block; }
svg.sequence { font: 11px monospace; }
svg.sequence .lifeline { stroke: #bbb; stroke-dasharray: 3 3; }
svg.sequence .actor { font-weight: bold; }
svg.sequence .row { fill: transparent; }
svg.sequence .seq-step:hover .row, svg.sequence .seq-step.selected .row { fill: #fff3c4; }
svg.sequence .seq-step { cursor: pointer; }
svg.sequence .seq-step circle { fill: #5b84b1; }
svg.sequence .seq-step.failing circle { fill: #b00020; }
svg.sequence .seq-step.failing .step-label { fill: #b00020; font-weight: bold; }
svg.sequence .num { fill: #888; }
svg.sequence .message .arrow { stroke: #3c8d4f; stroke-width: 1.5; }
svg.sequence .message .hit { stroke: transparent; stroke-width: 8; }
svg.sequence .message:hover .arrow { stroke: #000; stroke-width: 2.5; }
svg.sequence marker path { fill: #3c8d4f; }
.note { color: #666; }
ul.invariants { list-style: none; padding-left: 0.5em; }
.inv.holds { color: #176c2e; } .inv.violated { color: #b00020; }
ol.actions li, ol.walk-path li { padding: 1px 0; }
ol.actions a, ol.walk-path a { text-decoration: none; } ol.actions a:hover { text-decoration: underline; }
#tooltip { position: fixed; display: none; background: #222; color: #fff; padding: 6px 8px; border-radius: 4px; font: 12px monospace; white-space: pre-wrap; max-width: 60ch; pointer-events: none; z-index: 10; }
`;

const SCRIPT = PAGE_SCRIPT;

// Only this script may run: the policy names its hash, so markup smuggled into the page
// (were escaping ever to fail) could not execute, inline handlers included.
const SCRIPT_HASH = createHash('sha256').update(SCRIPT).digest('base64');

/** A self-contained page: no network, one file. */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${SCRIPT_HASH}'">
<title>${esc(title)}</title><style>${CSS}</style></head>
<body>${body}<div id="tooltip"></div><script>${SCRIPT}</script></body></html>
`;
}
