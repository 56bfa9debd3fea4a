import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundle } from './bundle.ts';
import { survivors, waitGone } from './proc-check.ts';
import { RpcClient } from './rpc.ts';
import { SpawnError, Supervisor } from './supervisor.ts';
import { MemoryClient } from './verbs.ts';

const started: number[] = [];
const dir = mkdtempSync(join(tmpdir(), 'sup-'));
afterAll(async () => {
  expect(await waitGone(started)).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

const memnode = fileURLToPath(new URL('./memnode-main.ts', import.meta.url));

describe('supervisor', () => {
  it('starts a memory node, whose memory a kill -9 loses; pauses and resumes it', async () => {
    const sup = new Supervisor();
    try {
      const script = await bundle(memnode);
      const spawnNode = async () => {
        const c = await sup.spawn({ name: 'mn0', script, config: { words: 16 }, logFile: join(dir, 'mn0.log') });
        started.push(c.pid);
        return c;
      };
      let c = await spawnNode();
      const rpc = new RpcClient({ port: Number(c.info.port), timeoutMs: 300 });
      const mem = new MemoryClient(rpc, 1);
      expect(await mem.write(0, 3, [42])).toMatchObject({ status: 'ok' });
      sup.pause('mn0');
      expect(await mem.read(0, 3)).toEqual({ status: 'timeout' });
      sup.resume('mn0');
      expect(await mem.read(0, 3)).toMatchObject({ status: 'ok', values: [42] });
      await sup.kill('mn0');
      expect(c.exit?.signal).toBe('SIGKILL');
      rpc.close();
      c = await spawnNode();
      const mem2 = new MemoryClient(new RpcClient({ port: Number(c.info.port) }), 1);
      expect(await mem2.read(0, 3)).toMatchObject({ status: 'ok', values: [0] });
      mem2.rpc.close();
    } finally {
      await sup.stopAll();
    }
  });

  it('reports a process that dies at start, with its output', async () => {
    const sup = new Supervisor();
    const script = join(dir, 'dies.mjs');
    writeFileSync(script, "process.stderr.write('no config here\\n'); process.exit(3);\n");
    await expect(sup.spawn({ name: 'bad', script, config: {}, logFile: join(dir, 'bad.log') })).rejects.toThrow(/bad exited with code 3 while starting.*\n.*no config here/s);
    await expect(sup.spawn({ name: 'bad2', script, config: {} })).rejects.toBeInstanceOf(SpawnError);
    // a port in use is the child's clear error
    const first = await sup.spawn({ name: 'a', script: await bundle(memnode), config: { words: 4 }, logFile: join(dir, 'a.log') });
    started.push(first.pid);
    await expect(sup.spawn({ name: 'b', script: await bundle(memnode), config: { words: 4, port: first.info.port }, logFile: join(dir, 'b.log') })).rejects.toThrow(/EADDRINUSE/);
    await sup.stopAll();
  });

  it('leaves nothing behind when the harness itself is killed with SIGKILL, paused children included', async () => {
    const script = await bundle(memnode);
    const sup = fileURLToPath(new URL('./supervisor.ts', import.meta.url));
    const code = `
      const { Supervisor } = await import(${JSON.stringify(sup)});
      const s = new Supervisor();
      const a = await s.spawn({ name: 'a', script: ${JSON.stringify(script)}, config: { words: 4 } });
      const b = await s.spawn({ name: 'b', script: ${JSON.stringify(script)}, config: { words: 4 } });
      s.pause('b');
      process.send({ pids: [a.pid, b.pid] });
      setInterval(() => {}, 1000);`;
    const harness = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const { pids } = await new Promise<{ pids: number[] }>((r) => harness.once('message', (m) => r(m as { pids: number[] })));
    started.push(...pids, harness.pid!);
    expect(survivors(pids)).toHaveLength(2);
    harness.kill('SIGKILL');
    expect(await waitGone(pids)).toEqual([]);
  });
});
