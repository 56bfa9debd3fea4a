// The sequential models' semantics, one behaviour per test.

import { describe, expect, it } from 'vitest';
import { FAMILIES, FAMILY_MODEL, generateHistory } from '../generate.ts';
import { checkHistorySync } from '../index.ts';
import { ILLEGAL, UNKNOWN, type LinResult, type Model, type Operation } from '../types.ts';
import type { KvInput } from './kv.ts';
import { casRegister, etcdCasRegister, kvAppend, kvAppendUnpartitioned, models, mutex, queue, set } from './index.ts';

const seq = (...steps: [unknown, unknown][]): Operation[] =>
  steps.map(([input, output], i) => ({ client: 0, input, call: 2 * i, ret: 2 * i + 1, output }));

function run<S>(model: Model<S>, steps: [unknown, unknown][], from?: S): S {
  let s = from ?? model.init();
  for (const [input, output] of steps) {
    const r = model.step(s, input, output);
    expect(r.ok).toBe(true);
    s = r.state;
  }
  return s;
}

describe('registers', () => {
  it('start as null and read what was written', () => {
    expect(checkHistorySync('register', seq([{ f: 'read' }, null], [{ f: 'write', value: 3 }, null], [{ f: 'read' }, 3])).verdict).toBe('ok');
    expect(checkHistorySync('register', seq([{ f: 'write', value: 3 }, null], [{ f: 'read' }, 4])).verdict).toBe('illegal');
  });

  it('cas succeeds only from the held value', () => {
    expect(casRegister.step(1, { f: 'cas', value: [1, 2] }, true)).toEqual({ ok: true, state: 2 });
    expect(casRegister.step(1, { f: 'cas', value: [0, 2] }, true).ok).toBe(false);
  });

  it('etcd: a failed cas means the register did not hold `from`', () => {
    expect(etcdCasRegister.failedOutput!({ f: 'cas', value: [1, 2] })).toBe(false);
    expect(etcdCasRegister.failedOutput!({ f: 'read' })).toBeUndefined();
    expect(etcdCasRegister.step(1, { f: 'cas', value: [1, 2] }, false).ok).toBe(false);
    expect(etcdCasRegister.step(0, { f: 'cas', value: [1, 2] }, false)).toEqual({ ok: true, state: 0 });
    expect(casRegister.failedOutput).toBeUndefined();
  });

  it('an indeterminate cas takes effect only from `from`', () => {
    expect(etcdCasRegister.step(1, { f: 'cas', value: [1, 2] }, UNKNOWN)).toEqual({ ok: true, state: 2 });
    expect(etcdCasRegister.step(0, { f: 'cas', value: [1, 2] }, UNKNOWN).ok).toBe(false);
  });

  it('compare values structurally', () => {
    expect(casRegister.step([1, { a: 2 }], { f: 'read' }, [1, { a: 2 }]).ok).toBe(true);
    expect(casRegister.hash!([1, { a: 2, b: 3 }])).toBe(casRegister.hash!([1, { b: 3, a: 2 }]));
  });
});

