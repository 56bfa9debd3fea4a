// A just-in-time linearizability monitor for a multi-writer multi-reader register with
// unique write values, kept as ghost state inside the explored state, so that the check
// holds at every state whatever engine explores the machine, and a run can check it alone
// beside white-box invariants (SWARM's SG-Lin). For a store of independent keys, keep one
// per key. The engine's own monitor (`history` with the register or KV model, ./history.ts)
// is the cross-check; this one is cheaper on small register histories. Values are small
// integers, 0 the initial value (never written); read outputs are values.
//
// The monitor keeps every configuration a linearization of the history so far can be in:
// the register's value plus, per client with a pending operation, whether that operation
// was already linearized (and for a read, the value it saw there). A return keeps only the
// configurations in which the returning operation took effect with the output it gave;
// none left means the history is not linearizable. A crashed write stays pending for ever
// (it may take effect later, or never); a crashed read is dropped.

/** Per client: -1 idle, 0 a READ pending, v > 0 a WRITE(v) pending. */
export interface LinGhost {
  pend: number[];
  /** Each: [register value, mark of client 0, ...]; mark -1 = not yet linearized. */
  cfgs: number[][];
}

export function linInit(clients: number): LinGhost {
  return { pend: Array(clients).fill(-1), cfgs: [[0, ...Array(clients).fill(-1)]] };
}

function canon(cfgs: number[][]): number[][] {
  const seen = new Map<string, number[]>();
  for (const c of cfgs) seen.set(c.join(','), c);
  return [...seen.keys()].sort().map((k) => seen.get(k)!);
}

/** Every configuration reachable by linearizing pending operations (any number, any order). */
function closure(g: LinGhost): number[][] {
  const seen = new Map<string, number[]>();
  const todo = [...g.cfgs];
  for (const c of todo) seen.set(c.join(','), c);
  while (todo.length) {
    const c = todo.pop()!;
    for (let k = 0; k < g.pend.length; k++) {
      if (g.pend[k] < 0 || c[k + 1] >= 0) continue;
      const d = c.slice();
      if (g.pend[k] > 0) {
        d[0] = g.pend[k];
        d[k + 1] = 1;
      } else d[k + 1] = c[0];
      const key = d.join(',');
      if (!seen.has(key)) {
        seen.set(key, d);
        todo.push(d);
      }
    }
  }
  return [...seen.values()];
}

/** `value` 0 invokes a READ, v > 0 a WRITE(v). */
export function linInvoke(g: LinGhost, client: number, value: number): LinGhost {
  const pend = g.pend.slice();
  pend[client] = value;
  return { pend, cfgs: g.cfgs };
}

/** The client's pending operation returns (`out`: the value read, ignored for a write). */
export function linReturn(g: LinGhost, client: number, out: number): LinGhost | undefined {
  const isRead = g.pend[client] === 0;
  const kept: number[][] = [];
  for (const c of closure(g)) {
    if (c[client + 1] < 0 || (isRead && c[client + 1] !== out)) continue;
    const d = c.slice();
    d[client + 1] = -1;
    kept.push(d);
  }
  if (kept.length === 0) return undefined;
  const pend = g.pend.slice();
  pend[client] = -1;
  return { pend, cfgs: canon(kept) };
}

export function linCrash(g: LinGhost, client: number): LinGhost {
  if (g.pend[client] !== 0) return g; // a crashed write stays pending: it may still take effect
  const pend = g.pend.slice();
  pend[client] = -1;
  return { pend, cfgs: canon(g.cfgs.map((c) => { const d = c.slice(); d[client + 1] = -1; return d; })) };
}
