// The mutant catalogue of the extraction's §5, each a typed flag (specs/kit/variants.ts)
// that the step it breaks reads (`cx.mut.M5`, so a misspelled mutant does not compile),
// and the paper-literal migration rollback and its missing fence as findings (§3.9).
import type { FindingDef, MutantDef } from '../../checkers/explore/types.ts';
import { variants } from '../kit/variants.ts';

export const VARIANTS = variants('rowan', [
  'M1', 'M2', 'M3', 'M4', 'M5', 'M6a', 'M6b', 'M7', 'M8', 'M9', 'M10', 'M11', 'M12', 'M13', 'M14', 'M15', 'M16', 'M17', 'M18',
  'M19', 'M20a', 'M20b', 'M21', 'M22', 'M23', 'M24', 'M25', 'M26', 'CV-OFF-BY-ONE', 'RB-NOFENCE',
]);
export type Variant = (typeof VARIANTS.names)[number];

const m = (name: Variant, config: string, expect: string, breaks: string, description: string): MutantDef =>
  VARIANTS.mutant({ name, kind: 'safety', config, expect, breaks, description });

export const mutants: MutantDef[] = [
  m('M1', 'RK-0', 'I2', '§4.2 L219 ③ after ②', 'index update (V) before the replication ACKs'),
  m('M2', 'RK-1', 'I2', '§4.2 L219', 'reply after the first backup ACK instead of all'),
  m('M3', 'RK-COLD', 'I2', '§3.2 L174-L178, L347', 'ACK on SEND completion, without the persisting READ'),
  m('M4', 'RK-COLD', 'I2', '§4.2 L219', 'replicate (②) before the local t-log persist (①)'),
  m('M5', 'RK-0', 'I10', '§4.5 L296', 'the new primary serves before its index is built (no shard blocking)'),
  m('M6a', 'RK-0', 'I10', '§4.5 L296', 'the promotion scan skips using segments'),
  m('M6b', 'RK-1', 'I6', '§4.5 L296', 'no gather: the new primary uses only its own b-log'),
  m('M7', 'RK-1', 'I2', '§4.5 L296', 'unblock before the scatter reached the backups'),
  m('M8', 'RK-0', 'I6', '§4.5 L296', 'shard version not raised above the gathered maximum'),
  m('M9', 'RK-0', 'I3', '§4.8 L353', 'unconditional index update at the primary (completion order wins)'),
  m('M10', 'RK-0', 'I4', '§4.8 L353, §4.4 L278', 'the backup digest applies entries in b-log order'),
  m('M11', 'RK-GC', 'I3', '§4.4 L284, L353', 'unconditional pointer update in the clean thread'),
  m('M12', 'RK-0', 'I3', '§2.4 [I] (L219, L353)', 'DEL removes the index item instead of leaving a tombstone'),
  m('M13', 'RK-0', 'I12', '§4.5 L294', 'the CM commits without waiting for the evicted primary\'s lease'),
  m('M14', 'RK-0', 'I13', '§4.5 L294', 'QPs to the evicted server are not destroyed before responding'),
  m('M15', 'RK-2', 'I2', '§4.5 L298, extraction §3.4(b)', 're-replication traversal starts without draining older PUTs'),
  m('M16', 'RK-CV', 'I8', '§4.4 L280', 'CommitVer = largest completed version, not the contiguous watermark'),
  m('M17', 'RK-COLD', 'I7', '§4.2.1 L247', 't-log segment committed when full, before its entries are ACKed'),
  m('M18', 'RK-DMA', 'I2', '§4.3 L274 (extraction §6.3)', 'no 2 ms wait before marking a segment used, and no 1 ms sender retry'),
  m('M19', 'RK-2', 'H2', '§4.5 L298, extraction §3.4(a)', 'a backup still re-replicating can be promoted'),
  m('M20a', 'RK-MIG', 'I12', '§4.6 L308', 'the migration target serves before MIGRATE_VERSION and does not continue the counter'),
  m('M20b', 'RK-MIG', 'I1', '§4.6 L308', 'the source sends MIGRATE_VERSION before its in-flight PUTs finish'),
  m('M21', 'RK-MIG', 'H2', '§4.6 L311', 'the migration target forwards a GET for a tombstoned key to the source'),
  // The catalogue's M22 (the paper-literal rollback, L315) is the finding F-M22 below: the
  // same variant at the same config, so it is run once, as a finding.
  m('M23', 'RK-REUSE', 'I11', '§4.3 L272 [AMBIG]', 'a recycled segment has only its first 64 bits zeroed, and the digest trusts every checksum-valid entry'),
  m('M24', 'RK-GC', 'I14', '§4.4 L284', 'GC cleans used (uncommitted) segments'),
  m('M25', 'RK-MIG', 'I6', '§4.5 L294, §4.6 L308', 'a server accepts requests whose term is lower than its cached term'),
  // Not in the extraction's catalogue (issue 22): it needs CommitVer with two backups.
  m('CV-OFF-BY-ONE', 'RK-CV3', 'I7', '§4.4 L280-L282', 'a used segment commits when its MaxVerArray is at most CommitVerArray + 1'),
  m('M26', 'RK-1', 'I7', '§4.5 L296, §4.2.1 L243', 'scattered entries stored as committed at once'),
];

const finding = (def: FindingDef & { variant: Variant }): FindingDef => def;

export const findings: FindingDef[] = [
  finding({
    name: 'F-M22',
    description: 'the migration rollback as written (L315), the catalogue\'s M22: after the target fails, the source resumes with its frozen index and shard version, below the versions the target already replicated to the backup',
    variant: 'M22',
    config: 'RK-MIG',
    expect: 'I6',
  }),
  finding({
    name: 'F-RB-NOFENCE',
    description: 'the rollback as written does not fence the live migration target: its in-flight replication SEND lands at the backup after the new primary gathered, and the version is reused',
    variant: 'RB-NOFENCE',
    config: 'RK-MIG',
    expect: 'I6',
  }),
];
