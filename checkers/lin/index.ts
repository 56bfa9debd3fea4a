// The linearizability checker's API: check a history against a sequential model.

import { assemble, plan, runInThread, type ModelArg } from './check.ts';

export type { ModelArg } from './check.ts';
import { searchInWorkers } from './pool.ts';
import type { CheckOptions, LinResult, Operation } from './types.ts';
import { feedbackFor } from './v8-feedback.ts';

export { checkHistorySync, DEFAULT_MEMO_LIMIT_MB, stuckAfter } from './check.ts';
export { findModel, independent, models } from './models/index.ts';
export { fromNondeterministic } from './nondeterministic.ts';
export * from './types.ts';

/**
 * Check `history` against `model` (a model, a nondeterministic model marked as such, or a
 * registered model's name). With `workers` > 1 and more than one partition, partitions
 * are searched on worker threads; that needs a registered model (workers look it up by
 * name), and other models are checked on this thread. The result is the same either way.
 */
export async function checkHistory(model: ModelArg, history: readonly Operation[], options: CheckOptions = {}): Promise<LinResult> {
  const workers = options.workers ?? 1;
  feedbackFor(history);
  const p = plan(model, history, options);
  if (workers <= 1 || p.parts.length <= 1 || p.registered === undefined || p.planError !== undefined) {
    return runInThread(p);
  }
  return assemble(p, await searchInWorkers(p, workers));
}
