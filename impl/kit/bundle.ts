// Child processes run plain JavaScript bundles of their TypeScript entry points (esbuild),
// built once per harness process into a temporary directory: a bundled child starts in
// tens of milliseconds and runs without tsx's loader thread, which matters with a dozen
// processes on two cores.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import * as esbuild from 'esbuild';

const built = new Map<string, Promise<string>>();
let dir: string | undefined;

function outDir(): string {
  if (dir === undefined) {
    dir = mkdtempSync(join(tmpdir(), 'interleave-impl-'));
    const d = dir;
    process.on('exit', () => rmSync(d, { recursive: true, force: true }));
  }
  return dir;
}

/** The path of a runnable bundle of `entry` (an absolute path to a .ts file). */
export function bundle(entry: string): Promise<string> {
  let p = built.get(entry);
  if (p === undefined) {
    const out = join(outDir(), `${basename(entry, '.ts')}-${built.size}.mjs`);
    p = esbuild
      .build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'node', target: 'node20', outfile: out, logLevel: 'silent', sourcemap: 'inline', banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" } })
      .then(() => out);
    built.set(entry, p);
  }
  return p;
}
