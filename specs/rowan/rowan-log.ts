// ROWAN (§2.6-§2.10, §6.3): the receiver RNIC lands a SEND from any non-empty QP at the
// next slot of the current b-log segment and the trailing READ acknowledges it (or, split,
// allocates the slot, and the DMA completes later); the receiver's control thread marks
// segments used, digest threads index them and commit them against CommitVer, and the
// clean thread collects committed ones. Actor: the receiving server b.
import { act, type Cx, type RowanGlobalStepOf, type RowanStepOf } from './context.ts';
import { cfgOf } from './cluster.ts';
import { ack, apply, canSkipTail, newSeg, parse, pmEntries, receiveBuffer, rowanWrite, type PmEntry } from './logs.ts';
import { addSorted, filled, objectList } from '../kit/state.ts';
import { chanFrom, chanKey, chanTo, chW, cmW, NO_MSGS, slotOf, ctxW, mapped, newSegment, own, pair, segW, withNp, type Entry, type RowanState, type Seg } from './state.ts';

const sender = (_cx: Cx, s: RowanState, a: { a: number; key?: string }) => [a.a, chanFrom(s, slotOf(s, a.key!))];

/** The RNIC takes the head of QP `key`; for rnicLandNext it pops the next buffer first (L184). */
function land(cx: Cx, d: RowanState, a: { step: string; a: number; key?: string }) {
  const b = d.srv[a.a];
  const i = slotOf(d, a.key!);
  const from = chanFrom(d, i);
  const ch = chW(d);
  const [m, ...rest] = ch[i];
  ch[i] = rest.length === 0 ? NO_MSGS : rest;
  if (a.step === 'rnicLandNext') segW(b, b.cur).sk = true;
  const seg = segW(b, receiveBuffer(b, cx.conf)!.id);
  b.cur = seg.id;
  seg.es.push(withNp(m.e, cx.conf.dma ? 2 : cx.conf.split ? 1 : 0));
  // I13 (L294): nothing from an evicted server lands once the CM has committed
  const cfg = cfgOf(d, a.a);
  if (!cfg.members.includes(from) && (d.cm.term > b.term || d.cm.phase === 'stable') && !d.bad)
    d.bad = `I13: an entry from evicted server ${from} landed at ${a.a} after term ${b.term} committed`;
  if (cx.conf.dma) own(b, 'dma').push({ seg: seg.id, slot: seg.es.length - 1, from, op: m.op, r: m.r });
  else if (!cx.conf.split || cx.mut.M3) {
    // M3 breaks L174-L178: ACK on SEND completion, before the persisting READ
    if (m.op >= 0) ack(d, from, m.op, a.a);
  }
  if (cx.conf.split) own(b, 'unflushed').push({ seg: seg.id, slot: seg.es.length - 1, from, op: m.op });
}

/** One landing step per non-empty QP whose receiver is up and has a buffer for it. */
const landings = (step: 'rnicLand' | 'allocSlot', on: (cx: Cx) => boolean): RowanGlobalStepOf => ({
  name: step,
  exists: on,
  cites: step === 'rnicLand' ? '§2.6, L182-L184: the receiver RNIC places the SEND at the next slot and ACKs it' : '§6.3 (split DMA): the RNIC allocates the next slot; the DMA completes at dmaDone',
  enabled: (cx, s, out) => {
    if (!on(cx)) return;
    for (let i = 0; i < s.ch.length; i++) {
      const to = chanTo(s, i);
      if (s.ch[i].length && s.srv[to].up && receiveBuffer(s.srv[to], cx.conf)) out.push(act(step, to, -1, chanKey(s, i)));
    }
  },
  effect: land,
  writes: sender,
});

/**
 * §6.3, L274: the 2 ms wait before marking a segment used outlasts every DMA into it,
 * except one slow enough that its sender has already retried the write (1 ms). M18
 * removes the wait (and the retry).
 */
