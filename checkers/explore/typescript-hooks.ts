// Module hooks (node:module register) that load TypeScript with esbuild's transform: types
// stripped file by file, each module kept at its own URL (so import.meta and relative
// imports mean what they say). No type checking, no tsconfig `paths`. A relative import
// from a TypeScript module that Node cannot find is looked up as TypeScript users expect
// (moduleResolution bundler/node10): `./x.js` finds ./x.ts, `./x` finds ./x.ts, ./x.tsx,
// ./x.mts or ./x.js, and `./dir` finds ./dir/index.ts (or .tsx, .js). load.ts registers
// them when the package's JavaScript (not a TypeScript loader such as tsx) imports a
// user's .ts module.

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

/** .ts, .mts and .tsx, as ES modules (a .cts file is left to Node). */
const TYPESCRIPT = /\.(m?ts|tsx)$/;

/** What a relative specifier may stand for, in the order TypeScript's resolution tries them. */
function candidates(specifier: string): string[] {
  const js = /\.([cm]?)js(x?)$/.exec(specifier);
  // `./x.js` names the .ts (or .tsx) file it is compiled from; `./x.mjs` an .mts, `./x.jsx` a .tsx.
  if (js !== null) {
    const base = specifier.slice(0, js.index);
    return js[1] === '' && js[2] === '' ? [`${base}.ts`, `${base}.tsx`] : [`${base}.${js[1]}ts${js[2]}`];
  }
  const dir = specifier.replace(/\/+$/, '');
  const index = ['/index.ts', '/index.tsx', '/index.js'].map((x) => dir + x);
  // `./`, `.` and `..` name a directory; a specifier with an extension Node knows
  // (`./data.json`, `./x.ts`) was looked up as it is and may only be a directory.
  if (dir !== specifier || /(^|\/)\.\.?$/.test(dir) || /\.(json|node|wasm|[cm]?tsx?)$/.test(dir)) return index;
  return [...['.ts', '.tsx', '.mts', '.js', '.mjs'].map((x) => dir + x), ...index];
}

export async function resolve(specifier: string, context: Context, next: Next<Context, Resolved>): Promise<Resolved> {
  try {
    return await next(specifier, context);
  } catch (e) {
    const relative = /^\.{1,2}(\/|$)/.test(specifier) && context.parentURL !== undefined && TYPESCRIPT.test(context.parentURL.split(/[?#]/, 1)[0]);
    const code = (e as { code?: string }).code;
    // Node refuses a directory (ERR_UNSUPPORTED_DIR_IMPORT) and an extensionless file it cannot find.
    if (!relative || (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'ERR_UNSUPPORTED_DIR_IMPORT')) throw e;
    for (const candidate of candidates(specifier)) {
      try {
        return await next(candidate, context);
      } catch (again) {
        const c = (again as { code?: string }).code;
        if (c !== 'ERR_MODULE_NOT_FOUND' && c !== 'ERR_UNSUPPORTED_DIR_IMPORT') throw again;
      }
    }
    // None found: Node's own message, which names what the import asked for.
    throw e;
  }
}

export async function load(url: string, context: Context, next: Next<Context, Loaded>): Promise<Loaded> {
  if (!url.startsWith('file:') || !TYPESCRIPT.test(url.split(/[?#]/, 1)[0]) || /\.d\.m?ts$/.test(url)) return next(url, context);
  const file = fileURLToPath(url);
  const source = await readFile(file, 'utf8');
  const out = await transform(source, { loader: file.endsWith('.tsx') ? 'tsx' : 'ts', format: 'esm', target: 'node20', sourcefile: file, sourcemap: 'inline' });
  return { format: 'module', source: out.code, shortCircuit: true };
}
