// A declared symmetry is checked on sampled reachable states before the reduction uses it:
// each way a permute can be wrong is a SpecError naming the group and what differs; a
// right one reduces the state count and keeps the verdict; asking for a reduction the
// machine does not declare, or one too large, is an UnsupportedOption.
import { describe, expect, it } from 'vitest';
import { SpecError, UnsupportedOption } from './errors.ts';
import { exploreSync } from './index.ts';
import type { Action, Machine, Symmetry } from './types.ts';

interface State {
  counter: number;
  pc: ('read' | 'cas' | 'done')[];
  local: number[];
}
interface Step extends Action {
  p: number;
}

const rename = (s: State, perm: readonly number[]): State => {
  const pc = s.pc.slice();
  const local = s.local.slice();
  perm.forEach((to, from) => {
    pc[to] = s.pc[from]!;
    local[to] = s.local[from]!;
  });
  return { counter: s.counter, pc, local };
};

/** n processes increment a counter by compare-and-swap; `change` makes one part asymmetric. */
function counter(n: number, change: Partial<Machine<State, Step>> = {}, permute: Symmetry<State>['permute'] = rename): Machine<State, Step> {
  return {
    init: () => [{ counter: 0, pc: Array(n).fill('read'), local: Array(n).fill(0) }],
    actions: (s) => s.pc.flatMap((pc, p): Step[] => (pc === 'done' ? [] : [{ label: `${pc}(p${p})`, p }])),
    next(s, { p }) {
      const pc = s.pc.slice();
      const local = s.local.slice();
      let c = s.counter;
      if (pc[p] === 'read') [local[p], pc[p]] = [c, 'cas'];
      else if (c === local[p]) [c, pc[p]] = [c + 1, 'done'];
      else pc[p] = 'read';
      return { counter: c, pc, local };
    },
    invariants: { allCounted: (s) => !s.pc.every((pc) => pc === 'done') || s.counter === n || `counter = ${s.counter}` },
    mayStop: (s) => s.pc.every((pc) => pc === 'done'),
    symmetry: [{ name: 'processes', size: n, permute }],
    ...change,
  };
}

const refused = (m: Machine<State, Step>, pattern: RegExp) => {
  expect(() => exploreSync(m, { symmetry: true })).toThrow(SpecError);
  expect(() => exploreSync(m, { symmetry: true })).toThrow(pattern);
};

describe('a declared symmetry is checked before it is used', () => {
  it('a right one reduces the states and keeps the verdict', () => {
    const plain = exploreSync(counter(3));
    const reduced = exploreSync(counter(3), { symmetry: true });
    expect([plain.status, reduced.status]).toEqual(['holds', 'holds']);
    expect(reduced.states).toBeLessThan(plain.states);
  });

  it('each way a permute can be wrong is named', () => {
    refused(counter(2, {}, (s, perm) => ({ ...rename(s, perm), counter: s.counter + 1 })), /symmetry group "processes" is not a symmetry of the spec: the identity renaming changes the state/);
    refused(
      counter(2, {}, (s, perm) => {
        if (perm[0] !== 0) s.pc.reverse();
        return s;
      }),
      /permute modified the state it was given/,
    );
    // Every process takes process 0's pc: two states rename to one (seen at the first state
    // sampled, the initial one; elsewhere a predecessor's successors would differ first).
    const collapse: Symmetry<State>['permute'] = (s, perm) => ({ ...rename(s, perm), pc: perm.every((p, i) => p === i) ? s.pc : s.pc.map(() => s.pc[0]!) });
    refused(counter(3, { init: () => [{ counter: 0, pc: ['read', 'done', 'done'], local: [0, 0, 0] }] }, collapse), /renaming back does not give the state again: permute is not a bijection/);
  });

  it('a machine that is not symmetric where the group says it is: invariants, labels, successors, initial states', () => {
    refused(counter(2, { invariants: { p0NotAtCas: (s) => s.pc[0] !== 'cas' || 'p0 at cas' } }), /the invariant p0NotAtCas (holds|fails) in the state and (fails|holds) in its renaming/);
    // Process 1's actions are named differently: the same successors, other labels.
    refused(counter(2, { actions: (s) => s.pc.flatMap((pc, p): Step[] => (pc === 'done' ? [] : [{ label: `${pc}${p === 1 ? 'X' : ''}(p${p})`, p }])) }), /the enabled actions differ beyond their ids/);
    const blindP0: Machine<State, Step>['next'] = (s, { p }) => {
      const pc = s.pc.slice();
      const local = s.local.slice();
      let c = s.counter;
      if (pc[p] === 'read') [local[p], pc[p]] = [c, 'cas'];
      else if (p === 0 || c === local[p]) [c, pc[p]] = [local[p]! + 1, 'done'];
      else pc[p] = 'read';
      return { counter: c, pc, local };
    };
    refused(counter(2, { next: blindP0 }), /the renamed successors of the state are not the successors of its renaming/);
    refused(counter(2, { init: () => [{ counter: 0, pc: ['read', 'done'], local: [0, 0] }] }), /the initial states are not closed under renaming/);
    refused(counter(2, { symmetry: [{ name: 'processes', size: 0, permute: rename }] }), /symmetry group "processes": a group is \{name, size \(an integer ≥ 1\), permute\(state, perm\)\}/);
  });

  it('a reduction the machine does not declare, or too large, is unsupported', () => {
    expect(() => exploreSync(counter(2, { symmetry: [] }), { symmetry: true })).toThrow(UnsupportedOption);
    expect(() => exploreSync(counter(2, { symmetry: undefined }), { symmetry: true })).toThrow(/the spec declares no symmetry groups/);
    expect(() => exploreSync(counter(9), { symmetry: true })).toThrow(UnsupportedOption);
    expect(() => exploreSync(counter(9), { symmetry: true })).toThrow(/give 362880 permutations per state; at most 40320 are supported/);
  });
});
