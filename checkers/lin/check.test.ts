// The checker's contract beyond verdicts: timeouts, model errors, the diagnosis of an
// illegal history, indeterminate operations, partitions in rounds.

import { describe, expect, it } from 'vitest';
import { generateHistory } from './generate.ts';
import { checkHistory, checkHistorySync, independent, models } from './index.ts';
import { renderLinHtml } from '../report/lin-html.ts';
import { renderLinText } from '../report/lin-text.ts';
import { importCorpusFile, manifest } from './testdata-loader.ts';
import { SMALL_MAX } from './small.ts';
import { ILLEGAL, nextOf, stepFrom, UNKNOWN, type Model, type Operation } from './types.ts';
import { Memo } from './memo.ts';
import { WglSearch, wglSearch } from './wgl.ts';

const op = (client: number, input: unknown, call: number, ret?: number, output?: unknown): Operation =>
  ret === undefined ? { client, input, call } : { client, input, call, ret, output };

describe('timeouts', () => {
  it('a history too hard for the budget is unknown, never a guess', () => {
    const entry = manifest().find((e) => e.path === 'kv/c50-bad.txt')!;
    const history = importCorpusFile(entry, models['kv-append-unpartitioned']);
    // Without the refutation, which may prove c50-bad illegal within the budget on a quiet machine.
    const r = checkHistorySync({ ...models['kv-append-unpartitioned'], refute: undefined }, history, { timeoutMs: 100 });
    expect(r.verdict).toBe('unknown');
    expect(r.partitions[0]).toMatchObject({ verdict: 'unknown', reason: 'timeout' });
    expect(r.elapsedMs).toBeLessThan(5000);
  });

  it('on worker threads too', async () => {
    // Keys of ~500 operations: past small.ts's SMALL_MAX, whose bounded search runs before
    // the deadline is read (a key of c50-ok's 153-194 operations it decides even at 0 ms).
    const { model, history } = generateHistory({ family: 'kv', ops: 2000, clients: 8, keys: 4, seed: 5 });
    expect(history.length).toBeGreaterThan(4 * SMALL_MAX);
    const r = await checkHistory(model, history, { timeoutMs: 0, workers: 2 });
    expect(r.verdict).toBe('unknown');
    expect(r.partitions.every((p) => p.verdict === 'unknown' && p.reason === 'timeout')).toBe(true);
  });
});

describe('memory budget', () => {
  it('a search whose memo outgrows its budget is unknown, and says why', () => {
    const entry = manifest().find((e) => e.path === 'kv/c10-bad.txt')!;
    const history = importCorpusFile(entry, models['kv-append-unpartitioned']);
    // Without the refutation, which proves c10-bad illegal before the memo grows.
    const r = checkHistorySync({ ...models['kv-append-unpartitioned'], refute: undefined }, history, { memoLimitMB: 1 });
    expect(r.verdict).toBe('unknown');
    expect(r.partitions[0]).toMatchObject({ verdict: 'unknown', reason: 'memory' });
    expect(r.partitions[0].cached).toBeGreaterThan(1000);
  });
});

describe('a proof of illegal in hand', () => {
  it('a memo that fills after the proof: illegal, cut short (before: unknown, memory)', () => {
    // The last read returns a value nothing writes: the refutation (asked at the first dead
    // end) proves illegal, and the search goes on for a longer partial linearization to
    // show until its 96 KB memo fills. The heap watch ends a search the same way (memory.test.ts).
    const { history } = generateHistory({ family: 'cas-register', ops: 300, clients: 16, crashRate: 0.03, seed: 1 });
    history[history.findLastIndex((o) => (o.input as { f: string }).f === 'read' && o.ret !== undefined)].output = 12345;
    const search = new WglSearch(models['cas-register'], history, { refuteAfter: 0, memoLimitBytes: 96 * 1024 });
    search.run();
    expect(search.result).toMatchObject({ verdict: 'illegal', cutShort: true, proof: { operation: expect.any(Number) } });
    expect(search.result.reason).toBeUndefined();
    // Under a budget that holds, the same search ends later, by its proof's bound.
    const roomy = new WglSearch(models['cas-register'], history, { refuteAfter: 0, memoLimitBytes: 1024 * 1024 });
    roomy.run();
    expect(roomy.result).toMatchObject({ verdict: 'illegal', cutShort: true });
    expect(roomy.iterations).toBeGreaterThan(search.iterations);
    // A deadline already past: the first poll (1,024 iterations) comes after the proof, so the
    // timeout ends it illegal, cut short, as memory does (before: unknown, timeout).
    const late = new WglSearch(models['cas-register'], history, { refuteAfter: 0, deadline: 0 });
    late.run();
    expect(late.result).toMatchObject({ verdict: 'illegal', cutShort: true, proof: { operation: expect.any(Number) } });
    expect(late.result.reason).toBeUndefined();
    // Without the model's proof a timeout is unknown.
    const unproven = new WglSearch({ ...models['cas-register'], refute: undefined }, history, { deadline: 0 });
    unproven.run();
    expect(unproven.result).toMatchObject({ verdict: 'unknown', reason: 'timeout' });
  });
});

