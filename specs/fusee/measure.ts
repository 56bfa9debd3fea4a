// Prints the README's tables, measured: every config (states, transitions, depth, CPU
// time), every mutant (verdict, property, counterexample length) and every finding with its
// shortest counterexample. Usage: npx tsx specs/fusee/measure.ts [--full] [--only configs|mutants|findings]

import { exploreSync, type ExploreResult } from '../../checkers/explore/index.ts';
import { spec } from './index.ts';

const full = process.argv.includes('--full');
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const configOf = (name: string) => spec.configs.find((c) => c.name === name)!;

function measure(config: string, variant?: string): { r: ExploreResult; cpuMs: number } {
  const start = process.cpuUsage();
  const r = exploreSync(spec.build(configOf(config).config, variant), { linearizability: 'off' });
  return { r, cpuMs: Math.round(process.cpuUsage(start).user / 1000) };
}

const verdict = (r: ExploreResult): string => (r.status === 'incomplete' ? `incomplete (${r.incompleteReason})` : r.status);

if (!only || only === 'configs') {
  console.log('| config | tier | description | verdict | distinct states | transitions | depth | CPU |');
  console.log('|---|---|---|---|---:|---:|---:|---:|');
  for (const c of spec.configs) {
    if (c.tier === 'full' && !full) continue;
    const { r, cpuMs } = measure(c.name);
    console.log(`| ${c.name} | ${c.tier} | ${c.description} | ${verdict(r)} | ${r.states} | ${r.transitions} | ${r.depth} | ${(cpuMs / 1000).toFixed(1)} s |`);
  }
  console.log();
}

if (!only || only === 'mutants') {
  // "LIN alone": the same mutant checked against linearizability (and deadlock) only
  // (variant M/LIN), the end-to-end consequence of the bug at that config.
  console.log('| mutant | kind | config | mutation | verdict | property | counterexample length | states | LIN alone |');
  console.log('|---|---|---|---|---|---|---:|---:|---|');
  for (const m of spec.mutants) {
    const { r } = measure(m.config, m.name);
    const v = r.violations[0];
    const killed = m.kind === 'safety' ? (v ? 'killed' : 'SURVIVED') : v ? 'FAILS' : 'passes';
    let lin = '-';
    if (m.kind === 'safety' && v?.property !== 'LIN') {
      const alone = measure(m.config, `${m.name}/LIN`).r;
      lin = alone.violations[0] ? `${alone.violations[0].property}, ${alone.violations[0].steps.length} steps` : verdict(alone);
    }
    console.log(`| ${m.name} | ${m.kind} | ${m.config} | ${m.description} | ${killed} | ${v?.property ?? '-'} | ${v ? v.steps.length : '-'} | ${r.states} | ${lin} |`);
  }
  console.log();
}

// The end-to-end consequence, at a larger config, of mutants whose small config shows only
// an invariant broken (the extraction predicts LIN or deadlock there).
const consequences: [string, string][] = [['M2', 'BD'], ['M3', 'D2'], ['M5', 'D'], ['M10', 'E'], ['M12', 'D2'], ['M19', 'D2']];
if (only === 'consequences') {
  console.log('| mutant | config | LIN and deadlock alone | states | CPU |');
  console.log('|---|---|---|---:|---:|');
  for (const [name, config] of consequences) {
    const { r, cpuMs } = measure(config, `${name}/LIN`);
    const v = r.violations[0];
    console.log(`| ${name} | ${config} | ${v ? `${v.property}, ${v.steps.length} steps` : verdict(r)} | ${r.states} | ${(cpuMs / 1000).toFixed(1)} s |`);
  }
}

if (!only || only === 'findings') {
  for (const f of spec.findings ?? []) {
    const { r } = measure(f.config, f.variant);
    const v = r.violations[0];
    console.log(`Finding ${f.name} (${f.variant} at ${f.config}): ${v ? `${v.property}: ${v.message}` : 'does not reproduce'} (${r.states} states)`);
    v?.steps.forEach((s, i) => console.log(`${i + 1}. ${s.action.label}`));
    console.log();
  }
}
