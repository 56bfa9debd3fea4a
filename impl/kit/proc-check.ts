// Independent checks that processes are gone, straight from /proc (Linux), for tests that
// must not trust the supervisor they are testing. A zombie (exited, not yet reaped) counts
// as gone: it runs nothing and holds no port.

import { readdirSync, readFileSync } from 'node:fs';

interface Stat {
  pid: number;
  state: string;
  pgid: number;
}

function stat(pid: number): Stat | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name is in parentheses and may hold spaces: parse after the last ')'
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { pid, state: rest[0], pgid: Number(rest[2]) };
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
