// In-n-Out (§4, f.71-91): one fallible max register on one memory node for values larger
// than a word, built from non-atomic reads and writes plus one 8-byte CAS word `meta`.
// Listings rebuilt in the extraction §5.2 (I1-I15, X1-X7). A value v has two data words
// (v, v); a torn read shows two different words or an uninitialised one (-1). The write's
// timestamp is its value, so the max-register order is the value order.
//
// Checked: the weak max-register specification (MR-Valid, MR-RR, MR-WR, App. A f.298-316)
// and INO-NoGarbage (§6.4) on the per-MN history.

import type { Action, Check, Machine } from '../../checkers/explore/types.ts';
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

interface Bg { v: number; b: number; i: number } // background in-place write (I7): next word i

interface Writer {
  pc: number;
  /** The current WRITE: buffer b, words of it written (I5), MAX state (X2-X6). */
  op: { v: number; b: number; words: number; cur: number; maxDone: boolean } | null;
  cached: number; // locally cached value of meta (X2)
  bg: Bg[];
}

interface Reader {
  pc: number;
  op: { st: 'I12' | 'ip' | 'I15'; md: number; words: number[]; frW: number; frR: number } | null;
}

export interface InoState {
  meta: number;
  inplace: number[]; // [data0, data1, hash] next to meta (Figure 3)
  bufs: number[][]; // out-of-place buffers, never reused unless M23
  writers: Writer[];
  reader: Reader;
  g: { inv: number[]; cR: number; cW: number };
  viol: [string, string] | null;
}

export interface InoAction extends Action {
  t: 'winv' | 'I5' | 'X4' | 'I7' | 'rinv' | 'I12' | 'ip' | 'I15';
  p: number;
  i: number;
}

