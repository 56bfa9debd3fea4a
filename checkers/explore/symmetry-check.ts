// Checks a declared symmetry before it is trusted. A symmetry reduction is sound only if
// each renaming maps the machine onto itself (symmetry.ts); a wrong `permute` would not
// fail, it would silently give wrong counts or hide violations. So on sampled reachable
// states (breadth-first from the initial states, then seeded random walks), for each
// group, each generating renaming (adjacent transpositions and the full cycle) and one
// seeded random renaming, this checks that:
// - permute leaves its argument unchanged, and renaming back (the inverse) gives the state
//   again, and the identity changes nothing: a bijection;
// - every invariant holds in the state iff it holds in its renaming, and so does mayStop;
// - the enabled action labels are the same up to their numbers (ids; as multisets), and the
//   renamed successors are exactly the successors of the renamed state;
// - the initial states are closed under renaming.
// The first failure is a SpecError naming the group, the renaming and the state.

import { makeEncoder, Words } from './encode.ts';
import { SpecError } from './errors.ts';
import { rng } from './search.ts';
import type { Action, Machine, Symmetry } from './types.ts';

export interface SymmetryCheckOptions {
  /** Reachable states to check (default 128). */
  samples?: number;
  /** Seed of the random walks and renamings (default 1). */
  seed?: number;
}

function brief(v: unknown): string {
  const text = JSON.stringify(v, (_k, x: unknown) => (x instanceof Map ? { '#map': [...x] } : x instanceof Set ? { '#set': [...x] } : typeof x === 'bigint' ? `${x}n` : x));
  return text === undefined ? String(v) : text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** A label with its numbers masked: a renaming of ids may change them, nothing else. */
function masked(label: string): string {
  return label.replace(/\d+/g, '#');
}

function inverse(p: readonly number[]): number[] {
  const q = new Array<number>(p.length);
  p.forEach((to, from) => (q[to] = from));
  return q;
}

/** The renamings checked for a group of n ids: adjacent transpositions and the n-cycle. */
export function generators(n: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i + 1 < n; i++) {
    const p = [...Array(n).keys()];
    [p[i], p[i + 1]] = [p[i + 1], p[i]];
    out.push(p);
  }
  if (n > 2) out.push([...Array(n).keys()].map((i) => (i + 1) % n));
  return out;
}

/** Reachable states: breadth-first up to half the budget, then seeded random walks. */
function sample<S, A extends Action>(m: Machine<S, A>, key: (s: S) => string, budget: number, random: () => number): S[] {
  const seen = new Set<string>();
  const out: S[] = [];
  const add = (s: S) => {
    const k = key(s);
    if (seen.has(k) || out.length >= budget) return false;
    seen.add(k);
    out.push(s);
    return true;
  };
  const inits = m.init();
  for (const s of inits) add(s);
  for (let i = 0; i < out.length && out.length < budget / 2; i++) for (const a of m.actions(out[i])) add(m.next(out[i], a));
  for (let walk = 0; walk < budget && out.length < budget && inits.length > 0; walk++) {
    let s = inits[Math.floor(random() * inits.length)];
    for (let depth = 0; depth < 200; depth++) {
      const enabled = m.actions(s);
      if (enabled.length === 0) break;
      s = m.next(s, enabled[Math.floor(random() * enabled.length)]);
      add(s);
    }
  }
  return out;
}

/**
 * Throws a SpecError when a declared symmetry group is not one on the sampled states (see
 * above). `machine` is the machine the reduction would wrap (after the monitor).
 */
export function checkSymmetry<S, A extends Action>(machine: Machine<S, A>, options: SymmetryCheckOptions = {}): void {
  const groups: readonly Symmetry<S>[] = machine.symmetry ?? [];
  const words = new Words();
  const encode = makeEncoder(machine);
  const key = (s: S): string => {
    encode(s, words);
    return words.buf.subarray(0, words.length).join(',');
  };
  const shown = (s: S): string => brief(machine.inner ? machine.inner(s) : s);
  const random = rng(options.seed ?? 1);
  for (const g of groups) {
    if (typeof g.name !== 'string' || !Number.isInteger(g.size) || g.size < 1 || typeof g.permute !== 'function') {
      throw new SpecError(`symmetry group ${brief(g.name)}: a group is {name, size (an integer ≥ 1), permute(state, perm)}`);
    }
  }
  const active = groups.filter((g) => g.size > 1);
  if (active.length === 0) return;
  const states = sample(machine, key, options.samples ?? 128, random);
  const initKeys = new Set(machine.init().map(key));
  const successors = (s: S): string[] => machine.actions(s).map((a) => key(machine.next(s, a))).sort();
  const labels = (s: S): string => machine.actions(s).map((a) => masked(a.label)).sort().join(' ');

  for (const g of active) {
    const fail = (what: string, s: S, p: readonly number[]): never => {
      throw new SpecError(`symmetry group "${g.name}" is not a symmetry of the spec: ${what} (renaming ${brief(p)} of the state ${shown(s)})`);
    };
    const identity = [...Array(g.size).keys()];
    for (const s of states) {
      const before = key(s);
      if (key(g.permute(s, identity)) !== before) fail('the identity renaming changes the state', s, identity);
      const randomPerm = identity.slice();
      for (let i = randomPerm.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [randomPerm[i], randomPerm[j]] = [randomPerm[j], randomPerm[i]];
      }
      for (const p of [...generators(g.size), randomPerm]) {
        const t = g.permute(s, p);
        if (key(s) !== before) fail('permute modified the state it was given (it must return a new one)', s, p);
        if (key(g.permute(t, inverse(p))) !== before) fail('renaming back does not give the state again: permute is not a bijection', s, p);
        for (const [name, inv] of Object.entries(machine.invariants)) {
          const a = inv(s) === true;
          if (a !== (inv(t) === true)) fail(`the invariant ${name} ${a ? 'holds' : 'fails'} in the state and ${a ? 'fails' : 'holds'} in its renaming ${shown(t)}`, s, p);
        }
        if (machine.mayStop && machine.mayStop(s) !== machine.mayStop(t)) fail('mayStop differs between the state and its renaming', s, p);
        if (labels(s) !== labels(t)) fail(`the enabled actions differ beyond their ids: ${labels(s) || 'none'} in the state, ${labels(t) || 'none'} in its renaming`, s, p);
        const renamed = machine.actions(s).map((a) => key(g.permute(machine.next(s, a), p))).sort();
        const direct = successors(t);
        if (renamed.join(';') !== direct.join(';')) fail('the renamed successors of the state are not the successors of its renaming', s, p);
        if (initKeys.has(before) && !initKeys.has(key(t))) fail('the initial states are not closed under renaming', s, p);
      }
    }
  }
}