describe('two orders for a hard partition (Rounds, secondAfter)', () => {
  // Generated cas-registers (etcd-cas-register, which calls a successful cas conditional).
  const hard = (o: { ops: number; clients: number; crashRate: number; corrupt: number; tick: number; values: number; seed: number }) => generateHistory({ family: 'cas-register', ...o });

  it('the second order answers when it is the faster: fewer configurations than by return alone', () => {
    const { model, history } = hard({ ops: 200, clients: 64, crashRate: 0.15, corrupt: 1, tick: 1, values: 10, seed: 4268244512 });
    const byReturn = wglSearch(models[model], history);
    const conditional = wglSearch(models[model], history, { conditional: true });
    expect(conditional.explored * 10).toBeLessThan(byReturn.explored);
    const r = checkHistorySync(model, history);
    expect(r.verdict).toBe(byReturn.verdict);
    // The second starts after secondAfter's iterations of the first (45,213 configurations by return, 24,763 here).
    expect(r.partitions[0].explored).toBeLessThan(0.75 * byReturn.explored);
    // Both searches' configurations are counted: more than the second's alone.
    expect(r.partitions[0].explored).toBeGreaterThan(conditional.explored);
  });

  it('the first answers when the second is the slower, at a quarter of its turns more', () => {
    // 371,779 configurations by return; 5,774,293 in the other order.
    const { model, history } = hard({ ops: 1000, clients: 64, crashRate: 0, corrupt: 1, tick: 3, values: 10, seed: 1275378521 });
    const byReturn = wglSearch(models[model], history);
    const r = checkHistorySync(model, history);
    expect(r.verdict).toBe('ok');
    expect(r.partitions[0].explored).toBeGreaterThan(byReturn.explored);
    expect(r.partitions[0].explored).toBeLessThan(1.3 * byReturn.explored);
  });

  it('a keyed history gets the second order per key (independent passes `conditional` on), with and without workers', async () => {
    const shape = { ops: 200, clients: 64, crashRate: 0.15, corrupt: 1, tick: 1, values: 10, seed: 4268244512 };
    const { model, history } = hard(shape);
    const other = hard({ ...shape, ops: 100, seed: 7 }).history;
    const keyed = [...history.map((o) => ({ ...o, input: { ...(o.input as object), key: 'a' } })), ...other.map((o) => ({ ...o, client: Number(o.client) + 100, input: { ...(o.input as object), key: 'b' } }))];
    keyed.sort((x, y) => x.call - y.call);
    const single = checkHistorySync(model, history);
    const r = checkHistorySync(`independent:${model}`, keyed);
    const a = r.partitions.find((p) => p.operations.length === history.length)!;
    // The same search as the key's history alone, which the second order answered (the test above).
    expect(a.verdict).toBe(single.verdict);
    expect(a.explored).toBe(single.partitions[0].explored);
    expect(a.explored).toBeLessThan(0.75 * wglSearch(models[model], history).explored);
    const strip = (x: object) => JSON.stringify({ ...x, elapsedMs: 0 });
    expect(strip(await checkHistory(`independent:${model}`, keyed, { workers: 2 }))).toBe(strip(r));
  });

  it('the two searches share the memo budget: never more held together, and the first decides as it would alone', () => {
    // 24 MB: the first needs most of it (ok at 455,072 configurations of both with the second alive throughout).
    const { model, history } = hard({ ops: 1000, clients: 64, crashRate: 0, corrupt: 1, tick: 3, values: 10, seed: 1275378521 });
    const limit = 24 * 2 ** 20;
    const held = new Map<Memo<unknown>, number>();
    let peak = 0;
    let dropped = 0;
    const memo = Memo.prototype as unknown as { add: (...a: unknown[]) => boolean };
    const search = WglSearch.prototype as unknown as { finish: (...a: unknown[]) => void; memo?: Memo<unknown> };
    const { add } = memo;
    const { finish } = search;
    memo.add = function (this: Memo<unknown>, ...a: unknown[]) {
      const added = add.apply(this, a);
      held.set(this, this.bytes());
      let sum = 0;
      for (const bytes of held.values()) sum += bytes;
      peak = Math.max(peak, sum);
      return added;
    };
    search.finish = function (this: typeof search, ...a: unknown[]) {
      if (this.memo && held.delete(this.memo) && held.size > 0) dropped++;
      finish.apply(this, a);
    };
    try {
      const r = checkHistorySync(model, history, { memoLimitMB: 24 });
      expect(peak).toBeLessThanOrEqual(limit);
      expect(peak).toBeGreaterThan(0.9 * limit);
      expect(dropped).toBe(1);
      const alone = wglSearch(models[model], history, { memoLimitBytes: limit });
      expect(r.verdict).toBe(alone.verdict);
      expect(r.partitions[0].explored).toBeGreaterThan(alone.explored);
    } finally {
      memo.add = add;
      search.finish = finish;
    }
  });

  it('a model without `conditional` gets one search', () => {
    const { model, history } = generateHistory({ family: 'register', ops: 1000, clients: 64, seed: 41 });
    expect(checkHistorySync(model, history).partitions[0].explored).toBe(wglSearch(models[model], history).explored);
  });
});

