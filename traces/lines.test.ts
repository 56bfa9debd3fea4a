// readLineBatches decodes a chunk's lines at once (issue 21): it must give the lines, line
// numbers and the first error that reading a line at a time gives, in the same order (a
// line before a bad one is still seen first). Random files of 60-300 KiB cross the 64 KiB
// chunks with lines of every kind: short, long, empty, CRLF, a BOM, multi-byte characters
// split across chunks, invalid UTF-8, a NUL, a line over the limit, no final newline.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { prng } from '../checkers/lin/generate.ts';
import { InputError } from './errors.ts';
import { DEFAULT_LIMITS, formatBytes, type Limits } from './limits.ts';
import { readLineBatches, type Line } from './lines.ts';

const dir = mkdtempSync(join(tmpdir(), 'interleave-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A line at a time, as the reader did before: the lines, then the first error. */
function reference(bytes: Buffer, file: string, limits: Limits): { lines: Line[]; error?: string } {
  const lines: Line[] = [];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let n = 1;
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    const last = end === -1;
    if (last) end = bytes.length;
    if (end - start > limits.maxLineBytes) return { lines, error: `${file}:${n}: a line of at most ${formatBytes(limits.maxLineBytes)}` };
    let text: string;
    try {
      text = decoder.decode(bytes.subarray(start, end));
    } catch {
      return { lines, error: `${file}:${n}: UTF-8 text (this line is not valid UTF-8: binary data?)` };
    }
    if (n === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.includes('\u0000')) return { lines, error: `${file}:${n}: text, not binary data (a NUL byte)` };
    lines.push({ text, n });
    n++;
    start = end + 1;
  }
  return { lines };
}

async function batched(file: string, limits: Limits): Promise<{ lines: Line[]; error?: string }> {
  const lines: Line[] = [];
  try {
    for await (const batch of readLineBatches(file, limits)) lines.push(...batch);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { lines, error: e.message };
  }
  return { lines };
}

it('reads the lines and the first error that a line at a time gives', async () => {
  const r = prng(21);
  const pick = (n: number) => r() % n;
  for (let k = 0; k < 40; k++) {
    const parts: Buffer[] = [];
    const size = 60_000 + pick(240_000);
    const bad = k % 4 === 0 ? -1 : pick(size); // where, in bytes, one bad line goes (none in a quarter of the files)
    let at = 0;
    if (k % 5 === 1) parts.push(Buffer.from('\ufeff'));
    while (at < size) {
      let line: Buffer;
      const kind = pick(20);
      if (bad >= 0 && at >= bad) {
        line = [Buffer.from([0x7b, 0xff, 0x7d]), Buffer.from('a\u0000b'), Buffer.alloc(3000, 0x78)][k % 3]!;
        at = size; // the last line
      } else if (kind === 0) line = Buffer.alloc(0);
      else if (kind === 1) line = Buffer.from('crlf line\r');
      else if (kind === 2) line = Buffer.from('é€𝄞'.repeat(1 + pick(400)));
      else if (kind === 3) line = Buffer.alloc(1 + pick(2500), 0x79);
      else line = Buffer.from(`{"client":${pick(9)},"input":{"f":"put","key":"k${pick(8)}","value":"x${at};"},"call":${at}}`);
      parts.push(line, Buffer.from('\n'));
      at += line.length + 1;
      if (bad >= 0 && at >= size) break;
    }
    if (k % 3 === 2) parts.push(Buffer.from('{"last":"line without a newline é"}'));
    else if (bad >= 0) parts.push(Buffer.from('after the bad line\n'));
    const bytes = Buffer.concat(parts);
    const file = join(dir, `f${k}.jsonl`);
    writeFileSync(file, bytes);
    const limits = { ...DEFAULT_LIMITS, maxLineBytes: k % 2 === 0 ? 2048 : DEFAULT_LIMITS.maxLineBytes };
    const want = reference(bytes, file, limits);
    const got = await batched(file, limits);
    expect(got.error, `file ${k}`).toBe(want.error);
    expect(got.lines.length, `file ${k}`).toBe(want.lines.length);
    expect(got.lines, `file ${k}`).toEqual(want.lines);
  }
});
