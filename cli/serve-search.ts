// The counterexample search of `interleave serve`, on a thread of its own (serve.ts starts
// it with checkers/explore/parallel.ts workerCode), so that the server's thread keeps
// answering pages and signals while it runs, and stopping the server stops it. It loads the
// spec as the server starts, searches when told `go`, and posts one message: the result's
// figures and the first counterexample's labels, or the error.
import { parentPort, workerData } from 'node:worker_threads';
import { exploreSync } from '../checkers/explore/index.ts';
import { loadMachine, machineFrom } from '../checkers/explore/load.ts';
import type { ExploreOptions, ExploreTarget } from '../checkers/explore/types.ts';

export type SearchReply =
  | { ok: true; status: string; states: number; depth: number; violation?: { property: string; message: string; labels: string[] } }
  | { ok: false; error: { name: string; message: string } };

const { target, options } = workerData as { target: ExploreTarget; options: ExploreOptions };
/** The target module itself, when a bundled worker's entry (parallel.ts workerCode) put it there. */
const bundled = (globalThis as { interleaveTarget?: Record<string, unknown> }).interleaveTarget;
// The spec loaded now, the search started when the server asks (`go`).
const loaded = (async () => (bundled ? machineFrom(bundled, target) : await loadMachine(target)))();
loaded.catch(() => {});
await new Promise((go) => parentPort!.once('message', go));
let reply: SearchReply;
try {
  const result = exploreSync(await loaded, options);
  const cx = result.violations[0];
  reply = {
    ok: true,
    status: result.status,
    states: result.states,
    depth: result.depth,
    ...(cx ? { violation: { property: cx.property, message: cx.message, labels: cx.steps.map((st) => st.action.label) } } : {}),
  };
} catch (e) {
  reply = { ok: false, error: e instanceof Error ? { name: e.name, message: e.message } : { name: 'Error', message: String(e) } };
}
parentPort!.postMessage(reply);
