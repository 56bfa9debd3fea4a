// What a search reports, built in one place: the single-threaded searches (search.ts), the
// parallel coordinator (parallel.ts) and its workers' coverage counts (worker.ts) all go
// through these, so that a result means the same whichever search produced it.

import { checkEnabled } from './errors.ts';
import { collisionProbability } from './store.ts';
import type { Action, Counterexample, CoverageEntry, ExploreResult } from './types.ts';

/** Positions of an enabled list that count() remembers labels for. */
const SLOTS = 64;
const NO_LABEL = {} as unknown as string;
/** Lists countList() remembers. */
const MAX_LISTS = 4096;

/** How often each action family (the label up to '(') was enabled in an expanded state. */
export class Coverage {
  /** label or family name -> index into families / counts */
  private readonly familyOf = new Map<string, number>();
  private readonly families: string[] = [];
  /** Per family, times enabled (a typed array: count() adds to it for every enabled action). */
  private counts = new Float64Array(16);

  /** `names`: the families the spec declares (Machine.actionNames), listed even if never enabled. */
  constructor(names: readonly string[] = []) {
    for (const name of names) this.family(name);
  }

  private family(name: string): number {
    let f = this.familyOf.get(name);
    if (f === undefined) {
      f = this.families.length;
      this.families.push(name);
      if (f === this.counts.length) {
        const grown = new Float64Array(2 * f);
        grown.set(this.counts);
        this.counts = grown;
      }
      this.familyOf.set(name, f);
    }
    return f;
  }

  /**
   * The two labels last met at each position of an enabled list (mod SLOTS), with their
   * families: states of a search enable much the same actions in the same places, so a
   * label is mostly one of those two, and comparing it with them (the same string, or a
   * short one of the same length) costs less than hashing it for the Map, which a spec
   * that builds its labels anew at every step (`p${p}.read`) would make it do each time.
   */
  // Filled with a value no label is (an undefined label must reach familyOfLabel, which refuses it).
  private readonly labels: (string | undefined)[] = new Array(2 * SLOTS).fill(NO_LABEL);
  private readonly labelFamilies = new Int32Array(2 * SLOTS);

  /** Counts the actions enabled in an expanded state, by family. */
  count(enabled: readonly Action[]): void {
    if (!Array.isArray(enabled)) checkEnabled(enabled);
    const labels = this.labels;
    const families = this.labelFamilies;
    let counts = this.counts;
    for (let i = 0; i < enabled.length; i++) {
      const label = enabled[i].label;
      const at = 2 * (i & (SLOTS - 1));
      let f: number;
      if (label === labels[at]) f = families[at];
      else if (label === labels[at + 1]) f = families[at + 1];
      else {
        f = this.familyOfLabel(label);
        labels[at + 1] = labels[at];
        families[at + 1] = families[at];
        labels[at] = label;
        families[at] = f;
        counts = this.counts;
      }
      counts[f]++;
    }
  }

  /**
   * Lists counted whole (countList), each with its number in listCounts: a spec that keeps
   * one list per set of enabled actions (specs/kit/racy-counter-layout.ts) is counted by
   * one lookup per state instead of one per action; the lists' actions are added to their
   * families when the counts are read. At most MAX_LISTS lists; others are counted by count().
   */
  private readonly lists = new Map<readonly Action[], number>();
  private listCounts = new Float64Array(64);
  private listHits = 0;
  private listsOff = false;

  /**
   * count() for a search that keeps the lists actions() returns as they were (the layout
   * search: a list is read after actions() has been called again), so a list met again is
   * the same actions: counted by the list.
   */
  countList(enabled: readonly Action[]): void {
    if (this.listsOff) return this.count(enabled);
    const at = this.lists.get(enabled);
    if (at !== undefined) {
      this.listHits++;
      this.listCounts[at]++;
      return;
    }
    if (!Array.isArray(enabled)) checkEnabled(enabled);
    const size = this.lists.size;
    if (size >= MAX_LISTS) {
      // A spec that makes its lists anew meets none twice: stop looking them up.
      if (this.listHits < size) this.listsOff = true;
      return this.count(enabled);
    }
    if (size === this.listCounts.length) {
      const grown = new Float64Array(2 * size);
      grown.set(this.listCounts);
      this.listCounts = grown;
    }
    this.lists.set(enabled, size);
    this.listCounts[size] = 1;
  }

  /** Adds the lists' counts to their actions' families. */
  private fold(): void {
    for (const [list, at] of this.lists) {
      const times = this.listCounts[at];
      if (times === 0) continue;
      for (let i = 0; i < list.length; i++) {
        // The family first, then the counts: a family first met here may grow them, and
        // `this.counts[this.familyOfLabel(..)] += times` added to the array it replaced.
        const f = this.familyOfLabel(list[i].label);
        this.counts[f] += times;
      }
      this.listCounts[at] = 0;
    }
  }

  private familyOfLabel(label: string): number {
    let f = this.familyOf.get(label);
    if (f === undefined) {
      if (typeof label !== 'string') checkEnabled([{ label }]);
      const paren = label.indexOf('(');
      f = this.family(paren < 0 ? label : label.slice(0, paren));
      this.familyOf.set(label, f);
    }
    return f;
  }

  /** Adds another search's counts (a worker's `entries()`). */
  merge(entries: readonly (readonly [string, number])[]): void {
    for (const [family, n] of entries) {
      const f = this.family(family); // before reading this.counts, which it may grow (fold)
      this.counts[f] += n;
    }
  }

  /** The counts as plain data, for a message between threads. */
  entries(): [string, number][] {
    this.fold();
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
