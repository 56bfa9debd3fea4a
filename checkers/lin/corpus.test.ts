// Every history of the Porcupine corpus gets the verdict Porcupine's own tests expect:
// the etcd logs with the etcd register, the kv histories by key and (the small ones) as
// one map. The 10-client kv histories without partitioning are in bench/lin.ts.

import { describe, expect, it } from 'vitest';
import { checkHistory, checkHistorySync, models } from './index.ts';
import { importCorpusFile, manifest } from './testdata-loader.ts';

const entries = manifest();

describe('Porcupine corpus', () => {
  it('lists the 102 etcd logs and 6 kv histories', () => {
    expect(entries.filter((e) => e.model === 'etcd-cas-register')).toHaveLength(102);
    expect(entries.filter((e) => e.model === 'kv-append')).toHaveLength(6);
  });

  it.each(entries.filter((e) => e.model === 'etcd-cas-register').map((e) => [e.path, e] as const))(
    '%s',
    (_, entry) => {
      const model = models[entry.model];
      const history = importCorpusFile(entry, model);
      expect(history.length).toBeGreaterThan(50);
      expect(checkHistorySync(model, history).verdict).toBe(entry.expected);
    },
  );

  it.each(entries.filter((e) => e.model === 'kv-append').map((e) => [e.path, e] as const))('%s by key', (_, entry) => {
    const history = importCorpusFile(entry, models['kv-append']);
    const r = checkHistorySync('kv-append', history);
    expect(r.verdict).toBe(entry.expected);
    expect(r.partitions.length).toBeGreaterThan(1);
  });

  it.each(['kv/c01-ok.txt', 'kv/c01-bad.txt'])('%s as one map', (path) => {
    const entry = entries.find((e) => e.path === path)!;
    const history = importCorpusFile(entry, models['kv-append-unpartitioned']);
    const r = checkHistorySync('kv-append-unpartitioned', history);
    expect(r.verdict).toBe(entry.expected);
    expect(r.partitions).toHaveLength(1);
  });

  it('the 50-client kv histories give the same report on two worker threads', async () => {
    for (const path of ['kv/c50-ok.txt', 'kv/c50-bad.txt']) {
      const entry = entries.find((e) => e.path === path)!;
      const history = importCorpusFile(entry, models['kv-append']);
      const one = checkHistorySync('kv-append', history);
      const two = await checkHistory('kv-append', history, { workers: 2 });
      expect(two.verdict).toBe(entry.expected);
      expect({ ...two, elapsedMs: 0 }).toEqual({ ...one, elapsedMs: 0 });
    }
  });
});
