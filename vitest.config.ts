import { relative } from 'node:path';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The longest files, longest first (a quiet 2-core run, 2026-11-25): with two workers the suite ends
// when its last file does, so these must not start last. Without this list a fresh
// checkout (no vitest cache) orders files by size, and cli/run.test.ts, short but mostly
// 10 s runs on real processes, would start near the end.
const LONGEST = [
  'cli/run.test.ts',
  'package/consumer.test.ts',
  'cli/lin-snapshot.test.ts',
  'cli/exit-paths.test.ts',
  'cli/distributed.test.ts',
  'specs/swarm/swarm.test.ts',
  'specs/minos/synch-words.test.ts',
  'checkers/lin/memory.test.ts',
  'checkers/report/lin-html.test.ts',
  'cli/lin.test.ts',
  'cli/explore.test.ts',
  'impl/minos/runs.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST.indexOf(relative(f.project.config.root, f.moduleId));
      return i < 0 ? LONGEST.length : i;
    };
    return (await super.sort(files)).map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({ f }) => f);
  }
}

export default defineConfig({
  // `import 'interleave/...'` (README examples, testing/examples) resolves to the sources in
  // this repository: package.json's exports name them under this condition.
  ssr: { resolve: { conditions: ['interleave-source', ...defaultServerConditions] } },
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    setupFiles: ['vitest.setup.ts'],
    // Two files at a time on the 2-core CI machine (vitest's default is one fewer worker
    // than cores): much of the suite waits on real processes, real time and Chromium.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
  },
});
