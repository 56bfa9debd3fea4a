// The client history of a run: the raw per-process files (recorder.ts HistoryWriter)
// merged into operations, and written in the formats of traces/ (README "Formats"):
// native JSON lines, one operation per line, and Jepsen EDN, one event map per line in
// time order. An operation without a completion (its client crashed, or was killed, or
// its outcome is unknown) is indeterminate: `"status": "info"` / an `:info` completion.

import { readFileSync } from 'node:fs';
import type { RawHistoryLine } from './recorder.ts';

export interface RunOp {
  client: number;
  f: string;
  key?: string;
  value?: unknown;
  /** ns since the run's start (the shared monotonic clock). */
  call: number;
  /** Absent: indeterminate. */
  ret?: number;
  output?: unknown;
  /** For an indeterminate operation: when it was known not to complete, and why. */
  infoAt?: number;
  why?: string;
}

/** A fault the nemesis injected, for the EDN history and the report's timeline. */
export interface FaultEvent {
  /** ns since the run's start. */
  start: number;
  /** Absent: instantaneous (a kill). */
  end?: number;
  f: string;
  target: string;
}

/** Reads raw history files; `t0` is the run's start. A torn last line (a killed writer) is ignored. */
export function readRawHistories(files: readonly string[], t0: number): RunOp[] {
  const ops: RunOp[] = [];
  const open = new Map<number, RunOp>();
  const lines: RawHistoryLine[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const l of text.split('\n')) {
      if (l === '') continue;
      try {
        lines.push(JSON.parse(l) as RawHistoryLine);
      } catch {
        // a line cut short by SIGKILL: the operation stays open, hence indeterminate
      }
    }
  }
  lines.sort((a, b) => a.time - b.time);
  for (const l of lines) {
    const time = Math.max(0, l.time - t0);
    if (l.t === 'inv') {
      const prev = open.get(l.c);
      if (prev !== undefined) prev.infoAt ??= time; // cannot happen: a client runs one operation at a time
      const op: RunOp = { client: l.c, f: l.f, call: time };
      if (l.key !== undefined) op.key = l.key;
      if (l.value !== undefined) op.value = l.value;
      ops.push(op);
      open.set(l.c, op);
    } else {
      const op = open.get(l.c);
      if (op === undefined) continue;
      open.delete(l.c);
      if (l.t === 'ok') {
        op.ret = Math.max(time, op.call);
        if (l.out !== undefined) op.output = l.out;
      } else {
        op.infoAt = Math.max(time, op.call);
        op.why = l.why;
      }
    }
  }
  return ops;
}

/** Native JSON lines, one operation per line (traces/README.md). */
export function historyJsonl(ops: readonly RunOp[]): string {
  return ops.length === 0 ? '' : `${ops.map((op) => JSON.stringify(historyLine(op))).join('\n')}\n`;
}

/** One operation as a native JSON line's object (traces/README.md, `jsonl`). */
export function historyLine(op: RunOp): Record<string, unknown> {
  const input: Record<string, unknown> = { f: op.f };
  if (op.key !== undefined) input.key = op.key;
  if (op.value !== undefined) input.value = op.value;
  const line: Record<string, unknown> = { client: op.client, input, call: op.call };
  if (op.ret !== undefined) {
    line.return = op.ret;
    if (op.output !== undefined) line.output = op.output;
    line.status = 'ok';
  } else {
    line.status = 'info';
  }
  return line;
}

function ednString(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`;
}

function ednValue(v: unknown): string {
  if (v === undefined || v === null) return 'nil';
  if (typeof v === 'string') return ednString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(ednValue).join(' ')}]`;
  return ednString(JSON.stringify(v));
}

function keyword(s: string): string {
  return `:${s.replace(/[^A-Za-z0-9_+!?*<>=.-]/g, '-')}`;
}

/**
 * Jepsen EDN, one event per line in time order (at equal times invocations first: the
 * intervals are closed), with :time in ns; nemesis faults as :nemesis :info events.
 */
export function historyEdn(ops: readonly RunOp[], faults: readonly FaultEvent[] = []): string {
  type Ev = { time: number; rank: number; text: string };
  const evs: Ev[] = [];
  for (const op of ops) {
    const head = `:process ${op.client}, :f ${keyword(op.f)}${op.key !== undefined ? `, :key ${ednString(op.key)}` : ''}`;
    const isRead = op.f === 'get' || op.f === 'read';
    evs.push({ time: op.call, rank: 0, text: `{${head}, :type :invoke, :value ${isRead ? 'nil' : ednValue(op.value)}, :time ${op.call}}` });
    if (op.ret !== undefined) {
      evs.push({ time: op.ret, rank: 1, text: `{${head}, :type :ok, :value ${isRead ? ednValue(op.output) : ednValue(op.value)}, :time ${op.ret}}` });
    } else if (op.infoAt !== undefined) {
      const error = op.why !== undefined ? `, :error ${ednString(op.why)}` : '';
      evs.push({ time: op.infoAt, rank: 1, text: `{${head}, :type :info, :value ${isRead ? 'nil' : ednValue(op.value)}${error}, :time ${op.infoAt}}` });
    }
  }
  for (const f of faults) {
    const value = ednString(f.target);
    if (f.end === undefined) {
      evs.push({ time: f.start, rank: 2, text: `{:process :nemesis, :type :info, :f ${keyword(f.f)}, :value ${value}, :time ${f.start}}` });
    } else {
      evs.push({ time: f.start, rank: 2, text: `{:process :nemesis, :type :info, :f ${keyword(`start-${f.f}`)}, :value ${value}, :time ${f.start}}` });
      evs.push({ time: f.end, rank: 2, text: `{:process :nemesis, :type :info, :f ${keyword(`stop-${f.f}`)}, :value ${value}, :time ${f.end}}` });
    }
  }
  evs.sort((a, b) => a.time - b.time || a.rank - b.rank);
  return evs.length === 0 ? '' : `${evs.map((e) => e.text).join('\n')}\n`;
}
