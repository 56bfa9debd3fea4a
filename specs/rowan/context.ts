// What every step of one built machine shares: the config, the mutant flags, the figures
// derived from them once, and the action shape. Steps are tables (specs/kit/table.ts) over
// this context: client.ts, put.ts, rowan-log.ts, failover.ts, recovery.ts.
import type { ActorStep, GlobalStep, StepAction } from '../kit/table.ts';
import type { Flags } from '../kit/variants.ts';
import type { Variant } from './mutants.ts';
import { Configs, type RowanConfig, type RowanState } from './state.ts';

/**
 * The context of one built machine. A class rather than an object literal: the steps and
 * invariants read it in every state, and with a literal, making the second configuration's
 * context threw away the compiled code of every function that had read the first one's
 * (18-19 functions at RK-1, `node --trace-deopt`: "code dependencies"); with a class, one.
 */
export class Cx {
  /** Shards. */
  readonly nsh: number;
  /** Shard ids 0..nsh-1. */
  readonly shards: number[];
  /** Server ids 0..servers-1. */
  readonly servers: number[];
  /** A new term can come: it needs a failure (cmNewConfig) or a migration (cmMigrate). */
  readonly reconfigures: boolean;
  /** The configurations the CM made, one object each (state.ts `Configs`). */
  readonly configs = new Configs();

  constructor(
    readonly conf: RowanConfig,
    readonly mut: Flags<Variant>,
  ) {
    this.nsh = conf.shards.length;
    this.shards = [...conf.shards.keys()];
    this.servers = [...Array(conf.servers).keys()];
    this.reconfigures = conf.failures > 0 || !!conf.migrate;
  }
}

export const context = (conf: RowanConfig, mut: Flags<Variant>): Cx => new Cx(conf, mut);

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
export const none = (): number[] => noServers;

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

/**
 * A step as the step files write it: one object for every configuration, whose guard,
 * effect, writes and exists take the configuration's context first. Each function is made
 * once, at load, so V8 compiles it once for all configurations; closures made per built
 * machine were compiled again for each configuration (their first code is specialised to
 * the first configuration's closure). `bound` gives the kit's step for one configuration.
 */
interface StepOf {
  readonly name: string;
  readonly cites: string;
  readonly effect: (cx: Cx, d: RowanState, a: RowanAction) => void;
  readonly writes?: (cx: Cx, s: RowanState, a: RowanAction) => number[] | 'all';
  /** false: the configuration has no such step (its guard says so too, and is never asked). */
  readonly exists?: (cx: Cx) => boolean;
}
export interface RowanStepOf extends StepOf {
  readonly enabled: (cx: Cx, s: RowanState, actor: number, out: RowanAction[]) => void;
}
export interface RowanGlobalStepOf extends StepOf {
  readonly enabled: (cx: Cx, s: RowanState, out: RowanAction[]) => void;
}

/** The steps of one configuration: each function given cx (bound: the function itself is shared). */
export function bound<T extends Record<string, RowanStepOf | RowanGlobalStepOf>>(cx: Cx, steps: T): { [K in keyof T]: T[K] extends RowanGlobalStepOf ? RowanGlobalStep : RowanStep } {
  const out: Record<string, RowanStep | RowanGlobalStep> = {};
  for (const [k, st] of Object.entries(steps)) {
    out[k] = {
      name: st.name,
      cites: st.cites,
      enabled: (st.enabled as (...args: unknown[]) => void).bind(undefined, cx),
      effect: st.effect.bind(undefined, cx),
      ...(st.writes ? { writes: st.writes.bind(undefined, cx) } : {}),
      exists: st.exists ? st.exists(cx) : true,
    };
  }
  return out as { [K in keyof T]: T[K] extends RowanGlobalStepOf ? RowanGlobalStep : RowanStep };
}
