// FUSEE's SNAPSHOT replication (FAST '23): the configs (configs.ts), the mutant catalogue of
// the extraction (../shared/protocols/fusee-snapshot.md §5.2) and the M15 finding
// (mutants.ts), around machine.ts; trace.ts reads an implementation's traces against it.

import type { SpecDef } from '../../checkers/explore/types.ts';
import { configs } from './configs.ts';
import { buildMachine } from './machine.ts';
import { findings, mutants } from './mutants.ts';
import type { FuseeConfig } from './state.ts';
import { fuseeTrace } from './trace.ts';

export { configs } from './configs.ts';
export { findings, mutants } from './mutants.ts';

export const spec: SpecDef<FuseeConfig> = {
  name: 'fusee',
  title: "FUSEE's SNAPSHOT replication with client and memory-node crashes",
  paper: "FUSEE (FAST '23), §4.3 Algorithms 1-2, §5 Algorithms 3-4, Appendix A",
  configs,
  mutants,
  findings,
  trace: fuseeTrace,
  /** variant: a mutant's name, or "<mutant>/<property>" to check that one property alone. */
  build(config, variant) {
    const [mutant, only] = variant === undefined ? [undefined, undefined] : variant.split('/');
    const machine = Object.assign(buildMachine(config, mutant), { internal: ['g', 'mon'] });
    if (only === undefined) return machine;
    if (!(only in machine.invariants)) throw new Error(`fusee: variant "${variant}" names no invariant`);
    return { ...machine, invariants: { [only]: machine.invariants[only] } };
  },
};
