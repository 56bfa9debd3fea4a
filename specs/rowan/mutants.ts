// The mutant catalogue of the extraction's §5, each a flag that machine.ts reads at the
// step it breaks, and the paper-literal migration rollback as a finding (§3.9).
import type { FindingDef, MutantDef } from '../../checkers/explore/types.ts';

export const mutants: MutantDef[] = [
  { name: 'M1', description: 'index update (V) before the replication ACKs', breaks: '§4.2 L219 ③ after ②', kind: 'safety', config: 'RK-0', expect: 'I2' },
  { name: 'M2', description: 'reply after the first backup ACK instead of all', breaks: '§4.2 L219', kind: 'safety', config: 'RK-1', expect: 'I2' },
  { name: 'M3', description: 'ACK on SEND completion, without the persisting READ', breaks: '§3.2 L174-L178, L347', kind: 'safety', config: 'RK-COLD', expect: 'I2' },
  { name: 'M4', description: 'replicate (②) before the local t-log persist (①)', breaks: '§4.2 L219', kind: 'safety', config: 'RK-COLD', expect: 'I2' },
  { name: 'M5', description: 'the new primary serves before its index is built (no shard blocking)', breaks: '§4.5 L296', kind: 'safety', config: 'RK-0', expect: 'I10' },
  { name: 'M6a', description: 'the promotion scan skips using segments', breaks: '§4.5 L296', kind: 'safety', config: 'RK-0', expect: 'I10' },
  { name: 'M6b', description: 'no gather: the new primary uses only its own b-log', breaks: '§4.5 L296', kind: 'safety', config: 'RK-1', expect: 'I6' },
  { name: 'M7', description: 'unblock before the scatter reached the backups', breaks: '§4.5 L296', kind: 'safety', config: 'RK-1', expect: 'I2' },
  { name: 'M8', description: 'shard version not raised above the gathered maximum', breaks: '§4.5 L296', kind: 'safety', config: 'RK-0', expect: 'I6' },
  { name: 'M9', description: 'unconditional index update at the primary (completion order wins)', breaks: '§4.8 L353', kind: 'safety', config: 'RK-0', expect: 'I3' },
  { name: 'M10', description: 'the backup digest applies entries in b-log order', breaks: '§4.8 L353, §4.4 L278', kind: 'safety', config: 'RK-0', expect: 'I4' },
  { name: 'M11', description: 'unconditional pointer update in the clean thread', breaks: '§4.4 L284, L353', kind: 'safety', config: 'RK-GC', expect: 'I3' },
  { name: 'M12', description: 'DEL removes the index item instead of leaving a tombstone', breaks: '§2.4 [I] (L219, L353)', kind: 'safety', config: 'RK-0', expect: 'I3' },
  { name: 'M13', description: 'the CM commits without waiting for the evicted primary\'s lease', breaks: '§4.5 L294', kind: 'safety', config: 'RK-0', expect: 'I12' },
  { name: 'M14', description: 'QPs to the evicted server are not destroyed before responding', breaks: '§4.5 L294', kind: 'safety', config: 'RK-0', expect: 'I13' },
  { name: 'M15', description: 're-replication traversal starts without draining older PUTs', breaks: '§4.5 L298, extraction §3.4(b)', kind: 'safety', config: 'RK-2', expect: 'I2' },
  { name: 'M16', description: 'CommitVer = largest completed version, not the contiguous watermark', breaks: '§4.4 L280', kind: 'safety', config: 'RK-CV', expect: 'I8' },
  { name: 'M17', description: 't-log segment committed when full, before its entries are ACKed', breaks: '§4.2.1 L247', kind: 'safety', config: 'RK-COLD', expect: 'I7' },
  { name: 'M18', description: 'no 2 ms wait before marking a segment used, and no 1 ms sender retry', breaks: '§4.3 L274 (extraction §6.3)', kind: 'safety', config: 'RK-DMA', expect: 'I2' },
  { name: 'M19', description: 'a backup still re-replicating can be promoted', breaks: '§4.5 L298, extraction §3.4(a)', kind: 'safety', config: 'RK-2', expect: 'H2' },
  { name: 'M20a', description: 'the migration target serves before MIGRATE_VERSION and does not continue the counter', breaks: '§4.6 L308', kind: 'safety', config: 'RK-MIG', expect: 'I12' },
  { name: 'M20b', description: 'the source sends MIGRATE_VERSION before its in-flight PUTs finish', breaks: '§4.6 L308', kind: 'safety', config: 'RK-MIG', expect: 'I1' },
  { name: 'M21', description: 'the migration target forwards a GET for a tombstoned key to the source', breaks: '§4.6 L311', kind: 'safety', config: 'RK-MIG', expect: 'H2' },
  { name: 'M22', description: 'paper-literal rollback: the source resumes serving without reconciliation', breaks: '§4.6 L315', kind: 'safety', config: 'RK-MIG', expect: 'I6' },
  { name: 'M23', description: 'a recycled segment has only its first 64 bits zeroed, and the digest trusts every checksum-valid entry', breaks: '§4.3 L272 [AMBIG]', kind: 'safety', config: 'RK-REUSE', expect: 'I11' },
  { name: 'M24', description: 'GC cleans used (uncommitted) segments', breaks: '§4.4 L284', kind: 'safety', config: 'RK-GC', expect: 'I14' },
  { name: 'M25', description: 'a server accepts requests whose term is lower than its cached term', breaks: '§4.5 L294, §4.6 L308', kind: 'safety', config: 'RK-MIG', expect: 'I6' },
  // Not in the extraction's catalogue (issue 22): it needs CommitVer with two backups.
  { name: 'CV-OFF-BY-ONE', description: 'a used segment commits when its MaxVerArray is at most CommitVerArray + 1', breaks: '§4.4 L280-L282', kind: 'safety', config: 'RK-CV3', expect: 'I7' },
  { name: 'M26', description: 'scattered entries stored as committed at once', breaks: '§4.5 L296, §4.2.1 L243', kind: 'safety', config: 'RK-1', expect: 'I7' },
];

export const findings: FindingDef[] = [
  {
    name: 'F-M22',
    description: 'the migration rollback as written (L315): after the target fails, the source resumes with its frozen index and shard version, below the versions the target already replicated to the backup',
    variant: 'M22',
    config: 'RK-MIG',
    expect: 'I6',
  },
  {
    name: 'F-RB-NOFENCE',
    description: 'the rollback as written does not fence the live migration target: its in-flight replication SEND lands at the backup after the new primary gathered, and the version is reused',
    variant: 'RB-NOFENCE',
    config: 'RK-MIG',
    expect: 'I6',
  },
];
