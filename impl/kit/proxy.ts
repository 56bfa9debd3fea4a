// The fault proxy: every connection of a cluster passes through it (no netem here), one
// listening port per link (a process → a server), so it knows whose traffic it carries.
// It forwards whole frames (frame.ts) and, on command:
//  - isolates processes: frames on any link touching them are dropped silently in both
//    directions (a partition: peers see timeouts, not resets);
//  - delays frames (order on a connection is kept, as TCP keeps it), drops and duplicates
//    them with given probabilities;
//  - resets connections (closes both sides: a lost connection).

import { createServer, Socket, type Server } from 'node:net';
import { FrameError, FrameReader } from './frame.ts';
import { Rng } from './rng.ts';

export interface LinkSpec {
  /** Unique: "cp0>mn1". */
  name: string;
  /** The process that connects. */
  from: string;
  /** The server it reaches. */
  to: string;
  /** The server's port. */
  port: number;
  /** The proxy's port for this link (0: any free port). */
  listen?: number;
}

export interface NetFaults {
  delayMs?: number;
  /** Extra delay, uniform in [0, jitterMs). */
  jitterMs?: number;
  /** Probability a frame is dropped. */
  drop?: number;
  /** Probability a frame is sent twice. */
  duplicate?: number;
}

export interface ProxyStats {
  frames: number;
  dropped: number;
  duplicated: number;
  delayed: number;
  resets: number;
  connections: number;
}

interface Direction {
  out: Socket;
  queue: { at: number; frame: Buffer }[];
  timer: NodeJS.Timeout | undefined;
  last: number;
  ending: boolean;
  /** Closes the pipe once an ending direction's queue has drained. */
  end: () => void;
}

interface Pipe {
  link: Link;
  down: Socket;
  up: Socket;
  closed: boolean;
}

interface Link {
  spec: LinkSpec;
  server: Server | undefined;
  port: number;
  pipes: Set<Pipe>;
  faults: NetFaults;
}

export class FaultProxy {
  private readonly links = new Map<string, Link>();
  private readonly isolated = new Set<string>();
  private readonly cut = new Set<string>();
  private readonly rng: Rng;
  readonly stats: ProxyStats = { frames: 0, dropped: 0, duplicated: 0, delayed: 0, resets: 0, connections: 0 };

  constructor(specs: readonly LinkSpec[], seed: string | number = 0) {
    for (const spec of specs) {
      if (this.links.has(spec.name)) throw new Error(`duplicate link ${spec.name}`);
      this.links.set(spec.name, { spec, server: undefined, port: 0, pipes: new Set(), faults: {} });
    }
    this.rng = new Rng(`proxy/${seed}`);
  }

  /** Listens on every link; resolves to each link's port. */
  async start(): Promise<Record<string, number>> {
    const ports: Record<string, number> = {};
    for (const link of this.links.values()) {
      link.port = await new Promise<number>((resolve, reject) => {
        const server = createServer((down) => this.accept(link, down));
        server.once('error', reject);
        server.listen(link.spec.listen ?? 0, '127.0.0.1', () => {
          server.off('error', reject);
          link.server = server;
          const a = server.address();
          resolve(typeof a === 'object' && a !== null ? a.port : 0);
        });
      });
      ports[link.spec.name] = link.port;
    }
    return ports;
  }

  private blocked(link: Link): boolean {
    return this.cut.has(link.spec.name) || this.isolated.has(link.spec.from) || this.isolated.has(link.spec.to);
  }

  private accept(link: Link, down: Socket): void {
    this.stats.connections++;
    down.setNoDelay(true);
    const up = new Socket();
    up.setNoDelay(true);
    const pipe: Pipe = { link, down, up, closed: false };
    link.pipes.add(pipe);
    let upConnected = false;
    const early: Buffer[] = [];
    const close = (): void => {
      if (pipe.closed) return;
      pipe.closed = true;
      link.pipes.delete(pipe);
      clearTimeout(toUp.timer);
      clearTimeout(toDown.timer);
      down.destroy();
      up.destroy();
    };
    const toUp: Direction = { out: up, queue: [], timer: undefined, last: 0, ending: false, end: close };
    const toDown: Direction = { out: down, queue: [], timer: undefined, last: 0, ending: false, end: close };
    const readerUp = new FrameReader((_k, _id, _p, whole) => (upConnected ? this.forward(link, toUp, whole) : early.push(whole)));
    const readerDown = new FrameReader((_k, _id, _p, whole) => this.forward(link, toDown, whole));
    // The frames of one chunk leave in one write (a batch stays a batch).
    const feed = (reader: FrameReader, chunk: Buffer, out: Socket) => {
      out.cork();
      try {
        reader.push(chunk);
      } catch (e) {
        if (!(e instanceof FrameError)) throw e;
        close();
      } finally {
        out.uncork();
      }
    };
    down.on('data', (c) => feed(readerUp, c, up));
    up.on('data', (c) => feed(readerDown, c, down));
    // One side closing: deliver what is queued for the other, then close it (as TCP would).
    const drainThenClose = (d: Direction) => {
      d.ending = true;
      if (d.queue.length === 0) close();
    };
    down.on('close', () => drainThenClose(toUp));
    up.on('close', () => drainThenClose(toDown));
    down.on('error', () => undefined);
    up.on('error', () => undefined);
    up.connect(link.spec.port, '127.0.0.1', () => {
      upConnected = true;
      for (const f of early.splice(0)) this.forward(link, toUp, f);
    });
  }

