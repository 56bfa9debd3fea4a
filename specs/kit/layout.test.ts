// The layout fast path (layout-search.ts, specs/kit/layout.ts) against the plain search on
// the same model written with plain objects, and against the reference BFS: the same
// counts, depths, verdicts and counterexamples, under budgets, bounds and both stores; and
// layout states through the paths that cannot step them in place (a monitor, workers).

import { describe, expect, it } from 'vitest';
import { racyCounter } from '../../checkers/explore/fixtures/racy-counter.ts';
import { racyCounterLayout } from './racy-counter-layout.ts';
import { bool, byte, bytes, countedAdd, countedHas, countedInsert, countedRemove, countedRemoveAt, countedRemoveWhere, countedSort, int, ints, layout, layoutMachine } from './layout.ts';
import { explore, exploreSync } from '../../checkers/explore/index.ts';
import { layoutOf } from '../../checkers/explore/layout-search.ts';
import { prepare } from '../../checkers/explore/prepare.ts';
import { clientHistory, register, registerOp } from './history.ts';
import { referenceBfs } from '../../checkers/explore/reference.ts';
import type { ExploreOptions, ExploreResult } from '../../checkers/explore/types.ts';

const summary = (r: ExploreResult) => ({
  status: r.status,
  states: r.states,
  transitions: r.transitions,
  depth: r.depth,
  incompleteReason: r.incompleteReason,
  violations: r.violations.map((v) => ({ property: v.property, message: v.message, labels: v.steps.map((s) => s.action.label), states: v.steps.map((s) => s.state) })),
  coverage: r.coverage,
});

/**
 * The racy counter as racy-counter-layout.ts wrote it before its fields were bytes: ints
 * throughout; `pad` more words, always 0, make its states long (layout-search.ts copies a
 * state of 24 words or more with TypedArray.set and keeps its successors as stepped).
 */
function racyCounterInts(n: number, k: number, pad = 0) {
  const Racy = layout({ x: int, step: ints(n), t: ints(n), done: ints(n), pad: ints(pad) });
  const acts = Array.from({ length: n }, (_, p) => [
    { label: `p${p}.read`, p, read: true },
    { label: `p${p}.write`, p, read: false },
  ]);
  return layoutMachine(Racy, {
    init: () => [{ x: 0 }],
    actions(s) {
      const out = [];
      for (let p = 0; p < n; p++) if (s.done[p] !== k) out.push(acts[p][s.step[p]]);
      return out;
    },
    step(d, a) {
      if (a.read) {
        d.t[a.p] = d.x;
        d.step[a.p] = 1;
      } else {
        d.x = d.t[a.p] + 1;
        d.t[a.p] = 0;
        d.step[a.p] = 0;
        d.done[a.p]++;
      }
    },
    invariants: {},
  });
}

