// Fault budgets: crashes, restarts and suspicions as actions a spec enables while its
// budget lasts. The state of a role's faults is plain data the spec embeds
// (`faults(n)`); the choices are pure, the effects change a draft's copy in place.

export interface FaultBudget {
  /** Crashes allowed over the whole run. */
  crash: number;
  /** Restarts of a crashed member allowed (0: a crash is for ever). */
  restart?: number;
  /** Suspicions (a failure detector's false or true alarm) allowed. */
  suspect?: number;
}

/** One role's faults (memory nodes, clients, replicas). */
export interface Faults {
  down: boolean[];
  suspected: boolean[];
  crashes: number;
  restarts: number;
  suspicions: number;
}

export const faults = (n: number): Faults =>
  ({ down: Array(n).fill(false), suspected: Array(n).fill(false), crashes: 0, restarts: 0, suspicions: 0 });

export const copyFaults = (f: Faults): Faults => ({ ...f, down: f.down.slice(), suspected: f.suspected.slice() });

export type FaultKind = 'crash' | 'restart' | 'suspect';

/**
 * The members each fault may hit now: `crash` a live member (and, when given, one
 * `eligible` says may crash, e.g. only one with an operation pending), `restart` a crashed
 * one, `suspect` an unsuspected one; each while its budget lasts. In member order, crash
 * choices first.
 */
export function faultChoices(f: Faults, budget: FaultBudget, eligible?: (i: number) => boolean): { kind: FaultKind; member: number }[] {
  const out: { kind: FaultKind; member: number }[] = [];
  if (f.crashes < budget.crash) {
    for (let i = 0; i < f.down.length; i++) if (!f.down[i] && (!eligible || eligible(i))) out.push({ kind: 'crash', member: i });
  }
  if (f.restarts < (budget.restart ?? 0)) {
    for (let i = 0; i < f.down.length; i++) if (f.down[i]) out.push({ kind: 'restart', member: i });
  }
  if (f.suspicions < (budget.suspect ?? 0)) {
    for (let i = 0; i < f.down.length; i++) if (!f.suspected[i]) out.push({ kind: 'suspect', member: i });
  }
  return out;
}

/** Spends the budget and records the fault (on a draft). */
export function applyFault(f: Faults, kind: FaultKind, member: number): void {
  if (kind === 'crash') {
    f.down[member] = true;
    f.crashes++;
  } else if (kind === 'restart') {
    f.down[member] = false;
    f.restarts++;
  } else {
    f.suspected[member] = true;
    f.suspicions++;
  }
}
