// When V8 gives the checker's functions their feedback, chosen by the history's size, in a
// process started from `interleave lin`'s startup snapshot (bin/lin-snapshot.js) only.
//
// V8 gives a function its feedback vector (inline caches, and with the blob's
// --always-sparkplug its baseline code) once it has run ~8 times its bytecode's length.
// A first check of ~100 operations spends most of its time in setup passes and search loops
// of large functions (small.ts's `wide` and `search`) that run that long without feedback,
// on the generic paths: feedback from each function's first call
// (--no-lazy-feedback-allocation) makes a first check of 20 operations ~1.3x cheaper by CPU,
// of 30 ~1.45x, of 100 ~1.2x, of 300 ~1.03x. A check of 10 or 15 operations calls many
// functions once, and a vector for each costs more than it saves (0.73x, 0.97x); from 400
// operations on it is even or dearer (400: 0.99x, 600: 0.96x, 1,000: 0.88x). V8 reads the
// flag when a function is called without a vector, so setting it before the check is in
// time (RESULTS-issue21.md, lin-flags2; the bounds measured in lin-flags3).
//
// Below the window the blob's factor (SNAPSHOT_NODE_ARGS: a vector after 32 times the
// bytecode's length, V8's default 8) keeps a 10-operation check from making vectors for
// functions it calls a few times: 1.20x wall, 1.34x CPU on a quiet machine. From the window
// on the factor is set back to 8, which a check of 1,000 operations needs (at 32: 0.91x;
// back at 8: 0.98x, 100 operations 1.05x). RESULTS-issue21.md, the coordinator's A/B of
// 2026-11-25 17:39-17:52.
import { setFlagsFromString, startupSnapshot } from 'node:v8';

/** Histories in [EAGER_MIN_OPS, EAGER_MAX_OPS) are checked with feedback from the first call. */
export const EAGER_MIN_OPS = 20;
export const EAGER_MAX_OPS = 400;

/**
 * Only in a process started from the snapshot: the flags were measured with the blob's
 * (SNAPSHOT_NODE_ARGS), and a library's caller has its own. Set by a deserialize callback,
 * so a snapshot's build (whose warm-up checks run through here) never changes its flags:
 * V8 refuses a blob started under other flags than it was built with.
 */
let bySize = false;

/** The process's V8 flags by the size of history they were set for; SMALL is the blob's own. */
const SMALL = 0;
const EAGER = 1;
const LARGE = 2;
const FLAGS = [
  '--lazy-feedback-allocation --interrupt-budget-factor-for-feedback-allocation=32',
  '--no-lazy-feedback-allocation --interrupt-budget-factor-for-feedback-allocation=8',
  '--lazy-feedback-allocation --interrupt-budget-factor-for-feedback-allocation=8',
];
let current = SMALL;

/** Called while the snapshot is built (cli/lin-snapshot.ts's warm-up): by size from the blob's start on. */
export function feedbackBySizeFromSnapshot(): void {
  if (!startupSnapshot.isBuildingSnapshot()) return;
  startupSnapshot.addDeserializeCallback(() => {
    bySize = true;
  });
}

/**
 * Before a check of `history`: the flag its size measured cheaper with. The history is not
 * checked yet (plan does, and refuses one that is no array), so its length is read only
 * from an array.
 */
export function feedbackFor(history: unknown): void {
  if (!bySize) return;
  const ops = Array.isArray(history) ? history.length : 0;
  const size = ops < EAGER_MIN_OPS ? SMALL : ops < EAGER_MAX_OPS ? EAGER : LARGE;
  if (size === current) return;
  current = size;
  setFlagsFromString(FLAGS[size]);
}
