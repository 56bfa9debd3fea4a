// Bad input is the user's, not a bug: it is reported as file, line and what was expected,
// and the CLI turns it into exit code 65 without a stack trace.

export class InputError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly expected: string,
  ) {
    super(`${file}${line === undefined ? '' : `:${line}`}: ${expected}`);
    this.name = 'InputError';
  }
}

/** Reading ran past the caller's deadline (`interleave lin --timeout`): no verdict. */
export class ReadTimeout extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
  ) {
    super(`${file}: the time ran out while reading (at line ${line})`);
    this.name = 'ReadTimeout';
  }
}
