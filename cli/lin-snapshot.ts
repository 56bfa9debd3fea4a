// `interleave lin` as a V8 startup snapshot holds it (bin/lin-snapshot.js builds the blob
// and starts it; cli/README.md): the command's modules evaluated, and the functions a check
// runs already compiled to bytecode by a warm-up during the build. A first check in a
// fresh process otherwise spends ~85% of its time in V8's lazy compilation
// (checkers/lin/RESULTS-issue21.md, "The first check in a fresh process").
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { partitionOps, plan, runInThread } from '../checkers/lin/check.ts';
import { ValueMap } from '../checkers/lin/hash.ts';
import { smallSearch } from '../checkers/lin/small.ts';
import { feedbackBySizeFromSnapshot } from '../checkers/lin/v8-feedback.ts';
import { checkHistorySync, UNKNOWN, type LinResult, type Model, type Operation } from '../checkers/lin/index.ts';
import { FAMILIES, generateHistory, type Family } from '../checkers/lin/generate.ts';
import { jsonlLines } from '../traces/write-jsonl.ts';
import { runCli } from './errors.ts';
import * as lin from './lin.ts';
import { programOf } from './program-root.ts';

/** What cli/main.ts runs, with the program of `lin` alone (what program.ts builds for a `lin` command line). */
export async function main(): Promise<void> {
  process.exitCode = await runCli(programOf([lin]), process.argv);
}

/**
 * What the warm-up's checks of 10-operation histories made (each check's plan, its small
 * searches' answers, its result, the history, the model's states), kept alive into the
 * snapshot. V8 keeps an object's hidden class (map) in a snapshot only while some object has
 * it: the maps a check makes would otherwise be dropped and made again, one per property, by
 * every first check (CheckPlan's 12 in each; ~12% of a 10-operation first check,
 * RESULTS-issue21.md, lin-10). Bytecode is kept either way. Larger histories make the same
 * maps: keeping theirs too only made the blob larger (+357 KB) and the start dearer.
 */
const made: unknown[] = [];
const KEEP_MAX_OPS = 10;

/**
 * The model's states along each partition's linearization (or longest partial one), kept
 * with the rest: a model's state classes and step results (kv's, set's) are made in every
 * search, and their maps too would be dropped from the snapshot otherwise.
 */
function keepStates(model: Model, history: readonly Operation[], r: LinResult): void {
  for (const part of r.partitions) {
    const seq = part.linearization ?? part.longest?.[0];
    if (seq === undefined) continue;
    try {
      let state = model.init();
      made.push(state);
      for (const i of seq) {
        const op = history[i]!;
        const next = model.step(state, op.input, op.ret === undefined ? UNKNOWN : op.output);
        made.push(next);
        state = next.state;
      }
    } catch {
      // A model that throws here keeps nothing more: only the snapshot's maps depend on it.
    }
  }
}

/**
 * Runs `interleave lin` (in this process, output discarded) on generated histories of every
 * model: linearizable and corrupted, with and without crashed operations, 10 to 300
 * operations on 2, 8 and 64 clients, as text and as --json, so that every function a check
 * of such a history runs (reading the file, the small and the full search, the reports)
 * has been compiled when the snapshot is taken. What the checks leave is compiled code and
 * the objects kept in `made`: results never depend on an earlier check
 * (cli/lin-snapshot.test.ts compares).
 */
export async function warmUp(): Promise<void> {
  feedbackBySizeFromSnapshot();
  // And a ValueMap (hash.ts), which the models' hooks make on every check (register's and
  // queue's refutations): it lives only inside a hook.
  made.length = 0;
  made.push(new ValueMap<unknown>());
  const dir = mkdtempSync(join(tmpdir(), 'interleave-lin-warm-up-'));
  const io = { out: () => {}, err: () => {} };
  const shapes: [number, number][] = [[10, 2], [10, 8], [30, 2], [30, 8], [30, 64], [100, 2], [100, 8], [100, 64], [300, 2], [300, 8]];
  let seed = 1;
  try {
    for (const family of FAMILIES as readonly Family[]) {
      for (const [ops, clients] of shapes) {
        for (const crashRate of [0.005, 0.1]) {
          for (const corrupt of [0, 1]) {
            const g = generateHistory({ family, ops, clients, crashRate, corrupt, seed: seed++ });
            const file = join(dir, `${family}-${seed}.jsonl`);
            writeFileSync(file, jsonlLines(g.history).join('\n') + '\n');
            await lin.runLin(file, { model: g.model, format: 'auto', json: seed % 2 === 0, timeout: 2 }, io);
            if (ops > KEEP_MAX_OPS) checkHistorySync(g.model, g.history, { timeoutMs: 2000 });
            else {
              const p = plan(g.model, g.history, { timeoutMs: 2000 });
              const r = runInThread(p);
              made.push(p, r, g.history);
              // The small search's own answers too (an illegal one with its proof).
              for (const part of partitionOps(p)) made.push(smallSearch(p.model, part));
              keepStates(p.model, g.history, r);
            }
          }
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
