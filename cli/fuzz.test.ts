// Fuzzing the readers and the command with random and mutated inputs (fast-check, fixed
// seeds: the same cases on every run). Whatever comes in, a reader returns a history or
// throws an InputError, the checker returns a verdict, and the command exits with a
// documented code other than 70 (internal error), with no stack trace on stderr.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { checkHistorySync, models } from '../checkers/lin/index.ts';
import { FORMATS, importHistoryText, InputError } from '../traces/index.ts';
import { parseTraceLine } from '../traces/protocol-trace.ts';
import { DOCUMENTED_EXIT_CODES, runInProcess, spawnCli, STACK_LINE } from './in-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'interleave-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BUNDLED = join(import.meta.dirname, '..', 'traces', 'bundled');
/** The model the manifest names for a bundled history. */
function modelOf(file: string): string {
  const row = readFileSync(join(BUNDLED, 'manifest.tsv'), 'utf8').split('\n').find((l) => l.split('\t')[0] === file);
  return row?.split('\t')[2] ?? 'register';
}

/** The bundled histories (every format and model), the seeds of the mutations. */
const seeds = readdirSync(BUNDLED)
  .filter((f) => f !== 'manifest.tsv')
  .map((f) => ({ name: f, text: readFileSync(join(BUNDLED, f), 'utf8'), model: modelOf(f) }));
const MODELS = Object.keys(models);

/** Pieces a hostile history is made of: syntax, extreme numbers, keys that matter. */
const PIECES = [
  '{', '}', '[', ']', '(', ')', '#{', '#_', '#_ #_', '#jepsen.history.Op', '#inst', '##Inf', '"', '\\', '\\u', '\\u00', ',', ':', ';', '\n', ' ', '\t',
  '9007199254740993', '-9007199254740993', '1e400', '-1e400', '1e-400', '0.10000000000000001', '-0', '-0.0', '010', '1N', '1.5M', '0x10', 'NaN', 'Infinity', '1/2',
  '"__proto__"', '"#set"', ':__proto__', '"constructor"', '\\constructor', 'nil', 'null', 'true', 'false',
  ':process', ':type', ':invoke', ':ok', ':fail', ':info', ':f', ':value', ':key', ':read', ':write', ':cas', ':nemesis', '"client"', '"call"', '"return"', '"output"', '"input"', '"f"', '"type"', '"id"', '"process"', '"status"',
  'INFO  jepsen.util - ', ':invoke\t:read\tnil', '\u0000', '\uffff', '\ud800', '\u2028',
  // Chains that once overflowed the stack despite the depth limit.
  '#_ '.repeat(8_000), '#jepsen.history.Op '.repeat(8_000),
];

const piece = fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 6 }), fc.integer().map(String));

