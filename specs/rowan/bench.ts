// The rowan spec in this checkout against another checkout of it (e.g. before its move
// onto specs/kit), in one process.
//   npx tsx specs/rowan/bench.ts <other specs/rowan/index.ts> [repeat] [--only NAME,...]
// States per CPU second at the default configs (specs/kit/bench.ts's `compareRates`,
// linearizability off; with --check, explored as `interleave check` does: the monitor on,
// the CPU seconds per side and the load average printed too).
//   npx tsx specs/rowan/bench.ts <other specs/rowan/index.ts> --traces
// The counterexample (property and action labels) of every mutant and finding whose config
// is a default one or stops early (and of the findings and the migration mutants at
// RK-MIG1): identical on both sides means both enumerate actions in the same order.
import { exploreSync } from '../../checkers/explore/index.ts';
import { compareRates } from '../kit/bench.ts';
import type { SpecDef } from '../../checkers/explore/types.ts';
import { spec as after } from './index.ts';

const other = process.argv[2];
const repeat = Number(/^\d+$/.test(process.argv[3] ?? '') ? process.argv[3] : 3);
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? process.argv[onlyAt + 1].split(',') : undefined;
if (!other || repeat < 1) {
  console.error('usage: npx tsx specs/rowan/bench.ts <other specs/rowan/index.ts> [repeat] [--only NAME,...] [--check | --traces]');
  process.exit(64);
}
const before = (await import(other)).spec as SpecDef;
const configOf = (s: SpecDef, name: string) => s.configs.find((x) => x.name === name)!.config;

function traces(): void {
  const tierOf = (n: string) => after.configs.find((c) => c.name === n)!.tier;
  // Full-tier mutants whose counterexample is found within seconds.
  const early = ['M11', 'M20a', 'M20b', 'M21', 'M24', 'M25'];
  const jobs: [variant: string, config: string][] = [
    ...after.mutants.filter((m) => tierOf(m.config) === 'default' || early.includes(m.name)).map((m): [string, string] => [m.name, m.config]),
    ...(after.findings ?? []).map((f): [string, string] => [f.variant, 'RK-MIG1']),
    ...['M20a', 'M20b', 'M25'].map((m): [string, string] => [m, 'RK-MIG1']),
  ].filter(([v]) => !only || only.includes(v));
  let same = 0;
  for (const [v, c] of jobs) {
    const run = (s: SpecDef) => {
      const r = exploreSync(s.build(configOf(s, c), v));
      const x = r.violations[0];
      return x ? `${x.property} in ${x.steps.length} steps: ${x.steps.map((st) => st.action.label).join(' ')}` : r.status;
    };
    const a = run(before);
    const b = run(after);
    if (a === b) same++;
    console.log(a === b ? `same ${v} at ${c}: ${b.split(':')[0]}` : `DIFFERENT ${v} at ${c}\n  before ${a}\n  after  ${b}`);
  }
  console.log(`${same}/${jobs.length} counterexamples identical`);
  if (same !== jobs.length) process.exitCode = 1;
}

if (process.argv.includes('--traces')) traces();
else if (process.argv.includes('--check')) compareRates(after, before, repeat, {}, console.log, only, true);
else compareRates(after, before, repeat, { linearizability: 'off' }, console.log, only);
