import { afterEach, describe, expect, it } from 'vitest';
import { FaultProxy } from './proxy.ts';
import { RpcClient, RpcServer, type Peer } from './rpc.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A server that echoes, or stays silent on "silent", or closes the connection on "close". */
async function echoServer(seen: string[] = []): Promise<{ server: RpcServer; port: number; peers: Peer[] }> {
  const peers: Peer[] = [];
  const server = new RpcServer({
    port: 0,
    onConnect: (p) => peers.push(p),
    onRequest: (payload, reply, peer) => {
      const s = payload.toString();
      seen.push(s);
      if (s === 'silent') return;
      if (s === 'close') return peer.close();
      reply(Buffer.from(`re:${s}`));
    },
  });
  const port = await server.listen();
  cleanup.push(() => server.close());
  return { server, port, peers };
}

function client(port: number, timeoutMs = 300): RpcClient {
  const c = new RpcClient({ port, timeoutMs, connectTimeoutMs: 300 });
  cleanup.push(() => c.close());
  return c;
}

describe('rpc outcomes', () => {
  it('answers requests, pipelined, each with its own response', async () => {
    const { port } = await echoServer();
    const c = client(port);
    const outs = await Promise.all(['a', 'b', 'c'].map((s) => c.request(Buffer.from(s))));
    expect(outs.map((o) => (o.ok ? o.payload.toString() : o.failure))).toEqual(['re:a', 're:b', 're:c']);
  });

  it('says notsent when nothing listens, timeout when no answer comes, lost when the connection drops', async () => {
    const { port, server } = await echoServer();
    const c = client(port);
    expect(await c.request(Buffer.from('silent'))).toEqual({ ok: false, failure: 'timeout' });
    expect(await c.request(Buffer.from('close'))).toEqual({ ok: false, failure: 'lost' });
    // reconnects on demand
    expect(await c.request(Buffer.from('x'))).toMatchObject({ ok: true });
    await server.close();
    const dead = client(port);
    expect(await dead.request(Buffer.from('y'))).toEqual({ ok: false, failure: 'notsent' });
  });

  it('delivers pushes', async () => {
    const { port, peers } = await echoServer();
    const got: string[] = [];
    const c = new RpcClient({ port, onPush: (p) => got.push(p.toString()) });
    cleanup.push(() => c.close());
    await c.request(Buffer.from('hi'));
    peers[0].push(Buffer.from('news'));
    await new Promise((r) => setTimeout(r, 50));
    expect(got).toEqual(['news']);
  });
});

describe('through the fault proxy', () => {
  async function setup() {
    const seen: string[] = [];
    const { port } = await echoServer(seen);
    const proxy = new FaultProxy([{ name: 'a>s', from: 'a', to: 's', port }], 1);
    const ports = await proxy.start();
    cleanup.push(() => proxy.close());
    return { seen, proxy, c: client(ports['a>s']) };
  }

  it('passes traffic, and an isolated process sees timeouts until healed', async () => {
    const { proxy, c } = await setup();
    expect(await c.request(Buffer.from('1'))).toMatchObject({ ok: true });
    proxy.isolate(['s']);
    expect(await c.request(Buffer.from('2'))).toEqual({ ok: false, failure: 'timeout' });
    proxy.heal();
    expect(await c.request(Buffer.from('3'))).toMatchObject({ ok: true });
  });

  it('keeps order under delay and jitter', async () => {
    const { proxy, c, seen } = await setup();
    await c.request(Buffer.from('warm'));
    proxy.setNet({ delayMs: 5, jitterMs: 20 });
    const ids = Array.from({ length: 30 }, (_, i) => String(i));
    const outs = await Promise.all(ids.map((s) => c.request(Buffer.from(s), 2000)));
    expect(outs.every((o) => o.ok)).toBe(true);
    expect(seen.slice(1)).toEqual(ids);
  });

  it('drops duplicated requests at the server, and dropped frames time out', async () => {
    const { proxy, c, seen } = await setup();
    await c.request(Buffer.from('warm'));
    proxy.setNet({ duplicate: 1 });
    const outs = await Promise.all(['a', 'b', 'c'].map((s) => c.request(Buffer.from(s))));
    expect(outs.every((o) => o.ok)).toBe(true);
    expect(seen).toEqual(['warm', 'a', 'b', 'c']);
    expect(proxy.stats.duplicated).toBeGreaterThanOrEqual(3);
    proxy.setNet({ drop: 1 });
    expect(await c.request(Buffer.from('d'))).toEqual({ ok: false, failure: 'timeout' });
  });

  it('a reset connection is lost, and the next request reconnects', async () => {
    const { proxy, c } = await setup();
    await c.request(Buffer.from('warm'));
    proxy.setNet({ delayMs: 200 });
    const pending = c.request(Buffer.from('slow'), 2000);
    await new Promise((r) => setTimeout(r, 20));
    expect(proxy.reset()).toBe(1);
    expect(await pending).toEqual({ ok: false, failure: 'lost' });
    proxy.clearNet();
    expect(await c.request(Buffer.from('again'))).toMatchObject({ ok: true });
  });
});
