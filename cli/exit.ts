// The exit codes of DESIGN.md: scripts and CI branch on them. Only a verdict exits 0 or 1.
export const EXIT = {
  holds: 0,
  violation: 1,
  inconclusive: 2,
  usage: 64,
  badData: 65,
  /** A service the run needs (Redis, for --redis) cannot be reached: no verdict. */
  unavailable: 69,
  internal: 70,
  cannotCreate: 73,
  /**
   * The reader of stdout (or stderr) closed it before the command was done (`| head -1`):
   * what a shell reports for a process ended by SIGPIPE (128 + 13), which Node ignores.
   * Nothing more is printed; never a verdict.
   */
  closedPipe: 141,
} as const;

/** Bad usage of the command line (exit 64): an unknown name, flags that do not go together. */
export class UsageError extends Error {
  override name = 'UsageError';
}
