// The extraction's catalogue (§7.4 safety mutants M1-M23, §7.4 controls N1-N8), each at the
// config that exposes it. `expect` is the property the shortest counterexample breaks with
// every invariant on; `external` marks Safe-Guess mutants whose shortest counterexample
// breaks a white-box ghost first, and which SG-Lin alone must also catch (tests, README).
// The names are typed (specs/kit/variants.ts): the machine tests `mut.M5`, so a
// misspelled mutant does not compile.

import type { MutantDef } from '../../checkers/explore/types.ts';
import { variants } from '../kit/variants.ts';

export const VARIANTS = variants('swarm', [
  'HAZARD', 'M1', 'M2', 'M3', 'M4', 'M5', 'M6', 'M7', 'M8', 'M9', 'M10', 'M11', 'M12', 'M13', 'M14', 'M15', 'M16',
  'M17', 'M18', 'M19', 'RESP-OVERWRITE', 'M20', 'M21', 'M22', 'M23', 'N1', 'N2', 'N3', 'N4', 'N5', 'N6', 'N7', 'N8',
]);
export type Variant = (typeof VARIANTS.names)[number];

const m = (name: Variant, config: string, expect: string, breaks: string, description: string): MutantDef =>
  VARIANTS.mutant({ name, kind: 'safety', config, expect, breaks, description });
/** A mutant that breaks a liveness property (bounded wait-freedom), though it is killed like the others. */
const live = (name: Variant, config: string, expect: string, breaks: string, description: string): MutantDef =>
  ({ ...m(name, config, expect, breaks, description), breaksClass: 'liveness' });
const c = (name: Variant, config: string, breaks: string, description: string): MutantDef =>
  VARIANTS.mutant({ name, kind: 'control', config, breaks, description });

