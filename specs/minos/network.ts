// Message delivery (§7.2 item 7): the network is a reliable, unordered bag
// (specs/kit/network.ts), so any message in flight may be delivered next; a VAL only once a
// thread takes it. Delivering an INV spawns a follower thread (Line 26) and runs Line 27's
// Obsolete check; ACKs fill the coordinator's sender sets; VALs run Steps l and m.
// `duplicate` (the B-synch-dup config, M28) puts a second copy of an ACK in flight.

import { sameMsg, send as bagSend } from '../kit/network.ts';
import { removeAt } from '../kit/state.ts';
import type { GlobalStep } from '../kit/table.ts';
import type { Cx } from './context.ts';
import { ACK_P, INV, NONE, NO_ITEMS, PERSIST, VAL, VAL_C, VAL_P, coordOf, foOf, keyTS, link, msgItems, netOf, type MinosAction, type Msg, type State } from './state.ts';

type Step = GlobalStep<State, MinosAction>;

/** The follower thread a VAL-type message m is for, or -1. */
export function valTarget(cx: Cx, s: State, m: Msg): number {
  const t = m[0];
  const k = m[1];
  const ts = m[2];
  const from = m[3];
  const to = m[4];
  const sc = m[5];
  for (let i = 0; i < s.fo.length; i++) {
    const f = s.fo[i];
    if (f.n !== to || f.from !== from) continue;
    if (k === -1) {
      if (f.kind === 'persist' && f.sc === sc && f.pc === 'waitVP') return i;
      continue;
    }
    if (f.kind !== 'write' || f.k !== k || f.ts !== ts) continue;
    if (f.pc === 'discard') return i; // Line 30: a later VAL for a cut-short write is discarded
    if (f.pc === 'wait' && t !== VAL_P && cx.drained(s.rec[f.n][f.k], f.ts)) return i;
    if (f.pc === 'waitP' && t === VAL_P) return i;
  }
  return -1;
}

const isVal = (m: Msg): boolean => m[0] === VAL || m[0] === VAL_C || m[0] === VAL_P;
const isAck = (m: Msg): boolean => m[0] <= ACK_P;

/** Line 26: a follower thread per INV; Line 27's check happens on arrival. */
function recvINV(cx: Cx, d: State, m: Msg): void {
  const k = m[1];
  const ts = m[2];
  const from = m[3];
  const to = m[4];
  const sc = m[5];
  const v = m[7];
  const r = d.rec[to][k];
  const obsolete = !cx.mut.M4 && cx.obsolete(r, ts);
  foOf(d).push({ n: to, kind: 'write', k, ts, v, from, pc: obsolete ? 'cspin' : 'snatch', tau: obsolete ? cx.cur(r) : NONE, sn: false, need: 0, sc, items: NO_ITEMS });
}

/**
 * The coordinator's sender sets are per (key, TS_WR) [Table I 4c]: every thread with that
 * TS_WR sees the ACK (two only under a TS collision); an unmatched ACK is dropped.
 */
function recvACK(cx: Cx, d: State, m: Msg): void {
  const t = m[0];
  const k = m[1];
  const ts = m[2];
  const from = m[3];
  const to = m[4];
  const sc = m[5];
  for (let c = 0; c < d.co.length; c++) {
    const shared = d.co[c];
    if (!shared || cx.nodeOf(c) !== to) continue;
    const mine = k === -1 ? shared.kind === 'persist' && shared.sc === sc : shared.kind === 'write' && shared.sent && shared.k === k && shared.ts === ts;
    if (!mine) continue;
    const th = coordOf(d, c);
    const bit = 1 << from;
    if (t === ACK_P) th.ackP = cx.mut.M28 ? th.ackP + 1 : th.ackP | bit;
    else th.ack = cx.mut.M28 ? th.ack + 1 : th.ack | bit; // M28: counted, not a sender set
  }
}

