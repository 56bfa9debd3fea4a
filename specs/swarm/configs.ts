// The bounded models (extraction §8.3), one family per layer. The prefix names the layer:
// lock-* the timestamp lock, maxreg-* the reliable max register, ino-* In-n-Out,
// sg-* Safe-Guess. Write ids (the values) are unique per write so reads-from is known.

import type { ConfigDef } from '../../checkers/explore/types.ts';
import type { InoConfig } from './ino.ts';
import { READ, VERIFIED, WRITE, tuple, ts } from './tuple.ts';
import type { Op, SwarmConfig } from './machine.ts';

export type Config = ({ layer: 'swarm' } & SwarmConfig) | ({ layer: 'ino' } & InoConfig);

const W = (v: number): Op => ({ f: 'write', v });
const R: Op = { f: 'read' };
const MR: Op = { f: 'mread' };
const MW = (v: number): Op => ({ f: 'mwrite', v: tuple(ts(v, 0), VERIFIED, v) });
const TL = (c: number, mode: number): Op => ({ f: 'trylock', c, mode });

const sw = (c: Partial<SwarmConfig> & Pick<SwarmConfig, 'n' | 'scripts'>): Config => ({
  layer: 'swarm', f: 0, clientCrashes: 0, cmax: 0, fused: true, lock: 'cas', late: 'keep', m: 'quorum', ...c,
});

