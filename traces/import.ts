// Reading a history file into Operation[]: format detection, then the format's importer,
// fed line by line so that memory stays bounded (traces/README.md). The CLI imports this
// module, not index.ts, so that zod is loaded only when an import needs it (lazy-schemas.ts).
import { extname } from 'node:path';
import { findModel } from '../checkers/lin/models/index.ts';
import type { Operation } from '../checkers/lin/types.ts';
import { EdnSink } from './edn-history.ts';
import { InputError, ReadTimeout } from './errors.ts';
import type { ImportCounts } from './history.ts';
import { JEPSEN_LOG_LINE, JepsenLogSink } from './jepsen-log.ts';
import { JsonlSink } from './jsonl.ts';
import { loadSchemas, SchemasNeeded, schemasLoaded } from './lazy-schemas.ts';
import { checkLimits, DEFAULT_LIMITS, type Limits } from './limits.ts';
import { cleanLine, linesOfBatch, readTextBatches, splitLines, type Line, type TextBatch } from './lines.ts';
import type { HistorySink } from './sink.ts';
import type { ImportModel } from './vocabulary.ts';

export { InputError, ReadTimeout } from './errors.ts';
export type { ImportCounts } from './history.ts';
export type { ImportModel } from './vocabulary.ts';
export { DEFAULT_LIMITS, type Limits } from './limits.ts';

export const FORMATS = ['jsonl', 'edn', 'jepsen-log'] as const;
export type Format = (typeof FORMATS)[number];

export interface ImportOptions {
  /** The model the history is for, by name (`cas-register`, `independent:register`) or as an object. */
  model: ImportModel | string;
  /** Default 'auto': detected from the content, with the file extension as a hint. */
  format?: Format | 'auto';
  limits?: Partial<Limits>;
  /** A time (Date.now() ms) past which reading stops with a ReadTimeout. */
  deadline?: number;
}

export interface ImportedHistory {
  file: string;
  format: Format;
  operations: Operation[];
  counts: ImportCounts;
}

const EXTENSION_HINTS: Record<string, Format> = {
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.json': 'jsonl',
  '.edn': 'edn',
  '.log': 'jepsen-log',
};

/** Lines or bytes of noise read, looking for a Jepsen log line, before giving up. */
const DETECTION_LINES = 1000;

export function isFormat(s: string): s is Format {
  return (FORMATS as readonly string[]).includes(s);
}

function makeSink(format: Format, file: string, model: ImportModel, limits: Limits): HistorySink {
  if (format === 'jsonl') return new JsonlSink(file, model, limits);
  if (format === 'edn') return new EdnSink(file, model, limits);
  return new JepsenLogSink(file, model, limits);
}

