// The extraction's mutant catalogue (../shared/protocols/fusee-snapshot.md §5.2), each at
// the config that exposes it with the property its shortest counterexample breaks, and
// the M15 finding. The names are typed (specs/kit/variants.ts): the machine tests
// `mut.M5`, so a misspelled mutant does not compile.

import type { FindingDef, MutantDef } from '../../checkers/explore/types.ts';
import { variants } from '../kit/variants.ts';

export const VARIANTS = variants('fusee', [
  'M1', 'M2', 'M3', 'M4', "M4'", 'M5', 'M6', 'M7', 'M8', 'M9', 'M10', 'M11', 'M12', 'M13', 'M14', 'M15', 'M16',
  'M17', 'M18', 'M19', 'M20', 'M21', 'M22', 'M23', 'M24',
]);
export type Variant = (typeof VARIANTS.names)[number];

const m = (name: Variant, kind: MutantDef['kind'], config: string, breaks: string, description: string, expect?: string): MutantDef =>
  VARIANTS.mutant({ name, kind, config, breaks, description, ...(expect ? { expect } : {}) });

export const mutants: MutantDef[] = [
  m('M1', 'safety', 'A1', 'Alg. 2 l.17 (Rule 3) [L231]', 'drop Rule 3: a split makes everyone LOSE', 'deadlock'),
  m('M2', 'safety', 'B', 'Alg. 2 l.12-16, [L233]', 'drop the primary re-read before Rule 3', 'I5'),
  m('M3', 'safety', 'A1', 'Alg. 2 l.8 (strict majority)', 'Rule 2 with a non-strict majority 2*cnt >= m', 'I5'),
  m('M4', 'safety', 'A0', 'Alg. 1 l.2 (READ reads the primary)', 'readers read a backup', 'LIN'),
  m("M4'", 'safety', 'D', 'Alg. 4 l.4-6 (all alive backups equal)', 'with the primary crashed, return one backup without the equality check', 'LIN'),
  m('M5', 'safety', 'A1', 'Alg. 1 l.14-15 (fix-up before the primary)', 'a Rule-2/3 winner CASes the primary before its fix-up', 'I11'),
  m('M6', 'safety', 'A0', 'Alg. 1 l.16-22 (losers wait)', 'losers return without waiting for the primary to change', 'I12'),
  m('M7', 'safety', 'C2', '§4.5 [L276] (losers reset the used bit)', 'losers return with the used bit still set', 'I13'),
  m('M8', 'safety', 'E1', 'Alg. 3 l.7 (commit the chosen log)', 'the master does not commit the log of the value it chose', 'I10'),
  m('M9', 'safety', 'C2', 'Fig. 9, A.4.2 [L806] (log before the primary)', 'the winner commits its log after the primary CAS', 'I11'),
  m('M10', 'safety', 'C3', '[L276], A.4.2 (log after the fix-up)', 'the winner commits its log before the fix-up', 'I11'),
  m('M11', 'safety', 'C2', 'Alg. 3 l.23 (v_p = v_old)', 'recovery CASes the primary to v_new whatever it holds', 'I18'),
  m('M12', 'safety', 'D', 'A.4.1 [L794-798] (fencing)', 'the master does not fence an in-flight last writer', 'I17'),
  m('M13', 'safety', 'D', 'Alg. 4 l.37-38 (retry)', 'a writer told v_RPC = v_old returns instead of retrying', 'LIN'),
  m('M14', 'control', 'D', 'Alg. 3 l.5 (choose a backup)', 'the master picks the primary value even if backups are alive'),
  m('M15', 'safety', 'E1', '§5.4 [L321-323] (mixed crashes)', 'client recovery is not restarted when an MN episode begins during it', 'I10'),
  m('M16', 'safety', 'C2', 'Alg. 3 l.18 (redo with the logged v_new)', 'recovery redoes the write with a freshly allocated value', 'deadlock'),
  m('M17', 'safety', 'C2', '§5.3 [L317] (redo incomplete entries)', 'recovery reclaims an entry whose old value is incomplete', 'deadlock'),
  m('M18', 'safety', 'A0', 'Alg. 1 l.9 (change_list_value)', 'omit change_list_value', 'I10'),
  m('M19', 'safety', 'A1', 'Alg. 1 l.14 (fix-up)', 'a Rule-2/3 winner skips the fix-up', 'I11'),
  m('M20', 'control', 'B', 'Alg. 2 l.17 (min)', 'Rule 3 picks the maximal value'),
  m('M21', 'control', 'B', 'Alg. 2 l.10', 'drop the v_new-not-in-v_list test'),
  m('M22', 'control', 'A4', 'Alg. 2 l.2-8 (Len counts backups)', 'count the primary in Len(v_list)'),
  m('M23', 'safety', 'K1', 'X§5.1 item 16 [CODE] (INSERT losers retry)', 'a losing INSERT returns success', 'LIN'),
  m('M24', 'safety', 'K2', 'Alg. 3 l.23 + [CODE] backups guard (ABA)', 'DELETE writes the empty slot and recovery checks only v_p = v_old', 'I18'),
];

export const findings: FindingDef[] = [
  {
    name: 'M15',
    description:
      'Paper as written (§5.4): a client recovery is not restarted when a memory node fails during its redo; the stale redo re-applies a write the master already committed',
    // M15 checked against linearizability alone, so that BFS returns the shortest
    // counterexample to the paper's claim (with every invariant on, I5 breaks first).
    variant: 'M15/LIN',
    config: 'E1',
    expect: 'LIN',
  },
];
