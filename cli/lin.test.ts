import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CommandJsonSchemas } from './json.ts';
import { VERSION } from './package-root.ts';
import { models } from '../checkers/lin/index.ts';
import { UNKNOWN } from '../checkers/lin/types.ts';
import { vocabularyOf } from '../traces/vocabulary.ts';
import { jsonlLines } from '../traces/write-jsonl.ts';
import { generateHistory } from '../checkers/lin/generate.ts';
import { runInProcess } from './in-process.ts';
import { runLin, type LinJson, type LinOptions } from './lin.ts';

const corpus = '../shared/corpora/porcupine';
const dir = mkdtempSync(join(tmpdir(), 'interleave-lin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The real command, as a user runs it. */
function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/interleave.js', 'lin', ...args], { encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

async function run(file: string, options: Partial<LinOptions>) {
  let stdout = '';
  let stderr = '';
  const code = await runLin(file, { format: 'auto', model: 'etcd-cas-register', ...options }, {
    out: (s) => (stdout += s),
    err: (s) => (stderr += s),
  });
  return { code, stdout, stderr };
}

describe('interleave lin (spawned)', () => {
  it('exit codes and output of the real command', async () => {
    const badData = join(dir, 'bad.edn');
    writeFileSync(badData, '{:process 0, :type :invoke, :f :read, :value nil}\n{:process 0, :type :ok, :f :write, :value 1}\n');
    // Started together: each process spends most of its time starting up. One real process
    // per exit code; the other cases of a code run through the same command in this process.
    const [illegal, ok, bad, model] = await Promise.all([
      cli(`${corpus}/jepsen/etcd_000.log`, '--model', 'etcd-cas-register'),
      cli(`${corpus}/jepsen/etcd_002.log`, '--model', 'etcd-cas-register'),
      cli(badData, '--model', 'register'),
      cli(`${corpus}/jepsen/etcd_002.log`, '--model', 'nope'),
    ]);
    const kv = await runInProcess('lin', `${corpus}/kv/c01-ok.txt`, '--model', 'kv-append');
    const flag = await runInProcess('lin', `${corpus}/jepsen/etcd_002.log`, '--model', 'register', '--timeout', 'soon');
    expect(illegal.code).toBe(1);
    expect(illegal.stdout).toMatch(/^history: +\S*etcd_000\.log \(jepsen-log; 16 indeterminate\)\nverdict: +NOT linearizable\n/);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/verdict: +linearizable/);
    expect(ok.stderr).toBe('');
    expect(kv.code).toBe(0);
    expect(kv.stdout).toMatch(/c01-ok\.txt \(edn; 0 indeterminate\)/);
    // Bad data: file:line and what was expected, no stack trace.
    expect(bad.code).toBe(65);
    expect(bad.stderr).toBe(`interleave: ${badData}:2: a completion of :read (invoked on line 1 by process 0), not of :write\n`);
    expect(bad.stdout).toBe('');
    expect(model.code).toBe(64);
    expect(model.stderr).toMatch(/nope/);
    expect(model.stderr).toMatch(/etcd-cas-register/);
    expect(flag.code).toBe(64);
    expect(flag.stderr).toMatch(/--timeout/);
  });

  it('a search that fills its share of a small heap: exit 2 and what to do, not a V8 crash (issue 21, lin-mem)', async () => {
    // A queue no heap here decides (checkers/lin/memory.test.ts); before, node aborted
    // ("JavaScript heap out of memory", exit 134) under any heap smaller than its memo's budget.
    const file = join(dir, 'hard-queue.jsonl');
    writeFileSync(file, jsonlLines(generateHistory({ family: 'queue', ops: 300, clients: 16, crashRate: 0.03, seed: 4 }).history).join('\n') + '\n');
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--max-old-space-size=100', 'bin/interleave.js', 'lin', file, '--model', 'queue'], { encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
      });
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/verdict: +unknown/);
    expect(r.stdout).toMatch(/\(1 memory\)/);
    // 60% of what the old generation's 100 MB had left when the search started, and under 85% of it.
    const bound = Number(/The search filled the heap it may use \((\d+) MB still in use after a full collection\)/.exec(r.stdout)?.[1]);
    expect(bound).toBeGreaterThanOrEqual(60);
    expect(bound).toBeLessThanOrEqual(85);
    expect(r.stdout).toMatch(/NODE_OPTIONS=--max-old-space-size=<MB>/);
    // At a memo budget below that share the memo's budget is what ends it, and the output names it.
    const memo = await run(file, { model: 'queue', memoBudget: 16, json: true });
    expect(memo.code).toBe(2);
    const json = JSON.parse(memo.stdout).result as LinJson & { hint: string };
    expect(json.partitions[0]).toMatchObject({ reason: 'memory', memoryLimit: { of: 'memo', bytes: 16 * 2 ** 20 } });
    expect(json.hint).toMatch(/The memo's budget was 16 MB per partition: raise it with --memo-budget <MB>/);
  });
});

