import type { Operation } from '../checkers/lin/types.ts';
import type { ImportCounts } from './history.ts';

/** A format's importer: fed the file's lines in order, then asked for the history. */
export interface HistorySink {
  line(text: string, n: number): void;
  end(lastLine: number): { operations: Operation[]; counts: ImportCounts };
}
