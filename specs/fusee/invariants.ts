// The invariants of X§4.3 that apply to one slot, by name: LIN (the ghost monitor of the
// client history), the transition invariants the steps record in the ghost when they fire
// (context.ts `broke`), and the state invariants I1, I3, I14 over the ghost.

import { CRASHED, NONE, pair, type FuseeState } from './state.ts';

export function invariants(kv: boolean): Record<string, (s: FuseeState) => true | string> {
  const all: Record<string, (s: FuseeState) => true | string> = {
    // Linearizability of the client history against the register (KV: the one-slot KV
    // model); crashed clients' ops may take effect once or not at all.
    LIN: (s) => (s.mon.bad ? s.mon.bad : true),
  };
  // Transition invariants are checked when the step fires and recorded in the ghost (the
  // first one broken); each is reported under its own name.
  // I2, I5, I9 and I10 need unique values, which the KV level does not have (DELETE writes the empty slot).
  const transition = kv ? ['I4', 'I8', 'I11', 'I12', 'I13', 'I17', 'I18'] : ['I2', 'I4', 'I5', 'I8', 'I9', 'I10', 'I11', 'I12', 'I13', 'I17', 'I18'];
  for (const name of transition) {
    const prefix = `${name}:`;
    all[name] = (s) => (s.g.tv !== '' && s.g.tv.startsWith(prefix) ? s.g.tv : true);
  }
  if (kv) return all;
  return {
    ...all,
    // I1 (A.2): values written are pairwise distinct and differ from x0.
    // (A loop over pairs: it runs on every state, and clients are few.)
    I1: (s) => {
      const cl = s.cl;
      for (let i = 0; i < cl.length; i++) {
        const v = cl[i].log[0];
        if (v === NONE) continue;
        let bad = v === 0;
        for (let j = i + 1; j < cl.length && !bad; j++) bad = cl[j].log[0] === v;
        if (bad) return `I1: values written are not unique: ${cl.map((c) => c.log[0]).filter((x) => x !== NONE).join(',')}`;
      }
      return true;
    },
    // I3 (§5.2 [L309], A.4.1 [L796]): backups are never older than the primary.
    I3: (s) => {
      const p = s.rep[s.primary];
      if (p === CRASHED) return true;
      for (const b of s.backups) {
        const v = s.rep[b];
        if (v === CRASHED || v === p) continue;
        if (!s.g.props.includes(pair(p, v))) return `I3: backup r${b} holds ${v}, which is not a proposal from the primary's ${p}`;
      }
      return true;
    },
    // I14: the value of a write that returned as a non-winner never reappears.
    I14: (s) => {
      const dead = s.g.dead;
      if (dead.length === 0) return true;
      for (let k = -1; k < s.backups.length; k++) {
        const i = k < 0 ? s.primary : s.backups[k];
        if (dead.includes(s.rep[i])) return `I14: r${i} holds ${s.rep[i]}, the value of a write that returned as a non-winner`;
      }
      return true;
    },
  };
}
