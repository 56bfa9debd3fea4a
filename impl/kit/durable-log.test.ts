import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DurableLog } from './durable-log.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'dlog-'));
  dirs.push(d);
  return d;
};

describe('durable log', () => {
  it('powerLoss: what was appended and not fsynced is lost; what was fsynced (sync or async) is kept', async () => {
    const file = join(tmp(), 'power.log');
    const { log } = DurableLog.open(file);
    log.commit([Buffer.from('kept')]);
    await log.commitAsync([Buffer.from('kept too')]);
    log.append([Buffer.from('not synced')]);
    // the machine loses power here (no close): the un-fsynced append is lost
    const after = DurableLog.open(file, { powerLoss: true });
    expect(after.recovered.records.map(String)).toEqual(['kept', 'kept too']);
    expect(after.lostBytes).toBe(8 + 'not synced'.length);
    after.log.append([Buffer.from('again not synced')]);
    // a process crash keeps the page cache (and recovery makes what it kept durable)
    expect(DurableLog.open(file).recovered.records.map(String)).toEqual(['kept', 'kept too', 'again not synced']);
    expect(DurableLog.open(file, { powerLoss: true }).recovered.records.map(String)).toEqual(['kept', 'kept too', 'again not synced']);
  });

  it('commitAsync: appends at once, resolves after an fsync begun after the append; commits made while one fsync runs share the next', async () => {
    const file = join(tmp(), 'async.log');
    const { log } = DurableLog.open(file);
    const a = log.commitAsync([Buffer.from('a')]);
    const b = log.commitAsync([Buffer.from('b')]);
    const c = log.commitAsync([Buffer.from('c')]);
    expect(b).toBe(c); // both wait for the fsync queued behind a's
    expect(a).not.toBe(b);
    expect(readFileSync(file).length).toBe(3 * 9); // appended before any fsync returned
    await Promise.all([a, b, c]);
    await log.commitAsync([Buffer.from('d')]);
    log.close();
    expect(DurableLog.open(file).recovered.records.map(String)).toEqual(['a', 'b', 'c', 'd']);
    await expect(log.commitAsync([Buffer.from('e')])).rejects.toThrow();
  });

  it('recovers what was committed, in order', () => {
    const file = join(tmp(), 'a.log');
    const { log, recovered } = DurableLog.open(file);
    expect(recovered).toEqual({ records: [], truncatedBytes: 0 });
    log.commit([Buffer.from('one'), Buffer.from('')]);
    log.append([Buffer.from('three')]);
    log.sync();
    log.close();
    const again = DurableLog.open(file);
    expect(again.recovered.records.map(String)).toEqual(['one', '', 'three']);
    again.log.commit([Buffer.from('four')]);
    again.log.close();
    expect(DurableLog.open(file).recovered.records.map(String)).toEqual(['one', '', 'three', 'four']);
  });

  it('truncates a torn tail and a corrupt record, keeping what precedes it', () => {
    const file = join(tmp(), 'b.log');
    const { log } = DurableLog.open(file);
    log.commit([Buffer.from('keep'), Buffer.from('also')]);
    log.close();
    const good = statSync(file).size;
    appendFileSync(file, Buffer.from([9, 0, 0, 0, 1, 2])); // a header cut short
    let r = DurableLog.open(file);
    expect(r.recovered.records.map(String)).toEqual(['keep', 'also']);
    expect(r.recovered.truncatedBytes).toBe(6);
    r.log.close();
    expect(statSync(file).size).toBe(good);
    const bytes = readFileSync(file);
    bytes[bytes.length - 1] ^= 0xff; // flip a byte of the last payload: its CRC no longer matches
    writeFileSync(file, bytes);
    r = DurableLog.open(file);
    expect(r.recovered.records.map(String)).toEqual(['keep']);
    r.log.close();
  });

  it('keeps every committed record of a process killed with SIGKILL while appending', async () => {
    const file = join(tmp(), 'c.log');
    const url = new URL('./durable-log.ts', import.meta.url).href;
    const code = `import(${JSON.stringify(url)}).then(({ DurableLog }) => { const { log } = DurableLog.open(${JSON.stringify(file)}); for (let i = 0; i < 1e6; i++) { log.commit([Buffer.from('r' + i)]); if (i === 20) process.send('go'); } });`;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', code], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    await new Promise<void>((r) => child.once('message', () => r()));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const { log, recovered } = DurableLog.open(file);
    log.close();
    expect(recovered.records.length).toBeGreaterThan(20);
    recovered.records.forEach((rec, i) => expect(String(rec)).toBe(`r${i}`));
  });
});
