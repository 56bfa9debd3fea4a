import { describe, expect, it } from 'vitest';
import { exploreSync } from '../../checkers/explore/index.ts';
import type { Machine } from '../../checkers/explore/types.ts';
import { NO_FAULTS, applyFault, faultChoices, isDown, isSuspected } from './faults.ts';
import { clientHistory, register, registerOp } from './history.ts';
import { answer, channels, consume, deliveries, distinct, enqueue, firstCopy, Interned, remap, send, sent, take, taken, type Msg } from './network.ts';
import { monCrash, monInit, monInvoke, monReturn, registerSlot, type SlotModel } from './object-ghost.ts';
import { addSorted, freezing, produce, removeSorted, rewritten, withAt } from './state.ts';
import { actorActions, phasedMachine, runLocal, tableMachine, type ActionTable, type ActorStep, type LocalStep, type Phase, type StepAction } from './table.ts';
import { variants } from './variants.ts';
import { ByteWords, cachedWords, KeptWords, sameStates, wordEncoder, type WordWriter } from './words.ts';

describe('kit/variants', () => {
  const V = variants('toy', ['M1', 'M2'] as const);
  it('gives one flag per variant, only the one asked for set', () => {
    expect(V.flags('M2')).toEqual({ M1: false, M2: true });
    expect(V.flags(undefined)).toEqual({ M1: false, M2: false });
  });
  it('refuses an unknown variant instead of building the unmutated protocol', () => {
    expect(() => V.flags('M3')).toThrow('toy: unknown variant "M3" (known: M1, M2)');
    // The flags are a plain object: a name from its prototype is not a variant either.
    expect(() => V.flags('toString')).toThrow('toy: unknown variant "toString"');
    expect(() => variants('toy', ['__proto__'] as const)).toThrow('cannot be named __proto__');
  });
  it('gives every configuration flags of one shape, frozen, the fields in the list order', () => {
    const a = V.flags('M1');
    const b = V.flags(undefined);
    expect(Object.keys(a)).toEqual(['M1', 'M2']);
    expect(Object.keys(b)).toEqual(['M1', 'M2']);
    expect(Object.isFrozen(a) && Object.isFrozen(b)).toBe(true);
    // a plain object, not one without a prototype (which V8 keeps as a dictionary, one per call)
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
  });
  it('types the names, so a misspelled flag or mutant does not compile', () => {
    const f = V.flags('M1');
    // @ts-expect-error M3 is not a variant of toy
    expect(f.M3).toBeUndefined();
    // @ts-expect-error neither is m1
    V.mutant({ name: 'm1', kind: 'safety', config: 'c', breaks: 'x', description: 'y' });
  });
});

