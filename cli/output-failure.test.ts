// A write that fails half-way (ENOSPC: a full device; EIO) is injected into node:fs, so
// that this runs on any machine; cli/hardening.test.ts does the same on a real full tmpfs
// where it can mount one. The output is refused with exit 73 after the verdict, and
// nothing is left behind: no partial file, no temporary file.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

const failure = vi.hoisted(() => ({ code: undefined as string | undefined }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const writeSync = ((fd: number, buffer: Uint8Array, offset?: number, length?: number) => {
    if (failure.code === undefined) return fs.writeSync(fd, buffer, offset, length);
    // Part of the data reaches the disk, then the device is full.
    fs.writeSync(fd, buffer, offset, Math.min(length ?? buffer.length, 100));
    throw Object.assign(new Error(`${failure.code}: injected`), { code: failure.code });
  }) as typeof fs.writeSync;
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});

const { runInProcess } = await import('./in-process.ts');

const dir = mkdtempSync(join(tmpdir(), 'interleave-output-failure-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an output write that fails after the check', () => {
  const history = join(import.meta.dirname, '..', 'traces', 'bundled', 'register-stale-read.jsonl');

  for (const [code, reason] of [['ENOSPC', 'no space left on the device'], ['EIO', 'EIO']] as const) {
    it(`${code}: the verdict first, then exit 73, and no file left behind`, async () => {
      failure.code = code;
      try {
        const out = join(dir, `${code}.html`);
        const r = await runInProcess('lin', history, '--model', 'register', '--html', out);
        expect(r.code).toBe(73);
        expect(r.stdout).toMatch(/verdict: +NOT linearizable/);
        expect(r.stderr).toBe(`interleave: cannot write ${out}: ${reason}\n`);
        expect(readdirSync(dir)).toEqual([]);
      } finally {
        failure.code = undefined;
      }
    });
  }

  it('with --force over an existing file, the old file stays whole', async () => {
    const out = join(dir, 'old.html');
    writeFileSync(out, 'the previous report');
    failure.code = 'ENOSPC';
    try {
      const r = await runInProcess('explore', 'shadowfax', '--config', 'B0', '--mutant', 'M1', '--html', out, '--force', '--json');
      expect(r.code).toBe(73);
      expect(JSON.parse(r.stdout)).toMatchObject({ exitCode: 73, result: { outputErrors: [`cannot write ${out}: no space left on the device`] } });
      expect(readFileSync(out, 'utf8')).toBe('the previous report');
      expect(readdirSync(dir)).toEqual(['old.html']);
    } finally {
      failure.code = undefined;
    }
  });
});
