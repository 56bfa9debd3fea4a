// Builds the machine an ExploreTarget names: `(await import(module))[export](...args)`.

import type { ExploreTarget, Machine } from './types.ts';

export async function loadMachine(target: ExploreTarget): Promise<Machine> {
  return machineFrom((await import(target.module)) as Record<string, unknown>, target);
}

/** The machine from the target's module, already imported. */
export function machineFrom(mod: Record<string, unknown>, target: ExploreTarget): Machine {
  const make = mod[target.export];
  if (typeof make !== 'function') throw new Error(`${target.module} has no function export "${target.export}"`);
  return make(...target.args) as Machine;
}
