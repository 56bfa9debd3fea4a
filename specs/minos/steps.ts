// The machine's actions as one table in phases (specs/kit/table.ts), in the order the
// search enumerates them: per client, its coordinator thread's step or its next operation
// (clients are sequential scripts bound to a node); per follower thread, its step; then the
// network's deliveries, the background persists, MINOS-O's vFIFO dequeues, the full-system
// crash and, after it, the post-crash reads.

import { objectList, removeAt } from '../kit/state.ts';
import type { ActorStep, GlobalStep, Phase } from '../kit/table.ts';
import { broadcast, checkI11, maxDone, persistNvm, readValue, scopeItems, type Cx } from './context.ts';
import { coordinatorSteps } from './coordinator.ts';
import { followerSteps } from './follower.ts';
import { networkSteps } from './network.ts';
import { ActionCache, KEY, NODE, NONE, NO_ITEMS, PERSIST, actionKey, bgOf, clientAt, clientWriteLabel, coOf, ghostOf, mkTS, readLabel, showTS, ver, type MinosAction, type Op, type State } from './state.ts';

type Step = ActorStep<State, MinosAction>;

/** Client c's next operation when it is idle (no thread running, the system not crashed), if it is an `f`. */
function nextOp(cx: Cx, s: State, c: number, f: Op['f']): Op | undefined {
  if (s.crashed || s.co[c] !== null) return undefined;
  const op = cx.cfg.clients[c].ops[s.cl[c]];
  return op?.f === f ? op : undefined;
}

/** Where a client with no thread running is: only its next operation's steps (this place's) may be enabled. */
const IDLE = '';

function clientSteps(cx: Cx): Step[] {
  const { mut, writeOf, writes } = cx;
  const who = (c: number) => clientAt(c, cx.nodeOf(c));
  // A client's next operation is its script's: each action made once per (client, place in the script).
  const writesMade = new ActionCache();
  const persistsMade = new ActionCache();
  const readsMade = new ActionCache();
  const at = (s: State, c: number) => actionKey(c, 0, 0, s.cl[c], 0);
  return [
    {
      // Line 4: GenTS reads volatileTS and adds one [L102]. Fixed: an atomic per-key
      // fetch-and-increment of the highest version issued here (§3.4); M18 / the
      // TS-COLLISION finding use the paper's non-atomic reading.
      name: 'clientWrite_L4',
      cites: 'Fig. 2 Line 4, GenTS [L102], [L116]; §3.4 of the extraction',
      at: IDLE,
      enabled(s, c, out) {
        const op = nextOp(cx, s, c, 'write');
        if (!op) return;
        const key = at(s, c);
        out.push(writesMade.get(key) ?? writesMade.keep(key, { step: 'clientWrite_L4', label: clientWriteLabel(c, cx.nodeOf(c), op.key ?? 0, writeOf[c][s.cl[c]]), i: c, k: op.key ?? 0 }));
      },
      effect(d, a) {
        const c = a.i;
        const n = cx.nodeOf(c);
        const r = d.rec[n][a.k];
        const low = maxDone(cx, d, a.k);
        const base = ver(cx.cur(r));
        const faithful = mut.M18 || mut['TS-COLLISION'];
        const v = faithful ? base + 1 : Math.max(base, r.iss) + 1;
        if (!faithful) r.iss = v;
        const w = writeOf[c][d.cl[c]];
        const ts = mkTS(v, n);
        const g = ghostOf(d);
        g.wts[w] = ts;
        g.wst[w] = 1;
        coOf(d)[c] = { kind: 'write', k: a.k, w, ts, pc: 'check', tau: NONE, sn: false, sent: false, resp: false, ack: 0, ackP: 0, low, sc: writes[w].sc };
      },
    },
    {
      name: 'clientPersist',
      cites: 'Scope [PERSIST]sc [L168]: to every follower, carrying the scope\'s (key, TS_WR) (the S-GAP fix)',
      at: IDLE,
      enabled(s, c, out) {
        const op = nextOp(cx, s, c, 'persist');
        if (!op) return;
        const key = at(s, c);
        out.push(persistsMade.get(key) ?? persistsMade.keep(key, { step: 'clientPersist', label: `clientPersist(${who(c)}, sc${op.sc})`, i: c, k: -1 }));
      },
      effect(d, a) {
        const c = a.i;
        const sc = cx.cfg.clients[c].ops[d.cl[c]].sc ?? 0;
        const items = mut['S-GAP'] ? [] : scopeItems(cx, d, sc);
        coOf(d)[c] = { kind: 'persist', k: -1, w: -1, ts: NONE, pc: 'persistWait', tau: NONE, sn: false, sent: true, resp: false, ack: 0, ackP: 0, low: 0, sc };
        broadcast(cx, d, PERSIST, cx.nodeOf(c), -1, sc, 0, sc, items);
      },
    },
    {
      // §3.3: a read stalls while RDLock is taken, then loads atomically with the check (M21: not)
      name: 'read',
      cites: '§III-D reads [L172], §3.3 of the extraction',
      at: IDLE,
      enabled(s, c, out) {
        const op = nextOp(cx, s, c, 'read');
        const k = op?.key ?? 0;
        if (!op || s.rec[cx.nodeOf(c)][k].rd !== NONE) return;
        const key = at(s, c);
        out.push(readsMade.get(key) ?? readsMade.keep(key, { step: 'read', label: readLabel(mut.M21 ? 'readCheck' : 'read', c, cx.nodeOf(c), k), i: c, k }));
      },
      effect(d, a) {
        const low = maxDone(cx, d, a.k);
        if (mut.M21) coOf(d)[a.i] = { kind: 'read', k: a.k, w: -1, ts: NONE, pc: 'load', tau: NONE, sn: false, sent: false, resp: false, ack: 0, ackP: 0, low, sc: 0 };
        else readValue(cx, d, a.i, a.k, low);
      },
    },
  ];
}