function waited(cx: Cx, st: RowanState, b: number, g: Seg): boolean {
  if (cx.mut.M18) return true;
  return st.srv[b].dma.every(
    (d) => d.seg !== g.id || (d.r === 0 && st.srv[d.from].up && st.srv[d.from].ctx.some((x) => x.op === d.op && x.rt.includes(b))),
  );
}

/** The receiver's threads run on a live server outside cold start. */
const threads = (s: RowanState, b: number) => s.srv[b].up && !s.srv[b].cold;
export const rowanLogSteps: Record<'rnicLand' | 'allocSlot' | 'rnicLandNext', RowanGlobalStepOf> & Record<'dmaDone' | 'retry' | 'readFlush' | 'markUsed' | 'digest' | 'commitSegment' | 'cleanFix' | 'cleanCopy', RowanStepOf> = {
  rnicLand: landings('rnicLand', (cx) => !cx.conf.dma),
  allocSlot: landings('allocSlot', (cx) => cx.conf.dma),
  rnicLandNext: {
    name: 'rnicLandNext', cites: 'L184: the SEND does not fit in the space left, so the RNIC pops the next buffer (tailSkip)',
    exists: (cx) => cx.conf.tailSkip,
    enabled: (cx, s, out) => {
      if (!cx.conf.tailSkip) return;
      for (let i = 0; i < s.ch.length; i++) {
        const to = chanTo(s, i);
        if (s.ch[i].length && s.srv[to].up && canSkipTail(s.srv[to], cx.conf)) out.push(act('rnicLandNext', to, -1, chanKey(s, i)));
      }
    },
    effect: land,
    writes: sender,
  },
  dmaDone: {
    name: 'dmaDone', cites: '§6.3: the DMA into an allocated slot completes; the trailing READ then returns (G2)',
    exists: (cx) => cx.conf.dma,
    enabled: (_cx, s, b, out) => {
      if (s.srv[b].up) for (const d of s.srv[b].dma) out.push(act('dmaDone', b, -1, `${d.seg}.${d.slot}`));
    },
    effect: (_cx, d, a) => {
      const b = d.srv[a.a];
      const [sid, slot] = pair(a.key!);
      const i = b.dma.findIndex((x) => x.seg === sid && x.slot === slot);
      const x = b.dma[i];
      own(b, 'dma').splice(i, 1);
      const g = segW(b, sid);
      g.es[slot] = withNp(g.es[slot], 0);
      if (x.op >= 0) ack(d, x.from, x.op, a.a, x.r);
    },
    writes: (_cx, s, a) => {
      const [seg, slot] = pair(a.key!);
      return [a.a, s.srv[a.a].dma.find((d) => d.seg === seg && d.slot === slot)!.from];
    },
  },
  retry: {
    name: 'retry', cites: 'L274: a replication write not ACKed within 1 ms is issued again on the same QP; it lands as a duplicate, and only its ACK counts',
    exists: (cx) => cx.conf.dma,
    enabled: (cx, s, b, out) => {
      if (!s.srv[b].up || cx.mut.M18) return; // M18 removes the retry
      for (const d of s.srv[b].dma) {
        const p = s.srv[d.from];
        const ctx = d.r === 0 && p.up ? p.ctx.find((x) => x.op === d.op) : undefined;
        if (ctx && !ctx.err && !ctx.rt.includes(b)) out.push(act('retry', d.from, b, String(d.op)));
      }
    },
    effect: (cx, d, a) => {
      const p = d.srv[a.a];
      const ctx = ctxW(p, p.ctx.findIndex((x) => x.op === Number(a.key)));
      ctx.rt = addSorted(ctx.rt, a.b);
      if (!rowanWrite(d, a.a, ctx.c % cx.conf.workers, a.b, { e: ctx.e, op: ctx.op, r: 1 })) ctx.err = true;
    },
  },
  readFlush: {
    name: 'readFlush', cites: 'L174-L178 (split config): the trailing 1 B READ flushes the RNIC/PCIe buffers, then completes (G2)',
    exists: (cx) => cx.conf.split,
    enabled: (cx, s, b, out) => {
      if (s.srv[b].up && cx.conf.split && s.srv[b].unflushed.length) out.push(act('readFlush', b));
    },
    effect: (cx, d, a) => {
      const b = d.srv[a.a];
      for (const u of b.unflushed) {
        const g = segW(b, u.seg);
        g.es[u.slot] = withNp(g.es[u.slot], 0);
        if (!cx.mut.M3 && u.op >= 0) ack(d, u.from, u.op, a.a);
      }
      b.unflushed = objectList();
    },
    writes: () => 'all',
  },
  markUsed: {
    name: 'markUsed', cites: 'L272-L274: the first 64 bits of a later segment are non-zero (after the 2 ms wait)',
    enabled: (cx, s, b, out) => {
      if (!threads(s, b)) return;
      // a later b-log segment has its first slot written (not an outstanding DMA): the last such one
      const segs = s.srv[b].segs;
      let last = -1;
      for (let j = segs.length - 1; j >= 0 && last < 0; j--) if (segs[j].log === 'b' && segs[j].es.length > 0 && segs[j].es[0].np !== 2) last = j;
      for (let j = 0; j < last; j++) {
        const g = segs[j];
        if (g.log === 'b' && g.st === 'using' && waited(cx, s, b, g)) out.push(act('markUsed', b, g.id));
      }
    },
    effect: (_cx, d, a) => {
      segW(d.srv[a.a], a.b).st = 'used';
    },
  },
  digest: {
    name: 'digest', cites: '§2.8, L278-L282: digest a used segment in slot order (conditional update, CommitVerArray, MaxVerArray)',
    enabled: (_cx, s, b, out) => {
      if (threads(s, b)) for (const g of s.srv[b].segs) if (g.log === 'b' && g.st === 'used' && !g.dg) out.push(act('digest', b, g.id));
    },
    effect: (cx, d, a) => {
      const b = d.srv[a.a];
      const seg = segW(b, a.b);
      seg.mv = filled(cx.nsh, 0);
      for (const { e, i } of parse(seg, cx.mut)) {
        // a slot whose DMA is still outstanding fails its checksum (L253): skipped
        if (e.np === 2) seg.bad = [...(seg.bad ?? []), i];
        else if (e.t === 'C') own(b, 'commitVerArray')[e.sh] = Math.max(b.commitVerArray[e.sh], e.x);
        else {
          // M10 breaks L353 at the backup: b-log order is taken as the serialization
          apply(d, b, e, `${seg.id}.${i}`, !cx.mut.M10, cx.mut);
          seg.mv[e.sh] = Math.max(seg.mv[e.sh], e.v);
        }
      }
      seg.dg = true;
    },
  },
  commitSegment: {
    name: 'commitSegment', cites: 'L282: a digested segment commits when its MaxVerArray <= CommitVerArray',
    exists: (cx) => cx.conf.commitVer > 0,
    enabled: (cx, s, b, out) => {
      if (!threads(s, b) || !cx.conf.commitVer) return;
      const cva = s.srv[b].commitVerArray;
      // CV-OFF-BY-ONE breaks L282: a segment commits with MaxVer one above CommitVer
      const slack = cx.mut['CV-OFF-BY-ONE'] ? 1 : 0;
      for (const g of s.srv[b].segs) if (g.log === 'b' && g.st === 'used' && g.dg && g.mv.every((m, sh) => m <= cva[sh] + slack)) out.push(act('commitSegment', b, g.id));
    },
    effect: (_cx, d, a) => {
      segW(d.srv[a.a], a.b).st = 'committed';
    },
  },
  cleanFix: {
    name: 'cleanFix', cites: 'L284: update the index to the copies (an equal version moves the pointer), free the segment, post it again (L270)',
    exists: (cx) => cx.conf.gc > 0,
    enabled: (_cx, s, b, out) => {
      const cl = s.srv[b].clean;
      if (threads(s, b) && cl) out.push(act('cleanFix', b, cl.seg));
    },
    effect: (cx, d, a) => cleanFix(cx, d, a.a),
  },
  cleanCopy: {
    name: 'cleanCopy', cites: '§2.10, L284: copy the live entries of a committed segment into a clean segment',
    exists: (cx) => cx.conf.gc > 0,
    enabled: (cx, s, b, out) => {
      const v = s.srv[b];
      if (!threads(s, b) || v.clean || s.cm.gcLeft <= 0) return;
      // M24 breaks L284: used (uncommitted) segments are cleaned too
      for (const g of v.segs) if ((g.st === 'committed' || (cx.mut.M24 && g.st === 'used')) && !v.dma.some((x) => x.seg === g.id)) out.push(act('cleanCopy', b, g.id));
    },
    effect: (cx, d, a) => {
      const s = d.srv[a.a];
      const seg = s.segs.find((g) => g.id === a.b)!;
      if (seg.st !== 'committed' && !d.bad) d.bad = `I14: segment ${seg.id} of server ${a.a} cleaned while ${seg.st}`;
      const live = parse(seg, cx.mut).flatMap(({ e, i }) => (e.t !== 'C' && s.idx[e.k]?.loc === `${seg.id}.${i}` ? [{ e, loc: `${seg.id}.${i}` }] : []));
      // tombGc [I]: a live tombstone is dropped, not copied, once no older entry of its key
      // is left in this server's PM outside the segment (otherwise a rebuild would revive it, §3.8)
      let inPm: PmEntry[] | undefined; // listed once, when a tombstone first asks
      const older = (e: Entry) => (inPm ??= pmEntries(s)).some((x) => x.seg.id !== seg.id && x.e.sh === e.sh && x.e.k === e.k && x.e.v < e.v);
      const reclaim = live.filter(({ e }) => cx.conf.tombGc && e.t === 'D' && !older(e));
      const keep = live.filter((x) => !reclaim.includes(x)).map(({ e }) => e);
      const dst = newSeg(s, 'c', 'committed', mapped(keep, (e) => withNp(e, e.np)));
      const moved = mapped(keep, (e, i) => ({ k: e.k, v: e.v, loc: `${dst.id}.${i}`, e }));
      s.clean = { seg: seg.id, moved, rm: reclaim.length ? reclaim.map(({ e, loc }) => ({ k: e.k, v: e.v, loc })) : null };
      cmW(d).gcLeft--;
    },
  },
};

