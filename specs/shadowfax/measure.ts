// Measures every config, mutant and finding of the shadowfax spec as `interleave explore` runs them
// (BFS, fingerprints, linearizability monitor, then the fair livelock search) and prints
// the README's tables. CPU seconds (process.cpuUsage), so that a busy machine does not
// inflate them. Run: npx tsx specs/shadowfax/measure.ts [--full]

import { conformanceJobs, jobMachine, runJob } from '../../checkers/explore/conformance.ts';
import { exploreSync } from '../../checkers/explore/index.ts';
import { spec } from './index.ts';

const full = process.argv.includes('--full');
const cpu = (t0: NodeJS.CpuUsage) => `${((process.cpuUsage(t0).user + process.cpuUsage(t0).system) / 1e6).toFixed(1)} s`;
const n = (x: number) => x.toLocaleString('en-US');

console.log('| config | tier | result | states | transitions | depth | livelock search: states, components excused | CPU |');
console.log('| --- | --- | --- | ---: | ---: | ---: | --- | ---: |');
for (const c of spec.configs) {
  if (c.tier === 'full' && !full) continue;
  const t0 = process.cpuUsage();
  const r = exploreSync(spec.build(c.config));
  const live = r.notes?.find((x) => x.startsWith('livelock:'))?.match(/^livelock: (\d+) states.*; (\d+) components?/);
  const result = r.status === 'incomplete' ? `incomplete (${r.incompleteReason})` : r.status === 'violation' ? `VIOLATED ${r.violations[0].property}` : r.status;
  console.log(`| ${c.name} | ${c.tier} | ${result} | ${n(r.states)} | ${n(r.transitions)} | ${r.depth} | ${live ? `${n(Number(live[1]))}, ${live[2]}` : 'not searched'} | ${cpu(t0)} |`);
}

console.log('\n| mutant | config | result | property | steps |');
console.log('| --- | --- | --- | --- | ---: |');
// Judged by the conformance runner, as interleave check judges them.
for (const job of conformanceJobs(spec, { configs: false })) {
  const o = runJob(job, jobMachine(spec, job));
  const result = o.ok ? o.outcome : o.outcome.toUpperCase();
  console.log(`| ${job.kind === 'finding' ? `finding ${job.name}` : job.name} | ${job.config} | ${result} | ${o.property ?? '-'} | ${o.counterexampleLength ?? '-'} |`);
}
