// A vitest (and jest) matcher: `expect(history).toBeLinearizable(model)`, where the history
// is a list of operations (or a recorder holding them) and the model a registered model's
// name or a model object. Install it once, in a setup file or a test:
//   import { expect } from 'vitest';
//   import { matchers } from 'interleave/vitest';
//   expect.extend(matchers);
// A failure shows the checker's diagnosis: the longest partial linearizations and the
// operations that could not follow them. An undecided check (a timeout, the memo budget)
// fails with `.not` too: it is no verdict.

import type {} from 'vitest';
import { checkHistorySync, type CheckOptions, type ModelArg, type Operation } from '../checkers/lin/index.ts';
import { renderLinText } from '../checkers/report/lin-text.ts';

export type HistoryLike = readonly Operation[] | { readonly operations: readonly Operation[] };

interface MatcherResult {
  pass: boolean;
  message(): string;
}

export interface LinearizableMatchers<R = unknown> {
  /** The history has a linearization under the model (a name like 'cas-register', or a Model). */
  toBeLinearizable(model: ModelArg, options?: CheckOptions): R;
}

declare module 'vitest' {
  interface Assertion<T> extends LinearizableMatchers<T> {}
  interface AsymmetricMatchersContaining extends LinearizableMatchers {}
}

function operationsOf(received: unknown): readonly Operation[] {
  if (Array.isArray(received)) return received as Operation[];
  if (typeof received === 'object' && received !== null && Array.isArray((received as { operations?: unknown }).operations)) return (received as { operations: Operation[] }).operations;
  throw new TypeError(`toBeLinearizable: expected a history (an array of operations, or an object with operations), got ${typeof received}`);
}

export function toBeLinearizable(this: { isNot?: boolean } | void, received: unknown, model: ModelArg, options: CheckOptions = {}): MatcherResult {
  const history = operationsOf(received);
  const result = checkHistorySync(model, history, options);
  const name = typeof model === 'string' ? model : model.name;
  const report = () => renderLinText(result, history, model);
  if (result.verdict === 'unknown') {
    throw new Error(`toBeLinearizable: no verdict for ${history.length} operations under ${name}:\n${report()}`);
  }
  return result.verdict === 'ok'
    ? { pass: true, message: () => `expected the history not to be linearizable under ${name}, but it is:\n${report()}` }
    : { pass: false, message: () => `expected the history to be linearizable under ${name}:\n${report()}` };
}

export const matchers = { toBeLinearizable };