describe('interleave lin (spawned): what the readers refused or misread at main (review, 25 Nov)', () => {
  it('a write of null is one; a key on a model without keys, a set read of no collection, an EDN string process are bad input; a client name reaches the terminal escaped', async () => {
    const file = (name: string, lines: string[]) => {
      const path = join(dir, name);
      writeFileSync(path, lines.map((l) => `${l}\n`).join(''));
      return path;
    };
    const writeNull = file('w3.jsonl', ['{"client":0,"input":{"f":"write","value":null},"call":0,"return":1}', '{"client":1,"input":{"f":"read"},"output":null,"call":2,"return":3}']);
    const keyed = file('kr.jsonl', ['{"client":0,"input":{"f":"write","key":"a","value":1},"call":0,"return":1}', '{"client":1,"input":{"f":"read","key":"b"},"output":null,"call":2,"return":3}']);
    const unkeyed = file('ik.jsonl', ['{"client":0,"input":{"f":"write","key":"a","value":1},"call":0,"return":1}', '{"client":1,"input":{"f":"write","value":["a",2]},"call":2,"return":3}']);
    const setRead = file('s5.jsonl', ['{"client":0,"input":{"f":"read"},"output":5,"call":0,"return":1}']);
    const procFile = file('p.edn', ['{:process "a", :type :invoke, :f :read, :value nil}', '{:process :a, :type :ok, :f :read, :value nil}']);
    const escape = file('esc.jsonl', ['{"client":"a\\u001b[31mRED\\u001b[0m","input":{"f":"write","value":1},"call":0,"return":1}', '{"client":1,"input":{"f":"read"},"output":2,"call":2,"return":3}']);
    const [ok, key, independent, set, proc, esc] = await Promise.all([
      cli(writeNull, '--model', 'register'),
      cli(keyed, '--model', 'register'),
      cli(unkeyed, '--model', 'register', '--independent'),
      cli(setRead, '--model', 'set'),
      cli(procFile, '--model', 'register'),
      cli(escape, '--model', 'register'),
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/verdict: +linearizable/);
    expect(key.code).toBe(65);
    expect(key.stderr).toMatch(new RegExp(`^interleave: ${keyed}:1: no key for "write" \\(got "a"\\): model register has no keys.*--independent`));
    expect(key.stdout).toBe('');
    expect(independent.code).toBe(65);
    expect(independent.stderr).toMatch(new RegExp(`^interleave: ${unkeyed}:2: an "input"\\."key" for "write": --independent`));
    expect(set.code).toBe(65);
    expect(set.stderr).toBe(`interleave: ${setRead}:1: the members of the set as the result of "read" of model set (an array), not 5\n`);
    expect(proc.code).toBe(65);
    expect(proc.stderr).toMatch(new RegExp(`^interleave: ${procFile}:1: :process to be an integer ≥ 0 or a keyword like :nemesis \\(got the string "a"`));
    expect(esc.code).toBe(1);
    expect(esc.stdout).not.toContain('\u001b');
    expect(esc.stdout).toContain('#0 client "a\\u001b[31mRED\\u001b[0m": write(1)');
  });
});

describe('interleave lin', () => {
  it('the importers know the functions of every registered model, and the model accepts them', () => {
    const expected: Record<string, string[]> = {
      register: ['read', 'write'],
      'cas-register': ['read', 'write', 'cas'],
      'etcd-cas-register': ['read', 'write', 'cas'],
      'kv-append': ['get', 'put', 'append'],
      'kv-append-unpartitioned': ['get', 'put', 'append'],
      set: ['add', 'read'],
      queue: ['enqueue', 'dequeue'],
      mutex: ['acquire', 'release'],
    };
    expect(Object.keys(models).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, model] of Object.entries(models)) {
      const vocabulary = vocabularyOf(model);
      expect(Object.keys(vocabulary.functions).sort(), name).toEqual([...expected[name]!].sort());
      for (const [f, kind] of Object.entries(vocabulary.functions)) {
        const input = { f, ...(name.startsWith('kv') ? { key: 'k' } : {}), ...(kind === 'cas' ? { value: [0, 1] } : kind === 'update' ? { value: name.startsWith('kv') ? 'v' : 1 } : {}) };
        expect(() => model.step(model.init(), input, UNKNOWN), `${name} ${f}`).not.toThrow();
      }
    }
  });

  it('checks the kv EDN corpus, partitioned on worker threads', async () => {
    const r = await run(`${corpus}/kv/c01-ok.txt`, { model: 'kv-append' });
    expect(r.code).toBe(0);
    const bad = await run(`${corpus}/kv/c10-bad.txt`, { model: 'kv-append', workers: 2 });
    expect(bad.code).toBe(1);
  });

  it('--json gives the documented object, naming the file lines of the diagnosis', async () => {
    const r = await run(`${corpus}/jepsen/etcd_000.log`, { json: true });
    expect(r.code).toBe(1);
    const envelope = CommandJsonSchemas.lin.parse(JSON.parse(r.stdout));
    expect(envelope).toMatchObject({ command: 'lin', version: VERSION, exitCode: 1 });
    const j = envelope.result as unknown as LinJson;
    expect(j).toMatchObject({ format: 'jepsen-log', model: 'etcd-cas-register', verdict: 'illegal', failedDropped: 0, nemesisSkipped: 0 });
    expect(j.operations).toBeGreaterThan(0);
    expect(j.partitions.some((p) => p.verdict === 'illegal')).toBe(true);
    const referenced = Object.values(j.referencedOperations);
    expect(referenced.length).toBeGreaterThan(0);
    for (const op of referenced) {
      expect(op.line).toBeGreaterThanOrEqual(1);
      expect(op.description.length).toBeGreaterThan(0);
    }
  });

  it('a timeout gives exit 2, verdict unknown', async () => {
    const r = await run(`${corpus}/kv/c10-ok.txt`, { model: 'kv-append-unpartitioned', timeout: 0.001, json: true });
    expect(r.code).toBe(2);
    expect((JSON.parse(r.stdout).result as LinJson).verdict).toBe('unknown');
  });

  it('a missing file and a wrong --format are bad input (65)', async () => {
    const missing = await run(join(dir, 'absent.log'), {});
    expect(missing.code).toBe(65);
    expect(missing.stderr).toBe(`interleave: ${join(dir, 'absent.log')}: a readable history file (no such file)\n`);
    const wrong = await run(`${corpus}/jepsen/etcd_002.log`, { format: 'jsonl' });
    expect(wrong.code).toBe(65);
    expect(wrong.stderr).toMatch(/etcd_002\.log:1: a JSON object/);
  });
});
