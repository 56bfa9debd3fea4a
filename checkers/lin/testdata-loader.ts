// Test and benchmark helper only: the Porcupine corpus (../shared/corpora/porcupine), its
// manifest, and its histories read through the importers of traces/.

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
export function loadCorpusFile(entry: CorpusEntry, model: Model): Operation[] {
  const text = readFileSync(new URL(entry.path, CORPUS), 'utf8');
  return importHistoryText(text, entry.path, { model, format: entry.format as Format }).operations;
}
