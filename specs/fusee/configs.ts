// FUSEE's configs: each a small script per client at a replication factor, with the
// crash budgets that bring in the master (Alg. 3) and client recovery (Fig. 9). The
// default tier reaches every rule of Alg. 2, every loser outcome and every recovery case
// (fusee.test.ts checks it); the full tier combines crashes.

import type { ConfigDef } from '../../checkers/explore/types.ts';
import { operation, type FuseeConfig, type Op } from './state.ts';

const W = (v: number): Op => operation('write', 0, v);
const R: Op = operation('read', 0, 0);
const INSERT = (k: number, v: number): Op => operation('insert', k, v);
const DELETE = (k: number): Op => operation('delete', k, 0);
const SEARCH = (k: number): Op => operation('search', k, 0);
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
    clients: [[INSERT(1, 11)], [INSERT(2, 21)], [SEARCH(1), SEARCH(1)]],
  }),
  cfg('K2', 'default', 'KV, r=2: INSERT(K1), DELETE(K1), SEARCH(K1) x2, 1 client crash (DELETE writes the empty slot)', {
    r: 2,
    clientCrashes: 1,
    clients: [[INSERT(1, 11)], [DELETE(1)], [SEARCH(1), SEARCH(1)]],
  }),
];
