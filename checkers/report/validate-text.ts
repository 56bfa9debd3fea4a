// Trace validation's result in words: the verdict, and when no behaviour of the spec
// matches, where the match stopped and why each candidate could not go on.

import type { Attempt, EventRef, ValidateResult, WhyNot } from '../validate/types.ts';
import { show } from './explore-text.ts';

const count = (n: number): string => n.toLocaleString('en-US');

/** An event as one line: "c1 #16 casBackup {key: k1, ...} (c1.jsonl:17)". */
export function describeEvent(e: EventRef): string {
  return `${e.proc} #${e.seq} ${e.action}${e.args ? ` ${show(e.args, 100)}` : ''} (${e.file}:${e.line})`;
}

/** Why a step did not match, in one sentence. */
export function describeWhy(w: WhyNot): string {
  switch (w.kind) {
    case 'guard':
      return `${w.step} is not enabled: ${w.message}`;
    case 'observed': {
      const reported = w.raw !== undefined ? `${show(w.raw, 60)} (${show(w.expected, 40)} in the spec's terms)` : show(w.expected, 60);
      const where = `${w.what ? `${w.what} (${w.path})` : w.path} ${w.at === 'before' ? 'before' : 'after'} ${w.step ?? 'the step'}`;
      return `${w.field} = ${reported}, but ${where} is ${show(w.actual, 60)}`;
    }
    case 'denote':
    case 'order':
      return w.message;
  }
}

function attemptLines(a: Attempt, indent: string): string[] {
  const lines = [`${indent}${describeEvent(a.event)}`];
  for (const t of a.tries) {
    const what = t.note ?? (t.steps.length > 0 ? t.steps.join('; ') : 'no step');
    lines.push(`${indent}  ${what}: ${describeWhy(t.why)}`);
  }
  return lines;
}

export function renderValidateText(r: ValidateResult, options: { trail?: number } = {}): string {
  const seconds = r.elapsedMs / 1000;
  const rate = seconds > 0 ? `, ${count(Math.round(r.events / seconds))} events/s` : '';
  const lines = [
    `trace:      ${r.files.length} file${r.files.length === 1 ? '' : 's'}, ${count(r.processes)} processes, ${count(r.events)} events, ${count(r.partitions)} partition${r.partitions === 1 ? '' : 's'} (spec ${r.spec}, config ${r.config})`,
  ];
  const verdict =
    r.verdict === 'valid'
      ? 'VALID: a behaviour of the spec matches the trace'
      : r.verdict === 'invalid'
        ? `INVALID: no behaviour of the spec matches the trace (partition ${r.failure?.partition})`
        : `INCONCLUSIVE: the search stopped at ${r.reason}`;
  lines.push(`verdict:    ${verdict}`);
  lines.push(`search:     ${count(r.matched)} events matched in ${seconds.toFixed(2)} s${rate}; at most ${count(r.maxFrontier)} candidate${r.maxFrontier === 1 ? '' : 's'} at a step, ${count(r.maxBuffered)} events read ahead (${r.mode})`);
  for (const n of r.notes) lines.push(`note:       ${n}`);
  const f = r.failure;
  if (f) {
    const c0 = f.candidates[0];
    lines.push('');
    lines.push(`longest matched prefix: ${count(f.matched)} events of partition ${f.partition}; ${f.frontier} candidate${f.frontier === 1 ? '' : 's'} there`);
    if (c0) lines.push(`  last event matched per process: ${Object.entries(c0.cut).map(([p, s]) => `${p} #${s}`).join(', ')}`);
    lines.push(`could not match: ${describeEvent(f.event)}`);
    lines.push(`  ${describeWhy(f.why)}`);
    const m = c0?.missed;
    if (m) lines.push(`  earlier, ${describeEvent(m.event)} did not match either, and the search went on with ${m.then.join('; ') || 'a global event'} instead: ${describeWhy(m.why)}`);
    f.candidates.forEach((c, i) => {
      lines.push('');
      lines.push(`candidate ${i + 1} of ${f.frontier}:`);
      lines.push(`  state: ${show(c.state, 2000)}`);
      if (c.attempts.length > 0) {
        lines.push('  ready events, and why each does not match:');
        for (const a of c.attempts) lines.push(...attemptLines(a, '    '));
      } else lines.push('  no event is ready');
      if (c.waiting.length > 0) {
        lines.push('  events not ready:');
        for (const w of c.waiting) lines.push(`    ${describeEvent(w.event)}: ${w.waits}`);
      }
      if (c.missed && i > 0) lines.push(`  earlier, ${describeEvent(c.missed.event)} did not match, before ${c.missed.then.join('; ') || 'a global event'}: ${describeWhy(c.missed.why)}`);
      const shown = c.trail.slice(-(options.trail ?? 12));
      if (shown.length > 0) {
        lines.push(`  last ${shown.length} events matched:`);
        for (const t of shown) lines.push(`    ${describeEvent(t.event)} -> ${t.steps.length > 0 ? t.steps.join('; ') : '(no step)'}`);
      }
    });
  }
  return `${lines.join('\n')}\n`;
}