describe('kv', () => {
  // Short strings: each value searched for in the gets' strings; a long one: the windowed filter.
  it.each([0, 1 << 14])('abstraction: a string holding a value no get returns is one state, which no get fits until a put (a get of %i more characters)', (pad) => {
    const w = (f: string, value: string, call: number): Operation => ({ client: 1, input: { f, key: 'k', value }, call, ret: call + 1, output: null });
    const get = (output: string, call: number): Operation => ({ client: 2, input: { f: 'get', key: 'k' }, call, ret: call + 1, output });
    // 'u1;' and 'u2;' (and many more writes of one length, for the windowed filter) no get returns.
    const fillers = Array.from({ length: 20 }, (_, i) => w('append', `f${String(i).padStart(2, '0')}`, 100 + i));
    const long = pad === 0 ? [] : [w('put', 'c', 200), get(`c${'z'.repeat(pad)}`, 202)];
    const history = [w('put', 'a', 0), w('append', 'u1;', 2), w('append', 'u2;', 4), get('a', 6), w('put', 'b', 8), get('bf07', 10), ...fillers, ...long];
    const abstract = kvAppend.abstraction!(history as Operation<KvInput, unknown>[])!;
    const step = (s: ReturnType<typeof kvAppend.init>, input: unknown, output: unknown = null) => {
      const r = kvAppend.step(s, input as KvInput, output);
      return r.ok ? abstract(r.state) : undefined;
    };
    const a = step(kvAppend.init(), { f: 'put', key: 'k', value: 'a' })!;
    const ab = step(step(a, { f: 'append', key: 'k', value: 'u1;' })!, { f: 'append', key: 'k', value: 'u2;' })!;
    const ba = step(step(a, { f: 'append', key: 'k', value: 'u2;' })!, { f: 'append', key: 'k', value: 'u1;' })!;
    expect(ab).toBe(ba);
    expect(step(ab, { f: 'append', key: 'k', value: 'f07' })).toBe(ab);
    expect(step(ab, { f: 'get', key: 'k' }, 'a')).toBeUndefined();
    expect(step(ab, { f: 'get', key: 'k' }, 'au1;u2;')).toBeUndefined();
    // A value some get shows is not abstracted; a put clears the poisoned string.
    const b = step(ab, { f: 'put', key: 'k', value: 'b' })!;
    expect(step(step(b, { f: 'append', key: 'k', value: 'f07' })!, { f: 'get', key: 'k' }, 'bf07')).toBeDefined();
    expect(step(a, { f: 'get', key: 'k' }, 'a')).toBe(a);
  });

  it('unobserved: a crashed update no get shows, found within one string, or across two when its value has a newline', () => {
    const get = (output: string, call: number): Operation => ({ client: 1, input: { f: 'get', key: 'k' }, call, ret: call + 1, output });
    const crashed = (f: string, value: string, call: number): Operation => ({ client: 2, input: { f, key: 'k', value }, call });
    // A stale get ('ab' after 'abc') and a new run ('q', 'qr'): every get's string is in some kept one.
    const history = [get('a', 0), get('abc', 2), get('ab', 4), get('q', 6), get('qr', 8), get('abc', 10)];
    const values = ['c', 'b', 'r', 'x', 'bc', 'cq', 'c\nq', 'r\na', 'c\nqr', ''];
    const ops = [...history, ...values.map((v, i) => crashed(i % 2 ? 'put' : 'append', v, 20 + i))];
    // The plain definition: a value is observed when the distinct get strings that are no
    // prefix of another, sorted and joined by newlines, contain it.
    const strings = [...new Set(history.map((o) => o.output as string))].sort();
    const all = strings.filter((s, i) => i === strings.length - 1 || !strings[i + 1].startsWith(s)).join('\n');
    expect(all).toBe('abc\nqr');
    const gone = kvAppend.unobserved!(ops as Operation<KvInput, unknown>[]);
    expect(gone.slice(history.length)).toEqual(values.map((v) => !all.includes(v)));
    expect(gone.slice(history.length)).toEqual([false, false, false, true, false, true, false, true, false, false]);
  });

  const steps: [unknown, unknown][] = [
    [{ f: 'put', key: 'a', value: 'x' }, null],
    [{ f: 'append', key: 'a', value: 'y' }, null],
    [{ f: 'append', key: 'b', value: 'z' }, null],
  ];

  it('get returns the whole string, or empty when never written', () => {
    const s = run(kvAppendUnpartitioned, steps);
    expect(kvAppendUnpartitioned.step(s, { f: 'get', key: 'a' }, 'xy').ok).toBe(true);
    expect(kvAppendUnpartitioned.step(s, { f: 'get', key: 'c' }, '').ok).toBe(true);
    expect(kvAppendUnpartitioned.describeState!(s)).toBe('{"a": "xy", "b": "z"}');
  });

  it('equal maps hash equal, whatever the order of writes; an empty key equals an absent one', () => {
    // States of one check share their value table: start both from one initial state.
    const m = kvAppendUnpartitioned;
    const init = m.init();
    const a = run(m, steps, init);
    const b = run(m, [[{ f: 'get', key: 'c' }, ''], steps[2], [{ f: 'put', key: 'a', value: 'xy' }, null], [{ f: 'put', key: 'c', value: '' }, null]], init);
    expect(m.equal!(a, b)).toBe(true);
    expect(m.hash!(a)).toBe(m.hash!(b));
    const c = run(m, [steps[0], steps[2]], init);
    expect(m.equal!(a, c)).toBe(false);
    expect(m.hash!(a)).not.toBe(m.hash!(c));
  });

  it('the per-key model finds one value equal to itself, however it was built', () => {
    const init = kvAppend.init();
    const viaAppend = run(kvAppend, [[{ f: 'append', key: 'k', value: 'ab' }, null], [{ f: 'append', key: 'k', value: 'cd' }, null]], init);
    const viaPut = run(kvAppend, [[{ f: 'put', key: 'k', value: 'abcd' }, null]], init);
    expect(kvAppend.equal!(viaAppend, viaPut)).toBe(true);
    expect(kvAppend.hash!(viaAppend)).toBe(kvAppend.hash!(viaPut));
    expect(kvAppend.step(viaAppend, { f: 'get', key: 'k' }, 'abcd').ok).toBe(true);
  });

  it('the per-key model tells apart two values whose hashes collide', () => {
    // Two-character strings whose polynomial hashes agree mod 2^30: [d, 0] and [0, r] where
    // d * 0x01000193 = r mod 2^30 (hash.ts hashString).
    let pair: [string, string] | undefined;
    for (let d = 1; d < 0x10000 && pair === undefined; d++) {
      const r = Number((BigInt(d) * 0x01000193n) % 0x40000000n);
      if (r < 0x10000) pair = [String.fromCharCode(d, 0), String.fromCharCode(0, r)];
    }
    expect(pair).toBeDefined();
    const [a, b] = pair!;
    const init = kvAppend.init();
    const sa = run(kvAppend, [[{ f: 'append', key: 'k', value: a[0] }, null], [{ f: 'append', key: 'k', value: a[1] }, null]], init);
    const sb = run(kvAppend, [[{ f: 'put', key: 'k', value: b }, null]], init);
    expect(kvAppend.hash!(sa)).toBe(kvAppend.hash!(sb));
    expect(kvAppend.equal!(sa, sb)).toBe(false);
    expect(kvAppend.step(sa, { f: 'get', key: 'k' }, b).ok).toBe(false);
    expect(kvAppend.step(sb, { f: 'get', key: 'k' }, b).ok).toBe(true);
  });

  it('partitions by key, keeping each operation once', () => {
    const h = seq(...steps);
    expect(kvAppend.partition!(h as Operation<KvInput>[]).map((p) => p.length)).toEqual([2, 1]);
    // The same parts as indices (what the checker uses).
    const ids = kvAppend.partitionIndices!(h as Operation<KvInput>[]);
    expect(ids.map((part) => part.map((i) => h[i]))).toEqual(kvAppend.partition!(h as Operation<KvInput>[]));
  });
});

