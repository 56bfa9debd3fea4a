// Trace validation as a self-contained page: the verdict and figures; when no behaviour
// matches, the failing partition's trace as one lane per process (the matched prefix, the
// event that could not be matched, the other events tried and those not ready), the
// diagnosis, and each candidate's state with why every ready event failed. Every value
// from the trace or a state goes through `esc` (html.ts).

import type { DeadCandidate, EventRef, ValidateResult } from '../validate/types.ts';
import { show } from './explore-text.ts';
import { esc, page, timeline, type Bar } from './html.ts';
import { describeEvent, describeWhy } from './validate-text.ts';

const VERDICT = { valid: 'VALID', invalid: 'INVALID', inconclusive: 'INCONCLUSIVE' } as const;
const VERDICT_CLASS = { valid: 'ok', invalid: 'illegal', inconclusive: 'unknown' } as const;

const EXTRA_CSS = `<style>
svg.timeline .bar.tried rect { fill: #fde3b5; stroke: #b36b00; }
svg.timeline .bar.waiting rect { fill: #f3f3f3; stroke: #aaa; stroke-dasharray: 3 2; }
.why { font: 13px monospace; background: #fff5f5; border-left: 3px solid #b00020; padding: 4px 8px; white-space: pre-wrap; }
ul.tries li { font: 12px monospace; margin: 2px 0; }
.legend span { display: inline-block; padding: 0 6px; margin-right: 6px; border: 1px solid #999; font-size: 12px; }
.legend .l-matched { background: #c9ecd0; } .legend .l-failing { background: #f7c6c6; } .legend .l-tried { background: #fde3b5; } .legend .l-waiting { background: #f3f3f3; }
</style>`;

function eventDetail(e: EventRef, extra: string[] = []): string {
  return [`${e.proc} #${e.seq} ${e.action}`, `args: ${show(e.args ?? {}, 400)}`, `at ${e.file}:${e.line}`, ...extra].join('\n');
}

const same = (a: EventRef, b: EventRef): boolean => a.proc === b.proc && a.seq === b.seq;

/** A label that fits a lane's box: the action's initials (readPrimary: rP). */
const initials = (action: string): string => action[0] + action.slice(1).replace(/[^A-Z]/g, '');

/** The candidate's trace as lanes: matched events in the order matched, then the next events. */
function lanes(c: DeadCandidate, failing: EventRef): string {
  const bars: Bar[] = [];
  let t = 0;
  for (const m of c.trail) {
    bars.push({ lane: m.event.proc, call: t, ret: t, label: initials(m.event.action), detail: eventDetail(m.event, [`matched as: ${m.steps.length > 0 ? m.steps.join('; ') : '(no step)'}`]), classes: ['linearized'] });
    t++;
  }
  for (const a of c.attempts) {
    const why = a.tries.map((x) => `${x.note ?? (x.steps.join('; ') || 'no step')}: ${describeWhy(x.why)}`);
    bars.push({ lane: a.event.proc, call: t, ret: t, label: initials(a.event.action), detail: eventDetail(a.event, ['could not be matched:', ...why]), classes: [same(a.event, failing) ? 'stuck' : 'tried'] });
  }
  t++;
  for (const w of c.waiting) bars.push({ lane: w.event.proc, call: t, ret: t, label: initials(w.event.action), detail: eventDetail(w.event, [`not ready: ${w.waits}`]), classes: ['waiting'] });
  const stuck = bars.findIndex((b) => b.classes?.includes('stuck'));
  return timeline(bars, { end: t, unit: 'step', ...(stuck >= 0 ? { focus: stuck, focusLabel: '✗ could not be matched' } : {}) });
}

