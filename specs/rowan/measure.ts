// Prints the README's tables: every config (distinct states, transitions, depth, time) and
// every mutant and finding (verdict, property, counterexample length), measured with the
// explorer. Usage: npx tsx specs/rowan/measure.ts [configs|mutants|all] [--only NAME,...]
import { exploreSync } from '../../checkers/explore/index.ts';
import { spec } from './index.ts';

const what = process.argv[2] ?? 'all';
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? process.argv[onlyAt + 1].split(',') : undefined;
const configOf = (name: string) => spec.configs.find((c) => c.name === name)!;

if (what === 'configs' || what === 'all') {
  console.log('| config | tier | result | distinct states | transitions | depth | time |');
  console.log('|---|---|---|---|---|---|---|');
  for (const c of spec.configs) {
    if (only && !only.includes(c.name)) continue;
    const r = exploreSync(spec.build(c.config));
    const v = r.violations.map((x) => x.property).join(', ');
    console.log(`| ${c.name} | ${c.tier} | ${r.status}${v ? ` (${v})` : ''}${r.incompleteReason ? ` (${r.incompleteReason})` : ''} | ${r.states} | ${r.transitions} | ${r.depth} | ${(r.elapsedMs / 1000).toFixed(1)} s |`);
  }
}
if (what === 'mutants' || what === 'all') {
  console.log('| mutant | config | verdict | property (first) | counterexample steps | time |');
  console.log('|---|---|---|---|---|---|');
  const rows = [...spec.mutants.map((m) => ({ name: m.name, variant: m.name, config: m.config })),
    ...(spec.findings ?? []).map((f) => ({ name: f.name, variant: f.variant, config: f.config }))];
  for (const m of rows) {
    if (only && !only.includes(m.name)) continue;
    const r = exploreSync(spec.build(configOf(m.config).config, m.variant));
    const v = r.violations[0];
    const verdict = r.status === 'violation' ? 'killed' : r.status === 'holds' ? 'survived' : `incomplete (${r.incompleteReason})`;
    console.log(`| ${m.name} | ${m.config} | ${verdict} | ${v ? v.property : '-'} | ${v ? v.steps.length : '-'} | ${(r.elapsedMs / 1000).toFixed(1)} s |`);
    if (v && process.argv.includes('--trace')) v.steps.forEach((s, i) => console.log(`    ${i + 1}. ${s.action.label}`));
  }
}
