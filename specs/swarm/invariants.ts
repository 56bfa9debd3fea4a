// The swarm machine's properties (README "Properties"). Most are checked on the transition
// that could break them and recorded in `viol` (context.ts fail); these read it, and the
// state invariants below are checked on every state.

import type { Check } from '../../checkers/explore/types.ts';
import type { Cx } from './context.ts';
import { mrS1Message, mrS2Message } from './maxreg.ts';
import type { State } from './state.ts';
import { VERIFIED, flagOf, procName, showTuple, tsOfTuple } from './tuple.ts';

const RECORDED = ['SG-Lin', 'SG-LockRewriteExcl', 'SG-C3', 'SG-FastFresh', 'MR-Valid', 'MR-RR', 'MR-WR', 'TL-Excl', 'TL-TrueSafety', 'TL-S1'];

export function invariants(cx: Cx): Record<string, (s: State) => Check> {
  // Each runs on every state, which mostly has no violation: a loop, no closure.
  const fromViol = (name: string) => (s: State): Check => {
    for (let i = 0; i < s.viol.length; i++) if (s.viol[i][0] === name) return s.viol[i][1];
    return true;
  };
  const inv: Record<string, (s: State) => Check> = {};
  for (const name of RECORDED) inv[name] = fromViol(name);
  // §6.3: a tuple whose write rewrote its timestamp (W11) is never VERIFIED anywhere
  inv['SG-VerifiedFinal'] = (s) => {
    if (s.g.rew.length === 0) return true;
    // Where a tuple can be, in this order: the registers, the invoked M.WRITEs, each
    // process's cache, background writes and foreground M.WRITE, the write requests.
    const found = verifiedRewritten(s);
    return found === undefined ? true : `${showTuple(found)} is VERIFIED although its write rewrote that timestamp (W11)`;
  };
  // Lemma C.5 (f.518-530): bounded wait-freedom of READ, as an invariant on its iteration counter
  inv['SG-WF-R'] = (s) => {
    for (let p = 0; p < s.procs.length; p++) {
      const op = s.procs[p].op;
      if (op?.k === 'R' && op.it > cx.iterBound) return `READ by ${procName(p)} is in iteration ${op.it} > 2P+1 = ${cx.iterBound} (Lemma C.5)`;
    }
    return true;
  };
  if (cx.mSpec) return inv;
  inv['MR-S1'] = (s) => {
    for (let p = 0; p < s.procs.length; p++) {
      for (let i = 0; i < cx.n; i++) {
        if (s.procs[p].cache[i] > s.regs[i]) return mrS1Message(p, i, s.procs[p].cache[i], s.regs[i]);
      }
    }
    return true;
  };
  inv['MR-S2'] = (s) => {
    const v = Math.max(s.g.cR, s.g.cW);
    let at = 0;
    for (let i = 0; i < s.regs.length; i++) if (s.regs[i] >= v) at++;
    return at >= cx.maj ? true : mrS2Message(v, at, cx.maj);
  };
  return inv;
}

/** Whether x is VERIFIED with a timestamp rewritten at W11 (a function, not a closure: invariants run on every new state). */
const bad = (rew: readonly number[], x: number): boolean => flagOf(x) === VERIFIED && rew.includes(tsOfTuple(x));

/** The first tuple SG-VerifiedFinal forbids (VERIFIED, of a timestamp rewritten at W11), if any. */
function verifiedRewritten(s: State): number | undefined {
  const rew = s.g.rew;
  for (const x of s.regs) if (bad(rew, x)) return x;
  for (const x of s.g.wInv ?? []) if (bad(rew, x)) return x;
  for (const pr of s.procs) {
    for (const x of pr.cache) if (bad(rew, x)) return x;
    for (const x of pr.bg) if (bad(rew, x)) return x;
    if (bad(rew, pr.mw)) return pr.mw;
  }
  for (const m of s.reqs) if (m[2] === 1 && bad(rew, m[3])) return m[3];
  return undefined;
}

/** §7.1 (HAZARD only): one process's reads return a, then b, then a again. */
export function oscillation(s: State): Check {
  for (let p = 0; p < s.procs.length; p++) {
    const h = s.procs[p].hist ?? [];
    for (let i = 0; i + 2 < h.length; i++) {
      for (let j = i + 1; j + 1 < h.length; j++) {
        if (h[j] === h[i]) continue;
        for (let k = j + 1; k < h.length; k++) if (h[k] === h[i]) return `${procName(p)}'s reads returned v${h[i]}, v${h[j]}, v${h[k]}`;
      }
    }
  }
  return true;
}