function cleanFix(cx: Cx, d: RowanState, sv: number) {
  const s = d.srv[sv];
  const cl = s.clean!;
  // M11 breaks L353 in the clean thread: unconditional pointer update
  for (const m of cl.moved) {
    const cur = s.idx[m.k];
    if (cx.mut.M11 || (cur && cur.v === m.v)) apply(d, s, m.e, m.loc, !cx.mut.M11, cx.mut);
  }
  for (const m of cl.rm ?? [])
    if (s.idx[m.k]?.loc === m.loc) {
      own(s, 'idx')[m.k] = null;
      own(s, 'tomb')[m.k] = Math.max(s.tomb[m.k], m.v);
    }
  const seg = segW(s, cl.seg);
  for (const { e, i } of parse(seg, cx.mut))
    if (e.t !== 'C' && s.idx[e.k]?.loc === `${seg.id}.${i}` && !d.bad) d.bad = `I14: live entry ${seg.id}.${i} freed`;
  // M23: what the slots hold when the segment is posted again with only its first 64 bits zeroed
  const old = cx.mut.M23 ? [...Array(cx.conf.segCap).keys()].map((i) => (i === 0 ? null : (seg.es[i] ?? seg.old?.[i] ?? null))) : [];
  seg.st = 'free';
  seg.es = objectList();
  s.clean = null;
  if (seg.log === 'b') {
    // L270-L272: a free segment is posted again at the tail of the b-log. [I] Every slot's
    // first word is zeroed, so a reader stops at the new tail (M23 zeroes only the first)
    s.segs = s.segs.filter((g) => g.id !== seg.id);
    const again = newSegment(seg.id, 'b', 'using', objectList());
    if (old.some((e) => e)) again.old = old;
    s.segs.push(again);
    if (s.cur === seg.id) s.cur = -1;
  }
}
