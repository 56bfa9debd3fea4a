// The spec contract: what a protocol spec gives the explorer. Plain data and pure
// functions; the explorer never imports a spec, and a spec imports only these types and
// specs/kit.

import type { Model as SequentialModel } from '../lin/types.ts';

/** A step a state enables: a plain object whose label reads well in a counterexample. */
export interface Action {
  readonly label: string;
}

/** An invariant's answer: `true` when it holds, otherwise a message saying what broke. */
export type Check = true | string;

/**
 * What one transition did to the client history, for linearizability checking while
 * exploring. Clients are small integers 0..n-1; a client has at most one pending
 * operation.
 * - invoke: the client calls an operation.
 * - return: its pending operation completes with this output.
 * - crash:  its pending operation becomes indeterminate: it may take effect (once) at any
 *           later time, or never. The client may invoke again afterwards.
 * - fail:   its pending operation definitely did not take effect.
 */
export type ObservedEvent =
  | { kind: 'invoke'; client: number; input: unknown }
  | { kind: 'return'; client: number; output: unknown }
  | { kind: 'crash'; client: number }
  | { kind: 'fail'; client: number };

export interface HistoryObserver<S, A extends Action> {
  /** The sequential model the client history must be linearizable against. */
  model: SequentialModel;
  /** Number of clients (ids 0..clients-1). */
  clients: number;
  observe(before: S, action: A, after: S): readonly ObservedEvent[];
}

/**
 * Interchangeable ids (clients, replicas): `permute(s, p)` renames id i to p[i]
 * everywhere in s. The explorer keeps one representative per orbit.
 */
export interface Symmetry<S> {
  name: string;
  size: number;
  permute(state: S, perm: readonly number[]): S;
}

/** A spec instantiated at one config (and possibly one mutant): a state machine. */
export interface Machine<S = any, A extends Action = Action> {
  init(): S[];
  /** The actions enabled in s. Nondeterminism (values, crashes, deliveries) is actions. */
  actions(s: S): A[];
  /** Pure: must not modify s. */
  next(s: S, a: A): S;
  invariants: Record<string, (s: S) => Check>;
  /**
   * Deadlock detection: a state with no enabled action is a deadlock unless this returns
   * true. Without it, every terminal state is allowed.
   */
  mayStop?(s: S): boolean;
  /**
   * Livelock detection: transitions that count as progress (usually a client operation
   * completing). A reachable cycle without one is reported as a lasso counterexample.
   */
  progress?(before: S, a: A, after: S): boolean;
  history?: HistoryObserver<S, A>;
  symmetry?: Symmetry<S>[];
  /** The part of a state that identifies it (default: all of it). Must be plain data. */
  view?(s: S): unknown;
  /** The process an action belongs to (client, memory node, server), for sequence views. */
  actor?(a: A): string;
}

export interface ConfigDef<C> {
  name: string;
  description: string;
  config: C;
  /** 'default' configs run in `interleave check` and the tests; 'full' only with --full. */
  tier: 'default' | 'full';
}

export interface MutantDef {
  /** As in the extraction's catalogue, e.g. "M3". */
  name: string;
  description: string;
  /** The paper's section (and line) the mutant breaks. */
  breaks: string;
  /** 'safety': some property must be violated. 'control': benign, every property holds. */
  kind: 'safety' | 'control';
  /** The smallest config expected to expose it (or the one a control is checked in). */
  config: string;
  /** The property expected to catch it, when known. */
  expect?: string;
}

/**
 * A variant modelling the paper as literally written, where the checker shows a claimed
 * property violated. `check` passes while it reproduces.
 */
export interface FindingDef {
  name: string;
  description: string;
  /** The variant flag passed to build(), like a mutant's name. */
  variant: string;
  config: string;
  /** The property whose violation is the finding. */
  expect: string;
}

export interface SpecDef<C = any> {
  /** The folder name under specs/, used on the command line. */
  name: string;
  title: string;
  /** The source, e.g. "FUSEE (FAST '23), §3.3, Algorithms 1-4". */
  paper: string;
  configs: ConfigDef<C>[];
  mutants: MutantDef[];
  findings?: FindingDef[];
  /** `variant` is a mutant or finding name, or undefined for the protocol as specified. */
  build(config: C, variant?: string): Machine;
}
