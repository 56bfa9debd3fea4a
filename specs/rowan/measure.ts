// Prints the README's tables: every config (distinct states, transitions, depth, time) and
// every mutant and finding (verdict, property, counterexample length), measured with the
// explorer. Usage: npx tsx specs/rowan/measure.ts [configs|mutants|all] [--only NAME,...]
import { conformanceJobs, jobMachine, runJob } from '../../checkers/explore/conformance.ts';
import { exploreSync } from '../../checkers/explore/index.ts';
import { spec } from './index.ts';

const what = process.argv[2] ?? 'all';
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? process.argv[onlyAt + 1].split(',') : undefined;

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
  console.log('| mutant | config | verdict | property | counterexample steps | time |');
  console.log('|---|---|---|---|---|---|');
  // Judged by the conformance runner, as interleave check judges them.
  for (const job of conformanceJobs(spec, { configs: false })) {
    if (only && !only.includes(job.name)) continue;
    const o = runJob(job, jobMachine(spec, job));
    const v = o.result!.violations.find((x) => x.property === o.property);
    const verdict = o.status === 'incomplete' && !v ? `incomplete (${o.incompleteReason})` : o.ok ? o.outcome : o.outcome.toUpperCase();
    console.log(`| ${job.name} | ${job.config} | ${verdict} | ${o.property ?? '-'} | ${o.counterexampleLength ?? '-'} | ${(o.elapsedMs / 1000).toFixed(1)} s |`);
    if (v && process.argv.includes('--trace')) v.steps.forEach((s, i) => console.log(`    ${i + 1}. ${s.action.label}`));
  }
}