function candidateSection(c: DeadCandidate, i: number, total: number, failing: EventRef): string {
  const out: string[] = [`<section class="candidate" data-candidate="${i + 1}"><h3>Candidate ${i + 1} of ${total}</h3>`];
  out.push(`<p class="note">Last event matched per process: ${esc(Object.entries(c.cut).map(([p, s]) => `${p} #${s}`).join(', '))}. Lanes: the last ${c.trail.length} events matched, in the order matched; then the ready events that could not be matched; then the events not ready. Boxes show the action's initials (readPrimary: rP); hover one for the event.</p>`);
  out.push('<p class="legend"><span class="l-matched">matched</span><span class="l-failing">the failing event</span><span class="l-tried">other events tried</span><span class="l-waiting">not ready</span></p>');
  out.push(`<div class="scroll">${lanes(c, failing)}</div>`);
  out.push('<h4>Ready events, and why each does not match</h4><ul class="tries">');
  for (const a of c.attempts) {
    out.push(`<li data-detail="${esc(eventDetail(a.event))}">${esc(describeEvent(a.event))}<ul>`);
    for (const x of a.tries) out.push(`<li>${esc(x.note ?? (x.steps.join('; ') || 'no step'))}: ${esc(describeWhy(x.why))}</li>`);
    out.push('</ul></li>');
  }
  out.push('</ul>');
  if (c.waiting.length > 0) {
    out.push('<h4>Events not ready</h4><ul class="tries">');
    for (const w of c.waiting) out.push(`<li>${esc(describeEvent(w.event))}: ${esc(w.waits)}</li>`);
    out.push('</ul>');
  }
  out.push(`<h4>State</h4><pre class="state">${esc(JSON.stringify(c.state, null, 2))}</pre>`);
  out.push('</section>');
  return out.join('\n');
}

export function renderValidateHtml(r: ValidateResult): string {
  const body: string[] = [];
  const title = `${r.spec}: ${VERDICT[r.verdict]}`;
  body.push(EXTRA_CSS);
  body.push(`<h1>Trace validation against ${esc(r.spec)}: <span id="verdict" class="verdict-${VERDICT_CLASS[r.verdict]}">${VERDICT[r.verdict]}</span></h1>`);
  if (r.verdict === 'inconclusive') body.push(`<p id="reason" class="verdict-unknown">The search stopped at ${esc(r.reason ?? '')}.</p>`);
  body.push('<table class="summary">');
  const row = (k: string, v: string): void => void body.push(`<tr><td>${esc(k)}</td><td>${esc(v)}</td></tr>`);
  row('files', r.files.join(', '));
  row('config', r.config);
  row('processes', String(r.processes));
  row('events', r.events.toLocaleString('en-US'));
  row('partitions', String(r.partitions));
  row('events matched', r.matched.toLocaleString('en-US'));
  row('time', `${(r.elapsedMs / 1000).toFixed(2)} s`);
  row('largest frontier', `${r.maxFrontier} candidate${r.maxFrontier === 1 ? '' : 's'}`);
  row('largest read-ahead', `${r.maxBuffered.toLocaleString('en-US')} events`);
  row('search', r.mode);
  body.push('</table>');
  for (const n of r.notes) body.push(`<p class="note">${esc(n)}</p>`);
  const f = r.failure;
  if (f) {
    body.push(`<section id="failure"><h2>No behaviour of the spec matches partition ${esc(f.partition)}</h2>`);
    body.push(`<p>Longest matched prefix: <b>${f.matched.toLocaleString('en-US')}</b> events of partition ${esc(f.partition)}, with ${f.frontier} candidate state${f.frontier === 1 ? '' : 's'} there.</p>`);
    body.push(`<p>Could not match <b id="failing-event">${esc(describeEvent(f.event))}</b>:</p>`);
    body.push(`<div class="why" id="diagnosis">${esc(describeWhy(f.why))}</div>`);
    const m = f.candidates[0]?.missed;
    if (m) body.push(`<p id="missed">Earlier, ${esc(describeEvent(m.event))} did not match either, and the search went on with ${esc(m.then.join('; ') || 'a global event')} instead:</p><div class="why">${esc(describeWhy(m.why))}</div>`);
    f.candidates.forEach((c, i) => body.push(candidateSection(c, i, f.frontier, f.event)));
    if (f.frontier > f.candidates.length) body.push(`<p class="note">${f.frontier - f.candidates.length} more candidates not shown.</p>`);
    body.push('</section>');
  }
  body.push('<h2>Partitions</h2><table class="seq"><tr><th>partition</th><th>events</th><th>verdict</th><th>largest frontier</th><th>steps filled in</th></tr>');
  for (const p of r.perPartition) body.push(`<tr><td>${esc(p.name)}</td><td>${p.events}</td><td>${esc(p.verdict)}</td><td>${p.maxFrontier}</td><td>${p.filled}</td></tr>`);
  body.push('</table>');
  if (r.partitions > r.perPartition.length) body.push(`<p class="note">${r.partitions - r.perPartition.length} more partitions not listed.</p>`);
  return page(title, body.join('\n'));
}
