// The end of a run's workload, shared by every implementation's cluster: each process is told
// to stop issuing operations; whatever is still in flight after the drain time is stuck.
import type { Child } from './supervisor.ts';

/** A workload process as a cluster tracks it: its child, whether it reported `drained`, its in-flight operations. */
export interface Draining {
  child: Child | undefined;
  drained: boolean;
  progress: { inflight: { id: number; ms: number }[] };
}

export interface Stuck {
  proc: string;
  client: number;
  ms: number;
}

export async function drainProcesses(procs: Iterable<Draining>, drainMs: number): Promise<{ stuck: Stuck[] }> {
  const live = [...procs].filter((p) => p.child?.alive);
  for (const p of live) p.child!.send({ cmd: 'stop' });
  const until = Date.now() + drainMs;
  while (Date.now() < until && live.some((p) => p.child?.alive && !p.drained)) await new Promise((r) => setTimeout(r, 50));
  // what is still in flight is stuck (progress reports every 0.5 s: wait for a fresh one)
  await new Promise((r) => setTimeout(r, 600));
  const stuck: Stuck[] = [];
  for (const p of live) if (p.child?.alive && !p.drained) for (const f of p.progress.inflight) stuck.push({ proc: p.child.name, client: f.id, ms: f.ms });
  return { stuck };
}
