// Independent checks that processes are gone, straight from /proc (Linux), for tests that
// must not trust the supervisor they are testing. A zombie (exited, not yet reaped) counts
// as gone: it runs nothing and holds no port.

import { readdirSync, readFileSync } from 'node:fs';

interface Stat {
  pid: number;
  state: string;
  ppid: number;
  pgid: number;
}

function stat(pid: number): Stat | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name is in parentheses and may hold spaces: parse after the last ')'
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { pid, state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]) };
  } catch {
    return undefined;
  }
}

/** Live (non-zombie) processes among these pids, or in these process groups. */
export function survivors(pids: readonly number[], pgids: readonly number[] = pids): number[] {
  const groups = new Set(pgids);
  const wanted = new Set(pids);
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(Number(name));
    if (s === undefined || s.state === 'Z') continue;
    if (wanted.has(s.pid) || groups.has(s.pgid)) out.push(s.pid);
  }
  return out;
}

/** Waits (bounded) until none of these processes survive; returns the survivors. */
export async function waitGone(pids: readonly number[], pgids: readonly number[] = pids, timeoutMs = 5000): Promise<number[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const left = survivors(pids, pgids);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function allStats(): Stat[] {
  const out: Stat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(Number(name));
    if (s !== undefined && s.state !== 'Z') out.push(s);
  }
  return out;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/**
 * Watches the process tree under `root` (default: this process) and remembers every
 * descendant it ever saw, with its process group: what a test started, found by the
 * kernel's bookkeeping rather than by asking the code under test. `ignore` filters
 * processes by command line (the supervisor's reaper, which lives as long as its parent).
 */
export class DescendantWatch {
  readonly seen = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly root = process.pid,
    private readonly ignore: (cmd: string) => boolean = () => false,
  ) {}

  sample(): void {
    const stats = allStats();
    const children = new Map<number, Stat[]>();
    for (const s of stats) {
      const list = children.get(s.ppid);
      if (list === undefined) children.set(s.ppid, [s]);
      else list.push(s);
    }
    const stack = [this.root];
    while (stack.length > 0) {
      const p = stack.pop()!;
      for (const c of children.get(p) ?? []) {
        if (!this.seen.has(c.pid) && !this.ignore(cmdline(c.pid))) this.seen.set(c.pid, c.pgid);
        stack.push(c.pid);
      }
    }
  }

  start(everyMs = 100): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  /** Every process seen, and every member of their groups, still alive (waits up to timeoutMs). */
  survivors(timeoutMs = 5000): Promise<number[]> {
    const pids = [...this.seen.keys()];
    const own = stat(process.pid)?.pgid;
    const groups = [...new Set(this.seen.values())].filter((g) => g !== own && g !== this.root);
    return waitGone(pids, groups, timeoutMs);
  }
}

/**
 * Helpers that live as long as the process that started them, by command line: the
 * supervisor's reaper (impl/kit/supervisor.ts) and esbuild's service (kit/bundle.ts).
 */
export const isHelper = (cmd: string): boolean => cmd.includes('const groups = new Set()') || cmd.includes('esbuild --service');
