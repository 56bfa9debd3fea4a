// A durable append-only log: the storage message-passing protocols with persistent logs
// (MINOS's NVM logs, a replica's write-ahead log) build on. Records are framed
//
//   u32 LE payload length | u32 LE CRC-32 of the payload | payload
//
// appended with write(2) and made durable with fsync(2). `commit` appends a batch with one
// write and one fsync (group commit). Opening a log recovers it: every whole record with a
// good CRC, in order, up to the first torn or corrupt one, where the file is truncated
// (a crash in the middle of an append leaves at most that record half-written).
// `commitAsync` appends at once and resolves once an fsync that began after the append has
// returned, on the thread pool: the process goes on meanwhile (a node's other threads keep
// working during a persist, as on a multi-core node), and concurrent commits share fsyncs.
//
// Power failures. SIGKILL ends a process but keeps what it wrote in the page cache, so a
// killed process loses nothing it appended; a machine losing power loses what was not yet
// fsynced. The log emulates the second: after every fsync it records the length that fsync
// made durable in a side file (FILE.synced, 8 bytes, written before the caller learns of
// the fsync), and `open(file, { powerLoss: true })` first cuts the log back to that length:
// what an un-fsynced append would be after a power failure (the conservative reading: the
// page cache flushed nothing on its own).

import { closeSync, fstatSync, fsync, fsyncSync, ftruncateSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
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
  /** The fsync running, and the one queued behind it (covering every append made since the running one began). */
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private readonly syncedFd: number;
  private readonly syncedBuf = Buffer.alloc(8);

  private constructor(
    readonly file: string,
    fd: number,
    size: number,
  ) {
    this.fd = fd;
    this.size = size;
    this.syncedFd = openSync(`${file}.synced`, 'w');
    this.synced(size);
  }

  /** Records that the first `n` bytes are durable. */
  private synced(n: number): void {
    this.syncedBuf.writeBigUInt64LE(BigInt(n));
    writeSync(this.syncedFd, this.syncedBuf, 0, 8, 0);
  }

  /** The durable length an earlier incarnation recorded (undefined: none recorded). */
  private static syncedLength(file: string): number | undefined {
    try {
      const b = readFileSync(`${file}.synced`);
      return b.length === 8 ? Number(b.readBigUInt64LE(0)) : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Opens (creating) the log and recovers its records. `powerLoss`: the machine lost power
   * since the last run; what was appended and not fsynced is lost first.
   */
  static open(file: string, options: { powerLoss?: boolean } = {}): { log: DurableLog; recovered: Recovered; lostBytes: number } {
    const fd = openSync(file, 'a+');
    let lostBytes = 0;
    if (options.powerLoss) {
      const durable = DurableLog.syncedLength(file);
      const size = fstatSync(fd).size;
      if (durable !== undefined && durable < size) {
        ftruncateSync(fd, durable);
        fsyncSync(fd);
        lostBytes = size - durable;
      }
    }
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
    if (off < total) ftruncateSync(fd, off);
    fsyncSync(fd); // what recovery kept is durable before the side file says so
    return { log: new DurableLog(file, fd, off), recovered: { records, truncatedBytes: total - off }, lostBytes };
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
    const n = this.size;
    fsyncSync(this.fd);
    this.synced(n);
  }

  /** Appends and syncs: when this returns, the records survive a crash of the process or the machine. */
  commit(payloads: readonly Uint8Array[]): void {
    this.append(payloads);
    this.sync();
  }

  /** Appends; resolves when the records are durable (an fsync that began after the append returned). */
  commitAsync(payloads: readonly Uint8Array[]): Promise<void> {
    try {
      this.append(payloads);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.syncAsync();
  }

  /** Makes everything appended so far durable, without blocking the process. */
  syncAsync(): Promise<void> {
    if (this.fd === undefined) return Promise.reject(new Error(`${this.file}: the log is closed`));
    if (this.queued !== undefined) return this.queued;
    if (this.running === undefined) return this.start();
    const queued = this.running.then(
      () => this.start(),
      () => this.start(),
    );
    this.queued = queued;
    return queued;
  }

  private start(): Promise<void> {
    this.queued = undefined;
    const fd = this.fd;
    const n = this.size;
    const p = new Promise<void>((resolve, reject) => {
      if (fd === undefined) return reject(new Error(`${this.file}: the log is closed`));
      fsync(fd, (e) => {
        if (e) return reject(e);
        if (this.fd !== undefined) this.synced(n);
        resolve();
      });
    });
    this.running = p;
    const clear = () => {
      if (this.running === p) this.running = undefined;
    };
    p.then(clear, clear);
    return p;
  }

  close(): void {
    if (this.fd !== undefined) {
      closeSync(this.fd);
      closeSync(this.syncedFd);
    }
    this.fd = undefined;
  }
}
