// Jepsen EDN histories: one operation map per line (or spanning lines), or one vector or
// list of maps; `#jepsen.history.Op{...}` records read as maps.
import type { Operation } from '../checkers/lin/types.ts';
import { EdnChar, EdnFloat, EdnFormStream, EdnMap, EdnSymbol, Keyword, type Edn, type Form } from './edn.ts';
import { InputError } from './errors.ts';
import { InputBuilder, JepsenPairing, type ImportCounts } from './history.ts';
import type { Limits } from './limits.ts';
import { schemas } from './lazy-schemas.ts';
import { show } from './records.ts';
import type { HistorySink } from './sink.ts';
import { ednToJs, Spellings } from './values.ts';
import type { ImportModel } from './vocabulary.ts';

export class EdnSink implements HistorySink {
  private readonly pairing: JepsenPairing;
  private readonly forms: EdnFormStream;
  private readonly spellings = { key: new Spellings('key'), value: new Spellings('value') };

  constructor(
    private readonly file: string,
    model: ImportModel,
    limits: Limits,
  ) {
    this.pairing = new JepsenPairing(new InputBuilder(file, model, 'edn'));
    this.forms = new EdnFormStream(file, limits, (form) => this.form(form));
  }

  private form({ value, line }: Form): void {
    if (!(value instanceof EdnMap)) {
      throw new InputError(this.file, line, 'an operation map {:process …, :type …, :f …, :value …}');
    }
    checkProcess(value.get('process'), this.file, line);
    // Only the fields the history uses: others (:time in nanoseconds, :error) may hold
    // values, such as integers beyond 2^53, that plain data cannot.
    const field = (key: string, spellings?: Spellings) => {
      const v = value.get(key);
      return v === undefined ? undefined : ednToJs(v, this.file, line, spellings);
    };
    const obj = { process: field('process'), type: field('type'), f: field('f'), key: field('key', this.spellings.key), value: field('value', this.spellings.value) };
    const { JepsenOp, expectedFromZod } = schemas();
    const parsed = JepsenOp.safeParse(obj);
    if (!parsed.success) throw new InputError(this.file, line, expectedFromZod(parsed.error, obj, 'edn'));
    this.pairing.push({ ...parsed.data, line });
  }

  line(text: string, n: number): void {
    this.forms.push(text, n);
  }

  end(lastLine: number): { operations: Operation[]; counts: ImportCounts } {
    this.forms.end(lastLine);
    return { operations: this.pairing.finish(), counts: this.pairing.counts };
  }
}

/**
 * A process is an integer or a keyword (Jepsen's clients are numbered, its nemesis is
 * :nemesis), told apart as Clojure's = tells them apart. A string, symbol or float would
 * read as the keyword or integer it spells ("a" as :a, 1.0 as 1) and could complete
 * another process's invoke, so it is refused rather than read. (A negative integer or
 * anything else is left to the schema, which refuses it too.)
 */
function checkProcess(p: Edn | undefined, file: string, line: number): void {
  if (p === undefined || typeof p === 'number' || p instanceof Keyword) return;
  let got: string | undefined;
  if (typeof p === 'string') got = `the string ${show(p)}, which would read as the keyword of that name`;
  else if (p instanceof EdnSymbol) got = `the symbol ${show(p.name)}, which would read as the keyword of that name`;
  else if (p instanceof EdnChar) got = `the character ${show(p.char)}`;
  else if (p instanceof EdnFloat) {
    const spelled = `${Number.isInteger(p.value) ? p.value.toFixed(1) : p.value}${p.decimal ? 'M' : ''}`;
    got = `the ${p.decimal ? 'decimal' : 'float'} ${spelled}${Number.isInteger(p.value) ? ', which would read as an integer' : ''}`;
  }
  if (got !== undefined) throw new InputError(file, line, `:process to be an integer ≥ 0 or a keyword like :nemesis (got ${got})`);
}
