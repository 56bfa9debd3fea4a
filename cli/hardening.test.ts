// The command as a hostile or unlucky user meets it: outputs that would replace an input
// or another file, directories and full devices, unreadable inputs, stack-busting EDN,
// absurd flags. Each failure has its exit code (64 usage, 65 bad input, 73 cannot create
// output, 70 internal error) and a one-line message; no stack trace, no lost file, and a
// verdict is printed before an output error.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess, spawnCli, STACK_LINE } from './in-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'interleave-hardening-'));
afterAll(() => {
  if (tiny) execFileSync('umount', [tiny]);
  rmSync(dir, { recursive: true, force: true });
});

const bundled = join(import.meta.dirname, '..', 'traces', 'bundled');
/** A small linearizable history, copied so that tests may try to overwrite it. */
function history(name: string): string {
  const path = join(dir, name);
  writeFileSync(path, readFileSync(join(bundled, 'register-ok.jsonl')));
  return path;
}

function noStack(r: { stderr: string }): void {
  expect(r.stderr).not.toMatch(STACK_LINE);
  expect(r.stderr).not.toMatch(/internal error/);
}

describe('outputs never replace an input or an existing file (real processes)', () => {
  it('--html through a symbolic link, a hard link or the path itself: exit 73, the history intact, even with --force', async () => {
    const h = history('h1.jsonl');
    const before = readFileSync(h, 'utf8');
    symlinkSync(h, join(dir, 'sym.html'));
    linkSync(h, join(dir, 'hard.html'));
    const runs = await Promise.all(
      [h, join(dir, 'sym.html'), join(dir, 'hard.html')].map((out) => spawnCli(['lin', h, '--model', 'register', '--html', out, '--force'])),
    );
    for (const r of runs) {
      expect(r.code).toBe(73);
      expect(r.stderr).toMatch(/cannot write .*: it is the input .*an output never replaces an input/);
      expect(r.stdout).toBe('');
      noStack(r);
    }
    expect(readFileSync(h, 'utf8')).toBe(before);
  });

  it('an existing file needs --force; it is refused before any work, and replaced whole with --force', async () => {
    const h = history('h2.jsonl');
    const out = join(dir, 'report.html');
    writeFileSync(out, 'my notes');
    const refused = await runInProcess('lin', h, '--model', 'register', '--html', out);
    expect(refused.code).toBe(73);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(`interleave: cannot write ${out}: the file exists (pass --force to replace it)\n`);
    expect(readFileSync(out, 'utf8')).toBe('my notes');
    const forced = await runInProcess('lin', h, '--model', 'register', '--html', out, '--force');
    expect(forced.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^<!DOCTYPE html>/i);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a directory, a missing directory, a device: exit 73 before any work', async () => {
    const h = history('h3.jsonl');
    for (const [out, why] of [
      [dir, /it is a directory/],
      [join(dir, 'no', 'such', 'r.html'), /no such directory/],
      ['/dev/full', /it is not a regular file/],
      ['/dev/null', /it is not a regular file/],
    ] as const) {
      const r = await runInProcess('lin', h, '--model', 'register', '--html', out, '--force');
      expect(r.code).toBe(73);
      expect(r.stderr).toMatch(why);
      expect(r.stdout).toBe('');
      noStack(r);
    }
    expect(existsSync('/dev/full')).toBe(true);
  });

  it('explore --itf and --html: the same rules, and the two may not name one file', async () => {
    const itf = join(dir, 'cx.itf.json');
    writeFileSync(itf, 'keep');
    const exists = await runInProcess('explore', 'shadowfax', '--config', 'B0', '--mutant', 'M1', '--itf', itf);
    expect(exists.code).toBe(73);
    expect(readFileSync(itf, 'utf8')).toBe('keep');
    const same = await runInProcess('explore', 'shadowfax', '--config', 'B0', '--mutant', 'M1', '--itf', join(dir, 'x'), '--html', join(dir, '.', 'x'));
    expect(same.code).toBe(64);
    const written = await runInProcess('explore', 'shadowfax', '--config', 'B0', '--mutant', 'M1', '--itf', itf, '--force');
    expect(written.code).toBe(1);
    expect(JSON.parse(readFileSync(itf, 'utf8'))['#meta']).toBeDefined();
  });
});

/** A tmpfs of 16 KiB, when this process may mount one (root in a container, as CI is). */
function tinyDevice(): string | undefined {
  const mount = join(dir, 'tiny');
  mkdirSync(mount);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', mount], { stdio: 'ignore' });
    return mount;
  } catch {
    return undefined;
  }
}
const tiny = tinyDevice();

