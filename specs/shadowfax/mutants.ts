// The extraction's catalogue (§5), each mutant at the config that exposes it, and the
// finding `stale-leftover` (README). The names are typed (specs/kit/variants.ts): the
// machine tests `mut.M5`, so a misspelled mutant does not compile.

import type { FindingDef, MutantDef } from '../../checkers/explore/types.ts';
import { variants } from '../kit/variants.ts';

export const VARIANTS = variants('shadowfax', [
  'M1', 'M2', 'M3', 'M4', 'M5', 'M6', 'M7', 'M8', 'M9', 'M10', 'M11', 'M12', 'H1', 'M13', 'M14', 'M15', 'M15b', 'M16',
  'M17', 'M18', 'M19', 'M20', 'M21', 'M21b', 'M22', 'M23', 'M24', 'M25', 'M26', 'M27', 'M28', 'M29', 'M30', 'stale-leftover',
]);
export type Variant = (typeof VARIANTS.names)[number];

const mutant = (name: Variant, description: string, breaks: string, config: string, expect?: string): MutantDef =>
  VARIANTS.mutant({ name, description, breaks, kind: 'safety', config, expect });

export const mutants: MutantDef[] = [
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
  VARIANTS.mutant({
    name: 'M19',
    description: 'sampling copies without the addr < tailStart guard (a record copied on every access): costs log space only',
    breaks: '§4.1 L180 (performance)',
    kind: 'control',
    config: 'B0-prime',
  }),
];

export const findings: FindingDef[] = [
  {
    name: 'stale-leftover',
    description: "the target executes on whatever record of an R key its lookup finds (extraction §2.4), so on the return trip S serves k from its leftover of the first ownership and the migrated copy buries the write",
    variant: 'stale-leftover' satisfies Variant,
    config: 'B4',
    expect: 'INV-COND-INSERT',
  },
];
