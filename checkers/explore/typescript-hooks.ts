// Module hooks (node:module register) that load TypeScript with esbuild's transform: types
// stripped file by file, each module kept at its own URL (so import.meta and relative
// imports mean what they say). No type checking, no tsconfig `paths`; `import './x.js'`
// finds ./x.ts, as TypeScript's own convention has it. load.ts registers them when the
// package's JavaScript (not a TypeScript loader such as tsx) imports a user's .ts module.

import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

interface Context {
  conditions?: readonly string[];
  parentURL?: string;
  format?: string | null;
}
type Next<C, R> = (specifier: string, context: C) => Promise<R>;
interface Resolved {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}
interface Loaded {
  format: string | null | undefined;
  source?: string | ArrayBuffer | Uint8Array | null;
  shortCircuit?: boolean;
}

/** .ts and .mts, as ES modules (a .cts file is left to Node). */
const TYPESCRIPT = /\.m?ts$/;

export async function resolve(specifier: string, context: Context, next: Next<Context, Resolved>): Promise<Resolved> {
  try {
    return await next(specifier, context);
  } catch (e) {
    const relative = /^\.{1,2}\//.test(specifier) && context.parentURL !== undefined && TYPESCRIPT.test(context.parentURL);
    if (!relative || (e as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND' || !/\.[cm]?js$/.test(specifier)) throw e;
    return next(specifier.replace(/js$/, 'ts'), context);
  }
}

export async function load(url: string, context: Context, next: Next<Context, Loaded>): Promise<Loaded> {
  if (!url.startsWith('file:') || !TYPESCRIPT.test(url.split(/[?#]/, 1)[0]) || /\.d\.m?ts$/.test(url)) return next(url, context);
  const file = fileURLToPath(url);
  const source = await readFile(file, 'utf8');
  const out = await transform(source, { loader: 'ts', format: 'esm', target: 'node20', sourcefile: file, sourcemap: 'inline' });
  return { format: 'module', source: out.code, shortCircuit: true };
}