describe('kit/table', () => {
  interface S { x: number[] }
  interface A extends StepAction { step: 'inc' | 'reset'; p: number }
  const table: ActionTable<S, A> = {
    actors: (s) => s.x.length,
    perActor: [{ name: 'inc', cites: 'l.1', enabled: (s, p, out) => { if (s.x[p] < 2) out.push({ label: `inc(${p})`, step: 'inc', p }); }, effect: (d, a) => { d.x[a.p]++; } }],
    global: [{ name: 'reset', cites: 'l.2', enabled: (s, out) => { if (s.x.some((v) => v > 0)) out.push({ label: 'reset', step: 'reset', p: -1 }); }, effect: (d) => { d.x.fill(0); } }],
  };
  const m = tableMachine(table, (s) => ({ x: s.x.slice() }));
  it('enumerates per actor in table order, then the global steps, and copies before the effect', () => {
    const s = { x: [0, 2] };
    expect(m.actions(s).map((a) => a.label)).toEqual(['inc(0)', 'reset']);
    const t = m.next(s, m.actions(s)[0]);
    expect(t.x).toEqual([1, 2]);
    expect(s.x).toEqual([0, 2]);
    expect(() => m.next(s, { label: '?', step: 'nope' as 'inc', p: 0 })).toThrow('no step "nope"');
    expect(actorActions(table)({ x: [0, 0] }, 1).map((a) => a.label)).toEqual(['inc(1)']);
    // Dispatch by where an actor is asks only that place's guards, and lists the same actions.
    const asked: string[] = [];
    const spy = (name: 'inc' | 'reset', at: string): ActorStep<S, A> => ({ name, at, cites: '', enabled: (s, p, out) => { asked.push(`${name}${p}`); if ((s.x[p] === 0) === (at === 'zero')) out.push({ label: `${name}(${p})`, step: name, p }); }, effect: () => {} });
    const byPc = tableMachine<S, A>({ actors: (s) => s.x.length, at: (s, p) => (s.x[p] === 0 ? 'zero' : 'more'), perActor: [spy('inc', 'zero'), spy('reset', 'more')], global: [] }, (s) => s);
    expect(byPc.actions({ x: [0, 5] }).map((a) => a.label)).toEqual(['inc(0)', 'reset(1)']);
    expect(asked).toEqual(['inc0', 'reset1']);
  });
  it('enumerates a group\'s steps member by member, between the actor\'s other steps', () => {
    interface G extends StepAction { step: 'first' | 'send' | 'recv' | 'last'; p: number; m?: number }
    const push = (step: G['step']) => (_s: S, p: number, m: number, out: G[]) => void out.push({ label: `${step}(${p},${m})`, step, p, m });
    const grouped: ActionTable<S, G> = {
      actors: (s) => s.x.length,
      perActor: [
        { name: 'first', cites: '', enabled: (_s, p, out) => void out.push({ label: `first(${p})`, step: 'first', p }), effect: () => {} },
        { members: () => 2, steps: [{ name: 'send', cites: '', enabled: push('send'), effect: () => {} }, { name: 'recv', cites: '', enabled: push('recv'), effect: (d, a) => { d.x[a.p] = a.m!; } }] },
        { name: 'last', cites: '', enabled: (_s, p, out) => void out.push({ label: `last(${p})`, step: 'last', p }), effect: () => {} },
      ],
      global: [],
    };
    const g = tableMachine(grouped, (s) => ({ x: s.x.slice() }));
    expect(g.actions({ x: [0] }).map((a) => a.label)).toEqual(['first(0)', 'send(0,0)', 'recv(0,0)', 'send(0,1)', 'recv(0,1)', 'last(0)']);
    expect(g.next({ x: [0] }, { label: 'recv(0,1)', step: 'recv', p: 0, m: 1 }).x).toEqual([1]);
  });
  it('enumerates phases in order, each group per actor in table order, and hands the action to the copy', () => {
    interface B extends StepAction { step: string; p: number }
    const step = (name: string, ok: (s: S, p: number) => boolean, by: number) => ({
      name, cites: 'l.1',
      enabled: (s: S, p: number, out: B[]) => { if (ok(s, p)) out.push({ label: `${name}(${p})`, step: name, p }); },
      effect: (d: S, a: B) => { d.x[a.p] += by; },
    });
    const reset = { name: 'reset', cites: 'l.2', enabled: (s: S, out: B[]) => { if (s.x.some((v) => v > 0)) out.push({ label: 'reset', step: 'reset', p: -1 }); }, effect: (d: S) => { d.x.fill(0); } };
    const phases: Phase<S, B>[] = [
      { actors: (s) => s.x.length, steps: [step('inc', (s, p) => s.x[p] < 2, 1), step('dec', (s, p) => s.x[p] > 0, -1)] },
      reset,
      { actors: () => 1, steps: [step('dec0', (s, p) => s.x[p] > 0, -1)] },
    ];
    const copied: string[] = [];
    const pm = phasedMachine(phases, (s, a) => { copied.push(a.label); return { x: s.x.slice() }; });
    const s = { x: [1, 2] };
    expect(pm.actions(s).map((a) => a.label)).toEqual(['inc(0)', 'dec(0)', 'dec(1)', 'reset', 'dec0(0)']);
    expect(pm.next(s, pm.actions(s)[1]).x).toEqual([0, 2]);
    expect(copied).toEqual(['dec(0)']);
    expect(s.x).toEqual([1, 2]);
    expect(() => phasedMachine([reset, reset], (x) => x)).toThrow('step "reset" listed twice');
  });
  it('runs local steps to a fixpoint, and reports steps that never settle', () => {
    const steps: LocalStep<S>[] = [
      { name: 'a', cites: '', guard: (d) => d.x[0] < 3, effect: (d) => { d.x[0]++; } },
      { name: 'b', cites: '', guard: (d) => d.x[0] === 3 && d.x[1] === 0, effect: (d) => { d.x[1] = 1; } },
    ];
    const d = { x: [0, 0] };
    runLocal(steps, d, 0);
    expect(d.x).toEqual([3, 1]);
    const loop: LocalStep<S>[] = [{ name: 'spin', cites: '', guard: () => true, effect: () => {} }];
    expect(() => runLocal(loop, d, 7, 5)).toThrow('local steps of actor 7 did not settle within 5 rounds');
  });
});

