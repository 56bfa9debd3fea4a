// States per CPU second of the shadowfax spec's default configs, this checkout against
// another checkout of it (the one before the move onto specs/kit), explored as
// `interleave check` does (breadth-first, linearizability monitor, livelock search):
//   npx tsx specs/shadowfax/bench.ts <other checkout's specs/shadowfax/index.ts> [repeat] [--only NAME,...] [--detail]
// --detail also prints the CPU seconds per side and the load average.

import type { SpecDef } from '../../checkers/explore/types.ts';
import { compareRates } from '../kit/bench.ts';
import { spec } from './index.ts';

const other = process.argv[2];
if (!other) {
  console.error('usage: npx tsx specs/shadowfax/bench.ts <other specs/shadowfax/index.ts> [repeat]');
  process.exit(64);
}
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? process.argv[onlyAt + 1].split(',') : undefined;
const repeat = /^\d+$/.test(process.argv[3] ?? '') ? Number(process.argv[3]) : 3;
compareRates(spec, (await import(other)).spec as SpecDef, repeat, {}, console.log, only, process.argv.includes('--detail'));
