// Partial-order reduction with ample sets (Peled; Clarke, Grumberg & Peled, "Model
// Checking", ch. 10), in the static form SPIN uses for "safe" statements: in a state where
// one actor's enabled steps touch only that actor's private variables, those steps alone
// are explored, because every interleaving with the other actors' steps reaches the same
// states in another order.
//
// The conditions, for the ample set E_P = the enabled actions of actor P, a proper subset
// of all enabled actions:
//  C1 (independence) every a in E_P is local: its footprint names only P's private
//     variables, which no other actor reads or writes, so no other actor's step depends
//     on it or can enable another step of P (Footprint: reads include P's guards).
//  C2 (invisibility) no a in E_P changes whether an invariant holds, records a history
//     event or counts as progress: checked on the successor, step by step.
//  C3 (cycle proviso) no successor by E_P was already expanded. Then on every cycle of
//     the reduced graph the state expanded last is expanded fully, whatever the search
//     order (BFS, DFS): no step is postponed forever.
// Safety verdicts (invariants, deadlocks, linearizability) are preserved; counterexamples
// are real paths but need not be the shortest. Not for livelock (a separate search of
// the unreduced machine), and not across worker threads (C3 remembers expanded states).

import { makeEncoder, Words } from './encode.ts';
import type { Action, Footprint, Machine } from './types.ts';

/** How much the reduction saved so far: states expanded, and of them those given an ample set. */
export interface PorStats {
  expanded: number;
  reduced: number;
  /** Actions not explored because an ample set replaced the full set. */
  pruned: number;
}

function isPrivate(f: Footprint, actor: string): boolean {
  const prefix = `${actor}.`;
  for (const v of f.reads) if (!v.startsWith(prefix)) return false;
  for (const v of f.writes) if (!v.startsWith(prefix)) return false;
  return true;
}

/**
 * The machine whose `actions(s)` returns an ample set where the conditions above allow
 * one. Needs `footprint` and `actor`; without them, the machine itself. The decision for a
 * state is remembered, so that a replayed path sees the same action lists.
 */
export function withPor<S, A extends Action>(machine: Machine<S, A>): Machine<S, A> & { porStats: PorStats } {
  const stats: PorStats = { expanded: 0, reduced: 0, pruned: 0 };
  const footprint = machine.footprint?.bind(machine);
  const actor = machine.actor?.bind(machine);
  if (!footprint || !actor) return { ...machine, porStats: stats };
  const encode = makeEncoder(machine);
  const words = new Words();
  const keyOf = (s: S): string => {
    encode(s, words);
    return words.buf.subarray(0, words.length).join(',');
  };
  const decided = new Map<string, A[]>();
  const invariants = Object.values(machine.invariants);
  const holds = (s: S) => invariants.map((inv) => inv(s) === true);

  const invisible = (s: S, before: boolean[], a: A, t: S): boolean => {
    if (machine.history && machine.history.observe(s, a, t).length > 0) return false;
    if (machine.progress?.(s, a, t)) return false;
    const after = holds(t);
    for (let i = 0; i < after.length; i++) if (after[i] !== before[i]) return false;
    return true;
  };

  const ample = (s: S, enabled: A[]): A[] | undefined => {
    const actors = [...new Set(enabled.map((a) => actor(a)))];
    if (actors.length < 2) return undefined;
    let before: boolean[] | undefined;
    for (const p of actors) {
      const mine = enabled.filter((a) => actor(a) === p);
      if (!mine.every((a) => isPrivate(footprint(s, a), p))) continue;
      before ??= holds(s);
      let ok = true;
      for (const a of mine) {
        const t = machine.next(s, a);
        if (!invisible(s, before, a, t) || decided.has(keyOf(t))) {
          ok = false;
          break;
        }
      }
      if (ok) return mine;
    }
    return undefined;
  };

  const reduced = {
    ...machine,
    porStats: stats,
    actions(s: S): A[] {
      const k = keyOf(s);
      const known = decided.get(k);
      if (known) return known;
      const enabled = machine.actions(s);
      const chosen = ample(s, enabled) ?? enabled;
      decided.set(k, chosen);
      stats.expanded++;
      if (chosen.length < enabled.length) {
        stats.reduced++;
        stats.pruned += enabled.length - chosen.length;
      }
      return chosen;
    },
  };
  return reduced;
}
