// The command's exits that are not verdicts, as real processes (bin/interleave.js): stdout
// closed by its reader, outputs over files the run reads (`--force` or not), usage and
// spec errors of serve, a Machine factory that throws, flags that do not go together,
// replays, and --json on a failure. Each case is the command line a reviewer ran.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulateToDir } from '../specs/fusee/simulate.ts';
import { ROOT, spawnCli, STACK_LINE, type CliRun } from './in-process.ts';
import { specTemplate } from './init.ts';
import { ErrorEnvelopeSchema } from './json.ts';

const dir = mkdtempSync(join(tmpdir(), 'interleave-exit-paths-'));
const at = (name: string) => join(dir, name);
const proto = at('proto.ts');

beforeAll(() => {
  writeFileSync(proto, specTemplate('proto'));
  // A spec that imports a module of its own: the module is an input of the run.
  writeFileSync(at('lib.mjs'), 'export const N = 2;\n');
  writeFileSync(at('withlib.ts'), specTemplate('withlib').replace("import type { Action, Machine, SpecDef } from 'interleave';", "import type { Action, Machine, SpecDef } from 'interleave';\nimport { N } from './lib.mjs';").replace('config: { processes: 2 }', 'config: { processes: N }'));
  // Every config in the full tier: no default config.
  writeFileSync(at('nf.ts'), specTemplate('nf').replaceAll("tier: 'default'", "tier: 'full'"));
  // A spec whose next() throws on a cas: a replay through it is the spec's failure (65).
  writeFileSync(at('nextthrows.ts'), specTemplate('nextthrows').replace('next(s, { p }) {', "next(s, { p }) {\n      if (s.pc[p] === 'cas') throw new Error('boom in next');"));
  writeFileSync(at('throws.mjs'), "export default { name: 'thrower', configs: [{ name: 'A', tier: 'default', config: {} }], mutants: [], build() { throw new Error('boom in build'); } };\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function quiet(r: CliRun): void {
  expect(r.stderr).not.toMatch(STACK_LINE);
  expect(r.stderr).not.toMatch(/internal error/);
}

/** The command with its stdout closed by the reader before anything is written (`| true`). */
function withStdoutClosed(args: string[]): Promise<CliRun> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['bin/interleave.js', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('close', (code) => done({ code, stdout: '', stderr }));
  });
}

describe('stdout closed by its reader: exit 141, no message, never a verdict', () => {
  it('explore, lin --json, validate, list --json', async () => {
    const trace = simulateToDir({ seed: 3, clients: 2, keys: 1, ops: 10, clientKills: 0, mnKills: 0 }, mkdtempSync(join(dir, 'trace-'))).files;
    const runs = await Promise.all([
      withStdoutClosed(['explore', proto]),
      withStdoutClosed(['lin', 'traces/bundled/register-ok.jsonl', '--model', 'register', '--json']),
      withStdoutClosed(['validate', 'fusee', ...trace]),
      withStdoutClosed(['list', '--json']),
    ]);
    for (const r of runs) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(141);
    }
  });
});

describe('an output never replaces a file the run reads, --force or not (73)', () => {
  it('a module the spec imports, by --html and --itf; a bundled history, by --junit', async () => {
    const lib = readFileSync(at('lib.mjs'), 'utf8');
    const bundled = join(ROOT, 'traces', 'bundled', 'register-ok.jsonl');
    const history = readFileSync(bundled, 'utf8');
    const runs = await Promise.all([
      spawnCli(['explore', at('withlib.ts'), '--mutant', 'blind-write', '--html', at('lib.mjs'), '--force']),
      spawnCli(['explore', at('withlib.ts'), '--mutant', 'blind-write', '--itf', at('lib.mjs'), '--force']),
      spawnCli(['check', proto, '--junit', 'traces/bundled/register-ok.jsonl', '--force']),
    ]);
    expect(runs.map((r) => r.code)).toEqual([73, 73, 73]);
    expect(runs[0]!.stderr).toMatch(/cannot write .*lib\.mjs: it is the input .*lib\.mjs/);
    expect(runs[2]!.stderr).toMatch(/cannot write traces\/bundled\/register-ok\.jsonl: it is .*a file of interleave itself/);
    for (const r of runs) {
      expect(r.stdout).toBe('');
      quiet(r);
    }
    expect(readFileSync(at('lib.mjs'), 'utf8')).toBe(lib);
    expect(readFileSync(bundled, 'utf8')).toBe(history);
  });
  // In a checkout the user's files sit next to interleave's (init's own example writes
  // specs/raft-log.ts): a file git does not track there is the user's, and --force replaces it.
  it("in a checkout, replaces the user's own file under specs/ with --force, not a tracked one", async () => {
    const mine = join(ROOT, 'specs', `.exit-paths-${process.pid}.html`);
    writeFileSync(mine, 'old');
    try {
      const [replaced, tracked] = await Promise.all([
        spawnCli(['explore', proto, '--mutant', 'blind-write', '--html', mine, '--force']),
        spawnCli(['explore', proto, '--mutant', 'blind-write', '--html', 'specs/README.md', '--force']),
      ]);
      expect([replaced.code, tracked.code]).toEqual([1, 73]);
      expect(readFileSync(mine, 'utf8')).toMatch(/^<!doctype html>/i);
      expect(tracked.stderr).toMatch(/cannot write specs\/README\.md: it is .*a file of interleave itself/);
    } finally {
      rmSync(mine, { force: true });
    }
  });
});

