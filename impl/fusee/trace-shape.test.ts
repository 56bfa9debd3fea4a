import { describe, expect, it } from 'vitest';
import { traceShapeErrors } from './trace-shape.ts';

const ev = (proc: string, action: string, args: Record<string, unknown> = {}) => ({ proc, action, args });
const seqd = (es: ReturnType<typeof ev>[]) => es.map((e, i) => ({ ...e, seq: i + 1 }));

const winner = [
  ev('c1', 'invoke', { key: 'k0', value: 10 }),
  ev('c1', 'readPrimary', { result: 0 }),
  ev('c1', 'casBackup', { expected: 0, swap: 10, prior: 0 }),
  ev('c1', 'casBackup', { expected: 0, swap: 10, prior: 7 }),
  ev('c1', 'reRead', { result: 0 }),
  ev('c1', 'fixup', { expected: 7, swap: 10, prior: 7 }),
  ev('c1', 'commitLog', { old: 0 }),
  ev('c1', 'casPrimary', { expected: 0, swap: 10, prior: 0 }),
  ev('c1', 'read', { result: 10 }),
];

describe('the shape of a client\u2019s trace', () => {
  it('accepts the protocol\u2019s operations, a retry after fail_query, a redo, and a crash', () => {
    expect(traceShapeErrors(seqd(winner))).toEqual([]);
    const retry = [
      ev('c2', 'invoke', { value: 20 }),
      ev('c2', 'readPrimary', { result: 0 }),
      ev('c2', 'casBackup', { expected: 0, swap: 20, prior: 'FAIL' }),
      ev('c2', 'failReply', { rpc: 0 }),
      ev('c2', 'readPrimary', { result: 0 }),
      ev('c2', 'casBackup', { expected: 0, swap: 20, prior: 10 }),
      ev('c2', 'loserWait', { result: 10 }),
      ev('c2', 'loserReturn'),
      ev('c2', 'read', { result: 'FAIL' }),
      ev('c2', 'readBackups', { results: { 1: 10, 2: 20 } }),
      ev('c2', 'readReply', { rpc: 10 }),
      ev('c2', 'invoke', { value: 21 }),
      ev('c2', 'crashClient', { client: 'c2' }),
    ];
    expect(traceShapeErrors(seqd(retry))).toEqual([]);
    const redo = [ev('master', 'recoverClient', { client: 'c3', case: 'c1' }), ev('master', 'readPrimary', { client: 'c3', result: 10 }), ev('master', 'casBackup', { client: 'c3', expected: 10, swap: 30 }), ev('master', 'commitLog', { client: 'c3', old: 10 }), ev('master', 'casPrimary', { client: 'c3', expected: 10, swap: 30 })];
    expect(traceShapeErrors(seqd(redo))).toEqual([]);
  });

  it('names a dropped, a swapped and a changed step, and a step after the crash', () => {
    expect(traceShapeErrors(seqd(winner.filter((e) => e.action !== 'readPrimary')))[0]).toMatch(/c1 seq 2 casBackup: expected readPrimary/);
    const swapped = [...winner];
    [swapped[6], swapped[7]] = [swapped[7], swapped[6]];
    expect(traceShapeErrors(seqd(swapped)).join('\n')).toMatch(/casPrimary: primary CAS before the log commit/);
    const changed = winner.map((e) => (e.action === 'commitLog' ? ev('c1', 'commitLog', { old: 5 }) : e));
    expect(traceShapeErrors(seqd(changed))).toEqual([expect.stringMatching(/commits 5, not v_old 0/)]);
    expect(traceShapeErrors(seqd([...winner.slice(0, 3), ev('c1', 'crashClient'), ev('c1', 'read', { result: 0 })]))).toEqual([expect.stringMatching(/after crashClient/)]);
  });
});
