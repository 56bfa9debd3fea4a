// FUSEE's SNAPSHOT replication (FAST '23): configs, the mutant catalogue of the extraction
// (../shared/protocols/fusee-snapshot.md §5.2) and the M15 finding, around machine.ts.

import type { ConfigDef, FindingDef, MutantDef, SpecDef } from '../../checkers/explore/types.ts';
import { buildMachine, type FuseeConfig, type Op } from './machine.ts';
import { fuseeTrace } from './trace.ts';

const W = (v: number): Op => ({ f: 'write', v });
const R: Op = { f: 'read' };
const twoWriters: Op[][] = [[W(1)], [W(2)], [R, R]];

function cfg(name: string, tier: 'default' | 'full', description: string, c: Partial<FuseeConfig> & { r: number }): ConfigDef<FuseeConfig> {
  return { name, tier, description, config: { clients: twoWriters, clientCrashes: 0, mnCrashes: 0, casOrder: 'free', ...c } };
}

export const configs: ConfigDef<FuseeConfig>[] = [
  cfg('A0', 'default', 'r=2, W(1), W(2), R x2: Rule 1 only, losers wait', { r: 2 }),
  cfg('A1', 'default', 'r=3, W(1), W(2), R x2: Rule 1, Rule 3 (1-1 split), LOSE, FINISH', { r: 3 }),
  cfg('A2', 'default', 'r=5, W(1), W(2), R x2: all three rules with two writers (4-0, 3-1, 2-2)', { r: 5 }),
  cfg('A4', 'default', 'r=4, W(1), W(2), R x2: Rule 1 (3-0) and Rule 2 (2-1)', { r: 4 }),
  cfg('A3', 'default', 'r=4, W(1), W(2), W(3): Rule 3 through a 1-1-1 split', { r: 4, clients: [[W(1)], [W(2)], [W(3)]] }),
  cfg('B', 'default', 'r=3, A: W(1),W(3); B: W(2); R x2: stale writers across rounds', { r: 3, clients: [[W(1), W(3)], [W(2)], [R, R]] }),
  cfg('C2', 'default', 'r=2, W(1), W(2), R x2, 1 client crash: recovery c0-c3', { r: 2, clientCrashes: 1 }),
  cfg('C3', 'default', 'r=3, W(1), W(2), R x2, 1 client crash: recovery with Rule-3 winners', { r: 3, clientCrashes: 1 }),
  cfg('D', 'default', 'r=3, W(1), W(2), R x2, 1 MN crash: the master, reads of a crashed primary, retries', { r: 3, mnCrashes: 1 }),
  cfg('D2', 'full', 'r=3, W(1), W(2), R x2, 2 MN crashes: down to no backups', { r: 3, mnCrashes: 2 }),
  cfg('E', 'full', 'r=3, W(1), W(2), R x2, 1 MN + 1 client crash: mixed recovery', { r: 3, mnCrashes: 1, clientCrashes: 1 }),
  cfg('F', 'full', 'r=3, W(1), W(2), R x2, 2 MN + 1 client crash (the extraction stopped this one at 6M states)', {
    r: 3,
    mnCrashes: 2,
    clientCrashes: 1,
  }),
  cfg('BD', 'full', 'r=3, A: W(1),W(3); B: W(2); R x2, 1 MN crash: stale writers with the master', {
    r: 3,
    mnCrashes: 1,
    clients: [[W(1), W(3)], [W(2)], [R, R]],
  }),
  cfg('BE', 'full', 'r=3, A: W(1),W(3); B: W(2); R x1, 1 MN + 1 client crash: stale writers with crashes', {
    r: 3,
    mnCrashes: 1,
    clientCrashes: 1,
    clients: [[W(1), W(3)], [W(2)], [R]],
  }),
  cfg('E1', 'default', 'r=3, W(1), W(2), R x2, 1 MN + 1 client crash, per-backup CASes in replica order', {
    r: 3,
    mnCrashes: 1,
    clientCrashes: 1,
    casOrder: 'fixed',
  }),
  cfg('K1', 'default', 'KV, r=3: INSERT(K1), INSERT(K2) into one empty slot, SEARCH(K1) x2', {
    r: 3,
    clients: [[{ f: 'insert', k: 1, v: 11 }], [{ f: 'insert', k: 2, v: 21 }], [{ f: 'search', k: 1 }, { f: 'search', k: 1 }]],
  }),
  cfg('K2', 'default', 'KV, r=2: INSERT(K1), DELETE(K1), SEARCH(K1) x2, 1 client crash (DELETE writes the empty slot)', {
    r: 2,
    clientCrashes: 1,
    clients: [[{ f: 'insert', k: 1, v: 11 }], [{ f: 'delete', k: 1 }], [{ f: 'search', k: 1 }, { f: 'search', k: 1 }]],
  }),
];

const m = (name: string, kind: MutantDef['kind'], config: string, breaks: string, description: string, expect?: string): MutantDef => ({
  name,
  kind,
  config,
  breaks,
  description,
  ...(expect ? { expect } : {}),
});

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

const names = new Set(mutants.map((x) => x.name));

export const spec: SpecDef<FuseeConfig> = {
  name: 'fusee',
  title: "FUSEE's SNAPSHOT replication with client and memory-node crashes",
  paper: "FUSEE (FAST '23), §4.3 Algorithms 1-2, §5 Algorithms 3-4, Appendix A",
  configs,
  mutants,
  findings,
  trace: fuseeTrace,
  /** variant: a mutant's name, or "<mutant>/<property>" to check that one property alone. */
  build(config, variant) {
    const [mutant, only] = variant === undefined ? [undefined, undefined] : variant.split('/');
    if (mutant !== undefined && !names.has(mutant)) throw new Error(`fusee: unknown variant "${variant}"`);
    const machine = Object.assign(buildMachine(config, mutant), { internal: ['g', 'mon'] });
    if (only === undefined) return machine;
    if (!(only in machine.invariants)) throw new Error(`fusee: variant "${variant}" names no invariant`);
    return { ...machine, invariants: { [only]: machine.invariants[only] } };
  },
};
