// Message passing between servers, for protocols that are not one-sided memory verbs
// (MINOS's leaderless replication, a master's RPCs): a node listens for its peers and holds
// a connection to each of them (through the fault proxy: one link per pair). Messages are
// JSON objects with a `type`; every message carries an id ("<sender>:<n>") that the
// protocol trace's `send` and `recv` fields name, so a validator can order a send before
// its receipt.
//
//   send(peer, msg)   one-way; the outcome says whether it was delivered ('ok'), surely
//                     not delivered ('notsent'), or unknown ('lost' / 'timeout')
//   call(peer, msg)   request and reply, with the same outcomes
//
// A handler may return a reply (call) or nothing (send). A node's durable state goes in a
// DurableLog (durable-log.ts); together they are what a message-passing replica needs.

import { decodeJson, encodeJson } from './json.ts';
import { RpcClient, RpcServer, type Failure } from './rpc.ts';

export interface Message {
  type: string;
  [field: string]: unknown;
}

/** A message as delivered: its id and sender, as the trace records them. */
export interface Envelope {
  id: string;
  from: string;
  msg: Message;
}

export type Delivery = { ok: true; id: string; reply?: Message } | { ok: false; id: string; failure: Failure };

export type Handler = (env: Envelope) => Message | undefined | Promise<Message | undefined>;

export class MessageNode {
  private readonly server: RpcServer;
  private readonly peers = new Map<string, RpcClient>();
  private readonly handlers = new Map<string, Handler>();
  private next = 1;

  constructor(
    readonly name: string,
    private readonly options: { port?: number; timeoutMs?: number } = {},
  ) {
    this.server = new RpcServer({
      port: options.port ?? 0,
      onRequest: (payload, reply) => {
        const env = decodeJson(payload) as Envelope | undefined;
        const handler = env?.msg && typeof env.msg.type === 'string' ? this.handlers.get(env.msg.type) : undefined;
        if (env === undefined || handler === undefined) return reply(encodeJson({ error: 'unknown message' }));
        void Promise.resolve(handler(env)).then((r) => reply(encodeJson({ reply: r ?? null })));
      },
    });
  }

  /** Listens; resolves to the port. */
  listen(): Promise<number> {
    return this.server.listen();
  }

  /** A peer reachable at this port (the proxy's port for the link name -> peer). */
  connect(peer: string, port: number): void {
    this.peers.get(peer)?.close();
    this.peers.set(peer, new RpcClient({ port, timeoutMs: this.options.timeoutMs ?? 1000 }));
  }

  on(type: string, handler: Handler): void {
    this.handlers.set(type, handler);
  }

  /**
   * Sends and tells the message id at once (a step records it in its trace line before the
   * delivery is known); `delivery` ends with the outcome.
   */
  post(peer: string, msg: Message, timeoutMs?: number): { id: string; delivery: Promise<Delivery> } {
    const id = `${this.name}:${this.next++}`;
    return { id, delivery: this.deliver(peer, id, msg, timeoutMs) };
  }

  /**
   * Sends a message again under the id it was posted with (a retry after a failed delivery,
   * which may yet have arrived): the receiver can tell a repeat, and a trace names one message.
   */
  resend(peer: string, id: string, msg: Message, timeoutMs?: number): Promise<Delivery> {
    return this.deliver(peer, id, msg, timeoutMs);
  }

  private async deliver(peer: string, id: string, msg: Message, timeoutMs?: number): Promise<Delivery> {
    const client = this.peers.get(peer);
    if (client === undefined) return { ok: false, id, failure: 'notsent' };
    const out = await client.request(encodeJson({ id, from: this.name, msg } satisfies Envelope), timeoutMs);
    if (!out.ok) return { ok: false, id, failure: out.failure };
    const body = decodeJson(out.payload) as { reply?: Message | null } | undefined;
    return { ok: true, id, reply: body?.reply ?? undefined };
  }

  send(peer: string, msg: Message, timeoutMs?: number): Promise<Delivery> {
    return this.post(peer, msg, timeoutMs).delivery;
  }

  call(peer: string, msg: Message, timeoutMs?: number): Promise<Delivery> {
    return this.post(peer, msg, timeoutMs).delivery;
  }

  async close(): Promise<void> {
    for (const c of this.peers.values()) c.close();
    await this.server.close();
  }
}
