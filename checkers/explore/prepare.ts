// The one place where options turn a spec's machine into the machine that is searched
// (monitors and reductions are machine transformers). Both the main thread and every
// worker call it, so that all of them search the same machine.

import type { ExploreOptions, Machine } from './types.ts';

export function prepare<S, A extends import('./types.ts').Action>(machine: Machine<S, A>, _options: ExploreOptions): Machine {
  return machine;
}
