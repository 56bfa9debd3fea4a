// `interleave check` sets the V8 flags of v8-flags.ts before its module loads; the other
// commands do not (their figures were measured without them).
import { beforeEach, describe, expect, it, vi } from 'vitest';

const setFlagsFromString = vi.fn();
vi.mock('node:v8', async (importOriginal) => ({ ...(await importOriginal<typeof import('node:v8')>()), setFlagsFromString }));

const { buildProgram } = await import('./program.ts');
const { CHECK_V8_FLAGS } = await import('./v8-flags.ts');

describe('V8 flags for `interleave check` (cli/v8-flags.ts)', () => {
  beforeEach(() => setFlagsFromString.mockClear());

  it('`interleave check` sets them', async () => {
    await buildProgram(['node', 'interleave', 'check', 'fusee']);
    expect(CHECK_V8_FLAGS.length).toBeGreaterThan(0);
    expect(setFlagsFromString.mock.calls.map((c) => c[0])).toEqual(CHECK_V8_FLAGS);
  });

  it.each(['explore', 'lin', 'list', 'validate'])('`interleave %s` does not', async (command) => {
    await buildProgram(['node', 'interleave', command]);
    expect(setFlagsFromString).not.toHaveBeenCalled();
  });

  it.each([[undefined], [['node', 'interleave', '--help']], [['node', 'interleave']], [['node', 'interleave', 'help', 'check']]])(
    'a program with every command (argv %j) does not',
    async (argv) => {
      await buildProgram(argv);
      expect(setFlagsFromString).not.toHaveBeenCalled();
    },
  );
});
