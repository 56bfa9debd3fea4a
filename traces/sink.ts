import type { Operation } from '../checkers/lin/types.ts';
import type { ImportCounts } from './history.ts';

/** A format's importer: fed the file's lines in order, then asked for the history. */
export interface HistorySink {
  line(text: string, n: number): void;
  /**
   * Optional: the lines of an ASCII batch (lines.ts TextBatch: whole lines, each ending
   * with a newline, from line n), each read as cleanLine then line() would read it; returns
   * the last line's number.
   */
  lines?(ascii: Buffer, n: number): number;
  end(lastLine: number): { operations: Operation[]; counts: ImportCounts };
}
