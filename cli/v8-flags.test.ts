// The explorer's commands set the V8 flags of v8-flags.ts before their module loads; the
// linearizability checker's command does not (its own figures were measured without them).
import { beforeEach, describe, expect, it, vi } from 'vitest';

const setFlagsFromString = vi.fn();
vi.mock('node:v8', async (importOriginal) => ({ ...(await importOriginal<typeof import('node:v8')>()), setFlagsFromString }));

const { buildProgram } = await import('./program.ts');
const { EXPLORE_V8_FLAGS } = await import('./v8-flags.ts');

describe('V8 flags for the explorer (cli/v8-flags.ts)', () => {
  beforeEach(() => setFlagsFromString.mockClear());

  it.each(['check', 'explore'])('`interleave %s` sets them', async (command) => {
    await buildProgram(['node', 'interleave', command, 'fusee']);
    expect(EXPLORE_V8_FLAGS.length).toBeGreaterThan(0);
    expect(setFlagsFromString.mock.calls.map((c) => c[0])).toEqual(EXPLORE_V8_FLAGS);
  });

  it.each(['lin', 'list', 'validate'])('`interleave %s` does not', async (command) => {
    await buildProgram(['node', 'interleave', command]);
    expect(setFlagsFromString).not.toHaveBeenCalled();
  });
});
