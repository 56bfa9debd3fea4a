// The one-pass reading of operation lines (jsonl-scan.ts, JsonlSink.lines) against the
// general path (a line at a time through JSON.parse, json.ts's raw check and records.ts):
// on valid and corrupted lines, the same operations, counts and first error (file, line,
// expectation). Then whole files read in 64 KiB chunks (importHistoryFile) against the same
// text read a line at a time (importHistoryText).
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { findModel } from '../checkers/lin/models/index.ts';
import { prng } from '../checkers/lin/generate.ts';
import { importHistoryFile, importHistoryText } from './index.ts';
import { JsonlSink } from './jsonl.ts';
import { scannedOperation, scanOperation } from './jsonl-scan.ts';
import { DEFAULT_LIMITS, type Limits } from './limits.ts';
import { cleanLine } from './lines.ts';

const FILE = 'h.jsonl';
const MODELS = ['kv-append', 'register', 'cas-register', 'set', 'queue'];

type Outcome = { operations: unknown; counts: unknown } | { error: string };

function outcome(read: (sink: JsonlSink) => unknown, model: string, limits: Limits): Outcome {
  const sink = new JsonlSink(FILE, findModel(model)!, limits);
  try {
    read(sink);
    return sink.end();
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The general path: each line through cleanLine and line(), as before the scan. */
function lineByLine(lines: string[], model: string, limits: Limits): Outcome {
  return outcome((sink) => lines.forEach((l, i) => sink.line(cleanLine(l, i + 1, FILE), i + 1)), model, limits);
}

function batched(lines: string[], model: string, limits: Limits): Outcome {
  return outcome((sink) => expect(sink.lines(Buffer.from(lines.map((l) => `${l}\n`).join(''), 'latin1'), 1)).toBe(lines.length), model, limits);
}

// Number tokens as a file may write them: exact, inexact, -0, exponents, leading zeros.
const NUMBERS = ['0', '1', '7', '42', '-3', '-0', '0.5', '1.0', '1e2', '1E2', '2.5e-3', '01', '-', '123456789012345', '1234567890123456', '9007199254740993', '1e400', '0.10000000000000001'];
const token = (t: string): fc.Arbitrary<string> => fc.constant(t);
const json = (v: fc.Arbitrary<unknown>): fc.Arbitrary<string> => v.map((x) => JSON.stringify(x));
const num = fc.oneof(fc.nat({ max: 10_000 }).map(String), fc.constantFrom(...NUMBERS));
const str = fc.oneof(fc.constantFrom('"a"', '""', '"x0;x1;"', '"k1"', '"a\\"b"', '"\\u0061"', '"é"'), json(fc.string({ maxLength: 20 })));
const scalar = fc.oneof(num, str, fc.constantFrom('null', 'true', 'false'));
const value: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`),
    fc.constantFrom('{}', '{"a":1}', '{"a":1,"a":2}', '{"__proto__":1}', '[[[[[1]]]]]'),
  ),
})).v;
const ws = fc.constantFrom('', '', '', ' ', '\t', '\r', '  ');

/** An object's text from [key, value text] entries, with whitespace about its tokens. */
function object(entries: [string, string][], space: string[]): string {
  const s = (i: number): string => space[i % space.length]!;
  return `{${s(0)}${entries.map(([k, v], i) => `"${k}"${s(i + 1)}:${s(i + 2)}${v}`).join(`${s(3)},${s(4)}`)}${s(5)}}`;
}

const fname = fc.constantFrom('read', 'write', 'cas', 'get', 'put', 'append', 'add', 'enqueue', 'dequeue', 'x', '');
const input = fc
  .tuple(
    fc.subarray(['f', 'key', 'value', 'zz', 'f'] as const, { minLength: 0 }),
    fname,
    fc.oneof(str, fc.constantFrom('"k1"', '"k2"', '1', 'null')),
    value,
    fc.array(ws, { minLength: 6, maxLength: 6 }),
  )
  .map(([keys, f, key, v, space]) => object(keys.map((k) => [k, k === 'f' ? `"${f}"` : k === 'key' ? key : v]), space));
const status = fc.constantFrom('"ok"', '"info"', '"fail"', '"OK"', '1', 'null');
const FIELDS = ['client', 'input', 'call', 'return', 'output', 'status', 'zz', '__proto__', 'call'] as const;
const spaces = fc.array(ws, { minLength: 6, maxLength: 6 });
/** Any of the fields, in any order, repeated or unknown ones too. */
const chaotic = fc
  .tuple(fc.shuffledSubarray([...FIELDS], { minLength: 2 }), fc.oneof(fc.nat({ max: 3 }).map(String), str, token('-1')), input, num, num, value, status, spaces)
  .map(([fields, client, inp, call, ret, output, st, space]) => {
    const v: Record<string, string> = { client, input: inp, call, return: ret, output, status: st, zz: '1', __proto__: '1' };
    return object(fields.map((k) => [k, v[k]!]), space);
  });
/** What each model's operations take and give: function, value and read result texts. */
const SHAPES: Record<string, { f: string[]; reads: string[]; key?: boolean; value: fc.Arbitrary<string>; output: fc.Arbitrary<string> }> = {
  'kv-append': { f: ['get', 'put', 'append'], reads: ['get'], key: true, value: str, output: str },
  register: { f: ['read', 'write'], reads: ['read'], value: num, output: fc.oneof(num, token('null')) },
  'cas-register': { f: ['read', 'write', 'cas'], reads: ['read'], value: fc.oneof(num, fc.tuple(num, num).map(([a, b]) => `[${a},${b}]`)), output: fc.oneof(num, token('true'), token('false')) },
  set: { f: ['add', 'read'], reads: ['read'], value: num, output: fc.array(num, { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`) },
  queue: { f: ['enqueue', 'dequeue'], reads: ['dequeue'], value: num, output: fc.oneof(num, token('null')) },
};
/** An operation a reader of the model would write: the fields it needs, some it may have. */
function plausible(model: string): fc.Arbitrary<string> {
  const shape = SHAPES[model]!;
  return fc
    .tuple(
      fc.shuffledSubarray(['client', 'input', 'call', 'return', 'output', 'status'], { minLength: 6 }),
      fc.subarray(['return', 'output', 'status']),
      fc.oneof(fc.nat({ max: 3 }).map(String), fc.constantFrom('"c1"', '"p"')),
      // flip: a key where the model has none, or none where it needs one (refused either
      // way), and a read's value; rare, so that many histories are read whole.
      fc.tuple(fc.constantFrom(...shape.f), fc.constantFrom('"k1"', '"k2"', '""'), shape.value, spaces, fc.nat({ max: 5 }).map((n) => n === 0)),
      fc.nat({ max: 20 }),
      fc.nat({ max: 20 }),
      shape.output,
      fc.constantFrom('"ok"', '"ok"', '"info"', '"fail"'),
      spaces,
    )
    .map(([order, optional, client, [f, key, v, inSpace, flip], call, ret, output, st, space]) => {
      const read = shape.reads.includes(f);
      const inputFields: [string, string][] = [['f', `"${f}"`]];
      if ((shape.key ?? false) !== flip) inputFields.push(['key', key]);
      if (!read || flip) inputFields.push(['value', v]);
      const fields: Record<string, string> = { client, input: object(inputFields, inSpace), call: String(call), return: String(call + ret), output, status: st };
      const present = order.filter((k) => !['return', 'output', 'status'].includes(k) || optional.includes(k) || (k === 'output' && read && !flip));
      return object(present.map((k) => [k, fields[k]!]), space);
    });
}

