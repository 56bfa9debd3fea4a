// Parsers for the values of numeric flags, shared by every command: strict decimal
// numbers in a range, so that `0x10`, '', `1e12`, `-3` or `0` where it means nothing are
// refused with the range instead of read as something else. Commander prints the refusal
// with the flag's name (`option '--workers <n>' argument '0x10' is invalid. ...`) and
// main.ts turns it into exit 64.
import { availableParallelism } from 'node:os';
import { InvalidArgumentError } from 'commander';
import { UsageError } from './exit.ts';

/** Seconds a budget may last: setTimeout cannot wait longer than 2^31 − 1 ms. */
export const MAX_SECONDS = 1_000_000;

function range(min: number, max: number): string {
  return max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max.toLocaleString('en-US')}`;
}

/** An integer written in decimal digits, within [min, max]. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`Expected an integer ${range(min, max)}, in decimal digits.`);
    }
    return n;
  };
}

/** A number of seconds > 0 (decimal, a fraction allowed), at most `max`. */
export function seconds(max = MAX_SECONDS): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^(\d+(\.\d*)?|\.\d+)$/.test(value) || !(n > 0) || n > max) {
      throw new InvalidArgumentError(`Expected a number of seconds > 0 and ≤ ${max.toLocaleString('en-US')}, like 30 or 0.5.`);
    }
    return n;
  };
}

/** Worker threads asked for: at least 1; more than the machine runs at once is capped by `capWorkers`. */
export const workers = integer(1, 1024);

/**
 * The worker count to use: more threads than the machine can run at once only cost
 * memory (a run with --workers 200 started 200 threads and used 5 GB), so it is capped
 * at os.availableParallelism(), saying so on stderr.
 */
export function capWorkers(asked: number | undefined, warn: (s: string) => void, parallelism = availableParallelism()): number {
  const n = asked ?? 1;
  if (n <= parallelism) return n;
  warn(`interleave: --workers ${n} capped at ${parallelism}, the number of threads this machine runs at once\n`);
  return parallelism;
}

/**
 * `--workers-per-host` (and explore's `--swarm`) configure a `--redis` run: without
 * `--redis` they would be ignored, so they are refused (exit 64), in explore and lin alike.
 */
export function redisOnly(o: { redis?: string; workersPerHost?: number; swarm?: number }): void {
  if (o.redis !== undefined) return;
  const given = [...(o.workersPerHost !== undefined ? ['--workers-per-host'] : []), ...(o.swarm !== undefined ? ['--swarm'] : [])];
  if (given.length > 0) throw new UsageError(`${given.join(' and ')} go${given.length === 1 ? 'es' : ''} with --redis URL`);
}
