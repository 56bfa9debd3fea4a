// What a search reports, built in one place: the single-threaded searches (search.ts), the
// parallel coordinator (parallel.ts) and its workers' coverage counts (worker.ts) all go
// through these, so that a result means the same whichever search produced it.

import { collisionProbability } from './store.ts';
import type { Action, Counterexample, CoverageEntry, ExploreResult } from './types.ts';

/** How often each action family (the label up to '(') was enabled in an expanded state. */
export class Coverage {
  /** label or family name -> index into families / counts */
  private readonly familyOf = new Map<string, number>();
  private readonly families: string[] = [];
  private readonly counts: number[] = [];

  /** `names`: the families the spec declares (Machine.actionNames), listed even if never enabled. */
  constructor(names: readonly string[] = []) {
    for (const name of names) this.family(name);
  }

  private family(name: string): number {
    let f = this.familyOf.get(name);
    if (f === undefined) {
      f = this.families.length;
      this.families.push(name);
      this.counts.push(0);
      this.familyOf.set(name, f);
    }
    return f;
  }

  /** Counts the actions enabled in an expanded state, by family. */
  count(enabled: readonly Action[]): void {
    for (let i = 0; i < enabled.length; i++) {
      const label = enabled[i].label;
      let f = this.familyOf.get(label);
      if (f === undefined) {
        const paren = label.indexOf('(');
        f = this.family(paren < 0 ? label : label.slice(0, paren));
        this.familyOf.set(label, f);
      }
      this.counts[f]++;
    }
  }

  /** Adds another search's counts (a worker's `entries()`). */
  merge(entries: readonly (readonly [string, number])[]): void {
    for (const [family, n] of entries) this.counts[this.family(family)] += n;
  }

  /** The counts as plain data, for a message between threads. */
  entries(): [string, number][] {
    return this.families.map((family, f) => [family, this.counts[f]]);
  }

  /** Each family once, sorted by name. */
  list(): CoverageEntry[] {
    const seen = new Set<string>();
    return this.entries()
      .filter(([family]) => (seen.has(family) ? false : (seen.add(family), true)))
      .map(([family, enabled]) => ({ family, enabled }))
      .sort((a, b) => (a.family < b.family ? -1 : a.family > b.family ? 1 : 0));
  }
}

/** Everything a search knows at its end; `buildResult` derives the rest. */
export interface SearchOutcome {
  strategy: ExploreResult['strategy'];
  store: ExploreResult['store'];
  workers: number;
  states: number;
  transitions: number;
  depth: number;
  /** performance.now() when the search started. */
  started: number;
  violations: Counterexample[];
  /** Why the search did not cover the space (a budget, the depth bound, time, simulation), if so. */
  incompleteReason?: string;
  coverage: Coverage;
  /** Bytes of the state store, and of the trace log kept beside it. */
  storeBytes: number;
  logBytes: number;
  startupMs?: number;
  notes?: string[];
}

/**
 * The result: `violation` whenever a counterexample was found (a budget that also cut the
 * run is still named in incompleteReason), else `incomplete` when the space was not
 * covered, else `holds`.
 */
export function buildResult(o: SearchOutcome): ExploreResult {
  const coverage = o.coverage.list();
  const reason = o.incompleteReason;
  return {
    status: o.violations.length > 0 ? 'violation' : reason !== undefined ? 'incomplete' : 'holds',
    ...(reason !== undefined ? { incompleteReason: reason } : {}),
    strategy: o.strategy,
    store: o.store,
    workers: o.workers,
    states: o.states,
    transitions: o.transitions,
    depth: o.depth,
    elapsedMs: performance.now() - o.started,
    ...(o.startupMs !== undefined ? { startupMs: o.startupMs } : {}),
    violations: o.violations,
    coverage,
    neverEnabled: coverage.filter((c) => c.enabled === 0).map((c) => c.family),
    ...(o.store === 'fingerprint' ? { collisionProbability: collisionProbability(o.states) } : {}),
    bytesPerState: o.states === 0 ? 0 : (o.storeBytes + o.logBytes) / o.states,
    storeBytesPerState: o.states === 0 ? 0 : o.storeBytes / o.states,
    ...(o.notes?.length ? { notes: o.notes } : {}),
  };
}