describe('usage (64) and spec errors (65) are not internal errors (70)', () => {
  it('serve: an unknown config or mutant is 64, a spec whose build throws 65 (before listening)', async () => {
    const [config, user, mutant, build] = await Promise.all([
      spawnCli(['serve', 'fusee', '--config', 'nope', '--port', '0']),
      spawnCli(['serve', proto, '--config', 'P9', '--port', '0']),
      spawnCli(['serve', 'fusee', '--mutant', 'nope', '--port', '0']),
      spawnCli(['serve', at('throws.mjs'), '--port', '0']),
    ]);
    expect([config.code, user.code, mutant.code, build.code]).toEqual([64, 64, 64, 65]);
    expect(user.stderr).toBe('interleave: spec proto has no config "P9"; known: P2, P3\n');
    expect(build.stderr).toMatch(/throws\.mjs: .*it threw while building the machine: Error: boom in build/);
    for (const r of [config, user, mutant, build]) quiet(r);
  });

  it("a Machine factory export that throws is 65 in explore, list and check; init's machine(config) points to the SpecDef", async () => {
    const runs = await Promise.all([spawnCli(['explore', `${proto}#machine`]), spawnCli(['list', `${proto}#machine`]), spawnCli(['check', `${proto}#machine`])]);
    for (const r of runs) {
      expect(r.code).toBe(65);
      expect(r.stderr).toMatch(/calling machine\(\) \(machine declares 2 parameter\(s\), but a Machine factory is called with none; select the SpecDef that builds it instead, as .*proto\.ts#spec\): TypeError/);
      quiet(r);
    }
  });

  it('flags that do not go together: lin --workers-per-host without --redis; --replay with a search flag or an empty path; check of a spec with no default config', async () => {
    const runs = await Promise.all([
      spawnCli(['lin', 'traces/bundled/register-ok.jsonl', '--model', 'register', '--workers-per-host', '2']),
      spawnCli(['explore', proto, '--replay', 'read(p0)', '--dfs']),
      spawnCli(['explore', proto, '--replay', '']),
      spawnCli(['check', at('nf.ts')]),
      spawnCli(['run', 'fusee', '--base-port', '70000']),
      // fusee's default cluster listens on 15 ports from the base: 65,530 + 14 is past 65,535
      spawnCli(['run', 'fusee', '--base-port', '65530', '--out', at('never')]),
    ]);
    expect(runs.map((r) => r.code)).toEqual([64, 64, 64, 64, 64, 64]);
    expect(runs[0]!.stderr).toBe('interleave: --workers-per-host goes with --redis URL\n');
    expect(runs[1]!.stderr).toMatch(/--replay re-executes one path and prints it: not with --dfs/);
    expect(runs[3]!.stderr).toMatch(/spec nf has no default config: check every config with --full/);
    expect(runs[3]!.stdout).toBe('');
    expect(runs[5]!.stderr).toMatch(/--base-port 65530: this cluster listens on 15 ports from it on, past port 65,535; choose at most 65521/);
    for (const r of runs) quiet(r);
  });
});

describe('a replay is not a search: it never exits 0', () => {
  it('a path that violates nothing exits 2; one that reaches a violation 1', async () => {
    const [clean, violated] = await Promise.all([
      spawnCli(['explore', proto, '--replay', 'read(p0);cas(p0)']),
      spawnCli(['explore', proto, '--mutant', 'blind-write', '--replay', 'read(p0);read(p1);cas(p0);cas(p1)']),
    ]);
    expect(clean.code).toBe(2);
    expect(clean.stdout).toMatch(/no property is violated along this path \(one path: not a verdict on the spec; exit 2\)/);
    expect(violated.code).toBe(1);
  });

  it("a label the machine does not enable is the user's (64); a throw from the spec's next() the spec's (65)", async () => {
    const [notEnabled, thrown] = await Promise.all([
      spawnCli(['explore', proto, '--replay', 'cas(p0)']),
      spawnCli(['explore', at('nextthrows.ts'), '--replay', 'read(p0);cas(p0)']),
    ]);
    expect(notEnabled.code).toBe(64);
    expect(notEnabled.stderr).toMatch(/step 1 "cas\(p0\)" is not enabled/);
    expect(thrown.code).toBe(65);
    expect(thrown.stderr).toMatch(/nextthrows\.ts: .*replaying the path.*boom in next/);
    for (const r of [notEnabled, thrown]) quiet(r);
  });
});

describe('a pass of nothing is refused', () => {
  it('mutants of a Machine-factory module (no mutants) is 64, not "killed 0/0"', async () => {
    writeFileSync(at('factory.mjs'), "export default () => ({ init: () => [0], actions: (s) => (s < 2 ? [{ label: 'inc' }] : []), next: (s) => s + 1, invariants: { small: (s) => s <= 2 || 'too big' } });\n");
    const r = await spawnCli(['mutants', at('factory.mjs')]);
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(/declares no mutants, controls or findings: nothing to run/);
    quiet(r);
    // and --help says so among its 64 cases (review3 defect 3)
    const help = await spawnCli(['mutants', '--help']);
    expect(help.stdout).toMatch(/ {3}64 {2}bad usage.*also a spec with no mutants, controls or findings \(nothing to run\)/);
  });
});

describe('--json on a failure: one envelope on stdout, with the error', () => {
  it('64 (ours and commander\'s), 65, and 73 before the run', async () => {
    copyFileSync(join(ROOT, 'traces', 'bundled', 'register-ok.jsonl'), at('h.jsonl'));
    writeFileSync(at('taken.html'), 'mine');
    const cases: [string[], number, RegExp][] = [
      [['explore', 'nope', '--json'], 64, /^unknown spec "nope"/],
      [['explore', 'fusee', '--bogus', '--json'], 64, /unknown option '--bogus'/],
      [['lin', at('missing.jsonl'), '--model', 'register', '--json'], 65, /missing\.jsonl/],
      [['lin', at('h.jsonl'), '--model', 'register', '--html', at('taken.html'), '--json'], 73, /cannot write .*taken\.html: the file exists/],
      [['check', at('nf.ts'), '--json'], 64, /has no default config/],
    ];
    const runs = await Promise.all(cases.map(([args]) => spawnCli(args)));
    runs.forEach((r, i) => {
      const [args, code, error] = cases[i]!;
      expect(r.code, args.join(' ')).toBe(code);
      const envelope = ErrorEnvelopeSchema.parse(JSON.parse(r.stdout));
      expect(envelope).toMatchObject({ command: args[0], exitCode: code, result: null });
      expect(envelope.error).toMatch(error);
    });
    expect(readFileSync(at('taken.html'), 'utf8')).toBe('mine');
  });
});

describe('init --force; every command documents its exit codes', () => {
  it('init refuses an existing file without --force (73) and replaces it with', async () => {
    writeFileSync(at('mine.ts'), 'mine');
    const refused = await spawnCli(['init', at('mine')]);
    expect(refused.code).toBe(73);
    expect(refused.stderr).toMatch(/mine\.ts: the file exists \(pass --force to replace it\)/);
    expect(readFileSync(at('mine.ts'), 'utf8')).toBe('mine');
    const forced = await spawnCli(['init', at('mine'), '--force']);
    expect(forced.code).toBe(0);
    expect(readFileSync(at('mine.ts'), 'utf8')).toBe(specTemplate('mine'));
  });

  it('validate, run and serve --help list their exit codes; --base-port says its default once', async () => {
    const [validate, run, serve] = await Promise.all(['validate', 'run', 'serve'].map((c) => spawnCli([c, '--help'])));
    for (const r of [validate, run, serve]) {
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Exit codes:\n(.*\n)* {3}64 {2}bad usage/);
      expect(r.stdout).toMatch(/141 {2}the reader of stdout closed it early/);
    }
    expect(validate.stdout).toMatch(/ {4}1 {2}invalid/);
    expect(run.stdout).not.toMatch(/\(default: .*\) \(default: /);
    expect(serve.stdout).toMatch(/ {3}65 {2}the spec module cannot be loaded/);
  });
});
