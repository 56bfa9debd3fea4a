// A value named briefly in a contract error ("it is null", "it returned an empty array"):
// what a caller passed instead of what was expected. Shared by lin's input checks
// (inputs.ts) and the explorer's (explore/errors.ts), which may import lin but not the
// other way round.

/** A value, briefly, for a contract error: its kind, an array's length, a string's start. */
export function brief(v: unknown): string {
  if (Array.isArray(v)) return v.length === 0 ? 'an empty array' : `an array of ${v.length}`;
  if (v === null || v === undefined) return String(v);
  if (typeof v === 'object') return 'an object that is not an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return `${typeof v} ${String(v)}`;
}
