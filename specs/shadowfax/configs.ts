// The configurations of the extraction's §6.3 (B0-B4), reduced to what explores in seconds;
// every one is in the default tier (README: mechanisms × configs).

import type { ConfigDef } from '../../checkers/explore/types.ts';
import { R, RS, RT, type ShadowfaxConfig } from './state.ts';

/** The core keys (§6.3 B0): k in the migrating range R, j in RS, which stays on S. */
const kAndJ: ShadowfaxConfig['keys'] = [
  { name: 'k', range: R, entry: 0, init: 0 },
  { name: 'j', range: RS, entry: 1, init: 0 },
];

export const configs: ConfigDef<ShadowfaxConfig>[] = [
  {
    name: 'B0',
    description: 'core (§6.3 B0, reduced): S with 2 threads, keys k∈R and j∈RS, two client threads with one RMW each, no tiers, no crash',
    tier: 'default',
    config: {
      keys: kAndJ,
      sourceThreads: 2,
      clients: [
        { sThread: 0, script: [{ f: 'rmw', key: 'k', arg: 1 }] },
        { sThread: 1, script: [{ f: 'rmw', key: 'k', arg: 10 }] },
      ],
      depth: 1,
      tiers: false,
    },
  },
  {
    name: 'B0-pipe',
    description: 'B0 with one client thread pipelining two ops (RMW k, upsert j) at depth 2 over a 2-thread source',
    tier: 'default',
    config: {
      keys: kAndJ,
      sourceThreads: 2,
      clients: [{ sThread: 0, script: [{ f: 'rmw', key: 'k', arg: 1 }, { f: 'upsert', key: 'j', arg: 7 }] }],
      depth: 2,
      tiers: false,
    },
  },
  {
    name: 'B0-prime',
    description: "B0' : a second key k2∈R never accessed, one client reading k (not-yet-arrived records, CompleteMigration racing the data)",
    tier: 'default',
    config: {
      keys: [
        { name: 'k', range: R, entry: 0, init: 5 },
        { name: 'k2', range: R, entry: 1, init: 2 },
      ],
      sourceThreads: 2,
      clients: [{ sThread: 0, script: [{ f: 'read', key: 'k' }, { f: 'read', key: 'k' }] }],
      depth: 1,
      tiers: false,
    },
  },
  {
    name: 'B1',
    description: 'tiers (§6.3 B1): k∈R with an old version on SSD and a newer one in memory, kt∈RT sharing its bucket entry at T; eviction and flushing',
    tier: 'default',
    config: {
      keys: [
        { name: 'k', range: R, entry: 0, init: 7, cold: [3] },
        { name: 'kt', range: RT, entry: 0, init: 1 },
      ],
      sourceThreads: 1,
      clients: [{ sThread: 0, script: [{ f: 'read', key: 'k' }, { f: 'rmw', key: 'k', arg: 1 }, { f: 'read', key: 'kt' }] }],
      depth: 1,
      tiers: true,
    },
  },
  {
    name: 'B0-batch',
    description: 'B0 with batches of two ops: one client thread sends [RMW j, RMW k] as one batch to a 2-thread source',
    tier: 'default',
    config: {
      keys: kAndJ,
      sourceThreads: 2,
      clients: [{ sThread: 0, script: [{ f: 'rmw', key: 'j', arg: 1 }, { f: 'rmw', key: 'k', arg: 1 }] }],
      depth: 2,
      tiers: false,
      batch: 2,
    },
  },
  {
    name: 'B1-io',
    description: 'pending I/O at the source: k∈R lives only on SSD, so an RMW accepted before the cut waits on I/O',
    tier: 'default',
    config: {
      keys: [{ name: 'k', range: R, entry: 0, cold: [5] }],
      sourceThreads: 1,
      clients: [{ sThread: 0, script: [{ f: 'rmw', key: 'k', arg: 1 }, { f: 'read', key: 'k' }] }],
      depth: 1,
      tiers: true,
    },
  },
  {
    name: 'B2',
    description: 'cleanup (§6.3 B2): kc∈R with two versions on the source SSD and none in memory; after the migration S compacts its log, ships the unowned records to T, and truncates',
    tier: 'default',
    config: {
      keys: [{ name: 'kc', range: R, entry: 0, cold: [3, 7] }],
      sourceThreads: 1,
      clients: [{ sThread: 0, script: [{ f: 'rmw', key: 'kc', arg: 1 }, { f: 'read', key: 'kc' }] }],
      depth: 1,
      tiers: true,
      compaction: true,
    },
  },
  {
    name: 'B3',
    description: 'crash (§6.3 B3): one source thread, one client with two RMWs on k∈R, at most one crash of S or T at any point; checkpoints, cancellation, CPR replay',
    tier: 'default',
    config: {
      keys: [{ name: 'k', range: R, entry: 0, init: 0 }],
      sourceThreads: 1,
      clients: [{ sThread: 0, script: [{ f: 'rmw', key: 'k', arg: 1 }, { f: 'rmw', key: 'k', arg: 10 }] }],
      depth: 1,
      tiers: false,
      crashes: 1,
    },
  },
  {
    name: 'B4',
    description: 'round trip (§6.3 B4, reduced): R migrates S→T, then back T→S (the scale-down of L213, L235); one thread per server, keys k∈R and j∈RS, two client threads with one RMW each',
    tier: 'default',
    config: {
      keys: kAndJ,
      sourceThreads: 1,
      clients: [
        { sThread: 0, script: [{ f: 'rmw', key: 'k', arg: 1 }] },
        { sThread: 0, script: [{ f: 'rmw', key: 'k', arg: 10 }] },
      ],
      depth: 1,
      tiers: false,
      roundTrip: true,
    },
  },
];
