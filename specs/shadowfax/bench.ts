// States per CPU second of the shadowfax spec's default configs, this checkout against
// another checkout of it (the one before the move onto specs/kit), explored as
// `interleave check` does (breadth-first, linearizability monitor, livelock search):
//   npx tsx specs/shadowfax/bench.ts <other checkout's specs/shadowfax/index.ts> [repeat]

import type { SpecDef } from '../../checkers/explore/types.ts';
import { compareRates } from '../kit/bench.ts';
import { spec } from './index.ts';

const other = process.argv[2];
if (!other) {
  console.error('usage: npx tsx specs/shadowfax/bench.ts <other specs/shadowfax/index.ts> [repeat]');
  process.exit(64);
}
compareRates(spec, (await import(other)).spec as SpecDef, Number(process.argv[3] ?? 3));
