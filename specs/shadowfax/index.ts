// Shadowfax (PVLDB 14(8), 2021), §3.2 ownership transfer and §4 scale-out migration, as
// extracted in ../shared/protocols/shadowfax-migration.md.
import type { ConfigDef, MutantDef, SpecDef } from '../../checkers/explore/types.ts';
import { buildShadowfax } from './spec.ts';
import { R, RS, RT, type ShadowfaxConfig } from './state.ts';

/** The core keys (§6.3 B0): k in the migrating range R, j in RS, which stays on S. */
const kAndJ: ShadowfaxConfig['keys'] = [
  { name: 'k', range: R, entry: 0, init: 0 },
  { name: 'j', range: RS, entry: 1, init: 0 },
];

const configs: ConfigDef<ShadowfaxConfig>[] = [
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

const mutant = (name: string, description: string, breaks: string, config: string, expect?: string): MutantDef => ({
  name,
  description,
  breaks,
  kind: 'safety',
  config,
  expect,
});

const mutants: MutantDef[] = [
  mutant('M1', 'the source keeps serving R after moving into vS′ (view check skipped)', '§3.2.1 L148, L183', 'B0', 'INV-EXCL'),
  mutant('M2', 'TransferedOwnership sent when the first thread reaches its cut, not the last', '§4.1 Transfer, L183', 'B0', 'INV-TRANSFER'),
  mutant('M3', 'old-view ops still pending on I/O are not drained before TransferedOwnership (no WAIT_FOR_PENDING)', '§4.1 L173, L183', 'B1-io', 'INV-TRANSFER'),
  mutant('M4', 'samples collected at the end of Sampling, before the source stops serving R', '§4.1 L183 (extraction §2.7)', 'B0', 'INV-TRANSFER'),
  mutant('M5', 'the target serves R in Target-Prepare instead of pending', '§4.1 Prepare, L182', 'B0', 'INV-EXCL'),
  mutant('M6', 'a target in Normal accepts a batch tagged with a newer view (the prototype\'s `>` rule)', '§3.2 L148 (extraction §1.4)', 'B0', 'INV-TGT-PEND'),
  mutant('M7', 'the target inserts migrated records unconditionally', 'extraction §2.8 (unstated in the paper)', 'B0', 'INV-COND-INSERT'),
  mutant('M8', 'the target treats "not yet arrived" as NOT_FOUND during Target-Receive', '§4.1 L190', 'B0-prime', 'INV-FRESH'),
  mutant('M9', 'CompleteMigration overtakes the data (sent before batches are acknowledged)', '§4.1 Complete, L185', 'B0-prime', 'INV-COMPLETE'),
  mutant('M10', 'an indirection is dereferenced before the SSD-to-blob flush', '§4.2 L202', 'B1', 'INV-INDIR'),
  mutant('M11', 'indirection and in-memory records of one entry split across batches, resolved during Target-Receive', '§4.2 L202-209', 'B1', 'INV-INDIR'),
  mutant('M12', 'the hash-range check on an indirection is dropped', '§4.2 L204-209', 'B1', 'INV-INDIR-SCOPE'),
  mutant('H1', "the indirection shadows a newer target record (the prototype's chain placement)", 'extraction §2.8, hazard H1', 'B1', 'INV-COND-INSERT'),
  mutant('M13', 'the views are not bumped at the remap', '§4.1 Sampling, L177', 'B0', 'INV-VIEWID'),
  mutant('M14', "only the source's view is bumped at the remap", '§4.1 Sampling, L177', 'B0', 'INV-VIEWID'),
  mutant('M15', 'the client reissues only the first rejected batch, not the later pipelined ones', '§3.2.1 L156-158', 'B0-pipe', 'INV-REISSUE'),
  mutant('M15b', 'the client reissues from a point before the earliest rejected op', '§3.2.1 L156-158', 'B0-pipe', 'INV-REISSUE'),
  { ...mutant('M16', 'the client reissues a rejected batch without refreshing its mapping: back to the stale owner with the old tag, rejected again, forever', '§3.2.1 L156-158', 'B0', 'livelock'), breaksClass: 'liveness' },
  mutant('M17', "a session pairs the server's old view number with the new snapshot's ranges", '§3.2 L148', 'B0', 'INV-VIEWID'),
  mutant('M18', 'the server executes part of a batch and then rejects it; the client reissues all of it', '§3.2 L148', 'B0-batch', 'INV-REJECT-ATOMIC'),
  mutant('M20', 'the sampling copy races with an in-place update by a thread not yet in Sampling (no latch)', '§4.1 L178-180 (extraction §2.14.2)', 'B0', 'INV-FRESH'),
  mutant('M21', 'the cluster manager deletes the dependency after only one flag is set', '§4.4 L194, L223', 'B3', 'INV-2PC'),
  mutant('M21b', 'set-flag and cancel are a non-atomic check-then-act', '§4.4 L223', 'B3', 'INV-TGT-PEND'),
  mutant('M22', 'a completion flag is set before the checkpoint', '§4.4 L221', 'B3', 'INV-DURABLE-FLAG'),
  mutant('M23', 'cancellation restores only the crashed server', '§4.4 L223', 'B3', 'INV-EXCL'),
  mutant('M24', 'cancellation without fencing a partitioned, live target', '§4.4 L225', 'B3', 'INV-EXCL'),
  mutant('M25', 'compaction ships a stale (non-live) version', '§4.2 L215', 'B2', 'INV-COND-INSERT'),
  mutant('M26', 'compaction records are inserted unconditionally at the owner', '§4.2 L215', 'B2', 'INV-COND-INSERT'),
  mutant('M27', 'the source truncates its log below an address an indirection still references', '§4.2 L211-217', 'B2', 'INV-LOG-RETAIN'),
  { ...mutant('M28', 'the target never retries pended ops', '§5 L340', 'B0', 'deadlock'), breaksClass: 'liveness' },
  mutant('M29', 'a rejection carries no reissue point, so the client drops the rejected ops', '§3.2.1 L156', 'B0', 'INV-REISSUE'),
  mutant('M30', 'the source enters Complete when the first thread finishes Migrate, not the last', '§4.1 Complete, L185', 'B0-prime', 'INV-COMPLETE'),
  {
    name: 'M19',
    description: 'sampling copies without the addr < tailStart guard (a record copied on every access): costs log space only',
    breaks: '§4.1 L180 (performance)',
    kind: 'control',
    config: 'B0-prime',
  },
];

export const spec: SpecDef<ShadowfaxConfig> = {
  name: 'shadowfax',
  title: "Shadowfax's view-based ownership transfer and scale-out migration",
  paper: 'Shadowfax (PVLDB 14(8), 2021), §3.2 and §4.1-4.2',
  configs,
  mutants,
  findings: [
    {
      name: 'stale-leftover',
      description: "the target executes on whatever record of an R key its lookup finds (extraction §2.4), so on the return trip S serves k from its leftover of the first ownership and the migrated copy buries the write",
      variant: 'stale-leftover',
      config: 'B4',
      expect: 'INV-COND-INSERT',
    },
  ],
  build: (config, variant) => Object.assign(buildShadowfax(config, variant), { internal: ['A', 'execs', 'status', 'broken', 'execd', 'applied', 'gone'] }),
};
