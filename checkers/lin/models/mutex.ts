// Knossos's mutex: acquire succeeds only when free, release only when held.

import { ILLEGAL, stepFrom, UNKNOWN, type Illegal, type Model } from '../types.ts';
import { show } from '../hash.ts';

export interface MutexInput {
  f: 'acquire' | 'release';
}

function next(locked: boolean, input: MutexInput): boolean | Illegal {
  if (input.f === 'acquire') return locked ? ILLEGAL : true;
  if (input.f === 'release') return locked ? false : ILLEGAL;
  throw new Error(`mutex: unknown operation ${show((input as { f: unknown }).f)}`);
}

export const mutex: Model<boolean, MutexInput, unknown> = {
  name: 'mutex',
  noKeys: true,
  init: () => false,
  step: stepFrom(next),
  next,
  hash: (locked) => (locked ? 1 : 2),
  equal: (a, b) => a === b,
  describeOperation: (input, output) => `${input.f}()${output === UNKNOWN ? ' -> ?' : ''}`,
  describeState: (locked) => (locked ? 'held' : 'free'),
};
