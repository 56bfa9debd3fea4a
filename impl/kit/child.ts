// The child's side of supervision (supervisor.ts): every kit process calls `childRuntime()`
// first. It exits as soon as its parent is gone, so nothing outlives the harness: when the
// IPC channel to the parent closes (the parent exited, crashed or was killed), and, as a
// second line, when the process is re-parented. A paused (SIGSTOP) child cannot watch;
// the supervisor's reaper kills those.

/** What every protocol process is started with, beside its own settings. */
export interface ProcessConfig {
  /** The run's seed: the process's random choices follow from it. */
  seed: string;
  /** The run's origin on the machine's monotonic clock (ns), shared by every trace and history. */
  t0: number;
  traceFile: string;
  /** How long a request may wait for its response before it is unknown. */
  timeoutMs: number;
}

export interface ChildRuntime {
  /** Tells the parent the process is up (with what it needs: ports, ...). */
  ready(info: Record<string, unknown>): void;
  send(message: Record<string, unknown>): void;
  onMessage(handler: (message: Record<string, unknown>) => void): void;
  /** Arguments the parent passed as one JSON argument. */
  config: Record<string, unknown>;
}

export function childRuntime(): ChildRuntime {
  const parent = process.ppid;
  if (process.send !== undefined) {
    process.on('disconnect', () => process.exit(0));
    setInterval(() => {
      if (process.ppid !== parent) process.exit(0);
    }, 250).unref();
  }
  process.on('uncaughtException', (e) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(70);
  });
  process.on('unhandledRejection', (e) => {
    process.stderr.write(`unhandled rejection: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(70);
  });
  const arg = process.argv[2];
  let config: Record<string, unknown> = {};
  if (arg !== undefined) config = JSON.parse(arg) as Record<string, unknown>;
  const send = (m: Record<string, unknown>) => {
    if (process.connected) process.send!(m);
  };
  return {
    ready: (info) => send({ type: 'ready', ...info }),
    send,
    onMessage: (handler) => process.on('message', (m) => handler(m as Record<string, unknown>)),
    config,
  };
}
