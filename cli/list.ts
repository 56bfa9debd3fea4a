// `interleave list`: the bundled specs with their configs, mutants and findings, and the
// sequential models `interleave lin` knows.
import type { Command } from 'commander';
import { models } from '../checkers/lin/models/index.ts';
import { specs } from '../specs/index.ts';

export function renderList(): string {
  const lines: string[] = ['specs (interleave explore <spec> [--config C] [--mutant M]):'];
  for (const s of specs) {
    lines.push(`  ${s.name}: ${s.title} — ${s.paper}`);
    for (const c of s.configs) lines.push(`    config ${c.name}${c.tier === 'full' ? ' (full)' : ''}: ${c.description}`);
    for (const m of s.mutants) {
      lines.push(`    ${m.kind === 'control' ? 'control' : m.breaksClass === 'liveness' ? 'mutant (liveness)' : 'mutant'} ${m.name} @ ${m.config}${m.expect ? ` -> ${m.expect}` : ''}: ${m.description} [breaks ${m.breaks}]`);
    }
    for (const f of s.findings ?? []) lines.push(`    finding ${f.name} @ ${f.config} -> ${f.expect}: ${f.description}`);
  }
  if (specs.length === 0) lines.push('  (none registered in specs/index.ts)');
  lines.push('', 'models (interleave lin <history> --model <name>):');
  for (const [name, m] of Object.entries(models)) lines.push(`  ${name}${m.name !== name ? ` (${m.name})` : ''}`);
  return `${lines.join('\n')}\n`;
}

export function register(program: Command): void {
  program
    .command('list')
    .description('list the specs (configs, mutants, findings) and the sequential models')
    .action(() => {
      process.stdout.write(renderList());
    });
}