describe('set, queue, mutex', () => {
  it('set: a read returns the members in any order', () => {
    const s = run(set, [[{ f: 'add', value: 2 }, null], [{ f: 'add', value: 1 }, null], [{ f: 'add', value: 2 }, null]]);
    expect(set.step(s, { f: 'read' }, [1, 2]).ok).toBe(true);
    expect(set.step(s, { f: 'read' }, [2, 1]).ok).toBe(true);
    expect(set.step(s, { f: 'read' }, [1]).ok).toBe(false);
  });

  it('set: a number is the member its text names (0 and -0 one, NaN and null one, 1 and "1" two); a read may repeat members', () => {
    const s = run(set, [[{ f: 'add', value: -0 }, null], [{ f: 'add', value: NaN }, null], [{ f: 'add', value: 1 }, null]]);
    expect(set.step(s, { f: 'read' }, [null, 1, 0]).ok).toBe(true);
    expect(set.step(s, { f: 'read' }, [0, 0, 1, null, 1]).ok).toBe(true);
    expect(set.step(s, { f: 'read' }, [0, null, '1']).ok).toBe(false);
    expect(set.describeState!(s)).toBe('{0, 1, null}');
  });

  it('queue: describeState shows each item as show does (numbers finite and not, strings, objects)', () => {
    let s = queue.init();
    for (const v of [3, -0, 2.5, 1e21, NaN, Infinity, -Infinity, '7', 'a"b', true, { k: [1] }, [2, null]]) s = queue.step(s, { f: 'enqueue', value: v }, null).state;
    expect(queue.describeState!(s)).toBe('[3, 0, 2.5, 1e+21, null, null, null, "7", "a\\"b", true, {"k":[1]}, [2,null]]');
    expect(queue.describeState!(queue.init())).toBe('[]');
  });

  it('set: a small history answered illegal without backtracking carries the proof', () => {
    const h: Operation[] = [
      { client: 0, input: { f: 'add', value: 1 }, call: 0, ret: 1, output: null },
      { client: 1, input: { f: 'read' }, call: 2, ret: 3, output: [] },
    ];
    const r = checkHistorySync('set', h);
    expect(r.verdict).toBe('illegal');
    expect(r.partitions[0].proof).toEqual({ operation: 1, why: 'an add of 1 returned at 1, before the read\'s call, and members stay' });
  });

  it('queue: FIFO, null when empty', () => {
    const s = run(queue, [[{ f: 'enqueue', value: 1 }, null], [{ f: 'enqueue', value: 2 }, null]]);
    expect(queue.step(s, { f: 'dequeue' }, 2).ok).toBe(false);
    const t = run(queue, [[{ f: 'enqueue', value: 1 }, null], [{ f: 'dequeue' }, 1]]);
    expect(queue.step(t, { f: 'dequeue' }, null).ok).toBe(true);
    expect(queue.equal!(t, queue.init())).toBe(true);
  });

  it('queue: a null item is refused (a model error, unknown), not judged: the search and the small path read a null dequeue as the empty queue', () => {
    const h = [
      { client: 0, input: { f: 'enqueue', value: null }, call: 0, ret: 1, output: null },
      { client: 0, input: { f: 'enqueue', value: 1 }, call: 2, ret: 3, output: null },
      { client: 0, input: { f: 'dequeue' }, call: 4, ret: 5, output: null },
      { client: 0, input: { f: 'dequeue' }, call: 6, ret: 7, output: 1 },
    ];
    for (const verbose of [false, true]) {
      const r = checkHistorySync(queue, h, { verbose });
      expect([r.verdict, r.modelError?.operation, r.modelError?.message]).toEqual(['unknown', 0, expect.stringMatching(/no item can be null/)]);
    }
  });

  it('queue: equal contents hash equal, however they were reached', () => {
    const a = run(queue, [[{ f: 'enqueue', value: 1 }, null], [{ f: 'enqueue', value: 2 }, null], [{ f: 'dequeue' }, 1], [{ f: 'enqueue', value: 3 }, null]]);
    const b = run(queue, [[{ f: 'enqueue', value: 2 }, null], [{ f: 'enqueue', value: 3 }, null]]);
    const c = run(queue, [[{ f: 'enqueue', value: 3 }, null], [{ f: 'enqueue', value: 2 }, null]]);
    expect(queue.equal!(a, b)).toBe(true);
    expect(queue.hash!(a)).toBe(queue.hash!(b));
    expect(queue.equal!(b, c)).toBe(false);
    expect(queue.hash!(b)).not.toBe(queue.hash!(c));
  });

  it('set: equal members are equal states, whatever the order of adds', () => {
    const init = set.init();
    const a = run(set, [[{ f: 'add', value: 3 }, null], [{ f: 'add', value: 1 }, null], [{ f: 'add', value: 2 }, null]], init);
    const b = run(set, [[{ f: 'add', value: 2 }, null], [{ f: 'add', value: 3 }, null], [{ f: 'add', value: 1 }, null], [{ f: 'add', value: 3 }, null]], init);
    expect(set.equal!(a, b)).toBe(true);
    expect(set.hash!(a)).toBe(set.hash!(b));
    expect(set.step(a, { f: 'read' }, [1, 2, 3]).ok).toBe(true);
    expect(set.step(a, { f: 'read' }, [1, 2]).ok).toBe(false);
    expect(set.step(a, { f: 'read' }, [1, 2, 3, 4]).ok).toBe(false);
    expect(set.describeState!(b)).toBe('{1, 2, 3}');
  });

  it('set: describeState lists the members by their texts in code-unit order, small sets and large', () => {
    for (const size of [9, 32, 33, 70]) {
      // Added in an order unlike the texts' ("10" before "9"), strings and numbers mixed.
      const values: unknown[] = [];
      for (let k = size - 1; k >= 0; k--) values.push(k % 3 === 0 ? `s${k}` : k);
      const s = run(set, values.map((value) => [{ f: 'add', value }, null]));
      const texts = values.map((v) => JSON.stringify(v)).sort();
      expect(set.describeState!(s)).toBe(`{${texts.join(', ')}}`);
    }
  });

  it('set: describeState of one check\'s states in any order, members added out of their ids\' order', () => {
    // A read numbers 30 members in its order; five are then added in that order and the rest
    // backwards, so that states hold members past their prefix (1 to 25 of them).
    const values = Array.from({ length: 30 }, (_, k) => (k % 4 === 0 ? `v${k}` : k * 7));
    const init = set.init();
    expect(set.step(init, { f: 'read' }, values).ok).toBe(false);
    const order = [0, 1, 2, 3, 4, ...Array.from({ length: 25 }, (_, k) => 29 - k)];
    const states: [typeof init, string][] = [];
    let s = init;
    for (let k = 0; k < order.length; k++) {
      s = set.step(s, { f: 'add', value: values[order[k]] }, null).state;
      states.push([s, `{${order.slice(0, k + 1).map((i) => JSON.stringify(values[i])).sort().join(', ')}}`]);
    }
    for (const seq of [states, [...states].reverse(), states, [states[20], states[3], states[29], states[10]]]) {
      for (const [state, described] of seq) expect(set.describeState!(state)).toBe(described);
    }
  });

  it('kv: refutes a get of a string no put wrote and no append ends, even with every operation concurrent', () => {
    const op = (client: number, input: KvInput, output: unknown, ret?: number): Operation<KvInput, unknown> => ({ client, input, call: client, ret, output: ret === undefined ? undefined : output });
    const appends = [op(0, { f: 'append', key: 'k', value: 'x1;' }, null, 10), op(1, { f: 'append', key: 'k', value: 'x22;' }, null)];
    const never = [...appends, op(2, { f: 'get', key: 'k' }, 'never;', 10)];
    expect(kvAppend.refute!(never)).toEqual({ operation: 2, why: 'no put writes "never;" and no append\'s value ends it' });
    // Ending with a crashed append's value, or equal to a put's: not refuted by it.
    expect(kvAppend.refute!([...appends, op(2, { f: 'get', key: 'k' }, 'x1;x22;', 10)])).toBeUndefined();
    expect(kvAppend.refute!([...appends, op(2, { f: 'put', key: 'k', value: 'never;' }, null), op(3, { f: 'get', key: 'k' }, 'never;', 10)])).toBeUndefined();
    // An empty append could leave any earlier value last: nothing is refuted by its ending.
    expect(kvAppend.refute!([...never.slice(0, 2), op(3, { f: 'append', key: 'k', value: '' }, null, 10), never[2]])).toBeUndefined();
  });

  it('kv: refutes a stale get by the order an earlier get\'s string shows, only where the string reads one way', () => {
    const op = (client: number, call: number, input: KvInput, output: unknown, ret?: number): Operation<KvInput, unknown> => ({ client, input, call, ret, output: ret === undefined ? undefined : output });
    // "xr;x1f;" shows x1f after the put of "xr;"; x1f and that get returned before the stale
    // get was called, so no partial linearization holds the stale get.
    const stale = [
      op(0, 37, { f: 'put', key: 'k', value: 'xr;' }, null, 219),
      op(1, 89, { f: 'append', key: 'k', value: 'x1f;' }, null, 115),
      op(2, 97, { f: 'get', key: 'k' }, 'xr;x1f;', 150),
      op(3, 161, { f: 'get', key: 'k' }, 'xr;', 231),
    ];
    expect(kvAppend.refute!(stale)).toEqual({ operation: 3, why: 'no put and the appends that must come between it and this get give "xr;"' });
    // Without the get that shows the order, the put may come after the append: no proof.
    expect(kvAppend.refute!(stale.filter((o) => o.client !== 2))).toBeUndefined();
    // That get returned after the stale one was called (issue 21's kv 100/64 corrupted, seed
    // 8377): a partial linearization may hold the stale get without it, so the proof names
    // the pair (the search bounds its longest by the larger of the two's bounds).
    const later = stale.map((o) => (o.client === 2 ? { ...o, ret: 335 } : o));
    expect(kvAppend.refute!(later)).toEqual({ operation: 3, and: 2, why: 'no put and the appends that must come between it and this get give "xr;" (with the other get: its string shows an append after the put that this one lacks)' });
    expect(checkHistorySync(kvAppend, later).verdict).toBe('illegal');
    // "pab" reads as p + ab and as p + a + b (crashed appends): it shows no order, and the
    // get of "p" is not refuted by it (the search finds the history illegal).
    const twoWays = [
      op(0, 0, { f: 'put', key: 'k', value: 'p' }, null, 100),
      op(1, 5, { f: 'append', key: 'k', value: 'a' }, null),
      op(2, 6, { f: 'append', key: 'k', value: 'b' }, null),
      op(3, 10, { f: 'append', key: 'k', value: 'ab' }, null, 30),
      op(4, 20, { f: 'get', key: 'k' }, 'pab', 40),
      op(5, 50, { f: 'get', key: 'k' }, 'p', 150),
    ];
    expect(kvAppend.refute!(twoWays)).toBeUndefined();
    expect(checkHistorySync(kvAppend, twoWays).verdict).toBe('illegal');
    expect(kvAppend.refute!(twoWays.filter((o) => o.client !== 1 && o.client !== 2))?.operation).toBe(3);
  });

  it('mutex: acquire only when free, release only when held', () => {
    expect(mutex.step(false, { f: 'acquire' }, null)).toEqual({ ok: true, state: true });
    expect(mutex.step(true, { f: 'acquire' }, null).ok).toBe(false);
    expect(mutex.step(false, { f: 'release' }, null).ok).toBe(false);
  });

  it('every model in the registry describes its operations and states', () => {
    for (const [name, m] of Object.entries(models)) {
      expect(m.name).toBe(name);
      expect(typeof m.describeOperation).toBe('function');
      expect(typeof m.describeState!(m.init())).toBe('string');
    }
  });

  it("a model's next and step agree, and the model given as step alone (a plain object, as a user writes one) gets the same report from both searches", () => {
    const mutexNext = mutex.next!;
    expect(mutexNext(false, { f: 'acquire' }, null)).toBe(true);
    expect(mutexNext(true, { f: 'acquire' }, null)).toBe(ILLEGAL);
    const strip = ({ elapsedMs: _, ...rest }: LinResult) => rest;
    let checked = 0;
    for (const family of FAMILIES) {
      const model = models[FAMILY_MODEL[family]];
      expect(typeof model.next).toBe('function');
      const { next, ...plain } = model;
      // Up to 32 operations small.ts's one-word search, past it its wide one; verbose: wgl.ts.
      for (const [ops, clients, seed] of [[10, 2, 1], [30, 8, 2], [40, 8, 3], [50, 16, 4]]) {
        for (const corrupt of [0, 1]) {
          const g = generateHistory({ family, ops, clients, seed, corrupt, crashRate: 0.05 });
          // Every step the search takes, both ways: the same verdict and the same state.
          const stepping: Model = {
            ...model,
            next(state, input, output) {
              const a = next!(state, input, output);
              const b = model.step(state, input, output);
              expect(b.ok).toBe(a !== ILLEGAL);
              if (b.ok) expect(model.equal!(b.state, a)).toBe(true);
              return a;
            },
          };
          for (const verbose of [false, true]) {
            const a = checkHistorySync(model, g.history, { verbose });
            expect(strip(checkHistorySync(plain, g.history, { verbose }))).toEqual(strip(a));
            expect(strip(checkHistorySync(stepping, g.history, { verbose }))).toEqual(strip(a));
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(80);
  });
});
