// Messages between the parallel search's coordinator (parallel.ts) and its workers
// (worker.ts), and the layout of the shared control words.

/** Indices into the shared Int32Array of control words. */
export const CTL = {
  /** set to stop every worker: 1 a violation (without `all`), 2 the time limit */
  stop: 0,
  size: 1,
} as const;

export interface WorkerViolation {
  property: string;
  message: string;
  depth: number;
}

export type ToWorker =
  | { type: 'table'; table: SharedArrayBuffer; capacity: number; ctl: SharedArrayBuffer }
  | { type: 'seed'; indices: number[] }
  /** quota: how many new states the worker may insert before it pauses (for the table to grow) */
  | { type: 'level'; depth: number; cut: boolean; quota: number }
  | { type: 'resume'; quota: number }
  | { type: 'advance' }
  | { type: 'give'; count: number }
  | { type: 'take'; states: unknown[] }
  | { type: 'finish' };

export type ToCoordinator =
  | { type: 'ready' }
  | { type: 'levelDone' | 'paused'; transitions: number; added: number; depthCut: boolean; next: number; violations: WorkerViolation[] }
  | { type: 'states'; states: unknown[] }
  | { type: 'coverage'; counts: [string, number][] };
