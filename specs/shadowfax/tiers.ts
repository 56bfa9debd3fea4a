// Storage tiers after the transfer (§4.2): eviction to SSD and flushing to the shared blob
// tier at the source (B1), the target resolving an indirection record through the blob
// tier (L204-209), and the source's log compaction, which ships the records it no longer
// owns to their owner and then truncates (L211-217, B2).

import type { GlobalStep } from '../kit/table.ts';
import { bindAll, breakInv, rangeBit, type Cx, type GlobalArgs, type StepOf } from './context.ts';
import { targetDecision } from './server.ts';
import { blobRead, lookup } from './storage.ts';
import { action, compactedW, S, srcW, T, tgtW, type Item, type ShadowfaxAction, type State } from './state.ts';

type Global = GlobalStep<State, ShadowfaxAction>;

/** The keys whose pended ops T may resolve now through an indirection (M10, M11 loosen when). */
function fetchable(cx: Cx, s: State): number[] {
  const keys: number[] = [];
  const tgt = s.tgt;
  for (let i = 0; i < tgt.pended.length; i++) {
    const o = tgt.pended[i].op;
    const k = cx.ops[o].k;
    if (keys.includes(k) || targetDecision(cx, s, o) !== 'fetch') continue;
    const at = lookup(cx, tgt.log, k, tgt.tailStart);
    if (at.kind !== 'indir') continue;
    // [impl] resolve only after T_COMPLETE (M11: while still receiving); flushed first (M10)
    const phaseOk = tgt.phase === 'T_COMPLETE' || cx.mut.M11;
    const flushedOk = at.addr < s.src.flushed || cx.mut.M10;
    if (phaseOk && flushedOk) keys.push(k);
  }
  return keys;
}

const [compact, truncate, ownerRecvCompacted, evict, flush] = [action('compact(S)', 'compact'), action('truncate(S)', 'truncate'), action('ownerRecvCompacted(T)', 'ownerRecvCompacted'), action('evict(S)', 'evict'), action('flush(S)', 'flush')];

/** The steps of the tiers and compaction, written once for every config (context.ts, `StepOf`). */
const TIER_STEPS = {
  tgtFetchIndirection: {
    name: 'tgtFetchIndirection', cites: '§4.2 L204-209: fetch k from the shared tier through the indirection, insert it',
    enabled: (cx, fetches, s, out) => {
      if (!s.up[T] || s.tgt.pended.length === 0) return;
      const keys = fetchable(cx, s);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        out.push((fetches[k] ??= action(`tgtFetchIndirection(${cx.keys[k].name})`, 'tgtFetchIndirection', { k })));
      }
    },
    effect: (cx, d, a) => {
      const k = a.k!;
      const at = lookup(cx, d.tgt.log, k, d.tgt.tailStart) as { kind: 'indir'; addr: number };
      const v = blobRead(d.src, at.addr, k);
      if (at.addr >= d.src.flushed || v !== d.A[k]) {
        breakInv(d, 'INV-INDIR', `T dereferenced the indirection for ${cx.keys[k].name} at address ${at.addr} (blob flushed below ${d.src.flushed}) and found ${v ?? 'NOT_FOUND'}, but the latest write left ${d.A[k] ?? 'NOT_FOUND'}`);
      }
      tgtW(d).log.push({ k, v });
    },
  },
  compact: {
    name: 'compact', cites: '§4.2 L215: ship each record whose range S no longer owns; [interp] the live version only',
    enabled: (cx, _made, s, out) => {
      if (cx.config.compaction && s.up[S] && s.src.phase === 'DONE' && s.src.compaction === 'no') out.push(compact);
    },
    effect: (cx, d) => {
      const src = srcW(d);
      src.compaction = 'shipping';
      for (let k = 0; k < cx.keys.length; k++) {
        if (d.meta.owner[rangeBit(cx.keys[k].range)] === S) continue;
        // the key's newest version on SSD (M25: the oldest)
        let version: Item | undefined;
        // (head can exceed the log's length after a restore from a shorter snapshot)
        const end = Math.min(src.head, src.log.length);
        for (let addr = 0; addr < end; addr++) {
          const it = src.log[addr];
          if ('k' in it && it.k === k && (!cx.mut.M25 || version === undefined)) version = it;
        }
        if (version !== undefined) compactedW(d).push(version);
      }
      if (d.compacted.length === 0) src.compaction = 'done';
    },
  },
  truncate: {
    name: 'truncate', cites: '§4.2 L217: the compacted region goes once its records are applied',
    enabled: (cx, _made, s, out) => {
      const src = s.src;
      // M27: without waiting for the records to be applied
      if (cx.config.compaction && s.up[S] && src.phase === 'DONE' && src.begin < src.head && (src.compaction === 'done' || cx.mut.M27)) out.push(truncate);
    },
    effect: (_cx, d) => void (srcW(d).begin = d.src.head),
  },
  ownerRecvCompacted: {
    name: 'ownerRecvCompacted', cites: '§4.2 L215: insert only where the key was not fetched from the shared tier after migration',
    enabled: (cx, _made, s, out) => {
      if (cx.config.compaction && s.up[T] && s.compacted.length > 0) out.push(ownerRecvCompacted);
    },
    effect: (cx, d) => {
      const it = compactedW(d).shift() as Extract<Item, { k: number }>;
      const at = lookup(cx, d.tgt.log, it.k, d.tgt.tailStart);
      if ((at.kind === 'indir' && !at.outOfRange) || cx.mut.M26) {
        tgtW(d).log.push({ k: it.k, v: it.v });
        if (it.v !== d.A[it.k]) breakInv(d, 'INV-COND-INSERT', `T inserted the compaction copy ${cx.keys[it.k].name} = ${it.v ?? 'NOT_FOUND'} over the latest value ${d.A[it.k] ?? 'NOT_FOUND'}`);
      }
      if (d.compacted.length === 0) srcW(d).compaction = 'done';
    },
  },
  evict: {
    name: 'evict', cites: '§1.6: the in-memory region goes to SSD (head moves to the tail)',
    enabled: (cx, _made, s, out) => {
      if (cx.config.tiers && s.up[S] && s.src.head < s.src.log.length) out.push(evict);
    },
    effect: (_cx, d) => void (srcW(d).head = d.src.log.length),
  },
  flush: {
    name: 'flush', cites: '§4.2 L202: SSD is flushed to the shared blob tier',
    enabled: (cx, _made, s, out) => {
      if (cx.config.tiers && s.up[S] && s.src.flushed < s.src.head) out.push(flush);
    },
    effect: (_cx, d) => void (srcW(d).flushed = d.src.head),
  },
} satisfies Record<string, StepOf<GlobalArgs>>;

export const tierSteps = (cx: Cx): Record<keyof typeof TIER_STEPS, Global> => bindAll(cx, TIER_STEPS);
