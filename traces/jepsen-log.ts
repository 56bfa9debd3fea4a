// Jepsen's text log (format `jepsen-log`, ../shared/corpora/README.md): the lines
// `INFO  jepsen.util - <process> <:type> <:f> <value>` (tab- or space-separated) are the
// history; every other line is noise.
import type { Operation } from '../checkers/lin/types.ts';
import { readForms } from './edn.ts';
import { InputError } from './errors.ts';
import { InputBuilder, JepsenPairing, type ImportCounts } from './history.ts';
import type { Limits } from './limits.ts';
import type { HistorySink } from './sink.ts';
import { ednToJs, Spellings } from './values.ts';
import type { ImportModel } from './vocabulary.ts';

/** A line that claims to be an operation; it must then parse fully. */
export const JEPSEN_LOG_LINE = /\bjepsen\.util\s+-\s+\S+\s+:(invoke|ok|fail|info)\s/;
const FIELDS = /\bjepsen\.util\s+-\s+(\S+)\s+:(invoke|ok|fail|info)\s+(\S+)\s*(.*)$/;

export class JepsenLogSink implements HistorySink {
  private readonly pairing: JepsenPairing;
  private operationLines = 0;
  private readonly spellings = new Spellings('value');

  constructor(
    private readonly file: string,
    model: ImportModel,
    private readonly limits: Limits,
  ) {
    this.pairing = new JepsenPairing(new InputBuilder(file, model, 'edn'));
  }

  line(text: string, n: number): void {
    if (!JEPSEN_LOG_LINE.test(text + ' ')) return;
    const m = FIELDS.exec(text);
    if (m === null) throw new InputError(this.file, n, 'a log line "INFO  jepsen.util - <process> <:type> <:f> <value>"');
    const [, proc, type, fn, rest] = m as unknown as [string, string, 'invoke' | 'ok' | 'fail' | 'info', string, string];
    let process: number | string;
    if (/^(0|[1-9]\d*)$/.test(proc) && Number.isSafeInteger(Number(proc))) process = Number(proc);
    else if (/^:[\w.-]+$/.test(proc)) process = proc.slice(1);
    else throw new InputError(this.file, n, `a process: an integer ≥ 0 (below 2^53, without leading zeros) or a keyword like :nemesis, not ${proc}`);
    if (!/^:[\w.?!*+-]+$/.test(fn)) throw new InputError(this.file, n, `a function keyword like :read, not ${fn}`);
    const forms = readForms(rest, this.file, n, this.limits);
    if (forms.length > 1) throw new InputError(this.file, n, `one EDN value after ${fn}, not ${forms.length}`);
    const value = forms.length === 0 ? undefined : ednToJs(forms[0]!.value, this.file, n, this.spellings);
    this.operationLines++;
    this.pairing.push({ process, type, f: fn.slice(1), value, line: n });
  }

  end(lastLine: number): { operations: Operation[]; counts: ImportCounts } {
    if (this.operationLines === 0) {
      throw new InputError(this.file, lastLine, 'at least one operation line "INFO  jepsen.util - <process> <:type> <:f> <value>" (none in the file)');
    }
    return { operations: this.pairing.finish(), counts: this.pairing.counts };
  }
}
