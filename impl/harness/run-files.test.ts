import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeWorkDir, removeEarlierRunFiles } from './run.ts';

const root = mkdtempSync(join(tmpdir(), 'run-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a run's files in a directory accepted with --force", () => {
  it("the processes get a directory of their own: procs, else procs-2, ...; an existing one is neither reused nor emptied", () => {
    const dir = join(root, 'work');
    mkdirSync(join(dir, 'procs'), { recursive: true });
    writeFileSync(join(dir, 'procs', 'notes.txt'), 'precious');
    writeFileSync(join(dir, 'procs-2'), 'a file, not a directory');
    expect(makeWorkDir(dir)).toBe(join(dir, 'procs-3'));
    expect(makeWorkDir(dir)).toBe(join(dir, 'procs-4'));
    expect(readFileSync(join(dir, 'procs', 'notes.txt'), 'utf8')).toBe('precious');
    const fresh = join(root, 'fresh');
    mkdirSync(fresh);
    expect(makeWorkDir(fresh)).toBe(join(fresh, 'procs'));
  });

  it("an earlier run's files this run did not write are removed; the user's files are kept", () => {
    const dir = join(root, 'earlier');
    mkdirSync(join(dir, 'report.windows'), { recursive: true });
    for (const f of ['history.jsonl', 'crash-history.jsonl', 'durability.jsonl', 'validation.html', 'notes.txt']) writeFileSync(join(dir, f), 'old');
    writeFileSync(join(dir, 'report.windows', 'p0-w1.html'), 'old');
    writeFileSync(join(dir, 'report.windows', 'p0-w2.html'), 'old');
    writeFileSync(join(dir, 'report.windows', 'mine.txt'), 'keep');
    mkdirSync(join(dir, 'report.html')); // not a file: not touched
    symlinkSync(join(dir, 'notes.txt'), join(dir, 'trace.jsonl')); // a link: not followed, not removed
    const written = new Set([resolve(dir, 'history.jsonl'), resolve(dir, 'report.windows', 'p0-w1.html')]);
    const removed = removeEarlierRunFiles(dir, written).map((p) => p.slice(dir.length + 1)).sort();
    expect(removed).toEqual(['crash-history.jsonl', 'durability.jsonl', 'report.windows/p0-w2.html', 'validation.html']);
    expect(readFileSync(join(dir, 'history.jsonl'), 'utf8')).toBe('old'); // written by this run (here: kept as is)
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('old');
    expect(readFileSync(join(dir, 'report.windows', 'mine.txt'), 'utf8')).toBe('keep');
    expect(existsSync(join(dir, 'report.windows', 'p0-w1.html'))).toBe(true);
    expect(existsSync(join(dir, 'report.html'))).toBe(true);
    expect(existsSync(join(dir, 'trace.jsonl'))).toBe(true);
  });

  it('an emptied report.windows/ is removed', () => {
    const dir = join(root, 'windows');
    mkdirSync(join(dir, 'report.windows'), { recursive: true });
    writeFileSync(join(dir, 'report.windows', 'p3-w12.html'), 'old');
    removeEarlierRunFiles(dir, new Set());
    expect(existsSync(join(dir, 'report.windows'))).toBe(false);
  });
});
