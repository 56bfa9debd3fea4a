// The logs and the index as the steps share them: segments and what a reader parses in
// them (L238-L272), the entries a server holds in PM, the conditional index update (§2.4,
// L353), the MP SRQ's receive buffers (L182-L184), and the ROWAN write with its ACK (§2.6).
import type { Flags } from '../kit/variants.ts';
import type { Variant } from './mutants.ts';
import { addSorted, objectList } from '../kit/state.ts';
import { chanSlot, chW, ctxW, newSegment, own, persisted, qpKey, type Entry, type Msg, type RowanConfig, type RowanState, type Seg, type Server } from './state.ts';

/** An entry in PM at slot i of segment seg (its location, "seg.i" in an index item). */
export interface PmEntry {
  e: Entry;
  seg: Seg;
  i: number;
}
/**
 * Every persisted entry a server holds in PM, with its segment and slot (segments that are not
 * free): the slots the RNIC or a thread wrote in the segment's current life.
 */
export function pmEntries(s: Server): PmEntry[] {
  const out: PmEntry[] = [];
  for (const seg of s.segs) if (seg.st !== 'free') for (const x of segmentEntries(seg)) out.push(x);
  return out;
}

/** Whether slot entry e is a persisted PUT or DEL (not a COMMITVER record, not a slot still being written). */
const inPm = (e: Entry) => e.np === 0 && e.t !== 'C';

/** The persisted entries of one segment (not free), with their slots, in slot order. */
export function segmentEntries(seg: Seg): PmEntry[] {
  const list: PmEntry[] = [];
  for (let i = 0; i < seg.es.length; i++) {
    const e = seg.es[i];
    if (inPm(e)) list.push({ e, seg, i });
  }
  return list;
}

/** Whether the digest applied slot i of b-log segment seg (it skips slots whose DMA was outstanding). */
export const digested = (seg: Seg, i: number) => seg.log !== 'b' || (seg.dg && !seg.bad?.includes(i));

// maxVersion and rebuild read pmEntries' entries where they are, in its order, without
// listing them (and a location string for each): steps take them on every promotion and
// recovery.
export function maxVersion(s: Server, sh: number): number {
  let m = 0;
  for (const seg of s.segs) if (seg.st !== 'free') for (const e of seg.es) if (inPm(e) && e.sh === sh) m = Math.max(m, e.v);
  return m;
}

/** §2.4 conditional index update; `cond` false is the unconditional variant of M9/M10/M11. */
export function apply(st: RowanState, s: Server, e: Entry, loc: string, cond: boolean, mut: Flags<Variant>) {
  const cur = s.idx[e.k];
  if (cond && cur && e.v < cur.v) return; // L353: omit an update whose version is smaller
  if (cur && e.v < cur.v && !st.bad) st.bad = `I4: an index item of key ${e.k} went from version ${cur.v} back to ${e.v}`;
  // M12 breaks §2.4: DEL removes the item instead of leaving a tombstone
  if (e.t === 'D' && mut.M12) own(s, 'idx')[e.k] = null;
  else own(s, 'idx')[e.k] = { v: e.v, d: e.t === 'D', x: e.x, loc };
}

export function newSeg(s: Server, log: Seg['log'], st: Seg['st'], es: Entry[] = objectList()): Seg {
  const seg = newSegment(s.nextSeg++, log, st, es);
  own(s, 'segs').push(seg);
  return seg;
}

/** Rebuild the index of the shards in `shards` from every entry in PM (§3.3, §3.8). */
export function rebuild(st: RowanState, s: Server, conf: RowanConfig, shards: number[], mut: Flags<Variant>) {
  const idx = own(s, 'idx');
  for (let k = 0; k < conf.keyShard.length; k++) if (shards.includes(conf.keyShard[k])) idx[k] = null;
  // M10 breaks L353 at the digest: physical order wins instead of the version
  for (const seg of s.segs) {
    if (seg.st === 'free') continue;
    for (let i = 0; i < seg.es.length; i++) {
      const e = seg.es[i];
      if (inPm(e) && shards.includes(e.sh)) apply(st, s, e, `${seg.id}.${i}`, !mut.M10, mut);
    }
  }
}

