// Every number of the recorded baseline (equivalence.json), config by config and mutant by
// mutant, reproduced by the spec as it is now: the full-tier runs (bounded by a state
// count), the engine's monitor on the Safe-Guess defaults, and SG-Lin alone. The default
// suite checks the default-tier numbers inside swarm.test.ts's own runs at no extra cost;
// this file repeats everything and takes minutes, so it runs with INTERLEAVE_FULL=1.

import { describe, expect, it } from 'vitest';
import { recordConfig, recordMutant, type Baseline } from './equivalence.ts';
import recorded from './equivalence.json' with { type: 'json' };

const baseline = recorded as Baseline;

describe.runIf(process.env.INTERLEAVE_FULL === '1')('swarm equivalence with the recorded baseline', () => {
  for (const c of baseline.configs) {
    it(`config ${c.config}`, () => expect(recordConfig(c.config)).toEqual(c), 600_000);
  }
  for (const m of baseline.mutants) {
    it(`mutant ${m.mutant} at ${m.config}`, () => expect(recordMutant(m.mutant)).toEqual(m), 600_000);
  }
});
