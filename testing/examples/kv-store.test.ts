// The fast-check bridge on the KV store: two clients append and read concurrently, under a
// scheduler that picks the interleaving. With the lock, every history is linearizable; the
// seeded lost update is found, shrunk to a minimal history, and replayed from its seed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linearizable, NotLinearizable, operation } from 'interleave/fast-check';
import { KvStore, type Bug } from './kv-store.ts';

function property(bug?: Bug, replayPath?: string) {
  const key = fc.constantFrom('x', 'y');
  return linearizable({
    ...(replayPath !== undefined ? { replayPath } : {}),
    model: 'kv-append',
    clients: 2,
    maxCommands: 8,
    setup: (s) => new KvStore(() => s.schedule(Promise.resolve()), bug),
    commands: [
      fc.tuple(key, fc.constantFrom('a', 'b')).map(([k, v]) => operation({ f: 'append', key: k, value: v }, (kv: KvStore) => kv.append(k, v))),
      fc.tuple(key, fc.constantFrom('a', 'b')).map(([k, v]) => operation({ f: 'put', key: k, value: v }, (kv: KvStore) => kv.put(k, v))),
      key.map((k) => operation({ f: 'get', key: k }, (kv: KvStore) => kv.get(k))),
    ],
  });
}

describe('the async KV store under fast-check', () => {
  it('is linearizable with its lock', async () => {
    await fc.assert(property(), { seed: 1, numRuns: 200 });
  });

  it('finds the seeded lost update, shrinks it to a minimal history, and replays it by seed', async () => {
    const out = await fc.check(property('lost-update'), { seed: 1, numRuns: 200 });
    expect(out.failed).toBe(true);
    const error = out.errorInstance as NotLinearizable;
    expect(error).toBeInstanceOf(NotLinearizable);
    // fast-check prints the commands with the replayPath that fc.commands needs to replay them.
    const replayPath = /replayPath="([^"]*)"/.exec(String(out.counterexample![1]))![1];
    console.log(`${error.message}\nreplay: fc.assert(property, { seed: ${out.seed}, path: ${JSON.stringify(out.counterexamplePath)} }) with replayPath ${JSON.stringify(replayPath)}`);
    // Shrunk to a lost update: an append and another update of the same key that overlap,
    // then a get that sees only one of them.
    expect(out.numShrinks).toBeGreaterThan(0);
    expect(error.result.verdict).toBe('illegal');
    const [u1, u2, get] = error.history.map((op) => ({ ...op, input: op.input as { f: string; key: string } }));
    expect(error.history).toHaveLength(3);
    expect([u1.input.f, u2.input.f]).toContain('append');
    expect(get.input.f).toBe('get');
    expect(new Set([u1.input.key, u2.input.key, get.input.key]).size).toBe(1);
    expect(u2.call).toBeLessThan(u1.ret!);
    const again = await fc.check(property('lost-update', replayPath), { seed: out.seed, path: out.counterexamplePath!, endOnFailure: true });
    expect((again.errorInstance as NotLinearizable).history).toEqual(error.history);
  });
});
