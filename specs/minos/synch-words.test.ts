// synch-words.ts against the plain machine (machine.ts, the reference) on every config and
// variant it runs: the same verdict, distinct states, transitions and depth, and the same
// violations (property, message, every label of the counterexample), with the engine's
// linearizability monitor and without; and the engine searches it on its layout path.

import { describe, expect, it } from 'vitest';
import { SpecError, exploreSync } from '../../checkers/explore/index.ts';
import type { ExploreResult, Machine } from '../../checkers/explore/types.ts';
import { renderExploreText } from '../../checkers/report/explore-text.ts';
import { configs } from './configs.ts';
import { spec } from './index.ts';
import { buildMachine } from './machine.ts';
import type { MinosConfig } from './state.ts';
import { buildSynchWords, synchWordsRun } from './synch-words.ts';

const config = (name: string) => configs.find((c) => c.name === name)!.config;
const TAKEN = ['M1', 'M4', 'M5', 'M8', 'M9', 'M17', 'M18', 'M19', 'M23', 'TS-COLLISION'];

const figures = (r: ExploreResult) => ({
  status: r.status,
  states: r.states,
  transitions: r.transitions,
  depth: r.depth,
  // the actions enabled by family: the layout path counts them by list (result.ts Coverage)
  coverage: r.coverage,
  violations: r.violations.map((v) => ({ property: v.property, message: v.message, labels: v.steps.map((st) => st.action.label) })),
});

/** The machine with its layout's step counted (the engine's layout path calls it; the plain path does not). */
function counted(m: Machine): { m: Machine; steps: () => number } {
  let n = 0;
  const L = m.layout!;
  const step = L.step;
  (L as { step: typeof step }).step = (d, a, from) => {
    n++;
    step(d, a, from);
  };
  return { m, steps: () => n };
}

describe('synch-words.ts runs', () => {
  it('B-synch, E-synch and C-synch (full tier) and no other config, and only the variants it takes', () => {
    const taken = configs.filter((c) => synchWordsRun(c.config)).map((c) => c.name);
    expect(taken).toEqual(['B-synch', 'C-synch', 'E-synch']);
    expect(synchWordsRun(config('B-synch'), 'M21')).toBe(false); // a split read: a coordinator thread of another kind
    expect(synchWordsRun(config('B-synch'), 'T2b-literal')).toBe(false);
    for (const v of TAKEN) expect(synchWordsRun(config('B-synch'), v)).toBe(true);
    expect(spec.build(config('B-synch')).layout).toBeDefined();
    expect(spec.build(config('B2-synch')).layout).toBeUndefined();
  });
});

const synch = (nodes: number, keys: number, clients: MinosConfig['clients']): MinosConfig => ({ model: 'Synch', nodes, keys, clients, crash: false, recovery: 'replica' });

describe('a config out of range', () => {
  // Out of range, synch-words.ts read another record's bytes (bogus violations) where the
  // plain machine threw a TypeError; a key past KEY's names labelled "undefined".
  const bad: [string, MinosConfig][] = [
    ['clients[0].ops[0].key', synch(2, 2, [{ node: 1, ops: [{ f: 'write', key: -1 }] }, { node: 0, ops: [{ f: 'read', key: 1 }] }])],
    ['clients[0].ops[0].key', synch(2, 2, [{ node: 1, ops: [{ f: 'write', key: 0.5 }] }])],
    ['clients[0].ops[1].key', synch(2, 2, [{ node: 1, ops: [{ f: 'write', key: 1 }, { f: 'read', key: 2 }] }])],
    ['clients[0].node', synch(2, 1, [{ node: -1, ops: [{ f: 'write', key: 0 }] }, { node: 0, ops: [{ f: 'read', key: 0 }] }])],
    ['clients[1].node', synch(2, 1, [{ node: 0, ops: [{ f: 'write', key: 0 }] }, { node: 2, ops: [] }])],
    ['clients[0].ops[0].sc', synch(2, 1, [{ node: 0, ops: [{ f: 'write', key: 0, sc: -1 }] }])],
    ['nodes', synch(0, 1, [])],
    ['keys', synch(2, 4, [{ node: 1, ops: [{ f: 'write', key: 3 }] }, { node: 0, ops: [{ f: 'write', key: 3 }, { f: 'read', key: 3 }] }])],
  ];
  for (const [field, c] of bad) {
    it(`${field} (${JSON.stringify(c.clients)}, ${c.nodes} nodes, ${c.keys} keys): both machines refuse it, naming the field`, () => {
      const refused = (f: () => unknown) => {
        expect(f).toThrow(SpecError);
        expect(f).toThrow(`minos config: ${field} is `);
      };
      refused(() => buildMachine(c));
      refused(() => buildSynchWords(c));
      refused(() => spec.build(c));
    });
  }
  it('the largest in range is taken: keys z, nodes E', () => {
    const c = synch(5, 3, [{ node: 4, ops: [{ f: 'write', key: 2 }] }, { node: 0, ops: [{ f: 'read', key: 2 }] }]);
    expect(synchWordsRun(c)).toBe(true);
    expect(figures(exploreSync(buildSynchWords(c), { linearizability: 'off' }))).toEqual(figures(exploreSync(buildMachine(c), { linearizability: 'off' })));
  }, 60_000);
});

