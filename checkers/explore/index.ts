// The explorer's entry points. exploreSync searches on the calling thread; explore can
// also spread a breadth-first search over worker threads, which rebuild the machine from
// a module and an export (the engine never imports a spec itself).

import { checkOptions } from './errors.ts';
import { livelockAfter } from './livelock.ts';
import { loadMachine, normalizeTarget } from './load.ts';
import { parallelBfs } from './parallel.ts';
import { prepare } from './prepare.ts';
import { bfs, dfs, simulate } from './search.ts';
import type { Action, ExploreOptions, ExploreResult, ExploreTarget, Machine } from './types.ts';

export type * from './types.ts';
export { checkPath, replayLabels, replayIndices, ReplayPathError, type PathViolation } from './trace.ts';
export { importModule, isSpecDef, loadMachine } from './load.ts';
export { prepare, propertiesChecked } from './prepare.ts';
export { SpecError, UnsupportedOption } from './errors.ts';

export function exploreSync<S, A extends Action>(machine: Machine<S, A>, options: ExploreOptions = {}): ExploreResult {
  checkOptions(options);
  return livelockAfter(searchSync(prepare(machine, options), options), machine, options);
}

function searchSync<S, A extends Action>(m: Machine<S, A>, options: ExploreOptions): ExploreResult {
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

/**
 * Searches the machine a target names. With `workers` > 1, a fingerprint-store BFS runs
 * on that many worker threads; other strategies and the exact store run on this thread
 * (the result says so in `notes`).
 */
export async function explore(given: ExploreTarget | Machine, options: ExploreOptions = {}): Promise<ExploreResult> {
  checkOptions(options);
  if (typeof given !== 'object' || given === null) throw new TypeError(`explore: a machine {init, actions, next, invariants} or a target {module, export, args}, not ${given === null ? 'null' : typeof given}`);
  const target = 'init' in given ? given : normalizeTarget(given);
  const workers = options.workers ?? 1;
  const parallel = workers > 1 && (options.strategy ?? 'bfs') === 'bfs' && options.store !== 'exact';
  if (parallel && !('init' in target)) return livelockAfter(await parallelBfs(target, options), await loadMachine(target), options);
  const machine = 'init' in target ? target : await loadMachine(target);
  const result = exploreSync(machine, options);
  if (workers > 1) {
    const why = 'init' in target ? 'a machine object (not a module target) was given' : `the ${options.store === 'exact' ? 'exact store' : `${options.strategy} strategy`} is single-threaded`;
    result.notes = [...(result.notes ?? []), `ran on one thread: ${why}`];
  }
  return result;
}
