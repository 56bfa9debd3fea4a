// Every bundled spec, by its folder name. The CLI imports this; the engines never do.
import type { SpecDef } from '../checkers/explore/types.ts';
import { spec as shadowfax } from './shadowfax/index.ts';

export const specs: SpecDef[] = [
  shadowfax,
];

export function findSpec(name: string): SpecDef | undefined {
  return specs.find((s) => s.name === name);
}