describe('a write with a scope under Synch', () => {
  // The plain machine's INVs and follower threads order by sc before v and pc (state.ts
  // cmpFoll, the Msg tuple), which synch-words.ts's numbers leave out: the plain machine runs it.
  const c = synch(2, 1, [{ node: 0, ops: [{ f: 'write', key: 0, sc: 2 }] }, { node: 0, ops: [{ f: 'write', key: 0, sc: 1 }] }]);
  it('runs on the plain machine, with every variant', () => {
    for (const v of [undefined, ...TAKEN]) expect(synchWordsRun(c, v)).toBe(false);
    expect(spec.build(c, 'TS-COLLISION').layout).toBeUndefined();
    expect(synchWordsRun({ ...c, clients: c.clients.map((cl) => ({ ...cl, ops: cl.ops.map((op) => ({ ...op, sc: 0 })) })) }, 'TS-COLLISION')).toBe(true);
  });
});

describe('synch-words.ts is the plain machine on words', () => {
  for (const name of ['B-synch', 'E-synch']) {
    for (const linearizability of ['incremental', 'off'] as const) {
      it(`${name}, monitor ${linearizability}`, () => {
        const plain = exploreSync(buildMachine(config(name)), { linearizability });
        const { m, steps } = counted(buildSynchWords(config(name)));
        const words = exploreSync(m, { linearizability });
        expect(figures(words)).toEqual(figures(plain));
        expect(plain.status).toBe('holds');
        expect(steps()).toBeGreaterThanOrEqual(words.transitions);
      }, 60_000);
    }
    for (const variant of TAKEN) {
      // every violated property's counterexample on the small config, the first one on B-synch
      it(`${name} ${variant}: the same verdict, counts and counterexamples`, () => {
        const opts = { linearizability: 'off', all: name === 'E-synch' } as const;
        const plain = exploreSync(buildMachine(config(name), variant), opts);
        const words = exploreSync(buildSynchWords(config(name), variant), opts);
        expect(figures(words)).toEqual(figures(plain));
      }, 60_000);
    }
  }
  // A counterexample shows the plain machine's state (inner), not the packed words: the same text, every changed field named alike.
  for (const [name, variant] of [['B-synch', 'M1'], ['E-synch', 'M18'], ['E-synch', 'M4']] as const) {
    it(`${name} ${variant}: the same counterexample text as the plain machine's`, () => {
      const text = (m: Machine) => renderExploreText(exploreSync(m, { all: true })).replace(/, [0-9.]+ s \([0-9,]+ distinct states\/s\)/, '');
      const words = text(buildSynchWords(config(name), variant));
      expect(words).toEqual(text(buildMachine(config(name), variant)));
      expect(words).toContain('co[0]: null -> {kind: "write"');
      expect(words).toMatch(/fo\[0\]: undefined -> \{n: 1, kind: "write"/);
    }, 60_000);
  }
  it('some variants it takes are caught (the comparison covers violations)', () => {
    const caught = TAKEN.filter((v) => exploreSync(buildSynchWords(config('B-synch'), v), { linearizability: 'off' }).status === 'violation');
    expect(caught.length).toBeGreaterThanOrEqual(5);
  }, 60_000);
});
