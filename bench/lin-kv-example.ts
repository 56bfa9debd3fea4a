// Issue 21's two examples (seed 11), for timing the check of one tree against another's
// in a process each, and the whole `interleave lin` process on the files they write:
// kv-append (100,000 operations, 2 clients, 8 keys, 0.5% crashed) and the FIFO queue
// (1,000 operations, 2 clients, 0.5% crashed), each linearizable (ok) and with one output
// corrupted (bad).
//   node --import tsx bench/lin-kv-example.ts --write DIR     kv-ok.jsonl, kv-bad.jsonl, queue-ok.jsonl, queue-bad.jsonl
//                                                             (jsonl, as `interleave lin` reads them)
//   node --import tsx bench/lin-kv-example.ts TREE FILE [M]   TREE's checkHistorySync on FILE with model M (default
//                                                             kv-append): the first check in the process, then the
//                                                             best of 4 (wall and CPU ms), peak RSS
// Whole processes: node dist/cli/main.js lin DIR/kv-ok.jsonl --model kv-append (queue: --model queue).
// The history is read back from JSON so that its strings are flat, as a file gives them.

import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateHistory, type GenerateOptions } from '../checkers/lin/generate.ts';

const EXAMPLES: Record<string, Omit<GenerateOptions, 'corrupt'>> = {
  kv: { family: 'kv', ops: 100_000, clients: 2, keys: 8, crashRate: 0.005, seed: 11 },
  queue: { family: 'queue', ops: 1000, clients: 2, crashRate: 0.005, seed: 11 },
};

const args = process.argv.slice(2);
if (args[0] === '--write') {
  for (const [name, options] of Object.entries(EXAMPLES)) {
    for (const corrupt of [0, 1]) {
      const g = generateHistory({ ...options, corrupt });
      const lines = g.history.map((o) =>
        JSON.stringify({ client: o.client, input: o.input, call: o.call, ...(o.ret !== undefined ? { return: o.ret, output: o.output, status: 'ok' } : { status: 'info' }) }),
      );
      writeFileSync(join(args[1], `${name}-${corrupt ? 'bad' : 'ok'}.jsonl`), lines.join('\n') + '\n');
    }
  }
} else {
  const [tree, file, model = 'kv-append'] = args;
  const { checkHistorySync } = await import(pathToFileURL(resolve(tree, 'checkers/lin/index.ts')).href);
  const history = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => {
      const o = JSON.parse(l);
      return { client: o.client, input: o.input, call: o.call, ...(o.return !== undefined ? { ret: o.return, output: o.output } : {}) };
    });
  const once = (): [number, number, string] => {
    const c = process.cpuUsage();
    const s = performance.now();
    const r = checkHistorySync(model, history);
    const u = process.cpuUsage(c);
    return [performance.now() - s, (u.user + u.system) / 1000, r.verdict];
  };
  const [firstMs, firstCpu, verdict] = once();
  let warm = Infinity;
  let warmCpu = Infinity;
  for (let i = 0; i < 4; i++) {
    const [ms, cpu] = once();
    warm = Math.min(warm, ms);
    warmCpu = Math.min(warmCpu, cpu);
  }
  const r = (x: number): number => Math.round(x);
  console.log(JSON.stringify({ tree, verdict, first_ms: r(firstMs), first_cpu_ms: r(firstCpu), warm_ms: r(warm), warm_cpu_ms: r(warmCpu), peak_rss_MB: r(process.resourceUsage().maxRSS / 1024) }));
}
