// Builds a bundled spec's machine by names, and names where worker threads and processes
// build the same one: the spec's export of specs/index.ts (a SpecDef target, load.ts), so
// that a target can also carry build options (the distributed search's plain machine). A
// user's module is its own target (cli/specs.ts).
import type { BuildOptions, ExploreTarget, Machine, SpecDef } from '../checkers/explore/types.ts';
import { findSpec } from '../specs/index.ts';

function bundled(name: string): SpecDef {
  const spec = findSpec(name);
  if (!spec) throw new Error(`unknown bundled spec ${JSON.stringify(name)}`);
  return spec;
}

export function specMachine(specName: string, configName: string, variant?: string, options?: BuildOptions): Machine {
  const spec = bundled(specName);
  const config = spec.configs.find((c) => c.name === configName);
  if (!config) throw new Error(`spec ${specName} has no config ${JSON.stringify(configName)}`);
  return spec.build(config.config, variant, options);
}

export function specTarget(specName: string, configName: string, variant?: string): ExploreTarget {
  bundled(specName);
  const index = new URL(import.meta.url.endsWith('.ts') ? '../specs/index.ts' : '../specs/index.js', import.meta.url).href;
  return { module: index, export: specName, args: variant === undefined ? [configName] : [configName, variant] };
}
