// The explorer's result in words: the verdict, what was covered, and each counterexample
// as a numbered list of actions with the fields each changed. Bounded whatever the
// counterexample's length: past TEXT_STEPS steps the middle ones are elided, past
// TEXT_CHANGES changed fields a step's others are counted, a value is cut to its line (and
// rendered no further than it is shown), and a replay path too long for one command-line
// argument is pointed to in --json instead; each elision says what it left out and where
// the whole is (--json, --itf). Lines are produced one at a time (`exploreTextLines`), so
// that the CLI writes them as they come.

import type { Change, Counterexample, ExploreResult } from '../explore/types.ts';

/** A counterexample of at most this many steps is printed whole; a longer one, its first TEXT_HEAD and last TEXT_TAIL. */
export const TEXT_STEPS = 1000;
export const TEXT_HEAD = 100;
export const TEXT_TAIL = 400;
/** At most this many changed fields are listed under one step. */
export const TEXT_CHANGES = 40;
/** A replay path longer than this is not printed (one command-line argument holds at most 128 KiB on Linux). */
export const TEXT_REPLAY = 100_000;

/** A short rendering of plain data for one line of a report (a large value is rendered only as far as it is shown). */
export function show(v: unknown, max = 120): string {
  const text = render(v, max);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * v rendered, whole, or cut once it is longer than `room` (its first `room` characters
 * those of the whole rendering): the parts of a container past that are not rendered.
 */
function render(v: unknown, room: number): string {
  if (v === undefined) return 'undefined';
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'string') return JSON.stringify(v.length > room ? v.slice(0, room + 1) : v);
  if (v === null || typeof v !== 'object') return String(v);
  if (v instanceof Map) return list('Map{', '}', v, ([k, x]: [unknown, unknown], r) => `${render(k, r)} => ${render(x, r)}`, room);
  if (v instanceof Set) return list('Set{', '}', v, render, room);
  if (Array.isArray(v)) return list('[', ']', v, render, room);
  if (ArrayBuffer.isView(v)) return list('[', ']', v as unknown as Iterable<unknown>, render, room);
  const o = v as Record<string, unknown>;
  return list('{', '}', Object.keys(o), (k: string, r) => `${k}: ${render(o[k], r)}`, room);
}

function list<T>(open: string, close: string, items: Iterable<T>, one: (x: T, room: number) => string, room: number): string {
  let text = open;
  let first = true;
  for (const x of items) {
    if (text.length > room) return `${text}…`;
    text += (first ? '' : ', ') + one(x, room - text.length);
    first = false;
  }
  return text + close;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** The action path to pass to `interleave explore --replay`. */
export function replayPath(c: Counterexample): string {
  return c.steps.map((s) => s.action.label).join(';');
}

/** The lines of one step's changed fields (none for none): at most TEXT_CHANGES, then how many more (--json has all). */
export function* changeLines(changes: readonly Change[]): Generator<string> {
  const listed = changes.length > TEXT_CHANGES ? TEXT_CHANGES - 1 : changes.length;
  for (let i = 0; i < listed; i++) yield `         ${changes[i].path}: ${show(changes[i].before, 60)} -> ${show(changes[i].after, 60)}`;
  if (listed < changes.length) yield `         … and ${count(changes.length - listed)} more changed fields (--json lists them all)`;
}

/** The steps of a path of n that are elided from its text (first and last+1, 0-based), if it is longer than TEXT_STEPS. */
export function elidedSteps(n: number): { from: number; to: number } | undefined {
  return n > TEXT_STEPS ? { from: TEXT_HEAD, to: n - TEXT_TAIL } : undefined;
}

/** The line that stands for steps from+1 to `to` (1-based) of n. */
export function elisionLine(from: number, to: number, n: number, more = ''): string {
  return `  … ${count(to - from)} steps elided (${count(from + 1)} to ${count(to)} of ${count(n)}${more}): --json or --itf has every step`;
}

/** A counterexample's lines: the steps, the middle ones elided past TEXT_STEPS, and the path to replay. */
export function* counterexampleLines(c: Counterexample): Generator<string> {
  yield `${c.property} violated: ${c.message}`;
  yield `  initial state: ${show(c.initial, 400)}`;
  const n = c.steps.length;
  const elided = elidedSteps(n);
  for (let i = 0; i < n; i++) {
    if (elided !== undefined && i === elided.from) {
      const lasso = c.lassoStart !== undefined && c.lassoStart >= elided.from && c.lassoStart < elided.to ? `; the cycle starts at step ${count(c.lassoStart + 1)}` : '';
      yield elisionLine(elided.from, elided.to, n, lasso);
      yield `  state after step ${count(elided.to)}: ${show(c.steps[elided.to - 1].state, 400)}`;
      i = elided.to - 1;
      continue;
    }
    const s = c.steps[i];
    const lasso = c.lassoStart === i ? '   <- the cycle starts here' : '';
    yield `  ${String(i + 1).padStart(3)}. ${s.action.label}${lasso}`;
    yield* changeLines(s.changes);
    if (s.changes.length === 0) yield '         (no field changed)';
  }
  if (c.seed !== undefined) yield `  found by random simulation, seed ${c.seed}`;
  let length = n - 1;
  for (const s of c.steps) length += s.action.label.length;
  yield length > TEXT_REPLAY ? `  replay: the path of ${count(n)} steps is too long for one argument (${count(length)} characters): --json has its labels (steps[].action.label, joined with ";")` : `  replay: --replay "${replayPath(c)}"`;
}

export function renderCounterexample(c: Counterexample): string {
  return [...counterexampleLines(c)].join('\n');
}

export function renderExploreText(r: ExploreResult, title?: string): string {
  return `${[...exploreTextLines(r, title)].join('\n')}\n`;
}

/** renderExploreText's lines, one at a time (no line break at their ends). */
export function* exploreTextLines(r: ExploreResult, title?: string): Generator<string> {
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
  yield* lines;
  for (const c of r.violations) {
    yield '';
    yield* counterexampleLines(c);
  }
}
