// The one place where options turn a spec's machine into the machine that is searched
// (monitors and reductions are machine transformers). Both the main thread and every
// worker call it, so that all of them search the same machine.

import { withHistories } from './histories.ts';
import { withMonitor } from './monitor.ts';
import { withSymmetry } from './symmetry.ts';
import type { Action, ExploreOptions, Machine } from './types.ts';

export function prepare<S, A extends Action>(machine: Machine<S, A>, options: ExploreOptions): Machine<any, A> {
  let m: Machine<any, A> = machine;
  // Incremental linearizability by default whenever the spec records a history.
  if (machine.history && (options.linearizability ?? 'incremental') === 'incremental') m = withMonitor(m);
  if (machine.history && options.linearizability === 'histories') m = withHistories(m);
  if (options.symmetry) m = withSymmetry(m);
  return m;
}
