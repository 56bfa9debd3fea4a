// `interleave serve <spec> [--config C] [--mutant M]`: walk a spec's state space by hand in
// a browser, as Stateright's Explorer does. A local HTTP server on 127.0.0.1 only; a page
// per state, its URL the path of action indices from an initial state (`/?path=2.0.1`),
// so a path is shared as a URL and the back button steps back. `/counterexample` runs
// the explorer (bounded, on a thread of its own: pages, SIGINT and SIGTERM are answered
// meanwhile, and stopping the server stops it) and redirects to the first counterexample's last state.
// Runs until interrupted (SIGINT, SIGTERM); exit 0. 64 bad usage (an unknown spec,
// config or mutant, a port in use), 65 a user's spec module that cannot be loaded or throws.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { Worker } from 'node:worker_threads';
import { prepare, replayLabels } from '../checkers/explore/index.ts';
import { OWN_EXTENSION } from '../checkers/explore/load.ts';
import { workerCode } from '../checkers/explore/parallel.ts';
import type { Action, Machine } from '../checkers/explore/types.ts';
import { esc, page } from '../checkers/report/html.ts';
import { renderWalkPage, walkHref, type WalkAction } from '../checkers/report/walk-html.ts';
import { userSpecErrors } from './errors.ts';
import { UsageError } from './exit.ts';
import { integer, seconds } from './flags.ts';
import { withHelp } from './help.ts';
import type { SearchReply } from './serve-search.ts';
import { configOf, mutantOf, resolveSpec } from './specs.ts';

export interface ServeOptions {
  config?: string;
  mutant?: string;
  port?: number;
  /** Bounds of the counterexample search. */
  maxStates?: number;
  time?: number;
}

export interface Served {
  url: string;
  /** Stops the server, and the counterexample search if one is running. */
  close(): Promise<void>;
  /** A counterexample search is running (on its own thread). */
  searching(): boolean;
}

/** The counterexample search's thread (serve-search.ts). */
const SEARCH_ENTRY = new URL(`./serve-search${OWN_EXTENSION}`, import.meta.url).href;

/** At most this many steps in a path, and actions whose successors are checked per page. */
const MAX_PATH = 10_000;
const MAX_CHECKED = 500;
/** The port without --port. */
export const DEFAULT_PORT = 3000;

function actionDetail(a: Action): string {
  return Object.entries(a)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('\n');
}

class NotFound extends Error {}

