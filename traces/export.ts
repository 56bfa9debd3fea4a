// Writing histories in the native JSON-lines format (traces/README.md), so that a
// history from a spec, a test or another format can be saved and checked with `lin`.
import type { Operation } from '../checkers/lin/types.ts';

/** One operation per line. Indeterminate operations are written with status "info". */
export function toOperationLines(history: readonly Operation[]): string {
  return history
    .map((op) =>
      JSON.stringify(
        op.ret === undefined
          ? { client: op.client, input: op.input, call: op.call, status: 'info' }
          : { client: op.client, input: op.input, call: op.call, return: op.ret, output: op.output ?? null },
      ),
    )
    .map((line) => `${line}\n`)
    .join('');
}

/**
 * One event per line, in time order. At equal times calls come first: the intervals are
 * closed, so an operation called when another returns overlaps it. Ids are history indices.
 */
export function toEventLines(history: readonly Operation[]): string {
  const events: { time: number; isCall: boolean; index: number }[] = [];
  history.forEach((op, index) => {
    events.push({ time: op.call, isCall: true, index });
    if (op.ret !== undefined) events.push({ time: op.ret, isCall: false, index });
  });
  events.sort((a, b) => a.time - b.time || Number(b.isCall) - Number(a.isCall) || a.index - b.index);
  return events
    .map(({ isCall, index }) => {
      const op = history[index]!;
      const event = isCall
        ? { type: 'call', id: index, client: op.client, input: op.input }
        : { type: 'return', id: index, output: op.output ?? null };
      return `${JSON.stringify(event)}\n`;
    })
    .join('');
}
