// A memory node as a process: a region of `words` 64-bit words served over the kit's RPC.
// Config: {words, port?}. Reports {port} when listening; exits on {cmd: 'exit'}.
import { childRuntime } from './child.ts';
import { MemoryRegion } from './memory-node.ts';
import { RpcServer } from './rpc.ts';

const rt = childRuntime();
const region = new MemoryRegion(Number(rt.config.words));
const server = new RpcServer({ port: Number(rt.config.port ?? 0), onRequest: (payload, reply) => reply(region.execute(payload)) });
let port: number;
try {
  port = await server.listen();
} catch (e) {
  process.stderr.write(`cannot listen on 127.0.0.1:${String(rt.config.port)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
  process.exit(73);
}
rt.onMessage((m) => {
  if (m.cmd === 'exit') process.exit(0);
});
rt.ready({ port });
