// What every step of one built machine shares: the config, the mutant flags, the scripts'
// ops resolved once, and the naming helpers labels and messages use.

import type { Flags } from '../kit/variants.ts';
import type { Variant } from './mutants.ts';
import { listW, R, SERVER_NAMES, type KeyDef, type Op, type ShadowfaxConfig, type State } from './state.ts';

export interface Cx {
  config: ShadowfaxConfig;
  mut: Flags<Variant>;
  keys: readonly KeyDef[];
  /** Every client thread's script, one op per entry; op o is `ops[o]`. */
  ops: readonly Op[];
  /** Client thread c's first op. */
  firstOp: readonly number[];
  /** Ops per batch (1: an op is sent as it is issued). */
  batchSize: number;
  /** Server crashes allowed (B3); 0 leaves out checkpoints, flags and recovery. */
  crashes: number;
  /** The bucket entries of R's keys, in order: the chunks Migrate sends (L184). */
  entries: readonly number[];
}

export function context(config: ShadowfaxConfig, mut: Flags<Variant>): Cx {
  const keys = config.keys;
  const keyIndex = (name: string) => {
    const k = keys.findIndex((d) => d.name === name);
    if (k < 0) throw new Error(`shadowfax config: unknown key ${name}`);
    return k;
  };
  const ops: Op[] = [];
  const firstOp: number[] = [];
  config.clients.forEach((cl, c) => {
    firstOp.push(ops.length);
    for (const o of cl.script) ops.push({ c, f: o.f, k: keyIndex(o.key), arg: o.arg ?? 0 });
  });
  const crashes = config.crashes ?? 0;
  if (config.roundTrip && (config.sourceThreads !== 1 || config.tiers || config.compaction || crashes)) {
    throw new Error('shadowfax config: the round trip is modelled with one source thread, without tiers, compaction or crashes');
  }
  return {
    config,
    mut,
    keys,
    ops,
    firstOp,
    batchSize: config.batch ?? 1,
    crashes,
    entries: [...new Set(keys.filter((d) => d.range === R).map((d) => d.entry))].sort(),
  };
}

export const rangeOf = (cx: Cx, k: number): number => cx.keys[k].range;
export const entryOf = (cx: Cx, k: number): number => cx.keys[k].entry;
/** A key's value before the run: its in-memory record, else its newest SSD version, else NOT_FOUND. */
export const initialValue = (d: KeyDef): number | null => d.init ?? d.cold?.at(-1) ?? null;
/** The ranges an owner map gives server srv, as bits. */
export const rangesOf = (owner: readonly number[], srv: number): number => owner.reduce((acc, o, bit) => (o === srv ? acc | (1 << bit) : acc), 0);
export const rangeBit = (r: number): number => Math.log2(r);

// Physical names: on B4's return trip index S is T and index T is S (state.ts).
export const serverName = (s: State, srv: number): string => SERVER_NAMES[s.swapped ? 1 - srv : srv];
export const sourceThreadName = (swapped: boolean | undefined, t: number): string => `${swapped ? 't' : 's'}${t + 1}`;
export const targetThreadName = (swapped: boolean | undefined): string => (swapped ? 's1' : 't1');

export function describeOp(cx: Cx, o: number): string {
  const op = cx.ops[o];
  return `${op.f}(${cx.keys[op.k].name}${op.f === 'read' ? '' : `, ${op.f === 'rmw' ? '+' : ''}${op.arg}`})#${o}`;
}

/** Records a step invariant's failure (the first message per property), checked as a state invariant. */
export function breakInv(s: State, name: string, message: string): void {
  for (const [n] of s.broken) if (n === name) return;
  listW(s, 'broken').push([name, message]);
}