describe('kit/network', () => {
  it('keeps a bag sorted (equal bags are equal arrays), with duplicates', () => {
    const a: Msg[] = [];
    const b: Msg[] = [];
    for (const m of [[2, 1], [0, 5], [2, 1], [1]]) send(a, m);
    for (const m of [[1], [2, 1], [0, 5], [2, 1]]) send(b, m);
    expect(a).toEqual(b);
    expect(distinct(a)).toEqual([[0, 5], [1], [2, 1]]);
    take(a, [2, 1]);
    expect(a).toEqual([[0, 5], [1], [2, 1]]);
    expect(() => take(a, [9])).toThrow('no message [9] in flight');
    expect(remap(a, (m) => (m[0] === 0 ? [3] : m))).toEqual([[1], [2, 1], [3]]);
  });
  it('sent and taken give the bag send and take make, as new arrays, the bag given unchanged', () => {
    let a: readonly Msg[] = Object.freeze([]);
    const b: Msg[] = [];
    for (const m of [[2, 1], [0, 5], [2, 1], [1]]) {
      const before = a;
      a = Object.freeze(sent(a, m));
      send(b, m);
      expect(a).toEqual(b);
      expect(before).not.toBe(a);
    }
    expect(a.map((_, i) => firstCopy(a, i))).toEqual([true, true, true, false]);
    const c = taken(a, [2, 1]);
    take(b, [2, 1]);
    expect(c).toEqual(b);
    expect(a).toHaveLength(4);
    expect(() => taken(c, [9])).toThrow('no message [9] in flight');
  });
  it('interns messages by content: one tuple per message, across growth', () => {
    const t = new Interned<Msg>();
    const first = Array.from({ length: 600 }, (_, i) => t.of([i % 7, i, -1]));
    first.forEach((m, i) => expect(t.of([i % 7, i, -1])).toBe(m));
    expect(t.of([1, 2])).not.toBe(t.of([1, 2, 0]));
    expect(t.of([1, 2])).toEqual([1, 2]);
  });
  it('offers reordering, loss and duplication as options, and FIFO heads only', () => {
    const bag: Msg[] = [[1], [2]];
    expect(deliveries(bag, { order: 'bag' }).map((d) => d.kind + d.msg[0])).toEqual(['deliver1', 'deliver2']);
    expect(deliveries(bag, { order: 'bag', loss: true, duplication: true }).map((d) => d.kind + d.msg[0]))
      .toEqual(['deliver1', 'duplicate1', 'lose1', 'deliver2', 'duplicate2', 'lose2']);
    const dup = deliveries(bag, { order: 'bag', duplication: true })[1];
    expect(consume(bag, dup)).toEqual([1]);
    expect(bag).toHaveLength(2);
    const ch = channels<Msg>(2);
    enqueue(ch, 1, [7]);
    enqueue(ch, 1, [8]);
    const ds = deliveries(ch, { order: 'fifo' });
    expect(ds).toEqual([{ kind: 'deliver', msg: [7], channel: 1 }]);
    consume(ch, ds[0]);
    expect(ch[1]).toEqual([[8]]);
  });
  it('answers a request in the same step (fused) or as a response of its own', () => {
    const got: Msg[] = [];
    const rsps: Msg[] = [];
    answer(true, [1, 2], rsps, (m) => got.push(m));
    answer(false, [3], rsps, (m) => got.push(m));
    expect(got).toEqual([[1, 2]]);
    expect(rsps).toEqual([[3]]);
  });
});

