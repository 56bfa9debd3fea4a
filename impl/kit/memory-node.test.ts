import { describe, expect, it } from 'vitest';
import { MemoryRegion } from './memory-node.ts';
import { COORDINATOR, decodeResult, encodeVerb, Op, type VerbResult } from './verbs.ts';

const run = (m: MemoryRegion, op: Op, client: number, epoch: number, addr: number, count: number, words: number[], now = () => 0): VerbResult =>
  decodeResult(m.execute(encodeVerb(op, client, epoch, addr, count, words), now));

describe('memory node verbs', () => {
  it('READ, WRITE, CAS and FAA with a change counter per word', () => {
    const m = new MemoryRegion(8);
    expect(run(m, Op.Read, 1, 0, 0, 2, [])).toEqual({ status: 'ok', values: [0, 0], counters: [0, 0], at: 0 });
    expect(run(m, Op.Write, 1, 0, 0, 2, [5, 2 ** 53 - 1])).toEqual({ status: 'ok', values: [5, 2 ** 53 - 1], counters: [1, 1], at: 0 });
    // a CAS that fails only reads: the counter it returns is unchanged
    expect(run(m, Op.Cas, 1, 0, 0, 1, [4, 9])).toEqual({ status: 'ok', values: [5], counters: [1], at: 0 });
    // one that succeeds returns the prior value and the word's new change count
    expect(run(m, Op.Cas, 1, 0, 0, 1, [5, 9])).toEqual({ status: 'ok', values: [5], counters: [2], at: 0 });
    expect(run(m, Op.Read, 1, 0, 0, 1, [])).toEqual({ status: 'ok', values: [9], counters: [2], at: 0 });
    // FAA carries into the high half
    run(m, Op.Write, 1, 0, 2, 1, [0xffffffff]);
    expect(run(m, Op.Faa, 1, 0, 2, 1, [1])).toEqual({ status: 'ok', values: [0xffffffff], counters: [2], at: 0 });
    expect(run(m, Op.Read, 1, 0, 2, 1, [])).toEqual({ status: 'ok', values: [0x1_0000_0000], counters: [2], at: 0 });
  });

  it('stamps each verb with when it executed (the shared monotonic clock): the order of a batch sent to several nodes', () => {
    const m = new MemoryRegion(4);
    expect(run(m, Op.Cas, 1, 0, 0, 1, [0, 7], () => 123_456_789_012)).toMatchObject({ status: 'ok', at: 123_456_789_012 });
    expect(run(m, Op.Read, 1, 0, 0, 1, [], () => 2 ** 52 + 1)).toEqual({ status: 'ok', values: [7], counters: [1], at: 2 ** 52 + 1 });
  });

  it('refuses verbs of older epochs once fenced, and of revoked clients', () => {
    const m = new MemoryRegion(4);
    expect(run(m, Op.Fence, 7, 0, 0, 1, [3]).status).toBe('bad'); // only the coordinator fences
    expect(run(m, Op.Fence, COORDINATOR, 0, 0, 1, [3]).status).toBe('ok');
    expect(run(m, Op.Cas, 1, 2, 0, 1, [0, 1]).status).toBe('fenced');
    expect(run(m, Op.Read, 1, 2, 0, 1, []).status).toBe('fenced');
    expect(run(m, Op.Read, 1, 3, 0, 1, []).status).toBe('ok');
    expect(run(m, Op.Revoke, COORDINATOR, 3, 0, 1, [1]).status).toBe('ok');
    expect(run(m, Op.Write, 1, 3, 0, 1, [1]).status).toBe('revoked');
    expect(run(m, Op.Write, 2, 3, 0, 1, [1]).status).toBe('ok');
    expect(run(m, Op.Read, 2, 3, 0, 1, [])).toMatchObject({ values: [1] });
  });

  it('serves nothing once its lease has lapsed, until extended', () => {
    const m = new MemoryRegion(4);
    expect(run(m, Op.Read, 1, 0, 0, 1, [], () => 10).status).toBe('ok'); // no lease granted yet
    expect(run(m, Op.Lease, COORDINATOR, 0, 0, 1, [100]).status).toBe('ok');
    expect(run(m, Op.Read, 1, 0, 0, 1, [], () => 100).status).toBe('ok');
    expect(run(m, Op.Read, 1, 0, 0, 1, [], () => 101).status).toBe('expired');
    run(m, Op.Lease, COORDINATOR, 0, 0, 1, [50]); // a lease never shrinks
    expect(run(m, Op.Read, 1, 0, 0, 1, [], () => 101).status).toBe('expired');
    run(m, Op.Lease, COORDINATOR, 0, 0, 1, [200]);
    expect(run(m, Op.Read, 1, 0, 0, 1, [], () => 150).status).toBe('ok');
  });

  it('refuses out-of-range addresses and malformed requests', () => {
    const m = new MemoryRegion(4);
    expect(run(m, Op.Read, 1, 0, 3, 2, []).status).toBe('bad');
    expect(run(m, Op.Write, 1, 0, 0, 2, [1]).status).toBe('bad');
    expect(decodeResult(m.execute(Buffer.alloc(3))).status).toBe('bad');
    expect(() => encodeVerb(Op.Write, 1, 0, 0, 1, [2 ** 53])).toThrow(RangeError);
  });
});
