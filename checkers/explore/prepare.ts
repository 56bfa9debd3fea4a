// The one place where options turn a spec's machine into the machine that is searched
// (monitors and reductions are machine transformers). Both the main thread and every
// worker call it, so that all of them search the same machine.

import { withHistories } from './histories.ts';
import { withMonitor } from './monitor.ts';
import { withPor } from './por.ts';
import { checkInits, checkMachine, UnsupportedOption } from './errors.ts';
import { withSymmetry } from './symmetry.ts';
import { checkSymmetry } from './symmetry-check.ts';
import type { Action, ExploreOptions, Machine } from './types.ts';

export function prepare<S, A extends Action>(machine: Machine<S, A>, options: ExploreOptions): Machine<any, A> {
  // The contract, before any search takes an empty space for one that holds: init() a
  // non-empty array. (The searches check every actions() list as they meet it.)
  checkMachine(machine);
  checkInits<S>(machine.init());
  let m: Machine<any, A> = machine;
  // Incremental linearizability by default whenever the spec records a history.
  if (machine.history && (options.linearizability ?? 'incremental') === 'incremental') m = shown(withMonitor(m, { exact: options.store === 'exact' }), machine);
  if (machine.history && options.linearizability === 'histories') m = shown(withHistories(m), machine);
  if (options.symmetry) {
    if (!machine.symmetry?.length) throw new UnsupportedOption('symmetry: the spec declares no symmetry groups (Machine.symmetry), so there is nothing to reduce by');
    // A wrong permute would silently give wrong counts: each group is checked first.
    checkSymmetry(m);
    m = withSymmetry(m);
  }
  // After symmetry, so that POR's cycle proviso sees states as the store does.
  if (options.por) {
    if ((options.workers ?? 1) > 1) throw new Error('partial-order reduction runs on one thread: its cycle proviso remembers the states it expanded');
    m = withPor(m);
  }
  return m;
}

/**
 * Counterexamples show the spec's state (as the spec shows it), not the monitor's wrapper around it. Set on the
 * wrapper prepare() has just made (its own object). A copy by spread gave the prepared
 * machines maps of their own (V8; seen from the sixth of minos's configs explored in one
 * process on), and the search loop, compiled for one machine's map, was thrown away and
 * compiled again for each.
 */
function shown<W extends { s: unknown }, A extends Action>(m: Machine<W, A>, spec: Machine<any, A>): Machine<W, A> {
  // The spec's own `inner` too (a layout spec's: its words as plain fields)
  const own = spec.inner;
  m.inner = own === undefined ? (w) => w.s : (w) => own(w.s);
  return m;
}

/**
 * The properties a search of the spec's machine with these options checks: its
 * invariants, linearizability (a history, unless --lin off), deadlocks (mayStop, unless
 * they are not checked), livelocks (progress). None: a search would check nothing, and must not say "holds".
 */
export function propertiesChecked(machine: Pick<Machine<any, any>, 'invariants' | 'history' | 'mayStop' | 'progress'>, options: Pick<ExploreOptions, 'linearizability' | 'deadlock' | 'livelock'>): string[] {
  const names = Object.keys(machine.invariants ?? {});
  if (machine.history && options.linearizability !== 'off') names.push('linearizability');
  if (machine.mayStop && options.deadlock !== false) names.push('deadlock');
  if (options.livelock ?? machine.progress !== undefined) names.push('livelock');
  return names;
}
