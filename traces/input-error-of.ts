// For tests: the InputError a reader throws, so that a test can assert its file, line and
// message; any other error is rethrown, and no error at all fails the test.
import { InputError } from './errors.ts';

export function inputErrorOf(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('no InputError was thrown');
}
