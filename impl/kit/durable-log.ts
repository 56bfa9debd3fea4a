// A durable append-only log: the storage message-passing protocols with persistent logs
// (MINOS's NVM logs, a replica's write-ahead log) build on. Records are framed
//
//   u32 LE payload length | u32 LE CRC-32 of the payload | payload
//
// appended with write(2) and made durable with fsync(2). `commit` appends a batch with one
// write and one fsync (group commit). Opening a log recovers it: every whole record with a
// good CRC, in order, up to the first torn or corrupt one, where the file is truncated
// (a crash in the middle of an append leaves at most that record half-written).

import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';

const HEAD = 8;
/** Records above this are refused: recovery reads a record whole. */
export const MAX_RECORD = 64 * 1024 * 1024;

export interface Recovered {
  records: Buffer[];
  /** Bytes dropped from the end: a torn or corrupt tail (0 after a clean shutdown). */
  truncatedBytes: number;
}

export class DurableLog {
  private fd: number | undefined;
  private size: number;

  private constructor(
    readonly file: string,
    fd: number,
    size: number,
  ) {
    this.fd = fd;
    this.size = size;
  }

  /** Opens (creating) the log and recovers its records. */
  static open(file: string): { log: DurableLog; recovered: Recovered } {
    const fd = openSync(file, 'a+');
    const total = fstatSync(fd).size;
    const records: Buffer[] = [];
    let off = 0;
    const head = Buffer.alloc(HEAD);
    while (off + HEAD <= total) {
      if (readSync(fd, head, 0, HEAD, off) !== HEAD) break;
      const len = head.readUInt32LE(0);
      const sum = head.readUInt32LE(4);
      if (len > MAX_RECORD || off + HEAD + len > total) break;
      const payload = Buffer.alloc(len);
      if (len > 0 && readSync(fd, payload, 0, len, off + HEAD) !== len) break;
      if (crc32(payload) !== sum) break;
      records.push(payload);
      off += HEAD + len;
    }
    if (off < total) {
      ftruncateSync(fd, off);
      fsyncSync(fd);
    }
    return { log: new DurableLog(file, fd, off), recovered: { records, truncatedBytes: total - off } };
  }

  /** Bytes of whole records in the file. */
  get bytes(): number {
    return this.size;
  }

  /** Appends records with one write, without waiting for durability. */
  append(payloads: readonly Uint8Array[]): void {
    if (this.fd === undefined) throw new Error(`${this.file}: the log is closed`);
    let n = 0;
    for (const p of payloads) {
      if (p.length > MAX_RECORD) throw new RangeError(`a record of ${p.length} bytes exceeds ${MAX_RECORD}`);
      n += HEAD + p.length;
    }
    const buf = Buffer.allocUnsafe(n);
    let off = 0;
    for (const p of payloads) {
      buf.writeUInt32LE(p.length, off);
      buf.writeUInt32LE(crc32(p), off + 4);
      buf.set(p, off + HEAD);
      off += HEAD + p.length;
    }
    for (let w = 0; w < buf.length; ) w += writeSync(this.fd, buf, w, buf.length - w);
    this.size += n;
  }

  /** Makes everything appended so far durable. */
  sync(): void {
    if (this.fd === undefined) throw new Error(`${this.file}: the log is closed`);
    fsyncSync(this.fd);
  }

  /** Appends and syncs: when this returns, the records survive a crash of the process or the machine. */
  commit(payloads: readonly Uint8Array[]): void {
    this.append(payloads);
    this.sync();
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