describe('times', () => {
  it('a call or return that is not a finite number, or a return before its call, is refused', () => {
    const w = { f: 'write', value: 1 };
    const bad: [string, Operation][] = [
      ['NaN call', op(0, w, NaN, 1, undefined)],
      ['infinite call', op(0, w, -Infinity, 1, undefined)],
      ['string call', { client: 0, input: w, call: '5' as unknown as number, ret: 6 }],
      ['infinite return', op(0, w, 0, Infinity, undefined)],
      ['NaN return', op(0, w, 0, NaN, undefined)],
      ['string return', { client: 0, input: w, call: 0, ret: '6' as unknown as number }],
      ['return before call', op(0, w, 2, 1, undefined)],
    ];
    for (const [, o] of bad) expect(() => checkHistorySync('register', [op(1, { f: 'read' }, 0, 3, null), o])).toThrow(RangeError);
    expect(checkHistorySync('register', [op(1, { f: 'read' }, 0, 3, null), op(0, w, -1e300, 1e300, undefined), op(2, w, 4)]).verdict).toBe('ok');
  });
});

describe('model errors', () => {
  const fragile: Model<number, { f: string }, unknown> = {
    name: 'fragile',
    init: () => 0,
    step(s, input) {
      if (input.f === 'boom') throw new Error('cannot step boom');
      return { ok: true, state: s + 1 };
    },
  };

  it('name the operation whose step threw, with verdict unknown', () => {
    const history = [op(0, { f: 'inc' }, 0, 1, null), op(1, { f: 'inc' }, 2, 3, null), op(1, { f: 'boom' }, 4, 5, null)];
    const r = checkHistorySync(fragile, history);
    expect(r.verdict).toBe('unknown');
    expect(r.modelError).toEqual({ operation: 2, message: 'cannot step boom' });
    expect(r.partitions[0].reason).toBe('model-error');
  });

  it('an unknown operation of a registered model is a model error too', () => {
    const r = checkHistorySync('register', [op(0, { f: 'cas', value: [1, 2] }, 0, 1, true)]);
    expect(r.verdict).toBe('unknown');
    expect(r.modelError?.operation).toBe(0);
    expect(r.modelError?.message).toMatch(/unknown operation "cas"/);
  });

  it('a write, cas or add without a value is refused, naming it (before: judged as a write of undefined)', () => {
    const h = (input: unknown) => [op(0, { f: 'write', value: 1 }, 0, 1, null), op(0, input, 2, 3, null), op(1, { f: 'read' }, 4, 5, null)];
    for (const model of ['register', 'cas-register', 'etcd-cas-register']) {
      const r = checkHistorySync(model, h({ f: 'write' }));
      expect(r.verdict).toBe('unknown');
      expect(r.modelError).toEqual({ operation: 1, message: `${model}: write expects a value, got undefined (null is the register's initial value)` });
      // null is a value: the register's initial one.
      expect(checkHistorySync(model, h({ f: 'write', value: null })).verdict).toBe('ok');
    }
    expect(checkHistorySync('cas-register', h({ f: 'cas', value: [1, undefined] })).modelError).toMatchObject({ operation: 1, message: expect.stringMatching(/cas expects value \[from, to\]/) });
    const add = checkHistorySync('set', [op(0, { f: 'add' }, 0, 1, null), op(1, { f: 'read' }, 2, 3, [])]);
    expect(add.modelError).toEqual({ operation: 0, message: 'set: add expects a value, got undefined' });
  });

  it('a key on a model without keys is refused, pointing to independent:<model> (before: the keys ignored)', async () => {
    const h = [op(0, { f: 'write', value: 1 }, 0, 1, null), op(0, { f: 'write', value: 1, key: 'a' }, 2, 3, null), op(1, { f: 'read', key: 'b' }, 4, 5, null)];
    const r = checkHistorySync('register', h);
    expect(r.verdict).toBe('unknown');
    expect(r.modelError).toEqual({ operation: 1, message: 'register has no keys, but this operation names one (input.key): check a history of many keys with independent:register' });
    expect(await checkHistory('register', h, { workers: 2 })).toMatchObject({ verdict: 'unknown', modelError: { operation: 1 } });
    for (const model of ['cas-register', 'etcd-cas-register', 'queue', 'set', 'mutex']) {
      expect(checkHistorySync(model, [op(0, { f: 'read', key: 0 }, 0, 1, null)]).modelError?.message).toMatch(`independent:${model}`);
    }
    // Keyed, each key on its own: ok.
    expect(checkHistorySync('independent:register', h.slice(1)).verdict).toBe('ok');
    // A user's spread of a built-in with a partition by key of its own handles the keys itself.
    const byKey = (hs: readonly Operation[]) => {
      const parts = new Map<string, Operation[]>();
      for (const o of hs) {
        const k = (o.input as { key: string }).key;
        parts.set(k, [...(parts.get(k) ?? []), o]);
      }
      return [...parts.values()];
    };
    const mine = { ...models.register, name: 'mine', partition: byKey } as Model;
    const keyed = [op(0, { f: 'write', value: 1, key: 'a' }, 0, 1, null), op(1, { f: 'read', key: 'a' }, 2, 3, 1), op(0, { f: 'write', value: 2, key: 'b' }, 4, 5, null), op(1, { f: 'read', key: 'b' }, 6, 7, 2)];
    expect(checkHistorySync(mine, keyed).verdict).toBe('ok');
    // Spread without a partition: refused, and the hint names the API (mine is not a registered name).
    expect(checkHistorySync({ ...models.register, name: 'mine2' } as Model, keyed).modelError?.message).toMatch(/with independent\(model\)/);
  });

  it('a partition function that loses operations is reported, not trusted', () => {
    const lossy: Model = { ...models.register, name: 'lossy', partition: (h) => [h.slice(1)] };
    const r = checkHistorySync(lossy, [op(0, { f: 'write', value: 1 }, 0, 1, null), op(0, { f: 'read' }, 2, 3, 1)]);
    expect(r.verdict).toBe('unknown');
    expect(r.modelError?.message).toMatch(/left out/);
  });

  it('parts in any order, or repeating an operation, are indexed as by identity', () => {
    const h = [op(0, { f: 'write', value: 1 }, 0, 1, null), op(1, { f: 'read' }, 2, 3, 1), op(0, { f: 'write', value: 2 }, 4, 5, null)];
    const reversed: Model = { ...models.register, name: 'reversed', partition: (ops) => [[...ops].reverse()] };
    const r = checkHistorySync(reversed, h);
    expect(r.verdict).toBe('ok');
    expect(r.partitions.map((p) => p.operations)).toEqual([[2, 1, 0]]);
    const twice: Model = { ...models.register, name: 'twice', partition: (ops) => [[...ops], ops.slice(0, 1)] };
    expect(checkHistorySync(twice, h).modelError?.message).toMatch(/exactly once/);
  });

  it('partitionIndices is used as given, and checked as partition is', () => {
    const h = [op(0, { f: 'write', value: 1 }, 0, 1, null), op(1, { f: 'read' }, 2, 3, 1), op(0, { f: 'write', value: 2 }, 4, 5, null)];
    const indexed = (parts: number[][]): Model => ({ ...models.register, name: 'indexed', partition: (ops) => [[...ops]], partitionIndices: () => parts });
    const r = checkHistorySync(indexed([[2], [], [0, 1]]), h);
    expect(r.verdict).toBe('ok');
    expect(r.partitions.map((p) => p.operations)).toEqual([[2], [0, 1]]);
    expect(checkHistorySync(indexed([[0, 1], [1, 2]]), h).modelError?.message).toMatch(/exactly once/);
    expect(checkHistorySync(indexed([[0, 1], [3]]), h).modelError?.message).toMatch(/indices of the history \(0 \.\. 2\), not 3/);
    expect(checkHistorySync(indexed([[0, 1], [1.5]]), h).modelError?.message).toMatch(/not 1\.5/);
    expect(checkHistorySync(indexed([[0, 1], ['2' as unknown as number]]), h).modelError?.message).toMatch(/not "2"/);
    expect(checkHistorySync(indexed([[0, 1], [-1]]), h).modelError?.message).toMatch(/not -1/);
    expect(checkHistorySync(indexed([[0, 1]]), h).modelError?.message).toMatch(/left out/);
  });

  it("the registry's own partitionIndices, taken unchecked, give what a checked copy of the model gives", () => {
    // plan skips checkedIndices for the registry's models: each must keep the contract itself
    // (every index once, no empty part), as a copy (not registered, so checked) shows.
    let covered = 0;
    for (const [name, model] of Object.entries(models)) {
      if (model.partitionIndices === undefined) continue;
      covered++;
      for (let seed = 1; seed <= 20; seed++) {
        const g = generateHistory({ family: 'kv', ops: 5 + 5 * (seed % 6), clients: [2, 8, 64][seed % 3], corrupt: seed % 2, seed });
        const ids = model.partitionIndices(g.history);
        const seen = ids.flat().sort((a, b) => a - b);
        expect(seen).toEqual(g.history.map((_, i) => i));
        expect(ids.every((part) => part.length > 0)).toBe(true);
        const registered = checkHistorySync(name, g.history);
        const copy = checkHistorySync({ ...model, name: `${name}-copy` }, g.history);
        expect(registered.verdict).toBe(copy.verdict);
        expect(registered.partitions.map((p) => p.operations)).toEqual(copy.partitions.map((p) => p.operations));
      }
    }
    expect(covered).toBeGreaterThan(0);
  });
});