// Only where a device can be mounted; cli/output-failure.test.ts injects the same failure everywhere.
if (tiny !== undefined) {
  describe('an output on a full device (a real 16 KiB tmpfs)', () => {
    it('the verdict is printed, then the output error: exit 73, nothing half-written left behind', async () => {
      // etcd_000 draws a page of about 50 KB.
      const h = join(import.meta.dirname, '..', '..', 'shared', 'corpora', 'porcupine', 'jepsen', 'etcd_000.log');
      const out = join(tiny, 'report.html');
      const r = await spawnCli(['lin', h, '--model', 'etcd-cas-register', '--html', out]);
      expect(r.code).toBe(73);
      expect(r.stdout).toMatch(/verdict: +NOT linearizable/);
      expect(r.stderr).toBe(`interleave: cannot write ${out}: no space left on the device\n`);
      expect(readdirSync(tiny)).toEqual([]);
      const json = await runInProcess('lin', h, '--model', 'etcd-cas-register', '--html', out, '--json');
      expect(json.code).toBe(73);
      expect(JSON.parse(json.stdout)).toMatchObject({ exitCode: 73, result: { verdict: 'illegal', outputError: expect.stringMatching(/no space left/) } });
      expect(readdirSync(tiny)).toEqual([]);
    });
  });
}

describe('failures that used to crash with exit 1 (read as "not linearizable")', () => {
  it('EDN chains of #_ and of tags: a verdict or exit 65, never a stack overflow', async () => {
    const discards = join(dir, 'discards.edn');
    writeFileSync(discards, `{:process 0, :type :invoke, :f :read, :value ${'#_ '.repeat(100_000)}${'1 '.repeat(100_000)}nil}\n{:process 0, :type :ok, :f :read, :value nil}\n`);
    const tags = join(dir, 'tags.edn');
    writeFileSync(tags, `${'#jepsen.history.Op '.repeat(50_000)}{:process 0, :type :invoke, :f :read, :value nil}\n`);
    const [d, t] = await Promise.all([spawnCli(['lin', discards, '--model', 'register']), spawnCli(['lin', tags, '--model', 'register'])]);
    expect(d.code).toBe(0);
    noStack(d);
    expect(t.code).toBe(65);
    expect(t.stderr).toBe(`interleave: ${tags}:1: collections nested at most 64 deep\n`);
  });

  it('an unreadable input is bad input (65)', async () => {
    // /proc/self/mem is a regular file that fails to read (EIO), even for root.
    const r = await runInProcess('lin', '/proc/self/mem', '--model', 'register', '--format', 'jsonl');
    expect(r.code).toBe(65);
    expect(r.stderr).toMatch(/^interleave: \/proc\/self\/mem:1: a readable history file \(reading line 1 failed: EIO\)\n$/);
    const missing = await runInProcess('lin', join(dir, 'nothing.edn'), '--model', 'register');
    expect(missing.code).toBe(65);
    const directory = await runInProcess('lin', dir, '--model', 'register');
    expect(directory.code).toBe(65);
  });

  it('an internal error exits 70 with one line; --debug adds the stack', async () => {
    const script = (debug: boolean) => [
      "import { Command } from 'commander';",
      "import { runCli } from './cli/errors.ts';",
      "const program = new Command().name('interleave').exitOverride();",
      "program.command('boom').action(() => { null.x; });",
      "program.command('later').action(() => { setTimeout(() => { throw new TypeError('from a timer'); }, 1); return new Promise((r) => setTimeout(r, 100)); });",
      `process.exitCode = await runCli(program, ['node', 'interleave', process.env.CMD${debug ? ", '--debug'" : ''}]);`,
    ].join('\n');
    const run = (cmd: string, debug: boolean) =>
      new Promise<{ code: number | null; stderr: string }>((done) => {
        execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(debug)], { env: { ...process.env, CMD: cmd }, encoding: 'utf8', cwd: join(import.meta.dirname, '..') }, (e, _out, stderr) =>
          done({ code: e ? (e.code as number) : 0, stderr }),
        );
      });
    const [plain, debug, timer] = await Promise.all([run('boom', false), run('boom', true), run('later', false)]);
    expect(plain.code).toBe(70);
    expect(plain.stderr).toMatch(/^interleave: internal error: TypeError: Cannot read properties of null \(reading 'x'\)\ninterleave: this is a bug in interleave, not a verdict; run again with --debug/);
    expect(plain.stderr).not.toMatch(STACK_LINE);
    expect(debug.code).toBe(70);
    expect(debug.stderr).toMatch(STACK_LINE);
    expect(timer.code).toBe(70);
    expect(timer.stderr).toMatch(/internal error: TypeError: from a timer/);
  });
});


