// Durability after full-system crashes, knowing no protocol: which writes a persistency
// model promises survive a crash, judged by the reads right after each recovery. The input
// is a client history of register reads and writes (`read`/`write`, or kv's `get`/`put`;
// unique values per write; the initial value is null, or '' when no write wrote ''), optional
// scope PERSIST operations, and crash / recovery markers (traces/README.md, "Crash
// histories").
//
// The floor per model (the MINOS extraction's §4.4, which names them after the paper's
// persistency models; the same words fit other systems):
//   synch   every write acknowledged before the crash, and every write a read returned
//   strict  every write acknowledged before the crash
//   renf    every write a completed read returned before the crash
//   event   nothing (only: a recovered value was written before the crash, or is the initial one)
//   scope   every write of a scope whose PERSIST returned before the crash; a client's scope is
//           its writes since its previous PERSIST
//
// A recovery read is a completed read invoked after the recovery marker with no write to
// its key invoked since the marker before it returned. It must return the initial value
// (null) or a write invoked before the crash (no value out of thin air), and that write X
// must not precede a floor write W of the key: by their versions when both writes carry one
// (the §4.4 wording: the recovered TS must be at least the floor's), else in real time (X
// returned before W was invoked: W is later in every linearization, so reading X means W
// was lost). Without versions the check is sound for any history whose pre-crash part is
// linearizable, and incomplete: a floor write concurrent with X is not judged.

export type DurabilityModel = 'synch' | 'strict' | 'renf' | 'event' | 'scope';
export const DURABILITY_MODELS: readonly DurabilityModel[] = ['synch', 'strict', 'renf', 'event', 'scope'];

export interface DurOp {
  client: number;
  f: 'read' | 'write' | 'persist' | string;
  key?: string;
  /** write: the value; persist: the scope name (informative). */
  value?: unknown;
  /** read: the value returned. */
  output?: unknown;
  call: number;
  /** Absent: the outcome is unknown. */
  ret?: number;
  /**
   * A write's place in the per-key write order, where the system exposes one (MINOS: its
   * TS_WR): a floor write W is lost when the recovered write's version is below W's. The
   * system's own claim: linearizability of the pre-crash history is what vouches for it.
   * Without versions, real-time order is used.
   */
  version?: number;
}

export interface Marker {
  event: 'crash' | 'recovered';
  time: number;
}

export interface DurabilityViolation {
  /** Which crash (0 = the first). */
  crash: number;
  key: string;
  /** The recovery read. */
  read: DurOp;
  /** The write whose value the read returned (undefined: the initial value, or none). */
  got: DurOp | undefined;
  /** The floor write that was lost (undefined: a value out of thin air). */
  lost: DurOp | undefined;
  why: string;
}

export interface DurabilityResult {
  verdict: 'durable' | 'violation';
  model: DurabilityModel;
  crashes: number;
  /** Recovery reads judged, and floor writes they were judged against (over all crashes). */
  recoveryReads: number;
  floorWrites: number;
  violations: DurabilityViolation[];
}

const keyOf = (v: unknown): string => (typeof v === 'string' ? `s:${v}` : `j:${JSON.stringify(v)}`);

function floorOf(model: DurabilityModel, ops: readonly DurOp[], crash: number, writeByValue: Map<string, DurOp>): DurOp[] {
  const before = ops.filter((o) => o.call < crash);
  const out = new Set<DurOp>();
  const acked = model === 'synch' || model === 'strict';
  const readSeen = model === 'synch' || model === 'renf';
  for (const o of before) {
    if (o.f === 'write' && acked && o.ret !== undefined && o.ret < crash) out.add(o);
    if (o.f === 'read' && readSeen && o.ret !== undefined && o.ret < crash) {
      const w = writeByValue.get(keyOf(o.output));
      if (w !== undefined) out.add(w);
    }
  }
  if (model === 'scope') {
    const byClient = new Map<number, DurOp[]>();
    for (const o of before) {
      const l = byClient.get(o.client) ?? [];
      l.push(o);
      byClient.set(o.client, l);
    }
    for (const l of byClient.values()) {
      l.sort((a, b) => a.call - b.call);
      let scope: DurOp[] = [];
      for (const o of l) {
        if (o.f === 'write') scope.push(o);
        else if (o.f === 'persist') {
          if (o.ret !== undefined && o.ret < crash) for (const w of scope) out.add(w);
          scope = [];
        }
      }
    }
  }
  return [...out];
}

