// The harness's side of proxy-main.ts's IPC protocol: one command, resolved on its ack.
import type { Child } from './supervisor.ts';

let lastId = 0;

/**
 * Sends a command to the proxy process and resolves on its ack, or after 2 s without one
 * (a paused or dying proxy must not stall the nemesis; the fault is then simply not in place).
 */
export function steerProxy(proxy: Child, command: Record<string, unknown>): Promise<void> {
  const id = ++lastId;
  return new Promise((resolve) => {
    const done = () => {
      off();
      clearTimeout(timer);
      resolve();
    };
    const off = proxy.onMessage((r) => {
      if (r.type === 'ack' && r.id === id) done();
    });
    const timer = setTimeout(done, 2000);
    proxy.send({ ...command, id });
  });
}
