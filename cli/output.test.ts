import { linkSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutputError, prepareOutputDir, writeOutput } from './output.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'interleave-output-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeOutput', () => {
  it('writes a new file, leaving no temporary file behind', () => {
    writeOutput(join(dir, 'a.html'), 'hello', { inputs: [] });
    expect(readFileSync(join(dir, 'a.html'), 'utf8')).toBe('hello');
    expect(readdirSync(dir)).toEqual(['a.html']);
  });

  it('refuses to replace an existing file without force, and replaces it with force', () => {
    const out = join(dir, 'a.html');
    writeFileSync(out, 'mine');
    expect(() => writeOutput(out, 'x', { inputs: [] })).toThrow(/exists.*--force/);
    expect(readFileSync(out, 'utf8')).toBe('mine');
    writeOutput(out, 'new', { inputs: [], force: true });
    expect(readFileSync(out, 'utf8')).toBe('new');
  });

  it('never replaces an input, reached directly, through a symbolic link or a hard link, even with force', () => {
    const input = join(dir, 'h.edn');
    writeFileSync(input, 'history');
    symlinkSync(input, join(dir, 'sym.html'));
    linkSync(input, join(dir, 'hard.html'));
    for (const out of [input, join(dir, 'sym.html'), join(dir, 'hard.html')]) {
      expect(() => writeOutput(out, 'x', { inputs: [input], force: true })).toThrow(OutputError);
    }
    expect(readFileSync(input, 'utf8')).toBe('history');
  });

  it('refuses a directory and a missing directory', () => {
    expect(() => writeOutput(dir, 'x', { inputs: [], force: true })).toThrow(/directory/);
    expect(() => writeOutput(join(dir, 'no', 'a.html'), 'x', { inputs: [] })).toThrow(/no such directory/);
  });
});

describe('prepareOutputDir', () => {
  it('creates a missing directory, accepts an empty one, refuses a non-empty one without force', () => {
    const out = join(dir, 'run');
    prepareOutputDir(out, { inputs: [] });
    prepareOutputDir(out, { inputs: [] });
    writeFileSync(join(out, 'history.edn'), 'x');
    expect(() => prepareOutputDir(out, { inputs: [] })).toThrow(/not empty/);
    prepareOutputDir(out, { inputs: [], force: true });
  });

  it('refuses a path that is a file', () => {
    writeFileSync(join(dir, 'f'), 'x');
    expect(() => prepareOutputDir(join(dir, 'f'), { inputs: [] })).toThrow(/not a directory/);
  });
});
