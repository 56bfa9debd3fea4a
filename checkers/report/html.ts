import { createHash } from 'node:crypto';

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

const LANE_HEIGHT = 26;
const LEFT = 90;
const COLUMN = 22;

/**
 * A timeline of bars as SVG. Time is drawn by rank (each distinct endpoint is one column),
 * as Porcupine does, so bursts of short operations stay readable whatever the clock.
 */
export function timelineSvg(bars: readonly Bar[], options: { end?: number; marks?: readonly Mark[] } = {}): string {
  const lanes = [...new Set(bars.map((b) => b.lane))];
  const times = new Set<number>();
  for (const b of bars) {
    times.add(b.call);
    if (b.ret !== undefined) times.add(b.ret);
    if (b.point !== undefined) times.add(b.point);
  }
  // Marks (fault windows) are drawn where they overlap the bars' time span.
  const span = times.size > 0 ? [Math.min(...times), Math.max(...times, options.end ?? -Infinity)] : [0, 0];
  const marks = (options.marks ?? []).filter((m) => m.from <= span[1] && (m.to ?? m.from) >= span[0]);
  for (const m of marks) {
    times.add(Math.max(m.from, span[0]));
    if (m.to !== undefined) times.add(Math.min(m.to, span[1]));
  }
  const sorted = [...times].sort((x, y) => x - y);
  const rank = new Map(sorted.map((t, i) => [t, i]));
  const last = sorted.length;
  const x = (t: number) => LEFT + (rank.get(t) ?? last) * COLUMN;
  const width = LEFT + (last + 1) * COLUMN + 10;
  const height = lanes.length * LANE_HEIGHT + 10;
  const out: string[] = [`<svg class="timeline" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`];
  for (const m of marks) {
    const x1 = x(Math.max(m.from, span[0]));
    const x2 = m.to === undefined ? x1 + 3 : x(Math.min(m.to, span[1])) + COLUMN;
    out.push(`<g class="mark" data-detail="${esc(m.detail ?? m.label)}"><rect x="${x1}" y="0" width="${Math.max(3, x2 - x1)}" height="${height}"/><text x="${x1 + 2}" y="${height - 2}">${esc(m.label)}</text></g>`);
  }
  lanes.forEach((lane, i) => {
    const y = 5 + i * LANE_HEIGHT;
    out.push(`<text class="lane" x="4" y="${y + 16}">${esc(lane)}</text>`);
    out.push(`<line class="lane-line" x1="${LEFT}" x2="${width}" y1="${y + LANE_HEIGHT - 2}" y2="${y + LANE_HEIGHT - 2}"/>`);
  });
  for (const b of bars) {
    const y = 5 + lanes.indexOf(b.lane) * LANE_HEIGHT + 3;
    const x1 = x(b.call);
    const x2 = b.ret === undefined ? (options.end !== undefined ? x(options.end) : width - 10) : x(b.ret) + COLUMN - 4;
    const classes = ['bar', ...(b.classes ?? []), ...(b.ret === undefined ? ['pending'] : [])].join(' ');
    out.push(`<g class="${esc(classes)}" data-detail="${esc(b.detail)}">`);
    out.push(`<rect x="${x1}" y="${y}" width="${Math.max(6, x2 - x1)}" height="${LANE_HEIGHT - 8}" rx="3"/>`);
    out.push(`<text x="${x1 + 3}" y="${y + 13}">${esc(b.label)}</text>`);
    if (b.point !== undefined) {
      const px = x(b.point) + COLUMN / 2;
      out.push(`<circle class="point" cx="${px}" cy="${y + (LANE_HEIGHT - 8) / 2}" r="4"/>`);
      if (b.order !== undefined) out.push(`<text class="order" x="${px + 5}" y="${y - 1}">${b.order}</text>`);
    }
    out.push('</g>');
  }
  out.push('</svg>');
  return out.join('');
}

const CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
.verdict-ok { color: #176c2e; } .verdict-illegal, .verdict-violation { color: #b00020; } .verdict-unknown, .verdict-incomplete { color: #8a5a00; }
.summary td { padding: 0 1em 0 0; }
.scroll { overflow-x: auto; border: 1px solid #ddd; padding: 4px; }
svg.timeline text { font: 11px monospace; pointer-events: none; }
svg.timeline .lane { font-weight: bold; }
svg.timeline .lane-line { stroke: #eee; }
svg.timeline .bar rect { fill: #cfe0f5; stroke: #5b84b1; }
svg.timeline .bar.linearized rect { fill: #c9ecd0; stroke: #3c8d4f; }
svg.timeline .bar.stuck rect { fill: #f7c6c6; stroke: #b00020; stroke-width: 2; }
svg.timeline .bar.pending rect { fill: #eee; stroke-dasharray: 4 3; }
svg.timeline .bar.current rect { stroke: #000; stroke-width: 2; }
svg.timeline .bar:hover rect { stroke: #000; stroke-width: 2; }
svg.timeline .point { fill: #222; }
svg.timeline .mark rect { fill: #f5a623; opacity: 0.18; }
svg.timeline .mark text { font-size: 10px; fill: #8a5a00; }
svg.timeline .order { font-size: 10px; fill: #222; }
ol.steps li { padding: 1px 4px; cursor: pointer; } ol.steps li:hover, ol.steps li.selected { background: #fff3c4; }
.stuck-op { color: #b00020; }
.state { font: 12px monospace; white-space: pre; }
.changed { background: #ffe08a; }
.columns { display: flex; gap: 1.5em; align-items: flex-start; }
.columns > div { min-width: 0; }
.note { color: #666; }
#tooltip { position: fixed; display: none; background: #222; color: #fff; padding: 6px 8px; border-radius: 4px; font: 12px monospace; white-space: pre-wrap; max-width: 60ch; pointer-events: none; z-index: 10; }
table.seq { border-collapse: collapse; font: 12px monospace; }
table.seq td, table.seq th { border-left: 1px solid #ddd; padding: 1px 6px; white-space: nowrap; }
table.seq td.act { background: #e6eefc; }
`;

// Hover shows an element's data-detail; a step list selects which state panel is shown.
const SCRIPT = `
(function () {
  var tip = document.getElementById('tooltip');
  document.addEventListener('mouseover', function (e) {
    var el = e.target.closest ? e.target.closest('[data-detail]') : null;
    if (!el) { tip.style.display = 'none'; return; }
    tip.textContent = el.getAttribute('data-detail');
    tip.style.display = 'block';
  });
  document.addEventListener('mousemove', function (e) {
    tip.style.left = (e.clientX + 14) + 'px';
    tip.style.top = (e.clientY + 14) + 'px';
  });
  document.addEventListener('click', function (e) {
    var li = e.target.closest ? e.target.closest('[data-step]') : null;
    if (!li) return;
    var n = li.getAttribute('data-step');
    document.querySelectorAll('[data-step]').forEach(function (x) { x.classList.toggle('selected', x === li); });
    document.querySelectorAll('[data-state]').forEach(function (x) { x.hidden = x.getAttribute('data-state') !== n; });
  });
})();
`;

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
