// `interleave validate` as a user runs it: exit codes, the JSON envelope, the HTML report
// written through cli/output.ts.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { simulateToDir } from '../specs/fusee/simulate.ts';
import { runInProcess } from './in-process.ts';
import { runValidate, validateRunTrace } from './validate.ts';

const dir = mkdtempSync(join(tmpdir(), 'interleave-validate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/interleave.js', 'validate', ...args], { encoding: 'utf8', timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

async function run(spec: string, files: string[], o: Parameters<typeof runValidate>[2] = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runValidate(spec, files, o, { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

/** A generated FUSEE run, one file per process. */
function trace(name: string, seed: number): string[] {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  return simulateToDir({ seed, clients: 3, keys: 2, ops: 30, clientKills: 1, mnKills: 1 }, d).files;
}

/** The same run with one readPrimary's result changed. */
function corrupt(files: string[]): string[] {
  const f = files.find((x) => x.endsWith('c0.jsonl'))!;
  const lines = readFileSync(f, 'utf8').trimEnd().split('\n');
  const i = lines.findIndex((l, k) => k > 3 && l.includes('"readPrimary"') && !l.includes('FAIL'));
  const e = JSON.parse(lines[i]);
  e.args.result += 1000;
  lines[i] = JSON.stringify(e);
  writeFileSync(f, `${lines.join('\n')}\n`);
  return files;
}

describe('interleave validate (spawned)', () => {
  it('exit codes 0, 1, 2, 64, 65 and 73 from the real command', async () => {
    const good = trace('good', 3);
    const bad = corrupt(trace('bad', 3));
    const malformed = trace('malformed', 5);
    writeFileSync(malformed[0], `${readFileSync(malformed[0], 'utf8')}{"proc": \n`);
    const html = join(dir, 'exists.html');
    writeFileSync(html, 'mine');
    // One real process per exit code (each costs a tsx start); the other cases of a code
    // run through the same command in this process.
    const [valid, invalid, inconclusive, unknown, badInput, cannotCreate] = await Promise.all([
      cli('fusee', ...good),
      cli('fusee', ...bad),
      cli('fusee', ...good, '--exhaustive', '--max-frontier', '1'),
      cli('nope', ...good),
      cli('fusee', ...malformed),
      cli('fusee', ...good, '--html', html),
    ]);
    const noMapping = await runInProcess('validate', 'swarm', ...good);
    const badConfig = await runInProcess('validate', 'fusee', ...good, '--config', 'sideways');
    const missing = await runInProcess('validate', 'fusee', join(dir, 'no-such.jsonl'));
    const overInput = await runInProcess('validate', 'fusee', ...good, '--html', good[0], '--force');
    expect([valid.code, valid.stdout]).toEqual([0, expect.stringContaining('VALID: a behaviour of the spec matches the trace')]);
    expect([invalid.code, invalid.stdout]).toEqual([1, expect.stringMatching(/INVALID[\s\S]*could not match: c0 #\d+ readPrimary[\s\S]*args\.result = \d+, but mn\d\/k\d's value/)]);
    expect([inconclusive.code, inconclusive.stdout]).toEqual([2, expect.stringContaining('INCONCLUSIVE: the search stopped at the frontier bound')]);
    expect([unknown.code, unknown.stderr]).toEqual([64, expect.stringContaining('unknown spec "nope"; specs that validate traces: fusee')]);
    expect([noMapping.code, noMapping.stderr]).toEqual([64, expect.stringContaining('spec swarm has no trace mapping')]);
    expect([badConfig.code, badConfig.stderr]).toEqual([64, expect.stringContaining('no validation config "sideways"; known: free, fixed')]);
    expect([badInput.code, badInput.stderr]).toEqual([65, expect.stringMatching(new RegExp(`^interleave: ${malformed[0].replace(/[.]/g, '\\.')}:\\d+: `))]);
    expect(badInput.stderr).not.toMatch(/at .*\.ts:\d+/); // no stack trace
    expect([missing.code, missing.stderr]).toEqual([65, expect.stringContaining('no such file')]);
    expect([cannotCreate.code, cannotCreate.stderr]).toEqual([73, expect.stringContaining('pass --force')]);
    expect(readFileSync(html, 'utf8')).toBe('mine');
    expect([overInput.code, overInput.stderr]).toEqual([73, expect.stringContaining('it is the input')]);
    expect(readFileSync(good[0], 'utf8')).toMatch(/^\{"format":"interleave-trace\/1"/);
  }, 180_000);
});

describe('interleave validate (in process)', () => {
  it('--json prints the envelope with the result; --html writes the report, replaced only with --force', async () => {
    const bad = corrupt(trace('json', 8));
    const r = await run('fusee', bad, { json: true });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ command: 'validate', version: expect.any(String), exitCode: 1, elapsedMs: expect.any(Number) });
    expect(out.result).toMatchObject({ verdict: 'invalid', spec: 'fusee', config: 'free', mode: 'reduced' });
    expect(out.result.failure).toMatchObject({ partition: expect.stringMatching(/^k\d$/), event: { proc: 'c0', action: 'readPrimary' } });
    // The changed value, either where the read stands or where it was first tried (before a crash the search then took).
    const whys = [out.result.failure.why, out.result.failure.candidates[0].missed?.why];
    expect(whys).toContainEqual(expect.objectContaining({ kind: 'observed', field: 'args.result' }));
    const html = join(dir, 'report.html');
    expect((await run('fusee', bad, { html })).code).toBe(1);
    expect(readFileSync(html, 'utf8')).toContain('id="failing-event"');
    const again = await run('fusee', bad, { html });
    expect(again.code).toBe(73);
    expect((await run('fusee', bad, { html, force: true })).code).toBe(1);
    expect(existsSync(html)).toBe(true);
  });

  it("an obs path that names no spec variable is bad input (65, file and line); a value that differs is invalid (1)", async () => {
    const withObs = (name: string, obs: Record<string, unknown>): { files: string[]; line: number } => {
      const files = trace(name, 3);
      const f = files.find((x) => x.endsWith('c0.jsonl'))!;
      const lines = readFileSync(f, 'utf8').trimEnd().split('\n');
      const i = lines.findIndex((l) => l.includes('"readPrimary"'));
      lines[i] = JSON.stringify({ ...JSON.parse(lines[i]), obs });
      writeFileSync(f, `${lines.join('\n')}\n`);
      return { files, line: i + 1 };
    };
    for (const [obs, why] of [
      [{ 'x[': 5 }, /"x\[" lacks a "\]" closing the "\[" at character 2/],
      [{ 'rep[99]': 5 }, /"rep\[99\]" names none: rep has 3 entries \(rep\[0\]\.\.rep\[2\]\)/],
      [{ nope: 5 }, /"nope" names none: the spec has no variable "nope" \(it has rep, /],
      [{ 'rep[0].v': 5 }, /"rep\[0\]\.v" names none: rep\[0\] is a number, with no "v"/],
      [{ 'rep[one]': 5 }, /"rep\[one\]" names none: rep is a list, indexed by a number, not "one"/],
    ] as const) {
      const { files, line } = withObs('obs-bad', obs);
      const r = await run('fusee', files);
      expect([r.code, r.stderr]).toEqual([65, expect.stringContaining(`interleave: ${files.find((x) => x.endsWith('c0.jsonl'))}:${line}: obs paths that name a spec variable`)]);
      expect(r.stderr).toMatch(why);
    }
    // A well-formed path whose value differs: the implementation's fault, a verdict. So is
    // one into a part of the state that fills as the run goes (the clients join the key's
    // partition: cl is empty in its initial state), whatever the index.
    const absent = withObs('obs-absent', { 'cl[7].pc': 'W1' });
    expect((await run('fusee', absent.files)).code).toBe(1);
    const differs = withObs('obs-differs', { 'rep[0]': 12345 });
    const r = await run('fusee', differs.files, { json: true });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).result.failure.why).toMatchObject({ kind: 'observed', field: 'obs.rep[0]', path: 'rep[0]', expected: 12345 });
  });

  it('a trace with a header and no events: 65 from validate (nothing validated never passes), not run in `interleave run`', async () => {
    const f = join(dir, 'header-only.jsonl');
    writeFileSync(f, `${JSON.stringify({ format: 'interleave-trace/1', spec: 'fusee', params: { r: 3, n: 3, replicas: { k0: [0, 1, 2] }, bugs: [] } })}\n`);
    const r = await run('fusee', [f]);
    expect([r.code, r.stdout, r.stderr]).toEqual([65, '', `interleave: ${f}:1: a trace with at least one event (the file has a header or blank lines only)\n`]);
    expect((await validateRunTrace('fusee', f)).validation).toEqual({ status: 'not-run', detail: 'the trace has no events' });
  });

  it('names from a trace are quoted, never written raw to the terminal: no escape sequence or bell reaches stderr (review3 defect 6)', async () => {
    const header = JSON.stringify({ format: 'interleave-trace/1', spec: 'minos', params: { n: 3, model: 'scope', offload: false, keys: 8, bugs: [] } });
    const evil = 'n0\u001b[31mRED\u0007\u009b2J';
    const cases: [string, RegExp][] = [
      [JSON.stringify({ proc: evil, seq: 1, action: 'recover', args: {}, time: 1 }), /not "n0\\u001b\[31mRED\\u0007\\u009b2J" \(recover\)/],
      [JSON.stringify({ proc: 'n0', seq: 1, action: evil, args: {}, time: 1 }), /vocabulary .*not "n0\\u001b\[31mRED\\u0007\\u009b2J"/],
    ];
    for (const [i, [event, message]] of cases.entries()) {
      const f = join(dir, `esc${i}.jsonl`);
      writeFileSync(f, `${header}\n${event}\n`);
      const r = await run('minos', [f]);
      expect(r.code).toBe(65);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
  });

  it("takes a user's module whose SpecDef has `trace`, as the other commands take modules", async () => {
    const fixtures = pathToFileURL(join(import.meta.dirname, '..', 'checkers', 'validate', 'fixtures.ts')).href;
    const def = (trace: string) => `import { registerTrace } from ${JSON.stringify(fixtures)};
export const reg = {
  name: 'my-register',
  configs: [{ name: 'one', description: 'one register', config: undefined, tier: 'default' }],
  build: () => { throw new Error('validation builds no machine'); },
  ${trace}
};\n`;
    const mod = join(dir, 'my-register.ts');
    writeFileSync(mod, def('trace: registerTrace(),'));
    const w = (proc: string, seq: number, v: number, objSeq = v) => JSON.stringify({ proc, seq, action: 'write', args: { v }, obj: 'reg', objSeq });
    const ok = join(dir, 'reg-ok.jsonl');
    writeFileSync(ok, `${w('p0', 1, 1)}\n${w('p1', 1, 2)}\n`);
    const bad = join(dir, 'reg-bad.jsonl');
    writeFileSync(bad, `${w('p0', 1, 1)}\n${JSON.stringify({ proc: 'p1', seq: 1, action: 'read', args: { v: 7 }, obj: 'reg', objSaw: 1 })}\n`);
    const valid = await run(mod, [ok]);
    expect([valid.code, valid.stdout]).toEqual([0, expect.stringContaining('VALID')]);
    expect((await run(`${mod}#reg`, [bad])).code).toBe(1);
    const noTrace = join(dir, 'no-trace.ts');
    writeFileSync(noTrace, def(''));
    const refused = await run(noTrace, [ok]);
    expect([refused.code, refused.stderr]).toEqual([64, expect.stringContaining(`${noTrace} (reg) has no trace mapping`)]);
    const wrong = join(dir, 'wrong-trace.ts');
    writeFileSync(wrong, def('trace: { configs: [] },'));
    const malformed = await run(wrong, [ok]);
    expect([malformed.code, malformed.stderr]).toEqual([65, expect.stringContaining('reg.trace: a TraceSpec {configs')]);
  });
});
