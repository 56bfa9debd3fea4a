// WGL against the brute-force enumerator on thousands of random small histories of every
// generated family (crashed operations included, values unique or repeated), with and
// without the search's reductions; and the checker's modes against each other
// (partitioned or not, one thread or two).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bruteForce, bruteForceNondeterministic, historyShape, isLinearization, referenceModel, wholeModel as whole } from './brute-force.ts';
import { FAMILIES, generateHistory, type Family, type GenerateOptions } from './generate.ts';
import { checkHistory, checkHistorySync, fromNondeterministic, models } from './index.ts';
import type { Model, NondeterministicModel, Operation } from './types.ts';
import { UNKNOWN } from './types.ts';
import { wglSearch } from './wgl.ts';

/** Small histories: up to `maxOps` operations, 1 to 4 clients, crashes and corruptions often. */
function smallShape(family: Family, maxOps = 10): fc.Arbitrary<GenerateOptions> {
  return historyShape(family, { maxOps, maxClients: 4, crashRates: [0, 0.1, 0.3, 0.5] });
}

/** The model with its hooks counted, to see that the tests reach them. */
function spied(model: Model, seen: Record<string, number>): Model {
  const m: Model = { ...model };
  if (model.unobserved) {
    m.unobserved = (h) => {
      const r = model.unobserved!(h);
      if (r.some((x, i) => x && h[i].ret === undefined)) seen.dropped++;
      return r;
    };
  }
  if (model.advice) {
    m.advice = (h) => {
      const a = model.advice!(h);
      return a === undefined
        ? undefined
        : (s, i, o) => {
            const r = a(s, i, o);
            if (r !== undefined) seen[r]++;
            return r;
          };
    };
  }
  if (model.refute) {
    m.refute = (h) => {
      const r = model.refute!(h);
      if (r !== undefined) seen.refuted++;
      return r;
    };
  }
  return m;
}

describe('WGL agrees with brute force', () => {
  for (const family of FAMILIES) {
    it(`${family}: same verdict with and without reductions, and every ok comes with a valid linearization`, () => {
      const seen: Record<string, number> = { ok: 0, illegal: 0, crashed: 0, dropped: 0, forced: 0, useless: 0, dead: 0, refuted: 0 };
      const model = spied(models[whole[family]], seen);
      const oracle = referenceModel(family);
      fc.assert(
        fc.property(smallShape(family), (shape) => {
          const { history } = generateHistory(shape);
          const expected = bruteForce(oracle, history).linearizable ? 'ok' : 'illegal';
          seen[expected]++;
          if (history.some((o) => o.ret === undefined)) seen.crashed++;
          // The second order of check.ts's Rounds where the model gives `conditional`.
          for (const options of model.conditional ? [{}, { reductions: false }, { conditional: true }] : [{}, { reductions: false }]) {
            const r = wglSearch(model, history, options);
            expect(r.verdict).toBe(expected);
            if (r.verdict === 'ok') expect(isLinearization(model, history, r.linearization!)).toBe(true);
          }
          // The registered model (kv by key) through the whole checker, verbose.
          expect(checkHistorySync(models[generateHistory(shape).model], history, { verbose: true }).verdict).toBe(expected);
        }),
        { numRuns: 1000, seed: 20261121 },
      );
      // The generator must exercise both verdicts and crashed operations, and the hooks.
      expect(seen.ok).toBeGreaterThan(100);
      expect(seen.illegal).toBeGreaterThan(100);
      expect(seen.crashed).toBeGreaterThan(300);
      if (models[whole[family]].unobserved) expect(seen.dropped).toBeGreaterThan(20);
      if (models[whole[family]].refute) expect(seen.refuted).toBeGreaterThan(20);
      if (family === 'queue') {
        expect(seen.forced).toBeGreaterThan(20);
        expect(seen.useless).toBeGreaterThan(20);
        expect(seen.dead).toBeGreaterThan(20);
      }
    });
  }
});

describe('models refute only what has no linearization', () => {
  // The contract of Model.refute: a proof, so the history is not linearizable.
  for (const family of FAMILIES.filter((f) => models[whole[f]].refute !== undefined)) {
    it(`${family}: every refuted history is illegal by brute force`, () => {
      const model = models[whole[family]];
      const oracle = referenceModel(family);
      let refuted = 0;
      fc.assert(
        fc.property(smallShape(family, 9), (shape) => {
          const { history } = generateHistory(shape);
          const r = model.refute!(history);
          if (r === undefined) return;
          refuted++;
          expect(history[r.operation].ret).toBeDefined();
          expect(bruteForce(oracle, history).linearizable).toBe(false);
        }),
        { numRuns: 600, seed: 23 },
      );
      expect(refuted).toBeGreaterThan(30);
    });
  }
});

