// A spec of the user's own, in a directory outside the repository, through every command
// (explore with --json, --html, --itf, --replay; mutants; check with --junit; list), and
// every error a user's module can give: each names the file and what was expected, with
// an exit code of its own (64 usage, 65 the module, 73 an output).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, spawnCli, STACK_LINE } from './in-process.ts';
import { CommandJsonSchemas } from './json.ts';

const dir = mkdtempSync(join(tmpdir(), 'interleave-user-spec-'));
const proto = join(dir, 'proto.ts');
const at = (name: string) => join(dir, name);

beforeAll(async () => {
  const r = await runInProcess('init', join(dir, 'proto'));
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`next: npx interleave explore ${proto} `);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A module in the scratch directory. */
function module(name: string, text: string): string {
  writeFileSync(at(name), text);
  return at(name);
}

const MACHINE = `{ init: () => [0], actions: (s) => (s < 2 ? [{ label: 'inc' }] : []), next: (s) => s + 1, invariants: { small: (s) => s <= 2 } }`;

describe('a spec outside the repository, through every command', () => {
  it('explore --json, --html, --itf, then --replay of the printed path', async () => {
    const holds = CommandJsonSchemas.explore.parse(JSON.parse((await runInProcess('explore', proto, '--json')).stdout));
    expect(holds).toMatchObject({ command: 'explore', exitCode: 0, result: { spec: 'proto', module: proto, variant: null } });
    expect(holds.result.runs.map((r) => [r.config, r.result.status])).toEqual([['P2', 'holds']]);

    const cx = await runInProcess('explore', proto, '--mutant', 'blind-write', '--html', at('cx.html'), '--itf', `${at('itf')}/`);
    expect(cx.code).toBe(1);
    expect(readFileSync(at('cx.html'), 'utf8')).toMatch(/allCounted/);
    expect(readdirSync(at('itf'))).toEqual(['proto.P2.blind-write.allCounted.itf.json']);
    const path = /--replay "([^"]+)"/.exec(cx.stdout)![1]!;
    expect(path).toBe('read(p0);read(p1);cas(p0);cas(p1)');
    const replayed = await runInProcess('explore', proto, '--mutant', 'blind-write', '--replay', path);
    expect(replayed.code).toBe(1);
    expect(replayed.stdout).toMatch(/allCounted violated: counter = 1 after 2 increments/);
    expect((await runInProcess('explore', proto, '--replay', path)).code).toBe(2);
    // An existing output is not overwritten without --force.
    expect((await runInProcess('explore', proto, '--mutant', 'blind-write', '--html', at('cx.html'))).code).toBe(73);
  });

  it('mutants, check (with JUnit) and list, as JSON', async () => {
    const mutants = CommandJsonSchemas.mutants.parse(JSON.parse((await runInProcess('mutants', proto, '--json', '--junit', at('mutants.xml'))).stdout));
    expect(mutants).toMatchObject({ exitCode: 0, result: { ok: true, rows: [{ spec: 'proto', name: 'blind-write', outcome: 'killed', property: 'allCounted' }] } });
    expect(readFileSync(at('mutants.xml'), 'utf8')).toMatch(/<testcase classname="proto" name="[^"]*blind-write/);
    const check = CommandJsonSchemas.check.parse(JSON.parse((await runInProcess('check', proto, '--full', '--json', '--junit', at('check.xml'))).stdout));
    expect(check).toMatchObject({ exitCode: 0, result: { ok: true, traces: [] } });
    expect(check.result.configs.map((c) => c.config)).toEqual(['P2', 'P3']);
    const xml = readFileSync(at('check.xml'), 'utf8');
    expect(xml).toMatch(/<testcase classname="proto" name="config P2"/);
    expect(xml).toMatch(/<testcase classname="proto" name="config P3"/);
    const list = CommandJsonSchemas.list.parse(JSON.parse((await runInProcess('list', proto, '--json')).stdout));
    expect(list.result.specs).toMatchObject([{ name: 'proto', module: proto, configs: [{ name: 'P2' }, { name: 'P3' }] }]);
  });

  it('resolves a relative path against the working directory, and takes a Machine factory', async () => {
    const cwd = process.cwd();
    module('factory.mjs', `export function counter() { return ${MACHINE}; }\n`);
    process.chdir(dir);
    try {
      const r = await runInProcess('explore', './proto.ts', '--config', 'P2');
      expect(r.code).toBe(0);
      const f = CommandJsonSchemas.explore.parse(JSON.parse((await runInProcess('explore', './factory.mjs', '--json')).stdout));
      expect(f.result).toMatchObject({ spec: 'counter', runs: [{ config: 'default', result: { status: 'holds', states: 3 } }] });
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("a user's module: every error names the file and the expectation", () => {
  async function fails(code: number, pattern: RegExp, ...args: string[]): Promise<void> {
    const r = await runInProcess(...args);
    expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(code);
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr).not.toMatch(STACK_LINE);
  }

  it('cannot be found, read or loaded: 65', async () => {
    await fails(65, /nope\.ts: a spec module \(no such file\)/, 'explore', at('nope.ts'));
    mkdirSync(at('folder.ts'));
    await fails(65, /folder\.ts: a spec module file \(it is not a regular file\)/, 'explore', at('folder.ts'));
    await fails(65, /throws\.mjs: a module that loads; loading it failed: Error: boom at load/, 'explore', module('throws.mjs', "throw new Error('boom at load');\n"));
    await fails(65, /empty\.mjs: a module exporting a SpecDef .*; its exports: answer \(number\)/, 'explore', module('empty.mjs', 'export const answer = 42;\n'));
    await fails(65, /answer\.mjs: answer: a SpecDef or a Machine factory, not number/, 'explore', `${module('answer.mjs', `export const answer = 42;\nexport function m() { return ${MACHINE}; }\n`)}#answer`);
  });

  it('breaks the contract: 65', async () => {
    await fails(65, /notmachine\.mjs: f\(\) to return a Machine \{init, actions, next, invariants\}; missing: init\(\), actions\(\), next\(\), invariants/, 'explore', module('notmachine.mjs', 'export function f() { return {}; }\n'));
    await fails(65, /badspec\.mjs: spec\.configs/, 'explore', module('badspec.mjs', "export const spec = { name: 'b', title: 'b', paper: 'b', configs: 'P2', mutants: [], build: () => ({}) };\n"));
    // A declared symmetry that is not one (permute drops the state) is found on sampled states.
    const broken = readFileSync(proto, 'utf8').replace('return { counter: s.counter, pc, local };', 'return { counter: 0, pc, local };');
    await fails(65, /symmetry group "processes" is not a symmetry of the spec/, 'explore', module('broken.ts', broken), '--symmetry');
    await fails(65, /symmetry group .*: a group is \{name, size \(an integer ≥ 1\), permute\(state, perm\)\}/, 'explore', module('badgroup.ts', readFileSync(proto, 'utf8').replace("symmetry: [{ name: 'processes', size: n, permute }]", "symmetry: [{ name: 'processes', size: 'n', permute }]")), '--symmetry');
  });

  it('a machine whose init() or actions() breaks the contract: 65, naming the file, at any number of workers (review defect 3)', async () => {
    const noInit = module('noinit.mjs', `export function f() { return { ...${MACHINE}, init: () => [] }; }\n`);
    const actNotArray = module('actnotarr.mjs', `export function f() { return { ...${MACHINE}, actions: () => 5 }; }\n`);
    for (const workers of [[], ['--workers', '2']]) {
      await fails(65, /noinit\.mjs: the machine breaks the contract: init\(\) must return a non-empty array of states; it returned an empty array/, 'explore', noInit, ...workers);
      await fails(65, /actnotarr\.mjs: the machine breaks the contract: actions\(state\) must return an array of actions; it returned number 5/, 'explore', actNotArray, ...workers);
    }
  });

  it('a module the spec loads itself with a computed import(): its error names that module, 65, never a stack trace (review defect 20)', async () => {
    mkdirSync(at('parts'), { recursive: true });
    module('parts/good.mjs', `export const machine = ${MACHINE};\n`);
    module('parts/throws.mjs', "throw new Error('part exploded');\n");
    const spec = (name: string, prelude: string, machine: string) =>
      module(name, `${prelude}\nexport const spec = { name: 'p', title: 't', paper: 'p', configs: [{ name: 'A', description: 'a', config: {}, tier: 'default' }], mutants: [], build: () => ${machine} };\n`);
    const part = (which: string) => `'./parts/' + ['${which}'].join('') + '.mjs'`; // a path no bundler can follow
    // awaited while the spec loads: the spec's load fails, and the module that threw is named
    await fails(65, new RegExp(`awaited\\.mjs: a module that loads; loading it failed \\(in ${at('parts/throws.mjs')}:1\\): Error: part exploded`), 'explore', spec('awaited.mjs', `const part = await import(new URL(${part('throws')}, import.meta.url));`, 'part.machine'));
    // not awaited (while the spec loads, or started by next() and failing once the verdict is
    // printed): it escapes every call of interleave's; was "internal error" (70) or a raw
    // stack trace and exit 1, which reads as a violation
    const escaped = [
      [spec('dangling.mjs', `import(new URL(${part('missing')}, import.meta.url)).then(() => {});\nconst good = await import('./parts/good.mjs');`, 'good.machine'), `${at('dangling.mjs')}: .*Cannot find module '${at('parts/missing.mjs')}' imported from ${at('dangling.mjs')}`],
      [spec('later.mjs', `const good = await import('./parts/good.mjs');`, `({ ...good.machine, next: (s) => { import(new URL(${part('throws')}, import.meta.url)); return s + 1; } })`), `${at('parts/throws.mjs')}:1: .*Error: part exploded`],
    ] as const;
    for (const [file, message] of escaped) {
      const r = await spawnCli(['explore', file]);
      expect([file, r.code]).toEqual([file, 65]);
      expect(r.stderr).toMatch(new RegExp(`^interleave: ${message}\n$`));
    }
  });

  it('a search that would check no property: 64, not "holds" (review defect 5)', async () => {
    const none = module('noprops.mjs', `export function f() { return { ...${MACHINE}, invariants: {} }; }\n`);
    await fails(64, /no property to check: the machine declares no invariants, no history/, 'explore', none);
    await fails(64, /no property to check/, 'explore', none, '--simulate', '3');
    // A deadlock check is a property: a machine with mayStop is searched.
    const stops = module('stops.mjs', `export function f() { return { ...${MACHINE}, invariants: {}, mayStop: () => true }; }\n`);
    expect((await runInProcess('explore', stops)).code).toBe(0);
    await fails(64, /no property to check/, 'explore', stops, '--no-deadlock');
  });

  it('check and mutants alike refuse a spec with no mutants, controls or findings: 64 (review defect 14)', async () => {
    const plain = module('nomutants.mjs', `export const spec = { name: 'nomut', title: 'n', paper: 'n', configs: [{ name: 'A', description: 'a', config: 1, tier: 'default' }], mutants: [], build: () => (${MACHINE}) };\n`);
    await fails(64, /spec nomut declares no mutants, controls or findings: nothing to run/, 'mutants', plain);
    await fails(64, /spec nomut declares no mutants, controls or findings: check would kill none .*interleave explore /, 'check', plain);
    expect((await runInProcess('explore', plain)).code).toBe(0);
    // A config that checks no property would hold having checked nothing, as in explore (defect 5).
    const noProp = `export const spec = { name: 'noprop', title: 'n', paper: 'n', configs: [{ name: 'A', description: 'a', config: 1, tier: 'default' }], mutants: [{ name: 'm', description: 'm', breaks: 'x', kind: 'control', config: 'A' }], build: () => ({ ...${MACHINE}, invariants: {} }) };\n`;
    await fails(64, /noprop\/A: no property to check/, 'check', module('noprop.mjs', noProp));
  });

  it("a mutant or finding expecting a property the spec does not have: 65 naming the field, not a mutant that survived (review3 defect 2)", async () => {
    const def = (mutant: string) => `export const spec = { name: 'exp', title: 'e', paper: 'e', configs: [{ name: 'A', description: 'a', config: 1, tier: 'default' }], mutants: [${mutant}], build: (c, v) => ({ ...${MACHINE}, invariants: { small: (s) => s <= (v ? 1 : 2) } }) };\n`;
    const typo = module('exptypo.mjs', def("{ name: 'm', description: 'm', breaks: 'x', kind: 'safety', config: 'A', expect: 'smal' }"));
    for (const command of ['mutants', 'check']) await fails(65, /exptypo\.mjs: spec\.mutants\.0\.expect: one of the spec's properties \("small"\), not "smal"/, command, typo);
    // the right name: killed, exit 0
    expect((await runInProcess('mutants', module('expok.mjs', def("{ name: 'm', description: 'm', breaks: 'x', kind: 'safety', config: 'A', expect: 'small' }")))).code).toBe(0);
  });

  it('asks for what the module does not have: 64, naming what it has', async () => {
    await fails(64, /has no export "other"; its exports: spec \(SpecDef\)/, 'explore', `${module('one.mjs', `export const spec = { name: 'one', title: 'o', paper: 'o', configs: [{ name: 'A', description: 'a', config: 1, tier: 'default' }, { name: 'B', description: 'b', config: 2, tier: 'default' }], mutants: [], build: () => (${MACHINE}) };\n`)}#other`);
    await fails(64, /exports several SpecDefs \(a, b\): choose one, as .*two\.mjs#a/, 'explore', module('two.mjs', `const d = (name) => ({ name, title: name, paper: name, configs: [{ name: 'A', description: 'a', config: 1, tier: 'default' }], mutants: [], build: () => (${MACHINE}) });\nexport const a = d('a');\nexport const b = d('b');\n`));
    await fails(64, /exports several functions \(f, g\) and no SpecDef: name the Machine factory, as .*fns\.mjs#f/, 'explore', module('fns.mjs', `export function f() { return ${MACHINE}; }\nexport function g() { return ${MACHINE}; }\n`));
    await fails(64, /spec proto has no mutant or finding "nope"; known: blind-write/, 'explore', proto, '--mutant', 'nope');
    await fails(64, /spec proto has no config "P9"; known: P2, P3/, 'explore', proto, '--config', 'P9');
    await fails(64, /--replay needs --config/, 'explore', at('one.mjs'), '--replay', 'inc');
    await fails(64, /the spec declares no symmetry groups/, 'explore', at('factory.mjs'), '--symmetry');
    await fails(64, /names one file, but this run may find several counterexamples/, 'explore', proto, '--all', '--itf', at('one.itf.json'));
    await fails(64, /unknown spec "nosuch"; bundled: .*or a path to a module/, 'mutants', 'nosuch');
  });

  it('init: a bad name is 64, an existing file 73 (nothing written)', async () => {
    await fails(64, /a spec name is a letter then letters, digits, - or _/, 'init', join(dir, '9lives'));
    writeFileSync(at('taken.test.ts'), 'mine');
    await fails(73, /taken\.test\.ts/, 'init', join(dir, 'taken'));
    expect(readdirSync(dir)).not.toContain('taken.ts');
    expect(readFileSync(at('taken.test.ts'), 'utf8')).toBe('mine');
  });
});
