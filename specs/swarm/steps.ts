// The swarm machine's actions as one table (specs/kit/table.ts): per process, invoking its
// next operation and the answers of the objects given as specifications; then the
// network's steps (an MN applies a request, a response reaches its process) and the
// faults. What follows an action locally is fused into it (pump, machine.ts).

import { applyFault, crashesOf, faultChoices, isDown } from '../kit/faults.ts';
import { firstCopy, keep, sent, taken } from '../kit/network.ts';
import { monCrash, registerSlot } from '../kit/object-ghost.ts';
import { objectList } from '../kit/state.ts';
import type { ActionTable } from '../kit/table.ts';
import { tidOfProc, type Cx } from './context.ts';
import { applyRead, applyWrite, deliverRead, deliverWriteAck, finishMRead, mreadLabel, mreadReturnsLabel, mWriteDone, mwriteLabel, mwriteReturnsLabel, readLabel, readRspLabel, writeAckLabel, writeLabel } from './maxreg.ts';
import { guesses, invoke } from './safeguess.ts';
import { MSG_READ, MSG_WRITE, ownGhost, type CasReq, type CasRsp, type ReadRsp, type Req, type Rsp, type State, type SwarmAction, type WriteAck } from './state.ts';
import { applyCas, casLabel, casRspLabel, deliverCas, finishLock, lockAllowed, trylockLabel, trylockReturnsLabel, trylockWord } from './tsl.ts';
import { BOTTOM, procName, showTs, ts } from './tuple.ts';

/** The label of p's invoking script entry pc with the guessed clock (shared with sg.ts). */
export function invokeLabel(cx: Cx, p: number, pc: number, clock: number): string {
  const op = cx.cfg.scripts[p][pc];
  const P = procName(p);
  switch (op.f) {
    case 'write': return `W5_WRITE(${P},v${op.v},guess=${showTs(ts(clock, tidOfProc(p)))})`;
    case 'read': return `R11_READ(${P})`;
    case 'mread': return mreadLabel(p);
    case 'mwrite': return mwriteLabel(p, op.v);
    case 'trylock': return trylockLabel(p, trylockWord(op));
  }
}

// A message is interned (state.ts: one tuple per message for the run), immutable and shared
// by every state it is in flight in, so the action that applies or delivers it is made once,
// on the first state that offers it (actions are never changed; the engine only reads them).
const applyOf = new WeakMap<Req, SwarmAction>();
const deliverOf = new WeakMap<Rsp, SwarmAction>();

function msgAction<M extends Req | Rsp>(known: WeakMap<M, SwarmAction>, m: M, step: 'apply' | 'deliver', label: (m: M) => string): SwarmAction {
  let a = known.get(m);
  if (a === undefined) known.set(m, (a = { label: label(m), step, p: m[0], x: m[1], msg: m }));
  return a;
}

function reqLabel(m: Req): string {
  if (m[2] === MSG_READ) return readLabel(m[0], m[1]);
  if (m[2] === MSG_WRITE) return writeLabel(m[0], m[1], m[3]);
  return casLabel(m[0], m[1], m[4], m[5], m[6]);
}

function rspLabel(m: Rsp): string {
  if (m[2] === MSG_READ) return readRspLabel(m[0], m[1], (m as ReadRsp)[4]);
  if (m[2] === MSG_WRITE) return writeAckLabel(m[0], m[1], m[3]);
  return casRspLabel(m[0], m[1], m[4]);
}

/** A response reaches its process: [update-cache-r], [update-cache-w] or T8's return; then p runs on. */
function deliver(cx: Cx, d: State, m: Rsp): void {
  if (m[2] === MSG_READ) deliverRead(cx, d, m as ReadRsp);
  else if (m[2] === MSG_WRITE) deliverWriteAck(d, m as WriteAck);
  else deliverCas(cx, d, m as CasRsp);
  cx.pump(d, m[0]);
}

const STEP_CODE: Record<string, number> = { 'M.READ-returns': 0, 'M.WRITE-returns': 1, 'M.WRITE-background-returns': 2, 'TRYLOCK-returns': 3 };