export const mutants: MutantDef[] = [
  m('HAZARD', 'sg-n1-3r', 'SG-Lin', '§2.3 f.42, §3.1 f.51, f.56', 'the §7.1 motivating hazard: ABD with a guessed timestamp, retried without any lock when stale; reads return one M.READ\'s value'),
  m('M1', 'sg-n1', 'SG-LockRewriteExcl', '§3.2 W10 (f.42, f.56)', 'the writer retries without the timestamp lock: the slow path always rewrites (the §7.1 oscillation)'),
  m('M2', 'sg-n1', 'SG-LockRewriteExcl', '§3.2 W10', 'the writer ignores the TRYLOCK result and rewrites on False'),
  m('M3', 'sg-n1', 'SG-Lin', '§3.3 R16 (f.63)', 'the reader returns a double-read GUESSED value without locking'),
  m('M4', 'sg-n1-3r', 'SG-VerifiedFinal', '§3.3 R16 (f.63)', 'the reader ignores the TRYLOCK result and returns on False'),
  m('M5', 'sg-spec', 'SG-C3', '§3.3 R15 (f.62, Figure 2)', 'no double read: the reader locks and returns on the first sight of a GUESSED tuple'),
  m('M6', 'sg-n1-stale', 'SG-Lin', '§3.2 W11 (f.58)', 'the slow-path writer locks but does not rewrite'),
  m('M7', 'sg-n1-stale', 'SG-Lin', '§3.2 W11 (f.58, f.507)', 'the rewrite timestamp is the guess plus one, not above m.ts'),
  m('M8', 'sg-n1-same-writer', 'SG-FastFresh', '§3.1 guessTs (f.54, Assumption 1 f.433)', 'guessTs not monotonic: a guess may equal or fall below an earlier one'),
  m('M9', 'sg-n1', 'SG-C3', '§3.2 W2 (f.52, f.57 footnote)', 'one timestamp lock shared by all writers instead of TSL[p]'),
  m('M10', 'sg-spec-multi', 'SG-Lin', '§3.3 R20 (f.64)', 'R20 returns the newer tuple m.val instead of seen[tid].val'),
  // M11 is the extraction's L2 (§7.4 "liveness-only mutations"): the register stays linearizable.
  live('M11', 'sg-n1-three-writes', 'SG-WF-R', '§3.3 R19-R20, Lemma C.5 (f.518-530)', 'no R19-R20 rule: the reader returns only via VERIFIED or the lock'),
  m('M12', 'lock-n1', 'TL-S1', 'App. B T6 (f.70, Observation 2)', 'TRYLOCK without the T6 guard: CAS until its own (ts, mode) is installed'),
  m('M13', 'lock-n1', 'TL-Excl', 'App. B T11', 'TRYLOCK without the opposite-mode check (T11)'),
  m('M14', 'lock-n1', 'TL-Excl', 'App. B T10', 'TRYLOCK without the higher-timestamp check (T10)'),
  m('M15', 'lock-n3', 'TL-Excl', 'App. B T9 (f.70)', 'TRYLOCK waits for one object instead of a majority'),
  m('M16', 'maxreg-n3', 'MR-S2', 'App. A quorums (f.38)', 'M with non-majority quorums (one write ack, one read response)'),
  m('M17', 'maxreg-n3-rr', 'MR-S2', 'App. A [invoke-inner-write] (f.38)', 'M.READ without the write-back'),
  m('M18', 'maxreg-n3', 'MR-S1', 'App. A [update-cache-w]', 'the cache is updated when a write is issued, not on its ack'),
  m('M19', 'maxreg-n3', 'MR-WR', 'App. A [cache-max] (f.324)', 'M.READ returns the max of the cache as it was at invocation'),
  // Not in the extraction's catalogue: written without sight of it (issue 22), it survives
  // every config that delivers a response in the step of its request.
  m('RESP-OVERWRITE', 'maxreg-n3-rr-split', 'MR-WR', 'App. A [update-cache-r], Lemma A.1 (f.338, f.342)', 'a read response overwrites cache[i] instead of raising it to the max: a late, older response lowers the bound'),
  m('M20', 'ino-2w', 'INO-NoGarbage', '§4 I4 (f.84)', 'the out-of-place buffer write is not FIFO-ordered before the meta MAX'),
  m('M21', 'ino-2w', 'MR-WR', '§4 I13 (f.80)', 'the in-place hash covers the data only, not meta'),
  m('M22', 'ino-2w', 'MR-WR', '§4 I6, X1-X7 (f.87-88)', 'MAX replaced by a plain write of meta'),
  m('M23', 'ino-reuse', 'INO-NoGarbage', '§4 recycling (f.90-91)', 'out-of-place buffers reused without the recycling handshake'),
  c('N1', 'sg-n1-stale', '§3.2 W11', 'W11 writes a GUESSED tuple instead of VERIFIED'),
  c('N2', 'sg-n1-stale', '§3.2 W7', 'fast path if m ≤ (w.ts, VERIFIED, v) (the artifact\'s test)'),
  // The extraction lists N3 as a control ("only slower"); the checker shows that it keeps
  // safety but breaks the 2P+1 bound of Lemma C.5, i.e. bounded wait-freedom, a liveness
  // property (README, "Findings").
  live('N3', 'sg-n1-stale', 'SG-WF-R', '§3.2 W7, Lemma C.5 (f.518-530)', 'fast path only if m < w (strict): safe, but a READ can spin while the writer\'s rewrite is pending'),
  c('N4', 'sg-n1', '§3.2 W6', 'W6 done sequentially: write, then read'),
  c('N5', 'maxreg-n3', 'App. A [cache-max]', 'M.READ returns the max of its own responses (with write-back), as classic ABD'),
  c('N6', 'lock-n3', 'App. B T10-T11', 'T10/T11 inspect only the objects whose loops finished'),
  c('N7', 'sg-n1-same-writer', '§3.1 Assumption 1', 'guessTs monotone among guesses only (may fall below an earlier W11 timestamp)'),
  c('N8', 'sg-n1-stale', '§3.2 W10', 'the writer also background-verifies when W10 returns False'),
];
