// Where the package is: its root holds package.json (the version) and traces/bundled/,
// whether this file runs as cli/package-root.ts from the sources or from dist/cli/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'interleave') return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json of interleave above ${from}`);
  }
}

export const PACKAGE_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

export const VERSION: string = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