/** The full-system crash (§1.5): volatile state, threads, vFIFOs and messages are lost; each node recovers from the NVM logs. */
function crash(cx: Cx, d: State): void {
  const { N, cfg } = cx;
  const system = cfg.recovery === 'system';
  for (let n = 0; n < N; n++) {
    for (let k = 0; k < cfg.keys; k++) {
      // the max-TS entry of k (and of its values, the largest) in node n's log, or in every log
      let ts = 0;
      let val = 0;
      for (let p = system ? 0 : n; p < (system ? N : n + 1); p++) {
        const log = d.nvm[p];
        for (let i = 0; i < log.length; i += 3) {
          if (log[i] === k && (log[i + 1] > ts || (log[i + 1] === ts && log[i + 2] > val))) {
            ts = log[i + 1];
            val = log[i + 2];
          }
        }
      }
      d.rec[n][k] = { val, vts: ts, gv: ts, gd: ts, rd: NONE, wr: 0, iss: ver(ts), vq: NO_ITEMS };
    }
  }
  // in place on the step's own copies (a list made by `map` can be of another kind, state.ts `objectList`)
  const co = coOf(d);
  for (let c = 0; c < co.length; c++) co[c] = null;
  d.fo = objectList();
  d.net = objectList();
  d.bg = objectList();
  const wst = ghostOf(d).wst;
  for (let w = 0; w < wst.length; w++) if (wst[w] === 1) wst[w] = 3;
  d.crashed = true;
}

function systemSteps(cx: Cx): GlobalStep<State, MinosAction>[] {
  const { N, cfg } = cx;
  const persists = new ActionCache();
  const dequeues = new ActionCache();
  const reads = new ActionCache();
  const crashAction: MinosAction = { step: 'crash', label: 'crash', i: 0, k: 0 };
  return [
    {
      name: 'backgroundPersist',
      cites: 'Fig. 3 Step d in the background (REnf, Event, Scope) [L160]; Event/Scope followers\' Line 39',
      enabled(s, out) {
        for (let j = 0; j < s.bg.length; j++) {
          const b = s.bg[j];
          const n = b[0];
          const k = b[1];
          const ts = b[2];
          const key = actionKey(j, n, k, ts, 0);
          out.push(persists.get(key) ?? persists.keep(key, { step: 'backgroundPersist', label: `backgroundPersist(${NODE[n]}, ${KEY[k]}, ${showTS(ts)})`, i: j, k }));
        }
      },
      effect(d, a) {
        const b = d.bg[a.i];
        const n = b[0];
        const k = b[1];
        const ts = b[2];
        const v = b[3];
        removeAt(bgOf(d), a.i);
        persistNvm(d, n, k, ts, v);
      },
    },
    {
      // MINOS-O: per-record FIFO dequeue, re-checking obsoleteness before the LLC update (M24: not)
      name: 'vFIFOdequeue',
      cites: '§V-B.4 vFIFO [L247]',
      enabled(s, out) {
        if (!cx.O) return;
        for (let n = 0; n < N; n++) {
          for (let k = 0; k < cfg.keys; k++) {
            const q = s.rec[n][k].vq;
            if (!q.length) continue;
            const key = actionKey(0, n, k, q[0], 0);
            out.push(dequeues.get(key) ?? dequeues.keep(key, { step: 'vFIFOdequeue', label: `vFIFOdequeue(${NODE[n]}, ${KEY[k]}, ${showTS(q[0])})`, i: n, k }));
          }
        }
      },
      effect(d, a) {
        const r = d.rec[a.i][a.k];
        const [ts, v] = r.vq;
        r.vq = r.vq.slice(2);
        if (cx.mut.M24 || cx.lt(r.vts, ts)) {
          checkI11(d, a.i, ts, r);
          r.val = v;
          r.vts = ts;
        }
      },
    },
    {
      name: 'crash',
      cites: '§1.5 of the extraction: one full-system crash, enabled anywhere; recovery per replica or system-level',
      enabled(s, out) {
        if (cfg.crash && !s.crashed) out.push(crashAction);
      },
      effect: (d) => crash(cx, d),
    },
    {
      // After the crash: one read per node and key, in order (the durability floor, §4.4).
      name: 'recoveredRead',
      cites: '§4.4 of the extraction: post-crash reads',
      enabled(s, out) {
        if (!s.crashed) return;
        const idx = s.pr.length / 3;
        if (idx >= N * cfg.keys) return;
        const n = Math.floor(idx / cfg.keys);
        const k = idx % cfg.keys;
        const key = actionKey(0, n, k, 0, 0);
        out.push(reads.get(key) ?? reads.keep(key, { step: 'recoveredRead', label: `recoveredRead(${NODE[n]}, ${KEY[k]})`, i: n, k }));
      },
      effect(d, a) {
        d.pr = [...d.pr, a.i, a.k, d.rec[a.i][a.k].val];
      },
    },
  ];
}

export function phases(cx: Cx): Phase<State, MinosAction>[] {
  return [
    // a client's steps at its thread's place (coordinator.ts), or its next operation when it has none
    { actors: (s) => s.co.length, steps: [...coordinatorSteps(cx), ...clientSteps(cx)], at: (s, c) => s.co[c]?.pc ?? IDLE },
    { actors: (s) => s.fo.length, steps: followerSteps(cx), at: (s, i) => s.fo[i].pc },
    ...networkSteps(cx),
    ...systemSteps(cx),
  ];
}
