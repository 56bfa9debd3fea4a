// Knossos's mutex: acquire succeeds only when free, release only when held.

import { UNKNOWN, type Model } from '../types.ts';
import { show } from '../hash.ts';

export interface MutexInput {
  f: 'acquire' | 'release';
}

export const mutex: Model<boolean, MutexInput, unknown> = {
  name: 'mutex',
  init: () => false,
  step(locked, input) {
    if (input.f === 'acquire') return { ok: !locked, state: true };
    if (input.f === 'release') return { ok: locked, state: false };
    throw new Error(`mutex: unknown operation ${show((input as { f: unknown }).f)}`);
  },
  hash: (locked) => (locked ? 1 : 2),
  equal: (a, b) => a === b,
  describeOperation: (input, output) => `${input.f}()${output === UNKNOWN ? ' -> ?' : ''}`,
  describeState: (locked) => (locked ? 'held' : 'free'),
};
