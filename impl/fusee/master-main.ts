// The master as a process: the membership server client processes connect to (through the
// proxy), and the master's loop (master.ts). IPC with the harness:
//   in:  {cmd: 'start', mnPorts}  connect to the memory nodes and begin leasing them
//        {type: 'mn-killed', mn}  the harness killed a node at the master's request
//        {cmd: 'status'} -> {type: 'status', busy, stats}
//        {cmd: 'exit'}
//   out: {type: 'kill-mn', mn}    a node's lease lapsed: kill it (the harness logs crashMN)
//        {type: 'assert', ...}
import { childRuntime, type ProcessConfig } from '../kit/child.ts';
import { decodeJson, encodeJson } from '../kit/json.ts';
import { TraceWriter } from '../kit/recorder.ts';
import { Rng } from '../kit/rng.ts';
import { RpcClient, RpcServer } from '../kit/rpc.ts';
import { MemoryClient } from '../kit/verbs.ts';
import { Layout } from './layout.ts';
import { Master } from './master.ts';

export interface MasterConfig extends ProcessConfig {
  keys: string[];
  n: number;
  r: number;
  port: number;
  bugs: string[];
  mnLeaseMs: number;
  clientLeaseMs: number;
  pollMs: number;
}

const rt = childRuntime();
const cfg = rt.config as unknown as MasterConfig;
const layout = new Layout(cfg.keys, cfg.n, cfg.r);
const trace = new TraceWriter(cfg.traceFile, cfg.t0);
let mems: MemoryClient[] = [];
const killed = new Map<number, () => void>();

const server = new RpcServer({
  port: cfg.port,
  onRequest: (payload, reply) => {
    const m = decodeJson(payload) as Record<string, unknown> | undefined;
    const view = () => master.clientView();
    switch (m?.type) {
      case 'register':
        // a logical client is known to the master before its first step
        master.heartbeat(String(m.proc), [Number(m.client)], []);
        return reply(encodeJson(view()));
      case 'heartbeat': {
        const dead = master.heartbeat(String(m.proc), (m.live as number[]) ?? [], (m.all as number[]) ?? []);
        return reply(encodeJson({ ...view(), dead }));
      }
      case 'view':
        return reply(encodeJson(view()));
      case 'failQuery':
        void master.failQuery(String(m.key), Number(m.epoch)).then((s) => reply(encodeJson({ s })));
        return;
    }
  },
});

const master: Master = new Master({
  layout,
  bugs: new Set(cfg.bugs),
  trace,
  rng: new Rng(`${cfg.seed}/master`),
  mem: (mn) => mems[mn],
  killNode: (mn) =>
    new Promise<void>((resolve) => {
      killed.set(mn, resolve);
      rt.send({ type: 'kill-mn', mn });
    }),
  broadcast: (message) => {
    const payload = encodeJson(message);
    for (const p of server.peers) p.push(payload);
  },
  assert: (ok, message) => {
    if (ok) return;
    process.stderr.write(`assertion failed: ${message}\n`);
    rt.send({ type: 'assert', proc: 'master', message });
  },
  mnLeaseMs: cfg.mnLeaseMs,
  clientLeaseMs: cfg.clientLeaseMs,
  timeoutMs: cfg.timeoutMs,
  pollMs: cfg.pollMs,
});

let port: number;
try {
  port = await server.listen();
} catch (e) {
  process.stderr.write(`cannot listen on 127.0.0.1:${cfg.port}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
  process.exit(73);
}

rt.onMessage((m) => {
  if (m.cmd === 'start') {
    mems = (m.mnPorts as number[]).map((p) => new MemoryClient(new RpcClient({ port: p, timeoutMs: cfg.timeoutMs, connectTimeoutMs: 500 }), 0));
    void master.run();
    rt.send({ type: 'started' });
  } else if (m.type === 'mn-killed') {
    killed.get(Number(m.mn))?.();
  } else if (m.cmd === 'status') {
    rt.send({ type: 'status', busy: master.busy(), stats: master.stats, epoch: master.epoch, removed: [...master.removed] });
  } else if (m.cmd === 'exit') {
    master.stop();
    trace.close();
    process.exit(0);
  }
});
rt.ready({ port });
