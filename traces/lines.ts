// Line readers with bounded memory: a file is streamed and split on '\n' by hand (readline
// would buffer an endless line whole), each line decoded as strict UTF-8 so that binary
// garbage is reported at its line instead of being read as noise.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { InputError } from './errors.ts';
import { formatBytes, type Limits } from './limits.ts';

export interface Line {
  text: string;
  /** 1-based line number. */
  n: number;
}

const NEWLINE = 0x0a;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeLine(bytes: Uint8Array, n: number, file: string): string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new InputError(file, n, 'UTF-8 text (this line is not valid UTF-8: binary data?)');
  }
  return cleanLine(text, n, file);
}

function cleanLine(text: string, n: number, file: string): string {
  if (n === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text.includes('\u0000')) throw new InputError(file, n, 'text, not binary data (a NUL byte)');
  return text;
}

function tooLong(file: string, n: number, limits: Limits): InputError {
  return new InputError(file, n, `a line of at most ${formatBytes(limits.maxLineBytes)}`);
}

/** Refuses a file over the size limit, and a missing or unreadable file, as InputErrors. */
export async function checkFileSize(path: string, limits: Limits): Promise<void> {
  let size: number;
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new InputError(path, undefined, 'a history file (this is not a regular file)');
    size = s.size;
  } catch (e) {
    if (e instanceof InputError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(path, undefined, `a readable history file (${code === 'ENOENT' ? 'no such file' : code ?? String(e)})`);
  }
  if (size > limits.maxFileBytes) {
    throw new InputError(path, undefined, `a file of at most ${formatBytes(limits.maxFileBytes)} (this one is ${formatBytes(size)})`);
  }
}

/** The lines of a file, streamed. The last line need not end with a newline. */
export async function* readLines(path: string, limits: Limits): AsyncGenerator<Line> {
  for await (const batch of readLineBatches(path, limits)) yield* batch;
}

/**
 * Appends to `lines` the lines of `bytes` (whole lines, each ending at a newline), numbered
 * from `n`. The span is decoded once and split (a UTF-8 sequence never holds the newline
 * byte, so the span is valid exactly when each of its lines is); when it is not valid, or
 * may hold a line over the limit, line by line as before, to name the line. Returns the
 * error of the first bad line, after appending the lines before it, so that the reader
 * still sees those lines first (a line's own error comes before a later line's).
 */
function linesOf(bytes: Buffer, n: number, path: string, limits: Limits, lines: Line[]): InputError | undefined {
  let texts: string[] | undefined;
  if (bytes.length <= limits.maxLineBytes) {
    try {
      texts = utf8.decode(bytes).split('\n');
    } catch {
      texts = undefined;
    }
  }
  try {
    if (texts !== undefined) {
      // The span ends with its last newline: split leaves an empty string after it.
      for (let i = 0; i < texts.length - 1; i++) lines.push({ text: cleanLine(texts[i]!, n + i, path), n: n + i });
      return undefined;
    }
    let start = 0;
    for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, start)) {
      if (i - start > limits.maxLineBytes) throw tooLong(path, n, limits);
      lines.push({ text: decodeLine(bytes.subarray(start, i), n, path), n });
      n++;
      start = i + 1;
    }
    return undefined;
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
}

/**
 * The lines of a file, streamed a chunk (64 KiB) at a time: each chunk's lines at once,
 * decoded together (a line at a time, with an await each, was a quarter of reading a
 * 100,000-line history: issue 21). The last line need not end with a newline.
 */
export async function* readLineBatches(path: string, limits: Limits): AsyncGenerator<Line[]> {
  await checkFileSize(path, limits);
  const stream = createReadStream(path, { highWaterMark: 1 << 16 });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let n = 1;
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      // The file may have grown since stat.
      if (total > limits.maxFileBytes) throw new InputError(path, undefined, `a file of at most ${formatBytes(limits.maxFileBytes)}`);
      const first = chunk.indexOf(NEWLINE);
      if (first === -1) {
        pendingBytes += chunk.length;
        if (pendingBytes > limits.maxLineBytes) throw tooLong(path, n, limits);
        pending.push(chunk);
        continue;
      }
      // The line that began in an earlier chunk, then the chunk's other whole lines.
      if (pendingBytes + first > limits.maxLineBytes) throw tooLong(path, n, limits);
      const head = pending.length === 0 ? chunk.subarray(0, first) : Buffer.concat([...pending, chunk.subarray(0, first)]);
      const batch = [{ text: decodeLine(head, n, path), n }];
      pending = [];
      pendingBytes = 0;
      const last = chunk.lastIndexOf(NEWLINE);
      const bad = last > first ? linesOf(chunk.subarray(first + 1, last + 1), n + 1, path, limits, batch) : undefined;
      n += batch.length;
      yield batch;
      if (bad !== undefined) throw bad;
      if (last + 1 < chunk.length) {
        const rest = chunk.subarray(last + 1);
        pendingBytes += rest.length;
        if (pendingBytes > limits.maxLineBytes) throw tooLong(path, n, limits);
        pending.push(rest);
      }
    }
    if (pendingBytes > 0) yield [{ text: decodeLine(Buffer.concat(pending), n, path), n }];
  } catch (e) {
    if (e instanceof InputError) throw e;
    // The file went away or could not be read (EACCES, EIO, ...): bad input, not a bug.
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(path, n, `a readable history file (reading line ${n} failed: ${code ?? (e as Error).message})`);
  } finally {
    stream.destroy();
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
