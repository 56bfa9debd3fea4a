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

/**
 * A name read from a keyword as EDN writes it (`:read`); a name no keyword could have (a
 * string of Jepsen's JSON form, or of EDN) as a JSON string, so that a control character
 * in it reaches the terminal escaped.
 */
function keywordText(name: string): string {
  return /^[\w.?!*+<>=/:#'-]+$/.test(name) ? `:${name}` : show(name);
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
    return this.style === 'edn' ? keywordText(f) : JSON.stringify(f);
  }

  kindOf(f: string, line: number): OpKind {
    const functions = this.vocabulary.functions;
    const kind = Object.hasOwn(functions, f) ? functions[f] : undefined;
    if (kind === undefined) {
      throw new InputError(this.file, line, `a function of model ${this.model.name} (${describeVocabulary(this.vocabulary)}), not ${this.fname(f)}`);
    }
    return kind;
  }

  /**
   * The input of an invocation; a read's value (nil in Jepsen) is not part of it. A write's
   * value is required, and null (nil) is one: the register then holds null, as Knossos's
   * does after a write of nil.
   */
  input(f: string, key: string | number | undefined, value: unknown, line: number): { input: Input; kind: OpKind } {
    const kind = this.kindOf(f, line);
    if (kind === 'read' && !this.independent && !this.vocabulary.keyed && Array.isArray(value) && value.length === 2 && value[1] == null) {
      throw new InputError(this.file, line, `nil as the :invoke value of ${this.fname(f)}, not ${show(value)}: a [key nil] read is how jepsen.independent histories read a key; check them key by key with --independent (model independent:${this.model.name})`);
    }
    const input: Input = { f };
    if (key !== undefined) {
      if (this.vocabulary.unkeyed && !this.independent) throw new InputError(this.file, line, this.noKey(f, key));
      input.key = this.keyOf(key, line);
    } else if (this.vocabulary.keyed || this.independent) {
      // Only native JSON lines get here under --independent: Jepsen's forms take the key
      // from the [key value] tuple (tuple() refuses a value that is not one).
      throw new InputError(this.file, line, this.vocabulary.keyed
        ? `a key for ${this.fname(f)} (model ${this.model.name} partitions by key)`
        : `an "input"."key" for ${this.fname(f)}: --independent (model ${this.model.name}) checks each key on its own, and native JSON lines name an operation's key there ([key value] tuples are the form of Jepsen's EDN, JSON and logs)`);
    }
    if (kind === 'cas') {
      if (!Array.isArray(value) || value.length !== 2) {
        throw new InputError(this.file, line, `a [from to] pair as the value of ${this.fname(f)} (got ${show(value)})`);
      }
      input.value = [value[0], value[1]];
    } else if (kind === 'update') {
      if (value === undefined) {
        throw new InputError(this.file, line, `a value for ${this.fname(f)}: what it writes (${this.style === 'edn' ? 'nil' : 'null'} is a value; a write of nothing is not an operation of model ${this.model.name})`);
      }
      if (value === null && this.vocabulary.valued) {
        throw new InputError(this.file, line, `a value for ${this.fname(f)} of model ${this.model.name}, not nil: nil is what a dequeue of an empty queue returns, so it cannot be an item`);
      }
      if (this.vocabulary.strings && typeof value !== 'string') {
        throw new InputError(this.file, line, `a string value for ${this.fname(f)} of model ${this.model.name} (got ${show(value)})`);
      }
      input.value = value;
    }
    return { input, kind };
  }

  /** Why a key on a model without keys is refused, and the form --independent reads. */
  private noKey(f: string, key: string | number): string {
    const how = this.style === 'edn'
      ? 'with --independent, which reads each operation\'s key from its value, a jepsen.independent [key value] tuple'
      : 'with --independent, which reads each operation\'s key from "input"."key" (in Jepsen\'s JSON form, from its value, a [key value] tuple)';
    return `no key for ${this.fname(f)} (got ${show(key)}): model ${this.model.name} has no keys, and dropping the key would judge every key's operations as one object's; check each key on its own ${how}`;
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
      let output = value === undefined ? null : value;
      if (this.vocabulary.setReads) {
        output = setMembers(output) ?? output;
        if (!Array.isArray(output)) {
          throw new InputError(this.file, line, `the members of the set as the result of ${this.fname(f)} of model ${this.model.name} (${this.style === 'edn' ? 'a set #{…} or a vector' : 'an array'}), not ${show(value)}`);
        }
      }
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
    return typeof p === 'number' ? `${p}` : keywordText(p);
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
      throw new InputError(this.file, r.line, `a completion of :${pending.f} (invoked on line ${pending.line} by process ${this.proc(r.process)}), not of ${keywordText(r.f)}`);
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