describe('kit/faults', () => {
  it('enables crash, restart and suspicion while each budget lasts', () => {
    let f = NO_FAULTS;
    expect(faultChoices(f, 3, { crash: 1 }, (i) => i !== 1).map((c) => `${c.kind}${c.member}`)).toEqual(['crash0', 'crash2']);
    f = applyFault(f, 'crash', 2);
    expect(isDown(f, 2)).toBe(true);
    expect(faultChoices(f, 3, { crash: 1, restart: 1, suspect: 1 }).map((c) => `${c.kind}${c.member}`))
      .toEqual(['restart2', 'suspect0', 'suspect1', 'suspect2']);
    f = applyFault(applyFault(f, 'restart', 2), 'suspect', 0);
    expect([isDown(f, 2), isSuspected(f, 0), isSuspected(f, 1)]).toEqual([false, true, false]);
    expect(f).toEqual([0, 1, 1, 1, 1]);
    expect(faultChoices(f, 3, { crash: 1, restart: 1, suspect: 1 })).toEqual([]);
    expect(NO_FAULTS).toEqual([0, 0, 0, 0, 0]); // never changed in place
  });
});

describe('kit/state', () => {
  it('copies once and changes the copy; sorted sets are canonical and shared when unchanged', () => {
    const s = { xs: [1, 3] };
    const t = produce(s, (v) => ({ xs: v.xs.slice() }), (d) => { d.xs.push(4); });
    expect([s.xs, t.xs]).toEqual([[1, 3], [1, 3, 4]]);
    expect(addSorted([1, 3], 2)).toEqual([1, 2, 3]);
    const same = [1, 3];
    expect(addSorted(same, 3)).toBe(same);
    expect(addSorted(['2:5', '1:9'], '10:1')).toEqual(['10:1', '2:5', '1:9'].sort());
    expect(removeSorted([1, 2, 3], 2)).toEqual([1, 3]);
  });
  it('withAt replaces one entry in a new array, and gives the same array when nothing changes', () => {
    const xs = Object.freeze([1, 2, 3]);
    expect(withAt(xs, 1, 2)).toBe(xs);
    expect(withAt(xs, 1, 5)).toEqual([1, 5, 3]);
    expect(xs).toEqual([1, 2, 3]);
  });
  it('freezing: a step that changes a part its copy shares throws; one that copies it does not', () => {
    type St = { xs: number[]; shared: number[] };
    const m = (copyShared: boolean): Machine<St, { label: string }> => ({
      init: () => [{ xs: [0], shared: [0] }],
      actions: (s) => (s.xs.length < 3 ? [{ label: 'push' }] : []),
      next: (s, _a) => {
        const d = { xs: s.xs.slice(), shared: copyShared ? s.shared.slice() : s.shared };
        d.xs.push(1);
        d.shared.push(1);
        return d;
      },
      invariants: {},
    });
    expect(exploreSync(freezing(m(true))).states).toBe(3);
    expect(() => exploreSync(freezing(m(false)))).toThrow(TypeError);
  });
  it('rewritten leaves the record as it was: the same values, lists and records, and no new field', () => {
    const list = [1, 2];
    const inner = { k: 1 };
    const o = { n: 3, b: true, s: 'idle', e: '', xs: list, r: inner, z: null as null | { k: number } };
    expect(rewritten(o)).toBe(o);
    expect(o).toEqual({ n: 3, b: true, s: 'idle', e: '', xs: [1, 2], r: { k: 1 }, z: null });
    expect(o.xs).toBe(list);
    expect(o.r).toBe(inner);
    expect(Object.keys(o)).toEqual(['n', 'b', 's', 'e', 'xs', 'r', 'z']);
  });
});

