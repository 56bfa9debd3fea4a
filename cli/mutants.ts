// `interleave mutants <spec|all>`: run every mutant of a spec at its config. A safety
// mutant must be killed (some property violated; its expected property, when declared);
// a control must pass; a finding must reproduce its expected property.
// Exit 0 when all of that is so, 1 otherwise, 64 bad usage.
import type { Command } from 'commander';
import type { ExploreOptions, SpecDef } from '../checkers/explore/types.ts';
import { specs } from '../specs/index.ts';
import { EXIT } from './exit.ts';
import { exploreSpec, jsonReplacer } from './explore.ts';
import { capWorkers, workers } from './flags.ts';
import { resolveSpec } from './spec-machine.ts';

export interface MutantRow {
  spec: string;
  name: string;
  kind: 'safety' | 'control' | 'finding';
  config: string;
  /** killed / survived for safety mutants; passes / fails for controls; reproduces / gone for findings */
  outcome: 'killed' | 'survived' | 'passes' | 'fails' | 'reproduces' | 'gone';
  ok: boolean;
  property?: string;
  expect?: string;
  counterexampleLength?: number;
  states: number;
  elapsedMs: number;
  note?: string;
}

export async function runMutants(list: SpecDef[], options: ExploreOptions): Promise<MutantRow[]> {
  const rows: MutantRow[] = [];
  for (const spec of list) {
    const jobs = [
      ...spec.mutants.map((m) => ({ name: m.name, variant: m.name, kind: m.kind as MutantRow['kind'], config: m.config, expect: m.expect })),
      ...(spec.findings ?? []).map((f) => ({ name: f.name, variant: f.variant, kind: 'finding' as const, config: f.config, expect: f.expect })),
    ];
    for (const job of jobs) {
      let r = await exploreSpec(spec.name, job.config, job.variant, options);
      // The run stops at the first violation; if that is another property, look on for the expected one.
      if (job.expect !== undefined && r.status === 'violation' && !r.violations.some((x) => x.property === job.expect)) {
        r = await exploreSpec(spec.name, job.config, job.variant, { ...options, all: true });
      }
      const v = job.expect !== undefined ? (r.violations.find((x) => x.property === job.expect) ?? r.violations[0]) : r.violations[0];
      const base = { spec: spec.name, name: job.name, kind: job.kind, config: job.config, states: r.states, elapsedMs: r.elapsedMs, ...(job.expect ? { expect: job.expect } : {}) };
      const found = v ? { property: v.property, counterexampleLength: v.steps.length } : {};
      const matches = v !== undefined && (job.expect === undefined || v.property === job.expect);
      const note = r.status === 'incomplete' ? `incomplete: ${r.incompleteReason}` : v && !matches ? `violated ${v.property}, expected ${job.expect}` : undefined;
      if (job.kind === 'control') rows.push({ ...base, ...found, outcome: r.status === 'holds' ? 'passes' : 'fails', ok: r.status === 'holds', ...(note ? { note } : {}) });
      else if (job.kind === 'safety') rows.push({ ...base, ...found, outcome: v ? 'killed' : 'survived', ok: matches, ...(note ? { note } : {}) });
      else rows.push({ ...base, ...found, outcome: matches ? 'reproduces' : 'gone', ok: matches, ...(note ? { note } : {}) });
    }
  }
  return rows;
}

export function renderMutantTable(rows: MutantRow[]): string {
  const header = ['spec', 'mutant', 'kind', 'config', 'outcome', 'property', 'steps', 'states', 'time'];
  const body = rows.map((r) => [
    r.spec,
    r.name,
    r.kind,
    r.config,
    `${r.ok ? '' : '!! '}${r.outcome}`,
    r.property ?? '-',
    r.counterexampleLength === undefined ? '-' : String(r.counterexampleLength),
    r.states.toLocaleString('en-US'),
    `${(r.elapsedMs / 1000).toFixed(1)} s`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  const notes = rows.filter((r) => r.note).map((r) => `  ${r.spec}/${r.name}: ${r.note}`);
  return [line(header), ...body.map(line), ...(notes.length ? ['notes:', ...notes] : [])].join('\n') + '\n';
}

export function mutantSummary(rows: MutantRow[]): string {
  const safety = rows.filter((r) => r.kind === 'safety');
  const controls = rows.filter((r) => r.kind === 'control');
  const findings = rows.filter((r) => r.kind === 'finding');
  return (
    `mutants killed: ${safety.filter((r) => r.ok).length}/${safety.length}; ` +
    `controls passing: ${controls.filter((r) => r.ok).length}/${controls.length}; ` +
    `findings reproducing: ${findings.filter((r) => r.ok).length}/${findings.length}\n`
  );
}

export function register(program: Command): void {
  program
    .command('mutants <spec>')
    .description('run every mutant of a spec (or of all specs) at its config: safety mutants must be killed, controls must pass')
    .option('--workers <n>', "worker threads per run (default 1; at most the machine's parallelism)", workers)
    .option('--json', 'print the rows as JSON')
    .action(async (name: string, o: { workers?: number; json?: boolean }) => {
      const list = name === 'all' ? specs : [resolveSpec(name)];
      const rows = await runMutants(list, { workers: capWorkers(o.workers, (s) => process.stderr.write(s)) });
      const ok = rows.every((r) => r.ok);
      if (o.json) process.stdout.write(`${JSON.stringify({ ok, rows }, jsonReplacer, 2)}\n`);
      else process.stdout.write(renderMutantTable(rows) + mutantSummary(rows));
      process.exitCode = ok ? EXIT.holds : EXIT.violation;
    });
}
