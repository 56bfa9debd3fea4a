// Reading protocol traces (traces/protocol-trace.ts): every line of every file is checked
// once — JSON, the schema, the spec mapping's own check, each process's seq running 1, 2,
// 3, … without a gap or a repeat — and bad input is an InputError naming the file and the
// line. The events are then spooled to one temporary file per process, so that the merge
// can read each process's log at its own pace whatever the files' layout (one file per
// process, or all processes in one file), with bounded memory.

import { appendFileSync, closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../traces/errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../../traces/limits.ts';
import { readLines } from '../../traces/lines.ts';
import { parseTraceLine, type TraceEvent, type TraceHeader } from '../../traces/protocol-trace.ts';
import { parsePath, shapeComplaint } from './path.ts';
import type { TraceMapping } from './types.ts';

/** An event read and checked, with where it came from. */
export interface RawEvent {
  ev: TraceEvent;
  /** Index into the list of files. */
  file: number;
  line: number;
}

/** A process's events, in seq order, read one at a time. */
export interface EventSource {
  readonly proc: string;
  readonly count: number;
  /** The next event, or undefined at the end. */
  next(): RawEvent | undefined;
  /** The `time` of the next event, when it has one (a hint for reading order, never for ordering). */
  peekTime(): number | undefined;
  close(): void;
}

export interface Header {
  spec?: string;
  params: Record<string, unknown>;
}

/** A header as the validator keeps it. */
function asHeader(h: TraceHeader): Header {
  return { spec: h.spec, params: (h.params ?? {}) as Record<string, unknown> };
}

/** Merges the headers of several files: the same spec and the same value for a param named twice. */
export class HeaderMerger {
  readonly header: Header = { params: Object.create(null) as Record<string, unknown> };
  private specFrom = '';

  add(h: Header, where: string): void {
    if (h.spec !== undefined) {
      if (this.header.spec !== undefined && this.header.spec !== h.spec) {
        throw new InputError(where, 1, `the same spec as ${this.specFrom} (${JSON.stringify(this.header.spec)}), not ${JSON.stringify(h.spec)}`);
      }
      this.header.spec = h.spec;
      this.specFrom = where;
    }
    for (const [k, v] of Object.entries(h.params)) {
      if (Object.hasOwn(this.header.params, k) && JSON.stringify(this.header.params[k]) !== JSON.stringify(v)) {
        throw new InputError(where, 1, `params.${k} equal to the other files' (${JSON.stringify(this.header.params[k])})`);
      }
      this.header.params[k] = v;
    }
  }
}

/** Reads the header (first line) of each file, if it has one. */
export async function readHeaders(files: readonly string[], limits: Limits = DEFAULT_LIMITS): Promise<Header> {
  const merged = new HeaderMerger();
  for (const file of files) {
    for await (const { text, n } of readLines(file, limits, 'trace file')) {
      if (text.trim() === '') continue;
      const parsed = parseTraceLine(text, file, n, limits.maxDepth);
      if (parsed !== undefined && 'header' in parsed) merged.add(asHeader(parsed.header), file);
      break;
    }
  }
  return merged.header;
}

interface ProcState {
  name: string;
  file: number;
  lastSeq: number;
  lastLine: number;
  count: number;
}

/**
 * Checks events line by line: schema, the mapping's check, per-process seq. One instance
 * reads all the files of a trace; `done` checks what only the end can tell.
 */
export class EventChecker {
  readonly procs = new Map<string, ProcState>();
  events = 0;
  /** Each partition's initial spec state, for the shape of `obs` paths (read when an event has obs). */
  private readonly shapes = new Map<string, unknown>();
  /** What is wrong with an `obs` path in a partition ("partition\0path"), or undefined. */
  private readonly paths = new Map<string, string | undefined>();

  constructor(
    private readonly files: readonly string[],
    private readonly mapping: TraceMapping,
    private readonly limits: Limits = DEFAULT_LIMITS,
  ) {}

  /** Checks one line of file `f`; returns the event, or undefined for a header or a blank line. */
  line(text: string, f: number, n: number): RawEvent | undefined {
    const file = this.files[f];
    // The header is allowed on line 1 only (parseTraceLine says so).
    const parsed = parseTraceLine(text, file, n, this.limits.maxDepth);
    if (parsed === undefined || 'header' in parsed) return undefined;
    const ev = parsed.event;
    const complaint = this.mapping.check(ev);
    if (complaint !== undefined) throw new InputError(file, n, complaint);
    if (ev.obs !== undefined) this.checkObs(ev, file, n);
    let p = this.procs.get(ev.proc);
    if (p === undefined) {
      p = { name: ev.proc, file: f, lastSeq: 0, lastLine: 0, count: 0 };
      this.procs.set(ev.proc, p);
    } else if (p.file !== f) {
      throw new InputError(file, n, `each process's events in one file (process ${ev.proc} is also in ${this.files[p.file]})`);
    }
    if (ev.seq !== p.lastSeq + 1) {
      if (ev.seq <= p.lastSeq) {
        throw new InputError(file, n, `seq ${p.lastSeq + 1} of process ${ev.proc} next (seq ${ev.seq} again or out of order; seq ${p.lastSeq} was at line ${p.lastLine})`);
      }
      const missing = ev.seq - 1 === p.lastSeq + 1 ? `${p.lastSeq + 1}` : `${p.lastSeq + 1}..${ev.seq - 1}`;
      throw new InputError(file, n, `seq ${p.lastSeq + 1} of process ${ev.proc} next (found ${ev.seq}: event${ev.seq - 1 === p.lastSeq + 1 ? '' : 's'} ${missing} missing)`);
    }
    p.lastSeq = ev.seq;
    p.lastLine = n;
    p.count++;
    this.events++;
    return { ev, file: f, line: n };
  }

  /**
   * An `obs` path that is malformed or names no variable of the spec's state is bad input
   * (the trace's writer mistyped it), not a value that differs (the search's `observed`,
   * an invalid verdict). Checked against the initial state of each partition the event
   * goes to (a global event's: when matched, as a value).
   */
  private checkObs(ev: TraceEvent, file: string, n: number): void {
    const route = this.mapping.route(ev);
    for (const path of Object.keys(ev.obs!)) {
      const keys = parsePath(path);
      const expected = `obs paths that name a spec variable ("rep[1]", "cl[2].vOld")`;
      if (typeof keys === 'string') throw new InputError(file, n, `${expected}; ${JSON.stringify(path)} lacks ${keys}`);
      if (route === 'all') continue;
      for (const part of route) {
        // A partition the header does not list is refused when the event is routed.
        if (this.mapping.partitions.length > 0 && !this.mapping.partitions.includes(part)) continue;
        const id = `${part}\0${path}`;
        let why = this.paths.get(id);
        if (why === undefined && !this.paths.has(id)) {
          if (!this.shapes.has(part)) {
            const spec = this.mapping.partition(part);
            const s = spec.init();
            this.shapes.set(part, spec.inner ? spec.inner(s) : s);
          }
          why = shapeComplaint(this.shapes.get(part), keys);
          if (this.paths.size < 10_000) this.paths.set(id, why);
        }
        if (why !== undefined) throw new InputError(file, n, `${expected}; ${JSON.stringify(path)} names none: ${why}`);
      }
    }
  }
}

/** Whether a file's last byte is a newline (a line cut short by a killed writer has none). */
function endsWithNewline(path: string): boolean {
  const size = statSync(path).size;
  if (size === 0) return true;
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, size - 1);
    return b[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

/** Spooled events: one temporary file per process, removed by `cleanup`. */
export interface Spool {
  procs: { name: string; count: number }[];
  events: number;
  open(proc: string): EventSource;
  cleanup(): void;
}

const FLUSH_BYTES = 1 << 16;

/** Pass 1: checks every line of every file and spools the events per process. */
export async function spoolTrace(files: readonly string[], mapping: TraceMapping, limits: Limits = DEFAULT_LIMITS): Promise<Spool> {
  const dir = mkdtempSync(join(tmpdir(), 'interleave-validate-'));
  const checker = new EventChecker(files, mapping, limits);
  const paths = new Map<string, string>();
  const pending = new Map<string, string[]>();
  const pendingBytes = new Map<string, number>();
  const lastLines: number[] = [];
  const flush = (proc: string): void => {
    const lines = pending.get(proc);
    if (!lines || lines.length === 0) return;
    appendFileSync(paths.get(proc)!, lines.join(''));
    pending.set(proc, []);
    pendingBytes.set(proc, 0);
  };
  try {
    for (let f = 0; f < files.length; f++) {
      let last = 0;
      for await (const { text, n } of readLines(files[f], limits, 'trace file')) {
        last = n;
        const raw = checker.line(text, f, n);
        if (raw === undefined) continue;
        const proc = raw.ev.proc;
        if (!paths.has(proc)) {
          paths.set(proc, join(dir, `p${paths.size}.jsonl`));
          pending.set(proc, []);
          pendingBytes.set(proc, 0);
        }
        const out = `${f} ${n} ${text}\n`;
        pending.get(proc)!.push(out);
        const bytes = pendingBytes.get(proc)! + out.length;
        pendingBytes.set(proc, bytes);
        if (bytes >= FLUSH_BYTES) flush(proc);
      }
      if (last > 0 && !endsWithNewline(files[f])) {
        throw new InputError(files[f], last, 'a complete line ending with a newline (this last line is cut short: was its writer killed mid-line?)');
      }
      lastLines.push(last);
    }
    for (const proc of paths.keys()) flush(proc);
    requireEvents(checker, files, lastLines);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    procs: [...checker.procs.values()].map((p) => ({ name: p.name, count: p.count })),
    events: checker.events,
    open: (proc) => new SpoolSource(proc, paths.get(proc)!, checker.procs.get(proc)!.count),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Reads a spool file line by line with a fixed buffer (synchronously: the merge pulls). */
class SpoolSource implements EventSource {
  /** Opened at the first read, closed at the end: a trace may have many processes. */
  private fd = -1;
  private buf = Buffer.alloc(1 << 16);
  private start = 0;
  private end = 0;
  private eof = false;
  private peeked: RawEvent | undefined;

  constructor(
    readonly proc: string,
    private readonly path: string,
    readonly count: number,
  ) {}

  private readLine(): string | undefined {
    for (;;) {
      const i = this.buf.indexOf(0x0a, this.start);
      if (i !== -1 && i < this.end) {
        const line = this.buf.toString('utf8', this.start, i);
        this.start = i + 1;
        return line;
      }
      if (this.eof) return undefined;
      if (this.fd < 0) this.fd = openSync(this.path, 'r');
      // Move the partial line to the front, growing the buffer for a long line.
      const rest = this.end - this.start;
      if (rest === this.buf.length) {
        const bigger = Buffer.alloc(this.buf.length * 2);
        this.buf.copy(bigger, 0, this.start, this.end);
        this.buf = bigger;
      } else {
        this.buf.copy(this.buf, 0, this.start, this.end);
      }
      this.start = 0;
      this.end = rest;
      const n = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, null);
      if (n === 0) {
        this.eof = true;
        this.close();
      }
      this.end += n;
    }
  }

  private read(): RawEvent | undefined {
    const line = this.readLine();
    if (line === undefined) return undefined;
    const a = line.indexOf(' ');
    const b = line.indexOf(' ', a + 1);
    return { file: Number(line.slice(0, a)), line: Number(line.slice(a + 1, b)), ev: JSON.parse(line.slice(b + 1)) as TraceEvent };
  }

  next(): RawEvent | undefined {
    if (this.peeked !== undefined) {
      const e = this.peeked;
      this.peeked = undefined;
      return e;
    }
    return this.read();
  }

  peekTime(): number | undefined {
    if (this.peeked === undefined) this.peeked = this.read();
    return this.peeked?.ev.time;
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

/** The InputError of a trace with no event (`interleave run` says its validation did not run). */
export class EmptyTraceError extends InputError {}

/**
 * A trace with no event (files with a header only, or empty) is bad input, as a history
 * with no operation is (traces/import.ts): a validation of nothing must not pass.
 */
function requireEvents(checker: EventChecker, files: readonly string[], lastLines: readonly number[]): void {
  if (checker.events > 0) return;
  const what = files.length === 1 ? (lastLines[0] > 0 ? 'the file has a header or blank lines only' : 'the file is empty') : `none in the ${files.length} files: headers or blank lines only`;
  throw new EmptyTraceError(files[0] ?? '(no file)', Math.max(1, lastLines[0] ?? 0), `a trace with at least one event (${what})`);
}


/** In-memory events (tests, simulators): the same checks, the same sources. */
export function memoryTrace(files: readonly { name: string; lines: readonly (string | object)[] }[], mapping: TraceMapping, limits: Limits = DEFAULT_LIMITS): Spool {
  const names = files.map((f) => f.name);
  const checker = new EventChecker(names, mapping, limits);
  const byProc = new Map<string, RawEvent[]>();
  files.forEach((file, f) => {
    file.lines.forEach((l, i) => {
      const text = typeof l === 'string' ? l : JSON.stringify(l);
      if (text.includes('\n')) throw new InputError(file.name, i + 1, 'one event per line');
      const raw = checker.line(text, f, i + 1);
      if (raw === undefined) return;
      let list = byProc.get(raw.ev.proc);
      if (!list) byProc.set(raw.ev.proc, (list = []));
      list.push(raw);
    });
  });
  requireEvents(checker, names, files.map((f) => f.lines.length));
  return {
    procs: [...checker.procs.values()].map((p) => ({ name: p.name, count: p.count })),
    events: checker.events,
    open(proc) {
      const list = byProc.get(proc) ?? [];
      let i = 0;
      return { proc, count: list.length, next: () => list[i++], peekTime: () => list[i]?.ev.time, close() {} };
    },
    cleanup() {},
  };
}

/** Headers of in-memory files (their first line, when it is a header). */
export function memoryHeaders(files: readonly { name: string; lines: readonly (string | object)[] }[], limits: Limits = DEFAULT_LIMITS): Header {
  const merged = new HeaderMerger();
  for (const file of files) {
    const l = file.lines[0];
    if (l === undefined) continue;
    const parsed = parseTraceLine(typeof l === 'string' ? l : JSON.stringify(l), file.name, 1, limits.maxDepth);
    if (parsed !== undefined && 'header' in parsed) merged.add(asHeader(parsed.header), file.name);
  }
  return merged.header;
}
