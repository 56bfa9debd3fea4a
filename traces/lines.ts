// Line readers with bounded memory: a file is streamed and split on '\n' by hand (readline
// would buffer an endless line whole), each line decoded as strict UTF-8 so that binary
// garbage is reported at its line instead of being read as noise.
import { isAscii } from 'node:buffer';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { InputError } from './errors.ts';
import { formatBytes, type Limits } from './limits.ts';

export interface Line {
  text: string;
  /** 1-based line number. */
  n: number;
}

const NEWLINE = 0x0a;
/** How much of a file is read at a time. */
const CHUNK_BYTES = 1 << 16;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeRaw(bytes: Uint8Array, n: number, file: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new InputError(file, n, 'UTF-8 text (this line is not valid UTF-8: binary data?)');
  }
}

/** A decoded line as its readers see it: without a BOM (line 1) or a final CR; no NUL. */
export function cleanLine(text: string, n: number, file: string): string {
  if (n === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text.includes('\u0000')) throw new InputError(file, n, 'text, not binary data (a NUL byte)');
  return text;
}

function tooLong(file: string, n: number, limits: Limits): InputError {
  return new InputError(file, n, `a line of at most ${formatBytes(limits.maxLineBytes)}`);
}

/** Refuses a file over the size limit, and a missing or unreadable file, as InputErrors; `what` names the file's kind in them. */
export async function checkFileSize(path: string, limits: Limits, what = 'history file'): Promise<void> {
  let size: number;
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new InputError(path, undefined, `a ${what} (this is not a regular file)`);
    size = s.size;
  } catch (e) {
    if (e instanceof InputError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(path, undefined, `a readable ${what} (${code === 'ENOENT' ? 'no such file' : code ?? String(e)})`);
  }
  if (size > limits.maxFileBytes) {
    throw new InputError(path, undefined, `a file of at most ${formatBytes(limits.maxFileBytes)} (this one is ${formatBytes(size)})`);
  }
}

/** The lines of a file, streamed. The last line need not end with a newline. */
export async function* readLines(path: string, limits: Limits, what?: string): AsyncGenerator<Line> {
  for await (const batch of readLineBatches(path, limits, what)) yield* batch;
}

/**
 * Lines n, n+1, ... of a file: decoded and joined by '\n' (`text`), or, when all are
 * ASCII, as bytes, each line ending with a newline (`ascii`: a character is then its byte,
 * and a reader may scan the bytes without decoding them; they are read over when the next
 * batch is asked for). Raw: each line is still to be read through cleanLine (which may
 * refuse it). A batch holds at least one line.
 */
export type TextBatch = { n: number; text: string; ascii?: undefined } | { n: number; ascii: Buffer; text?: undefined };

/** The lines of a batch, each through cleanLine, in order (the first bad one throws). */
export function* linesOfBatch(batch: TextBatch, file: string): Generator<Line> {
  const text = batch.ascii === undefined ? batch.text : batch.ascii.toString('latin1', 0, batch.ascii.length - 1);
  let n = batch.n;
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    yield { text: cleanLine(end === -1 ? text.slice(start) : text.slice(start, end), n, file), n };
    if (end === -1) return;
    n++;
    start = end + 1;
  }
}

/** The number of lines in a batch. */
function lineCount(batch: TextBatch): number {
  let lines = 0;
  if (batch.ascii !== undefined) {
    for (let i = batch.ascii.indexOf(NEWLINE); i !== -1; i = batch.ascii.indexOf(NEWLINE, i + 1)) lines++;
    return lines;
  }
  for (let i = batch.text.indexOf('\n'); i !== -1; i = batch.text.indexOf('\n', i + 1)) lines++;
  return lines + 1;
}

/**
 * The batch of the lines of `bytes` (whole lines, each ending with a newline), numbered
 * from `n`. The span is decoded once (a UTF-8 sequence never holds the newline byte, so the
 * span is valid exactly when each of its lines is), or not at all when it is ASCII; when
 * it is not valid, or may hold a line over the limit, line by line as before, to name the
 * line. Returns the batch of the lines before the first bad line (none if it is the first)
 * and that line's error, so that the reader still sees those lines first (a line's own
 * error comes before a later line's).
 */
