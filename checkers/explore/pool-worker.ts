// One thread of a job pool (pool.ts): rebuilds each job's machine from its target and runs
// the job (conformance.ts runJob) on this thread, one at a time.

import { parentPort } from 'node:worker_threads';
import { runJob } from './conformance.ts';
import { loadMachine, machineFrom } from './load.ts';
import type { PoolReply, PoolRequest } from './pool.ts';

const port = parentPort!;
/** The target module itself, when a bundled worker's entry (parallel.ts workerCode) put it there. */
const bundled = (globalThis as { interleaveTarget?: Record<string, unknown> }).interleaveTarget;

port.on('message', async ({ id, job, target, options }: PoolRequest) => {
  let reply: PoolReply;
  try {
    const machine = bundled ? machineFrom(bundled, target) : await loadMachine(target);
    const { result: _whole, ...outcome } = runJob(job, machine, options);
    reply = { id, outcome };
  } catch (e) {
    reply = { id, error: e instanceof Error ? { name: e.name, message: e.message, stack: e.stack } : { name: 'Error', message: String(e) } };
  }
  port.postMessage(reply);
});
port.postMessage({ id: -1 } satisfies PoolReply);
