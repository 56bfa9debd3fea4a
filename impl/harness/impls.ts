// The implementations `interleave run` knows, by name. Adding one: a folder under impl/
// whose module exports an Implementation (types.ts), and one line here.
import { fusee } from '../fusee/cluster.ts';
import { minos } from '../minos/cluster.ts';
import type { Implementation } from './types.ts';

export const implementations: Readonly<Record<string, Implementation>> = Object.assign(Object.create(null) as Record<string, Implementation>, {
  fusee,
  minos,
});
