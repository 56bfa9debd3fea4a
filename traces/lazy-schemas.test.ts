// The CLI's import path (traces/import.ts, without traces/index.ts) loads zod only when a
// history needs it, and then reads it again with zod: the same operations, verdicts and
// messages as with the schemas loaded from the start. Each case takes fresh modules, so
// that the schemas start unloaded (this file must not import traces/index.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';

async function fresh() {
  vi.resetModules();
  const { importHistoryFile } = await import('./import.ts');
  const { schemasLoaded } = await import('./lazy-schemas.ts');
  expect(schemasLoaded()).toBe(false);
  return { importHistoryFile, schemasLoaded };
}

const dir = mkdtempSync(join(tmpdir(), 'interleave-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

it('reads a well-formed JSON-lines history without zod, and loads it for a refused record', async () => {
  const { importHistoryFile, schemasLoaded } = await fresh();
  const good = file('good.jsonl', '{"client":0,"input":{"f":"write","value":1},"call":0,"return":1}\n{"client":1,"input":{"f":"read"},"call":2,"return":3,"output":1}\n');
  const h = await importHistoryFile(good, { model: 'register' });
  expect(h.operations).toHaveLength(2);
  expect(schemasLoaded()).toBe(false);

  const bad = file('bad.jsonl', '{"client":0,"input":{"f":"write","value":1},"call":0,"return":1}\n{"client":0,"input":{"f":"read"},"call":-1,"return":3,"output":1}\n');
  await expect(importHistoryFile(bad, { model: 'register' })).rejects.toThrow(`${bad}:2: "call" to be a time ≥ 0 (got -1)`);
  expect(schemasLoaded()).toBe(true);
});

it('an EDN history is read through zod, loaded on the way', async () => {
  const { importHistoryFile, schemasLoaded } = await fresh();
  const edn = file('h.edn', '{:process 0, :type :invoke, :f :write, :value 1}\n{:process 0, :type :ok, :f :write, :value 1}\n{:process 1, :type :invoke, :f :read}\n{:process 1, :type :ok, :f :read, :value 1}\n');
  const h = await importHistoryFile(edn, { model: 'register' });
  expect(h.format).toBe('edn');
  expect(h.operations.map((o) => [o.input, o.output])).toEqual([[{ f: 'write', value: 1 }, null], [{ f: 'read' }, 1]]);
  expect(schemasLoaded()).toBe(true);
  const bad = file('bad.edn', '{:process 0, :type :nope, :f :write, :value 1}\n');
  await expect(importHistoryFile(bad, { model: 'register' })).rejects.toThrow(`${bad}:1: :type to be one of :invoke, :ok, :fail, :info (got "nope")`);
});
