// Test and benchmark helper only: the Porcupine corpus (../shared/corpora/porcupine), its
// manifest, and its histories, read two ways: through the importers of traces/
// (importCorpusFile: what the engine's tests and bench check), and by a minimal reader
// written apart from them (loadCorpusFile), which trusts the corpus and serves as an
// independent cross-check of the importers (cli/corpus-import.test.ts).

import { readFileSync } from 'node:fs';
import { importHistoryText, type Format } from '../../traces/index.ts';
import type { Model, Operation } from './types.ts';

export const CORPUS = new URL('../../../shared/corpora/porcupine/', import.meta.url);

export interface CorpusEntry {
  path: string;
  format: string;
  model: string;
  expected: 'ok' | 'illegal';
}

export function manifest(): CorpusEntry[] {
  const lines = readFileSync(new URL('manifest.tsv', CORPUS), 'utf8').trim().split('\n').slice(1);
  return lines.map((l) => {
    const [path, format, model, expected] = l.split('\t');
    return { path, format, model, expected: expected as 'ok' | 'illegal' };
  });
}

/** A corpus history, read by the project's importers (traces/) as the CLI reads it. */
export function importCorpusFile(entry: CorpusEntry, model: Model): Operation[] {
  const text = readFileSync(new URL(entry.path, CORPUS), 'utf8');
  return importHistoryText(text, entry.path, { model, format: entry.format as Format }).operations;
}

function parseValue(s: string): unknown {
  if (s === 'nil') return null;
  if (/^-?\d+$/.test(s)) return Number(s);
  const pair = /^\[(-?\d+) (-?\d+)\]$/.exec(s);
  if (pair) return [Number(pair[1]), Number(pair[2])];
  return s;
}

/** Jepsen's text log: each invoke pairs with the next completion of its process. */
export function loadJepsenLog(text: string, model: Model): Operation[] {
  const ops: Operation[] = [];
  const pending = new Map<number, Operation>();
  let t = 0;
  for (const line of text.split('\n')) {
    const m = /jepsen\.util\s+-\s+(\d+)\s+:(invoke|ok|fail|info)\s+:(\w+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const process = Number(m[1]);
    const type = m[2];
    const f = m[3];
    const value = parseValue(m[4].trim());
    t++;
    if (type === 'invoke') {
      const op: Operation = { client: process, input: f === 'read' ? { f } : { f, value }, call: t };
      pending.set(process, op);
      ops.push(op);
      continue;
    }
    const op = pending.get(process)!;
    pending.delete(process);
    if (type === 'ok') {
      op.ret = t;
      op.output = f === 'read' ? value : f === 'cas' ? true : null;
    } else if (type === 'fail') {
      const failed = model.failedOutput?.(op.input);
      if (failed === undefined) ops.splice(ops.indexOf(op), 1);
      else {
        op.ret = t;
        op.output = failed;
      }
    }
    // info: indeterminate, ret stays undefined
  }
  return ops;
}

/** The kv corpus: one EDN map per line, :invoke and :ok, time = line number. */
export function loadKvEdn(text: string): Operation[] {
  const ops: Operation[] = [];
  const pending = new Map<number, Operation>();
  let t = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const m = /^\{:process (\d+), :type :(invoke|ok), :f :(\w+), :key "([^"]*)", :value (nil|"[^"]*")\}$/.exec(line);
    if (!m) throw new Error(`unexpected line: ${line}`);
    const process = Number(m[1]);
    const f = m[3];
    const value = m[5] === 'nil' ? null : m[5].slice(1, -1);
    t++;
    if (m[2] === 'invoke') {
      const op: Operation = { client: process, input: f === 'get' ? { f, key: m[4] } : { f, key: m[4], value }, call: t };
      pending.set(process, op);
      ops.push(op);
    } else {
      const op = pending.get(process)!;
      pending.delete(process);
      op.ret = t;
      op.output = f === 'get' ? value : null;
    }
  }
  return ops;
}

/** A corpus history, read by the minimal reader above (not for user files). */
export function loadCorpusFile(entry: CorpusEntry, model: Model): Operation[] {
  const text = readFileSync(new URL(entry.path, CORPUS), 'utf8');
  return entry.format === 'edn' ? loadKvEdn(text) : loadJepsenLog(text, model);
}