describe('a proof ends the search only where the longest cannot grow', () => {
  // wgl.ts stops a search with the model's proof once its longest holds every determinate
  // operation called by the refuted one's return: the same longest as the search without
  // the proof, which tries everything.
  for (const family of FAMILIES.filter((f) => models[whole[f]].refute !== undefined)) {
    it(`${family}: the longest with the proof is the longest without it`, () => {
      const model = models[whole[family]];
      const without = { ...model, refute: undefined };
      let shorter = 0;
      const shape = historyShape(family, { maxOps: 40, maxClients: 4, crashRates: [0, 0.05, 0.2] });
      fc.assert(
        fc.property(shape, (shape) => {
          const { history } = generateHistory(shape);
          // The proof asked at the first dead end, so that it comes before the search has
          // tried everything.
          const a = wglSearch(model, history, { refuteAfter: 0 });
          if (a.proof === undefined) return;
          const b = wglSearch(without, history);
          expect(a.verdict).toBe('illegal');
          expect(b.verdict).toBe('illegal');
          expect(a.longest).toEqual(b.longest);
          if (a.explored < b.explored) shorter++;
        }),
        { numRuns: 200, seed: 29 },
      );
      expect(shorter).toBeGreaterThan(10);
    });
  }
});

describe('kv refutes only what has no linearization, up to 100 operations', () => {
  // Longer histories than the small shapes, with the clients that make stale gets hard to
  // search (issue 21: kv, 64 clients, a stale get); the oracle per key, memoised.
  it('every refuted kv history of 20-100 operations is illegal by brute force', () => {
    const model = models['kv-append-unpartitioned'];
    const oracle = referenceModel('kv');
    let refuted = 0;
    let corrupted = 0;
    for (let seed = 0; seed < 30; seed++) {
      const ops = 20 + ((seed * 37) % 81);
      const g = generateHistory({ family: 'kv', ops, clients: [2, 4, 8][seed % 3], keys: 2, seed, corrupt: seed % 4 === 0 ? 0 : 1, crashRate: 0.05, unique: seed % 5 !== 0 });
      if (g.corruptions.length > 0) corrupted++;
      const r = model.refute!(g.history);
      if (r === undefined) continue;
      refuted++;
      const byKey = new Map<unknown, Operation[]>();
      for (const op of g.history) byKey.set((op.input as { key: string }).key, [...(byKey.get((op.input as { key: string }).key) ?? []), op]);
      expect([...byKey.values()].every((h) => bruteForce(oracle, h, { memo: true }).linearizable), `seed ${seed}`).toBe(false);
    }
    expect(refuted).toBeGreaterThan(corrupted / 3);
  });

  it('every refuted kv key of 6-10 operations on 16-64 clients (where AfterPut reads orders) is illegal by brute force', () => {
    // Keys of up to 10 operations, all concurrent: where AfterPut reads orders from the
    // gets' strings; repeated values in a third (no order read then).
    const model = models['kv-append'];
    const oracle = referenceModel('kv');
    let refuted = 0;
    for (let seed = 0; seed < 200; seed++) {
      const g = generateHistory({ family: 'kv', ops: 6 + (seed % 5), clients: [16, 64][seed % 2], keys: 1, seed, corrupt: 1 + (seed % 2), crashRate: [0, 0.05, 0.2][seed % 3], unique: seed % 3 !== 0 });
      const r = model.refute!(g.history);
      if (r === undefined) continue;
      refuted++;
      expect(bruteForce(oracle, g.history, { memo: true }).linearizable, `seed ${seed}`).toBe(false);
    }
    expect(refuted).toBeGreaterThan(50);
  });
});

