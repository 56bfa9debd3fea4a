// Builds a bundled spec's machine by names, so that worker threads can rebuild it from
// plain arguments (an ExploreTarget pointing at this module's `specMachine`). A user's
// module is its own target (cli/specs.ts).
import type { ExploreTarget, Machine, SpecDef } from '../checkers/explore/types.ts';
import { findSpec } from '../specs/index.ts';

function bundled(name: string): SpecDef {
  const spec = findSpec(name);
  if (!spec) throw new Error(`unknown bundled spec ${JSON.stringify(name)}`);
  return spec;
}

export function specMachine(specName: string, configName: string, variant?: string): Machine {
  const spec = bundled(specName);
  const config = spec.configs.find((c) => c.name === configName);
  if (!config) throw new Error(`spec ${specName} has no config ${JSON.stringify(configName)}`);
  return spec.build(config.config, variant);
}

export function specTarget(specName: string, configName: string, variant?: string): ExploreTarget {
  const self = new URL(import.meta.url.endsWith('.ts') ? './spec-machine.ts' : './spec-machine.js', import.meta.url).href;
  return { module: self, export: 'specMachine', args: variant === undefined ? [specName, configName] : [specName, configName, variant] };
}
