// What a process records as it runs, each line handed to the kernel with one write(2) the
// moment the step is done, so that a SIGKILL loses at most the step in progress:
//  - TraceWriter: the protocol trace (traces/protocol-trace.ts, interleave-trace/1), one
//    event per protocol step, with a sequence number per logical process.
//  - HistoryWriter: the raw client history, invocations and completions with the shared
//    monotonic clock; history.ts merges the files of all processes afterwards.

import { closeSync, fstatSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { monoNs } from './verbs.ts';

class LineFile {
  private fd: number | undefined;

  constructor(readonly file: string) {
    this.fd = openSync(file, 'a');
  }

  line(text: string): void {
    if (this.fd === undefined) return;
    const buf = Buffer.from(`${text}\n`);
    // A regular file takes the whole buffer in one write; the loop only guards the contract.
    for (let off = 0; off < buf.length; ) off += writeSync(this.fd, buf, off, buf.length - off);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * Starts a per-process trace file with its header line (ClusterContext.traceHeader) before
 * its process writes to it, so that every trace file of a run says what it is from the start
 * (one a run leaves behind when it is interrupted is read by validate). A file that has lines
 * already is left as it is. Returns the file: DIR/trace-PROC.jsonl.
 */
export function startTraceFile(dir: string, proc: string, header: string): string {
  const file = join(dir, `trace-${proc}.jsonl`);
  const fd = openSync(file, 'a');
  try {
    if (fstatSync(fd).size === 0) writeSync(fd, `${header}\n`);
  } finally {
    closeSync(fd);
  }
  return file;
}

/** A step at a shared object: which object, and either its change number or the change it saw. */
export type ObjectOrder = { obj: string; objSeq: number } | { obj: string; objSaw: number };

export class TraceWriter {
  private readonly out: LineFile;
  private readonly seqs = new Map<string, number>();

  /** `t0`: the run's start on the monotonic clock; `time` is written relative to it. */
  constructor(file: string, private readonly t0 = 0) {
    this.out = new LineFile(file);
  }

  /** Records one step of process `proc` (its next sequence number). */
  step(proc: string, action: string, args?: Record<string, unknown>, order?: ObjectOrder, extra?: { send?: string[]; recv?: string; obs?: Record<string, unknown> }): void {
    const seq = (this.seqs.get(proc) ?? 0) + 1;
    this.seqs.set(proc, seq);
    const e: Record<string, unknown> = { proc, seq, action };
    if (args !== undefined) e.args = args;
    if (order !== undefined) Object.assign(e, order);
    if (extra?.send !== undefined) e.send = extra.send;
    if (extra?.recv !== undefined) e.recv = extra.recv;
    if (extra?.obs !== undefined) e.obs = extra.obs;
    e.time = Math.max(0, monoNs() - this.t0);
    this.out.line(JSON.stringify(e));
  }

  close(): void {
    this.out.close();
  }
}

/** One raw history line (history.ts reads them back). */
export type RawHistoryLine =
  | { t: 'inv'; c: number; f: string; key?: string; value?: unknown; time: number }
  | { t: 'ok'; c: number; out?: unknown; time: number }
  | { t: 'info'; c: number; time: number; why?: string };

export class HistoryWriter {
  private readonly out: LineFile;

  constructor(file: string) {
    this.out = new LineFile(file);
  }

  invoke(client: number, f: string, key: string | undefined, value: unknown): void {
    this.write({ t: 'inv', c: client, f, key, value, time: monoNs() });
  }

  ok(client: number, out?: unknown): void {
    this.write({ t: 'ok', c: client, out, time: monoNs() });
  }

  /** The client's pending operation will never complete; its outcome is unknown. */
  info(client: number, why: string): void {
    this.write({ t: 'info', c: client, time: monoNs(), why });
  }

  private write(l: RawHistoryLine): void {
    this.out.line(JSON.stringify(l));
  }

  close(): void {
    this.out.close();
  }
}
