// The V8 flags `interleave check` runs with, in one place: set before the command's module
// (and with it the explorer and the specs) loads (cli/program.ts), and given to this tree's
// runs by the seed-spec bench (bench/explore.ts --specs), which measures `check`'s explorations.
// `check` explores each spec's default configs, each a run of a few CPU seconds at most, of
// which V8's optimising compiler takes about half (bench/README.md, "Warm-up"): a smaller
// inlining budget makes each of its compiles cheaper, at some cost to the code it makes,
// which a long run (`interleave explore`, which does not set it) would pay. Figures, and the
// flags tried and dropped: bench/README.md, "V8 flags for `interleave check`".
import { setFlagsFromString } from 'node:v8';

/** V8's default budget is 920 bytes of bytecode inlined into one optimised function. */
export const CHECK_V8_FLAGS: readonly string[] = ['--max-inlined-bytecode-size-cumulative=300'];

/**
 * Sets CHECK_V8_FLAGS in this process (worker threads started later share them). V8 reads
 * the budget each time it optimises a function, so setting it before the first search is in
 * time: the same as starting node with the flags (bench/README.md measures both).
 */
export function applyCheckV8Flags(): void {
  for (const flag of CHECK_V8_FLAGS) setFlagsFromString(flag);
}
