// What every step of one built machine shares: the config, the mutant flags, the figures
// derived from them once, and the action shape. Steps are tables (specs/kit/table.ts) over
// this context: client.ts, put.ts, rowan-log.ts, failover.ts, recovery.ts.
import type { ActorStep, GlobalStep, StepAction } from '../kit/table.ts';
import type { Flags } from '../kit/variants.ts';
import type { Variant } from './mutants.ts';
import type { RowanConfig, RowanState } from './state.ts';

export interface Cx {
  conf: RowanConfig;
  mut: Flags<Variant>;
  /** Shards. */
  nsh: number;
  /** Server ids 0..servers-1. */
  servers: number[];
  /** A new term can come: it needs a failure (cmNewConfig) or a migration (cmMigrate). */
  reconfigures: boolean;
}

export const context = (conf: RowanConfig, mut: Flags<Variant>): Cx => ({
  conf,
  mut,
  nsh: conf.shards.length,
  servers: [...Array(conf.servers).keys()],
  reconfigures: conf.failures > 0 || !!conf.migrate,
});

/** An action: its step, up to two server/client/segment numbers, and a QP or slot key. */
export interface RowanAction extends StepAction {
  step: string;
  a: number;
  b: number;
  key?: string;
}

/**
 * The action `step(a, b, key)`. Actions are plain immutable data, so each is made once
 * and handed out again: guards run for every state, and most enable the
 * same few actions.
 */
export const act = (step: string, a = -1, b = -1, key?: string): RowanAction => {
  if (a < -1 || b < -1 || a >= ACT_SPAN - 1 || b >= ACT_SPAN - 1) return makeAct(step, a, b, key);
  // by step (the one asked last, most often, compared first: steps are string literals),
  // then by key; no string is made to look one up (keys are the guards' own strings)
  let of = lastActs;
  if (step !== lastStep) {
    of = acts.get(step);
    if (of === undefined) acts.set(step, (of = { plain: [], byKey: new Map() }));
    lastStep = step;
    lastActs = of;
  }
  let byArgs = of!.plain;
  if (key !== undefined) {
    const kept = of!.byKey.get(key);
    if (kept === undefined) of!.byKey.set(key, (byArgs = []));
    else byArgs = kept;
  }
  const i = (a + 1) * ACT_SPAN + b + 1;
  return (byArgs[i] ??= makeAct(step, a, b, key));
};

const ACT_SPAN = 64;
/** Per step, its actions without a key and by key, each by (a, b). */
const acts = new Map<string, { plain: RowanAction[]; byKey: Map<string, RowanAction[]> }>();
let lastStep: string | undefined;
let lastActs: { plain: RowanAction[]; byKey: Map<string, RowanAction[]> } | undefined;

function makeAct(step: string, a: number, b: number, key?: string): RowanAction {
  let args = a >= 0 ? String(a) : '';
  if (b >= 0) args = args ? `${args}, ${b}` : String(b);
  if (key !== undefined) args = args ? `${args}, ${key}` : key;
  return { label: `${step}(${args})`, step, a, b, key };
}

/**
 * The servers a step may modify: next() copies only these (the others are shared with the
 * previous state, state.ts). Default: server a.a, when a.a is a server.
 */
export type Writes = (s: RowanState, a: RowanAction) => number[] | 'all';

/** A step that writes no server (a client's, or the CM's): next() copies none. */
const noServers: number[] = [];
export const none: Writes = () => noServers;

/**
 * `exists: false`: the configuration has no such step (split DMA off, no CommitVer, no
 * power failure …), so its guard, which says so too, is never asked (machine.ts).
 */
interface StepExtras {
  writes?: Writes;
  exists?: boolean;
}
export type RowanStep = ActorStep<RowanState, RowanAction> & StepExtras;
export type RowanGlobalStep = GlobalStep<RowanState, RowanAction> & StepExtras;