describe('illegal histories are explained', () => {
  // write(1) completes; then two reads, one sees 1 and the other 2: nothing wrote 2.
  const history = [
    op(0, { f: 'write', value: 1 }, 0, 1, null),
    op(1, { f: 'read' }, 2, 5, 1),
    op(2, { f: 'read' }, 3, 4, 2),
  ];

  it('longest partial linearization, the states after it, and the stuck operations', () => {
    const r = checkHistorySync('register', history);
    expect(r.verdict).toBe('illegal');
    const p = r.partitions[0];
    expect(p.longest?.[0]).toEqual([0, 1]);
    expect(p.states).toEqual(['1', '1']);
    expect(p.stuck).toEqual([2]);
  });

  it('verbose mode gives the longest sequence through every operation', () => {
    const r = checkHistorySync('register', history, { verbose: true });
    expect(r.partitions[0].longest).toEqual([[0, 1]]);
  });
});

describe('a model\'s proof of illegal', () => {
  // Issue 21's queue: a dequeue returns a value an earlier dequeue returned. Every order of
  // the concurrent enqueues before it is a distinct legal prefix, so an exhaustive search
  // is exponential; the model's refutation names the dequeue instead.
  const g = generateHistory({ family: 'queue', ops: 1000, clients: 2, seed: 2, corrupt: 1 });
  const r = checkHistorySync('queue', g.history);

  it('cuts the search short: illegal, the refuted operation stuck, and why', () => {
    expect(g.corruptions).toHaveLength(1);
    expect(r.verdict).toBe('illegal');
    const p = r.partitions[0];
    expect(p.proof?.operation).toBe(g.corruptions[0].index);
    expect(p.proof?.why).toContain(String(g.corruptions[0].output));
    expect(p.stuck).toEqual([g.corruptions[0].index]);
    expect(p.longest![0].length).toBeGreaterThan(100);
  });
});

