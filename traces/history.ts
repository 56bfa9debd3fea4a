// From records to the shared Operation[]: the inputs and outputs of the value conventions
// (checkers/lin/types.ts), and Jepsen's pairing of an :invoke with the next completion of
// the same process (prior-art.md §2: :ok happened, :fail did not, :info may have).
import type { Operation } from '../checkers/lin/types.ts';
import { InputError } from './errors.ts';
import { show } from './records.ts';
import { setMembers } from './values.ts';
import { describeVocabulary, isIndependent, vocabularyOf, type ImportModel, type OpKind, type Vocabulary } from './vocabulary.ts';

export interface Input {
  f: string;
  key?: string;
  value?: unknown;
}

/** What an importer read, beyond the operations: for summaries and tests. */
export interface ImportCounts {
  /** Failed operations dropped (they did not happen). */
  failed: number;
  /** Nemesis operations skipped. */
  nemesis: number;
  /** Operations without a definite completion (ret undefined). */
  indeterminate: number;
}

export class InputBuilder {
  readonly vocabulary: Vocabulary;
  /** Values are jepsen.independent [key value] tuples (model independent:<name>). */
  readonly independent: boolean;
  /** Each key's type and first line: the integer 1 and the string "1" are different keys. */
  private readonly keyTypes = new Map<string, { type: string; line: number }>();

  constructor(
    readonly file: string,
    readonly model: ImportModel,
    private readonly style: 'edn' | 'json',
  ) {
    this.vocabulary = vocabularyOf(model);
    this.independent = isIndependent(model);
  }

  /**
   * A jepsen.independent value `[key value]`: the key and the value inside. Completions
   * other than :ok may carry no value (nil).
   */
  tuple(value: unknown, f: string, line: number, optional = false): { key: string | number; value: unknown } | undefined {
    if (optional && (value === undefined || value === null)) return undefined;
    if (!Array.isArray(value) || value.length !== 2 || (typeof value[0] !== 'number' && typeof value[0] !== 'string')) {
      throw new InputError(this.file, line, `a [key value] tuple as the value of ${this.fname(f)} (model ${this.model.name}: jepsen.independent keys, an integer or a string), not ${show(value)}`);
    }
    return { key: value[0] as string | number, value: value[1] };
  }

  private fname(f: string): string {
    return this.style === 'edn' ? `:${f}` : JSON.stringify(f);
  }

  kindOf(f: string, line: number): OpKind {
    const functions = this.vocabulary.functions;
    const kind = Object.hasOwn(functions, f) ? functions[f] : undefined;
    if (kind === undefined) {
      throw new InputError(this.file, line, `a function of model ${this.model.name} (${describeVocabulary(this.vocabulary)}), not ${this.fname(f)}`);
    }
    return kind;
  }

  /** The input of an invocation; a read's value (nil in Jepsen) is not part of it. */
  input(f: string, key: string | number | undefined, value: unknown, line: number): { input: Input; kind: OpKind } {
    const kind = this.kindOf(f, line);
    if (kind === 'read' && !this.independent && !this.vocabulary.keyed && Array.isArray(value) && value.length === 2 && value[1] == null) {
      throw new InputError(this.file, line, `nil as the :invoke value of ${this.fname(f)}, not ${show(value)}: a [key nil] read is how jepsen.independent histories read a key; check them key by key with --independent (model independent:${this.model.name})`);
    }
    const input: Input = { f };
    if (key !== undefined) input.key = this.keyOf(key, line);
    else if (this.vocabulary.keyed) {
      throw new InputError(this.file, line, `a key for ${this.fname(f)} (model ${this.model.name} partitions by key)`);
    }
    if (kind === 'cas') {
      if (!Array.isArray(value) || value.length !== 2) {
        throw new InputError(this.file, line, `a [from to] pair as the value of ${this.fname(f)} (got ${show(value)})`);
      }
      input.value = [value[0], value[1]];
    } else if (kind === 'update' && value !== undefined && value !== null) {
      input.value = value;
    }
    if (kind === 'update' && this.vocabulary.valued && input.value === undefined) {
      throw new InputError(this.file, line, `a value for ${this.fname(f)} of model ${this.model.name}, not nil: nil is what a dequeue of an empty queue returns, so it cannot be an item`);
    }
    if (kind === 'update' && this.vocabulary.strings && typeof input.value !== 'string') {
      throw new InputError(this.file, line, `a string value for ${this.fname(f)} of model ${this.model.name} (got ${show(value)})`);
    }
    return { input, kind };
  }

  private keyOf(key: string | number, line: number): string {
    const k = String(key);
    const type = typeof key === 'number' ? 'an integer' : 'a string';
    const prior = this.keyTypes.get(k);
    if (prior === undefined) this.keyTypes.set(k, { type, line });
    else if (prior.type !== type) {
      throw new InputError(this.file, line, `one type per key: ${show(key)} is ${type} here and ${prior.type} on line ${prior.line}; they are different keys, but would read as one`);
    }
    return k;
  }

