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

// Ghosts are immutable and many states hold equal ones: equal ghosts are made one object
// (interned by their content), and each (ghost, event) is worked out once. Pure caching:
// the ghosts returned are the ones the plain functions would compute.
const MEMO_LIMIT = 100_000;
const interned = new Map<string, LinGhost>();
const after = new WeakMap<LinGhost, Map<number, LinGhost | null>>();

function intern(g: LinGhost): LinGhost {
  const k = `${g.pend.join(',')}|${g.cfgs.join(';')}`;
  const same = interned.get(k);
  if (same) return same;
  if (interned.size >= MEMO_LIMIT) interned.clear();
  interned.set(k, g);
  return g;
}

const INVOKE = 0;
const RETURN = 1;
const CRASH = 2;

function memo(g: LinGhost, kind: number, client: number, value: number): LinGhost | undefined {
  const key = (kind * 64 + client) * 65_536 + value + 1;
  let known = after.get(g);
  const hit = known?.get(key);
  if (hit !== undefined) return hit ?? undefined;
  const next = kind === INVOKE ? invoke(g, client, value) : kind === RETURN ? ret(g, client, value) : crash(g, client);
  const kept = next === undefined ? null : intern(next);
  if (!known) after.set(g, (known = new Map()));
  known.set(key, kept);
  return kept ?? undefined;
}

/** `value` 0 invokes a READ, v > 0 a WRITE(v). */
export const linInvoke = (g: LinGhost, client: number, value: number): LinGhost => memo(g, INVOKE, client, value)!;

/** The client's pending operation returns (`out`: the value read, ignored for a write). */
export const linReturn = (g: LinGhost, client: number, out: number): LinGhost | undefined => memo(g, RETURN, client, out);

export const linCrash = (g: LinGhost, client: number): LinGhost => memo(g, CRASH, client, 0)!;

function invoke(g: LinGhost, client: number, value: number): LinGhost {
  const pend = g.pend.slice();
  pend[client] = value;
  return { pend, cfgs: g.cfgs };
}

function ret(g: LinGhost, client: number, out: number): LinGhost | undefined {
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

function crash(g: LinGhost, client: number): LinGhost {
  if (g.pend[client] !== 0) return g; // a crashed write stays pending: it may still take effect
  const pend = g.pend.slice();
  pend[client] = -1;
  return { pend, cfgs: canon(g.cfgs.map((c) => { const d = c.slice(); d[client + 1] = -1; return d; })) };
}
