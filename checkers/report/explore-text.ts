// The explorer's result in words: the verdict, what was covered, and each counterexample
// as a numbered list of actions with the fields each changed.

import type { Counterexample, ExploreResult } from '../explore/types.ts';

/** A short rendering of plain data for one line of a report. */
export function show(v: unknown, max = 120): string {
  const text = render(v);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function render(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || typeof v !== 'object') return String(v);
  if (v instanceof Map) return `Map{${[...v].map(([k, x]) => `${render(k)} => ${render(x)}`).join(', ')}}`;
  if (v instanceof Set) return `Set{${[...v].map(render).join(', ')}}`;
  if (Array.isArray(v)) return `[${v.map(render).join(', ')}]`;
  if (ArrayBuffer.isView(v)) return `[${Array.from(v as unknown as ArrayLike<unknown>, render).join(', ')}]`;
  return `{${Object.entries(v).map(([k, x]) => `${k}: ${render(x)}`).join(', ')}}`;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** The action path to pass to `interleave explore --replay`. */
export function replayPath(c: Counterexample): string {
  return c.steps.map((s) => s.action.label).join(';');
}

export function renderCounterexample(c: Counterexample): string {
  const lines = [`${c.property} violated: ${c.message}`, `  initial state: ${show(c.initial, 400)}`];
  c.steps.forEach((s, i) => {
    const lasso = c.lassoStart === i ? '   <- the cycle starts here' : '';
    lines.push(`  ${String(i + 1).padStart(3)}. ${s.action.label}${lasso}`);
    for (const ch of s.changes) lines.push(`         ${ch.path}: ${show(ch.before, 60)} -> ${show(ch.after, 60)}`);
    if (s.changes.length === 0) lines.push('         (no field changed)');
  });
  if (c.seed !== undefined) lines.push(`  found by random simulation, seed ${c.seed}`);
  lines.push(`  replay: --replay "${replayPath(c)}"`);
  return lines.join('\n');
}

export function renderExploreText(r: ExploreResult, title?: string): string {
  const verdict =
    r.status === 'holds'
      ? 'every property holds in every reachable state'
      : r.status === 'violation'
        ? `${r.violations.length} propert${r.violations.length === 1 ? 'y' : 'ies'} violated`
        : 'INCOMPLETE: not every reachable state was checked';
  const seconds = r.elapsedMs / 1000;
  // A swarm's count is a sum over its jobs (distinct within each, not across): not called distinct.
  const summed = r.statesSummedOverJobs;
  const rate = seconds > 0 ? ` (${count(Math.round(r.states / seconds))} ${summed === undefined ? 'distinct ' : ''}states/s)` : '';
  const states = summed === undefined ? `${count(r.states)} distinct states` : `${count(r.states)} states visited, summed over ${summed} job${summed === 1 ? '' : 's'} (distinct within a job, not across jobs)`;
  const lines = [
    `${title ? `${title}: ` : ''}${verdict}`,
    `  ${states}, ${count(r.transitions)} transitions, depth ${r.depth}, ${seconds.toFixed(2)} s${rate}` +
      (r.startupMs !== undefined ? ` (of which ${(r.startupMs / 1000).toFixed(2)} s starting the workers)` : ''),
    `  search: ${r.strategy}, ${r.store} store, ${r.workers} worker${r.workers === 1 ? '' : 's'}` +
      (r.bytesPerState !== undefined ? `, ${r.bytesPerState.toFixed(1)} bytes per state` : ''),
  ];
  if (r.incompleteReason) lines.push(`  stopped early: ${r.incompleteReason}`);
  if (r.collisionProbability !== undefined) {
    lines.push(`  probability that two distinct states shared a fingerprint (so one went unchecked): about ${r.collisionProbability.toExponential(1)}`);
  }
  for (const note of r.notes ?? []) lines.push(`  note: ${note}`);
  if (r.coverage.length > 0) {
    lines.push('  actions enabled (by family):');
    for (const c of r.coverage) lines.push(`    ${c.family.padEnd(24)} ${count(c.enabled).padStart(12)}`);
  }
  if (r.neverEnabled.length > 0) lines.push(`  never enabled: ${r.neverEnabled.join(', ')} (a spec bug or a bound too small?)`);
  for (const c of r.violations) lines.push('', renderCounterexample(c));
  return `${lines.join('\n')}\n`;
}
