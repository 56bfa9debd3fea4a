// A history recorder for code under test: each operation a client performs is recorded at
// its call and at its return, on a logical clock (one tick per event), so that the order
// the calls and returns happened in is the real-time order the checker needs. An operation
// that throws has an unknown outcome (Jepsen's :info): it may have taken effect, or not.

import type { Operation } from '../checkers/lin/types.ts';

export class HistoryRecorder {
  readonly operations: Operation[] = [];
  private clock = 0;
  private readonly busy = new Set<number | string>();

  /** Records the call; returns the operation's index for `ok` or `unknown`. */
  call(client: number | string, input: unknown): number {
    if (this.busy.has(client)) throw new Error(`client ${String(client)} calls again before its operation returned: a client runs one operation at a time`);
    this.busy.add(client);
    this.operations.push({ client, input, call: this.clock++ });
    return this.operations.length - 1;
  }

  /** The operation returned this output. */
  ok(index: number, output: unknown): void {
    const op = this.operations[index]!;
    op.ret = this.clock++;
    op.output = output;
    this.busy.delete(op.client);
  }

  /** The operation's outcome is unknown (it threw, timed out): it stays indeterminate. */
  unknown(index: number): void {
    this.busy.delete(this.operations[index]!.client);
  }

  /** Runs `perform` as one operation of the client, recording its call and its return. */
  async record<O>(client: number | string, input: unknown, perform: () => Promise<O>): Promise<O> {
    const index = this.call(client, input);
    try {
      const output = await perform();
      this.ok(index, output ?? null);
      return output;
    } catch (e) {
      this.unknown(index);
      throw e;
    }
  }
}
