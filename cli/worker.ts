// `interleave worker --redis URL`: a host's share of distributed runs (explore --redis,
// lin --redis). It takes jobs from every active run until stopped (SIGINT or SIGTERM:
// it finishes nothing half-way, as its job is retried elsewhere). `--workers-per-host N`
// starts N worker processes here (one job each at a time: a search is one thread).
// Exit 0 when stopped, 64 bad usage, 69 Redis cannot be reached or was lost.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Command } from 'commander';
import { checkRedisUrl, RedisUnavailable, RedisUrlError } from '../checkers/distributed/redis.ts';
import { EXIT, UsageError } from './exit.ts';
import { integer } from './flags.ts';
import { withHelp } from './help.ts';
import { PACKAGE_ROOT } from './package-root.ts';

export interface WorkerCliOptions {
  redis: string;
  workersPerHost?: number;
  verbose?: boolean;
}

/** The --redis value checked as a URL (bad usage otherwise). */
export function redisUrl(url: string): string {
  try {
    checkRedisUrl(url);
  } catch (e) {
    if (e instanceof RedisUrlError) throw new UsageError(e.message);
    throw e;
  }
  return url;
}

/** Worker processes on this host for a run started here (`explore --redis URL --workers-per-host N`). */
export function spawnLocalWorkers(url: string, n: number): { exited: Promise<(number | null)[]>; stop(): Promise<void> } {
  const children: ChildProcess[] = [];
  for (let i = 0; i < n; i++) {
    children.push(spawn(process.execPath, [join(PACKAGE_ROOT, 'bin', 'interleave.js'), 'worker', '--redis', url], { stdio: ['ignore', 'ignore', 'inherit'] }));
  }
  const exited = Promise.all(children.map((c) => new Promise<number | null>((done) => (c.exitCode !== null ? done(c.exitCode) : c.once('exit', (code) => done(code))))));
  return {
    exited,
    async stop() {
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((done) => {
              if (c.exitCode !== null || c.signalCode !== null) return done();
              const t = setTimeout(() => c.kill('SIGKILL'), 5000);
              c.once('exit', () => {
                clearTimeout(t);
                done();
              });
              c.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}

export async function runWorker(o: WorkerCliOptions): Promise<number> {
  const url = redisUrl(o.redis);
  const n = o.workersPerHost ?? 1;
  // SIGINT and SIGTERM are the worker's from here on, before anything starts: one that comes
  // while the worker is still starting (loading BullMQ, connecting) stops it as cleanly, exit 0,
  // not the signal's default (143) (review defect 17)
  let stop: () => void = () => {};
  let stopped = false;
  const stopRequested = new Promise<void>((done) => {
    stop = () => {
      stopped = true;
      done();
    };
  });
  process.on('SIGINT', () => stop());
  process.on('SIGTERM', () => stop());
  try {
    if (n > 1) {
      const local = spawnLocalWorkers(url, n);
      void stopRequested.then(() => local.stop());
      const codes = await local.exited;
      // A child that lost Redis says so on stderr; the parent's code is the worst of theirs.
      return codes.includes(EXIT.unavailable) ? EXIT.unavailable : EXIT.holds;
    }
    // BullMQ is loaded here, not at the CLI's start: commands without --redis never pay for it.
    const { startWorker } = await import('../checkers/distributed/worker.ts');
    if (stopped) return EXIT.holds;
    const starting = startWorker(url, o.verbose ? { log: (s) => void process.stderr.write(s) } : {});
    const w = await Promise.race([starting, stopRequested.then(() => undefined)]);
    if (w === undefined) {
      // stopped while connecting: a worker that comes up all the same leaves at once
      starting.then((late) => late.close(), () => undefined);
      return EXIT.holds;
    }
    void stopRequested.then(() => w.close());
    await w.done;
    return EXIT.holds;
  } catch (e) {
    if (e instanceof RedisUnavailable) return (await import('./distributed.ts')).unavailableExit(e, (s) => void process.stderr.write(s));
    throw e;
  } finally {
    // the handlers stay: a signal after the stop finds the same clean exit
    // BullMQ and ioredis may keep a socket or a reconnect timer after close: a stopped
    // worker exits all the same (the timer itself keeps nothing alive).
    setTimeout(() => process.exit(), 1000).unref();
  }
}

export function register(program: Command): void {
  const command = program
    .command('worker')
    .description('take jobs of distributed runs (explore --redis, lin --redis) from Redis until stopped')
    .requiredOption('--redis <url>', 'the Redis server of the runs, e.g. redis://10.0.0.5:6379')
    .option('--workers-per-host <n>', 'worker processes to start on this host (default 1)', integer(1, 1024))
    .option('--verbose', 'say on stderr which runs this worker joins')
    .action(async (o: WorkerCliOptions) => {
      process.exitCode = await runWorker(o);
    });
  withHelp(command, {
    examples: [
      ['interleave worker --redis redis://10.0.0.5:6379 --workers-per-host 8', 'on each host: 8 worker processes'],
      ['interleave explore minos --config FB-synch --redis redis://10.0.0.5:6379 --workers-per-host 2', 'on one host: the run, with 2 workers of its own'],
    ],
    exitCodes: { 0: 'stopped (SIGINT or SIGTERM, also while it is still connecting)', 69: 'Redis cannot be reached, or the connection was lost' }
  });
}
