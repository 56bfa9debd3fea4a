// In-n-Out (§4, f.71-91): one fallible max register on one memory node for values larger
// than a word, built from non-atomic reads and writes plus one 8-byte CAS word `meta`.
// Listings rebuilt in the extraction §5.2 (I1-I15, X1-X7). A value v has two data words
// (v, v); a torn read shows two different words or an uninitialised one (-1). The write's
// timestamp is its value, so the max-register order is the value order.
//
// Checked: the weak max-register specification (MR-Valid, MR-RR, MR-WR, App. A f.298-316)
// and INO-NoGarbage (§6.4) on the per-MN history.
//
// The state is on the kit's word layout (specs/kit/layout.ts): every part has a bound the
// config fixes (a writer's background in-place writes, at most one per WRITE it issues; the
// reader's words, at most three; the invoked values), so lists are fixed-capacity arrays
// with a count, their unused entries 0, and a part that is absent (no WRITE or READ in
// progress, no violation) is all 0. Equal states are equal words, so the engine copies,
// hashes and stores the words as they are (its layout path: no allocation per step).

import type { Action, Check, Machine } from '../../checkers/explore/types.ts';
import { countedHas, countedInsert, int, ints, layout, layoutMachine, type LayoutState } from '../kit/layout.ts';
import { VARIANTS } from './mutants.ts';
import { procName } from './tuple.ts';

export interface InoConfig {
  /** Per writer, the values it writes (unique across writers). */
  writes: number[][];
  /** Reads of the single reader. */
  reads: number;
}

const UNSET = -1; // a word no write has reached
const meta = (t: number, ptr: number) => t * 16 + ptr; // (tsf, ptr), compared by tsf first (f.84)
const metaPtr = (m: number) => m & 15;

// The reader's operation: none, or the line it is at.
const R_NONE = 0;
const R_I12 = 1; // I12: read meta
const R_IP = 2; // I12: read the in-place words
const R_I15 = 3; // I15: read the out-of-place buffer

// Transition properties that failed (the first one is kept; the search stops there).
const PROPS = ['', 'INO-NoGarbage', 'MR-Valid', 'MR-WR', 'MR-RR'] as const;
const NO_GARBAGE = 1;
const MR_VALID = 2;
const MR_WR = 3;
const MR_RR = 4;

/** The action kinds, in the order actions() offers them per writer, then the reader's. */
const KINDS = ['winv', 'I5', 'X4', 'I7', 'rinv', 'I12', 'ip', 'I15'] as const;

export interface InoAction extends Action {
  t: (typeof KINDS)[number];
  p: number;
  i: number;
}

function inoLayout(nw: number, nbufs: number, bgMax: number, nWrites: number) {
  return layout({
    meta: int,
    inplace: ints(3), // [data0, data1, hash] next to meta (Figure 3)
    bufs: ints(2 * nbufs), // out-of-place buffer b at 2b, 2b+1; never reused unless M23
    // Per writer p: its script position, its current WRITE (I1-I8: buffer b, words of it
    // written (I5), MAX state (X2-X6); all 0 when none), its cached meta (X2) and its
    // background in-place writes (I7), entry k of p at 3 (p·bgMax + k): [v, b, next word i].
    wPc: ints(nw),
    wOp: ints(nw), // 1: a WRITE in progress
    wV: ints(nw),
    wB: ints(nw),
    wWords: ints(nw),
    wCur: ints(nw),
    wMaxDone: ints(nw),
    wCached: ints(nw),
    bgN: ints(nw),
    bg: ints(3 * nw * bgMax),
    // The reader: its script position and its READ (all 0 when none).
    rPc: int,
    rSt: int,
    rMd: int,
    rN: int,
    rWords: ints(3),
    rFrW: int, // ghost floors for MR-WR / MR-RR, fixed at invocation (§6.1 incremental form)
    rFrR: int,
    // The ghost: invoked values, sorted (MR-Valid); max completed read and write.
    invN: int,
    inv: ints(nWrites),
    cR: int,
    cW: int,
    // The first failed property (PROPS) and the values its message names.
    viol: int,
    violA: int,
    violB: int,
  });
}

/** The state's fields a report hides unless asked (the ghost and the violation). */
export const INO_INTERNAL = ['invN', 'inv', 'cR', 'cW', 'viol', 'violA', 'violB'];

