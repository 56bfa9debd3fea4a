// How much of an untrusted file an importer will read. A file or line past these limits is
// refused with an InputError rather than exhausting memory; traces/README.md documents them.

export interface Limits {
  /** Largest history file read, in bytes. */
  maxFileBytes: number;
  /** Longest line, and longest single EDN form (one operation map), in bytes. */
  maxLineBytes: number;
  /** Deepest nesting of EDN or JSON collections. */
  maxDepth: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxFileBytes: 256 * 2 ** 20,
  maxLineBytes: 2 ** 20,
  maxDepth: 64,
};

/**
 * The caller's limits, each a whole number ≥ 1 (Infinity: no limit), or a RangeError naming
 * the limit: a limit such as maxLineBytes: -1 is the caller's mistake, not the file's.
 */
export function checkLimits(limits: unknown): void {
  if (limits === undefined) return;
  if (typeof limits !== 'object' || limits === null) throw new TypeError(`limits: an object {maxFileBytes?, maxLineBytes?, maxDepth?}, not ${limits === null ? 'null' : typeof limits}`);
  for (const name of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) {
    const v = (limits as Partial<Record<keyof Limits, unknown>>)[name];
    if (v !== undefined && !(typeof v === 'number' && v >= 1 && (Number.isInteger(v) || v === Infinity))) {
      throw new RangeError(`limits.${name}: a whole number ≥ 1, not ${typeof v === 'number' ? String(v) : typeof v}`);
    }
  }
}

export function formatBytes(n: number): string {
  if (n >= 2 ** 20) return `${+(n / 2 ** 20).toFixed(1)} MiB`;
  if (n >= 2 ** 10) return `${+(n / 2 ** 10).toFixed(1)} KiB`;
  return `${n} bytes`;
}
