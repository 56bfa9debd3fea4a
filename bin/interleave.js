#!/usr/bin/env node
// The `interleave` command. Installed, the package runs its JavaScript (dist/, built by
// `npm pack`); in a source checkout (cli/main.ts beside this folder) the TypeScript runs
// through tsx, a devDependency.
import { existsSync } from 'node:fs';

const source = new URL('../cli/main.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/cli/main.js');
}
