// Measures every config, mutant and control of the swarm spec and prints the README's
// tables (markdown). Run: npx tsx specs/swarm/measure.ts [limit-seconds]
// Breadth-first, so counterexample lengths are the shortest; a run that hits the time
// limit says so ("incomplete").

import { exploreSync } from '../../checkers/explore/index.ts';
import { spec } from './index.ts';

const limit = Number(process.argv[2] ?? 90) * 1000;
const cfg = (name: string) => spec.configs.find((c) => c.name === name)!;
const cpu = (t0: NodeJS.CpuUsage) => `${(process.cpuUsage(t0).user / 1e6).toFixed(1)} s`;

console.log('| config | tier | result | distinct states | depth | CPU time |');
console.log('|---|---|---|---|---|---|');
for (const c of spec.configs) {
  const t0 = process.cpuUsage();
  const r = exploreSync(spec.build(c.config), { linearizability: 'off', timeLimitMs: limit });
  const status = r.status === 'incomplete' ? `incomplete (${r.incompleteReason})` : r.status;
  console.log(`| ${c.name} | ${c.tier} | ${status} | ${r.states} | ${r.depth} | ${cpu(t0)} |`);
}

console.log('\n| mutant | kind | config | result | property (all invariants) | length | states | SG-Lin alone: length |');
console.log('|---|---|---|---|---|---|---|---|');
for (const m of spec.mutants) {
  const machine = spec.build(cfg(m.config).config, m.name);
  const t0 = process.cpuUsage();
  const r = exploreSync(machine, { linearizability: 'off', timeLimitMs: limit });
  const v = r.violations[0];
  const result = m.kind === 'control'
    ? (r.status === 'holds' ? 'passes' : r.status === 'violation' ? 'FLAGGED' : `incomplete (${r.incompleteReason})`)
    : (r.status === 'violation' ? 'killed' : r.status === 'holds' ? 'SURVIVED' : `not killed within ${limit / 1000} s`);
  let alone = '';
  if (v && m.config.startsWith('sg-') && v.property !== 'SG-Lin' && machine.invariants['SG-Lin']) {
    const only = exploreSync({ ...machine, invariants: { 'SG-Lin': machine.invariants['SG-Lin'] } }, { linearizability: 'off', timeLimitMs: limit });
    alone = only.violations[0] ? String(only.violations[0].steps.length) : only.status;
  }
  console.log(`| ${m.name} | ${m.kind} | ${m.config} | ${result} | ${v ? v.property : '–'} | ${v ? v.steps.length : '–'} | ${r.states} | ${alone} |`);
  void cpu(t0);
}
