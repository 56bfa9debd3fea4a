// Shadowfax (PVLDB 14(8), 2021), §3.2 ownership transfer and §4 scale-out migration, as
// extracted in ../shared/protocols/shadowfax-migration.md.
import type { SpecDef } from '../../checkers/explore/types.ts';
import { configs } from './configs.ts';
import { buildShadowfax } from './machine.ts';
import { findings, mutants } from './mutants.ts';
import type { ShadowfaxConfig } from './state.ts';

export const spec: SpecDef<ShadowfaxConfig> = {
  name: 'shadowfax',
  title: "Shadowfax's view-based ownership transfer and scale-out migration",
  paper: 'Shadowfax (PVLDB 14(8), 2021), §3.2 and §4.1-4.2',
  configs,
  mutants,
  findings,
  build: (config, variant) => Object.assign(buildShadowfax(config, variant), { internal: ['A', 'execs', 'status', 'broken', 'execd', 'applied', 'gone'] }),
};
