// hashValue remembers the hashes of short strings for the rest of the process (hash.ts).
// A file of its own: its module state must be fresh here, not filled by other tests.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { hashValue } from './hash.ts';

describe('hashValue keeps no long string alive', () => {
  it('remembers a short slice of a long string without keeping the long one', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    const hashes = new Set<number>();
    // 64 slices, each of its own 1 MB string: kept whole, 64 MB would stay on the heap.
    for (let k = 0; k < 64; k++) {
      const long = `${k}:`.padEnd(1 << 20, 'abcdefghij');
      hashes.add(hashValue(long.slice(0, 20)));
    }
    gc();
    const keptMB = (process.memoryUsage().heapUsed - before) / 2 ** 20;
    expect(hashes.size).toBe(64);
    expect(keptMB).toBeLessThan(16);
  });
});
