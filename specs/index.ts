// Every bundled spec, by its folder name. The CLI imports this; the engines never do.
import type { SpecDef } from '../checkers/explore/types.ts';
import { spec as shadowfax } from './shadowfax/index.ts';
import { spec as fusee } from './fusee/index.ts';
import { spec as minos } from './minos/index.ts';
import { spec as rowan } from './rowan/index.ts';
import { spec as swarm } from './swarm/index.ts';

export const specs: SpecDef[] = [
  shadowfax,
  fusee,
  minos,
  rowan,
  swarm,
];

// Each also by its name, so that a target (cli/spec-machine.ts specTarget) names it as an
// export of this module: worker threads and processes build its machines from there.
export { shadowfax, fusee, minos, rowan, swarm };

export function findSpec(name: string): SpecDef | undefined {
  return specs.find((s) => s.name === name);
}