describe('kv refutes a pair of gets only where no partial linearization holds both', () => {
  // A stale get G of put P's value, after append A (concurrent with P) returned; get L shows
  // A after P and returned after G was called: the proof names both. Around that shape,
  // times drawn at random and a few other updates and gets (some crashed, some with another
  // string). Every proof, of one get or of a pair, is checked by a search of the partial
  // linearizations (operations closed under "returned before the other was called") and the
  // history by brute force; the search's longest with the proof as without it.
  it('no partial linearization holds the operation named, nor both of a pair', () => {
    const model = models['kv-append'];
    const without = { ...model, refute: undefined };
    const oracle = referenceModel('kv');
    let seed = 4242;
    const rand = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
    let pairs = 0;
    let refuted = 0;
    for (let round = 0; round < 400; round++) {
      const pRet = 60 + rand(140);
      const aCall = 10 + rand(pRet - 10);
      const aRet = aCall + 1 + rand(60);
      const gCall = aRet + 1 + rand(80);
      const history: Operation[] = [
        { client: 0, input: { f: 'put', key: 'k', value: 'p;' }, call: 0, ret: pRet, output: null },
        { client: 1, input: { f: 'append', key: 'k', value: 'a;' }, call: aCall, ret: aRet, output: null },
        { client: 2, input: { f: 'get', key: 'k' }, call: aRet - 30 + rand(60), ret: gCall + rand(200), output: rand(4) === 0 ? 'p;a;e0;' : 'p;a;' },
        { client: 3, input: { f: 'get', key: 'k' }, call: gCall, ret: gCall + 1 + rand(80), output: 'p;' },
      ];
      for (let e = 0, extra = rand(4); e < extra; e++) {
        const call = rand(300);
        const f = ['append', 'append', 'put', 'get'][rand(4)];
        const crashed = f !== 'get' && rand(4) === 0;
        const op: Operation = { client: 4 + e, input: f === 'get' ? { f, key: 'k' } : { f, key: 'k', value: `${f === 'put' ? 'q' : 'e'}${e};` }, call };
        if (!crashed) {
          op.ret = call + 1 + rand(100);
          op.output = f === 'get' ? ['p;a;', 'p;', `q${e};`, 'p;a;e0;'][rand(4)] : null;
        }
        history.push(op);
      }
      history.sort((x, y) => x.call - y.call);
      const r = model.refute!(history);
      if (r === undefined) continue;
      refuted++;
      if (r.and !== undefined) pairs++;
      expect(holdsAll(oracle, history, r.and === undefined ? [r.operation] : [r.operation, r.and]), `round ${round}`).toBe(false);
      expect(bruteForce(oracle, history, { memo: true }).linearizable, `round ${round}`).toBe(false);
      const a = wglSearch(model, history, { refuteAfter: 0 });
      expect(a.longest).toEqual(wglSearch(without, history).longest);
    }
    expect(pairs).toBeGreaterThan(40);
    expect(refuted).toBeGreaterThan(pairs);
  });
});

/** Whether some partial linearization (closed under "returned before the other was called") holds every target. */
function holdsAll(model: Model, history: readonly Operation[], targets: readonly number[]): boolean {
  const n = history.length;
  const dead = new Set<string>();
  let want = 0;
  for (const t of targets) want |= 1 << t;
  const search = (placed: number, state: unknown): boolean => {
    if ((placed & want) === want) return true;
    const key = `${placed}|${JSON.stringify(state)}`;
    if (dead.has(key)) return false;
    for (let i = 0; i < n; i++) {
      if (placed & (1 << i)) continue;
      let next = true;
      for (let j = 0; j < n && next; j++) if (j !== i && !(placed & (1 << j)) && history[j].ret !== undefined && history[j].ret! < history[i].call) next = false;
      if (!next) continue;
      const r = model.step(state, history[i].input, history[i].ret === undefined ? UNKNOWN : history[i].output);
      if (r.ok && search(placed | (1 << i), r.state)) return true;
    }
    dead.add(key);
    return false;
  };
  return search(0, model.init());
}

describe('models drop only what no one observed', () => {
  // The contract of Model.unobserved: the history is linearizable iff it is without them.
  for (const family of FAMILIES) {
    it(`${family}: a history and the history without its unobserved operations get one verdict`, () => {
      const model = models[whole[family]];
      const oracle = referenceModel(family);
      let dropped = 0;
      fc.assert(
        fc.property(smallShape(family, 9), (shape) => {
          const { history } = generateHistory({ ...shape, crashRate: 0.4 });
          const gone = model.unobserved!(history);
          const kept = history.filter((o, i) => !(gone[i] && o.ret === undefined));
          dropped += history.length - kept.length;
          expect(bruteForce(oracle, kept).linearizable).toBe(bruteForce(oracle, history).linearizable);
        }),
        { numRuns: 600, seed: 17 },
      );
      expect(dropped).toBeGreaterThan(50);
    });
  }
});

describe('partitioned and unpartitioned kv agree', () => {
  it('kv-append (by key) gives the verdict of kv-append-unpartitioned', () => {
    fc.assert(
      fc.property(smallShape('kv'), (shape) => {
        const { history } = generateHistory(shape);
        const whole = checkHistorySync('kv-append-unpartitioned', history);
        const byKey = checkHistorySync('kv-append', history);
        expect(byKey.verdict).toBe(whole.verdict);
        expect(byKey.partitions.length).toBe(new Set(history.map((o) => (o.input as { key: string }).key)).size);
      }),
      { numRuns: 1000, seed: 7 },
    );
  });
});

