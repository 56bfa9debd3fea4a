// Request/response over framed TCP on 127.0.0.1, with the outcome of every request made
// explicit: a response, or one of three failures that say what the caller may conclude.
//
//   notsent  the request was never written: it did not happen
//   lost     written, then the connection closed before the response: unknown
//   timeout  written, no response in time: unknown
//
// A caller that gets `lost` or `timeout` for a request with an effect must treat the
// effect as possibly done, later or never (an indeterminate operation), never as not done.
//
// Memory verbs (verbs.ts) and the JSON messages of coordinators (json.ts) both ride on it;
// message-passing servers use the same server with PUSH frames for one-way messages.

import { createServer, Socket, type Server } from 'node:net';
import { frame, FrameError, FrameReader, Kind } from './frame.ts';

export type Failure = 'notsent' | 'lost' | 'timeout';
export type Outcome = { ok: true; payload: Buffer } | { ok: false; failure: Failure };

export interface RpcClientOptions {
  host?: string;
  port: number;
  /** Default time a request may take before it is `timeout` (ms). */
  timeoutMs?: number;
  /** Time to open a connection and receive the server's HELLO (ms). */
  connectTimeoutMs?: number;
  /** One-way messages from the server. */
  onPush?: (payload: Buffer) => void;
  /** Called each time a connection is established (after HELLO). */
  onConnect?: () => void;
  /** Keep a connection open, reconnecting with backoff (for peers that push). */
  keepConnected?: boolean;
}

interface Pending {
  deadline: number;
  resolve: (o: Outcome) => void;
}

/** How often pending requests are checked against their deadlines. */
const SWEEP_MS = 20;

/**
 * One logical connection to a server, re-established on demand. Request ids grow across
 * reconnections, so a server can recognise a duplicated request by its id alone.
 */
/** Feeds a socket's bytes to its frame reader; a malformed frame closes the connection (the peer is broken, not us). */
function readFrames(socket: Socket, reader: FrameReader): void {
  socket.on('data', (chunk) => {
    try {
      reader.push(chunk);
    } catch (e) {
      if (!(e instanceof FrameError)) throw e;
      socket.destroy();
    }
  });
  socket.on('error', () => undefined);
}

export class RpcClient {
  private socket: Socket | undefined;
  private up = false;
  private connecting: Promise<boolean> | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;
  private corked = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly options: RpcClientOptions) {
    if (options.keepConnected) void this.ensure();
  }

  get connected(): boolean {
    return this.up;
  }

  /** Opens the connection if needed; true once the server's HELLO arrived. */
  ensure(): Promise<boolean> {
    if (this.up) return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private open(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = new Socket();
      socket.setNoDelay(true);
      let settled = false;
      const settle = (ok: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!ok) {
          socket.destroy();
          this.scheduleRetry();
        }
        resolve(ok);
      };
      const timer = setTimeout(() => settle(false), this.options.connectTimeoutMs ?? 1000);
      const reader = new FrameReader((kind, reqId, payload) => {
        if (kind === Kind.Hello) {
          if (this.closed) return settle(false);
          this.socket = socket;
          this.up = true;
          settle(true);
          this.options.onConnect?.();
        } else if (kind === Kind.Resp) {
          const p = this.pending.get(reqId);
          if (p === undefined) return; // late, duplicated, or after a timeout
          this.pending.delete(reqId);
          p.resolve({ ok: true, payload: Buffer.from(payload) });
        } else if (kind === Kind.Push) {
          this.options.onPush?.(Buffer.from(payload));
        }
      });
      readFrames(socket, reader);
      socket.on('close', () => {
        settle(false);
        if (this.socket === socket) this.dropped();
      });
      socket.connect(this.options.port, this.options.host ?? '127.0.0.1');
    });
  }

  private dropped(): void {
    this.up = false;
    this.socket = undefined;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.resolve({ ok: false, failure: 'lost' });
    }
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (!this.options.keepConnected || this.closed || this.retry !== undefined) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.ensure();
    }, 50);
  }

  /** Sends a request; never rejects. */
  async request(payload: Uint8Array, timeoutMs = this.options.timeoutMs ?? 1000): Promise<Outcome> {
    if (!this.up && !(await this.ensure())) return { ok: false, failure: 'notsent' };
    const socket = this.socket!;
    const id = this.nextId++; // 2^32 requests on one client would need a fresh id space
    return new Promise<Outcome>((resolve) => {
      this.pending.set(id, { deadline: Date.now() + timeoutMs, resolve });
      this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS);
      // Requests issued in one tick leave in one write (doorbell batching).
      if (!this.corked) {
        this.corked = true;
        socket.cork();
        process.nextTick(() => {
          this.corked = false;
          socket.uncork();
        });
      }
      socket.write(frame(Kind.Req, id, payload));
    });
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, p] of this.pending) {
      if (p.deadline <= now) {
        this.pending.delete(id);
        p.resolve({ ok: false, failure: 'timeout' });
      }
    }
    if (this.pending.size === 0 && this.sweeper !== undefined) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  /** Closes for good: pending requests become `lost`. */
  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.socket?.destroy();
    this.dropped();
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
  }
}

/** A server's side of one connection. */
export interface Peer {
  readonly id: number;
  push(payload: Uint8Array): void;
  close(): void;
}

export interface RpcServerOptions {
  host?: string;
  /** 0: any free port. */
  port: number;
  /**
   * A request; call `reply` at most once (never, to let it time out). Requests on one
   * connection arrive in order; a request id not above the last one seen on the
   * connection is a duplicate (the proxy may inject them) and is dropped before this.
   */
  onRequest(payload: Buffer, reply: (payload: Uint8Array) => void, peer: Peer): void;
  onConnect?(peer: Peer): void;
  onClose?(peer: Peer): void;
}

export class RpcServer {
  private server: Server | undefined;
  readonly peers = new Set<Peer>();
  private nextPeer = 1;

  constructor(private readonly options: RpcServerOptions) {}

  /** Listens; resolves to the port. Rejects with the OS error (EADDRINUSE, ...). */
  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      const server = createServer((socket) => this.accept(socket));
      server.once('error', reject);
      server.listen(this.options.port, this.options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        this.server = server;
        const addr = server.address();
        resolve(typeof addr === 'object' && addr !== null ? addr.port : this.options.port);
      });
    });
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    let lastId = 0;
    let corked = false;
    const write = (buf: Buffer) => {
      if (socket.destroyed) return;
      if (!corked) {
        corked = true;
        socket.cork();
        process.nextTick(() => {
          corked = false;
          socket.uncork();
        });
      }
      socket.write(buf);
    };
    const peer: Peer = {
      id: this.nextPeer++,
      push: (payload) => write(frame(Kind.Push, 0, payload)),
      close: () => socket.destroy(),
    };
    const reader = new FrameReader((kind, reqId, payload) => {
      if (kind !== Kind.Req) return;
      if (reqId <= lastId) return; // a duplicate
      lastId = reqId;
      let replied = false;
      this.options.onRequest(payload, (out) => {
        if (replied) return;
        replied = true;
        write(frame(Kind.Resp, reqId, out));
      }, peer);
    });
    this.peers.add(peer);
    readFrames(socket, reader);
    socket.on('close', () => {
      this.peers.delete(peer);
      this.options.onClose?.(peer);
    });
    write(frame(Kind.Hello, 0, new Uint8Array(0)));
    this.options.onConnect?.(peer);
  }

  close(): Promise<void> {
    for (const p of this.peers) p.close();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
