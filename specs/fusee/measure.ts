// Prints the README's tables, measured: every config (states, transitions, depth, CPU
// time), every mutant (verdict, property, counterexample length) and every finding with its
// shortest counterexample; and (--only validation) how often trace validation against the
// correct spec catches a simulated run of each mutant.
// Usage: npx tsx specs/fusee/measure.ts [--full] [--only configs|mutants|consequences|findings|validation]

import { conformanceJobs, jobMachine, runJob } from '../../checkers/explore/conformance.ts';
import { exploreSync, type ExploreResult } from '../../checkers/explore/index.ts';
import { validateMemory } from '../../checkers/validate/index.ts';
import { spec } from './index.ts';
import { simulateFiles } from './simulate.ts';
import { fuseeTrace } from './trace.ts';

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
  // Judged by the conformance runner, as interleave check judges them (with the spec's own LIN).
  for (const m of spec.mutants) {
    const job = conformanceJobs(spec, { configs: false }).find((j) => j.name === m.name)!;
    const o = runJob(job, jobMachine(spec, job), { linearizability: 'off' });
    const r = o.result!;
    const v = r.violations.find((x) => x.property === o.property);
    const killed = o.ok ? o.outcome : o.outcome.toUpperCase();
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
  for (const job of conformanceJobs(spec, { configs: false }).filter((j) => j.kind === 'finding')) {
    const f = { name: job.name, variant: job.variant, config: job.config };
    const o = runJob(job, jobMachine(spec, job), { linearizability: 'off' });
    const r = o.result!;
    const v = r.violations.find((x) => x.property === o.property);
    console.log(`Finding ${f.name} (${f.variant} at ${f.config}): ${v ? `${v.property}: ${v.message}` : 'does not reproduce'} (${r.states} states)`);
    v?.steps.forEach((s, i) => console.log(`${i + 1}. ${s.action.label}`));
    console.log();
  }
}

// Runs of each mutant simulated (simulate.ts: 4 clients, 2 keys, 60 operations, 2 client
// kills, 1 memory-node kill, 1 timeout; seeds 1-10) and validated against the correct spec.
if (only === 'validation') {
  console.log('| mutant | kind | runs caught (of 10) | first diagnosis |');
  console.log('|---|---|---:|---|');
  for (const m of spec.mutants) {
    if (m.name === 'M23' || m.name === 'M24') {
      console.log(`| ${m.name} | ${m.kind} | - | KV-level mutant: the open workload (register level) has no inserts or deletes |`);
      continue;
    }
    let caught = 0;
    let first = '';
    let stuck = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const { files, stats } = simulateFiles({ clients: 4, keys: 2, ops: 60, seed, clientKills: 2, mnKills: 1, timeouts: 1, mutant: m.name });
      if (stats.stuck) stuck++;
      const r = validateMemory(files, { name: 'fusee', trace: fuseeTrace });
      if (r.verdict === 'invalid') {
        caught++;
        if (!first && r.failure) first = `${r.failure.event.action}: ${r.failure.why.kind === 'guard' ? r.failure.why.message : r.failure.why.kind === 'observed' ? `${r.failure.why.field} differs` : r.failure.why.message}`;
      } else if (r.verdict !== 'valid') first ||= `${r.verdict}: ${r.reason}`;
    }
    const note = stuck > 0 ? ` (${stuck} runs stopped with operations that could never finish)` : '';
    console.log(`| ${m.name} | ${m.kind} | ${caught} | ${first || '-'}${note} |`);
  }
}