describe('indeterminate operations', () => {
  it('may take effect late', () => {
    const h = [op(0, { f: 'write', value: 1 }, 0), op(1, { f: 'read' }, 5, 6, null), op(1, { f: 'read' }, 7, 8, 1)];
    expect(checkHistorySync('register', h).verdict).toBe('ok');
  });

  it('may never take effect', () => {
    const h = [op(0, { f: 'write', value: 1 }, 0), op(1, { f: 'read' }, 5, 6, null)];
    const r = checkHistorySync('register', h);
    expect(r.verdict).toBe('ok');
    expect(r.partitions[0].linearization).toEqual([1]);
  });

  it('cannot take effect before their call', () => {
    const h = [op(1, { f: 'read' }, 0, 1, 1), op(0, { f: 'write', value: 1 }, 2)];
    expect(checkHistorySync('register', h).verdict).toBe('illegal');
  });

  it('a history of indeterminate operations only is linearizable', () => {
    expect(checkHistorySync('register', [op(0, { f: 'write', value: 1 }, 0)]).verdict).toBe('ok');
    expect(checkHistorySync('register', []).verdict).toBe('ok');
  });
});

describe('partitions', () => {
  it('an illegal partition ends the check; partitions left unfinished are cancelled', () => {
    // Key "a": hard (many concurrent appends and a read nobody could see, holding every
    // appended value so that kv's refutation cannot prove it). Key "b": plainly illegal.
    const h: Operation[] = [];
    for (let c = 0; c < 14; c++) h.push(op(c, { f: 'append', key: 'a', value: `x${c}` }, 0, 100, null));
    h.push(op(20, { f: 'get', key: 'a' }, 101, 102, 'z' + Array.from({ length: 14 }, (_, c) => `x${c}`).join('')));
    h.push(op(21, { f: 'put', key: 'b', value: 'v' }, 0, 1, null));
    h.push(op(22, { f: 'get', key: 'b' }, 2, 3, 'w'));
    const r = checkHistorySync('kv-append', h);
    expect(r.verdict).toBe('illegal');
    expect(r.partitions.map((p) => [p.verdict, p.reason])).toEqual([
      ['unknown', 'cancelled'],
      ['illegal', undefined],
    ]);
  });

  it('bad timestamps are refused with the operation named', () => {
    expect(() => checkHistorySync('register', [op(0, { f: 'read' }, 5, 4, null)])).toThrow(/operation 0: return time/);
  });

  it('an unknown model name is refused', () => {
    expect(() => checkHistorySync('nope', [])).toThrow(/unknown model "nope"/);
  });

  it('partition: false is refused for a model whose step is per partition (before: kv-append checked whole gave wrong verdicts both ways)', async () => {
    // put(a, "x"), then get(b) -> "": linearizable (two keys); kv-append's one-key step saw "x" for b.
    const h = [op(0, { f: 'put', key: 'a', value: 'x' }, 0, 1, null), op(1, { f: 'get', key: 'b' }, 2, 3, '')];
    expect(checkHistorySync('kv-append', h).verdict).toBe('ok');
    expect(() => checkHistorySync('kv-append', h, { partition: false })).toThrow(/partition: false: kv-append's step is for one of its partitions.*kv-append-unpartitioned/);
    await expect(checkHistory(independent(models.register), [op(0, { f: 'write', key: 'a', value: 1 }, 0, 1, null)], { partition: false })).rejects.toThrow(/independent:register's step/);
    expect(checkHistorySync('kv-append-unpartitioned', h, { partition: false }).verdict).toBe('ok');
    // A model whose step covers the whole history says so, and is checked whole.
    const whole: Model = { ...models['kv-append-unpartitioned'], name: 'kv-whole', partition: models['kv-append'].partition, partitionOptional: true };
    const r = checkHistorySync(whole, h, { partition: false });
    expect([r.verdict, r.partitions.length]).toEqual(['ok', 1]);
    expect(checkHistorySync('register', [op(0, { f: 'read' }, 0, 1, null)], { partition: false }).verdict).toBe('ok');
  });
});

describe('the search stays near linear on generated histories', () => {
  // Counts, not times: the configurations the search visits. Before twins (equal writes
  // tried once per frame) and updates by return, this history took 111k configurations.
  it('a 64-client register of 1,000 operations with five values', () => {
    const { history, model } = generateHistory({ family: 'register', ops: 1000, clients: 64, seed: 11 });
    const r = checkHistorySync(model, history);
    expect(r.verdict).toBe('ok');
    expect(r.partitions[0].explored).toBeLessThan(3000);
  });

  // The queue's states share one buffer along a path: a long queue costs no copies, and
  // the search still backtracks correctly over enqueues (plain WGL, the same verdicts).
  it('a queue with crashed operations: the same verdicts with and without the reductions', async () => {
    const { wglSearch } = await import('./wgl.ts');
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const { history } = generateHistory({ family: 'queue', ops: 30, clients: 4, seed, crashRate: 0.1, corrupt: seed % 2 });
      const fast = wglSearch(models.queue, history);
      const plain = wglSearch(models.queue, history, { reductions: false });
      expect(fast.verdict).toBe(plain.verdict);
      expect(fast.verdict).not.toBe('unknown');
    }
  });
});

describe('a model\'s next is the search\'s step only when step is stepFrom of it (nextOf)', () => {
  // write(1), then reads of 2: illegal. Two operations (small.ts) and 300 (past SMALL_MAX: wgl.ts).
  const histories = [2, SMALL_MAX + 44].map((n) =>
    Array.from({ length: n }, (_, i) => (i % 2 === 0 ? op(i % 3, { f: 'write', value: i + 1 }, 2 * i, 2 * i + 1, null) : op(i % 3, { f: 'read' }, 2 * i, 2 * i + 1, 12345))),
  );


  it('a model with next and no step (a JavaScript caller) is checked by its next', () => {
    const reg = {
      name: 'next-only',
      init: () => null,
      next(s: unknown, input: { f: string; value?: unknown }, output: unknown): unknown {
        if (input.f === 'write') return input.value;
        return output === UNKNOWN || output === s ? s : ILLEGAL;
      },
    } as unknown as Model;
    for (const h of histories) expect(checkHistorySync(reg, h).verdict).toBe('illegal');
  });
  it('a class whose step checks the output, then calls its own helper named next', () => {
    class Reg {
      name = 'reg';
      init(): unknown {
        return null;
      }
      next(s: unknown, input: { f: string; value?: unknown }): unknown {
        return input.f === 'write' ? input.value : s;
      }
      step(s: unknown, input: { f: string; value?: unknown }, output: unknown) {
        if (input.f === 'read' && output !== UNKNOWN && output !== s) return { ok: false, state: s };
        return { ok: true, state: this.next(s, input) };
      }
    }
    for (const h of histories) for (const verbose of [false, true]) expect(checkHistorySync(new Reg(), h, { verbose }).verdict).toBe('illegal');
  });

  it('a next that is not a function is not called', () => {
    const model = { ...models.register, next: 5 } as unknown as Model;
    for (const h of histories) {
      const r = checkHistorySync(model, h);
      expect(r.verdict).toBe('illegal');
      expect(r.modelError).toBeUndefined();
    }
  });

  it('a built-in model spread with its step replaced runs that step', () => {
    let calls = 0;
    const counted: Model = { ...models.register, step: (s, i, o) => (calls++, models.register.step(s, i, o)) };
    expect(checkHistorySync(counted, histories[0]).verdict).toBe('illegal');
    expect(calls).toBeGreaterThan(0);
    const permissive: Model = { ...models.register, step: (s, i: { f: string; value?: unknown }) => ({ ok: true, state: i.f === 'write' ? i.value : s }) };
    for (const h of histories) expect(checkHistorySync(permissive, h).verdict).toBe('ok');
  });

  it('independent() keeps a built-in model\'s next, and a replaced step', () => {
    const keyed = histories[1].map((o) => ({ ...o, input: { ...(o.input as object), key: 'k' } }));
    expect(nextOf(independent(models.register))).toBe(independent(models.register).next);
    expect(checkHistorySync(independent(models.register), keyed).verdict).toBe('illegal');
    const permissive: Model = { ...models.register, step: (s, i: { f: string; value?: unknown }) => ({ ok: true, state: i.f === 'write' ? i.value : s }) };
    expect(independent(permissive).next).toBeUndefined();
    expect(checkHistorySync(independent(permissive), keyed).verdict).toBe('ok');
  });

  it('stepFrom calls next with the step\'s this (a class model)', () => {
    class Offset {
      name = 'offset';
      offset = 10;
      init(): number {
        return this.offset;
      }
      next(s: number, i: { f: string; value?: number }, o: unknown): number | typeof ILLEGAL {
        if (i.f === 'write') return i.value! + this.offset;
        return o === UNKNOWN || o === s ? s : ILLEGAL;
      }
      step = stepFrom(Offset.prototype.next);
      describeState(s: number): string {
        return String(s);
      }
    }
    const m = new Offset();
    expect(m.step(10, { f: 'write', value: 1 }, null)).toEqual({ ok: true, state: 11 });
    expect(m.step(11, { f: 'read' }, 12).ok).toBe(false);
    const h = [op(0, { f: 'write', value: 1 }, 0, 1, null), op(1, { f: 'read' }, 2, 3, 11), op(1, { f: 'read' }, 4, 5, 12)];
    const r = checkHistorySync(m, h);
    expect(r.verdict).toBe('illegal');
    expect(r.partitions[0].states).toEqual(['11', '11']);
  });

  it('ILLEGAL and UNKNOWN are registered symbols (two copies of the package agree)', () => {
    expect(ILLEGAL).toBe(Symbol.for('interleave.lin.illegal'));
    expect(UNKNOWN).toBe(Symbol.for('interleave.lin.unknown'));
  });
});

describe('an illegal report\'s states are replayed once, in the check', () => {
  const history = [op(0, { f: 'write', value: 1 }, 0, 1, null), op(1, { f: 'read' }, 2, 5, 1), op(2, { f: 'read' }, 3, 4, 2)];

  it('a replay that gives nothing leaves no states key (as JSON shows)', () => {
    const model: Model = { ...models.register, describeState: () => { throw new Error('cannot describe'); } };
    const r = checkHistorySync(model, history);
    expect(r.verdict).toBe('illegal');
    expect(Object.keys(r.partitions[0])).not.toContain('states');
    expect(JSON.parse(JSON.stringify(r)).partitions[0]).not.toHaveProperty('states');
    expect(Object.getOwnPropertyDescriptor(checkHistorySync('register', history).partitions[0], 'states')).toMatchObject({ value: ['1', '1'], writable: true });
  });

  it('a frozen report is rendered without replaying again', () => {
    const { history: h } = generateHistory({ family: 'register', ops: 400, clients: 4, seed: 1, corrupt: 1, crashRate: 0 });
    let described = 0;
    const counting: Model = { ...models.register, describeState: (s) => (described++, models.register.describeState!(s)) };
    const r = checkHistorySync(counting, h);
    const afterCheck = described;
    Object.freeze(r);
    r.partitions.forEach(Object.freeze);
    renderLinHtml(r, h, counting);
    renderLinText(r, h, counting);
    // The text report describes the initial state only when longest is empty (not here).
    expect(described).toBe(afterCheck);
    const p = r.partitions.find((x) => x.verdict === 'illegal')!;
    expect(p.states).toHaveLength(p.longest![0].length);
    expect(described).toBe(afterCheck);
    expect(afterCheck).toBe(p.longest![0].length);
  });
});

describe('memoLimitMB', () => {
  it('null means the default budget, as undefined does (0 is a memo of 0 bytes)', () => {
    const g = generateHistory({ family: 'register', ops: 300, clients: 4, seed: 7, corrupt: 0, crashRate: 0.05, unique: true });
    const d = checkHistorySync(g.model, g.history);
    expect(d.verdict).toBe('ok');
    expect(checkHistorySync(g.model, g.history, { memoLimitMB: 0 }).partitions[0].reason).toBe('memory');
    const r = checkHistorySync(g.model, g.history, { memoLimitMB: null as unknown as undefined });
    expect(r.verdict).toBe('ok');
    expect(r.partitions.map((x) => x.explored)).toEqual(d.partitions.map((x) => x.explored));
  });
});
