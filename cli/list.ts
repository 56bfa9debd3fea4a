// `interleave list [spec...]`: the specs (bundled, or the modules given) with their
// configs, mutants and findings, and the sequential models `interleave lin` knows.
import type { Command } from 'commander';
import { models } from '../checkers/lin/models/index.ts';
import { EXIT } from './exit.ts';
import { JSON_HELP, withHelp } from './help.ts';
import { printJson } from './envelope.ts';
import { bundledSpecs, resolveSpec, type ResolvedSpec } from './specs.ts';

export function listJson(list: readonly ResolvedSpec[]) {
  return {
    specs: list.map(({ def, module, arg }) => ({
      name: def.name,
      title: def.title ?? def.name,
      paper: def.paper ?? '',
      ...(module ? { module: arg } : {}),
      configs: def.configs.map((c) => ({ name: c.name, tier: c.tier, description: c.description ?? '' })),
      mutants: def.mutants.map((m) => ({ name: m.name, kind: m.kind, config: m.config, ...(m.expect ? { expect: m.expect } : {}), description: m.description ?? '', breaks: m.breaks ?? '' })),
      findings: (def.findings ?? []).map((f) => ({ name: f.name, variant: f.variant, config: f.config, expect: f.expect, description: f.description ?? '' })),
    })),
    models: Object.keys(models).map((name) => ({ name })),
  };
}

export function renderList(list: readonly ResolvedSpec[] = bundledSpecs()): string {
  const lines: string[] = ['specs (interleave explore <spec> [--config C] [--mutant M]):'];
  for (const { def: s, module, arg } of list) {
    lines.push(`  ${module ? arg : s.name}: ${s.title} — ${s.paper}`);
    for (const c of s.configs) lines.push(`    config ${c.name}${c.tier === 'full' ? ' (full)' : ''}: ${c.description}`);
    for (const m of s.mutants) {
      lines.push(`    ${m.kind === 'control' ? 'control' : m.breaksClass === 'liveness' ? 'mutant (liveness)' : 'mutant'} ${m.name} @ ${m.config}${m.expect ? ` -> ${m.expect}` : ''}: ${m.description} [breaks ${m.breaks}]`);
    }
    for (const f of s.findings ?? []) lines.push(`    finding ${f.name} @ ${f.config} -> ${f.expect}: ${f.description}`);
    if (s.trace) lines.push(`    validates traces (interleave validate ${s.name} <trace files...>): configs ${s.trace.configs.map((c) => `${c.name} (${c.description})`).join(', ')}`);
  }
  if (list.length === 0) lines.push('  (none registered in specs/index.ts)');
  lines.push('', 'models (interleave lin <history> --model <name> [--independent]):');
  for (const [name, m] of Object.entries(models)) lines.push(`  ${name}${m.name !== name ? ` (${m.name})` : ''}`);
  return `${lines.join('\n')}\n`;
}

export function register(program: Command): void {
  const command = program
    .command('list [spec...]')
    .description('list the specs (configs, mutants, findings) and the sequential models; without specs, the bundled ones')
    .option('--json', JSON_HELP)
    .action(async (args: string[], o: { json?: boolean }) => {
      const list = args.length === 0 ? bundledSpecs() : await Promise.all(args.map(resolveSpec));
      if (o.json) printJson('list', EXIT.holds, listJson(list));
      else process.stdout.write(renderList(list));
      process.exitCode = EXIT.holds;
    });
  withHelp(command, {
    examples: [
      ['interleave list', 'the bundled specs and the models'],
      ['interleave list ./my-spec.ts --json', 'what a module of yours declares, as JSON'],
    ],
    exitCodes: { 0: 'listed', 65: 'a spec module cannot be loaded or is not a spec' },
  });
}
