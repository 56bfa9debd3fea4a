// SWARM (SOSP'24): Safe-Guess replication with timestamp locks, the reliable max register
// and In-n-Out, as one spec whose configs select the layer (see README.md).

import type { BuildOptions, Machine, SpecDef } from '../../checkers/explore/types.ts';
import { configs, type Config } from './configs.ts';
import { buildIno, INO_INTERNAL } from './ino.ts';
import { buildLock, LOCK_INTERNAL, lockLayerOnly } from './lock.ts';
import { buildMachine } from './machine.ts';
import { buildMreg, MREG_INTERNAL, maxregLayerOnly } from './mreg.ts';
import { buildSg, SG_INTERNAL, sgLayerOnly } from './sg.ts';
import { mutants } from './mutants.ts';

export const spec: SpecDef<Config> = {
  name: 'swarm',
  title: 'SWARM: Safe-Guess, timestamp locks, reliable max registers and In-n-Out',
  paper: 'SWARM (SOSP \'24), §3-4 and Appendices A-C; listings rebuilt in ../shared/protocols/swarm-safeguess.md',
  configs,
  mutants,
  // `{ layout: false }` (the distributed search) skips the word-layout builds for
  // machine.ts's, their reference; In-n-Out has no other machine than its layout one.
  build(config: Config, variant?: string, options?: BuildOptions): Machine {
    if (config.layer === 'ino') {
      const { layer: _, ...c } = config;
      return Object.assign(buildIno(c, variant), { internal: INO_INTERNAL });
    }
    const { layer: _, ...c } = config;
    const words = options?.layout !== false;
    // the lock-* and maxreg-* configs on words (lock.ts, mreg.ts), the same machines as buildMachine's for them;
    if (words && lockLayerOnly(c)) return Object.assign(buildLock(c, variant), { internal: LOCK_INTERNAL });
    if (words && maxregLayerOnly(c)) return Object.assign(buildMreg(c, variant), { internal: MREG_INTERNAL });
    // the Safe-Guess configs within the words' bounds on words too (sg.ts)
    if (words && sgLayerOnly(c, variant)) return Object.assign(buildSg(c, variant), { internal: SG_INTERNAL });
    return Object.assign(buildMachine(c, variant), { internal: ['g', 'viol'] });
  },
};
