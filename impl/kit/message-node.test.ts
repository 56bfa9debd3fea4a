import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DurableLog } from './durable-log.ts';
import { MessageNode } from './message-node.ts';
import { FaultProxy, type LinkSpec } from './proxy.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

describe('message-passing nodes through the proxy', () => {
  it('deliver one-way messages and calls with ids the trace can name, and a cut link is unknown, not silent', async () => {
    const names = ['s0', 's1', 's2'];
    const nodes = names.map((n) => new MessageNode(n, { timeoutMs: 300 }));
    const ports = await Promise.all(nodes.map((n) => n.listen()));
    for (const n of nodes) cleanup.push(() => n.close());
    const links: LinkSpec[] = [];
    for (const a of names) for (const b of names) if (a !== b) links.push({ name: `${a}>${b}`, from: a, to: b, port: ports[names.indexOf(b)] });
    const proxy = new FaultProxy(links, 1);
    const via = await proxy.start();
    cleanup.push(() => proxy.close());
    nodes.forEach((n, i) => names.forEach((b) => b !== names[i] && n.connect(b, via[`${names[i]}>${b}`])));

    // a replica that appends what it is told to its durable log and acks with the count
    const dir = mkdtempSync(join(tmpdir(), 'mnode-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const { log } = DurableLog.open(join(dir, 's1.log'));
    cleanup.push(() => log.close());
    const received: string[] = [];
    nodes[1].on('append', (env) => {
      log.commit([Buffer.from(String(env.msg.value))]);
      received.push(`${env.id} from ${env.from}`);
      return { type: 'ack', n: received.length };
    });
    const r1 = await nodes[0].call('s1', { type: 'append', value: 'a' });
    expect(r1).toEqual({ ok: true, id: 's0:1', reply: { type: 'ack', n: 1 } });
    const r2 = await nodes[2].send('s1', { type: 'append', value: 'b' });
    expect(r2).toMatchObject({ ok: true, id: 's2:1' });
    expect(received).toEqual(['s0:1 from s0', 's2:1 from s2']);
    expect(DurableLog.open(join(dir, 's1.log')).recovered.records.map(String)).toEqual(['a', 'b']);

    proxy.isolate(['s1']);
    expect(await nodes[0].send('s1', { type: 'append', value: 'c' })).toEqual({ ok: false, id: 's0:2', failure: 'timeout' });
    proxy.heal();
    expect((await nodes[0].call('s1', { type: 'append', value: 'd' })).ok).toBe(true);
    expect(await nodes[0].send('nobody', { type: 'x' })).toMatchObject({ ok: false, failure: 'notsent' });
  });
});