describe('kit/history', () => {
  // Two clients; client 0 writes 1, client 1 reads; a bug lets the read return 1 before the write was invoked.
  interface S { pend: number[]; done: number[]; reg: number; out: number }
  type A = { label: string; c: number; kind: 'inv' | 'ret' };
  const toy = (buggy: boolean): Machine<S, A> => ({
    init: () => [{ pend: [0, 0], done: [0, 0], reg: 0, out: -1 }],
    actions: (s) => [0, 1].flatMap((c): A[] => (s.done[c] ? [] : s.pend[c] ? [{ label: `ret(${c})`, c, kind: 'ret' }] : [{ label: `inv(${c})`, c, kind: 'inv' }])),
    next: (s, a) => {
      const d = { pend: s.pend.slice(), done: s.done.slice(), reg: s.reg, out: s.out };
      if (a.kind === 'inv') d.pend[a.c] = 1;
      else {
        d.pend[a.c] = 0;
        d.done[a.c] = 1;
        if (a.c === 0) d.reg = 1;
        else d.out = buggy ? 1 : d.reg;
      }
      return d;
    },
    invariants: {},
    history: clientHistory<S, A>({
      model: register, clients: 2,
      invoked: (_b, a) => (a.kind === 'inv' ? { client: a.c, input: a.c === 0 ? registerOp.write(1) : registerOp.read() } : null),
      pending: (s, c) => s.pend[c] === 1,
      output: (s, c) => (c === 1 ? (s.out === 0 ? null : s.out) : null),
    }),
  });
  it('records invokes and returns for the engine\'s monitor, which catches the bug', () => {
    expect(exploreSync(toy(false), { linearizability: 'incremental' }).status).toBe('holds');
    const r = exploreSync(toy(true), { linearizability: 'incremental' });
    expect(r.status).toBe('violation');
    expect(r.violations[0].property).toBe('linearizability');
  });
});

describe('kit/object-ghost', () => {
  // A register with initial value 0; reads return the value.
  const reg: SlotModel = { init: 0, apply: (s, op) => (op.f === 'write' ? [op.v, 0] : [s, s]), readOnly: (op) => op.f === 'read', describe: (op) => op.f };
  const op = (c: number, f: string, v = 0) => ({ c, f, k: 0, v, x: false });
  it('accepts a read of a concurrent write and rejects new-then-old', () => {
    let m = monInvoke(reg, monInit(reg), op(0, 'write', 1));
    m = monInvoke(reg, m, op(1, 'read'));
    m = monReturn(reg, m, 1, 1);
    expect(m.bad).toBe('');
    m = monInvoke(reg, m, op(1, 'read'));
    m = monReturn(reg, m, 1, 0);
    expect(m.bad).toMatch(/no linearization/);
  });
  it('the register kept by client rejects a read of a value not yet written, and keeps operations in client order', () => {
    const w1 = op(0, 'write', 1);
    let m = monInvoke(registerSlot, monInit(registerSlot), op(1, 'read'));
    expect(monReturn(registerSlot, m, 1, 1).bad).toMatch(/no linearization/);
    m = monInvoke(registerSlot, m, w1);
    expect(m.ops.map((o) => o.c)).toEqual([0, 1]);
    // the same two operations invoked in the other order: the same monitor
    const other = monInvoke(registerSlot, monInvoke(registerSlot, monInit(registerSlot), w1), op(1, 'read'));
    expect(other).toEqual(m);
    expect(monReturn(registerSlot, m, 1, 1).bad).toBe('');
  });
  it('works out each (monitor, event) once, and only equal events share a successor', () => {
    // Values on either side of where event keys change form (numbers packed into one key,
    // strings beyond), all met from the same monitors: a write of x then a read returning y
    // is linearizable exactly when x = y, and each invoke's operation is the one kept.
    const values = [0, 1, -1, 1023, 1024, -(1 << 19), (1 << 19) - 1, 1 << 19, 2 ** 39, -(2 ** 39), 2.5];
    const m0 = monInit(reg);
    for (const k of [0, 1023, 1024]) {
      for (const x of values) {
        for (const y of values) {
          const w = { c: 0, f: 'write', k, v: x, x: false };
          let m = monInvoke(reg, m0, w);
          expect(m.ops).toEqual([w]);
          m = monReturn(reg, m, 0, 0);
          m = monInvoke(reg, m, op(1, 'read'));
          m = monReturn(reg, m, 1, y);
          expect(m.bad === '').toBe(x === y);
        }
      }
    }
  });
  it('lets a crashed write take effect later, once', () => {
    let m = monInvoke(reg, monInit(reg), op(0, 'write', 1));
    m = monCrash(reg, m, 0);
    for (const out of [0, 1, 1]) {
      m = monInvoke(reg, m, op(1, 'read'));
      m = monReturn(reg, m, 1, out);
      expect(m.bad).toBe('');
    }
    m = monInvoke(reg, m, op(2, 'write', 2));
    m = monReturn(reg, m, 2, 0);
    m = monInvoke(reg, m, op(1, 'read'));
    m = monReturn(reg, m, 1, 1);
    expect(m.bad).toMatch(/no linearization/);
  });
});