/** A VAL reaches the thread valTarget names: Line 30's discard, Steps l (Lines 41-43) and m, or the end of [PERSIST]sc. */
function recvVAL(cx: Cx, d: State, m: Msg): void {
  const i = valTarget(cx, d, m);
  const f = d.fo[i];
  if (f.pc === 'discard') {
    f.need--;
    if (f.need === 0) removeAt(foOf(d), i);
    return;
  }
  if (f.pc === 'waitVP') {
    removeAt(foOf(d), i); // [VAL_P]sc ends the PERSIST transaction
    return;
  }
  const r = d.rec[f.n][f.k];
  if (f.pc === 'waitP') {
    r.gd = cx.glb(r.gd, f.ts); // Strict Step m
    removeAt(foOf(d), i);
    return;
  }
  // Step l (Line 41): glb update, then Lines 42-43
  r.gv = cx.glb(r.gv, f.ts);
  if (cx.model === 'Synch' || cx.model === 'REnf') r.gd = cx.glb(r.gd, f.ts);
  cx.releaseIfOwner(r, f.ts);
  if (cx.model === 'Strict') f.pc = 'waitP';
  else removeAt(foOf(d), i);
}

export function networkSteps(cx: Cx): Step[] {
  const dup = cx.cfg.duplicate === true;
  // A message is immutable and shared by every state it is in flight in: its delivery's
  // label is made once, on the first state that offers it (the guard runs on every state).
  const linkOf = (m: Msg): string => {
    const [, k, ts, from, to, sc] = m;
    const what = k === -1 ? `sc${sc}` : keyTS(k, ts);
    return `${link(to, from)}, ${what}`;
  };
  // So is its delivery action at each place in the bag it takes.
  const recvs = new WeakMap<Msg, { label: string; at: MinosAction[] }>();
  const recvAction = (m: Msg, j: number): MinosAction => {
    let made = recvs.get(m);
    if (made === undefined) recvs.set(m, (made = { label: `recv${cx.msgName(m[0])}(${linkOf(m)})`, at: [] }));
    return (made.at[j] ??= { step: 'recv', label: made.label, i: j, k: m[1] });
  };
  return [
    {
      name: 'recv',
      cites: '§7.2 item 7; Fig. 2 Lines 26-27, 41-43; Fig. 3 Steps l, m',
      // Each distinct message once (identical copies are one delivery), then its duplication.
      enabled(s, out) {
        if (s.crashed) return;
        for (let j = 0; j < s.net.length; j++) {
          const m = s.net[j];
          if (j > 0 && sameMsg(s.net[j - 1], m)) continue;
          if (isVal(m) && valTarget(cx, s, m) < 0) continue;
          out.push(recvAction(m, j));
          if (dup && m[6] === 0 && isAck(m)) out.push({ step: 'duplicateACK', label: `duplicate${cx.msgName(m[0])}(${linkOf(m)})`, i: j, k: m[1] });
        }
      },
      effect(d, a) {
        const m = d.net[a.i];
        removeAt(netOf(d), a.i);
        if (m[0] === INV) recvINV(cx, d, m);
        else if (m[0] === PERSIST) foOf(d).push({ n: m[4], kind: 'persist', k: -1, ts: NONE, v: 0, from: m[3], pc: 'flush', tau: NONE, sn: false, need: 0, sc: m[5], items: msgItems(m) });
        else if (isAck(m)) recvACK(cx, d, m);
        else recvVAL(cx, d, m);
      },
    },
    {
      name: 'duplicateACK',
      cites: 'Table I 4c sender sets [L312] (the B-synch-dup config)',
      // Enumerated by `recv`, right after the delivery of the same message (one order of actions).
      enabled: () => {},
      effect(d, a) {
        const [t, k, ts, from, to, sc, , v, ...items] = d.net[a.i];
        const net = netOf(d);
        removeAt(net, a.i);
        const twin: Msg = [t, k, ts, from, to, sc, 1, v, ...items];
        bagSend(net, twin);
        bagSend(net, twin);
      },
    },
  ];
}
