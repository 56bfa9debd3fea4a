// The native JSON-lines format (traces/README.md): one operation per line, or one call or
// return event per line; Jepsen's JSON form (one Jepsen op per line) is read too.
import type { z } from 'zod';
import type { Operation } from '../checkers/lin/types.ts';
import { InputError } from './errors.ts';
import { InputBuilder, JepsenPairing, type ImportCounts, type Input } from './history.ts';
import type { Limits } from './limits.ts';
import { schemas } from './lazy-schemas.ts';
import { isNativeEvent, isNativeOperation, show } from './records.ts';
import type { NativeCall, NativeOperation, NativeReturn } from './schemas.ts';
import type { ImportModel, OpKind } from './vocabulary.ts';
import { parseJson } from './json.ts';
import { scannedOperation, scanOperation } from './jsonl-scan.ts';
import { cleanLine } from './lines.ts';
import type { HistorySink } from './sink.ts';

type Shape = 'operations' | 'events' | 'jepsen';

const SHAPE_EXAMPLE: Record<Shape, string> = {
  operations: 'an operation {"client", "input", "call", "return"?, "output"?, "status"?}',
  events: 'an event {"type": "call"|"return", "id", ...}',
  jepsen: 'a Jepsen operation {"process", "type", "f", "value"?}',
};

function shapeOf(obj: Record<string, unknown>): Shape {
  if (Object.hasOwn(obj, 'process')) return 'jepsen';
  if (Object.hasOwn(obj, 'type')) return 'events';
  return 'operations';
}

export class JsonlSink implements HistorySink {
  private shape: Shape | undefined;
  private readonly builder: InputBuilder;
  private readonly counts: ImportCounts = { failed: 0, nemesis: 0, indeterminate: 0 };
  private readonly ops: Operation[] = [];
  private readonly pairing: JepsenPairing;
  // Event form state.
  private time = 0;
  private readonly openById = new Map<number | string, { op: Operation; kind: OpKind; line: number }>();
  private readonly openByClient = new Map<number | string, number>();
  private readonly usedIds = new Map<number | string, number>();
  private readonly dropped = new Set<Operation>();
  private readonly scanned = scannedOperation();
  /**
   * Each client's last operation with a return so far. While every client's operations come
   * in call order, each one after the last one's return, the file passes
   * checkClientsSequential, which is then not run (it sorts every client's operations).
   */
  private readonly lastOfClient = new Map<number | string, Operation>();
  private clientsUnsure = false;

  constructor(
    private readonly file: string,
    model: ImportModel,
    private readonly limits: Limits,
  ) {
    this.builder = new InputBuilder(file, model, 'json');
    this.pairing = new JepsenPairing(this.builder);
  }

  /**
   * A batch's lines, as ASCII bytes (lines.ts): an operation line read in one pass over its
   * bytes (jsonl-scan.ts); a line the scan does not vouch for, through cleanLine and line().
   */
  lines(ascii: Buffer, n: number): number {
    const maxDepth = this.limits.maxDepth;
    const r = this.scanned;
    for (let start = 0; start < ascii.length; n++) {
      let end = this.shape === undefined || this.shape === 'operations' ? scanOperation(ascii, start, maxDepth, r) : -1;
      if (end !== -1) {
        this.shape = 'operations';
        this.record(r.client, r.f, r.key, r.value, r.call, r.ret, r.output, r.status, n);
      } else {
        end = ascii.indexOf(0x0a, start);
        this.line(cleanLine(ascii.toString('latin1', start, end), n, this.file), n);
      }
      start = end + 1;
    }
    return n - 1;
  }