describe('words (Machine.encode for plain-object specs)', () => {
  it('writes into the buffer, reports -1 when the words do not fit, and encodes a shared part once', () => {
    let calls = 0;
    const part = cachedWords<{ xs: number[] }>((w, p) => {
      calls++;
      w.ints(p.xs);
    });
    const encode = wordEncoder<{ a: number | null; p: { xs: number[] } }>((w, s) => {
      w.intOrNull(s.a);
      w.words(part(s.p));
    });
    const shared = { xs: [5, 6] };
    const big = new Int32Array(8);
    expect(encode({ a: null, p: shared }, big)).toBe(5);
    expect([...big.subarray(0, 5)]).toEqual([0, 0, 2, 5, 6]);
    expect(encode({ a: 0, p: shared }, big)).toBe(5);
    expect([...big.subarray(0, 5)]).toEqual([1, 0, 2, 5, 6]);
    expect(calls).toBe(1);
    expect(encode({ a: 1, p: shared }, new Int32Array(4))).toBe(-1);
  });
  it('cachedWords over a ByteWords gives the words the writer gives directly, once per object, its scratch grown as needed', () => {
    let calls = 0;
    const put = (w: ByteWords, p: { xs: number[] }) => w.ints(p.xs);
    const part = cachedWords((w: ByteWords, p: { xs: number[] }) => {
      calls++;
      put(w, p);
    }, new ByteWords());
    const long = { xs: Array.from({ length: 500 }, (_, i) => i * 37) }; // past the 64-word scratch
    const direct = new Int32Array(1024);
    const w = new ByteWords().begin(direct);
    put(w, long);
    const n = w.end();
    expect([...part(long)]).toEqual([...direct.subarray(0, n)]);
    expect(calls).toBe(3); // 64 words too few, then 256, then 1,024 enough
    expect(part(long)).toBe(part(long));
    expect(calls).toBe(3);
  });
  it('KeptWords over a WordWriter copies the words of the object last written in a slot, and writes any other object afresh', () => {
    let writes = 0;
    const slots = new KeptWords((w: WordWriter, p: { xs: number[] }) => {
      writes++;
      w.ints(p.xs);
    });
    const encode = wordEncoder<{ xs: number[] }[]>((w, s) => s.forEach((p, i) => slots.write(w, p, i)));
    const a = { xs: [1, 2] };
    const b = { xs: [3] };
    const out = new Int32Array(16);
    const words = (s: { xs: number[] }[]) => [...out.subarray(0, encode(s, out))];
    expect(words([a, b])).toEqual([2, 1, 2, 1, 3]);
    expect(words([a, { xs: [4, 5, 6] }])).toEqual([2, 1, 2, 3, 4, 5, 6]);
    expect(writes).toBe(3); // a's words copied the second time
    expect(words([b, a])).toEqual([1, 3, 2, 1, 2]); // other objects in the slots: written
    expect(encode([a, { xs: [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7] }], out)).toBe(-1);
    expect(words([a, b])).toEqual([2, 1, 2, 1, 3]);
  });
  it('ByteWords: different lists of integers (each size class and its bounds) give different words; -1 when they do not fit', () => {
    const edges = [-(2 ** 31), -9, -8, -1, 0, 1, 231, 232, 233, 487, 488, 4071, 4072, 65535, 2 ** 31 - 1];
    const lists: number[][] = [[]];
    for (const x of edges) {
      lists.push([x]);
      for (const y of edges) lists.push([x, y], [x, 0, y]);
    }
    const w = new ByteWords();
    const out = new Int32Array(16);
    const seen = new Map<string, string>();
    for (const xs of lists) {
      w.begin(out).ints(xs);
      const key = out.subarray(0, w.end()).join(',');
      expect(seen.get(key), `${xs} and ${seen.get(key)}`).toBeUndefined();
      seen.set(key, xs.join(','));
    }
    expect(seen.size).toBe(lists.length);
    w.begin(out).ints([0, 1, 2]); // one word: length and three bytes
    expect(w.end()).toBe(1);
    w.begin(new Int32Array(2)).ints([-(2 ** 31), -(2 ** 31)]); // 1 + 5 + 5 bytes: three words
    expect(w.end()).toBe(-1);
  });
  it('ByteWords: nulls, integers and lists of booleans in a row give different words for different rows', () => {
    const rows: { a: number | null; bs: boolean[]; c: number | null }[] = [];
    for (const a of [null, 0, 1, -1, 300]) {
      for (const bs of [[], [false], [true], [false, true], [true, false]]) {
        for (const c of [null, 0, 1]) rows.push({ a, bs, c });
      }
    }
    const w = new ByteWords();
    const out = new Int32Array(8);
    const seen = new Set<string>();
    for (const r of rows) {
      w.begin(out);
      w.intOrNull(r.a);
      w.bools(r.bs);
      w.intOrNull(r.c);
      seen.add(out.subarray(0, w.end()).join(','));
    }
    expect(seen.size).toBe(rows.length);
  });
  it('KeptWords over ByteWords copies the words of an object met again in its slot, the same words as writing it afresh', () => {
    let writes = 0;
    const put = (w: ByteWords, p: { xs: number[] }) => {
      writes++;
      w.ints(p.xs);
    };
    const kept = new KeptWords(put, 2);
    const bw = new ByteWords();
    const out = new Int32Array(16);
    const words = (s: { xs: number[] }[], fresh = false) => {
      bw.begin(out).int(s.length);
      s.forEach((p, i) => (fresh ? (bw.align(), put(bw, p), bw.align()) : kept.write(bw, p, i)));
      return [...out.subarray(0, bw.end())];
    };
    const a = { xs: [1, 5000] };
    const b = { xs: [3] };
    const c = { xs: [4, 4] };
    expect(words([a, b])).toEqual(words([a, b], true));
    writes = 0;
    expect(words([a, c])).toEqual(words([a, c], true));
    expect(words([a, b])).toEqual(words([a, b], true));
    expect(writes).toBe(5); // kept: c alone (a, and b in its slot's other way, copied); afresh: four
    expect(words([b, a])).toEqual(words([b, a], true)); // other objects in the slots: written
  });
  it('sameStates finds two different states with the same words', () => {
    // a counter 0..3 whose encoding forgets the top bit: 0 and 2 collide
    const m = { init: () => [0], actions: (s: number) => (s < 3 ? [s] : []), next: (s: number) => s + 1 };
    const lossy = wordEncoder<number>((w, s) => w.int(s & 1));
    expect(sameStates(m, String, lossy).mismatch?.why).toBe('different states encode to the same words');
    expect(sameStates(m, String, wordEncoder<number>((w, s) => w.int(s)))).toEqual({ states: 4 });
  });
});