/** Entries stored into a new recovery segment (scatter, cold push, migration copy), digested unless the server is cold. */
export function storeAndDigest(st: RowanState, s: Server, es: Entry[], state: Seg['st'], digest: boolean, mut: Flags<Variant>) {
  if (es.length === 0) return;
  const seg = newSeg(s, 'r', state, persisted(es));
  if (digest) seg.es.forEach((e, i) => apply(st, s, e, `${seg.id}.${i}`, !mut.M10, mut));
}

/**
 * The slots a reader parses in a segment, in order, up to the first zero header: the ones
 * written in its current life. Mutant M23 breaks [AMBIG] L272: only the first 64 bits of a
 * recycled segment are zeroed and a reader trusts every checksum-valid entry, so once the
 * first slot is written again it parses on into the previous life's entries beyond the new tail.
 */
export function parse(seg: Seg, mut: Flags<Variant>): { e: Entry; i: number }[] {
  const out = seg.es.map((e, i) => ({ e, i }));
  if (mut.M23 && seg.old && seg.es.length > 0)
    for (let i = seg.es.length; i < seg.old.length && seg.old[i]; i++) out.push({ e: seg.old[i]!, i });
  return out;
}

/** The b-log segment an arriving SEND goes to (MP SRQ, L182-L184), or undefined (RNR). */
export function receiveBuffer(s: Server, conf: RowanConfig): Seg | undefined {
  const g = s.segs.find((x) => x.id === s.cur && x.log === 'b');
  if (g && g.st === 'using' && !g.sk && g.es.length < conf.segCap) return g;
  return nextBuffer(s);
}

/** The next posted receive buffer after the current one (L184: "the RNIC pops a new receive buffer"). */
function nextBuffer(s: Server): Seg | undefined {
  // b-log segments after the current one (all of them before the first landing)
  let after = !s.segs.some((g) => g.log === 'b' && g.id === s.cur);
  for (const g of s.segs) {
    if (g.log !== 'b') continue;
    if (after && g.st === 'using' && g.es.length === 0) return g;
    if (g.id === s.cur) after = true;
  }
  return undefined;
}

/** tailSkip: the current buffer has space left, but (entry sizes abstracted) the SEND may not fit in it. */
export function canSkipTail(s: Server, conf: RowanConfig): boolean {
  const g = s.segs.find((x) => x.id === s.cur);
  return !!g && g.log === 'b' && g.st === 'using' && !g.sk && g.es.length > 0 && g.es.length < conf.segCap && !!nextBuffer(s);
}

/** rowanWrite (§2.6): SEND + trailing READ on the QP from worker w of s to b; false on a destroyed QP. */
export function rowanWrite(st: RowanState, s: number, w: number, b: number, m: Msg): boolean {
  if (st.dead.includes(qpKey(s, b))) return false; // G5: destroyed QP, error completion
  if (!st.srv[b].up) return true; // never lands; the sender waits
  const i = chanSlot(st, s, w, b);
  chW(st)[i] = [...st.ch[i], m]; // queues are shared between states: replaced, not changed
  return true;
}

/** The READ completion at the sender; after a retry (L274) only the retry's ACK counts. */
export function ack(st: RowanState, from: number, op: number, b: number, r = 0) {
  const i = st.srv[from].up ? st.srv[from].ctx.findIndex((x) => x.op === op) : -1;
  const ctx = i >= 0 ? st.srv[from].ctx[i] : undefined;
  if (ctx && (r === 1 || !ctx.rt.includes(b))) ctxW(st.srv[from], i).acks = addSorted(ctx.acks, b);
}
