// fast-check meets the linearizability checker: a user's async implementation is driven by
// commands (fc.commands) that clients run concurrently under fc.scheduler, which decides
// in which order the implementation's scheduled awaits resume.
// Every call and return is recorded (recorder.ts) and the history is checked against the
// model. A failure throws a NotLinearizable error holding the history and the checker's
// diagnosis; fast-check then shrinks the commands (fewer operations, simpler arguments)
// while the history stays illegal, and reports the seed and path that replay it
// (fc.assert / fc.check with { seed, path }, and the commands' replayPath). The error shows
// the run up to where it went wrong: its shortest illegal prefix. fc.scheduler's choices
// themselves do not shrink, so the history is minimal for them, not always the smallest
// one possible.
//
//   const kv = fc.constantFrom('x', 'y');
//   const property = linearizable({
//     model: 'kv-append',
//     clients: 2,
//     setup: (s) => new Store(() => s.schedule(Promise.resolve())),   // each await a scheduling point
//     commands: [
//       fc.tuple(kv, fc.constantFrom('a', 'b')).map(([key, value]) => operation({ f: 'append', key, value }, (store: Store) => store.append(key, value))),
//       kv.map((key) => operation({ f: 'get', key }, (store: Store) => store.get(key))),
//     ],
//   });
//   await fc.assert(property);

import fc from 'fast-check';
import { checkHistorySync, type CheckOptions, type LinResult, type ModelArg, type Operation } from '../checkers/lin/index.ts';
import { renderLinText } from '../checkers/report/lin-text.ts';
import { HistoryRecorder } from './recorder.ts';

/** What a command runs with: the scheduler, the recorder, and each client's latest operation. */
export interface RunContext {
  scheduler: fc.Scheduler;
  recorder: HistoryRecorder;
  clients: Map<number, Promise<void>>;
}

/** One operation of a client: its input (in the model's terms) and how it is performed. */
export class OperationCommand<Real> implements fc.AsyncCommand<RunContext, Real> {
  constructor(
    readonly input: unknown,
    readonly perform: (real: Real) => Promise<unknown>,
    readonly client = 0,
  ) {}

  /** The same operation, run by another client. */
  on(client: number): OperationCommand<Real> {
    return new OperationCommand(this.input, this.perform, client);
  }

  check(): boolean {
    return true;
  }

  /**
   * Queues the operation after the client's previous one (a client runs one at a time,
   * clients concurrently) and records its call and its return. The interleaving is the
   * scheduler's, at the implementation's own scheduled awaits: each such choice is one the
   * scheduler makes, and fewer choices shrink better (fc.scheduler's do not shrink).
   */
  run(ctx: RunContext, real: Real): Promise<void> {
    const mine = (ctx.clients.get(this.client) ?? Promise.resolve()).then(async () => {
      try {
        await ctx.recorder.record(this.client, this.input, () => this.perform(real));
      } catch {
        // An operation that throws has an unknown outcome: recorded as indeterminate.
      }
    });
    ctx.clients.set(this.client, mine);
    return mine;
  }

  toString(): string {
    return `c${this.client} ${describe(this.input)}`;
  }
}

function describe(input: unknown): string {
  if (typeof input !== 'object' || input === null) return JSON.stringify(input);
  const { f, ...args } = input as { f?: unknown };
  const values = Object.values(args).map((v) => JSON.stringify(v));
  return typeof f === 'string' ? `${f}(${values.join(', ')})` : JSON.stringify(input);
}

/** An operation with this input, performed by `perform` on the implementation. */
export function operation<Real>(input: unknown, perform: (real: Real) => Promise<unknown>): OperationCommand<Real> {
  return new OperationCommand(input, perform);
}

/**
 * The history up to time t: the operations called before t; those that returned at or
 * after t are still pending there (indeterminate).
 */
export function prefixAt(history: readonly Operation[], t: number): Operation[] {
  return history.filter((op) => op.call < t).map((op) => (op.ret !== undefined && op.ret < t ? op : { client: op.client, input: op.input, call: op.call }));
}

/**
 * The shortest prefix (in time) of an illegal history that is illegal already. Every prefix
 * of a linearizable history is linearizable, so this prefix is what the run had shown when
 * it went wrong: operations after it only add noise. Binary search over the event times.
 */