export async function startServer(specName: string, o: ServeOptions): Promise<Served> {
  const resolved = await resolveSpec(specName);
  const spec = resolved.def;
  // The same names, and the same errors, as explore: an unknown config or mutant is bad
  // usage (64), a user's spec that throws while building is bad input (65).
  const mutant = o.mutant === undefined ? undefined : mutantOf(resolved, o.mutant);
  const variant = mutant?.variant;
  const config = o.config !== undefined ? configOf(resolved, o.config) : (mutant?.config ?? spec.configs.find((c) => c.tier === 'default')?.name ?? spec.configs[0]!.name);
  // The machine as `explore` searches it (the linearizability monitor included), shown as the spec's state.
  const machine: Machine = await userSpecErrors(resolved, 'building the machine', () => prepare(resolved.machine(config, variant), {}));
  const shown = (s: unknown) => (machine.inner ? machine.inner(s) : s);
  const title = `${specName}/${config}${o.mutant ? ` with ${o.mutant}` : ''}`;
  const inits = await userSpecErrors(resolved, 'computing the initial states', () => machine.init());
  type Found = { path?: { init: number; indices: number[] }; note: string };
  /** The search, once asked for: running, or its answer (a failed one is asked again). */
  let search: Promise<Found> | undefined;
  let found: Found | undefined;
  /** The search's thread (serve-search.ts): started with the server, it loads the spec and waits for `go`. */
  interface Searcher {
    worker: Worker;
    reply: Promise<SearchReply>;
  }
  let spare: Promise<Searcher | undefined> | undefined;
  /** Every thread started and not yet stopped: close() stops them. */
  const threads = new Set<Worker>();
  let running = false;
  let closing = false;
  const target = resolved.target(config, variant);
  const options = { maxStates: o.maxStates ?? 1_000_000, timeLimitMs: (o.time ?? 60) * 1000 };
  /** A search thread, its code bundled and the spec loaded ahead of the request (seconds on a busy machine). */
  async function startSearcher(): Promise<Searcher | undefined> {
    const code = await workerCode(target, SEARCH_ENTRY);
    if (closing) return undefined;
    const worker = new Worker(code, { eval: true, workerData: { target, options } });
    threads.add(worker);
    const reply = new Promise<SearchReply>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the search's thread stopped (exit ${code})`)));
    });
    reply.catch(() => {}).finally(() => {
      threads.delete(worker);
      void worker.terminate();
    });
    return { worker, reply };
  }
  spare = startSearcher();
  spare.catch(() => {});

  function walk(init: number, path: number[], note?: string): string {
    if (init >= inits.length) throw new NotFound(`no initial state ${init} (there are ${inits.length})`);
    let s = inits[init];
    let before: unknown;
    const steps = [];
    for (let n = 0; n < path.length; n++) {
      const enabled = machine.actions(s);
      const a = enabled[path[n]];
      if (a === undefined) throw new NotFound(`step ${n + 1}: no action ${path[n]} (${enabled.length} enabled)`);
      before = s;
      s = machine.next(s, a);
      steps.push({ label: a.label, detail: actionDetail(a) });
    }
    const invariants = Object.fromEntries(Object.entries(machine.invariants).map(([name, inv]) => [name, inv(s)]));
    const enabled = machine.actions(s);
    const actions: WalkAction[] = enabled.map((a, index) => {
      const violates: string[] = [];
      if (index < MAX_CHECKED) {
        const t = machine.next(s, a);
        for (const [name, inv] of Object.entries(machine.invariants)) if (inv(t) !== true) violates.push(name);
      }
      return { label: a.label, detail: actionDetail(a), index, violates };
    });
    const deadlock = enabled.length === 0 && machine.mayStop !== undefined && !machine.mayStop(s);
    return renderWalkPage({ title, init, inits: inits.length, path, steps, state: shown(s), before: before === undefined ? undefined : shown(before), invariants, actions, deadlock, ...(note ? { note } : {}), ...(machine.internal ? { internal: machine.internal } : {}) });
  }

  /**
   * The bounded search, on a thread of its own (serve-search.ts): the server's thread goes on
   * answering pages, SIGINT and SIGTERM meanwhile, and close() stops it.
   */
  async function findCounterexample(): Promise<Found> {
    const started = await (spare ?? startSearcher());
    spare = undefined;
    if (started === undefined) throw new Error('the server is stopping');
    let result: SearchReply;
    running = true;
    try {
      started.worker.postMessage('go');
      result = await started.reply;
    } finally {
      running = false;
    }
    if (!result.ok) throw new Error(`${result.error.name}: ${result.error.message}`);
    const stats = `${result.states.toLocaleString('en')} distinct states, depth ${result.depth}`;
    const cx = result.violation;
    if (!cx) {
      return { note: result.status === 'holds' ? `No counterexample: every property holds (${stats}).` : `No counterexample found within the search's bounds (${stats}); the search is incomplete.` };
    }
    const labels = cx.labels;
    for (let init = 0; init < inits.length; init++) {
      try {
        const { indices } = replayLabels(machine, labels, init);
        return { path: { init, indices }, note: `A counterexample: ${cx.property} violated after ${labels.length} steps (${cx.message}); found by breadth-first search over ${stats}.` };
      } catch {
        // Not from this initial state: try the next.
      }
    }
    return { note: `A counterexample (${cx.property}) was found but its labels do not replay here: ${labels.join('; ')}` };
  }

  function handle(req: IncomingMessage, res: ServerResponse, port: number): void {
    const send = (status: number, html: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', ...headers });
      res.end(req.method === 'HEAD' ? undefined : html);
    };
    const error = (status: number, message: string) =>
      send(status, page(`${title}: ${message}`, `<h1>${esc(title)}</h1><p class="verdict-violation" id="error">${esc(message)}</p><p><a href="/">back to the initial state</a></p>`));
    // A page from another site must not reach this server through a name bound to 127.0.0.1.
    const host = req.headers.host ?? '';
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return error(403, `refused: Host ${host}`);
    if (req.method !== 'GET' && req.method !== 'HEAD') return error(405, `method ${req.method} not allowed`);
    // The request target is the client's: one URL cannot parse (`GET http://[`) is a bad
    // request, never an exception that stops the server.
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    } catch {
      return error(400, 'bad request target: expected a path like /?path=2.0.1');
    }
    try {
      if (url.pathname === '/counterexample') {
        search ??= findCounterexample().then((f) => (found = f));
        // Answered when the search is done; a client gone, or a server stopped, meanwhile gets nothing.
        const failed = (e: unknown) => {
          if (!res.headersSent && !res.destroyed) error(500, `the spec failed: ${(e as Error).message}`);
        };
        search.then(
          (f) => {
            if (res.destroyed) return;
            try {
              if (f.path) {
                const href = walkHref(f.path.init, f.path.indices);
                return send(303, '', { location: `${href}${href.includes('?') ? '&' : '?'}found=1` });
              }
              return send(200, walk(0, [], f.note));
            } catch (e) {
              return failed(e);
            }
          },
          (e: unknown) => {
            search = undefined;
            failed(e);
          },
        );
        return;
      }
      if (url.pathname !== '/') return error(404, `no page ${url.pathname}`);
      const rawPath = url.searchParams.get('path') ?? '';
      const rawInit = url.searchParams.get('init') ?? '0';
      if (rawPath.length > MAX_PATH * 6 || (rawPath !== '' && !/^\d{1,5}(\.\d{1,5})*$/.test(rawPath))) return error(400, 'path: expected action indices separated by dots, like 2.0.1');
      if (!/^\d{1,5}$/.test(rawInit)) return error(400, 'init: expected the index of an initial state');
      const path = rawPath === '' ? [] : rawPath.split('.').map(Number);
      if (path.length > MAX_PATH) return error(400, `path: at most ${MAX_PATH} steps`);
      const note = url.searchParams.get('found') === '1' && found?.note ? found.note : undefined;
      return send(200, walk(Number(rawInit), path, note));
    } catch (e) {
      if (e instanceof NotFound) return error(404, e.message);
      return error(500, `the spec failed: ${(e as Error).message}`);
    }
  }

  const server: Server = createServer();
  const asked = o.port ?? DEFAULT_PORT;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new UsageError(`port ${asked} is in use; choose another with --port (0: any free port)`) : e));
    server.listen(asked, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  server.on('request', (req, res) => handle(req, res, port));
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      closing = true;
      await Promise.all([...threads].map((w) => w.terminate()));
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
    searching: () => running,
  };
}

