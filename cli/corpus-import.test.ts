// The importers read every file of the Porcupine corpus into the same operations as the
// engine's own trusting corpus reader (checkers/lin/testdata-loader.ts), whose verdicts the
// engine's tests check against the manifest. So `interleave lin` sees the same histories.
import { describe, expect, it } from 'vitest';
import { models } from '../checkers/lin/index.ts';
import { CORPUS, loadCorpusFile, manifest } from '../checkers/lin/testdata-loader.ts';
import type { Operation } from '../checkers/lin/types.ts';
import { importHistoryFile, type Format } from '../traces/index.ts';

/** Without origins, times counted from the first call (both readers count records). */
const normal = (ops: readonly Operation[]) => {
  const zero = ops[0]?.call ?? 0;
  return ops.map(({ client, input, call, ret, output }) => ({ client, input, call: call - zero, ret: ret === undefined ? undefined : ret - zero, output }));
};

describe('the Porcupine corpus through the importers', () => {
  it('every file gives the operations the engine tests check', async () => {
    const entries = manifest();
    expect(entries.length).toBeGreaterThan(100);
    for (const entry of entries) {
      const model = models[entry.model]!;
      const h = await importHistoryFile(new URL(entry.path, CORPUS).pathname, { model, format: 'auto' });
      expect(h.format, entry.path).toBe(entry.format as Format);
      expect(normal(h.operations), entry.path).toEqual(normal(loadCorpusFile(entry, model)));
    }
  });
});