describe('flags are parsed strictly and bounded', () => {
  const h = () => history('flags.jsonl');
  const refused: [string[], RegExp][] = [
    [['--workers', '0x10'], /option '--workers <n>' argument '0x10' is invalid\. Expected an integer from 1 to 1,024/],
    [['--workers', ''], /'--workers <n>' argument '' is invalid/],
    [['--workers', '0'], /'--workers <n>' argument '0' is invalid/],
    [['--workers', '-2'], /--workers/],
    [['--workers', '1e12'], /'--workers <n>' argument '1e12' is invalid/],
    [['--workers', '2.5'], /'--workers <n>' argument '2.5' is invalid/],
    [['--timeout', '0'], /'--timeout <seconds>' argument '0' is invalid\. Expected a number of seconds > 0 and ≤ 1,000,000/],
    [['--timeout', '1e400'], /'--timeout <seconds>' argument '1e400' is invalid/],
    [['--timeout', '3000000'], /'--timeout <seconds>' argument '3000000' is invalid/],
    [['--timeout', 'NaN'], /--timeout/],
    [['--memo-budget', '0'], /'--memo-budget <MB>' argument '0' is invalid/],
    [['--format', 'csv'], /'--format <format>' argument 'csv' is invalid\. Allowed choices are auto, jsonl, edn, jepsen-log/],
  ];
  for (const [flags, message] of refused) {
    it(`lin ${flags.join(' ') || "''"}: exit 64 naming the flag`, async () => {
      const r = await runInProcess('lin', h(), '--model', 'register', ...flags);
      expect(r.code).toBe(64);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    });
  }

  it('explore refuses unknown --lin modes, seeds beyond 32 bits, a zero state budget, a zero --simulate', async () => {
    for (const [flags, message] of [
      [['--lin', 'of'], /'--lin <mode>' argument 'of' is invalid\. Allowed choices are incremental, histories, off/],
      [['--simulate', '10', '--seed', '4294967296'], /--seed <n>' argument '4294967296' is invalid\. Expected an integer from 0 to 4,294,967,295/],
      [['--max-states', '0'], /'--max-states <n>' argument '0' is invalid/],
      [['--simulate', '0'], /'--simulate <runs>' argument '0' is invalid/],
      [['--time', '-1'], /--time/],
      [['--depth', '5'], /--depth and --seed go with --simulate/],
    ] as const) {
      const r = await runInProcess('explore', 'fusee', '--config', 'A0', ...flags);
      expect(r.code).toBe(64);
      expect(r.stderr).toMatch(message);
    }
  });

  it('a huge --workers is capped at the machine parallelism, and says so', async () => {
    const r = await runInProcess('lin', h(), '--model', 'register', '--workers', '200');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`interleave: --workers 200 capped at ${availableParallelism()}, the number of threads this machine runs at once\n`);
    const e = await runInProcess('explore', 'fusee', '--config', 'A0', '--max-states', '50', '--workers', '200');
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/--workers 200 capped at/);
  });
});

describe('--timeout covers reading, and the memo budget is a flag', () => {
  it('a file that takes longer to read than the timeout: exit 2, verdict unknown, said so', async () => {
    const big = join(dir, 'big.jsonl');
    const line = (i: number) => `{"client": ${i % 8}, "input": {"f": "write", "value": ${i}}, "call": ${2 * i}, "return": ${2 * i + 1}}\n`;
    writeFileSync(big, Array.from({ length: 200_000 }, (_, i) => line(i)).join(''));
    const r = await runInProcess('lin', big, '--model', 'register', '--timeout', '0.001');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^interleave: the --timeout of 0\.001 s ran out while reading .*big\.jsonl \(at line \d+\); verdict unknown\n$/);
    const json = await runInProcess('lin', big, '--model', 'register', '--timeout', '0.001', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ exitCode: 2, result: { verdict: 'unknown', reason: 'timeout while reading' } });
  });

  it('--memo-budget: hitting it gives unknown (exit 2) and says how to raise it', async () => {
    const h = join(import.meta.dirname, '..', '..', 'shared', 'corpora', 'porcupine', 'kv', 'c10-ok.txt');
    const r = await runInProcess('lin', h, '--model', 'kv-append-unpartitioned', '--memo-budget', '1');
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/memo reached its memory budget/);
    expect(r.stdout).toMatch(/The memo's budget was 1 MB per partition: raise it with --memo-budget <MB>/);
    const json = await runInProcess('lin', h, '--model', 'kv-append-unpartitioned', '--memo-budget', '1', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ exitCode: 2, result: { verdict: 'unknown', hint: expect.stringMatching(/--memo-budget/) } });
  });
});