// Corruptions: a character replaced, dropped or added; the line cut short; a field repeated.
const NOISE = '{}[]",:\\ -.0123456789aeflnrstu\t\u0000\u0001\u007f';
const corrupted = (record: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.tuple(record, fc.nat(), fc.nat({ max: NOISE.length - 1 }), fc.nat({ max: 6 })).map(([line, at, c, how]) => {
    const i = at % (line.length + 1);
    if (how === 0) return line.slice(0, i) + NOISE[c] + line.slice(i + 1);
    if (how === 1) return line.slice(0, i) + line.slice(i + 1);
    if (how === 2) return line.slice(0, i) + NOISE[c] + line.slice(i);
    if (how === 3) return line.slice(0, i);
    if (how === 4) return line.replace(/}\s*$/, ',"call":1}');
    if (how === 5) return line.replace('{"f":', '{"f":"get","f":');
    return line;
  });
const odd = fc.constantFrom('', '  ', '{"type":"call","id":1,"client":0,"input":{"f":"read"}}', '[1]', '{}');
const ascii = (l: string): boolean => /^[\x00-\x7f]*$/.test(l) && !l.includes('\n');
/** A model and lines for it: mostly plausible operations, some corrupted, chaotic or odd. */
const history = fc.constantFrom(...MODELS).chain((model) => {
  const good = plausible(model);
  const line = fc.oneof({ arbitrary: good, weight: 12 }, { arbitrary: corrupted(good), weight: 2 }, { arbitrary: chaotic, weight: 1 }, { arbitrary: corrupted(chaotic), weight: 1 }, { arbitrary: odd, weight: 1 });
  return fc.tuple(fc.constant(model), fc.array(line.filter(ascii), { minLength: 1, maxLength: 6 }));
});

it('reads valid and corrupted lines as the general path does: operations, counts, first error', () => {
  let scanned = 0;
  let okRuns = 0;
  let lines = 0;
  const out = scannedOperation();
  fc.assert(
    fc.property(history, fc.constantFrom(64, 64, 3, 2, 1), ([model, ls], maxDepth) => {
      const limits = { ...DEFAULT_LIMITS, maxDepth };
      for (const l of ls) {
        lines++;
        if (scanOperation(Buffer.from(`${l}\n`, 'latin1'), 0, maxDepth, out) !== -1) scanned++;
      }
      const got = batched(ls, model, limits);
      if ('operations' in got) okRuns++;
      expect(got).toEqual(lineByLine(ls, model, limits));
    }),
    { numRuns: 2000, seed: 21 },
  );
  // The scan vouched for a good share of the lines and left a good share to the general
  // path, and a good share of the histories were read whole (not stopped by an error).
  expect(okRuns).toBeGreaterThan(100);
  expect(scanned / lines).toBeGreaterThan(0.1);
  expect(scanned / lines).toBeLessThan(0.9);
});

