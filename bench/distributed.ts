// `npm run bench:distributed`: the distributed BFS through a real redis-server (started
// here on 127.0.0.1, stopped at the end) with 1, 2 and 4 worker processes, against the
// embedded explorer (exploreSync, one thread) on the same spec in the same run: states/s,
// the ratio, bytes written to Redis per distinct state (successor records, and the states
// stored for one level) and bytes read back (parent states), Redis commands per state and
// Redis memory per state. Counts are checked equal to the embedded run's.
//
//   npm run bench:distributed [-- --spec fusee --config A2] [--workers 1,2,4] [--repeat 2]
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { distributedBfs } from '../checkers/distributed/bfs.ts';
import { connect, liveWorkers } from '../checkers/distributed/redis.ts';
import { spawnWorker, startRedis } from '../checkers/distributed/testing.ts';
import { exploreSync } from '../checkers/explore/index.ts';
import { racyCounter } from '../checkers/explore/fixtures/racy-counter.ts';
import type { ExploreTarget, Machine } from '../checkers/explore/types.ts';
import { specTarget } from '../cli/spec-machine.ts';
import { findSpec } from '../specs/index.ts';

const { values } = parseArgs({ options: { spec: { type: 'string' }, config: { type: 'string' }, workers: { type: 'string', default: '1,2,4' }, repeat: { type: 'string', default: '1' }, partitions: { type: 'string', default: '16' } } });
const counts = values.workers.split(',').map(Number);
const repeat = Number(values.repeat);
const partitions = Number(values.partitions);

interface Case {
  name: string;
  target: ExploreTarget;
  machine: () => Machine;
}

const cases: Case[] = [];
if (values.spec) {
  const def = findSpec(values.spec);
  if (!def) throw new Error(`unknown spec ${values.spec}`);
  const config = values.config ?? def.configs.find((c) => c.tier === 'default')!.name;
  cases.push({ name: `${def.name}/${config}`, target: specTarget(def.name, config), machine: () => def.build(def.configs.find((c) => c.name === config)!.config) });
} else {
  // A protocol spec, and a fixture of another shape (many small states, wide levels).
  const fusee = findSpec('fusee')!;
  cases.push({ name: 'fusee/A2', target: specTarget('fusee', 'A2'), machine: () => fusee.build(fusee.configs.find((c) => c.name === 'A2')!.config) });
  const counter = pathToFileURL(new URL('../checkers/explore/fixtures/racy-counter.ts', import.meta.url).pathname).href;
  cases.push({ name: 'racy counter N=3 K=4', target: { module: counter, export: 'racyCounter', args: [3, 4] }, machine: () => racyCounter(3, 4) });
}

const redis = await startRedis();
const rows: string[][] = [['case', 'run', 'states', 'transitions', 'seconds', 'states/s', 'vs embedded', 'bytes written/state', 'bytes read/state', 'Redis cmds/state', 'Redis bytes/state', 'tasks']];
try {
  for (const c of cases) {
    let embedded = Infinity;
    let one = exploreSync(c.machine(), {});
    for (let i = 0; i < repeat; i++) {
      const t = performance.now();
      one = exploreSync(c.machine(), {});
      embedded = Math.min(embedded, (performance.now() - t) / 1000);
    }
    rows.push([c.name, 'embedded (1 thread)', String(one.states), String(one.transitions), embedded.toFixed(2), Math.round(one.states / embedded).toLocaleString('en'), '1.00', '', '', '', '', '']);
    for (const n of counts) {
      const workers = Array.from({ length: n }, () => spawnWorker(redis.url));
      try {
        const r = await connect(redis.url);
        for (let i = 0; i < 600 && (await liveWorkers(r, 3000)) < n; i++) await new Promise((d) => setTimeout(d, 100));
        r.disconnect();
        let best = Infinity;
        let last;
        for (let i = 0; i < repeat; i++) {
          const t = performance.now();
          last = await distributedBfs(c.target, {}, { url: redis.url, partitions });
          best = Math.min(best, (performance.now() - t) / 1000);
          if (last.result.states !== one.states || last.result.transitions !== one.transitions) throw new Error(`${c.name}: ${n} workers counted ${last.result.states}/${last.result.transitions}, embedded ${one.states}/${one.transitions}`);
        }
        const { result, stats } = last!;
        rows.push([
          c.name,
          `Redis, ${n} worker process${n > 1 ? 'es' : ''}`,
          String(result.states),
          String(result.transitions),
          best.toFixed(2),
          Math.round(result.states / best).toLocaleString('en'),
          (embedded / best).toFixed(2),
          (stats.bytesSent / result.states).toFixed(0),
          (stats.bytesFetched / result.states).toFixed(0),
          (stats.redisCommands / result.states).toFixed(2),
          (stats.redisBytes / result.states).toFixed(0),
          String(stats.tasks),
        ]);
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
      }
    }
  }
} finally {
  await redis.stop();
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) process.stdout.write(`${r.map((x, i) => x.padEnd(widths[i])).join('  ')}\n`);
process.stdout.write(`\n${partitions} partitions; best of ${repeat}; machine: 2 cores shared with other work (load ${(await import('node:os')).loadavg()[0].toFixed(1)}). Counts checked equal to the embedded run.\n`);
