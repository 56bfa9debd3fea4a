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
      let start = 0;
      for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, start)) {
        const piece = chunk.subarray(start, i);
        if (pendingBytes + piece.length > limits.maxLineBytes) throw tooLong(path, n, limits);
        const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
        pending = [];
        pendingBytes = 0;
        yield { text: decodeLine(bytes, n, path), n };
        n++;
        start = i + 1;
      }
      if (start < chunk.length) {
        const rest = chunk.subarray(start);
        pendingBytes += rest.length;
        if (pendingBytes > limits.maxLineBytes) throw tooLong(path, n, limits);
        pending.push(rest);
      }
    }
    if (pendingBytes > 0) yield { text: decodeLine(Buffer.concat(pending), n, path), n };
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