export function buildIno(cfg: InoConfig, variant?: string): Machine<InoState, InoAction> {
  const mut = VARIANTS.flags(variant);
  const nw = cfg.writes.length;
  // Buffer ids: 0 holds ⊥₀; each write has its own (M23: one per writer, reused).
  const allWrites = cfg.writes.flat();
  const bufOf = (p: number, v: number) => (mut.M23 ? p + 1 : allWrites.indexOf(v) + 1);
  const nbufs = (mut.M23 ? nw : allWrites.length) + 1;
  // A collision-free hash binding the data to (t, ptr) (f.80); M21 binds the data only.
  const H = (d0: number, d1: number, md: number) =>
    1000 + ((d0 + 1) * 20 + (d1 + 1)) * 400 + (mut.M21 ? 0 : md);

  const clone = (s: InoState): InoState => ({
    meta: s.meta,
    inplace: s.inplace.slice(),
    bufs: s.bufs.map((b) => b.slice()),
    writers: s.writers.map((w) => ({ ...w, op: w.op && { ...w.op }, bg: w.bg.map((b) => ({ ...b })) })),
    reader: { pc: s.reader.pc, op: s.reader.op && { ...s.reader.op, words: s.reader.op.words.slice() } },
    g: { ...s.g },
    viol: s.viol,
  });
  const fail = (d: InoState, prop: string, msg: string) => {
    if (!d.viol) d.viol = [prop, msg];
  };
  const readerReturns = (d: InoState, words: number[]) => {
    const op = d.reader.op!;
    const [w0, w1] = words;
    if (w0 !== w1 || w0 === UNSET) fail(d, 'INO-NoGarbage', `READ returned the torn or uninitialised words [${w0}, ${w1}]`);
    else {
      if (w0 !== 0 && !d.g.inv.includes(w0)) fail(d, 'MR-Valid', `READ returned ${w0}, never written`);
      if (w0 < op.frW) fail(d, 'MR-WR', `READ returned ${w0} below ${op.frW}, written before it started`);
      if (w0 < op.frR) fail(d, 'MR-RR', `READ returned ${w0} below ${op.frR}, read before it started`);
      d.g.cR = Math.max(d.g.cR, w0);
    }
    d.reader.op = null;
  };

  return {
    init: () => [{
      meta: meta(0, 0),
      inplace: [0, 0, H(0, 0, meta(0, 0))],
      bufs: Array.from({ length: nbufs }, (_, b) => (b === 0 ? [0, 0] : [UNSET, UNSET])),
      writers: cfg.writes.map(() => ({ pc: 0, op: null, cached: meta(0, 0), bg: [] })),
      reader: { pc: 0, op: null },
      g: { inv: [], cR: 0, cW: 0 },
      viol: null,
    }],
    actions(s) {
      const out: InoAction[] = [];
      if (s.viol) return out;
      s.writers.forEach((w, p) => {
        const P = procName(p);
        if (!w.op && w.pc < cfg.writes[p].length) out.push({ label: `I1_WRITE(${P},${cfg.writes[p][w.pc]})`, t: 'winv', p, i: 0 });
        if (w.op && w.op.words < 2) out.push({ label: `I5_writeBuf(${P},buf${w.op.b}[${w.op.words}])`, t: 'I5', p, i: 0 });
        // I4: the buffer write and the MAX are pipelined FIFO (M20: not ordered)
        if (w.op && !w.op.maxDone && (w.op.words === 2 || mut.M20)) out.push({ label: `X4_casMeta(${P})`, t: 'X4', p, i: 0 });
        w.bg.forEach((b, i) => out.push({ label: `I7_writeInplace(${P},v${b.v},word${b.i})`, t: 'I7', p, i }));
      });
      const r = s.reader;
      const R = nw;
      if (!r.op && r.pc < cfg.reads) out.push({ label: 'I9_READ(R)', t: 'rinv', p: R, i: 0 });
      if (r.op?.st === 'I12') out.push({ label: 'I12_readMeta(R)', t: 'I12', p: R, i: 0 });
      if (r.op?.st === 'ip') out.push({ label: `I12_readInplace(R,word${r.op.words.length})`, t: 'ip', p: R, i: 0 });
      if (r.op?.st === 'I15') out.push({ label: `I15_readBuf(R,buf${metaPtr(r.op.md)}[${r.op.words.length}])`, t: 'I15', p: R, i: 0 });
      return out;
    },
    next(s, a) {
      const d = clone(s);
      switch (a.t) {
        case 'winv': { // I1-I3: timestamp and a fresh out-of-place buffer
          const w = d.writers[a.p];
          const v = cfg.writes[a.p][w.pc++];
          d.g.inv = [...d.g.inv, v].sort((x, y) => x - y);
          w.op = { v, b: bufOf(a.p, v), words: 0, cur: w.cached, maxDone: false };
          break;
        }
        case 'I5': { // I5: out-of-place buffer, word by word
          const op = d.writers[a.p].op!;
          d.bufs[op.b][op.words++] = op.v;
          if (op.words === 2) {
            d.writers[a.p].bg.push({ v: op.v, b: op.b, i: 0 }); // I7 scheduled
            if (op.maxDone) d.writers[a.p].op = null; // (M20 only: the MAX went first)
          }
          break;
        }
        case 'X4': { // X3-X6: CAS meta from the cached value up to (t, buf); I8 returns when done
          const w = d.writers[a.p];
          const op = w.op!;
          const mine = meta(op.v, op.b);
          let done: boolean;
          if (mut.M22) { // M22: a plain write of meta, no max
            d.meta = mine;
            done = true;
          } else if (d.meta === op.cur) { d.meta = mine; done = true; } // X5
          else { op.cur = d.meta; done = op.cur >= mine; } // X6, X7: dominated, a max no-op
          if (done) { // I8: the write is deemed over when the MAX completes (f.84)
            w.cached = Math.max(op.cur, mine);
            d.g.cW = Math.max(d.g.cW, op.v);
            op.maxDone = true;
            if (op.words === 2) w.op = null;
          }
          break;
        }
        case 'I7': { // I7: in-place (data, hash), word by word, may tear and may land in any order
          const w = d.writers[a.p];
          const b = w.bg[a.i];
          d.inplace[b.i] = b.i < 2 ? b.v : H(b.v, b.v, meta(b.v, b.b));
          b.i++;
          if (b.i === 3) w.bg.splice(a.i, 1);
          break;
        }
        case 'rinv':
          d.reader.pc++;
          d.reader.op = { st: 'I12', md: 0, words: [], frW: d.g.cW, frR: d.g.cR };
          break;
        case 'I12': // I12: meta is one atomic 8-byte word; the in-place words follow
          d.reader.op!.md = d.meta;
          d.reader.op!.st = 'ip';
          break;
        case 'ip': {
          const op = d.reader.op!;
          op.words.push(d.inplace[op.words.length]);
          if (op.words.length < 3) break;
          const [d0, d1, h] = op.words;
          if (h === H(d0, d1, op.md)) readerReturns(d, [d0, d1]); // I13-I14
          else { op.st = 'I15'; op.words = []; } // I15: out-of-place, a second roundtrip
          break;
        }
        case 'I15': {
          const op = d.reader.op!;
          op.words.push(d.bufs[metaPtr(op.md)][op.words.length]);
          if (op.words.length === 2) readerReturns(d, op.words);
          break;
        }
      }
      return d;
    },
    invariants: Object.fromEntries(['MR-Valid', 'MR-RR', 'MR-WR', 'INO-NoGarbage'].map((name) => [
      name, (s: InoState): Check => (s.viol && s.viol[0] === name ? s.viol[1] : true),
    ])),
    mayStop: (s) => s.viol !== null || (s.reader.pc === cfg.reads && !s.reader.op && s.writers.every((w, p) => w.pc === cfg.writes[p].length && !w.op && w.bg.length === 0)),
    actor: (a) => (a.p === nw ? 'R' : procName(a.p)),
  };
}
