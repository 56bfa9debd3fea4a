// MINOS (HPCA 2024): Linearizable consistency under five persistency models, MINOS-B and
// the MINOS-O offload, with a full-system crash and recovery from the NVM logs: the configs
// (configs.ts), the extraction's mutant catalogue and the findings (mutants.ts), around
// machine.ts; trace.ts reads impl/minos's protocol traces against it.
// Extraction: ../shared/protocols/minos-ddp.md; paper: ../shared/papers/minos.txt.

import type { SpecDef } from '../../checkers/explore/types.ts';
import { configs } from './configs.ts';
import { buildMachine } from './machine.ts';
import { findings, mutants } from './mutants.ts';
import type { MinosConfig } from './state.ts';
import { buildSynchWords, synchWordsRun } from './synch-words.ts';
import { minosTrace } from './trace.ts';

export type { MinosConfig } from './state.ts';

export const spec: SpecDef<MinosConfig> = {
  name: 'minos',
  title: 'MINOS: <Lin, Synch|Strict|REnf|Event|Scope>, MINOS-B and MINOS-O, with full-system crash',
  paper: 'MINOS (HPCA 2024), §III Figs. 2-3, §V Fig. 8, Table I; rebuilt in ../shared/protocols/minos-ddp.md',
  configs,
  mutants,
  findings,
  // <Lin, Synch> without the crash on the kit's word layout (synch-words.ts), every other config and variant,
  // and every one asked `{ layout: false }` (the distributed search), on the plain machine, its reference
  build: (config, variant, options) => (options?.layout !== false && synchWordsRun(config, variant) ? buildSynchWords(config, variant) : buildMachine(config, variant)),
  trace: minosTrace,
};
