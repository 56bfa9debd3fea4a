// Reading trace files: bad input is an InputError naming the file, the line and what was
// expected; files of any layout (one per process, all processes in one) give the same result.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { registerTrace, simulateRegister } from './fixtures.ts';
import { InputError, validateFiles, validateMemory } from './index.ts';

const dir = mkdtempSync(join(tmpdir(), 'validate-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const spec = { name: 'register', trace: registerTrace() };
let n = 0;
const file = (text: string): string => {
  const path = join(dir, `t${n++}.jsonl`);
  writeFileSync(path, text);
  return path;
};
const lines = (...xs: object[]): string => xs.map((x) => `${JSON.stringify(x)}\n`).join('');
const w = (proc: string, seq: number, v = seq) => ({ proc, seq, action: 'write', args: { v }, obj: 'reg', objSeq: v });

async function inputError(files: string[]): Promise<InputError> {
  try {
    await validateFiles(files, spec);
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('no InputError');
}

describe('validate: reading trace files', () => {
  it('reads one file per process and one file for all processes alike', async () => {
    const sim = simulateRegister(3, 3, 40, { crash: true });
    const perProcess = sim.map((f) => file(lines(...f.lines)));
    // All processes in one file, interleaved by time (as processes appending to one file write it).
    const all = sim.flatMap((f) => f.lines as { time: number }[]).sort((a, b) => a.time - b.time);
    const one = file(lines(...all));
    const a = await validateFiles(perProcess, spec);
    const b = await validateFiles([one], spec);
    expect(a.verdict).toBe('valid');
    expect(b.verdict).toBe('valid');
    expect(b.matched).toBe(a.matched);
    // And concatenated per process (sections one after another).
    const c = await validateFiles([file(sim.map((f) => lines(...f.lines)).join(''))], spec);
    expect(c.verdict).toBe('valid');
  });

  it('a malformed line: file and line', async () => {
    const f = file(`${lines(w('p0', 1))}{"proc": "p0", "seq": 2,,}\n`);
    const e = await inputError([f]);
    expect(e.file).toBe(f);
    expect(e.line).toBe(2);
    expect(e.expected).toMatch(/JSON/);
  });

  it('a truncated last line (its writer killed mid-line)', async () => {
    const f = file(`${lines(w('p0', 1))}{"proc": "p0", "seq": 2, "action": "wri`);
    const e = await inputError([f]);
    expect(e.line).toBe(2);
    // A cut that still parses is caught by the missing newline.
    const g = file(`${lines(w('p0', 1))}${JSON.stringify(w('p0', 2))}`);
    const e2 = await inputError([g]);
    expect([e2.line, e2.expected]).toEqual([2, expect.stringMatching(/cut short/)]);
  });

  it('schema: a missing seq, an unknown field, obj without objSeq/objSaw', async () => {
    expect((await inputError([file(lines({ proc: 'p0', action: 'write', args: { v: 1 } }))])).expected).toMatch(/"seq"/);
    expect((await inputError([file(lines({ ...w('p0', 1), color: 'red' }))])).expected).toMatch(/unknown: "color"/);
    expect((await inputError([file(lines({ proc: 'p0', seq: 1, action: 'write', args: { v: 1 }, obj: 'reg' }))])).expected).toMatch(/objSeq/);
  });

  it('seq: a repeat, a gap (a lost event), a process in two files', async () => {
    const dup = await inputError([file(lines(w('p0', 1), w('p0', 2), { ...w('p0', 2, 3) }))]);
    expect([dup.line, dup.expected]).toEqual([3, expect.stringMatching(/seq 3 of process p0 next \(seq 2 again/)]);
    const gap = await inputError([file(lines(w('p0', 1), { ...w('p0', 4) }))]);
    expect([gap.line, gap.expected]).toEqual([2, expect.stringMatching(/events 2\.\.3 missing/)]);
    const a = file(lines(w('p0', 1)));
    const b = file(lines(w('p0', 2)));
    expect((await inputError([a, b])).expected).toMatch(/also in/);
  });

  it("the mapping's own check, and object counts a process sees out of order", async () => {
    expect((await inputError([file(lines({ proc: 'p0', seq: 1, action: 'fly' }))])).expected).toMatch(/a register action, not fly/);
    const back = await inputError([file(lines(w('p0', 1, 2), { proc: 'p0', seq: 2, action: 'read', args: { v: 1 }, obj: 'reg', objSaw: 1 }))]);
    expect([back.line, back.expected]).toEqual([2, expect.stringMatching(/seen in order by p0/)]);
    const twice = await inputError([file(lines(w('p0', 1, 1))), file(lines(w('p1', 1, 1)))]);
    expect(twice.expected).toMatch(/change 1, which another event already claims/);
  });

  it('headers: only first, the same params in every file, the right spec; a missing file', async () => {
    const h = { format: 'interleave-trace/1', spec: 'register', params: { parts: ['main'] } };
    expect((await validateFiles([file(lines(h, w('p0', 1)))], spec)).verdict).toBe('valid');
    expect((await inputError([file(lines(w('p0', 1), h))])).expected).toMatch(/header .* on the first line only/);
    expect((await inputError([file(lines(h, w('p0', 1))), file(lines({ ...h, params: { parts: ['x'] } }, w('p1', 1, 2)))])).expected).toMatch(/params.parts equal/);
    expect((await inputError([file(lines({ ...h, spec: 'fusee' }, w('p0', 1)))])).expected).toMatch(/a trace of spec "register"/);
    expect((await inputError([file(lines({ format: 'other/2' }))])).expected).toMatch(/"format" to be "interleave-trace\/1"/);
    expect((await inputError([join(dir, 'nope.jsonl')])).expected).toBe('a readable trace file (no such file)');
    expect((await inputError([dir])).expected).toBe('a trace file (this is not a regular file)');
  });

  it('obs: a malformed path or one naming no spec variable is bad input; a part of the state that fills later is compared', async () => {
    const withObs = (obs: object) => file(lines(w('p0', 1), { ...w('p0', 2), obs }));
    const unclosed = await inputError([withObs({ 'x[': 5 })]);
    expect([unclosed.line, unclosed.expected]).toEqual([2, expect.stringMatching(/obs paths that name a spec variable .*"x\[" lacks a "\]"/)]);
    expect((await inputError([withObs({ 'x..y': 5 })])).expected).toMatch(/"x\.\.y" lacks a name at character 3/);
    expect((await inputError([withObs({ y: 5 })])).expected).toMatch(/"y" names none: the spec has no variable "y" \(it has x, ready, dead, chan\)/);
    expect((await inputError([withObs({ 'x.y': 5 })])).expected).toMatch(/"x\.y" names none: x is a number/);
    // ready is empty in the initial state (processes prepare as they go): ready[3] is compared, and differs.
    const r = await validateFiles([withObs({ 'ready[3]': 'p0' })], spec);
    expect(r.verdict).toBe('invalid');
    expect((await validateFiles([withObs({ x: 2, ready: [] })], spec)).verdict).toBe('valid');
  });

  it('a trace with no event (a header only, or blank lines) is bad input, as an empty history is: a validation of nothing never passes', async () => {
    const h = { format: 'interleave-trace/1', spec: 'register', params: { parts: ['main'] } };
    const only = file(lines(h));
    const e = await inputError([only]);
    expect([e.file, e.line, e.expected]).toEqual([only, 1, 'a trace with at least one event (the file has a header or blank lines only)']);
    expect((await inputError([file(''), file(`${JSON.stringify(h)}\n\n`)])).expected).toBe('a trace with at least one event (none in the 2 files: headers or blank lines only)');
    // In memory alike; a file with no event next to one with events is fine.
    expect(() => validateMemory([{ name: 'm', lines: [h] }], spec)).toThrow(/a trace with at least one event/);
    expect((await validateFiles([only, file(lines(h, w('p0', 1)))], spec)).verdict).toBe('valid');
  });

  it('refuses prototype keys', async () => {
    expect((await inputError([file('{"proc": "p0", "seq": 1, "action": "write", "args": {"__proto__": {"x": 1}}}\n')])).expected).toMatch(/__proto__/);
  });
});