  line(text: string, n: number): void {
    if (text.trim() === '') return;
    const value = parseJson(text, this.file, n, this.limits.maxDepth);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new InputError(this.file, n, `a JSON object per line, not ${show(value)}`);
    }
    const obj = value as Record<string, unknown>;
    const shape = shapeOf(obj);
    if (this.shape === undefined) this.shape = shape;
    else if (shape !== this.shape) {
      throw new InputError(this.file, n, `${SHAPE_EXAMPLE[this.shape]} like the earlier lines (a file does not mix operations, events and Jepsen operations)`);
    }
    if (shape === 'operations') this.operation(obj, n);
    else if (shape === 'events') this.event(obj, n);
    else this.jepsen(obj, n);
  }

  private operation(obj: unknown, n: number): void {
    const r = isNativeOperation(obj) ? obj : this.parse<NativeOperation>(schemas().NativeOperation, obj, n);
    this.record(r.client, r.input.f, r.input.key, r.input.value, r.call, r.return, r.output, r.status, n);
  }

  private record(client: number | string, f: string, key: string | undefined, value: unknown, call: number, ret: number | undefined, output: unknown, given: NativeOperation['status'], n: number): void {
    if (ret !== undefined && ret < call) {
      throw new InputError(this.file, n, `"return" ≥ "call" (it returns at ${ret}, before its call at ${call})`);
    }
    const { input, kind } = this.builder.input(f, key, value, n);
    const status = given ?? (ret === undefined ? 'info' : 'ok');
    // Grown by ret and output, not made whole: an ok operation's shape is then the
    // indeterminate one's plus two fields. Made whole, issue 21's kv example imported
    // ~45 ms faster but its first check ran ~80 ms slower (CPU medians of 6 runs each,
    // alternating, load ~16): the checker reads these objects far more than we make them.
    const op: Operation = { client, input, call, origin: { file: this.file, line: n } };
    if (status === 'info') {
      this.counts.indeterminate++;
      this.ops.push(op);
      return;
    }
    if (ret === undefined) {
      throw new InputError(this.file, n, `a "return" time for a "${status}" operation (or "status": "info" when its outcome is unknown)`);
    }
    op.ret = ret;
    if (status === 'fail') {
      const output = this.builder.failedOutput(input);
      if (output === undefined) {
        this.counts.failed++;
        return;
      }
      op.output = output;
    } else {
      op.output = this.okOutput(kind, input, output, n);
    }
    this.ops.push(op);
    const prev = this.lastOfClient.get(client);
    if (prev !== undefined && (call < prev.call || call < prev.ret!)) this.clientsUnsure = true;
    this.lastOfClient.set(client, op);
  }

  private okOutput(kind: OpKind, input: Input, output: unknown, n: number): unknown {
    if (kind === 'read' && output === undefined) {
      throw new InputError(this.file, n, `an "output": what the ${JSON.stringify(input.f)} returned`);
    }
    if (kind === 'cas' && output !== undefined && typeof output !== 'boolean') {
      throw new InputError(this.file, n, `"output" of a cas to be true or false (got ${show(output)})`);
    }
    if (kind === 'cas') return output ?? true;
    return this.builder.okOutput(kind, output, input.f, n);
  }

  private event(obj: unknown, n: number): void {
    const e = isNativeEvent(obj) ? obj : this.parse<NativeCall | NativeReturn>(schemas().NativeEvent, obj, n);
    const t = this.time++;
    if (e.type === 'call') this.call(e, t, n);
    else this.return(e, t, n);
  }

  /** A record the hand-written check refused: zod's parse, or its account of what is wrong. */
  private parse<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: z.ZodError } }, obj: unknown, n: number): T {
    const parsed = schema.safeParse(obj);
    if (!parsed.success) throw new InputError(this.file, n, schemas().expectedFromZod(parsed.error, obj, 'json'));
    return parsed.data;
  }

  private call(e: NativeCall, t: number, n: number): void {
    const used = this.usedIds.get(e.id);
    if (used !== undefined) throw new InputError(this.file, n, `a fresh "id" (${show(e.id)} was called on line ${used})`);
    const busy = this.openByClient.get(e.client);
    if (busy !== undefined) {
      throw new InputError(this.file, n, `the return of client ${show(e.client)}'s call on line ${busy} before it calls again`);
    }
    const { input, kind } = this.builder.input(e.input.f, e.input.key, e.input.value, n);
    const op: Operation = { client: e.client, input, call: t, origin: { file: this.file, line: n } };
    this.usedIds.set(e.id, n);
    this.openById.set(e.id, { op, kind, line: n });
    this.openByClient.set(e.client, n);
    this.ops.push(op);
  }

  private return(e: NativeReturn, t: number, n: number): void {
    const open = this.openById.get(e.id);
    if (open === undefined) {
      const used = this.usedIds.get(e.id);
      throw new InputError(this.file, n, used === undefined
        ? `a call with "id" ${show(e.id)} before its return`
        : `one return per call ("id" ${show(e.id)}, called on line ${used}, has returned already)`);
    }
    const { op, kind } = open;
    if (e.client !== undefined && e.client !== op.client) {
      throw new InputError(this.file, n, `"client" ${show(op.client)} as in the call on line ${open.line} (got ${show(e.client)})`);
    }
    this.openById.delete(e.id);
    this.openByClient.delete(op.client);
    const status = e.status ?? 'ok';
    if (status === 'info') {
      this.counts.indeterminate++;
      return;
    }
    op.ret = t;
    if (status === 'fail') {
      const output = this.builder.failedOutput(op.input as Input);
      if (output === undefined) {
        this.counts.failed++;
        this.dropped.add(op);
        return;
      }
      op.output = output;
    } else {
      op.output = this.okOutput(kind, op.input as Input, e.output, n);
    }
  }

  private jepsen(obj: unknown, n: number): void {
    const { JepsenOp, expectedFromZod } = schemas();
    const parsed = JepsenOp.safeParse(obj);
    if (!parsed.success) throw new InputError(this.file, n, expectedFromZod(parsed.error, obj, 'json'));
    this.pairing.push({ ...parsed.data, line: n });
  }

  end(): { operations: Operation[]; counts: ImportCounts } {
    if (this.shape === 'jepsen') return { operations: this.pairing.finish(), counts: this.pairing.counts };
    if (this.shape === 'events') {
      this.counts.indeterminate += this.openById.size;
      const kept = this.dropped.size === 0 ? this.ops : this.ops.filter((op) => !this.dropped.has(op));
      return { operations: kept, counts: this.counts };
    }
    if (this.clientsUnsure) this.checkClientsSequential();
    return { operations: this.ops, counts: this.counts };
  }

  /** A client runs one operation at a time; one given up on (no return) does not block it. */
  private checkClientsSequential(): void {
    const byClient = new Map<number | string, Operation[]>();
    for (const op of this.ops) {
      if (op.ret === undefined) continue;
      let list = byClient.get(op.client);
      if (list === undefined) byClient.set(op.client, (list = []));
      list.push(op);
    }
    for (const [client, list] of byClient) {
      list.sort((a, b) => a.call - b.call);
      for (let i = 1; i < list.length; i++) {
        const prev = list[i - 1]!;
        const op = list[i]!;
        if (op.call < prev.ret!) {
          throw new InputError(this.file, op.origin!.line, `client ${show(client)} to run one operation at a time (this call at ${op.call} is before the return at ${prev.ret} of its operation on line ${prev.origin!.line})`);
        }
      }
    }
  }
}