export const configs: ConfigDef<Config>[] = [
  // ---- the timestamp lock (App. B; §8.3 C5) ----
  { name: 'lock-spec', tier: 'default', description: 'the abstract lock (f.67): TRYLOCK(1,READ), TRYLOCK(1,WRITE), TRYLOCK(2,READ) answered by any result the two properties allow',
    config: sw({ n: 1, lock: 'abstract', scripts: [[TL(1, READ)], [TL(1, WRITE)], [TL(2, READ)]] }) },
  { name: 'lock-n1', tier: 'default', description: 'T1-T12 on one CAS object: R1(1,READ), W(1,WRITE), R2(2,READ), requests and responses separate',
    config: sw({ n: 1, fused: false, scripts: [[TL(1, READ)], [TL(1, WRITE)], [TL(2, READ)]] }) },
  { name: 'lock-n3', tier: 'default', description: 'T1-T12 on 3 CAS objects, one may crash: R1(1,READ), W(1,WRITE), R2(2,READ); CASes land after TRYLOCK returns',
    config: sw({ n: 3, f: 1, scripts: [[TL(1, READ)], [TL(1, WRITE)], [TL(2, READ)]] }) },
  { name: 'lock-n3-split', tier: 'full', description: 'as lock-n3 with every CAS applied and acknowledged as separate steps',
    config: sw({ n: 3, f: 1, fused: false, scripts: [[TL(1, READ)], [TL(1, WRITE)], [TL(2, READ)]] }) },
  { name: 'lock-n3-split-rw', tier: 'default', description: 'T1-T12 on 3 CAS objects, one may crash, every CAS applied and acknowledged as separate steps: R(1,READ) against W(1,WRITE), the exclusion T9-T11 guarantee',
    config: sw({ n: 3, f: 1, fused: false, scripts: [[TL(1, READ)], [TL(1, WRITE)]] }) },
  // ---- the reliable max register (App. A; §8.3 C6) ----
  { name: 'maxreg-n3', tier: 'default', description: 'n=3, f=1: writers of 5 and 7, one reader, the per-process cache and write-back',
    config: sw({ n: 3, f: 1, scripts: [[MW(5)], [MW(7)], [MR]] }) },
  { name: 'maxreg-n3-two-readers', tier: 'full', description: 'n=3, f=1: writers of 5 and 7, two readers of one read each',
    config: sw({ n: 3, f: 1, scripts: [[MW(5)], [MW(7)], [MR], [MR]] }) },
  { name: 'maxreg-n3-rr', tier: 'default', description: 'n=3: a writer of 5, one reader reading twice',
    config: sw({ n: 3, scripts: [[MW(5)], [MR, MR]] }) },
  { name: 'maxreg-n3-rr-split', tier: 'default', description: 'maxreg-n3-rr with every per-MN read answered in a step of its own: a late response reaches the cache after the write-back\'s acks (App. A [update-cache-r])',
    config: sw({ n: 3, splitReads: true, scripts: [[MW(5)], [MR, MR]] }) },
  { name: 'maxreg-n3-split', tier: 'full', description: 'as maxreg-n3 with requests and responses as separate steps',
    config: sw({ n: 3, f: 1, fused: false, scripts: [[MW(5)], [MW(7)], [MR], [MR]] }) },
  // ---- In-n-Out (§4; §8.3 C7): one MN, word-level memory ----
  { name: 'ino-2w', tier: 'default', description: 'C7: writers of 1 and 2, one reader of two reads; buffers, meta CAS-max and the in-place copy word by word',
    config: { layer: 'ino', writes: [[1], [2]], reads: 2 } },
  { name: 'ino-reuse', tier: 'default', description: 'C7 with writer A writing 1 then 2, one reader of one read (buffer reuse, M23)',
    config: { layer: 'ino', writes: [[1, 2]], reads: 1 } },
  // ---- Safe-Guess (§3.2; §8.3 C1-C4). sg-n*: the whole stack, M and TSL built from MNs;
  // sg-spec-*: Safe-Guess over the specifications of M and TSL (the layers composed).
  { name: 'sg-n1', tier: 'default', description: 'C1: n=1, writers A and B (one write each), reader C (2 reads), guesses in 1..2',
    config: sw({ n: 1, cmax: 2, scripts: [[W(1)], [W(2)], [R, R]] }) },
  { name: 'sg-n1-stale', tier: 'default', description: 'C1 with guesses in 1..3 and 1 read (a guess can be stale by 2)',
    config: sw({ n: 1, cmax: 3, scripts: [[W(1)], [W(2)], [R]] }) },
  { name: 'sg-n1-same-writer', tier: 'default', description: 'C3: n=1, A writes twice, reader C reads twice, guesses in 1..3',
    config: sw({ n: 1, cmax: 3, scripts: [[W(1), W(2)], [R, R]] }) },
  { name: 'sg-n1-three-writes', tier: 'default', description: 'n=1, A writes three times, C reads once (the 2P+1 bound of Lemma C.5)',
    config: sw({ n: 1, cmax: 3, scripts: [[W(1), W(2), W(3)], [R]] }) },
  { name: 'sg-spec-1r', tier: 'default', description: 'Safe-Guess over the M and TSL specifications: A and B one write each, C one read, guesses in 1..2',
    config: sw({ n: 1, cmax: 2, m: 'spec', lock: 'abstract', scripts: [[W(1)], [W(2)], [R]] }) },
  { name: 'sg-n1-crash', tier: 'default', description: 'C1 with one client crash (a writer mid-WRITE or the reader mid-READ), C one read, guesses in 1..2',
    config: sw({ n: 1, cmax: 2, clientCrashes: 1, scripts: [[W(1)], [W(2)], [R]] }) },
  { name: 'sg-n3-1w', tier: 'full', description: 'the whole stack at n=3, f=1 (an MN may crash): A one write, C one read, guesses in 1..2; leftover messages dropped',
    config: sw({ n: 3, f: 1, cmax: 2, late: 'drop', scripts: [[W(1)], [R]] }) },
  { name: 'sg-n1-3r', tier: 'full', description: 'C1 with 3 reads (the §7.1 oscillation needs three)',
    config: sw({ n: 1, cmax: 2, scripts: [[W(1)], [W(2)], [R, R, R]] }) },
  { name: 'sg-n1-abstract', tier: 'full', description: 'C1 (2 reads) with the abstract lock of f.67 in place of T1-T12',
    config: sw({ n: 1, cmax: 2, lock: 'abstract', scripts: [[W(1)], [W(2)], [R, R]] }) },
  { name: 'sg-spec', tier: 'full', description: 'Safe-Guess over the M and TSL specifications: A and B one write each, C two reads',
    config: sw({ n: 1, cmax: 2, m: 'spec', lock: 'abstract', scripts: [[W(1)], [W(2)], [R, R]] }) },
  { name: 'sg-spec-multi', tier: 'full', description: 'C4 over the M and TSL specifications: A writes twice (guesses 1, 2), B once (guess 3), C reads twice',
    config: sw({ n: 1, cmax: 3, m: 'spec', lock: 'abstract', guesses: [[1, 2], [3], []], scripts: [[W(1), W(2)], [W(3)], [R, R]] }) },
  { name: 'sg-n3', tier: 'full', description: 'C2, the whole stack: n=3, f=1, A and B one write each, C two reads; leftover messages dropped (late: drop)',
    config: sw({ n: 3, f: 1, cmax: 2, late: 'drop', scripts: [[W(1)], [W(2)], [R, R]] }) },
];

export const config = (name: string): Config => {
  const c = configs.find((x) => x.name === name);
  if (!c) throw new Error(`swarm: no config "${name}"`);
  return c.config;
};
