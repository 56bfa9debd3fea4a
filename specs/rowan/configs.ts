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
  dma: false,
  tailSkip: false,
  cvTimer: false,
  tombGc: false,
};

/** The shard's migration from s0 to s2 (backup s1), with one crash of the source or the target. */
const migration: RowanConfig = { ...base, servers: 3, workers: 1, failKinds: ['crash'], failTargets: [0, 2], migrate: { src: 0, tgt: 2 } };

export const configs: ConfigDef<RowanConfig>[] = [
  {
    name: 'RK-0',
    description: 'K2 (P=s0, B=s1), 2 workers, c0 PUT;GET, c1 DEL;GET, one crash or suspicion of P',
    tier: 'default',
    config: { ...base, clients: [[put(), get()], [del(), get()]] },
  },
  {
    name: 'RK-1',
    description: 'K3 (P=s0, B1=s1, B2=s2), 1 worker, c0 PUT;GET, c1 PUT, one crash of P',
    tier: 'default',
    config: {
      ...base,
      servers: 3,
      shards: [[0, 1, 2]],
      workers: 1,
      clients: [[put(), get()], [put()]],
      failKinds: ['crash'],
    },
  },
  {
    name: 'RK-CV',
    description: 'K2, 2 workers (two QPs to the backup), keys k0 and k1, c0 PUT k0, c1 PUT k1, CommitVer on (1 send), no failures',
    tier: 'default',
    config: { ...base, keyShard: [0, 0], clients: [[put(0)], [put(1)]], failures: 0, commitVer: 1 },
  },
  // Issue 22: CommitVer meets two backups and failover, and a backup fails too. A commit rule
  // off by one (CV-OFF-BY-ONE) survives every config above and RK-GC (README, "Mechanisms").
  {
    name: 'RK-CV3',
    description: 'K3 (P=s0, B1=s1, B2=s2), 1 worker, c0 PUT, segments of one slot, CommitVer on its timer (1 send), one crash of any server (P, B1 or B2)',
    tier: 'default',
    config: {
      ...base,
      servers: 3,
      shards: [[0, 1, 2]],
      workers: 1,
      clients: [[put()]],
      failKinds: ['crash'],
      failTargets: [0, 1, 2],
      segCap: 1,
      segs: 3,
      commitVer: 1,
      cvTimer: true,
    },
  },
  {
    name: 'RK-CV3-SUSPECT',
    description: 'RK-CV3 with one crash or suspicion of any server (P, B1 or B2)',
    tier: 'full',
    config: {
      ...base,
      servers: 3,
      shards: [[0, 1, 2]],
      workers: 1,
      clients: [[put()]],
      failTargets: [0, 1, 2],
      segCap: 1,
      segs: 3,
      commitVer: 1,
      cvTimer: true,
    },
  },
  {
    name: 'RK-2',
    description: 'K2+1 (P=s0, B=s1, spare s2 re-replicates), 1 worker, c0 PUT;GET, c1 GET, up to two crashes of s0/s1',
    tier: 'full',
    config: { ...base, servers: 3, spare: 2, workers: 1, clients: [[put(), get()], [get()]], failures: 2, failKinds: ['crash'], failTargets: [0, 1] },
  },
  {
    name: 'RK-COLD',
    description: 'K2, c0 PUT;GET, c1 DEL;GET, one power failure then cold start; landing split into received/persisted; t-log commit',
    tier: 'default', // issue 22: promoted (README, "Mechanisms × configs")
    config: { ...base, clients: [[put(), get()], [del(), get()]], failures: 0, powerFail: true, split: true, tlogCommit: true },
  },
  {
    name: 'RK-MIG',
    description: 'src s0, backup s1, target s2; 1 worker; c0 PUT, c1 DEL; migration of the shard to s2; one crash of s0 or s2',
    tier: 'full',
    config: { ...migration, clients: [[put()], [del()]] },
  },
  {
    name: 'RK-MIG1',
    description: 'RK-MIG with one client: c0 PUT; migration of the shard to s2; one crash of s0 or s2',
    tier: 'default',
    config: { ...migration, clients: [[put()]] },
  },
  {
    name: 'RK-GC',
    description: 'K2, segments of one slot, c0 PUT;GET, c1 PUT;GET, t-log commit, CommitVer (1 send), one clean-thread run, no failures',
    tier: 'full',
    config: { ...base, clients: [[put(), get()], [put(), get()]], failures: 0, segCap: 1, segs: 4, tlogCommit: true, commitVer: 1, gc: 1 },
  },
  {
    name: 'RK-ROWAN',
    description: 'fan-in: shard 0 (P=s0, B=s2) and shard 1 (P=s1, B=s2) share s2\'s single b-log; c0 PUT k0;GET k0, c1 PUT k1;GET k1; CommitVer (2 sends), one clean-thread run, no failures',
    tier: 'default', // issue 22: promoted (README, "Mechanisms × configs")
    config: {
      ...base,
      servers: 3,
      shards: [[0, 2], [1, 2]],
      keyShard: [0, 1],
      workers: 1,
      clients: [[put(0), get(0)], [put(1), get(1)]],
      failures: 0,
      segs: 3,
      commitVer: 2,
      tlogCommit: true,
      gc: 1,
    },
  },
  {
    name: 'RK-DMA',
    description: 'K2, segments of one slot, c0 PUT;GET, split DMA (allocSlot / dmaDone, the 2 ms wait, the 1 ms sender retry), CommitVer on its timer (1 send), one clean-thread run, no failures',
    tier: 'default',
    config: { ...base, workers: 1, clients: [[put(), get()]], failures: 0, segCap: 1, segs: 3, commitVer: 1, cvTimer: true, gc: 1, dma: true },
  },
  {
    name: 'RK-DMA2',
    description: 'RK-DMA with two writers on two QPs: c0 PUT k0 ∥ c1 PUT k0',
    tier: 'full',
    config: { ...base, clients: [[put()], [put()]], failures: 0, segCap: 1, segs: 3, commitVer: 1, cvTimer: true, gc: 1, dma: true },
  },
  {
    name: 'RK-REUSE',
    description: 'K2, 2 workers, c0 PUT k0 ∥ c1 DEL k0, 2 b-log segments of 3 slots recycled by two clean-thread runs, tail skip, tombstone reclaim, CommitVer on its timer (4 sends), no failures',
    tier: 'full',
    config: {
      ...base,
      clients: [[put()], [del()]],
      failures: 0,
      segCap: 3,
      segs: 2,
      commitVer: 4,
      cvTimer: true,
      gc: 2,
      tailSkip: true,
      tombGc: true,
    },
  },
];
