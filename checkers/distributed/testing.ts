// Test and benchmark support: a real redis-server on 127.0.0.1 at a free port, in a
// temporary directory (no persistence), always stopped and removed; and worker processes
// (`interleave worker`) standing in for hosts; a machine that holds a worker's event loop up.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { racyCounter, type RacyAction, type RacyState } from '../explore/fixtures/racy-counter.ts';
import type { Machine } from '../explore/types.ts';

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });
}

async function exited(p: ChildProcess, ms: number): Promise<boolean> {
  if (p.exitCode !== null || p.signalCode !== null) return true;
  return new Promise((done) => {
    const t = setTimeout(() => done(false), ms);
    p.once('exit', () => {
      clearTimeout(t);
      done(true);
    });
  });
}

export async function startRedis(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'interleave-redis-'));
  const port = await freePort();
  const server = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', '--loglevel', 'warning'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  server.stderr!.on('data', (d) => (stderr += String(d)));
  const stop = async () => {
    if (!(await exited(server, 0))) {
      server.kill('SIGTERM');
      if (!(await exited(server, 3000))) server.kill('SIGKILL');
      await exited(server, 3000);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPing(port, server, () => stderr);
  } catch (e) {
    await stop();
    throw e;
  }
  return { url: `redis://127.0.0.1:${port}`, port, stop };
}

async function waitForPing(port: number, server: ChildProcess, stderr: () => string): Promise<void> {
  const { Socket } = await import('node:net');
  for (let i = 0; i < 100; i++) {
    if (server.exitCode !== null) throw new Error(`redis-server exited (${server.exitCode}): ${stderr()}`);
    const ok = await new Promise<boolean>((done) => {
      const s = new Socket();
      s.once('error', () => done(false));
      s.connect(port, '127.0.0.1', () => {
        s.write('PING\r\n');
        s.once('data', (d) => {
          s.destroy();
          done(String(d).startsWith('+PONG'));
        });
      });
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not answer on 127.0.0.1:${port}`);
}

export const BIN = resolve(import.meta.dirname, '../../bin/interleave.js');

export interface WorkerProcess {
  child: ChildProcess;
  stderr(): string;
  /** SIGKILL: a host lost without a word. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** `interleave worker --redis URL` in a process of its own. */
export function spawnWorker(url: string, args: string[] = []): WorkerProcess {
  const child = spawn(process.execPath, [BIN, 'worker', '--redis', url, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += String(d)));
  return {
    child,
    stderr: () => err,
    async kill() {
      child.kill('SIGKILL');
      await exited(child, 5000);
    },
    async stop() {
      if (await exited(child, 0)) return;
      child.kill('SIGTERM');
      if (!(await exited(child, 5000))) child.kill('SIGKILL');
      await exited(child, 5000);
    },
  };
}

/**
 * The racy counter on a host whose event loop is held up: the first time a process
 * computes the actions of a state, it blocks for `holdMs` (no timer runs meanwhile, so the
 * job's lease is not renewed). A stand-in for a busy machine, to show that a slow but live
 * worker keeps its share.
 */
export function slowRacyCounter(n: number, k: number, holdMs: number): Machine<RacyState, RacyAction> {
  const m = racyCounter(n, k);
  let held = false;
  return {
    ...m,
    actions(s) {
      if (!held) {
        held = true;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, holdMs);
      }
      return m.actions(s);
    },
  };
}
