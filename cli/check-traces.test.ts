import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLED_DIR, checkBundledTraces, readManifest } from './check-traces.ts';

const dir = mkdtempSync(join(tmpdir(), 'interleave-bundled-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bundled traces', () => {
  it('every bundled history gives its expected verdict', async () => {
    const rows = await checkBundledTraces();
    expect(rows.length).toBe(readManifest().length);
    expect(rows.filter((r) => !r.pass)).toEqual([]);
    // Every model and format is covered, with linearizable and illegal histories.
    expect(new Set(rows.map((r) => r.format))).toEqual(new Set(['jsonl', 'edn', 'jepsen-log']));
    for (const model of ['register', 'cas-register', 'etcd-cas-register', 'kv-append', 'set', 'queue', 'mutex']) {
      expect(new Set(rows.filter((r) => r.model === model).map((r) => r.expected))).toEqual(new Set(['ok', 'illegal']));
    }
  });

  it('a wrong expectation or a broken file fails its row', async () => {
    for (const f of readdirSync(BUNDLED_DIR)) copyFileSync(join(BUNDLED_DIR, f), join(dir, f));
    const manifest = readFileSync(join(BUNDLED_DIR, 'manifest.tsv'), 'utf8')
      .replace('register-ok.jsonl\tjsonl\tregister\tok', 'register-ok.jsonl\tjsonl\tregister\tillegal');
    writeFileSync(join(dir, 'manifest.tsv'), manifest);
    writeFileSync(join(dir, 'mutex-bad.edn'), '{:process 0, :type :invoke');
    const rows = await checkBundledTraces({ dir });
    const failed = rows.filter((r) => !r.pass);
    expect(failed.map((r) => [r.path, r.got])).toEqual([
      ['register-ok.jsonl', 'ok'],
      ['mutex-bad.edn', 'error'],
    ]);
    expect(failed[1]!.error).toMatch(/mutex-bad\.edn:1: a closing \}/);
  });
});