  private forward(link: Link, d: Direction, whole: Buffer): void {
    this.stats.frames++;
    if (this.blocked(link)) {
      this.stats.dropped++;
      return;
    }
    const f = link.faults;
    if (f.drop !== undefined && f.drop > 0 && this.rng.next() < f.drop) {
      this.stats.dropped++;
      return;
    }
    const copies = f.duplicate !== undefined && f.duplicate > 0 && this.rng.next() < f.duplicate ? 2 : 1;
    if (copies === 2) this.stats.duplicated++;
    const delay = (f.delayMs ?? 0) + (f.jitterMs ? this.rng.next() * f.jitterMs : 0);
    const frame = whole;
    if (delay <= 0 && d.queue.length === 0) {
      for (let i = 0; i < copies; i++) d.out.write(frame);
      return;
    }
    this.stats.delayed++;
    const at = Math.max(Date.now() + delay, d.last);
    d.last = at;
    for (let i = 0; i < copies; i++) d.queue.push({ at, frame });
    this.schedule(link, d);
  }

  private schedule(link: Link, d: Direction): void {
    if (d.timer !== undefined || d.queue.length === 0) return;
    d.timer = setTimeout(() => {
      d.timer = undefined;
      const now = Date.now();
      d.out.cork();
      while (d.queue.length > 0 && d.queue[0].at <= now) {
        const { frame } = d.queue.shift()!;
        // A frame held while a partition began is lost with it.
        if (this.blocked(link)) this.stats.dropped++;
        else d.out.write(frame);
      }
      d.out.uncork();
      if (d.queue.length > 0) this.schedule(link, d);
      else if (d.ending) d.end();
    }, Math.max(0, d.queue[0].at - Date.now()));
  }

  /** Cuts every link touching these processes (both directions) until heal(). */
  isolate(procs: readonly string[]): void {
    for (const p of procs) this.isolated.add(p);
  }

  /** Cuts the named links (both directions) until heal(). */
  block(linkNames: readonly string[]): void {
    for (const n of linkNames) this.cut.add(n);
  }

  heal(): void {
    this.isolated.clear();
    this.cut.clear();
  }

  /** Sets the faults of the named links (all links when omitted). */
  setNet(faults: NetFaults, linkNames?: readonly string[]): void {
    for (const link of this.selected(linkNames)) link.faults = { ...faults };
  }

  clearNet(): void {
    for (const link of this.links.values()) link.faults = {};
  }

  /** Closes every open connection on the named links (all when omitted). */
  reset(linkNames?: readonly string[]): number {
    let n = 0;
    for (const link of this.selected(linkNames)) {
      for (const pipe of [...link.pipes]) {
        pipe.closed = true;
        link.pipes.delete(pipe);
        pipe.down.destroy();
        pipe.up.destroy();
        n++;
      }
    }
    this.stats.resets += n;
    return n;
  }

  /** Link names whose `from` or `to` is one of these processes. */
  linksOf(procs: readonly string[]): string[] {
    return [...this.links.values()].filter((l) => procs.includes(l.spec.from) || procs.includes(l.spec.to)).map((l) => l.spec.name);
  }

  private selected(names?: readonly string[]): Link[] {
    if (names === undefined) return [...this.links.values()];
    return names.map((n) => this.links.get(n)).filter((l): l is Link => l !== undefined);
  }

  async close(): Promise<void> {
    this.reset();
    await Promise.all([...this.links.values()].map((l) => new Promise<void>((r) => (l.server ? l.server.close(() => r()) : r()))));
  }
}
