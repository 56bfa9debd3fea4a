// Safe-Guess values packed into small integers so that states stay plain, small and
// canonical, and so that the paper's lexicographic orders are plain `<` on numbers.
//   Ts    = (clock, tid)               -> clock * 16 + tid              (§3.1, f.54)
//   Tuple = (ts, flag, val)            -> (ts * 2 + flag) * 16 + val    (f.55: tuples ordered lexicographically)
//   Lock word of TSL (ts, mode) | ⊥    -> ts * 2 + mode, ⊥ = -1         (App. B, T1)
// Writer ids (tid) and write ids (val) stay below 16; clock 0 only in ⊥₀.

export const GUESSED = 0;
export const VERIFIED = 1; // GUESSED < VERIFIED (f.55)
export const READ = 0;
export const WRITE = 1;
export const NOLOCK = -1; // ⊥ in a CAS object

export const ts = (clock: number, tid: number): number => clock * 16 + tid;
export const clockOf = (t: number): number => t >> 4;
export const tidOf = (t: number): number => t & 15;

export const tuple = (t: number, flag: number, val: number): number => (t * 2 + flag) * 16 + val;
export const tsOfTuple = (x: number): number => x >> 5;
export const flagOf = (x: number): number => (x >> 4) & 1;
export const valOf = (x: number): number => x & 15;
/** The same timestamp and value, flagged VERIFIED. */
export const verified = (x: number): number => x | 16;

/** ⊥₀ = ((0,0), VERIFIED, ⊥): a reader that sees it returns ⊥ at once (§7.5 item 6). */
export const BOTTOM = tuple(0, VERIFIED, 0);

export const lockWord = (t: number, mode: number): number => t * 2 + mode;
export const lockTs = (w: number): number => w >> 1;
export const lockMode = (w: number): number => w & 1;

const NAMES = 'ABCDEFGHIJKLMNOP';
export const procName = (p: number): string => NAMES[p] ?? `p${p}`;

export function showTs(t: number): string {
  return `(${clockOf(t)},${tidOf(t)})`;
}
export function showTuple(x: number): string {
  if (x === BOTTOM) return '⊥₀';
  return `(${showTs(tsOfTuple(x))},${flagOf(x) ? 'V' : 'G'},v${valOf(x)})`;
}
export function showLock(w: number): string {
  return w === NOLOCK ? '⊥' : `(${showTs(lockTs(w))},${lockMode(w) ? 'WRITE' : 'READ'})`;
}
