// The explorer's entry points. exploreSync searches on the calling thread; explore can
// also spread a breadth-first search over worker threads, which rebuild the machine from
// a module and an export (the engine never imports a spec itself).

import { prepare } from './prepare.ts';
import { bfs, dfs, simulate } from './search.ts';
import type { Action, ExploreOptions, ExploreResult, ExploreTarget, Machine } from './types.ts';

export type * from './types.ts';
export { replayLabels, replayIndices } from './trace.ts';

export function exploreSync<S, A extends Action>(machine: Machine<S, A>, options: ExploreOptions = {}): ExploreResult {
  const m = prepare(machine, options);
  switch (options.strategy ?? 'bfs') {
    case 'bfs':
      return bfs(m, options);
    case 'dfs':
      return dfs(m, options);
    case 'simulate':
      return simulate(m, options);
    default:
      throw new Error(`unknown strategy "${String(options.strategy)}"`);
  }
}

/** Builds the machine a target names. */
export async function loadMachine(target: ExploreTarget): Promise<Machine> {
  const mod = (await import(target.module)) as Record<string, unknown>;
  const make = mod[target.export];
  if (typeof make !== 'function') throw new Error(`${target.module} has no function export "${target.export}"`);
  return make(...target.args) as Machine;
}

export async function explore(target: ExploreTarget | Machine, options: ExploreOptions = {}): Promise<ExploreResult> {
  const machine = 'init' in target ? target : await loadMachine(target);
  return exploreSync(machine, options);
}
