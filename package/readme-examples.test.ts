// The READMEs' examples stay true: every ```ts block of every README runs as written
// (importing the package by name, as a user's code does: the exports map's source
// condition points those imports at this checkout), and every `interleave ...` command line
// in a README's code block or a command's --help names a command, flags and bundled spec
// names (configs, mutants) that exist.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { helpOf } from '../cli/help.ts';
import { buildProgram } from '../cli/program.ts';
import { bundledSpecs, isModulePath } from '../cli/specs.ts';
import { readmeBlocks, ROOT } from './readme-blocks.ts';

const all = readmeBlocks();
const program = await buildProgram();
// In the repository (not under node_modules), so that `interleave/...` resolves to this checkout.
const scratch = join(ROOT, '.scratch', `readme-examples-${process.pid}`);
mkdirSync(scratch, { recursive: true });
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the ts examples of the READMEs run', () => {
  const ts = all.filter((b) => b.lang === 'ts');
  it('there are some', () => expect(ts.map((b) => b.file)).toEqual(expect.arrayContaining(['checkers/explore/README.md', 'testing/README.md'])));
  for (const [n, b] of ts.entries()) {
    const path = join(scratch, `example-${n}.ts`);
    writeFileSync(path, `${b.text}\n`);
    // An example written as a test registers its tests here; any other runs as a program.
    if (/from 'vitest'/.test(b.text)) describe(`${b.file}:${b.line}`, async () => void (await import(path)));
    else it(`${b.file}:${b.line}`, () => import(path));
  }
});

describe("the root README's entry points", () => {
  it("names every entry point of package.json's exports, and says what `interleave` re-exports as index.ts does", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const para = readme.slice(readme.indexOf('its entry points are'), readme.indexOf('A model is given by name'));
    const exportsMap = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>> }).exports;
    const subpaths = Object.keys(exportsMap).filter((k) => k !== '.' && k !== './package.json').map((k) => `interleave/${k.slice(2)}`);
    expect(new Set(para.match(/interleave\/[\w-]+/g))).toEqual(new Set(subpaths));
    const root = /`interleave`\s+\(everything ([^)]*) export\)/.exec(para);
    expect(root, 'the README says what `interleave` exports: "(everything ... export)"').not.toBeNull();
    const source = Object.fromEntries(Object.entries(exportsMap).flatMap(([k, v]) => (typeof v === 'object' ? [[`./${v['interleave-source'].replace(/^\.\//, '')}`, `interleave/${k.slice(2)}`]] : [])));
    const reexported = [...readFileSync(join(ROOT, 'index.ts'), 'utf8').matchAll(/^export \* from '([^']+)'/gm)].map((m) => source[m[1]]);
    expect(new Set(root![1].match(/interleave\/[\w-]+/g))).toEqual(new Set(reexported));
  });
});

/** Shell words (double and single quotes), up to a comment or a pipe. */
function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    const w = m[1] ?? m[2] ?? m[3]!;
    if (m[3] !== undefined && (w.startsWith('#') || w === '|' || w === '&&')) break;
    out.push(w);
  }
  return out;
}

interface CommandLine {
  where: string;
  argv: string[];
}

const COMMAND = /(?:^|\s)(?:npx interleave|npx tsx cli\/main\.ts|interleave)\s+(.*)$/;

function commandLines(): CommandLine[] {
  const lines: CommandLine[] = [];
  for (const b of all) {
    if (b.lang !== '' && b.lang !== 'sh' && b.lang !== 'bash') continue;
    b.text.split('\n').forEach((text, i) => {
      const m = COMMAND.exec(text);
      if (m) lines.push({ where: `${b.file}:${b.line + 1 + i}`, argv: words(m[1]!) });
    });
  }
  for (const command of program.commands) {
    for (const [text] of helpOf(command)?.examples ?? []) {
      const m = COMMAND.exec(text);
      if (m) lines.push({ where: `interleave ${command.name()} --help`, argv: words(m[1]!) });
    }
  }
  return lines;
}

/** What is wrong with a command line, or nothing. */
function problems({ argv }: CommandLine): string[] {
  const [name, ...rest] = argv;
  const command = program.commands.find((c) => c.name() === name);
  if (!command) return [`no command ${name}`];
  const found: string[] = [];
  const longs = new Set(command.options.map((o) => o.long));
  const valueOf = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    if (!w.startsWith('--')) {
      positional.push(w);
      continue;
    }
    const flag = w.split('=')[0]!;
    const option = command.options.find((o) => o.long === flag);
    if (!longs.has(flag) && flag !== '--help') found.push(`${name} has no option ${flag}`);
    else if (option && (option.required || option.optional) && !w.includes('=')) valueOf.set(flag, rest[++i] ?? '');
  }
  const specArg = positional[0];
  if ((name === 'explore' || name === 'mutants') && specArg !== undefined && specArg !== 'all' && !isModulePath(specArg)) {
    const spec = bundledSpecs().find((s) => s.name === specArg);
    if (!spec) return [...found, `no bundled spec ${specArg}`];
    const config = valueOf.get('--config');
    if (config !== undefined && !spec.def.configs.some((c) => c.name === config)) found.push(`${specArg} has no config ${config}`);
    const mutant = valueOf.get('--mutant');
    if (mutant !== undefined && ![...spec.def.mutants.map((m) => m.name), ...(spec.def.findings ?? []).map((f) => f.name)].includes(mutant)) found.push(`${specArg} has no mutant ${mutant}`);
  }
  return found;
}

describe('the command lines of the READMEs and of --help exist', () => {
  const lines = commandLines();
  it('finds them', () => {
    expect(lines.length).toBeGreaterThan(20);
    expect(new Set(lines.map((l) => l.argv[0]))).toEqual(new Set(['check', 'explore', 'mutants', 'lin', 'list', 'run', 'init', 'validate', 'serve', 'worker']));
  });
  it('every one names a command, its flags and bundled names that exist', () => {
    expect(lines.map((l) => ({ where: l.where, line: l.argv.join(' '), problems: problems(l) })).filter((l) => l.problems.length > 0)).toEqual([]);
  });
  it('would catch a wrong one', () => {
    expect(problems({ where: 'x', argv: ['explore', 'fusee', '--config', 'Z9', '--mutatn', 'M1'] })).toEqual(['explore has no option --mutatn', 'fusee has no config Z9']);
    expect(problems({ where: 'x', argv: ['explore', 'fusee', '--mutant', 'M99'] })).toEqual(['fusee has no mutant M99']);
    expect(problems({ where: 'x', argv: ['verify', 'x'] })).toEqual(['no command verify']);
    expect(problems({ where: 'x', argv: ['mutants', 'nosuch'] })).toEqual(['no bundled spec nosuch']);
  });
});
