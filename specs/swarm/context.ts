// What every step of one built machine shares: the config, the mutant flags and the
// figures derived from them once (majorities, lock count, the Lemma C.5 bound).

import type { Flags } from '../kit/variants.ts';
import type { Variant } from './mutants.ts';
import type { State, SwarmConfig } from './state.ts';

export interface Cx {
  cfg: SwarmConfig;
  mut: Flags<Variant>;
  n: number;
  maj: number;
  /** M's quorum (M16: one MN). */
  qM: number;
  /** TRYLOCK's majority wait T9 (M15: one object). */
  qL: number;
  nprocs: number;
  sgLayer: boolean;
  mLayer: boolean;
  mSpec: boolean;
  nLocks: number;
  /** Lemma C.5: a READ returns within 2P+1 iterations, P the writers whose tuples reach M. */
  iterBound: number;
  /** Runs p's local steps to a fixpoint (machine.ts). */
  pump(d: State, p: number): void;
}

export function context(cfg: SwarmConfig, mut: Flags<Variant>, pump: Cx['pump']): Cx {
  const maj = Math.floor(cfg.n / 2) + 1;
  const writers = cfg.scripts.filter((s) => s.some((o) => o.f === 'write')).length;
  return {
    cfg, mut, n: cfg.n, maj, pump,
    qM: mut.M16 ? 1 : maj,
    qL: mut.M15 ? 1 : maj,
    nprocs: cfg.scripts.length,
    sgLayer: cfg.scripts.some((s) => s.some((o) => o.f === 'write' || o.f === 'read')),
    mLayer: cfg.m === 'spec' || cfg.scripts.some((s) => s.some((o) => o.f === 'mwrite')),
    mSpec: cfg.m === 'spec',
    nLocks: cfg.scripts.length + 1,
    iterBound: 2 * writers + 1,
  };
}

export const tidOfProc = (p: number): number => p + 1; // tid 0 is ⊥₀'s pseudo-writer

/** Records a transition property's failure (the first message per property). */
export function fail(d: State, prop: string, msg: string): void {
  d.viol = withFailure(d.viol, prop, msg);
}

/** The violations with prop's failure added, sorted by property, unless prop already failed (the list itself then). */
export function withFailure(viol: [string, string][], prop: string, msg: string): [string, string][] {
  if (viol.some((v) => v[0] === prop)) return viol;
  return [...viol, [prop, msg] as [string, string]].sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/** Whether the M quorum (qM) of cache entries at..at+n-1 is at least v (a process's cache: plain, or in words). */
export function quorumHas(cx: Cx, cache: ArrayLike<number>, v: number, at = 0): boolean {
  let c = 0;
  for (let i = 0; i < cx.n; i++) if (cache[at + i] >= v) c++;
  return c >= cx.qM;
}