  /** The output of a successful completion. */
  okOutput(kind: OpKind, value: unknown, f: string, line: number): unknown {
    if (kind === 'read') {
      const output = value === undefined ? null : this.vocabulary.setReads ? (setMembers(value) ?? value) : value;
      if (this.vocabulary.strings && typeof output !== 'string') {
        throw new InputError(this.file, line, `a string result for ${this.fname(f)} of model ${this.model.name} ("" when never written), not ${show(output)}`);
      }
      return output;
    }
    if (kind === 'cas') return true;
    return null;
  }

  /** The output of a failed completion, or undefined when the operation is dropped. */
  failedOutput(input: Input): unknown {
    return this.model.failedOutput?.(input);
  }
}

export interface JepsenRecord {
  process: number | string;
  type: 'invoke' | 'ok' | 'fail' | 'info';
  f: string;
  key?: string | number;
  value?: unknown;
  line: number;
}

interface Open {
  slot: number;
  f: string;
  key: string | undefined;
  kind: OpKind;
  input: Input;
  line: number;
}

/**
 * Pairs Jepsen records by process. Time is the record's position in the file: Jepsen
 * writes histories in real-time order, and positions never tie.
 */
export class JepsenPairing {
  readonly counts: ImportCounts = { failed: 0, nemesis: 0, indeterminate: 0 };
  private readonly open = new Map<number | string, Open>();
  private readonly slots: (Operation | undefined)[] = [];
  private time = 0;

  constructor(private readonly builder: InputBuilder) {}

  private get file(): string {
    return this.builder.file;
  }

  private proc(p: number | string): string {
    return typeof p === 'number' ? `${p}` : `:${p}`;
  }

  push(r: JepsenRecord): void {
    const t = this.time++;
    if (r.process === 'nemesis') {
      this.counts.nemesis++;
      return;
    }
    const pending = this.open.get(r.process);
    if (r.type === 'invoke') {
      if (pending !== undefined) {
        throw new InputError(this.file, r.line, `a completion (:ok, :fail or :info) of process ${this.proc(r.process)}'s :${pending.f} invoked on line ${pending.line} before it invokes again`);
      }
      let { key, value } = r;
      if (this.builder.independent) {
        if (key !== undefined) throw new InputError(this.file, r.line, `no :key field in a jepsen.independent history (model ${this.builder.model.name}): the key is the first element of the [key value] tuple`);
        ({ key, value } = this.builder.tuple(value, r.f, r.line)!);
      }
      const { input, kind } = this.builder.input(r.f, key, value, r.line);
      const slot = this.slots.length;
      this.slots.push({ client: r.process, input, call: t, origin: { file: this.file, line: r.line } });
      this.open.set(r.process, { slot, f: r.f, key: input.key, kind, input, line: r.line });
      return;
    }
    if (pending === undefined) {
      throw new InputError(this.file, r.line, `an :invoke by process ${this.proc(r.process)} before this :${r.type} completion`);
    }
    if (r.f !== pending.f) {
      throw new InputError(this.file, r.line, `a completion of :${pending.f} (invoked on line ${pending.line} by process ${this.proc(r.process)}), not of :${r.f}`);
    }
    if (r.key !== undefined && pending.key !== undefined && String(r.key) !== pending.key) {
      throw new InputError(this.file, r.line, `the key ${show(pending.key)} of the invocation on line ${pending.line}, not ${show(String(r.key))}`);
    }
    let value = r.value;
    if (this.builder.independent) {
      const tuple = this.builder.tuple(value, r.f, r.line, r.type !== 'ok');
      if (tuple !== undefined && String(tuple.key) !== pending.key) {
        throw new InputError(this.file, r.line, `the key ${show(pending.key)} of the invocation on line ${pending.line}, not ${show(String(tuple.key))}`);
      }
      value = tuple?.value;
    }
    this.open.delete(r.process);
    const op = this.slots[pending.slot]!;
    if (r.type === 'ok') {
      op.ret = t;
      op.output = this.builder.okOutput(pending.kind, value, pending.f, r.line);
    } else if (r.type === 'fail') {
      const output = this.builder.failedOutput(pending.input);
      if (output === undefined) {
        this.slots[pending.slot] = undefined;
        this.counts.failed++;
      } else {
        op.ret = t;
        op.output = output;
      }
    } else {
      this.counts.indeterminate++;
    }
  }

  /** The operations in invocation order; those never completed stay indeterminate. */
  finish(): Operation[] {
    this.counts.indeterminate += this.open.size;
    this.open.clear();
    const ops: Operation[] = [];
    for (const op of this.slots) if (op !== undefined) ops.push(op);
    return ops;
  }
}
