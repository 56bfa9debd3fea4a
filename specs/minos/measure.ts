// Measures the tables of README.md: every config (states, depth, CPU time, verdict), every
// mutant and finding (the property that catches it, the shortest counterexample's length),
// and the findings' counterexamples as numbered action lists.
// Run: npx tsx specs/minos/measure.ts [--full] [--traces]

import { exploreSync } from '../../checkers/explore/index.ts';
import type { Machine } from '../../checkers/explore/types.ts';
import { spec } from './index.ts';

const full = process.argv.includes('--full');
const traces = process.argv.includes('--traces');
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const configOf = (name: string) => spec.configs.find((c) => c.name === name)!.config;
const only = (m: Machine, p: string): Machine => ({ ...m, invariants: p === 'linearizability' ? {} : { [p]: m.invariants[p] } });

console.log('| config | tier | model | states | depth | CPU s | verdict |');
console.log('|---|---|---|---|---|---|---|');
for (const c of spec.configs) {
  if (c.tier === 'full' && !full) continue;
  const t = cpu();
  const r = exploreSync(spec.build(c.config), { linearizability: 'incremental', maxStates: 3_000_000 });
  const v = r.violations[0];
  const verdict = r.status === 'violation' ? `violation: ${v.property}` : r.status === 'incomplete' ? `incomplete (${r.incompleteReason})` : 'holds';
  console.log(`| ${c.name} | ${c.tier} | ${c.config.model}${c.config.offload ? ' (MINOS-O)' : ''} | ${r.states} | ${r.depth} | ${((cpu() - t) / 1000).toFixed(2)} | ${verdict} |`);
}

console.log('\n| variant | kind | config | verdict | property | length | states |');
console.log('|---|---|---|---|---|---|---|');
const rows = [
  ...spec.mutants.map((m) => ({ name: m.name, variant: m.name, kind: m.kind, config: m.config, expect: m.expect })),
  ...(spec.findings ?? []).map((f) => ({ name: f.name, variant: f.variant, kind: 'finding', config: f.config, expect: f.expect })),
];
const shown: string[] = [];
for (const m of rows) {
  const machine = spec.build(configOf(m.config), m.variant);
  const r = m.expect
    ? exploreSync(only(machine, m.expect), { linearizability: m.expect === 'linearizability' ? 'incremental' : 'off', maxStates: 3_000_000 })
    : exploreSync(machine, { linearizability: 'incremental', maxStates: 3_000_000 });
  const v = r.violations[0];
  const verdict = m.kind === 'control' ? (r.status === 'holds' ? 'passes' : `FAILS (${r.status})`) : v ? 'killed' : `SURVIVED (${r.status})`;
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
      const r = exploreSync(only(m, literal), { linearizability: 'off', maxStates: 3_000_000 });
      out.push(r.status === 'violation' ? `fails (${r.violations[0].steps.length})` : r.status);
    }
    cells.push(out.join(' / '));
  }
  console.log(`| ${literal.replace('-literal', '')} | ${cells.join(' | ')} |`);
}
