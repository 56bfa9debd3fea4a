// What every step of one built machine shares: the config, the mutant flags, the scripts'
// ops resolved once, and the naming helpers labels and messages use.

import type { Flags } from '../kit/variants.ts';
import type { Variant } from './mutants.ts';
import { listW, R, SERVER_NAMES, type KeyDef, type Op, type ShadowfaxAction, type ShadowfaxConfig, type State } from './state.ts';

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
  /** Each key's range and bucket entry, by key index. */
  keyRange: readonly number[];
  keyEntry: readonly number[];
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
  // Every field present, in one order: guards read the config at every state, and configs
  // written with different optional fields would show them objects of different shapes.
  const full: Required<ShadowfaxConfig> = {
    keys,
    sourceThreads: config.sourceThreads,
    clients: config.clients,
    depth: config.depth,
    tiers: config.tiers,
    compaction: config.compaction ?? false,
    batch: config.batch ?? 1,
    roundTrip: config.roundTrip ?? false,
    crashes,
  };
  return {
    config: full,
    mut,
    keys,
    ops,
    firstOp,
    batchSize: config.batch ?? 1,
    crashes,
    entries: [...new Set(keys.filter((d) => d.range === R).map((d) => d.entry))].sort(),
    keyRange: keys.map((d) => d.range),
    keyEntry: keys.map((d) => d.entry),
  };
}

export const rangeOf = (cx: Cx, k: number): number => cx.keyRange[k];
export const entryOf = (cx: Cx, k: number): number => cx.keyEntry[k];
/** A key's value before the run: its in-memory record, else its newest SSD version, else NOT_FOUND. */
export const initialValue = (d: KeyDef): number | null => d.init ?? d.cold?.at(-1) ?? null;
/** The ranges an owner map gives server srv, as bits. */
export function rangesOf(owner: readonly number[], srv: number): number {
  let acc = 0;
  for (let bit = 0; bit < owner.length; bit++) if (owner[bit] === srv) acc |= 1 << bit;
  return acc;
}

/** The ranges the metadata store ever gave server srv in view v (their union, as bits). */
export function rangesAt(s: State, srv: number, v: number): number {
  const at = s.meta.rangesAt;
  let acc = 0;
  for (let i = 0; i < at.length; i++) if (at[i][0] === srv && at[i][1] === v) acc |= at[i][2];
  return acc;
}
export const rangeBit = (r: number): number => Math.log2(r);

// Physical names: on B4's return trip index S is T and index T is S (state.ts).
export const serverName = (s: State, srv: number): string => SERVER_NAMES[s.swapped ? 1 - srv : srv];
export const sourceThreadName = (swapped: boolean | undefined, t: number): string => `${swapped ? 't' : 's'}${t + 1}`;
export const targetThreadName = (swapped: boolean | undefined): string => (swapped ? 's1' : 't1');

// Guards run at every state: each keeps one action object per distinct action, made the
// first time it is enabled (`made[at] ??= { ... }`), so that its label is built once and
// the engine's coverage meets the same string again. `at` numbers what the action's
// fields and label depend on.

/** A client thread's session with server srv (in its role), and whether the roles are swapped (B4's labels give physical names). */
export const sessionAt = (c: number, srv: number, s: State): number => 4 * c + 2 * srv + (s.swapped ? 1 : 0);

/** Source thread t (in its role) and whether the roles are swapped: below `threadsAt(cx)`. */
export const threadAt = (t: number, s: State): number => 2 * t + (s.swapped ? 1 : 0);
export const threadsAt = (cx: Cx): number => 2 * cx.config.sourceThreads;

export function describeOp(cx: Cx, o: number): string {
  const op = cx.ops[o];
  return `${op.f}(${cx.keys[op.k].name}${op.f === 'read' ? '' : `, ${op.f === 'rmw' ? '+' : ''}${op.arg}`})#${o}`;
}

/** Records a step invariant's failure (the first message per property), checked as a state invariant. */
export function breakInv(s: State, name: string, message: string): void {
  for (let i = 0; i < s.broken.length; i++) if (s.broken[i][0] === name) return;
  listW(s, 'broken').push([name, message]);
}

/**
 * A step written once for every config: its guard takes the built machine's context and its
 * own store of the actions it made (`made`, see above), its effect the context. `bind` gives
 * one config's step. Written once rather than as closures made per config: V8 compiles a
 * closure that is the only one made at its site for the context it closes over, and throws
 * that code away when the next config makes a second one (B0-pipe recompiled B0's steps).
 */
export interface StepOf<E extends unknown[]> {
  readonly name: ShadowfaxAction['step'];
  readonly cites: string;
  readonly enabled: (cx: Cx, made: ShadowfaxAction[], ...args: E) => void;
  readonly effect: (cx: Cx, d: State, a: ShadowfaxAction) => void;
}
export interface BoundStep<E extends unknown[]> {
  readonly name: ShadowfaxAction['step'];
  readonly cites: string;
  readonly enabled: (...args: E) => void;
  readonly effect: (d: State, a: ShadowfaxAction) => void;
}
export const bindStep = <E extends unknown[]>(cx: Cx, st: StepOf<E>): BoundStep<E> => ({
  name: st.name,
  cites: st.cites,
  enabled: st.enabled.bind(undefined, cx, []),
  effect: st.effect.bind(undefined, cx),
});
/** The parameters after `made` of a global step's guard (the state, the actions out). */
export type GlobalArgs = [s: State, out: ShadowfaxAction[]];
/** … of a client thread's step (its index c). */
export type ActorArgs = [s: State, c: number, out: ShadowfaxAction[]];
/** … of a step of client thread c's session with server srv. */
export type MemberArgs = [s: State, c: number, srv: number, out: ShadowfaxAction[]];
/** Every step of a record of them, bound to one config. */
export function bindAll<K extends string, E extends unknown[]>(cx: Cx, steps: Record<K, StepOf<E>>): Record<K, BoundStep<E>> {
  const out = {} as Record<K, BoundStep<E>>;
  for (const k of Object.keys(steps) as K[]) out[k] = bindStep(cx, steps[k]);
  return out;
}
