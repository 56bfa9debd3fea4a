import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

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
  },
});