it('declines what it does not read exactly, and reads a plain line', () => {
  const out = scannedOperation();
  const scan = (l: string, depth = 64): number => scanOperation(Buffer.from(`${l}\n`, 'latin1'), 0, depth, out);
  const plain = '{"client":1,"input":{"f":"append","key":"k2","value":"x1;"},"call":1,"return":5,"output":null,"status":"ok"}';
  expect(scan(plain)).toBe(plain.length);
  expect(out).toEqual({ client: 1, f: 'append', key: 'k2', value: 'x1;', call: 1, ret: 5, output: null, status: 'ok' });
  expect(scan(' { "client" : "c" , "input" : { "value" : [1, [-2, "a"], true] , "f" : "cas" } , "call" : 0 }\r ')).toBeGreaterThan(0);
  expect(out).toMatchObject({ client: 'c', f: 'cas', key: undefined, value: [1, [-2, 'a'], true], call: 0, ret: undefined, output: undefined, status: undefined });
  for (const bad of [
    plain.replace('"x1;"', '"x\\u0031;"'), // an escape
    plain.replace('"call":1', '"call":1.5'), // a float
    plain.replace('"call":1', '"call":1e0'),
    plain.replace('"return":5', '"return":9007199254740993'), // past 15 digits
    plain.replace('null', '-0'),
    plain.replace('"call":1', '"call":01'),
    plain.replace('"status":"ok"', '"status":"ok","call":1'), // a repeated key
    plain.replace('"status":"ok"', '"__proto__":"ok"'),
    plain.replace('null', '{}'), // an object as a value
    plain.replace('"x1;"', '"x1\u0001"'), // a control character
    plain.replace('"client":1,', ''), // no client
    plain.replace('"input":{', '"input":{"f":"get",'), // f twice
    plain + ' x',
    plain.slice(0, -1),
  ]) {
    expect(scan(bad), bad).toBe(-1);
  }
  expect(scan(plain.replace('null', '[[1]]'), 2)).toBe(-1); // nested deeper than the limit
  expect(scan(plain.replace('null', '[[1]]'), 3)).toBeGreaterThan(0);
});

const dir = mkdtempSync(join(tmpdir(), 'interleave-jsonl-scan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('reads whole files in chunks as the same text read a line at a time', async () => {
  const r = prng(21);
  const pick = (n: number): number => r() % n;
  for (let k = 0; k < 12; k++) {
    const lines: string[] = [];
    const size = 70_000 + pick(130_000);
    let bytes = 0;
    let call = 0;
    while (bytes < size) {
      const client = pick(3);
      const f = ['get', 'put', 'append'][pick(3)]!;
      const kind = pick(200);
      let l = `{"client":${client},"input":{"f":"${f}","key":"k${pick(4)}"${f === 'get' ? '' : `,"value":"x${call};"`}},"call":${call},"return":${call + 1}${f === 'get' ? ',"output":""' : ''}}`;
      if (kind === 0) l = `{"client":${client},"input":{"f":"${f}","key":"k1","value":"é${call}"},"call":${call},"status":"info"}`; // not ASCII
      else if (kind === 1) l = '';
      else if (kind === 2) l += '\r';
      else if (kind === 3) l = l.replace('"call"', '"call" ');
      else if (kind === 4 && k % 3 === 0) l = l.replace(`"call":${call}`, `"call":${call}.25`);
      lines.push(l);
      call += 2;
      bytes += l.length + 1;
    }
    // Two thirds of the files go wrong once: a corrupted line, a client running two
    // operations at once, a line of another shape.
    if (k % 3 !== 2) {
      const at = pick(lines.length);
      lines[at] = [lines[at]!.slice(0, 20), lines[at]!.replace(/"call":\d+/, '"call":0'), '{"type":"call","id":1,"client":0,"input":{"f":"get"}}'][k % 3]!;
    }
    const text = (k % 4 === 1 ? '\ufeff' : '') + lines.join('\n') + (k % 2 === 0 ? '\n' : '');
    const path = join(dir, `h${k}.jsonl`);
    writeFileSync(path, text);
    const settle = (p: () => Promise<unknown> | unknown) => Promise.resolve().then(p).then(
      (h) => ({ operations: (h as { operations: unknown }).operations, counts: (h as { counts: unknown }).counts }),
      (e: Error) => ({ error: e.message }),
    );
    const chunked = await settle(() => importHistoryFile(path, { model: 'kv-append' }));
    const reference = await settle(() => importHistoryText(text, path, { model: 'kv-append' }));
    expect(chunked).toEqual(reference);
    if (k % 3 === 2) expect(chunked).toHaveProperty('operations');
  }
});
