// Validating FUSEE traces (trace.ts) on traces the spec itself generates (simulate.ts), in
// the trace vocabulary (README.md, "The trace vocabulary"): every generated trace
// validates, whatever its shape; the reduced search agrees with the plain one; each kind of
// corruption is rejected with its diagnosis; runs of mutants are caught. And the README's
// vocabulary is the one trace.ts reads.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError, validateFiles, validateMemory, type ValidateResult } from '../../checkers/validate/index.ts';
import { simulateFiles, simulateToDir, type SimOptions } from './simulate.ts';
import { fuseeTrace } from './trace.ts';

const spec = { name: 'fusee', trace: fuseeTrace };
type Line = Record<string, any>;
type Files = { name: string; lines: Line[] }[];
const sim = (o: SimOptions): Files => simulateFiles(o).files as Files;
const validate = (files: Files, exhaustive = false): ValidateResult => validateMemory(files, spec, { exhaustive });
const events = (f: { lines: Line[] }): Line[] => f.lines.filter((l) => 'proc' in l);
const renumber = (f: { lines: Line[] }): void => events(f).forEach((l, i) => (l.seq = i + 1));
const fileOf = (files: Files, proc: string) => files.find((f) => f.name === `${proc}.jsonl`)!;
const dir = mkdtempSync(join(tmpdir(), 'fusee-trace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the trace vocabulary (README.md)', () => {
  const readme = readFileSync(join(import.meta.dirname, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## The trace vocabulary\n'), readme.indexOf('\n## Validating implementation traces'));

  it('names every action trace.ts reads, and its example validates', () => {
    expect(section.length).toBeGreaterThan(100);
    // The vocabulary as trace.ts has it: the list its check gives for an unknown action.
    const mapping = fuseeTrace.open({ params: { replicas: { k0: [0, 1] } }, config: 'free' });
    const vocabulary = /vocabulary \(([^)]*)\)/.exec(mapping.check({ proc: 'c0', seq: 1, action: 'nope' })!)![1].split(', ');
    expect(vocabulary.length).toBeGreaterThan(10);
    const table = new Set([...section.matchAll(/^\| ([^|]*) \|/gm)].flatMap((m) => [...m[1].matchAll(/`(\w+)`/g)].map((x) => x[1])));
    expect([...table].sort()).toEqual([...vocabulary].sort());
    const example = /\*\*Example\*\*[\s\S]*?```\n([\s\S]*?)```/.exec(section)![1].trim().split('\n');
    const r = validateMemory([{ name: 'example.jsonl', lines: example }], spec);
    expect([r.verdict, r.events]).toEqual(['valid', example.length - 1]);
  });

  it("the header's error cites it", () => {
    expect(() => fuseeTrace.open({ params: {}, config: 'free' })).toThrow(/specs\/fusee\/README\.md, "The trace vocabulary"/);
  });
});

describe('fusee traces: generated runs validate', () => {
  it('80 runs of many shapes: keys, clients, replicas, memory nodes, crashes, lost lines, timeouts, CAS order, with and without time', () => {
    for (let seed = 1; seed <= 80; seed++) {
      const r = 2 + (seed % 3);
      const o: SimOptions = {
        seed,
        clients: 2 + (seed % 5),
        keys: 1 + (seed % 4),
        ops: 30 + (seed % 50),
        r,
        mns: r + (seed % 3 === 0 ? 2 : 0),
        clientKills: seed % 4,
        timeouts: seed % 3 === 1 ? 1 : 0,
        mnKills: seed % 3,
        lose: seed % 2 === 0 ? 1 : 0.3,
        casOrder: seed % 5 === 0 ? 'fixed' : 'free',
        time: seed % 4 !== 3,
        hotKeys: seed % 6 === 0,
      };
      const files = sim(o);
      const result = validateMemory(files, spec, { config: o.casOrder });
      expect([seed, result.verdict, result.failure?.why]).toEqual([seed, 'valid', undefined]);
    }
  });

  it("keys no client touched still see the master's fence and decisions", () => {
    let episodes = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const files = sim({ seed, clients: 3, keys: 40, ops: 40, mnKills: 1, clientKills: 1 });
      if (files.some((f) => f.name === 'master.jsonl' && f.lines.some((l) => l.action === 'decide'))) episodes++;
      const r = validate(files);
      expect([seed, r.verdict, r.failure?.why]).toEqual([seed, 'valid', undefined]);
    }
    expect(episodes).toBeGreaterThan(2);
  });

  it('a killed client that lost the line of its last step: the search fills the step in', () => {
    let filled = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const files = sim({ seed, clients: 4, keys: 1, ops: 40, clientKills: 3, lose: 1 });
      const r = validate(files);
      expect(r.verdict).toBe('valid');
      filled += r.perPartition.reduce((n, p) => n + p.filled, 0);
    }
    expect(filled).toBeGreaterThan(0);
  });

  it('the reduced search agrees with the plain one (every interleaving) on small runs', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const files = sim({ seed, clients: 2, keys: 1, ops: 6, clientKills: seed % 2, mnKills: seed % 3 === 0 ? 1 : 0, r: 2 + (seed % 2) });
      const reduced = validate(files);
      const plain = validate(files, true);
      expect([seed, reduced.verdict, plain.verdict]).toEqual([seed, 'valid', 'valid']);
      expect(reduced.maxFrontier).toBeLessThanOrEqual(plain.maxFrontier);
    }
  });

  it('traces on disk, one file per process and all in one file, read the same', async () => {
    const d = mkdtempSync(join(dir, 'run-'));
    const { files } = simulateToDir({ seed: 4, clients: 4, keys: 3, ops: 120, clientKills: 1, mnKills: 1 }, d);
    const a = await validateFiles(files, spec);
    expect(a.verdict).toBe('valid');
    // One file, all processes interleaved by time (as the harness may write trace.jsonl).
    const all = files.flatMap((f) => readFileSync(f, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l) as Line));
    all.sort((x, y) => x.time - y.time);
    const one = join(d, 'trace.jsonl');
    writeFileSync(one, `${readFileSync(files[0], 'utf8').split('\n')[0]}\n${all.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const b = await validateFiles([one], spec);
    expect([b.verdict, b.matched, b.events]).toEqual(['valid', a.matched, a.events]);
  });
});

// Issue 15: memory independent of the trace's length. The same workload (clients, keys,
// seed) for 1x and 10x the operations: the frontier of candidate states stays where it was
// (it is the concurrency at one point of the trace, not its history), and the read-ahead
// (events read and not yet matched: the per-process files drift apart) grows far slower
// than the trace. Counts, not times: the same on a busy machine.
describe('fusee traces: memory does not grow with length', () => {
  it('1x and 10x the length of the same workload: the same frontier, read-ahead well under 10x', () => {
    for (const seed of [1, 2]) {
      const [short, long] = [200, 2000].map((ops) => validate(sim({ seed, clients: 8, keys: 8, ops })));
      expect([short.verdict, long.verdict]).toEqual(['valid', 'valid']);
      expect(long.events).toBeGreaterThan(9 * short.events);
      expect([seed, long.maxFrontier]).toEqual([seed, short.maxFrontier]);
      expect(long.maxBuffered).toBeLessThan(3 * short.maxBuffered);
    }
  });
});

describe('fusee traces: corruptions are rejected with the right diagnosis', () => {
  // A run with enough going on, and the client whose events are corrupted.
  const base = (): Files => sim({ seed: 11, clients: 3, keys: 1, ops: 40 });
  /** The first write of `proc` that reads the primary and CASes a backup, after its first few events. */
  const writeOf = (f: { lines: Line[] }): number => events(f).findIndex((l, i) => i > 3 && l.action === 'readPrimary' && events(f)[i + 1]?.action === 'casBackup');

  it('a step dropped (the seqs renumbered): the next step of that client is not enabled', () => {
    const files = base();
    const f = fileOf(files, 'c1');
    const i = writeOf(f);
    const dropped = events(f)[i];
    f.lines.splice(f.lines.indexOf(dropped), 1);
    renumber(f);
    const r = validate(files);
    expect(r.verdict).toBe('invalid');
    expect(r.failure!.event).toMatchObject({ proc: 'c1', seq: dropped.seq, action: 'casBackup' });
    expect(r.failure!.why).toMatchObject({ kind: 'guard', step: expect.stringMatching(/^casBackup\(c1, mn\d\)$/) });
    expect((r.failure!.why as { message: string }).message).toMatch(/^c1 is at W1 \(to read the primary, Alg\. 1 l\.6\), not W2/);
  });

  it('a step dropped as a line (seqs left as they were): bad input, the missing seq named', async () => {
    const files = base();
    const f = fileOf(files, 'c1');
    const dropped = events(f)[writeOf(f)];
    f.lines.splice(f.lines.indexOf(dropped), 1);
    expect(() => validate(files)).toThrow(InputError);
    try {
      validate(files);
    } catch (e) {
      expect((e as InputError).file).toBe('c1.jsonl');
      expect((e as InputError).expected).toBe(`seq ${dropped.seq} of process c1 next (found ${dropped.seq + 1}: event ${dropped.seq} missing)`);
    }
  });

  it('two dependent steps swapped (a backup CAS before the primary read it needs)', () => {
    const files = base();
    const f = fileOf(files, 'c1');
    const i = writeOf(f);
    const evs = events(f);
    const [read, cas] = [evs[i], evs[i + 1]];
    const seq = read.seq;
    const a = f.lines.indexOf(read);
    [f.lines[a], f.lines[a + 1]] = [cas, read];
    renumber(f);
    const r = validate(files);
    expect(r.verdict).toBe('invalid');
    expect(r.failure!.event).toMatchObject({ proc: 'c1', seq, action: 'casBackup' });
    expect(r.failure!.why).toMatchObject({ kind: 'guard' });
    expect((r.failure!.why as { message: string }).message).toMatch(/c1 is at W1/);
  });

  it('two changes of one object swapped (objSeq exchanged)', () => {
    // Changes n and n + 1 of a backup's slot by two clients, exchanged. Where a client has
    // seen the slot in between, the trace contradicts itself (bad input); otherwise the
    // values the later steps saw no longer fit.
    let invalid = 0;
    let contradictions = 0;
    for (let n = 2; n < 12; n++) {
      const files = base();
      const changes = files.flatMap((f) => events(f)).filter((l) => l.obj === 'mn1/k0' && l.objSeq !== undefined && l.proc !== 'master');
      const x = changes.find((l) => l.objSeq === n);
      const y = changes.find((l) => l.objSeq === n + 1);
      if (!x || !y || x.proc === y.proc) continue;
      [x.objSeq, y.objSeq] = [y.objSeq, x.objSeq];
      try {
        const r = validate(files);
        expect(r.verdict).toBe('invalid');
        // A value that no longer fits, or an order that became cyclic.
        expect(['observed', 'guard', 'order']).toContain(r.failure!.why.kind);
        if (r.failure!.why.kind === 'order') expect(r.failure!.why.message).toMatch(/has a cycle: .*mn1\/k0/);
        invalid++;
      } catch (e) {
        expect(e).toBeInstanceOf(InputError);
        expect((e as InputError).expected).toMatch(/^mn1\/k0 seen in order by c\d/);
        contradictions++;
      }
    }
    expect(invalid).toBeGreaterThan(0);
    expect(invalid + contradictions).toBeGreaterThan(3);
  });

  it('a value changed: the observed value and the spec value are both named', () => {
    const files = base();
    const f = fileOf(files, 'c2');
    const read = events(f).find((l, i) => i > 3 && l.action === 'readPrimary')!;
    const truth = read.args.result as number;
    read.args.result = truth + 1000;
    const r = validate(files);
    expect(r.verdict).toBe('invalid');
    expect(r.failure!.event).toMatchObject({ proc: 'c2', seq: read.seq, action: 'readPrimary' });
    expect(r.failure!.why).toMatchObject({ kind: 'observed', field: 'args.result', expected: truth + 1000, actual: truth, at: 'before', what: expect.stringMatching(/^mn\d\/k0's value$/) });
  });

  it('a step attributed to the wrong process', () => {
    const files = base();
    const from = fileOf(files, 'c1');
    const to = fileOf(files, 'c2');
    const cas = events(from)[writeOf(from) + 1];
    from.lines.splice(from.lines.indexOf(cas), 1);
    renumber(from);
    cas.proc = 'c2';
    // Where c2 stood at that time (by time), so that only the process is wrong.
    const at = to.lines.findIndex((l) => 'proc' in l && l.time > cas.time);
    to.lines.splice(at < 0 ? to.lines.length : at, 0, cas);
    renumber(to);
    const r = validate(files);
    expect(r.verdict).toBe('invalid');
    const tried = r.failure!.candidates[0].attempts.map((a) => `${a.event.proc} ${a.event.action}`);
    expect(tried).toContain('c2 casBackup');
    const c2 = r.failure!.candidates[0].attempts.find((a) => a.event.proc === 'c2' && a.event.action === 'casBackup')!;
    // c2 was not CASing a backup then, or its own write has another v_new: the CAS is not c2's.
    const why = c2.tries[0].why;
    if (why.kind === 'guard') expect(why.message).toMatch(/^c2 is at \w+ \(.*\), not W2 \(CASing the backups/);
    else expect(why).toMatchObject({ kind: 'observed', field: 'args.swap', path: expect.stringMatching(/^cl\[\d\]\.vNew$/), expected: cas.args.swap });
  });

  it('a truncated line and a malformed line: bad input with file and line', async () => {
    const d = mkdtempSync(join(dir, 'bad-'));
    const { files } = simulateToDir({ seed: 2, clients: 2, keys: 1, ops: 10 }, d);
    const victim = files.find((f) => f.endsWith('c0.jsonl'))!;
    const text = readFileSync(victim, 'utf8');
    const lines = text.split('\n');
    writeFileSync(victim, `${lines.slice(0, 4).join('\n')}\n${lines[4].slice(0, 30)}`);
    let e = await validateFiles(files, spec).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InputError);
    expect([(e as InputError).file, (e as InputError).line]).toEqual([victim, 5]);
    writeFileSync(victim, `${lines.slice(0, 2).join('\n')}\n{"proc": "c0", "seq": 2, "action": "readPrimary", "args": {"key": "k0", "mn": 0, "result": "nine"}}\n`);
    e = await validateFiles(files, spec).catch((x: unknown) => x);
    expect([(e as InputError).line, (e as InputError).expected]).toEqual([3, 'args.result: a value (an integer ≥ 0) or "FAIL" (readPrimary)']);
  });
});

describe("fusee traces: a reader's older view (impl/fusee, a harsh-stall run)", () => {
  // k0 on mn1 (primary), mn2, mn0. c2 CASes mn2 to 5 and crashes; mn0 crashes (c3's CAS of
  // it FAILs before the fence that diverts c3); the master's episode writes 5 into mn1 and
  // removes mn0; mn1 crashes next. A reader that has not heard of the reconfiguration reads
  // the primary mn1 (FAIL) and the backups of its view, mn2 and mn0: mn0 FAILs. The spec's
  // reader has the new view (backup mn2 only): the FAIL adds no value, so the trace matches
  // (it did not before: the harsh-stall run H-m2500-s7-28378, its c10, in the report).
  const trace = (results: Record<string, number | 'FAIL'>, saw: Record<string, number>): Files => [
    {
      name: 'trace.jsonl',
      lines: [
        { format: 'interleave-trace/1', spec: 'fusee', params: { r: 3, n: 3, replicas: { k0: [1, 2, 0] } } },
        { proc: 'c2', seq: 1, action: 'invoke', args: { key: 'k0', value: 5 } },
        { proc: 'c2', seq: 2, action: 'readPrimary', args: { key: 'k0', mn: 1, result: 0, backups: [2, 0], epoch: 1 }, obj: 'mn1/k0', objSaw: 0 },
        { proc: 'c2', seq: 3, action: 'casBackup', args: { key: 'k0', mn: 2, expected: 0, swap: 5, prior: 0 }, obj: 'mn2/k0', objSeq: 1 },
        { proc: 'c2', seq: 4, action: 'crashClient', args: { client: 'c2' } },
        { proc: 'nemesis', seq: 1, action: 'crashMN', args: { mn: 0 } },
        { proc: 'c3', seq: 1, action: 'invoke', args: { key: 'k0', value: 7 } },
        { proc: 'c3', seq: 2, action: 'readPrimary', args: { key: 'k0', mn: 1, result: 0, backups: [2, 0], epoch: 1 }, obj: 'mn1/k0', objSaw: 0 },
        { proc: 'c3', seq: 3, action: 'casBackup', args: { key: 'k0', mn: 0, expected: 0, swap: 7, prior: 'FAIL' } },
        { proc: 'master', seq: 1, action: 'prepare', args: { epoch: 2 } },
        { proc: 'master', seq: 2, action: 'decide', args: { key: 'k0', value: 5, wrote: { 'mn1/k0': 1 }, saw: { 'mn2/k0': 1 } } },
        { proc: 'nemesis', seq: 2, action: 'crashMN', args: { mn: 1 } },
        { proc: 'c3', seq: 4, action: 'failReply', args: { key: 'k0', rpc: 5 } },
        { proc: 'c1', seq: 1, action: 'read', args: { key: 'k0', mn: 1, result: 'FAIL' } },
        { proc: 'c1', seq: 2, action: 'readBackups', args: { key: 'k0', results, saw } },
      ],
    },
  ];
  const field = (r: ValidateResult): unknown => [r.verdict, (r.failure?.why as { field?: string } | undefined)?.field];

  it('a FAIL of a node the master already removed matches; a value from it, or a missing alive backup, does not', () => {
    expect(field(validate(trace({ 0: 'FAIL', 2: 5 }, { 'mn2/k0': 1 })))).toEqual(['valid', undefined]);
    expect(field(validate(trace({ 2: 5 }, { 'mn2/k0': 1 })))).toEqual(['valid', undefined]);
    expect(field(validate(trace({ 0: 5, 2: 5 }, { 'mn2/k0': 1 })))).toEqual(['invalid', 'args.results']);
    expect(field(validate(trace({ 0: 'FAIL' }, {})))).toEqual(['invalid', 'args.results']);
  });
});

describe('fusee traces: runs of mutants, validated against the correct spec', () => {
  // Mutants whose steps differ from the spec's in a run with a few crashes: each is caught in
  // some of 6 runs (the table in README.md counts 10 runs of each mutant).
  for (const mutant of ['M2', 'M3', 'M4', 'M5', 'M6', 'M9', 'M10', 'M16', 'M19']) {
    it(`${mutant} is caught`, () => {
      let caught = 0;
      for (let seed = 1; seed <= 6; seed++) {
        const files = sim({ seed, clients: 4, keys: 2, ops: 60, clientKills: 2, mnKills: 1, timeouts: 1, mutant });
        const r = validate(files);
        if (r.verdict === 'invalid') caught++;
        else expect(r.verdict).toBe('valid');
      }
      expect(caught).toBeGreaterThan(0);
    });
  }
});
