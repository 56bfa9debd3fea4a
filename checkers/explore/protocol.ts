// Messages between the parallel search's coordinator (parallel.ts) and its workers
// (worker.ts), and the layout of the shared control words.

/** Indices into the shared Int32Array of control words. */
export const CTL = {
  /** distinct states stored so far */
  states: 0,
  /** set to stop every worker (a violation without `all`, the time limit) */
  stop: 1,
  /** set by a worker that found the table past its load limit */
  grow: 2,
  /** set when the state budget was exceeded */
  budget: 3,
  size: 4,
} as const;

export interface WorkerViolation {
  property: string;
  message: string;
  depth: number;
}

export type ToWorker =
  | { type: 'table'; table: SharedArrayBuffer; capacity: number; limit: number; ctl: SharedArrayBuffer }
  | { type: 'seed'; indices: number[] }
  | { type: 'level'; depth: number; cut: boolean }
  | { type: 'resume' }
  | { type: 'advance' }
  | { type: 'give'; count: number }
  | { type: 'take'; states: unknown[] }
  | { type: 'finish' };

export type ToCoordinator =
  | { type: 'ready' }
  | { type: 'levelDone' | 'paused'; transitions: number; depthCut: boolean; next: number; violations: WorkerViolation[] }
  | { type: 'states'; states: unknown[] }
  | { type: 'coverage'; counts: [string, number][] };