export function table(cx: Cx): ActionTable<State, SwarmAction> {
  const live = (s: State, p: number) => !isDown(s.clients, p);
  // An invocation's action depends on the process, its script position and the guessed clock only.
  // The guessed clocks depend on its last clock and guess too (guesses), so the list of
  // a process's invocations is made once per (process, position, last clock, last guess).
  // Kept by process and position in arrays (a lookup per state and process: a Map keyed by
  // a number hashes it), then by the two clocks while both are under 16 (they stay under
  // cmax, a handful), in a Map past that.
  const invokes: SwarmAction[][][][] = Array.from({ length: cx.nprocs }, (_, p) => Array.from({ length: cx.cfg.scripts[p].length }, () => []));
  const invokesFar = new Map<string, SwarmAction[]>();
  const invokeActions = (s: State, p: number): SwarmAction[] => {
    const pr = s.procs[p];
    const near = pr.lastC < 16 && pr.lastG < 16;
    const byClocks = invokes[p][pr.pc];
    let as = near ? byClocks[pr.lastC * 16 + pr.lastG] : invokesFar.get(`${p},${pr.pc},${pr.lastC},${pr.lastG}`);
    if (as === undefined) {
      const clocks = cx.cfg.scripts[p][pr.pc].f === 'write' ? guesses(cx, pr.lastC, pr.lastG, p) : [0];
      as = objectList<SwarmAction>(); // not `clocks.map`: one kind of list for every action list
      for (const x of clocks) as.push({ label: invokeLabel(cx, p, pr.pc, x), step: 'invoke', p, x, msg: null });
      if (near) byClocks[pr.lastC * 16 + pr.lastG] = as;
      else invokesFar.set(`${p},${pr.pc},${pr.lastC},${pr.lastG}`, as);
    }
    return as;
  };
  // Crashes: one action per member, made once.
  const crashMNs = Array.from({ length: cx.n }, (_, i): SwarmAction => ({ label: `crashMN(mn${i})`, step: 'crashMN', p: -1, x: i, msg: null }));
  const crashClients = Array.from({ length: cx.nprocs }, (_, p): SwarmAction => ({ label: `crashClient(${procName(p)})`, step: 'crashClient', p, x: 0, msg: null }));
  const busy = (s: State, p: number): boolean => s.procs[p].op !== null || s.procs[p].bg.length > 0;
  // The specification objects' answers: one action per (process, value), made once.
  const answers = new Map<number, SwarmAction>();
  // `id` tells the actions of one step and process apart (a tuple; a lock word and result)
  const answer = (step: SwarmAction['step'], p: number, id: number, x: number, label: () => string): SwarmAction => {
    if (id < 0 || id >= 65536) return { label: label(), step, p, x, msg: null };
    const key = (p * 8 + STEP_CODE[step]) * 65536 + id;
    let a = answers.get(key);
    if (a === undefined) answers.set(key, (a = { label: label(), step, p, x, msg: null }));
    return a;
  };
  return {
    actors: (s) => s.procs.length,
    perActor: [
      {
        name: 'invoke', cites: '§3.2 W5 (guessTs, f.54), §3.3 R11; App. A READ/WRITE; App. B T4',
        enabled: (s, p, out) => {
          const pr = s.procs[p];
          if (!live(s, p) || pr.op || pr.pc >= cx.cfg.scripts[p].length) return;
          for (const a of invokeActions(s, p)) out.push(a);
        },
        effect: (d, a) => invoke(cx, d, a.p, a.x),
      },
      {
        name: 'M.READ-returns', cites: 'M as its specification (App. A, f.298-316): ⊥₀ or any invoked value at least the floor',
        enabled: (s, p, out) => {
          const mr = s.procs[p].mr;
          if (!cx.mSpec || !live(s, p) || !mr) return;
          const floor = Math.max(mr.frW, mr.frR);
          const inv = s.g.wInv!;
          for (let i = -1; i < inv.length; i++) {
            const v = i < 0 ? BOTTOM : inv[i];
            if (v >= floor) out.push(answer('M.READ-returns', p, v, v, () => mreadReturnsLabel(p, v)));
          }
        },
        effect: (d, a) => { finishMRead(d, a.p, a.x); cx.pump(d, a.p); },
      },
      {
        name: 'M.WRITE-returns', cites: 'M as its specification: a WRITE returns at any time',
        enabled: (s, p, out) => {
          const mw = s.procs[p].mw;
          if (cx.mSpec && live(s, p) && mw >= 0) out.push(answer('M.WRITE-returns', p, mw, mw, () => mwriteReturnsLabel(p, mw, false)));
        },
        effect: (d, a) => {
          mWriteDone(cx, d, a.p, a.x);
          d.procs[a.p].mw = -1;
          d.procs[a.p].mwDone = true;
          cx.pump(d, a.p);
        },
      },
      {
        name: 'M.WRITE-background-returns', cites: 'M as its specification: the background writes of W8 and R17 return at any time',
        enabled: (s, p, out) => {
          if (!cx.mSpec || !live(s, p)) return;
          for (const v of s.procs[p].bg) out.push(answer('M.WRITE-background-returns', p, v, v, () => mwriteReturnsLabel(p, v, true)));
        },
        effect: (d, a) => {
          mWriteDone(cx, d, a.p, a.x);
          d.procs[a.p].bg = d.procs[a.p].bg.filter((v) => v !== a.x);
          cx.pump(d, a.p);
        },
      },
      {
        name: 'TRYLOCK-returns', cites: 'TSL as its specification (f.67): any answer the two properties allow',
        enabled: (s, p, out) => {
          const lk = s.procs[p].lk;
          if (!live(s, p) || !lk?.abs) return;
          // the action names the lock word too: one per (process, word, result)
          for (const r of lockAllowed(s, lk)) out.push(answer('TRYLOCK-returns', p, lk.w * 2 + r, r, () => trylockReturnsLabel(p, lk.w, r)));
        },
        effect: (d, a) => { finishLock(cx, d, a.p, a.x); cx.pump(d, a.p); },
      },
    ],
    global: [
      {
        name: 'apply', cites: 'an MN applies a request: App. A read and A8 write, App. B T8 CAS',
        enabled: (s, out) => {
          const bag = s.reqs;
          for (let i = 0; i < bag.length; i++) if (firstCopy(bag, i) && !isDown(s.mns, bag[i][1])) out.push(msgAction(applyOf, bag[i], 'apply', reqLabel));
        },
        effect: (d, a) => {
          const m = a.msg as Req;
          d.reqs = taken(d.reqs, m);
          const [p, c, kind] = m;
          const rsp: Rsp = kind === MSG_READ ? applyRead(d, p, c, m[3]) : kind === MSG_WRITE ? applyWrite(d, p, c, m[3]) : applyCas(d, m as CasReq);
          if (isDown(d.clients, p)) return; // requests of a crashed client still apply
          if (cx.cfg.fused && !(kind === MSG_READ && cx.cfg.splitReads)) deliver(cx, d, rsp);
          else d.rsps = sent(d.rsps, rsp);
        },
      },
      {
        name: 'deliver', cites: 'a response reaches its process: App. A [update-cache-r], [update-cache-w]; App. B T8',
        enabled: (s, out) => {
          const bag = s.rsps;
          for (let i = 0; i < bag.length; i++) if (firstCopy(bag, i)) out.push(msgAction(deliverOf, bag[i], 'deliver', rspLabel));
        },
        effect: (d, a) => {
          d.rsps = taken(d.rsps, a.msg as Rsp);
          deliver(cx, d, a.msg as Rsp);
        },
      },
      {
        name: 'crashMN', cites: 'up to f < n/2 MNs crash (App. A); requests to a crashed MN are lost',
        enabled: (s, out) => {
          if (crashesOf(s.mns) >= cx.cfg.f) return;
          for (const { member } of faultChoices(s.mns, cx.n, { crash: cx.cfg.f })) out.push(crashMNs[member]);
        },
        effect: (d, a) => {
          d.mns = applyFault(d.mns, 'crash', a.x);
          d.reqs = keep(d.reqs, (m) => m[1] !== a.x);
        },
      },
      {
        name: 'crashClient', cites: 'a client crashes mid-operation: its requests in flight still land (Lemma C.5 "for ever")',
        enabled: (s, out) => {
          if (crashesOf(s.clients) >= cx.cfg.clientCrashes) return;
          for (const { member } of faultChoices(s.clients, cx.nprocs, { crash: cx.cfg.clientCrashes }, (p) => busy(s, p))) out.push(crashClients[member]);
        },
        effect: (d, a) => {
          const pr = d.procs[a.p];
          if (d.g.lin && pr.op && (pr.op.k === 'W' || pr.op.k === 'R')) ownGhost(d).lin = monCrash(registerSlot, d.g.lin, a.p);
          Object.assign(pr, { op: null, mr: null, mrRes: -1, mw: -1, mwDone: false, bg: [], lk: null, lkRes: -1 });
          d.clients = applyFault(d.clients, 'crash', a.p);
          d.rsps = keep(d.rsps, (m) => m[0] !== a.p);
        },
      },
    ],
  };
}

