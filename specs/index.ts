// Every bundled spec, by its folder name. The CLI imports this; the engines never do.
import type { SpecDef } from '../checkers/explore/types.ts';
import { spec as shadowfax } from './shadowfax/index.ts';
import { spec as fusee } from './fusee/index.ts';
import { spec as minos } from './minos/index.ts';

export const specs: SpecDef[] = [
  shadowfax,
  fusee,
  minos,
];

export function findSpec(name: string): SpecDef | undefined {
  return specs.find((s) => s.name === name);
}
