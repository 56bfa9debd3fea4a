// Fault budgets: crashes, restarts and suspicions as actions a spec enables while its
// budget lasts. One role's faults (memory nodes, clients, replicas; up to 31 members) are a
// small immutable tuple the spec embeds in its state: a fault step replaces it
// (`applyFault` returns a new one), so copying a state shares it and the engine encodes it
// as a few words.

export interface FaultBudget {
  /** Crashes allowed over the whole run. */
  crash: number;
  /** Restarts of a crashed member allowed (0: a crash is for ever). */
  restart?: number;
  /** Suspicions (a failure detector's false or true alarm) allowed. */
  suspect?: number;
}

/** Bitmasks of the members down and suspected, and the budget spent on each kind. */
export type Faults = readonly [down: number, suspected: number, crashes: number, restarts: number, suspicions: number];

export const NO_FAULTS: Faults = [0, 0, 0, 0, 0];

export const isDown = (f: Faults, i: number): boolean => (f[0] & (1 << i)) !== 0;
export const isSuspected = (f: Faults, i: number): boolean => (f[1] & (1 << i)) !== 0;
export const crashesOf = (f: Faults): number => f[2];

export type FaultKind = 'crash' | 'restart' | 'suspect';

/**
 * The members of 0..n-1 each fault may hit now: `crash` a live member (and, when given,
 * one `eligible` says may crash, e.g. only one with an operation pending), `restart` a
 * crashed one, `suspect` an unsuspected one; each while its budget lasts. In member
 * order, crash choices first.
 */
export function faultChoices(f: Faults, n: number, budget: FaultBudget, eligible?: (i: number) => boolean): { kind: FaultKind; member: number }[] {
  const out: { kind: FaultKind; member: number }[] = [];
  if (f[2] < budget.crash) {
    for (let i = 0; i < n; i++) if (!isDown(f, i) && (!eligible || eligible(i))) out.push({ kind: 'crash', member: i });
  }
  if (f[3] < (budget.restart ?? 0)) {
    for (let i = 0; i < n; i++) if (isDown(f, i)) out.push({ kind: 'restart', member: i });
  }
  if (f[4] < (budget.suspect ?? 0)) {
    for (let i = 0; i < n; i++) if (!isSuspected(f, i)) out.push({ kind: 'suspect', member: i });
  }
  return out;
}

/** The faults after one more, its budget spent. */
export function applyFault(f: Faults, kind: FaultKind, member: number): Faults {
  const [down, suspected, crashes, restarts, suspicions] = f;
  const bit = 1 << member;
  if (kind === 'crash') return [down | bit, suspected, crashes + 1, restarts, suspicions];
  if (kind === 'restart') return [down & ~bit, suspected, crashes, restarts + 1, suspicions];
  return [down, suspected | bit, crashes, restarts, suspicions + 1];
}