export function register(program: Command): void {
  const command = program
    .command('serve <spec>')
    .description('walk a spec state by state in a browser (a local page on 127.0.0.1): enabled actions, invariants, back, jump to a counterexample, paths as URLs')
    .option('--config <name>', "the config (default: the mutant's, else the first default config)")
    .option('--mutant <name>', 'a mutant or finding of the spec')
    .option('--port <n>', 'the port on 127.0.0.1 (default 3000; 0: any free port)', integer(0, 65535))
    .option('--max-states <n>', 'state budget of the counterexample search (default 1,000,000)', integer(1))
    .option('--time <seconds>', 'time budget of the counterexample search (default 60)', seconds())
    .action(async (spec: string, o: ServeOptions) => {
      const served = await startServer(spec, o);
      process.stdout.write(`interleave serve: ${served.url} (Ctrl-C to stop)\n`);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void served.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
  withHelp(command, {
    examples: [
      ['interleave serve fusee', 'the first default config, at http://127.0.0.1:3000/'],
      ['interleave serve shadowfax --mutant H1 --port 0', "a mutant at its own config, on any free port; /counterexample jumps to its violation"],
      ['interleave serve ./my-spec.ts --config P3', 'a config of a module of yours'],
    ],
    exitCodes: {
      0: 'stopped by SIGINT (Ctrl-C) or SIGTERM',
      64: 'also a port in use',
      65: "the spec module cannot be loaded, or threw while building the machine or its initial states",
    },
  });
}
