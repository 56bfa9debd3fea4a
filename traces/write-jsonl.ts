// A history as the JSON lines `interleave lin` reads (traces/jsonl.ts): one operation a
// line; a crashed operation (no return) is written as Jepsen's :info, status "info".
import type { Operation } from '../checkers/lin/types.ts';

export function jsonlLines(history: readonly Operation[]): string[] {
  return history.map((o) =>
    JSON.stringify({ client: o.client, input: o.input, call: o.call, ...(o.ret !== undefined ? { return: o.ret, output: o.output, status: 'ok' } : { status: 'info' }) }),
  );
}
