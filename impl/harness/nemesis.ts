// The nemesis: a fault schedule drawn from the run's seed before the run starts (the same
// seed gives the same schedule), then played against the cluster on the clock.
//
//   kill-mn      kill -9 of a server (memory node), at most the cluster's server-fault budget
//   kill-client  kill -9 of a client process; it is restarted (fresh client ids) later
//   pause        SIGSTOP of a client process, or a server within the budget, then SIGCONT
//   partition    a client process or a server (within the budget) cut off from everyone,
//                or the coordinator cut off from the clients; then healed
//   net          the clients' links delay, drop and duplicate frames for a while
//   power        every process of the cluster SIGKILLed at once, then (after a while)
//                restarted and recovered from its durable state; once per run
//   kill         kill -9 of one server, restarted after a while (for an implementation
//                without per-node rejoin, the restart is a full-system one); once per run
//
// Faults do not overlap, except that with both kill-mn and kill-client a server kill
// follows a client kill closely (mixed crashes, §5.4 of FUSEE: a node failing while a
// crashed client is being recovered).

import { Rng } from '../kit/rng.ts';
import type { Cluster, FaultRecord, Target } from './types.ts';

export const NEMESES = ['none', 'kill-mn', 'kill-client', 'pause', 'partition', 'net', 'power', 'kill'] as const;

/**
 * The shortest workload a nemesis gets faults in: planFaults places the first fault 1 to 2 s
 * into the workload and none in its last second (nor a full-system crash), so a run of
 * 2 s or less would have none at all. cli/run.ts refuses a shorter run with a nemesis.
 */
export const MIN_NEMESIS_DURATION_S = 3;

/** The requested nemeses (but `none`) of which no fault was injected in the run. */
export function notInjected(requested: readonly string[], faults: readonly { kind: string }[]): string[] {
  return requested.filter((k) => k !== 'none' && !faults.some((f) => f.kind === k));
}

export interface PlannedFault {
  /** ms after the start of the workload. */
  at: number;
  kind: string;
  target: string;
  /** ms the fault lasts (kill-client: until the restart; kill-mn: 0). */
  duration: number;
  net?: { delayMs: number; jitterMs: number; drop: number; duplicate: number };
}

export function planFaults(kinds: readonly string[], durationMs: number, targets: readonly Target[], serverBudget: number, seed: string): PlannedFault[] {
  const active = kinds.filter((k) => k !== 'none');
  if (active.length === 0) return [];
  const rng = new Rng(`${seed}/nemesis`);
  const servers = targets.filter((t) => t.role === 'server').map((t) => t.name);
  const clients = targets.filter((t) => t.role === 'client').map((t) => t.name);
  const coordinator = targets.find((t) => t.role === 'coordinator')?.name;
  let budget = serverBudget;
  const usedServers = new Set<string>();
  const server = (): string | undefined => {
    const free = servers.filter((s) => !usedServers.has(s));
    if (budget <= 0 || free.length === 0) return undefined;
    const s = rng.pick(free);
    usedServers.add(s);
    budget--;
    return s;
  };
  const plan: PlannedFault[] = [];
  const mixed = active.includes('kill-mn') && active.includes('kill-client');
  let t = 1000 + rng.int(1000);
  const end = durationMs - 1000;
  // one full-system failure per run (power, or a kill that ends in one) at a seeded moment
  // anywhere in the run, drawn after the other faults
  const crashKinds = active.filter((k) => k === 'power' || k === 'kill');
  const loopKinds = active.filter((k) => k !== 'power' && k !== 'kill');
  for (let guard = 0; t < end && loopKinds.length > 0 && guard < 10_000; guard++) {
    const kind = rng.pick(loopKinds);
    let f: PlannedFault | undefined;
    switch (kind) {
      case 'kill-mn': {
        if (mixed) break; // placed after client kills below
        const s = server();
        if (s !== undefined) f = { at: t, kind, target: s, duration: 0 };
        break;
      }
      case 'kill-client':
        if (clients.length > 0) f = { at: t, kind, target: rng.pick(clients), duration: 300 + rng.int(1200) };
        break;
      case 'pause': {
        const s = rng.next() < 0.25 || clients.length === 0 ? server() : undefined; // no client processes (MINOS): a server
        const target = s ?? (clients.length > 0 ? rng.pick(clients) : undefined);
        if (target !== undefined) f = { at: t, kind, target, duration: 300 + rng.int(2200) };
        break;
      }
      case 'partition': {
        const x = rng.next();
        const s = x < 0.2 || (clients.length === 0 && coordinator === undefined) ? server() : undefined;
        const target = s ?? (x < 0.4 && coordinator !== undefined ? coordinator : clients.length > 0 ? rng.pick(clients) : undefined);
        if (target !== undefined) f = { at: t, kind, target, duration: 500 + rng.int(2500) };
        break;
      }
      case 'net':
        f = {
          at: t,
          kind,
          target: 'clients',
          duration: 1000 + rng.int(3000),
          net: { delayMs: rng.int(20), jitterMs: rng.int(40), drop: rng.next() < 0.5 ? rng.next() * 0.01 : 0, duplicate: rng.next() * 0.1 },
        };
        break;
    }
    if (f === undefined) {
      if (active.every((k) => k === 'kill-mn') && budget <= 0) break;
      t += 500;
      continue;
    }
    plan.push(f);
    if (mixed && kind === 'kill-client') {
      const s = server();
      // a node dies while the master is noticing the client's death or recovering it
      if (s !== undefined) plan.push({ at: t + 100 + rng.int(1200), kind: 'kill-mn', target: s, duration: 0 });
    }
    t += f.duration + 1000 + rng.int(2000);
  }
  if (crashKinds.length > 0) {
    const kind = rng.pick(crashKinds);
    const at = 1000 + rng.int(Math.max(1, end - 1000));
    if (kind === 'power') plan.push({ at, kind, target: 'all', duration: 300 + rng.int(700) });
    else if (servers.length > 0) plan.push({ at, kind, target: rng.pick(servers), duration: 300 + rng.int(700) });
  }
  return plan.sort((a, b) => a.at - b.at);
}

