// The V8 flags `interleave check` and `interleave explore` run with: set once, before the
// command's module (and with it the explorer and the specs) loads (cli/program.ts). A
// default-config run lasts 1-3 CPU seconds, about half of it V8 compiling the spec's code;
// a smaller cumulative inlining budget makes TurboFan's compiles cheaper, at a small cost
// to the code it makes. Figures and the values tried: bench/README.md, "V8's inlining
// budget". The bench (explore-spec.ts, explore.ts --one) applies the same flags to this
// tree's runs, so that it measures what the command does.
import { setFlagsFromString } from 'node:v8';

/** V8's default is 920 bytes of bytecode inlined into one optimised function. */
export const EXPLORE_V8_FLAGS: readonly string[] = ['--max-inlined-bytecode-size-cumulative=300'];

/**
 * Sets EXPLORE_V8_FLAGS in this process (worker threads started later share them). V8 reads
 * the inlining budget when it optimises a function, so it must be set before the search runs;
 * the figures in bench/README.md check that setting it here has the command-line flag's effect.
 */
export function applyExploreV8Flags(): void {
  for (const flag of EXPLORE_V8_FLAGS) setFlagsFromString(flag);
}
