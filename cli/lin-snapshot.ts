// `interleave lin` as a V8 startup snapshot holds it (bin/lin-snapshot.js builds the blob
// and starts it; cli/README.md): the command's modules evaluated, and the functions a check
// runs already compiled to bytecode by a warm-up during the build. A first check in a
// fresh process otherwise spends ~85% of its time in V8's lazy compilation
// (checkers/lin/RESULTS-issue21.md, "The first check in a fresh process").
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkHistorySync } from '../checkers/lin/index.ts';
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
 * Runs `interleave lin` (in this process, output discarded) on generated histories of every
 * model: linearizable and corrupted, with and without crashed operations, 10 to 300
 * operations on 2, 8 and 64 clients, as text and as --json, so that every function a check
 * of such a history runs (reading the file, the small and the full search, the reports)
 * has been compiled when the snapshot is taken. What the checks leave is only compiled
 * code: results never depend on an earlier check (bin/lin-snapshot.test.ts compares).
 */
export async function warmUp(): Promise<void> {
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
            checkHistorySync(g.model, g.history, { timeoutMs: 2000 });
          }
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