/** Plays a plan; `stop()` ends it early and undoes every fault still in force. */
export class Nemesis {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly undo = new Map<PlannedFault, (final: boolean) => Promise<void>>();
  private readonly pending = new Set<Promise<void>>();
  readonly records: FaultRecord[] = [];
  injected = 0;

  constructor(
    private readonly cluster: Cluster,
    private readonly plan: readonly PlannedFault[],
    private readonly now: () => number,
  ) {}

  start(): void {
    for (const f of this.plan) {
      this.timers.push(setTimeout(() => this.track(this.inject(f)), f.at));
    }
  }

  private track(p: Promise<void>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private async inject(f: PlannedFault): Promise<void> {
    const c = this.cluster;
    const record: FaultRecord = { kind: f.kind, target: f.target, start: this.now() };
    this.records.push(record);
    this.injected++;
    const later = (undo: (final: boolean) => Promise<void>) => {
      this.undo.set(f, undo);
      this.timers.push(
        setTimeout(() => {
          if (!this.undo.has(f)) return;
          this.undo.delete(f);
          this.track(undo(false));
        }, f.duration),
      );
    };
    switch (f.kind) {
      case 'kill-mn':
        await c.kill(f.target);
        break;
      case 'kill-client':
        await c.kill(f.target);
        later(async (final) => {
          record.end = this.now();
          if (!final) await c.restart(f.target); // at the end of the run it stays down
        });
        break;
      case 'pause':
        c.pause(f.target);
        later(async () => {
          record.end = this.now();
          c.resume(f.target);
        });
        break;
      case 'partition':
        await c.isolate(f.target);
        later(async () => {
          record.end = this.now();
          await c.heal();
        });
        break;
      case 'power':
        if (c.powerFail === undefined || c.powerRestore === undefined) break;
        await c.powerFail();
        later(async () => {
          record.end = this.now();
          await c.powerRestore!(); // also at the end of the run: the recovery is what is checked
        });
        break;
      case 'kill':
        await c.kill(f.target);
        later(async () => {
          record.end = this.now();
          await c.restart(f.target);
        });
        break;
      case 'net':
        record.note = JSON.stringify(f.net);
        await c.degrade(f.net!);
        later(async () => {
          record.end = this.now();
          await c.restore();
        });
        break;
    }
  }

  /** Stops injecting; resumes, heals and restores whatever is still faulty (kills stay). */
  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    await Promise.all([...this.pending]);
    const undo = [...this.undo.values()];
    this.undo.clear();
    for (const u of undo) await u(true);
  }
}
