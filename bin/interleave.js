#!/usr/bin/env node
// The `interleave` command. Installed, the package runs its JavaScript (dist/, built by
// `npm pack`); in a source checkout (cli/main.ts beside this folder) the TypeScript runs
// through tsx, a devDependency. `interleave lin` starts from its startup snapshot when one
// was built for this node and these sources (lin-snapshot.js), and as the others otherwise.
import { existsSync } from 'node:fs';
import { linFromSnapshot } from './lin-snapshot.js';

const code = await linFromSnapshot(process.argv);
const source = new URL('../cli/main.ts', import.meta.url);
if (code !== undefined) {
  process.exitCode = code;
} else if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/cli/main.js');
}