/** A mutation of a text: pieces spliced in, spans cut, lines repeated, swapped or dropped. */
const VALUES = ['9007199254740993', '9007199254740992', '-9007199254740993', '1e400', '1e-400', '0.10000000000000001', '0.1', '-0', '-0.0', '010', '1N', '1.0', '1.5M', '1', '2', ':a', '"a"', 'a', '\\a', '#{1 2}', '#{2 1}', '#{1 1}', '[1 2]', '{:a 1 "a" 2}', '{"a": 1, "a": 2}', 'nil', 'null', 'true', '"x"', '""'];
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), cut: fc.nat({ max: 12 }), with: fc.array(piece, { minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant('line' as const), at: fc.nat(), op: fc.constantFrom('repeat', 'drop', 'swap', 'truncate') }),
  // A value or time replaced by one a lossy reader would misread: the history stays well formed.
  fc.record({ kind: fc.constant('value' as const), at: fc.nat(), with: fc.constantFrom(...VALUES) }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function mutate(text: string, ms: Mutation[]): string {
  let t = text;
  for (const m of ms) {
    if (m.kind === 'value') {
      const tokens = [...t.matchAll(/(?<=(:value|"value":|"output":|"call":|"return":|:key|"key":|\t:[a-z]+\t)\s*)(-?\d+(\.\d+)?|:[a-z]+|"[^"\\]*"|nil|null|\[[^\]]*\])/g)];
      if (tokens.length === 0) continue;
      const tok = tokens[m.at % tokens.length]!;
      t = t.slice(0, tok.index) + m.with + t.slice(tok.index + tok[0].length);
    } else if (m.kind === 'splice') {
      const at = t.length === 0 ? 0 : m.at % (t.length + 1);
      t = t.slice(0, at) + m.with.join('') + t.slice(at + m.cut);
    } else {
      const lines = t.split('\n');
      const i = lines.length === 0 ? 0 : m.at % lines.length;
      if (m.op === 'repeat') lines.splice(i, 0, lines[i] ?? '');
      else if (m.op === 'drop') lines.splice(i, 1);
      else if (m.op === 'swap' && i + 1 < lines.length) [lines[i], lines[i + 1]] = [lines[i + 1]!, lines[i]!];
      else if (m.op === 'truncate') lines.length = i;
      t = lines.join('\n');
    }
  }
  return t;
}

/** A history to read: usually a bundled one mutated, with its own model; else noise. */
const hostile = fc.oneof(
  {
    arbitrary: fc
      .record({ seed: fc.nat({ max: seeds.length - 1 }), ms: fc.array(mutation, { minLength: 1, maxLength: 3 }), model: fc.oneof({ arbitrary: fc.constant(null), weight: 5 }, { arbitrary: fc.constantFrom(...MODELS), weight: 1 }) })
      .map(({ seed, ms, model }) => ({ name: seeds[seed]!.name, text: mutate(seeds[seed]!.text, ms), model: model ?? seeds[seed]!.model })),
    weight: 6,
  },
  { arbitrary: fc.record({ ps: fc.array(piece, { maxLength: 40 }), model: fc.constantFrom(...MODELS) }).map(({ ps, model }) => ({ name: 'pieces.edn', text: ps.join(''), model })), weight: 1 },
  { arbitrary: fc.record({ text: fc.string({ unit: 'binary', maxLength: 200 }), model: fc.constantFrom(...MODELS) }).map(({ text, model }) => ({ name: 'noise.jsonl', text, model })), weight: 1 },
);
const format = fc.oneof({ arbitrary: fc.constant('auto' as const), weight: 4 }, { arbitrary: fc.constantFrom(...FORMATS), weight: 1 });

describe('fuzz: the readers', () => {
  it('return a history or throw an InputError; the checker then gives a verdict', () => {
    fc.assert(
      fc.property(hostile, format, ({ name, text, model }, format) => {
        let history;
        try {
          history = importHistoryText(text, name, { model: models[model]!, format });
        } catch (e) {
          if (e instanceof InputError) return;
          throw e;
        }
        const r = checkHistorySync(model, history.operations, { timeoutMs: 200 });
        expect(['ok', 'illegal', 'unknown']).toContain(r.verdict);
      }),
      { seed: 16, numRuns: 3000 },
    );
  });

  it('protocol-trace lines: an event, a header, nothing, or an InputError', () => {
    const line = '{"proc": "c1", "seq": 1, "action": "casBackup", "args": {"key": "k", "prior": 5}, "obj": "mn1/k", "objSeq": 2, "time": 81723391002}';
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.nat({ max: 3 }), (ms, n) => {
        try {
          parseTraceLine(mutate(line, ms), 'trace.jsonl', n + 1);
        } catch (e) {
          if (!(e instanceof InputError)) throw e;
        }
      }),
      { seed: 16, numRuns: 2000 },
    );
  });
});

/** Values for numeric and enumerated flags: valid, out of range, malformed. */
const flagValue = fc.oneof(fc.constantFrom('0', '1', '2', '3', '200', '0x10', '', '1e12', '-1', 'NaN', '0.5', '1.5', '99999999999999999999', 'off', 'histories', 'jsonl', 'edn'), fc.string({ maxLength: 5 }));

const hostileLinFlags = fc.array(
  fc.oneof(
    fc.tuple(fc.constantFrom('--workers', '--timeout', '--memo-budget', '--format', '--model'), flagValue),
    fc.constantFrom(['--json'], ['--force'], ['--debug'], ['--html', '@out'], ['--html', '@dir'], ['--html', '@input'], ['--html', '/dev/full'], ['--bogus'], ['extra-argument']),
  ),
  { maxLength: 4 },
);
const validLinFlags = fc.subarray([['--json'], ['--workers', '2'], ['--memo-budget', '64'], ['--html', '@out'], ['--force'], ['--debug']]);
const linFlags = fc.oneof(validLinFlags, hostileLinFlags);

function expectDocumented(r: { code: number | null; stderr: string }, context: string): void {
  expect(DOCUMENTED_EXIT_CODES, context).toContain(r.code);
  expect(r.code, `${context}\n${r.stderr}`).not.toBe(70);
  expect(r.stderr, context).not.toMatch(STACK_LINE);
}

describe('fuzz: the command, in this process', () => {
  it('lin: hostile histories and flags give documented exit codes, never a stack trace', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(hostile, linFlags, async ({ name, text, model }, flags) => {
        const input = join(dir, `${n++}-${name}`);
        writeFileSync(input, text);
        const args = flags.flat().map((a) => (a === '@out' ? join(dir, `${n}.html`) : a === '@dir' ? dir : a === '@input' ? input : a));
        // A short budget keeps each case quick; a budget given by the case comes first.
        const r = await runInProcess('lin', input, '--model', model, ...args, '--timeout', '2');
        expectDocumented(r, `lin ${input} --model ${model} ${args.join(' ')}`);
      }),
      { seed: 16, numRuns: 600 },
    );
  });

  it('explore: hostile flags and names give documented exit codes', async () => {
    const hostileFlags = fc.array(
      fc.oneof(
        fc.tuple(fc.constantFrom('--config', '--mutant', '--simulate', '--depth', '--seed', '--max-depth', '--time', '--lin', '--replay', '--max-states'), fc.oneof(flagValue, fc.constantFrom('A0', 'B0', 'M1', 'H1', 'read(c0)', 'a;b'))),
        fc.constantFrom(['--dfs'], ['--bfs'], ['--all'], ['--exact'], ['--symmetry'], ['--no-deadlock'], ['--json'], ['--itf', '@out'], ['--html', '@dir'], ['--force']),
      ),
      { maxLength: 4 },
    );
    const validFlags = fc.tuple(
      fc.constantFrom(['--config', 'A0'], ['--config', 'B0', '--mutant', 'M1'], ['--config', 'B0-prime', '--mutant', 'M8']),
      fc.subarray([['--dfs'], ['--all'], ['--exact'], ['--symmetry'], ['--no-deadlock'], ['--json'], ['--itf', '@out'], ['--html', '@out'], ['--max-depth', '5'], ['--lin', 'histories']]),
    ).map(([config, rest]) => [config, ...rest]);
    const exploreFlags = fc.oneof(validFlags, hostileFlags);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('fusee', 'shadowfax', 'shadowfax', 'nope', ''), exploreFlags, async (spec, flags) => {
        const args = flags.flat().map((a) => (a === '@out' ? join(dir, `x${n++}.json`) : a === '@dir' ? dir : a));
        // Bounded runs: a small state budget and time, after the case's own flags.
        const r = await runInProcess('explore', spec, ...args, '--max-states', '300', '--time', '5');
        expectDocumented(r, `explore ${spec} ${args.join(' ')}`);
      }),
      { seed: 16, numRuns: 80 },
    );
  });
});

describe('fuzz: the command, as real processes', () => {
  it('a few hostile histories through bin/interleave.js', async () => {
    const cases = fc.sample(hostile, { seed: 16, numRuns: 4 });
    const runs = await Promise.all(
      cases.map(async ({ name, text, model }, i) => {
        const input = join(dir, `spawned-${i}-${name}`);
        writeFileSync(input, text);
        return { r: await spawnCli(['lin', input, '--model', model, '--timeout', '5']), context: `lin ${input} --model ${model}` };
      }),
    );
    for (const { r, context } of runs) expectDocumented(r, context);
  });
});