describe('one thread and two agree', () => {
  it('checkHistory with 2 workers gives the same report as checkHistorySync', async () => {
    // Larger multi-key histories, so that there are partitions to share.
    for (const seed of [11, 12, 13, 14]) {
      const { history } = generateHistory({ family: 'kv', ops: 40, clients: 4, keys: 3, seed, crashRate: 0.1, corrupt: seed % 2 });
      const one = checkHistorySync('kv-append', history);
      const two = await checkHistory('kv-append', history, { workers: 2 });
      expect({ ...two, elapsedMs: 0 }).toEqual({ ...one, elapsedMs: 0 });
    }
  });
});

describe('nondeterministic models', () => {
  // A register whose write may be lost (the write returns, but the value may stay).
  const lossy: NondeterministicModel<number | null, { f: string; value?: number }, unknown> = {
    name: 'lossy-register',
    nondeterministic: true,
    init: () => [null],
    step(s, input, output) {
      if (input.f === 'write') return input.value === s ? [s] : [input.value!, s];
      return output === s || typeof output === 'symbol' ? [s] : [];
    },
    hash: (s) => (s === null ? -1 : s),
  };

  it('the power-set construction agrees with brute force over all successor states', () => {
    const model = fromNondeterministic(lossy);
    fc.assert(
      fc.property(smallShape('register', 8), (shape) => {
        const { history } = generateHistory(shape);
        const expected = bruteForceNondeterministic(lossy, history).linearizable ? 'ok' : 'illegal';
        expect(checkHistorySync(model, history).verdict).toBe(expected);
        expect(checkHistorySync(lossy, history).verdict).toBe(expected);
      }),
      { numRuns: 500, seed: 3 },
    );
  });

  it('a lost write explains a stale read that a register cannot', () => {
    const h: Operation[] = [
      { client: 0, input: { f: 'write', value: 1 }, call: 0, ret: 1, output: null },
      { client: 0, input: { f: 'read' }, call: 2, ret: 3, output: null },
    ];
    expect(checkHistorySync(lossy, h).verdict).toBe('ok');
    expect(checkHistorySync('register', h).verdict).toBe('illegal');
  });
});

describe('lazy frames', () => {
  // A frame built only when the search comes back to it must change nothing: the same
  // configurations, the same verdict and linearization, the same longest prefix.
  it('register, cas-register (no hint), kv and set (a hint): the same search with and without them', () => {
    let backtracked = 0;
    const families: Family[] = ['register', 'cas-register', 'kv', 'set'];
    for (let k = 0; k < 28; k++) {
      const family = families[k % 4];
      const shape = { family, ops: 60 + 7 * k, clients: [2, 4, 12, 8][(k >> 2) % 4], seed: 9100 + k, corrupt: k % 3 === 0 ? 1 : 0, crashRate: [0.005, 0.1][k % 2], tick: 1 + (k % 3) } as GenerateOptions;
      const { history } = generateHistory(shape);
      const model = models[whole[family]];
      const lazy = wglSearch(model, history, { lazyFrames: true });
      const eager = wglSearch(model, history, { lazyFrames: false });
      expect({ ...lazy, proof: undefined }).toEqual({ ...eager, proof: undefined });
      if (lazy.explored > history.length) backtracked++;
    }
    expect(backtracked).toBeGreaterThan(5);
  });

  it('cas-register in the conditional order (a cas keyed by the middle of its interval): the same search with and without them', () => {
    let backtracked = 0;
    let keyed = 0;
    for (let k = 0; k < 24; k++) {
      const shape: GenerateOptions = { family: 'cas-register', ops: 100 + 37 * k, clients: [4, 16, 64][k % 3], seed: 9300 + k, corrupt: k % 2, crashRate: [0, 0.005, 0.1][(k >> 1) % 3], tick: 1 + (k % 3) };
      const { model, history } = generateHistory(shape);
      const lazy = wglSearch(models[model], history, { conditional: true, lazyFrames: true });
      const eager = wglSearch(models[model], history, { conditional: true, lazyFrames: false });
      expect({ ...lazy, proof: undefined }).toEqual({ ...eager, proof: undefined });
      if (lazy.explored > history.length) backtracked++;
      if (lazy.explored !== wglSearch(models[model], history, { lazyFrames: true }).explored) keyed++;
    }
    expect(backtracked).toBeGreaterThan(5);
    // The order is another one on some of them (else this tests the order by return again).
    expect(keyed).toBeGreaterThan(3);
  });
});