export function shortestIllegalPrefix(model: ModelArg, history: readonly Operation[], options?: CheckOptions): { history: Operation[]; result: LinResult } | undefined {
  const end = Math.max(0, ...history.map((op) => Math.max(op.call, op.ret ?? op.call))) + 1;
  const at = (t: number) => {
    const h = prefixAt(history, t);
    return { history: h, result: checkHistorySync(model, h, options) };
  };
  let best = at(end);
  if (best.result.verdict !== 'illegal') return undefined;
  let lo = 0;
  let hi = end;
  while (lo + 1 < hi) {
    const mid = (lo + hi) >> 1;
    const tried = at(mid);
    if (tried.result.verdict === 'illegal') {
      hi = mid;
      best = tried;
    } else lo = mid;
  }
  return best;
}

/** The history was not linearizable (or not decided): the error fast-check reports and shrinks on. */
export class NotLinearizable extends Error {
  constructor(
    /** The shortest illegal prefix of the run's history (the whole history when undecided). */
    readonly history: readonly Operation[],
    readonly result: LinResult,
    model: ModelArg,
    /** Everything the run recorded. */
    readonly recorded: readonly Operation[] = history,
  ) {
    const name = typeof model === 'string' ? model : model.name;
    const lines = history.map((op) => `  c${String(op.client)} ${describe(op.input)}${op.ret === undefined ? ' -> ? (pending or unknown outcome)' : ` -> ${JSON.stringify(op.output)}`}  [${op.call}, ${op.ret ?? '…'}]`);
    const cut = recorded.length > history.length || recorded.some((op, i) => op.ret !== history[i]?.ret) ? ` (the run up to where it went wrong: ${history.length} of the ${recorded.length} operations it recorded)` : '';
    super(`the history is ${result.verdict === 'unknown' ? 'undecided' : 'not linearizable'} under ${name}${cut}:\n${lines.join('\n')}\n${renderLinText(result, history, model)}`);
    this.name = 'NotLinearizable';
  }
}

export interface LinearizableOptions<Real> {
  /** The sequential model: a registered model's name, or a Model. */
  model: ModelArg;
  /**
   * A fresh implementation for each run. Its asynchronous steps should await the
   * scheduler (`s.schedule(promise)`, `s.scheduleFunction(f)`): those are the points where
   * fast-check interleaves the clients.
   */
  setup(scheduler: fc.Scheduler): Real | Promise<Real>;
  /** Arbitraries of operations (built with `operation`); each is given a client. */
  commands: fc.Arbitrary<OperationCommand<Real>>[];
  /** Clients running concurrently (default 2). */
  clients?: number;
  /** At most this many operations per run (default 8). */
  maxCommands?: number;
  /** Options of the linearizability check. */
  check?: CheckOptions;
  /** Called after each run (stop timers, close connections). */
  teardown?(real: Real): void | Promise<void>;
  /**
   * To replay a failure with fc.assert's { seed, path }: the replayPath that fast-check
   * prints in the counterexample's commands (`/*replayPath="..."*\/`), which fc.commands
   * needs to shrink the same way again.
   */
  replayPath?: string;
}

/**
 * A fast-check property: for the generated operations spread over the clients and a
 * scheduler's interleaving, the recorded history is linearizable under the model.
 */
export function linearizable<Real>(options: LinearizableOptions<Real>) {
  const clients = options.clients ?? 2;
  const withClient = options.commands.map((arb) => fc.tuple(fc.integer({ min: 0, max: clients - 1 }), arb).map(([client, op]) => op.on(client)));
  return fc.asyncProperty(fc.scheduler(), fc.commands(withClient, { maxCommands: options.maxCommands ?? 8, ...(options.replayPath !== undefined ? { replayPath: options.replayPath } : {}) }), async (scheduler, commands) => {
    const real = await options.setup(scheduler);
    const recorder = new HistoryRecorder();
    const ctx: RunContext = { scheduler, recorder, clients: new Map() };
    try {
      await scheduler.waitFor(Promise.all([...commands].map((c) => c.run(ctx, real))));
    } finally {
      await options.teardown?.(real);
    }
    const result = checkHistorySync(options.model, recorder.operations, options.check);
    if (result.verdict === 'ok') return;
    const prefix = result.verdict === 'illegal' ? shortestIllegalPrefix(options.model, recorder.operations, options.check) : undefined;
    throw new NotLinearizable(prefix?.history ?? recorder.operations, prefix?.result ?? result, options.model, recorder.operations);
  });
}