describe('layout fields', () => {
  // Word scalars first, then the byte fields four to a word, then the int arrays: x, flag, then
  // b, bs (6) in 2 words, then ws (3): 2 + 2 + 3 words.
  const L = layout({ b: byte, x: int, bs: bytes(6), flag: bool, ws: ints(3) });

  it('packs bytes four to a word after the word scalars, and reads back what was written', () => {
    expect(L.words).toBe(7);
    expect(L.offsets).toEqual({ x: 0, flag: 1, b: 8, bs: 9, ws: 4 });
    const s = L.make({ b: 255, x: -7, bs: [1, 2, 3, 4, 5, 250], flag: true, ws: [9, -9, 1 << 30] });
    expect(L.plain(s)).toEqual({ b: 255, x: -7, bs: [1, 2, 3, 4, 5, 250], flag: true, ws: [9, -9, 1 << 30] });
    s.b = 0;
    s.bs[5] = 7;
    s.x = 3;
    const t = L.fromWords(Array.from(s.w));
    expect(L.plain(t)).toEqual({ b: 0, x: 3, bs: [1, 2, 3, 4, 5, 7], flag: true, ws: [9, -9, 1 << 30] });
    expect(JSON.stringify(L.copy(t))).toBe(JSON.stringify(L.plain(t)));
    // The last word's spare byte stays 0: equal states have equal words.
    expect(Array.from(L.make({ b: 1 }).w)).toEqual(Array.from(L.fromWords(Array.from(L.make({ b: 1 }).w)).w));
    expect(L.make().w.every((w) => w === 0)).toBe(true);
  });

  it('refuses a byte outside 0..255 rather than wrapping it', () => {
    const s = L.make();
    for (const v of [256, -1, 1.5, NaN]) expect(() => (s.b = v)).toThrow(/holds a byte/);
    expect(() => L.make({ bs: [0, 0, 0, 0, 0, 300] })).toThrow(/holds bytes/);
    expect(s.b).toBe(0);
    expect(() => racyCounterLayout(16, 16)).toThrow(/over a byte's 255/);
  });
});

describe('the typed state layout', () => {
  it('takes the fast path, and steps exactly as the plain racy counter under every option', () => {
    expect(layoutOf(racyCounterLayout(2, 2))).toBeDefined();
    const options: ExploreOptions[] = [{}, { store: 'exact' }, { maxStates: 100 }, { maxDepth: 5 }, { maxDepth: 0 }, { strategy: 'dfs' }];
    // (3, 2) and the budgets cover growth of the frontier and the batch boundaries.
    for (const [n, k] of [
      [2, 2],
      [3, 2],
    ]) {
      for (const o of options) expect(summary(exploreSync(racyCounterLayout(n, k), o))).toEqual(summary(exploreSync(racyCounter(n, k), o)));
      expect(exploreSync(racyCounterLayout(n, k)).states).toBe(referenceBfs(racyCounter(n, k)).states);
      // The same counter on int fields (7 or 10 words, not 4), and padded to 30 or 33: the same search.
      for (const o of [{}, { maxStates: 100 }]) expect(summary(exploreSync(racyCounterInts(n, k), o))).toEqual(summary(exploreSync(racyCounter(n, k), o)));
      for (const o of options) expect(summary(exploreSync(racyCounterInts(n, k, 23), o))).toEqual(summary(exploreSync(racyCounter(n, k), o)));
    }
    // Levels of 879, 1,217, 924 and 1,035 states: a frontier (1,024 at first) grows while
    // the other, reused from two levels back, still holds an older level's words.
    expect(summary(exploreSync(racyCounterLayout(3, 3)))).toEqual(summary(exploreSync(racyCounter(3, 3))));
    expect(summary(exploreSync(racyCounterInts(3, 3, 23)))).toEqual(summary(exploreSync(racyCounter(3, 3))));
  });

  it('finds the same shortest counterexamples, shown as plain data', () => {
    for (const o of [{}, { all: true }, { store: 'exact' as const }]) {
      const fast = summary(exploreSync(racyCounterLayout(3, 1, { lostUpdateIsBug: true }), o));
      expect(fast).toEqual(summary(exploreSync(racyCounter(3, 1, { lostUpdateIsBug: true }), o)));
      expect(fast.violations[0].labels).toEqual(referenceBfs(racyCounter(3, 1, { lostUpdateIsBug: true })).violation!.path.map((a) => a.label));
    }
  });

  it('gives the same counts through the plain path (a reduction replaced actions)', () => {
    const m = racyCounterLayout(3, 2);
    const wrapped = { ...m, actions: (s: Parameters<typeof m.actions>[0]) => m.actions(s) };
    expect(layoutOf(wrapped)).toBeUndefined();
    expect(summary(exploreSync(wrapped))).toEqual(summary(exploreSync(racyCounter(3, 2))));
  });

  // Worker start-up costs seconds: the full tier only.
  it.runIf(process.env.INTERLEAVE_FULL === '1')('sends layout states between worker threads as words', async () => {
    const module = new URL('./racy-counter-layout.ts', import.meta.url).href;
    const r = await explore({ module, export: 'racyCounterLayout', args: [3, 3] }, { workers: 2, tableCapacity: 64 });
    expect([r.status, r.states, r.transitions, r.depth, r.workers]).toEqual(['holds', 7646, 18843, 18, 2]);
  });
});

/**
 * A register on words with a history for the engine's linearizability monitor: client p
 * writes p + 1, then reads. `late`: a write returns before it takes effect (its effect a
 * step of its own), so a later read can miss it: not linearizable.
 */
function wordRegister(n: number, late: boolean) {
  const Reg = layout({ x: int, pc: ints(n), got: ints(n), due: ints(n) });
  type Kind = 'invokeWrite' | 'write' | 'apply' | 'invokeRead' | 'read';
  const act = (p: number, kind: Kind) => ({ label: `c${p}.${kind}`, p, kind });
  const acts = Array.from({ length: n }, (_, p) => ({
    byPc: [act(p, 'invokeWrite'), act(p, 'write'), act(p, 'invokeRead'), act(p, 'read')],
    apply: act(p, 'apply'),
  }));
  type A = ReturnType<typeof act>;
  type S = Parameters<Parameters<typeof layoutMachine<typeof Reg.fields, A>>[1]['step']>[0];
  const m = layoutMachine(Reg, {
    init: () => [{}],
    actions(s) {
      const out: A[] = [];
      for (let p = 0; p < n; p++) {
        if (s.pc[p] < 4) out.push(acts[p].byPc[s.pc[p]]);
        if (s.due[p]) out.push(acts[p].apply);
      }
      return out;
    },
    step(d, a) {
      const p = a.p;
      if (a.kind === 'apply') {
        d.x = p + 1;
        d.due[p] = 0;
        return;
      }
      if (a.kind === 'write') {
        if (late) d.due[p] = 1;
        else d.x = p + 1;
      }
      if (a.kind === 'read') d.got[p] = d.x;
      d.pc[p]++;
    },
    invariants: {},
    mayStop: () => true,
  });
  m.history = clientHistory<S, A>({
    model: register,
    clients: n,
    invoked: (_b, a) => (a.kind === 'invokeWrite' ? { client: a.p, input: registerOp.write(a.p + 1) } : a.kind === 'invokeRead' ? { client: a.p, input: registerOp.read() } : null),
    pending: (s, c) => s.pc[c] === 1 || s.pc[c] === 3,
    output: (after, c) => (after.pc[c] === 4 ? (after.got[c] === 0 ? null : after.got[c]) : null),
  });
  return m;
}

describe('layout states under the linearizability monitor', () => {
  const plainPath = <M extends ReturnType<typeof wordRegister>>(m: M): M => ({ ...m, actions: (s: Parameters<M['actions']>[0]) => m.actions(s) });

  it('keeps the monitor beside the words: the fast path, with the plain path\'s counts and counterexamples', () => {
    for (const late of [false, true]) {
      for (const o of [{}, { all: true }, { store: 'exact' as const }, { maxStates: 40 }, { strategy: 'dfs' as const }]) {
        const m = wordRegister(3, late);
        expect(layoutOf(prepare(m, o))).toBeDefined();
        expect(layoutOf(prepare(plainPath(m), o))).toBeUndefined();
        const fast = summary(exploreSync(m, o));
        expect(fast).toEqual(summary(exploreSync(plainPath(m), o)));
        if (!('maxStates' in o)) expect(fast.status).toBe(late ? 'violation' : 'holds');
        if (late && !('maxStates' in o)) expect(fast.violations[0].message).toMatch(/^the history is not linearizable against the register model: 1\. c\d calls write/);
      }
    }
  });

  it('with workers asked for, gives the counts of one thread (a machine object runs on one; a module target: cli/explore.test.ts)', async () => {
    const m = wordRegister(2, true);
    const r = await explore(m, { workers: 2 });
    expect(summary(r)).toEqual(summary(exploreSync(plainPath(m))));
    expect(r.notes?.join(' ')).toMatch(/one thread/);
  });
});

describe('counted lists', () => {
  it('keep a sorted multiset or set in ints(n) with a count, the unused entries 0', () => {
    const xs = new Int32Array(4);
    let n = 0;
    for (const x of [5, 2, 5, 3]) n = countedInsert(xs, n, x);
    expect([n, Array.from(xs)]).toEqual([4, [2, 3, 5, 5]]);
    expect(() => countedInsert(xs, n, 1)).toThrow(/full/);
    n = countedRemove(xs, n, 5);
    expect([n, Array.from(xs)]).toEqual([3, [2, 3, 5, 0]]);
    expect([countedHas(xs, n, 5), countedHas(xs, n, 0), countedHas(xs, n, 4)]).toEqual([true, false, false]);
    expect(countedAdd(xs, n, 3)).toBe(3); // a set: already there
    n = countedAdd(xs, n, 4);
    expect(Array.from(xs)).toEqual([2, 3, 4, 5]);
    n = countedRemoveAt(xs, n, 0);
    expect([n, Array.from(xs)]).toEqual([3, [3, 4, 5, 0]]);
    expect(() => countedRemove(xs, n, 9)).toThrow(/no 9/);
    xs[0] = 9; // changed in place (a message renumbered), then sorted again
    countedSort(xs, n);
    expect(Array.from(xs)).toEqual([4, 5, 9, 0]);
    n = countedRemoveWhere(xs, n, (x) => x % 2 === 1); // every entry it picks, the rest in order
    expect([n, Array.from(xs)]).toEqual([1, [4, 0, 0, 0]]);
  });
});
