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

export function formatBytes(n: number): string {
  if (n >= 2 ** 20) return `${+(n / 2 ** 20).toFixed(1)} MiB`;
  if (n >= 2 ** 10) return `${+(n / 2 ** 10).toFixed(1)} KiB`;
  return `${n} bytes`;
}
