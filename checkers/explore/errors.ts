// Errors that are the spec's or the caller's, not the engine's: the CLI reports them as bad
// input (a spec that breaks the contract) or bad usage (an option the machine does not
// support), never as an internal error.

/** The spec breaks the contract: a declared symmetry that is not one, a permute that is not a bijection. */
export class SpecError extends Error {
  override name = 'SpecError';
}

/** An option asks for what the machine does not declare (a symmetry reduction without groups). */
export class UnsupportedOption extends Error {
  override name = 'UnsupportedOption';
}

/** A value, briefly, for a contract error. */
function brief(v: unknown): string {
  if (Array.isArray(v)) return v.length === 0 ? 'an empty array' : `an array of ${v.length}`;
  if (v === null || v === undefined) return String(v);
  if (typeof v === 'object') return 'an object that is not an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return `${typeof v} ${String(v)}`;
}

/** The states init() returned, if they keep the contract (a non-empty array); else a SpecError. */
export function checkInits<S>(inits: unknown): S[] {
  if (!Array.isArray(inits) || inits.length === 0) {
    throw new SpecError(`the machine breaks the contract: init() must return a non-empty array of states; it returned ${brief(inits)}`);
  }
  return inits as S[];
}

/** Throws a SpecError unless actions() returned an array of actions, each with a string label. */
export function checkEnabled(enabled: unknown): void {
  if (!Array.isArray(enabled)) throw new SpecError(`the machine breaks the contract: actions(state) must return an array of actions; it returned ${brief(enabled)}`);
  for (let i = 0; i < enabled.length; i++) {
    const a = enabled[i] as { label?: unknown } | null;
    if (typeof a !== 'object' || a === null || typeof a.label !== 'string') {
      throw new SpecError(`the machine breaks the contract: actions(state) must return actions with a string label; action ${i} is ${typeof a === 'object' && a !== null ? `labelled ${brief(a.label)}` : brief(a)}`);
    }
  }
}
