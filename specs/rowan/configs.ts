// The bounded configurations of the extraction's §6.4 (server 0 is the first primary).
import type { ConfigDef } from '../../checkers/explore/types.ts';
import type { ClientOp, RowanConfig } from './state.ts';

const put = (k = 0): ClientOp => ({ f: 'put', k });
const del = (k = 0): ClientOp => ({ f: 'del', k });
const get = (k = 0): ClientOp => ({ f: 'get', k });

const base: RowanConfig = {
  servers: 2,
  shards: [[0, 1]],
  keyShard: [0],
  workers: 2,
  clients: [],
  failures: 1,
  failKinds: ['crash', 'suspect'],
  failTargets: [0],
  spare: -1,
  segCap: 2,
  segs: 3,
  commitVer: 0,
  tlogCommit: false,
  gc: 0,
  powerFail: false,
  split: false,
  migrate: null,
};

export const configs: ConfigDef<RowanConfig>[] = [
  {
    name: 'RK-0',
    description: 'K2 (P=s0, B=s1), 2 workers, c0 PUT;GET, c1 DEL;GET, one crash or suspicion of P',
    tier: 'default',
    config: { ...base, clients: [[put(), get()], [del(), get()]] },
  },
  {
    name: 'RK-1',
    description: 'K3 (P=s0, B1=s1, B2=s2), 2 workers, c0 PUT;GET, c1 PUT;GET, one crash of P, CommitVer on (<=2 sends), t-log commit',
    tier: 'default',
    config: {
      ...base,
      servers: 3,
      shards: [[0, 1, 2]],
      clients: [[put(), get()], [put(), get()]],
      failKinds: ['crash'],
      commitVer: 2,
      tlogCommit: true,
    },
  },
];
