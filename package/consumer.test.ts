// The package as a consumer gets it: `npm pack` (which builds dist/ through prepack), the
// tarball installed into a scratch project with `npm ci --offline` (a lock file written
// from this repository's, so the packages come from npm's cache), then used from plain
// Node ESM, from strict TypeScript (skipLibCheck off, NodeNext and bundler resolution),
// through the installed `interleave` command (no tsx: it is not a runtime dependency) on a
// spec written by `interleave init` (every command, and `run` on real processes), and
// through vitest: the init spec's own test, the matcher and the fast-check bridge.
// About a minute of CPU (the build and two strict tsc runs are most of it).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandJsonSchemas } from '../cli/json.ts';
import { readmeBlocks } from './readme-blocks.ts';

const ROOT = join(import.meta.dirname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'interleave-consumer-'));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], cwd = scratch, timeoutMs = 300_000): Promise<Ran> {
  return new Promise((done) => {
    execFile(file, args, { cwd, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 1 << 26, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

const interleave = (...args: string[]) => run(join(scratch, 'node_modules', '.bin', 'interleave'), args);

function ok(r: Ran): Ran {
  if (r.code !== 0) throw new Error(`exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** The scratch project's lock: the tarball, and its dependencies at the versions this repository locks. */
function writeProject(tarball: string): void {
  const repo = (JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; version: string }> }).packages;
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string; dependencies: Record<string, string>; bin: Record<string, string>; engines: Record<string, string> };
  const packages: Record<string, unknown> = {};
  // Node's lookup: the nearest node_modules folder, from the dependent's own outwards, that holds the name.
  const resolve = (from: string, name: string): string => {
    for (let dir = from; dir !== ''; dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : '') {
      if (repo[`${dir}/node_modules/${name}`]) return `${dir}/node_modules/${name}`;
    }
    return `node_modules/${name}`;
  };
  const add = (key: string) => {
    if (packages[key]) return;
    const entry = repo[key];
    if (!entry) throw new Error(`${key} is not in package-lock.json`);
    packages[key] = entry;
    for (const d of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) add(resolve(key, d));
  };
  for (const d of Object.keys(pkg.dependencies)) add(`node_modules/${d}`);
  add('node_modules/@types/node');
  const integrity = `sha512-${createHash('sha512').update(readFileSync(join(scratch, tarball))).digest('base64')}`;
  packages['node_modules/interleave'] = { version: pkg.version, resolved: `file:${tarball}`, integrity, license: pkg.license, dependencies: pkg.dependencies, bin: pkg.bin, engines: pkg.engines };
  const dependencies = { interleave: `file:${tarball}`, '@types/node': repo['node_modules/@types/node']!.version };
  packages[''] = { name: 'consumer', dependencies };
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies }, null, 2));
  writeFileSync(join(scratch, 'package-lock.json'), JSON.stringify({ name: 'consumer', lockfileVersion: 3, requires: true, packages }, null, 2));
}

let files: string[] = [];

beforeAll(async () => {
  const packed = ok(await run('npm', ['pack', '--json', '--pack-destination', scratch], ROOT));
  const [{ filename, files: listed }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  files = listed.map((f) => f.path);
  writeProject(filename);
  let installed = await run('npm', ['ci', '--offline', '--no-audit', '--no-fund']);
  // A cache without some package (a fresh CI runner): the registry, asked only for what is missing.
  if (installed.code !== 0) installed = await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund']);
  ok(installed);
  cpSync(join(import.meta.dirname, 'consumer'), scratch, { recursive: true });
  // The READMEs' TypeScript examples, type-checked as a consumer's code (the vitest one needs vitest's types).
  readmeBlocks()
    .filter((b) => b.lang === 'ts' && !/from 'vitest'/.test(b.text))
    .forEach((b, i) => writeFileSync(join(scratch, `readme-${i}.ts`), `// ${b.file}:${b.line}\n${b.text}\nexport {};\n`));
}, 600_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the packed package', () => {
  it('ships JavaScript, declarations and docs, and no tests, fixtures or TypeScript sources', () => {
    expect(files).toContain('dist/cli/main.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('dist/checkers/explore/worker.js');
    expect(files).toContain('dist/checkers/explore/typescript-hooks.js');
    expect(files).toContain('dist/checkers/lin/worker.js');
    expect(files).toContain('traces/bundled/manifest.tsv');
    expect(files).toContain('bin/interleave.js');
    expect(files.filter((f) => /\.test\.|fixtures\/|in-process|browser|testdata-loader|brute-force|consumer/.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(scratch, 'node_modules', 'interleave', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['bullmq', 'commander', 'esbuild', 'ioredis', 'zod']);
    expect(existsSync(join(scratch, 'node_modules', 'tsx'))).toBe(false);
  }, 300_000);

  it('works from plain Node ESM: every entry point, a spec explored on threads, histories checked', async () => {
    expect(ok(await run(process.execPath, ['esm.mjs'])).stdout).toBe('esm consumer: ok\n');
  }, 300_000);

  it('runs the installed command without tsx, on a spec that `interleave init` wrote', async () => {
    expect(ok(await interleave('--version')).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(ok(await interleave('init', 'my-proto')).stdout).toMatch(/wrote my-proto\.ts\nwrote my-proto\.test\.ts/);
    expect((await interleave('init', 'my-proto')).code).toBe(73);
    const explored = await interleave('explore', './my-proto.ts', '--config', 'P3', '--workers', '2', '--symmetry', '--json');
    const envelope = CommandJsonSchemas.explore.parse(JSON.parse(ok(explored).stdout));
    expect(envelope.result.runs[0].result).toMatchObject({ status: 'holds', workers: 2 });
    const mutant = await interleave('explore', './my-proto.ts', '--mutant', 'blind-write', '--itf', 'cx/', '--html', 'cx.html');
    expect(mutant.code).toBe(1);
    expect(readdirSync(join(scratch, 'cx'))).toEqual(['my-proto.P2.blind-write.allCounted.itf.json']);
    expect(readFileSync(join(scratch, 'cx.html'), 'utf8')).toMatch(/allCounted/);
    const path = /--replay "([^"]+)"/.exec(mutant.stdout)![1]!;
    const replayed = await interleave('explore', './my-proto.ts', '--mutant', 'blind-write', '--replay', path);
    expect(replayed.code).toBe(1);
    expect(replayed.stdout).toMatch(/allCounted violated: counter = 1 after 2 increments/);
    expect((await interleave('explore', './my-proto.ts', '--replay', path)).code).toBe(2); // one path that violates nothing is no verdict
    const mutants = CommandJsonSchemas.mutants.parse(JSON.parse(ok(await interleave('mutants', './my-proto.ts', '--json')).stdout));
    expect(mutants.result.rows).toMatchObject([{ name: 'blind-write', outcome: 'killed', property: 'allCounted' }]);
    // --workers 2: the pool's worker module is loaded by URL, so only a run of the installed
    // command finds one missing from the package (it was, until the build listed it).
    const checked = CommandJsonSchemas.check.parse(JSON.parse(ok(await interleave('check', './my-proto.ts', '--full', '--workers', '2', '--junit', 'check.xml', '--json')).stdout));
    expect(checked.result).toMatchObject({ ok: true, traces: [] });
    expect(checked.result.configs.map((c) => [c.config, c.status])).toEqual([['P2', 'holds'], ['P3', 'holds']]);
    expect(readFileSync(join(scratch, 'check.xml'), 'utf8')).toMatch(/<testcase classname="my-proto" name="config P3"/);
    const listed = CommandJsonSchemas.list.parse(JSON.parse(ok(await interleave('list', './my-proto.ts', '--json')).stdout));
    expect(listed.result.specs[0]).toMatchObject({ name: 'my-proto', module: './my-proto.ts' });
    // A TypeScript spec whose relative imports leave out the extension, or name a directory,
    // as TypeScript users write them (typescript-hooks.ts; tsx resolves them in a checkout).
    mkdirSync(join(scratch, 'tsd', 'lib'), { recursive: true });
    writeFileSync(join(scratch, 'tsd', 'h.ts'), `export const bounded = (n: number) => ({
  init: () => [{ x: 0 }],
  actions: (s: { x: number }) => (s.x < n ? [{ label: 'inc' }] : []),
  next: (s: { x: number }) => ({ x: s.x + 1 }),
  invariants: { small: (s: { x: number }): true | string => s.x <= 1 || \`x = \${s.x}\` },
});\n`);
    writeFileSync(join(scratch, 'tsd', 'lib', 'index.ts'), "export { bounded } from '../h';\n");
    writeFileSync(join(scratch, 'tsd', 's.ts'), "import { bounded } from './lib';\nexport default () => bounded(3);\n");
    const extensionless = await interleave('explore', './tsd/s.ts');
    expect([extensionless.code, extensionless.stderr]).toEqual([1, '']);
    expect(extensionless.stdout).toMatch(/small violated: x = 2/);
    const bundled = await interleave('lin', join(scratch, 'node_modules', 'interleave', 'traces', 'bundled', 'register-stale-read.jsonl'), '--model', 'register', '--workers', '2');
    expect(bundled.code).toBe(1);
    expect((await interleave('explore', 'fusee', '--config', 'A0', '--max-states', '100')).code).toBe(2);
    // interleave run: the implementation's processes are bundled from the package's JavaScript.
    const ran = await interleave('run', 'fusee', '--duration', '1', '--drain', '1', '--clients', '2', '--keys', '2', '--out', 'run', '--json');
    expect(CommandJsonSchemas.run.parse(JSON.parse(ok(ran).stdout)).result).toMatchObject({ implementation: 'fusee', verdict: 'linearizable' });
  }, 300_000);

  it('type-checks under strict TypeScript with skipLibCheck off, NodeNext and bundler resolution', async () => {
    ok(await run(process.execPath, [TSC, '-p', 'tsconfig.json']));
    ok(await run(process.execPath, [TSC, '-p', 'tsconfig.bundler.json']));
  }, 300_000);

  it("runs the init spec's own vitest test, the matcher and the fast-check bridge against the installed package", async () => {
    // vitest and fast-check are this repository's (a consumer has its own: they are optional
    // peer dependencies); the tests import interleave from the scratch project.
    for (const name of ['vitest', 'fast-check', 'pure-rand']) symlinkSync(join(ROOT, 'node_modules', name), join(scratch, 'node_modules', name));
    const r = ok(await run(process.execPath, [join(scratch, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'my-proto.test.ts', 'history.test.mjs']));
    expect(r.stdout).toMatch(/Tests +4 passed/);
  }, 300_000);
});
