// A server's log (FASTER's HybridLog, §1.6): hash chains read newest first, in-place updates
// in the mutable region, indirection records into the shared blob tier (§2.9, L202-209),
// and the target's conditional insert of migrated records (§2.8).

import { objectList } from '../kit/state.ts';
import { breakInv, entryOf, rangeOf, serverName, type Cx } from './context.ts';
import { R, T, tgtW, type Item, type Lookup, type Source, type State } from './state.ts';

/** The first match for k in a log, newest first; indirections apply to their entry. */
export function lookup(cx: Cx, log: readonly Item[], k: number, tailStart: number): Lookup {
  for (let i = log.length - 1; i >= 0; i--) {
    const it = log[i];
    if ('k' in it) {
      if (it.k === k) return { kind: 'rec', v: it.v, addr: i };
      continue;
    }
    if (it.indir !== entryOf(cx, k)) continue;
    const inRange = (it.range & rangeOf(cx, k)) !== 0;
    // M12: the range check on an indirection is dropped (§2.9, L204-209)
    if (!inRange && !cx.mut.M12) continue;
    // H1: the prototype stops at the first in-range indirection (§2.8). The fix: a record
    // of k made after the ownership transfer, further down the chain, wins.
    if (!cx.mut.H1) {
      for (let j = i - 1; j >= tailStart; j--) {
        const older = log[j];
        if ('k' in older && older.k === k) return { kind: 'rec', v: older.v, addr: j };
      }
    }
    return { kind: 'indir', addr: it.addr, outOfRange: !inRange };
  }
  return { kind: 'absent' };
}

/** What the shared blob tier holds for k at or below addr (L202: flushed records only, below `flushed`). */
export function blobRead(src: Source, addr: number, k: number, flushed = src.flushed): number | null {
  for (let i = Math.min(addr, flushed - 1); i >= src.begin; i--) {
    const it = src.log[i];
    if ('k' in it && it.k === k) return it.v;
  }
  return null;
}

/** Write v for k on a server's log: in place in the mutable region, else append (§1.6). */
export function store(log: Item[], head: number, k: number, at: Lookup, v: number): void {
  if (at.kind === 'rec' && at.addr >= head) log[at.addr] = { k, v };
  else log.push({ k, v });
}

/**
 * The target's conditional insert of a migrated copy (§2.8): only if it holds no version
 * of k made after the ownership transfer.
 */
export function conditionalInsert(cx: Cx, s: State, k: number, v: number | null): void {
  if (!cx.mut.M7) {
    const at = lookup(cx, s.tgt.log, k, s.tgt.tailStart);
    if (at.kind === 'rec' && at.addr >= s.tgt.tailStart) return;
  }
  const tgt = tgtW(s);
  tgt.log.push({ k, v });
  const now = lookup(cx, tgt.log, k, tgt.tailStart);
  if (now.kind === 'rec' && now.v !== s.A[k]) {
    breakInv(s, 'INV-COND-INSERT', `${serverName(s, T)} inserted a migrated ${cx.keys[k].name} = ${v ?? 'NOT_FOUND'} over the latest value ${s.A[k] ?? 'NOT_FOUND'}`);
  }
}

/** Samples: the newest copy of each R key at or above tailStart (§2.7, [impl] CollectSamples). */
export function collectSamples(cx: Cx, s: State): Item[] {
  const out = objectList<Item>();
  for (let k = 0; k < cx.keys.length; k++) {
    if (cx.keys[k].range !== R) continue;
    const at = lookup(cx, s.src.log, k, 0);
    if (at.kind === 'rec' && at.addr >= s.src.tailStart) out.push({ k, v: at.v });
  }
  return out;
}