export function buildIno(cfg: InoConfig, variant?: string): Machine {
  const mut = VARIANTS.flags(variant);
  const nw = cfg.writes.length;
  // Buffer ids: 0 holds ⊥₀; each write has its own (M23: one per writer, reused).
  const allWrites = cfg.writes.flat();
  const bufOf = (p: number, v: number) => (mut.M23 ? p + 1 : allWrites.indexOf(v) + 1);
  const nbufs = (mut.M23 ? nw : allWrites.length) + 1;
  const bgMax = Math.max(1, ...cfg.writes.map((w) => w.length));
  const L = inoLayout(nw, nbufs, bgMax, Math.max(1, allWrites.length));
  type S = LayoutState<typeof L.fields>;
  // A collision-free hash binding the data to (t, ptr) (f.80); M21 binds the data only.
  const H = (d0: number, d1: number, md: number) =>
    1000 + ((d0 + 1) * 20 + (d1 + 1)) * 400 + (mut.M21 ? 0 : md);

  const fail = (d: S, prop: number, a: number, b: number) => {
    if (d.viol === 0) {
      d.viol = prop;
      d.violA = a;
      d.violB = b;
    }
  };
  const message = (s: S): string => {
    const w0 = s.violA;
    switch (s.viol) {
      case NO_GARBAGE: return `READ returned the torn or uninitialised words [${w0}, ${s.violB}]`;
      case MR_VALID: return `READ returned ${w0}, never written`;
      case MR_WR: return `READ returned ${w0} below ${s.violB}, written before it started`;
      default: return `READ returned ${w0} below ${s.violB}, read before it started`;
    }
  };
  const readerReturns = (d: S, w0: number, w1: number) => {
    if (w0 !== w1 || w0 === UNSET) fail(d, NO_GARBAGE, w0, w1);
    else {
      if (w0 !== 0 && !countedHas(d.inv, d.invN, w0)) fail(d, MR_VALID, w0, 0);
      if (w0 < d.rFrW) fail(d, MR_WR, w0, d.rFrW);
      if (w0 < d.rFrR) fail(d, MR_RR, w0, d.rFrR);
      d.cR = Math.max(d.cR, w0);
    }
    d.rSt = R_NONE; d.rMd = 0; d.rN = 0; d.rWords.fill(0); d.rFrW = 0; d.rFrR = 0;
  };
  const writeDone = (d: S, p: number) => {
    d.wOp[p] = 0; d.wV[p] = 0; d.wB[p] = 0; d.wWords[p] = 0; d.wCur[p] = 0; d.wMaxDone[p] = 0;
  };

  // Actions by what they name (made once each: labels are not built per state).
  const made = new Map<number, InoAction>();
  const action = (t: number, p: number, i: number, x: number, y: number, label: () => string): InoAction => {
    if (p > 7 || i > 7 || x > 255 || y > 15) return { label: label(), t: KINDS[t], p, i };
    const key = (((t * 8 + p) * 8 + i) * 256 + x) * 16 + y;
    let a = made.get(key);
    if (a === undefined) made.set(key, (a = { label: label(), t: KINDS[t], p, i }));
    return a;
  };
  const R = nw;

  return layoutMachine(L, {
    init: () => [{
      meta: meta(0, 0),
      inplace: [0, 0, H(0, 0, meta(0, 0))],
      bufs: Array.from({ length: 2 * nbufs }, (_, j) => (j < 2 ? 0 : UNSET)),
      wCached: cfg.writes.map(() => meta(0, 0)),
    }],
    actions(s) {
      const out: InoAction[] = [];
      if (s.viol !== 0) return out;
      for (let p = 0; p < nw; p++) {
        const P = procName(p);
        const pc = s.wPc[p];
        const op = s.wOp[p] === 1;
        const words = s.wWords[p];
        const b = s.wB[p];
        if (!op && pc < cfg.writes[p].length) out.push(action(0, p, 0, pc, 0, () => `I1_WRITE(${P},${cfg.writes[p][pc]})`));
        if (op && words < 2) out.push(action(1, p, 0, b, words, () => `I5_writeBuf(${P},buf${b}[${words}])`));
        // I4: the buffer write and the MAX are pipelined FIFO (M20: not ordered)
        if (op && s.wMaxDone[p] === 0 && (words === 2 || mut.M20)) out.push(action(2, p, 0, 0, 0, () => `X4_casMeta(${P})`));
        for (let i = 0; i < s.bgN[p]; i++) {
          const at = 3 * (p * bgMax + i);
          const v = s.bg[at];
          const w = s.bg[at + 2];
          out.push(action(3, p, i, v, w, () => `I7_writeInplace(${P},v${v},word${w})`));
        }
      }
      const st = s.rSt;
      const n = s.rN;
      if (st === R_NONE && s.rPc < cfg.reads) out.push(action(4, R, 0, 0, 0, () => 'I9_READ(R)'));
      if (st === R_I12) out.push(action(5, R, 0, 0, 0, () => 'I12_readMeta(R)'));
      if (st === R_IP) out.push(action(6, R, 0, n, 0, () => `I12_readInplace(R,word${n})`));
      if (st === R_I15) {
        const ptr = metaPtr(s.rMd);
        out.push(action(7, R, 0, ptr, n, () => `I15_readBuf(R,buf${ptr}[${n}])`));
      }
      return out;
    },
    step(d, a) {
      const p = a.p;
      switch (a.t) {
        case 'winv': { // I1-I3: timestamp and a fresh out-of-place buffer
          const v = cfg.writes[p][d.wPc[p]++];
          d.invN = countedInsert(d.inv, d.invN, v);
          d.wOp[p] = 1; d.wV[p] = v; d.wB[p] = bufOf(p, v); d.wWords[p] = 0; d.wCur[p] = d.wCached[p]; d.wMaxDone[p] = 0;
          break;
        }
        case 'I5': { // I5: out-of-place buffer, word by word
          const v = d.wV[p];
          const b = d.wB[p];
          d.bufs[2 * b + d.wWords[p]++] = v;
          if (d.wWords[p] === 2) {
            const at = 3 * (p * bgMax + d.bgN[p]++); // I7 scheduled
            d.bg[at] = v; d.bg[at + 1] = b; d.bg[at + 2] = 0;
            if (d.wMaxDone[p] === 1) writeDone(d, p); // (M20 only: the MAX went first)
          }
          break;
        }
        case 'X4': { // X3-X6: CAS meta from the cached value up to (t, buf); I8 returns when done
          const v = d.wV[p];
          const mine = meta(v, d.wB[p]);
          let done: boolean;
          if (mut.M22) { // M22: a plain write of meta, no max
            d.meta = mine;
            done = true;
          } else if (d.meta === d.wCur[p]) { d.meta = mine; done = true; } // X5
          else { d.wCur[p] = d.meta; done = d.wCur[p] >= mine; } // X6, X7: dominated, a max no-op
          if (done) { // I8: the write is deemed over when the MAX completes (f.84)
            d.wCached[p] = Math.max(d.wCur[p], mine);
            d.cW = Math.max(d.cW, v);
            d.wMaxDone[p] = 1;
            if (d.wWords[p] === 2) writeDone(d, p);
          }
          break;
        }
        case 'I7': { // I7: in-place (data, hash), word by word, may tear and may land in any order
          const at = 3 * (p * bgMax + a.i);
          const v = d.bg[at];
          const i = d.bg[at + 2];
          d.inplace[i] = i < 2 ? v : H(v, v, meta(v, d.bg[at + 1]));
          d.bg[at + 2] = i + 1;
          if (i + 1 === 3) { // done: the later entries move up, the last slot cleared
            const last = 3 * (p * bgMax + --d.bgN[p]);
            for (let j = at; j < last; j++) d.bg[j] = d.bg[j + 3];
            d.bg[last] = d.bg[last + 1] = d.bg[last + 2] = 0;
          }
          break;
        }
        case 'rinv':
          d.rPc++;
          d.rSt = R_I12; d.rMd = 0; d.rN = 0; d.rFrW = d.cW; d.rFrR = d.cR;
          break;
        case 'I12': // I12: meta is one atomic 8-byte word; the in-place words follow
          d.rMd = d.meta;
          d.rSt = R_IP;
          break;
        case 'ip': {
          const n = d.rN;
          d.rWords[n] = d.inplace[n];
          d.rN = n + 1;
          if (n + 1 < 3) break;
          const w = d.rWords;
          if (w[2] === H(w[0], w[1], d.rMd)) readerReturns(d, w[0], w[1]); // I13-I14
          else { d.rSt = R_I15; d.rN = 0; w.fill(0); } // I15: out-of-place, a second roundtrip
          break;
        }
        case 'I15': {
          const n = d.rN;
          d.rWords[n] = d.bufs[2 * metaPtr(d.rMd) + n];
          d.rN = n + 1;
          if (n + 1 === 2) readerReturns(d, d.rWords[0], d.rWords[1]);
          break;
        }
      }
    },
    invariants: Object.fromEntries(PROPS.slice(1).map((name, k) => [
      name, (s: S): Check => (s.viol === k + 1 ? message(s) : true),
    ])),
    mayStop: (s) => {
      if (s.viol !== 0) return true;
      if (s.rPc !== cfg.reads || s.rSt !== R_NONE) return false;
      for (let p = 0; p < nw; p++) if (s.wPc[p] !== cfg.writes[p].length || s.wOp[p] !== 0 || s.bgN[p] !== 0) return false;
      return true;
    },
    actor: (a) => (a.p === nw ? 'R' : procName(a.p)),
  }) as unknown as Machine;
}
