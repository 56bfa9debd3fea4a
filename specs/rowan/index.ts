// ROWAN-KV (OSDI '23): the ROWAN many-to-one replication log, PUT/DEL/GET with per-shard
// versions, FaRM-style failover with gather/union/scatter, re-replication, cold start and
// migration. See README.md.
import type { SpecDef } from '../../checkers/explore/types.ts';
import { configs } from './configs.ts';
import { buildMachine } from './machine.ts';
import { findings, mutants } from './mutants.ts';
import type { RowanConfig } from './state.ts';

export const spec: SpecDef<RowanConfig> = {
  name: 'rowan',
  title: 'ROWAN-KV: many-to-one persistent replication log, failover, cold start, migration',
  paper: 'ROWAN (OSDI 2023), §3 ROWAN, §4.2-§4.7 ROWAN-KV',
  configs,
  mutants,
  findings,
  build: (config, variant) => Object.assign(buildMachine(config, variant), { internal: ['acked', 'bad'] }),
};
