// Measures the tables of README.md: every config (states, depth, CPU time, verdict), every
// mutant and finding (the property that catches it, the shortest counterexample's length),
// and the findings' counterexamples as numbered action lists.
// Run: npx tsx specs/minos/measure.ts [--full] [--traces] [--only A,B] [--cpu-budget S] [--max-states N]
// --only measures just the named configs (no mutant or Table I tables), one row as each
// finishes; --cpu-budget stops a config's check (the safety search or the livelock search
// after it) after S CPU seconds and reports it incomplete with the states stored and the
// depth reached so far; --max-states (default 3,000,000) stops it at that many states.

import { conformanceJobs, jobMachine, runJob } from '../../checkers/explore/conformance.ts';
import { exploreSync } from '../../checkers/explore/index.ts';
import { livelockAfter } from '../../checkers/explore/livelock.ts';
import type { ExploreResult, Machine, Progress } from '../../checkers/explore/types.ts';
import { spec } from './index.ts';

const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const full = process.argv.includes('--full');
const traces = process.argv.includes('--traces');
const only = arg('--only')?.split(',');
const maxStates = Number(arg('--max-states') ?? 3_000_000);
const budgetMs = arg('--cpu-budget') === undefined ? Infinity : Number(arg('--cpu-budget')) * 1000;
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const configOf = (name: string) => spec.configs.find((c) => c.name === name)!.config;
const onlyProperty = (m: Machine, p: string): Machine => ({ ...m, invariants: p === 'linearizability' ? {} : { [p]: m.invariants[p] } });

for (const name of only ?? []) if (!spec.configs.some((c) => c.name === name)) throw new Error(`no config ${name}`);

/** Thrown from the machine's actions(): the explorer has no CPU-time budget of its own (timeLimitMs is wall time). */
class OverBudget extends Error {}
type Measured = Pick<ExploreResult, 'status' | 'states' | 'depth' | 'violations' | 'incompleteReason'>;

/**
 * A whole check as `interleave check` runs it (the safety search with the monitor, then
 * the livelock search), within the CPU budget. The budget is checked in actions(), which
 * both searches call, so it also bounds the livelock search that onProgress does not see.
 */
function measure(m: Machine): { r: Measured; cpuMs: number } {
  const t = cpu();
  let calls = 0;
  let over = false;
  const budgeted: Machine = {
    ...m,
    // Sticky: the batched BFS retries a state whose actions() threw, and must meet the throw again.
    actions: (s) => {
      if (over || (++calls % 1024 === 0 && cpu() - t > budgetMs)) {
        over = true;
        throw new OverBudget();
      }
      return m.actions(s);
    },
  };
  let last: Progress | undefined;
  let safety: ExploreResult | undefined;
  try {
    safety = exploreSync(budgeted, { linearizability: 'incremental', livelock: false, maxStates, onProgress: (p) => (last = p) });
    const r = livelockAfter(safety, budgeted, { maxStates });
    return { r, cpuMs: cpu() - t };
  } catch (e) {
    if (!(e instanceof OverBudget)) throw e;
    const cpuMs = cpu() - t;
    const budget = `CPU budget of ${budgetMs / 1000} s reached`;
    const r: Measured = safety
      ? { ...safety, status: 'incomplete', incompleteReason: `the safety search holds over all states; the livelock search: ${budget}` }
      : { status: 'incomplete', states: last?.states ?? 0, depth: last?.depth ?? 0, violations: [], incompleteReason: `${budget}, ${last?.queue ?? '?'} states queued` };
    return { r, cpuMs };
  }
}

console.log('| config | tier | model | states | depth | CPU s | verdict |');
console.log('|---|---|---|---|---|---|---|');
for (const c of spec.configs) {
  if (only ? !only.includes(c.name) : c.tier === 'full' && !full) continue;
  const { r, cpuMs } = measure(spec.build(c.config));
  const v = r.violations[0];
  const verdict = r.status === 'violation' ? `violation: ${v.property}` : r.status === 'incomplete' ? `incomplete (${r.incompleteReason})` : 'holds';
  console.log(`| ${c.name} | ${c.tier} | ${c.config.model}${c.config.offload ? ' (MINOS-O)' : ''} | ${r.states} | ${r.depth} | ${(cpuMs / 1000).toFixed(2)} | ${verdict} |`);
}
// The mutant, finding and Table I tables, at their (small) configs.
if (!only) {
  console.log('\n| variant | kind | config | verdict | property | length | states |');
  console.log('|---|---|---|---|---|---|---|');
  const shown: string[] = [];
  // Judged by the conformance runner, on the machine narrowed to the catalogue's property.
  for (const m of conformanceJobs(spec, { configs: false })) {
    const machine = jobMachine(spec, m);
    const o = m.expect
      ? runJob(m, onlyProperty(machine, m.expect), { linearizability: m.expect === 'linearizability' ? 'incremental' : 'off', maxStates: 3_000_000 })
      : runJob(m, machine, { linearizability: 'incremental', maxStates: 3_000_000 });
    const r = o.result!;
    const v = r.violations.find((x) => x.property === o.property);
    const verdict = o.ok ? o.outcome : `${o.outcome.toUpperCase()} (${r.status})`;
    console.log(`| ${m.name} | ${m.kind} | ${m.config} | ${verdict} | ${v?.property ?? '-'} | ${v ? v.steps.length : '-'} | ${r.states} |`);
    if (traces && v && m.kind === 'finding') {
      shown.push(`\n**${m.name}** at ${m.config}: ${v.property}: ${v.message}\n`);
      v.steps.forEach((s, i) => shown.push(`${i + 1}. \`${s.action.label}\``));
    }
  }
  for (const line of shown) console.log(line);

  // Table I as worded, per model, at the 2-node race with crash (B2-*) and its MINOS-O twin (F2-*).
  console.log('\n| Table I (as worded) | ' + ['synch', 'strict', 'renf', 'event', 'scope'].join(' | ') + ' |');
  console.log('|---|---|---|---|---|---|');
  for (const literal of ['T2b-literal', 'T2c-literal', 'T3a-literal', 'T3b-literal']) {
    const cells: string[] = [];
    for (const model of ['synch', 'strict', 'renf', 'event', 'scope']) {
      const out: string[] = [];
      for (const shape of ['B2', 'F2']) {
        const m = spec.build(configOf(`${shape}-${model}`), literal);
        if (!(literal in m.invariants)) {
          out.push('n/a');
          continue;
        }
        const r = exploreSync(onlyProperty(m, literal), { linearizability: 'off', maxStates: 3_000_000 });
        out.push(r.status === 'violation' ? `fails (${r.violations[0].steps.length})` : r.status);
      }
      cells.push(out.join(' / '));
    }
    console.log(`| ${literal.replace('-literal', '')} | ${cells.join(' | ')} |`);
  }
}
