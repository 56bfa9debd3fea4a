// Symmetry reduction: states that differ only by a renaming of interchangeable ids
// (clients, replicas) are stored once. The machine is unchanged except for its encoding,
// which becomes that of the orbit's representative: the permuted state whose encoding is
// smallest, over every permutation of every declared group (n! each, small for n <= 5).
// Paths stay real paths of the unreduced machine, so counterexamples replay as they are;
// BFS still gives shortest ones, because renaming preserves the distance from the
// (symmetric) initial states.
//
// Soundness asks the spec for what TLC asks of SYMMETRY: the initial states, the
// transition relation and every invariant are invariant under the declared renamings.

import { makeEncoder, Words } from './encode.ts';
import { UnsupportedOption } from './errors.ts';
import type { Action, Machine, Symmetry } from './types.ts';

/** Above this many permutations per state, canonicalisation costs more than it saves. */
export const MAX_PERMUTATIONS = 40320;

/** Every permutation of 0..n-1, the identity first. */
export function permutations(n: number): number[][] {
  const out: number[][] = [];
  const p = [...Array(n).keys()];
  const rec = (i: number) => {
    if (i === n) {
      out.push(p.slice());
      return;
    }
    for (let j = i; j < n; j++) {
      [p[i], p[j]] = [p[j], p[i]];
      rec(i + 1);
      [p[i], p[j]] = [p[j], p[i]];
    }
  };
  rec(0);
  return out;
}

function compareWords(a: Int32Array, an: number, b: Int32Array, bn: number): number {
  const n = Math.min(an, bn);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return an - bn;
}

/** How many permutations the declared groups give (their product). */
export function groupOrder(groups: readonly Symmetry<unknown>[]): number {
  let order = 1;
  for (const g of groups) for (let i = 2; i <= g.size; i++) order *= i;
  return order;
}

/**
 * The machine with the encoding (and view) of each state replaced by its orbit's
 * representative over `machine.symmetry`. Without declared groups, the machine itself.
 */
export function withSymmetry<S, A extends Action>(machine: Machine<S, A>): Machine<S, A> {
  const groups = machine.symmetry ?? [];
  if (groups.length === 0) return machine;
  const order = groupOrder(groups);
  if (order > MAX_PERMUTATIONS) {
    throw new UnsupportedOption(`symmetry: the groups ${groups.map((g) => `${g.name} (${g.size})`).join(', ')} give ${order} permutations per state; at most ${MAX_PERMUTATIONS} are supported`);
  }
  const perGroup = groups.map((g) => permutations(g.size).slice(1));
  const encode = makeEncoder(machine);
  const scratch = new Words();
  const best = new Words();
  const view = (s: S): unknown => (machine.view ? machine.view(s) : s);

  /** Calls f on s and on every renaming of s (each group's permutations, composed). */
  const orbit = (s: S, f: (t: S) => void) => {
    const rec = (t: S, g: number) => {
      if (g === groups.length) {
        f(t);
        return;
      }
      rec(t, g + 1);
      for (const p of perGroup[g]) rec(groups[g].permute(t, p), g + 1);
    };
    rec(s, 0);
  };

  /** The representative of s's orbit: its member with the smallest encoding, left in `best`. */
  const representative = (s: S): S => {
    let rep = s;
    best.length = 0;
    let first = true;
    orbit(s, (t) => {
      encode(t, scratch);
      if (first || compareWords(scratch.buf, scratch.length, best.buf, best.length) < 0) {
        first = false;
        if (best.buf.length < scratch.length) best.grow(scratch.length);
        best.buf.set(scratch.buf.subarray(0, scratch.length));
        best.length = scratch.length;
        rep = t;
      }
    });
    return rep;
  };

  const reduced: Machine<S, A> = {
    ...machine,
    encode(s, out) {
      representative(s);
      if (out.length < best.length) return -1;
      out.set(best.buf.subarray(0, best.length));
      return best.length;
    },
    view: (s) => view(representative(s)),
  };
  return reduced;
}

/** The state counts with and without a reduction, and their ratio. */
export interface Reduction {
  full: number;
  reduced: number;
  /** full / reduced */
  factor: number;
}

export function reduction(full: number, reduced: number): Reduction {
  return { full, reduced, factor: reduced === 0 ? 1 : full / reduced };
}