const isWrite = (o: DurOp) => o.f === 'write' || o.f === 'put';
const isRead = (o: DurOp) => o.f === 'read' || o.f === 'get';

export function checkDurability(model: DurabilityModel, history: readonly DurOp[], markers: readonly Marker[]): DurabilityResult {
  const ops = history.map((o) => (isWrite(o) ? { ...o, f: 'write' } : isRead(o) ? { ...o, f: 'read' } : o));
  const writeByValue = new Map<string, DurOp>();
  for (const o of ops) if (o.f === 'write') writeByValue.set(keyOf(o.value), o);
  const initial = (v: unknown) => v === null || v === undefined || (v === '' && !writeByValue.has(keyOf('')));
  const sorted = [...markers].sort((a, b) => a.time - b.time);
  const result: DurabilityResult = { verdict: 'durable', model, crashes: 0, recoveryReads: 0, floorWrites: 0, violations: [] };
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i].event !== 'crash') continue;
    const crash = sorted[i].time;
    const rec = sorted.slice(i + 1).find((m) => m.event === 'recovered');
    const nextCrash = sorted.slice(i + 1).find((m) => m.event === 'crash')?.time ?? Infinity;
    const n = result.crashes++;
    if (rec === undefined || rec.time > nextCrash) continue; // no recovery to judge
    const floor = floorOf(model, ops, crash, writeByValue);
    result.floorWrites += floor.length;
    const floorByKey = new Map<string, DurOp[]>();
    for (const w of floor) {
      const l = floorByKey.get(String(w.key)) ?? [];
      l.push(w);
      floorByKey.set(String(w.key), l);
    }
    // writes invoked since the recovery, per key, by call time
    const since = new Map<string, number>();
    for (const o of ops) if (o.f === 'write' && o.call >= rec.time && o.call < nextCrash) since.set(String(o.key), Math.min(since.get(String(o.key)) ?? Infinity, o.call));
    for (const r of ops) {
      if (r.f !== 'read' || r.ret === undefined || r.call < rec.time || r.ret >= nextCrash) continue;
      const key = String(r.key);
      if ((since.get(key) ?? Infinity) <= r.ret) continue; // a new write may be what it saw
      result.recoveryReads++;
      const got = initial(r.output) ? undefined : writeByValue.get(keyOf(r.output));
      if (!initial(r.output) && (got === undefined || got.call >= crash || got.key !== r.key)) {
        result.violations.push({ crash: n, key, read: r, got, lost: undefined, why: `the recovery read of ${key} returned ${JSON.stringify(r.output)}, which no write of ${key} invoked before the crash wrote` });
        continue;
      }
      for (const w of floorByKey.get(key) ?? []) {
        if (w === got) continue;
        const precedes =
          got === undefined ||
          (got.version !== undefined && w.version !== undefined ? got.version < w.version : got.ret !== undefined && got.ret < w.call);
        if (precedes) {
          result.violations.push({
            crash: n,
            key,
            read: r,
            got,
            lost: w,
            why: `${model}: the write of ${JSON.stringify(w.value)} to ${key} by c${w.client} had to survive the crash, but the recovery read returned ${got === undefined ? 'the initial value' : `${JSON.stringify(got.value)}, written before it`}`,
          });
          break;
        }
      }
    }
  }
  if (result.violations.length > 0) result.verdict = 'violation';
  return result;
}
