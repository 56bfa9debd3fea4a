// Bad input is the user's, not a bug: it is reported as file, line and what was expected,
// and the CLI turns it into exit code 65 without a stack trace.

export class InputError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly expected: string,
  ) {
    super(printable(`${file}${line === undefined ? '' : `:${line}`}: ${expected}`));
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

/**
 * A message that echoes text from a file, as printed: control characters (C0 but tab and
 * newline, DEL, C1) as \u escapes, so that a file cannot write escape sequences (colours,
 * a window title, a bell, cursor moves) to the terminal the message is printed on. The
 * messages quote what they echo with JSON.stringify; this also covers any that does not.
 */
export function printable(s: string): string {
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