function batchOf(bytes: Buffer, n: number, path: string, limits: Limits): { batch?: TextBatch; bad?: InputError } {
  const body = bytes.subarray(0, bytes.length - 1);
  if (body.length <= limits.maxLineBytes) {
    if (isAscii(bytes)) return { batch: { ascii: bytes, n } };
    try {
      return { batch: { text: utf8.decode(body), n } };
    } catch {
      // Line by line, below, to name the bad one.
    }
  }
  const texts: string[] = [];
  let bad: InputError | undefined;
  let start = 0;
  try {
    for (let i = 0; i !== -1; start = i + 1) {
      i = body.indexOf(NEWLINE, start);
      const end = i === -1 ? body.length : i;
      if (end - start > limits.maxLineBytes) throw tooLong(path, n + texts.length, limits);
      texts.push(decodeRaw(body.subarray(start, end), n + texts.length, path));
    }
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    bad = e;
  }
  return { ...(texts.length > 0 ? { batch: { text: texts.join('\n'), n } } : {}), ...(bad ? { bad } : {}) };
}

/**
 * The lines of a file, streamed a chunk (64 KiB) at a time, each chunk's lines at once,
 * decoded together as one text (a line at a time, with an await each, was a quarter of
 * reading a 100,000-line history; an object per line still a tenth: issue 21). The last
 * line need not end with a newline.
 */
export async function* readTextBatches(path: string, limits: Limits, what = 'history file'): AsyncGenerator<TextBatch> {
  await checkFileSize(path, limits, what);
  let file: FileHandle | undefined;
  // One buffer, read into again for each chunk (a stream's new buffer per chunk cost twice
  // the time); what outlives a chunk (a line's start) is copied.
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let n = 1;
  let total = 0;
  try {
    file = await open(path, 'r');
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      total += chunk.length;
      // The file may have grown since stat.
      if (total > limits.maxFileBytes) throw new InputError(path, undefined, `a file of at most ${formatBytes(limits.maxFileBytes)}`);
      const first = chunk.indexOf(NEWLINE);
      if (first === -1) {
        pendingBytes += chunk.length;
        if (pendingBytes > limits.maxLineBytes) throw tooLong(path, n, limits);
        pending.push(Buffer.from(chunk));
        continue;
      }
      // The line that began in an earlier chunk, then the chunk's other whole lines.
      if (pendingBytes + first > limits.maxLineBytes) throw tooLong(path, n, limits);
      const carried = pending.length > 0;
      const last = chunk.lastIndexOf(NEWLINE);
      // The chunk's whole lines as one span; a line carried over from earlier chunks first, on its own.
      let from = 0;
      if (carried) {
        const head = Buffer.concat([...pending, chunk.subarray(0, first)]);
        pending = [];
        pendingBytes = 0;
        yield { text: decodeRaw(head, n, path), n };
        n++;
        from = first + 1;
      }
      if (from <= last) {
        const { batch, bad } = batchOf(chunk.subarray(from, last + 1), n, path, limits);
        if (batch !== undefined) {
          n += lineCount(batch);
          yield batch;
        }
        if (bad !== undefined) throw bad;
      }
      if (last + 1 < chunk.length) {
        const rest = chunk.subarray(last + 1);
        pendingBytes += rest.length;
        if (pendingBytes > limits.maxLineBytes) throw tooLong(path, n, limits);
        pending.push(Buffer.from(rest));
      }
    }
    if (pendingBytes > 0) yield { text: decodeRaw(Buffer.concat(pending), n, path), n };
  } catch (e) {
    if (e instanceof InputError) throw e;
    // The file went away or could not be read (EACCES, EIO, ...): bad input, not a bug.
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(path, n, `a readable ${what} (reading line ${n} failed: ${code ?? (e as Error).message})`);
  } finally {
    await file?.close();
  }
}

/** readTextBatches' lines, each batch as Line[] (the lines before a bad one, then its error). */
export async function* readLineBatches(path: string, limits: Limits, what?: string): AsyncGenerator<Line[]> {
  for await (const batch of readTextBatches(path, limits, what)) {
    const lines: Line[] = [];
    try {
      for (const l of linesOfBatch(batch, path)) lines.push(l);
    } catch (e) {
      if (lines.length > 0) yield lines;
      throw e;
    }
    yield lines;
  }
}

/** The lines of a string already in memory, under the same limits. */
export function* splitLines(text: string, file: string, limits: Limits): Generator<Line> {
  if (Buffer.byteLength(text) > limits.maxFileBytes) {
    throw new InputError(file, undefined, `a file of at most ${formatBytes(limits.maxFileBytes)}`);
  }
  let n = 1;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const raw = text.slice(start, end);
    if (raw.length * 3 > limits.maxLineBytes && Buffer.byteLength(raw) > limits.maxLineBytes) throw tooLong(file, n, limits);
    yield { text: cleanLine(raw, n, file), n };
    n++;
    start = end + 1;
  }
}
