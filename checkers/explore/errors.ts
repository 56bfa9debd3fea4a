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