/** What one line says about the format: a format, nothing (blank), or noise. */
function lineEvidence(text: string): Format | 'blank' | 'noise' {
  const t = text.trimStart();
  if (t === '') return 'blank';
  if (/^\{\s*"/.test(t)) return 'jsonl';
  if (/^[{[(#;]/.test(t)) return 'edn';
  if (JEPSEN_LOG_LINE.test(text + ' ')) return 'jepsen-log';
  return 'noise';
}

class Importer {
  private sink: HistorySink | undefined;
  private format: Format | undefined;
  private readonly buffered: Line[] = [];
  private bufferedBytes = 0;
  private firstNoise: number | undefined;
  private lastLine = 0;
  /** Characters read since the clock was last looked at. */
  private sinceClock = 0;
  private readonly limits: Limits;

  private readonly model: ImportModel;

  constructor(
    private readonly file: string,
    private readonly options: ImportOptions,
  ) {
    // A JavaScript caller's options, checked as the CLI's flags are: a format not in
    // FORMATS is named, not read as whatever the last sink is (the Jepsen log).
    if (typeof options !== 'object' || options === null) throw new TypeError(`import options: an object {model, format?, limits?, deadline?}, not ${options === null ? 'null' : typeof options}`);
    const model = typeof options.model === 'string' ? findModel(options.model) : options.model;
    if (model === undefined) throw new TypeError(`unknown model ${JSON.stringify(options.model)}`);
    this.model = model;
    checkLimits(options.limits);
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    const format = options.format ?? 'auto';
    if (format !== 'auto' && !isFormat(format)) throw new TypeError(`unknown format ${JSON.stringify(format)}; one of auto, ${FORMATS.join(', ')}`);
    if (format !== 'auto') this.start(format);
  }

  private start(format: Format): void {
    this.format = format;
    this.sink = makeSink(format, this.file, this.model, this.limits);
    for (const l of this.buffered.splice(0)) this.sink.line(l.text, l.n);
  }

  private hint(): Format | undefined {
    return EXTENSION_HINTS[extname(this.file).toLowerCase()];
  }

  /**
   * A batch of lines (lines.ts): ASCII bytes to a sink that reads them at once (once the
   * first lines have told the format), anything else line by line.
   */
  feedBatch(batch: TextBatch): void {
    if (batch.ascii === undefined) {
      for (const l of linesOfBatch(batch, this.file)) this.feed(l);
      return;
    }
    const bytes = batch.ascii;
    let n = batch.n;
    let start = 0;
    for (; start < bytes.length && this.sink?.lines === undefined; n++) {
      const end = bytes.indexOf(0x0a, start);
      this.feed({ text: cleanLine(bytes.toString('latin1', start, end), n, this.file), n });
      start = end + 1;
    }
    if (start === bytes.length) return;
    if (this.options.deadline !== undefined && Date.now() > this.options.deadline) throw new ReadTimeout(this.file, n);
    this.lastLine = this.sink!.lines!(start === 0 ? bytes : bytes.subarray(start), n);
  }

  feed(l: Line): void {
    this.lastLine = l.n;
    this.sinceClock += l.text.length + 64;
    if (this.sinceClock > 1 << 16 && this.options.deadline !== undefined) {
      this.sinceClock = 0;
      if (Date.now() > this.options.deadline) throw new ReadTimeout(this.file, l.n);
    }
    if (this.sink !== undefined) {
      this.sink.line(l.text, l.n);
      return;
    }
    this.buffered.push(l);
    this.bufferedBytes += l.text.length;
    const evidence = lineEvidence(l.text);
    if (evidence === 'blank') return;
    if (evidence === 'noise') {
      this.firstNoise ??= l.n;
      if (this.buffered.length >= DETECTION_LINES || this.bufferedBytes >= this.limits.maxLineBytes) this.undetected();
      return;
    }
    // After noise, only a Jepsen log line is evidence: JSON or EDN would not begin with noise.
    if (this.firstNoise !== undefined && evidence !== 'jepsen-log') return;
    this.start(evidence);
  }

  private undetected(): void {
    const hint = this.hint();
    if (hint !== undefined && this.firstNoise !== undefined) return this.start(hint);
    if (this.firstNoise === undefined) {
      throw new InputError(this.file, 1, `a history with at least one operation (${this.lastLine > 0 ? 'the file has no records, only blank lines' : 'the file is empty'})`);
    }
    throw new InputError(this.file, this.firstNoise,
      'a history: JSON lines ({"client": …, "input": …, "call": …}), Jepsen EDN ({:process …, :type …, :f …}) or a Jepsen log (INFO  jepsen.util - …); use --format to say which');
  }

  end(): ImportedHistory {
    if (this.sink === undefined) this.undetected();
    const { operations, counts } = this.sink!.end(this.lastLine);
    if (operations.length === 0 && counts.failed === 0 && counts.nemesis === 0) {
      throw new InputError(this.file, Math.max(1, this.lastLine), 'a history with at least one operation (none in the file)');
    }
    return { file: this.file, format: this.format!, operations, counts };
  }
}

/** Reads a history file, streamed line by line. Bad input throws an InputError. */
export async function importHistoryFile(path: string, options: ImportOptions): Promise<ImportedHistory> {
  if (!schemasLoaded()) {
    try {
      return await readFile(path, options);
    } catch (e) {
      if (!(e instanceof SchemasNeeded)) throw e;
      // A record zod must read or judge: again from the start, with zod (a file that
      // needs it stops at its first such record, so little is read twice).
      await loadSchemas();
    }
  }
  return readFile(path, options);
}

async function readFile(path: string, options: ImportOptions): Promise<ImportedHistory> {
  const importer = new Importer(path, options);
  for await (const batch of readTextBatches(path, { ...DEFAULT_LIMITS, ...options.limits })) importer.feedBatch(batch);
  return importer.end();
}

/**
 * Reads a history held in a string; `file` names it in error messages. Needs zod's schemas
 * provided (traces/index.ts does).
 */
export function importHistoryText(text: string, file: string, options: ImportOptions): ImportedHistory {
  const importer = new Importer(file, options);
  if (typeof text !== 'string') throw new TypeError(`importHistoryText: the history's text as a string, not ${text === null ? 'null' : typeof text}`);
  for (const l of splitLines(text, file, { ...DEFAULT_LIMITS, ...options.limits })) importer.feed(l);
  return importer.end();
}
