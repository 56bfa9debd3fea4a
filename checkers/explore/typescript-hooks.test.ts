// The module hooks as the installed package runs them: compiled to JavaScript and registered
// in a plain Node process (no tsx, no vitest loader), which then imports a user's .ts module.
// Under vitest or tsx their own resolvers would answer first and hide what the hooks do.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'interleave-ts-hooks-'));

function files(tree: Record<string, string>): void {
  for (const [name, text] of Object.entries(tree)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

/** Imports `module` (a path in `dir`) in a fresh Node with the hooks registered; its default export's JSON, or the error. */
function importInNode(module: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const main = `import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});
const m = await import(${JSON.stringify(pathToFileURL(join(dir, module)).href)});
process.stdout.write(JSON.stringify(m.default));`;
  return new Promise((done) => {
    execFile(process.execPath, ['--input-type=module', '-e', main], { cwd: dir, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) =>
      done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  // The hooks import esbuild, found as the installed package finds it: in node_modules.
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(import.meta.dirname, '..', '..', 'node_modules', 'esbuild'), join(dir, 'node_modules', 'esbuild'), 'dir');
  await build({ entryPoints: [join(import.meta.dirname, 'typescript-hooks.ts')], outfile: join(dir, 'hooks.mjs'), bundle: false, format: 'esm', platform: 'node', logLevel: 'silent' });
  files({
    'proj/h.ts': `export const helper = (n: number): number => n + 1;\n`,
    'proj/x.tsx': `export const tsx: string = 'tsx';\n`,
    'proj/m.mts': `export const mts: string = 'mts';\n`,
    'proj/plain.js': `export const js = 'js';\n`,
    'proj/named.ts': `export const named: string = 'named';\n`,
    'proj/view.tsx': `export const view: string = 'view';\n`,
    'proj/lib/index.ts': `import { helper } from '../h';\nexport const lib: number = helper(1);\n`,
    'proj/s.ts': [
      `import { helper } from './h';`,
      `import { tsx } from './x';`,
      `import { mts } from './m';`,
      `import { js } from './plain';`,
      `import { named } from './named.js';`,
      `import { view } from './view.js';`,
      `import { lib } from './lib';`,
      `import { lib as again } from './lib/';`,
      `const out: unknown[] = [helper(41), tsx, mts, js, named, view, lib, again];`,
      `export default out;`,
    ].join('\n'),
    'proj/missing.ts': `import { nothing } from './nothing';\nexport default nothing;\n`,
    // A JavaScript module is Node's: its extensionless import stays an error, as Node has it.
    'proj/from-js.mjs': `import { helper } from './h';\nexport default helper(1);\n`,
  });
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('typescript-hooks, compiled and registered in plain Node', () => {
  it('resolves a .ts module\'s relative imports as TypeScript does: extensionless, `.js` for `.ts`, a directory\'s index', async () => {
    const r = await importInNode('proj/s.ts');
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([42, 'tsx', 'mts', 'js', 'named', 'view', 2, 2]);
  });

  it('still fails, naming the module, when no candidate exists', async () => {
    const r = await importInNode('proj/missing.ts');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/ERR_MODULE_NOT_FOUND/);
    expect(r.stderr).toContain(join(dir, 'proj', 'nothing'));
  });

  it('leaves a JavaScript module\'s imports to Node', async () => {
    const r = await importInNode('proj/from-js.mjs');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/ERR_MODULE_NOT_FOUND/);
  });
});
