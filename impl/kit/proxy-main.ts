// The fault proxy as a process: started by the harness with its links, steered over IPC.
//   {cmd: 'isolate', procs} | {cmd: 'block', links} | {cmd: 'heal'} | {cmd: 'net', faults, links?} | {cmd: 'clear-net'}
//   | {cmd: 'reset', links?} | {cmd: 'stats'}; each answered {type: 'ack', id, ...}.
import { childRuntime } from './child.ts';
import { FaultProxy, type LinkSpec, type NetFaults } from './proxy.ts';

const rt = childRuntime();
const proxy = new FaultProxy(rt.config.links as LinkSpec[], rt.config.seed as string | number);
const ports = await proxy.start();
rt.onMessage((m) => {
  const ack = (extra: Record<string, unknown> = {}) => rt.send({ type: 'ack', id: m.id, ...extra });
  switch (m.cmd) {
    case 'isolate':
      proxy.isolate(m.procs as string[]);
      return ack();
    case 'block':
      proxy.block(m.links as string[]);
      return ack();
    case 'heal':
      proxy.heal();
      return ack();
    case 'net':
      proxy.setNet(m.faults as NetFaults, m.links as string[] | undefined);
      return ack();
    case 'clear-net':
      proxy.clearNet();
      return ack();
    case 'reset':
      return ack({ resets: proxy.reset(m.links as string[] | undefined) });
    case 'stats':
      return ack({ stats: proxy.stats });
    case 'exit':
      process.exit(0);
  }
});
rt.ready({ ports });
