// When V8 gives the checker's functions their feedback, chosen by the history's size, in a
// process started from `interleave lin`'s startup snapshot (bin/lin-snapshot.js) only.
//
// V8 gives a function its feedback vector (inline caches, and with the blob's
// --always-sparkplug its baseline code) once it has run a factor times its bytecode's length.
// A first check of ~100 operations spends most of its time in setup passes and search loops
// of large functions (small.ts's `wide` and `search`) that run that long without feedback,
// on the generic paths: feedback from each function's first call
// (--no-lazy-feedback-allocation) makes a first check of 20 operations ~1.3x cheaper by CPU,
// of 30 ~1.45x, of 100 ~1.2x, of 300 ~1.03x. A check of 10 or 15 operations calls many
// functions once, and a vector for each costs more than it saves (0.73x, 0.97x); from 400
// operations on it is even or dearer (400: 0.99x, 600: 0.96x, 1,000: 0.88x). V8 reads the
// flags when a function is first called, so setting them before the check is in time
// (RESULTS-issue21.md, lin-flags2 and lin-flags3).
import { setFlagsFromString, startupSnapshot } from 'node:v8';

/** Histories in [EAGER_MIN_OPS, EAGER_MAX_OPS) are checked with feedback from the first call. */
export const EAGER_MIN_OPS = 20;
export const EAGER_MAX_OPS = 400;

/**
 * The blob starts with V8's feedback budget at 32x a function's bytecode length (V8's default
 * 8; bin/lin-snapshot.js's SNAPSHOT_NODE_ARGS, which a test compares with this): a first
 * check of 10 operations then gives fewer of the functions it calls a few times a vector
 * and a Sparkplug compile (1.22x / 1.06x cheaper by CPU on two seeds). One of 1,000
 * operations, whose loops then run longer without feedback, measured 0.95x / 0.99x, so from
 * EAGER_MAX_OPS on V8's default comes back. In the blob's arguments rather than set here for
 * the small checks: set inside a 10-operation check, the flag's `setFlagsFromString` made the
 * check dearer than the factor saved (0.94x / 0.85x; RESULTS-issue21.md, lin-flags3).
 */
export const SMALL_FEEDBACK_FACTOR = 32;
const DEFAULT_FEEDBACK_FACTOR = 8;

/** The flags each range of sizes is checked with; every string sets all that another one changed. */
const SMALL = `--lazy-feedback-allocation --interrupt-budget-factor-for-feedback-allocation=${SMALL_FEEDBACK_FACTOR}`;
const EAGER = '--no-lazy-feedback-allocation';
const LARGE = `--lazy-feedback-allocation --interrupt-budget-factor-for-feedback-allocation=${DEFAULT_FEEDBACK_FACTOR}`;

/**
 * Only in a process started from the snapshot: the flags were measured with the blob's
 * (SNAPSHOT_NODE_ARGS), and a library's caller has its own. Set by a deserialize callback,
 * so a snapshot's build (whose warm-up checks run through here) never changes its flags:
 * V8 refuses a blob started under other flags than it was built with.
 */
let bySize = false;
/** The flags V8 runs with now: the blob's until a check of another range sets its own. */
let current = SMALL;

/** Called while the snapshot is built (cli/lin-snapshot.ts's warm-up): by size from the blob's start on. */
export function feedbackBySizeFromSnapshot(): void {
  if (!startupSnapshot.isBuildingSnapshot()) return;
  startupSnapshot.addDeserializeCallback(() => {
    bySize = true;
  });
}

/**
 * Before a check of `history`: the flags its size measured cheaper with. The history is not
 * checked yet (plan does, and refuses one that is no array), so its length is read only
 * from an array.
 */
export function feedbackFor(history: unknown): void {
  if (!bySize) return;
  const ops = Array.isArray(history) ? history.length : 0;
  const wanted = ops < EAGER_MIN_OPS ? SMALL : ops < EAGER_MAX_OPS ? EAGER : LARGE;
  if (wanted === current) return;
  current = wanted;
  setFlagsFromString(wanted);
}
