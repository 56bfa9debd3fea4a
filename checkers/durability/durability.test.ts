import { describe, expect, it } from 'vitest';
import { checkDurability, type DurOp, type Marker } from './index.ts';

// c0 writes a, then b (acked), c1 reads b; power fails at 100, recovery at 120; c9 reads after it.
const w = (client: number, value: string, call: number, ret?: number, key = 'x', version?: number): DurOp => ({ client, f: 'write', key, value, call, ret, version });
const r = (client: number, output: unknown, call: number, ret: number, key = 'x'): DurOp => ({ client, f: 'read', key, output, call, ret });
const p = (client: number, scope: string, call: number, ret?: number): DurOp => ({ client, f: 'persist', value: scope, call, ret });
const crash: Marker[] = [
  { event: 'crash', time: 100 },
  { event: 'recovered', time: 120 },
];

describe('checkers/durability: the per-model floor over a crash history', () => {
  const acked = [w(0, 'a', 1, 2), w(0, 'b', 3, 4)];
  it('synch/strict: an acknowledged write must survive; reading the one before it is a violation', () => {
    for (const model of ['synch', 'strict'] as const) {
      expect(checkDurability(model, [...acked, r(9, 'b', 130, 131)], crash).verdict).toBe('durable');
      const bad = checkDurability(model, [...acked, r(9, 'a', 130, 131)], crash);
      expect(bad.verdict).toBe('violation');
      expect(bad.violations[0].lost?.value).toBe('b');
      expect(checkDurability(model, [...acked, r(9, null, 130, 131)], crash).verdict).toBe('violation');
    }
  });
  it('renf: acknowledged but never read may be lost; read before the crash may not', () => {
    expect(checkDurability('renf', [...acked, r(9, 'a', 130, 131)], crash).verdict).toBe('durable');
    expect(checkDurability('renf', [...acked, r(1, 'b', 5, 6), r(9, 'a', 130, 131)], crash).verdict).toBe('violation');
  });
  it('synch also keeps what a read returned of a write still pending at the crash', () => {
    const h = [w(0, 'a', 1, 2), w(0, 'b', 3), r(1, 'b', 5, 6), r(9, 'a', 130, 131)];
    expect(checkDurability('synch', h, crash).verdict).toBe('violation');
    expect(checkDurability('strict', h, crash).verdict).toBe('durable');
  });
  it('event: nothing must survive, but no value out of thin air', () => {
    expect(checkDurability('event', [...acked, r(9, null, 130, 131)], crash).verdict).toBe('durable');
    expect(checkDurability('event', [...acked, r(9, 'zz', 130, 131)], crash).violations[0].why).toMatch(/no write/);
    // a value first written after the crash is not a recovered one
    expect(checkDurability('event', [...acked, w(5, 'late', 101, 102), r(9, 'late', 130, 131)], crash).verdict).toBe('violation');
  });
  it('scope: the writes of a scope whose PERSIST returned must survive, others need not', () => {
    const h = [w(0, 'a', 1, 2), w(0, 'b', 3, 4), p(0, 's0', 5, 6), w(0, 'c', 7, 8), p(0, 's1', 9)];
    expect(checkDurability('scope', [...h, r(9, 'b', 130, 131)], crash).verdict).toBe('durable');
    expect(checkDurability('scope', [...h, r(9, 'c', 130, 131)], crash).verdict).toBe('durable');
    const bad = checkDurability('scope', [...h, r(9, 'a', 130, 131)], crash);
    expect(bad.verdict).toBe('violation');
    expect(bad.violations[0].lost?.value).toBe('b');
  });
  it('versions order concurrent writes; without them a concurrent write is not judged', () => {
    // a and b overlap in real time; b is acked and has the higher version
    const h = [w(0, 'a', 1, 5, 'x', 8), w(1, 'b', 2, 4, 'x', 9), r(9, 'a', 130, 131)];
    expect(checkDurability('strict', h, crash).verdict).toBe('violation');
    const noVersions = h.map((o) => ({ ...o, version: undefined }));
    expect(checkDurability('strict', noVersions, crash).verdict).toBe('durable');
  });
  it('judges only reads after the recovery marker that no new write of the key may explain', () => {
    const h = [...acked, w(5, 'new', 125, 126), r(9, 'a', 127, 128), r(8, 'a', 121, 122, 'x')];
    const res = checkDurability('strict', h, crash);
    expect(res.recoveryReads).toBe(1);
    expect(res.verdict).toBe('violation');
    // a read before the recovery marker is not a recovery read
    expect(checkDurability('strict', [...acked, r(9, 'a', 110, 111)], crash).recoveryReads).toBe(0);
    // no recovery marker: nothing to judge
    expect(checkDurability('strict', [...acked, r(9, 'a', 130, 131)], [{ event: 'crash', time: 100 }]).recoveryReads).toBe(0);
  });
  it('kv vocabulary (put/get, "" for never written) and several crashes', () => {
    const h: DurOp[] = [
      { client: 0, f: 'put', key: 'k', value: 'a', call: 1, ret: 2 },
      { client: 9, f: 'get', key: 'k', output: 'a', call: 130, ret: 131 },
      { client: 1, f: 'put', key: 'k', value: 'b', call: 140, ret: 141 },
      { client: 9, f: 'get', key: 'k', output: '', call: 230, ret: 231 },
    ];
    const two: Marker[] = [...crash, { event: 'crash', time: 200 }, { event: 'recovered', time: 220 }];
    const res = checkDurability('strict', h, two);
    expect(res.crashes).toBe(2);
    expect(res.violations.map((v) => v.crash)).toEqual([1]);
  });
});
