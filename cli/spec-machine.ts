// Builds a spec's machine by names, so that worker threads can rebuild it from plain
// arguments (an ExploreTarget pointing at this module's `specMachine`).
import type { ExploreTarget, Machine, SpecDef } from '../checkers/explore/types.ts';
import { findSpec } from '../specs/index.ts';
import { UsageError } from './exit.ts';


export function resolveSpec(name: string): SpecDef {
  const spec = findSpec(name);
  if (!spec) throw new UsageError(`unknown spec ${JSON.stringify(name)}; see \`interleave list\``);
  return spec;
}

export function specMachine(specName: string, configName: string, variant?: string): Machine {
  const spec = resolveSpec(specName);
  const config = spec.configs.find((c) => c.name === configName);
  if (!config) throw new UsageError(`spec ${specName} has no config ${JSON.stringify(configName)}; known: ${spec.configs.map((c) => c.name).join(', ')}`);
  if (variant !== undefined && !spec.mutants.some((m) => m.name === variant) && !(spec.findings ?? []).some((f) => f.variant === variant)) {
    throw new UsageError(`spec ${specName} has no mutant or finding ${JSON.stringify(variant)}; see \`interleave list\``);
  }
  return spec.build(config.config, variant);
}

export function specTarget(specName: string, configName: string, variant?: string): ExploreTarget {
  return { module: new URL('./spec-machine.ts', import.meta.url).href, export: 'specMachine', args: variant === undefined ? [specName, configName] : [specName, configName, variant] };
}
