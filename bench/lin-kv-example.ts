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
//   node --import tsx bench/lin-kv-example.ts --processes DIR [BASE_TREE] [--runs N]
//                                                             each example as a user runs it, a process from the
//                                                             built package (`node dist/cli/main.js lin DIR/kv-ok.jsonl
//                                                             --model kv-append`), and `--version`, `--help`: N runs
//                                                             each (default 5), this tree and BASE_TREE alternating
//                                                             (both built: `npm run build`); wall, CPU (user+sys)
//                                                             and peak RSS by /usr/bin/time, the median of each,
//                                                             and the load average; with --bin, through
//                                                             `node bin/interleave.js` instead, as the command starts
//                                                             (`interleave lin` from its startup snapshot when one is
//                                                             built: bin/lin-snapshot.js; peak RSS is the largest
//                                                             process's, the launcher's ~45 MB not added)
// The history is read back from JSON so that its strings are flat, as a file gives them.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generateHistory, type GenerateOptions } from '../checkers/lin/generate.ts';
import { jsonlLines } from '../traces/write-jsonl.ts';

const EXAMPLES: Record<string, Omit<GenerateOptions, 'corrupt'>> = {
  kv: { family: 'kv', ops: 100_000, clients: 2, keys: 8, crashRate: 0.005, seed: 11 },
  queue: { family: 'queue', ops: 1000, clients: 2, crashRate: 0.005, seed: 11 },
};

const args = process.argv.slice(2);
if (args[0] === '--write') {
  if (!args[1]) {
    console.error('lin-kv-example: --write needs a directory');
    process.exit(64);
  }
  mkdirSync(args[1], { recursive: true });
  for (const [name, options] of Object.entries(EXAMPLES)) {
    for (const corrupt of [0, 1]) {
      const g = generateHistory({ ...options, corrupt });
      const lines = jsonlLines(g.history);
      const file = join(args[1], `${name}-${corrupt ? 'bad' : 'ok'}.jsonl`);
      try {
        writeFileSync(file, lines.join('\n') + '\n', { flag: 'wx' }); // never over an existing file
      } catch (e) {
        console.error(`lin-kv-example: cannot write ${file}: ${(e as NodeJS.ErrnoException).code === 'EEXIST' ? 'it exists (pick a new directory)' : (e as Error).message}`);
        process.exit(73);
      }
    }
  }
} else if (args[0] === '--processes') {
  const dir = args[1]!;
  const runsAt = args.indexOf('--runs');
  const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 5;
  const trees = [fileURLToPath(new URL('..', import.meta.url)), ...(args[2] !== undefined && !args[2].startsWith('--') ? [resolve(args[2])] : [])];
  const command = args.includes('--bin') ? 'bin/interleave.js' : 'dist/cli/main.js';
  console.log(`# each case as \`node TREE/${command} ...\``);
  const cases: [string, string[]][] = [
    ['kv-append 100,000 ok', ['lin', join(dir, 'kv-ok.jsonl'), '--model', 'kv-append']],
    ['kv-append 100,000 bad', ['lin', join(dir, 'kv-bad.jsonl'), '--model', 'kv-append']],
    ['queue 1,000 ok', ['lin', join(dir, 'queue-ok.jsonl'), '--model', 'queue']],
    ['queue 1,000 bad', ['lin', join(dir, 'queue-bad.jsonl'), '--model', 'queue']],
    ['--version', ['--version']],
    ['--help', ['--help']],
  ];
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const load = () => loadavg()[0]!.toFixed(1);
  console.log(['case', 'tree', 'exit', 'wall_s', 'cpu_s', 'peak_MB', 'walls', 'cpus', 'load_1min'].join('\t'));
  for (const [name, argv] of cases) {
    const got = trees.map(() => ({ wall: [] as number[], cpu: [] as number[], mb: [] as number[], exit: new Set<number | null>(), load: [] as string[] }));
    for (let i = 0; i < runs; i++) {
      trees.forEach((tree, t) => {
        got[t]!.load.push(load());
        const p = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', process.execPath, join(tree, command), ...argv], { encoding: 'utf8', maxBuffer: 1 << 26 });
        const [wall, user, sys, kb] = p.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
        got[t]!.wall.push(wall!);
        got[t]!.cpu.push(user! + sys!);
        got[t]!.mb.push(kb! / 1024);
        got[t]!.exit.add(p.status);
      });
    }
    trees.forEach((tree, t) => {
      const g = got[t]!;
      console.log([name, t === 0 ? 'this' : tree, [...g.exit].join('/'), median(g.wall).toFixed(2), median(g.cpu).toFixed(2), median(g.mb).toFixed(0), g.wall.join(' '), g.cpu.map((c) => c.toFixed(2)).join(' '), g.load.join(' ')].join('\t'));
    });
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
