// A worker thread that searches some partitions, in rounds (check.ts Rounds), and
// reports after each round the partitions that finished in it. The model arrives by its
// registry name: a model's functions cannot cross threads.

import { parentPort } from 'node:worker_threads';
import { Rounds } from './check.ts';
import { findModel } from './models/index.ts';
import type { Operation } from './types.ts';
import type { SearchResult } from './wgl.ts';

export interface Job {
  model: string;
  /** The partitions of the whole history, by index; only `mine` are searched here. */
  parts: Record<number, Operation[]>;
  mine: number[];
  deadline: number;
  verbose: boolean;
  memoLimitBytes: number;
  /** Int32 [0]: the first round in which a partition was illegal; stop after it. */
  stopAfter: SharedArrayBuffer;
}

export type WorkerMessage =
  | { kind: 'round'; round: number; finished: { index: number; result: SearchResult }[] }
  | { kind: 'done' };

parentPort!.once('message', (job: Job) => {
  const stopAfter = new Int32Array(job.stopAfter);
  const parts: Operation[][] = [];
  for (const i of job.mine) parts[i] = job.parts[i];
  const rounds = new Rounds(findModel(job.model)!, parts, job.mine, job);
  while (!rounds.done && rounds.round < Atomics.load(stopAfter, 0)) {
    const finished = rounds.play();
    if (finished.length > 0) {
      parentPort!.postMessage({ kind: 'round', round: rounds.round, finished } satisfies WorkerMessage);
      if (finished.some((f) => f.result.verdict === 'illegal')) {
        // Lower the shared stop round to this one, unless another worker lowered it more.
        for (;;) {
          const cur = Atomics.load(stopAfter, 0);
          if (rounds.round >= cur || Atomics.compareExchange(stopAfter, 0, cur, rounds.round) === cur) break;
        }
      }
    }
  }
  parentPort!.postMessage({ kind: 'done' } satisfies WorkerMessage);
});
