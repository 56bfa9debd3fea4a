// Scale-out migration (§4.1): the administrator's remap, the source's phases Sampling,
// Prepare, Transfer, Migrate and Complete over an asynchronous cut of its threads, the
// record chunks it pushes, and the target's Prepare, Receive and Complete. B4's return
// trip (the scale-down of L213, L235) runs the same steps with the roles swapped.

import { objectList } from '../kit/state.ts';
import type { GlobalStep } from '../kit/table.ts';
import { bindAll, breakInv, describeOp, entryOf, rangeOf, rangesOf, sourceThreadName, threadAt, threadsAt, type Cx, type GlobalArgs, type StepOf } from './context.ts';
import { takeSnapshot } from './recovery.ts';
import { collectSamples, conditionalInsert } from './storage.ts';
import { action, allClientsW, ctrlW, dataW, listW, metaW, R, RPCS, S, SOURCE_PHASES, srcW, T, tgtW, type Item, type ShadowfaxAction, type Source, type SourcePhase, type SourceThread, type State } from './state.ts';

type Global = GlobalStep<State, ShadowfaxAction>;

/** A server that is no migration's source yet: its log, the SSD boundary, its threads. */
export function idleSource(cx: Cx, log: Item[], head: number, threads: SourceThread[]): Source {
  return {
    phase: 'NORMAL',
    threads,
    log,
    head,
    flushed: cx.config.tiers ? 0 : head,
    begin: 0,
    compaction: 'no',
    tailStart: 0,
    claimed: 0,
    batchesSent: 0,
    batchesAcked: 0,
    earlySamples: null,
    pendingIO: objectList(),
    copying: objectList(),
  };
}

/** B4: R goes back once the first migration is over at both ends and T's pended ops are drained. */
const returnTripMayStart = (s: State) => s.src.phase === 'DONE' && s.tgt.phase === 'T_COMPLETE' && s.tgt.pended.length === 0;

/**
 * B4's return trip: T becomes the source of R and S its target. Everything indexed by
 * server changes places, so that index S keeps naming the source (state.ts).
 */
function swapRoles(cx: Cx, s: State): void {
  const { src, tgt } = s;
  s.swapped = true;
  s.src = idleSource(cx, tgt.log, 0, [{ view: tgt.view, phase: 'NORMAL' }]); // head 0: no tiers, all in memory
  s.tgt = { phase: 'NORMAL', view: src.threads[0].view, log: src.log, tailStart: 0, pended: objectList() };
  const other = (srv: number) => 1 - srv;
  metaW(s);
  s.meta.owner = s.meta.owner.map(other);
  s.meta.view.reverse();
  s.meta.rangesAt = s.meta.rangesAt.map(([srv, v, r]) => [other(srv), v, r]);
  allClientsW(s);
  for (const cl of s.clients) {
    cl.owner = cl.owner.map(other);
    cl.views = cl.views.slice().reverse();
    cl.sessions.reverse();
  }
  for (const channels of [...s.req, ...s.resp]) channels.reverse();
  for (const perServer of [listW(s, 'up'), listW(s, 'execd'), listW(s, 'pre'), listW(s, 'post')]) perServer.reverse();
}

/** Whether the source's current phase has done its work, so that the phase driver may advance. */
function sourcePhaseWorkDone(cx: Cx, s: State): boolean {
  const src = s.src;
  // [impl] WAIT_FOR_PENDING, the paper's "completed all work relating to it" (L173); M3 skips it
  if (src.phase === 'TRANSFER') return cx.mut.M3 || src.pendingIO.length === 0;
  if (src.phase !== 'MIGRATE') return true;
  // M30: Complete once the first thread is done with its chunks, not the last
  if (cx.mut.M30) return src.claimed !== 0;
  let allClaimed = true;
  for (let i = 0; i < cx.entries.length; i++) if (!(src.claimed & (1 << cx.entries[i]))) allClaimed = false;
  // L185 [interp]: every batch acknowledged as inserted (M9: CompleteMigration overtakes the data)
  return allClaimed && (cx.mut.M9 || src.batchesAcked === src.batchesSent);
}

/** L183: TransferedOwnership with the samples; INV-TRANSFER checks the cut is complete. */
function sendTransferedOwnership(cx: Cx, s: State): void {
  const samples = s.src.earlySamples ?? collectSamples(cx, s);
  const stale = samples.find((it) => 'k' in it && it.v !== s.A[it.k]);
  const early = s.src.threads.find((th) => th.view !== s.meta.view[S]);
  const pending = s.src.pendingIO.find((p) => rangeOf(cx, cx.ops[p.op].k) === R);
  if (early || stale || pending) {
    const why = early
      ? 'a source thread is still in the old view'
      : pending
        ? `${describeOp(cx, pending.op)} is still pending on I/O at the source`
        : `the sample of ${cx.keys[(stale as { k: number }).k].name} is stale`;
    breakInv(s, 'INV-TRANSFER', `TransferedOwnership sent while ${why}`);
  }
  ctrlW(s).push({ rpc: 'TransferedOwnership', samples });
}

function enterReceive(s: State): void {
  const tgt = tgtW(s);
  if (tgt.phase === 'NORMAL') tgt.view = s.meta.view[T];
  tgt.phase = 'T_RECEIVE';
  tgt.tailStart = tgt.log.length;
}

/** How many of the source's threads have entered phase p. */
function inPhase(src: Source, p: SourcePhase): number {
  let n = 0;
  for (let t = 0; t < src.threads.length; t++) if (src.threads[t].phase === p) n++;
  return n;
}

const migrating = (s: State) => s.src.phase === 'SAMPLING' || s.src.phase === 'PREPARE' || s.src.phase === 'TRANSFER' || s.src.phase === 'MIGRATE';

const migrations: ShadowfaxAction[] = [action('migrate(R, S→T)', 'migrate'), action('migrate(R, T→S)', 'migrate')];

/** The source's steps, written once for every config (context.ts, `StepOf`). */
const SOURCE_STEPS = {
  migrate: {
    name: 'migrate', cites: '§4.1 L175-177: one atomic metadata update (remap R, bump both views, register the dependency)',
    enabled: (cx, _made, s, out) => {
      if (s.up[S] && s.migrations === 0) out.push(migrations[0]);
      if (cx.config.roundTrip && s.migrations === 1 && returnTripMayStart(s)) out.push(migrations[1]);
    },
    effect: (cx, d) => {
      // B4: the return trip (scale-down, L213, L235) has T as its source and S as its target
      if (d.migrations === 1) swapRoles(cx, d);
      d.migrations++;
      metaW(d).owner[0] = T;
      if (!cx.mut.M13) {
        d.meta.view[S]++;
        if (!cx.mut.M14) d.meta.view[T]++;
      }
      d.meta.rangesAt.push([S, d.meta.view[S], rangesOf(d.meta.owner, S)], [T, d.meta.view[T], rangesOf(d.meta.owner, T)]);
      d.meta.dep = { srcDone: false, tgtDone: false, cancelled: false };
      // L223 "pre-migration checkpoints" [interp: taken now, on both servers]
      if (cx.crashes) d.pre = [takeSnapshot(d, S), takeSnapshot(d, T)];
      const src = srcW(d);
      src.phase = 'SAMPLING';
      src.tailStart = src.log.length; // L180
    },
  },
  threadRefresh: {
    name: 'threadRefresh', cites: '§1.5: a thread enters the server\'s phase at a point of its own choosing; L183',
    enabled: (cx, refreshes, s, out) => {
      if (!s.up[S] || !migrating(s)) return;
      const threads = s.src.threads;
      for (let t = 0; t < threads.length; t++) {
        if (threads[t].phase !== s.src.phase) out.push((refreshes[SOURCE_PHASES[s.src.phase] * threadsAt(cx) + threadAt(t, s)] ??= action(`threadRefresh(${sourceThreadName(s.swapped, t)}, ${s.src.phase})`, 'threadRefresh', { t })));
      }
    },
    effect: (cx, d, a) => {
      const src = srcW(d);
      const th = src.threads[a.t!];
      th.phase = src.phase;
      if (src.phase !== 'TRANSFER') return;
      th.view = d.meta.view[S]; // L183: the thread moves into vS'
      // M2: TransferedOwnership is sent when the first thread reaches its cut
      if (cx.mut.M2 && inPhase(src, 'TRANSFER') === 1) sendTransferedOwnership(cx, d);
    },
  },
  srcAdvance: {
    name: 'srcAdvance', cites: '§4.1 L182-185: the phase driver, once every thread has entered the phase and its work is done',
    enabled: (cx, advances, s, out) => {
      if (s.up[S] && migrating(s) && inPhase(s.src, s.src.phase) === s.src.threads.length && sourcePhaseWorkDone(cx, s)) {
        out.push((advances[SOURCE_PHASES[s.src.phase]] ??= action(`srcAdvance(${s.src.phase})`, 'srcAdvance')));
      }
    },
    effect: (cx, d) => {
      const src = srcW(d);
      if (src.phase === 'SAMPLING') {
        // L182: Prepare sends PrepForTransfer; M4 collects the samples already here
        if (cx.mut.M4) src.earlySamples = collectSamples(cx, d);
        ctrlW(d).push({ rpc: 'PrepForTransfer' });
        src.phase = 'PREPARE';
      } else if (src.phase === 'PREPARE') {
        src.phase = 'TRANSFER'; // L183
      } else if (src.phase === 'TRANSFER') {
        // L183: every thread is in the new view: ship ownership with the samples
        if (!cx.mut.M2) sendTransferedOwnership(cx, d);
        src.phase = 'MIGRATE';
      } else if (src.phase === 'MIGRATE') {
        // L185: CompleteMigration, then the source's completion flag (after a checkpoint, L221)
        ctrlW(d).push({ rpc: 'CompleteMigration' });
        if (cx.crashes) src.phase = 'COMPLETE';
        else {
          metaW(d).dep!.srcDone = true;
          src.phase = 'DONE';
        }
      }
    },
  },
  sendChunk: {
    name: 'sendChunk', cites: '§4.1 L184, §4.2 L202: one bucket entry\'s chain: an indirection if it reaches SSD, then its in-memory R records',
    enabled: (cx, chunks, s, out) => {
      if (!s.up[S] || s.src.phase !== 'MIGRATE') return;
      const threads = s.src.threads;
      for (let t = 0; t < threads.length; t++) {
        if (threads[t].phase !== 'MIGRATE') continue;
        for (let i = 0; i < cx.entries.length; i++) {
          const e = cx.entries[i];
          if (!(s.src.claimed & (1 << e))) out.push((chunks[e * threadsAt(cx) + threadAt(t, s)] ??= action(`sendChunk(${sourceThreadName(s.swapped, t)}, e${e})`, 'sendChunk', { t, e })));
        }
      }
    },
    effect: (cx, d, a) => {
      const src = srcW(d);
      const e = a.e!;
      src.claimed |= 1 << e;
      // the entry's chain, newest first: the newest record on SSD, and the R records in memory
      let onDisk = -1;
      const records = objectList<Item>();
      for (let i = src.log.length - 1; i >= 0; i--) {
        const it = src.log[i];
        if (!('k' in it) || entryOf(cx, it.k) !== e) continue;
        if (i < src.head) {
          if (onDisk < 0) onDisk = i;
        } else if (rangeOf(cx, it.k) === R) records.push(it);
      }
      const indir = objectList<Item>();
      if (onDisk >= 0) indir.push({ indir: e, range: R, addr: onDisk });
      // M11: the indirection and the in-memory records travel in separate batches
      const batches = cx.mut.M11 && indir.length && records.length ? [indir, records] : [indir.concat(records)];
      const q = dataW(d, a.t!);
      for (let i = 0; i < batches.length; i++) q.push(batches[i]);
      src.batchesSent += batches.length;
    },
  },
} satisfies Record<string, StepOf<GlobalArgs>>;

export const sourceSteps = (cx: Cx): Record<keyof typeof SOURCE_STEPS, Global> => bindAll(cx, SOURCE_STEPS);

/** The target's steps, written once for every config. */
const TARGET_STEPS = {
  tgtRecvControl: {
    name: 'tgtRecvControl', cites: '§4.1 L182 PrepForTransfer, L183 TransferedOwnership, L192 CompleteMigration',
    enabled: (_cx, controls, s, out) => {
      if (s.up[T] && s.ctrl.length > 0) out.push((controls[RPCS[s.ctrl[0].rpc]] ??= action(`tgtRecvControl(${s.ctrl[0].rpc})`, 'tgtRecvControl')));
    },
    effect: (cx, d) => {
      const tgt = tgtW(d);
      const msg = ctrlW(d).shift()!;
      if (msg.rpc === 'PrepForTransfer') {
        // L182: the target adopts vT' and pends R ops
        if (tgt.phase === 'NORMAL') {
          tgt.phase = 'T_PREPARE';
          tgt.view = d.meta.view[T];
        }
      } else if (msg.rpc === 'TransferedOwnership') {
        // L183: enter Target-Receive, insert the samples, serve R
        if (tgt.phase === 'NORMAL' || tgt.phase === 'T_PREPARE') enterReceive(d);
        for (let i = 0; i < msg.samples.length; i++) {
          const it = msg.samples[i];
          if ('k' in it) conditionalInsert(cx, d, it.k, it.v);
        }
      } else {
        // L192: CompleteMigration; INV-COMPLETE wants every record batch applied first
        let unapplied = 0;
        for (let t = 0; t < d.data.length; t++) unapplied += d.data[t].length;
        if (unapplied > 0) breakInv(d, 'INV-COMPLETE', `T entered T_COMPLETE with ${unapplied} record batch(es) still in flight`);
        tgt.phase = 'T_COMPLETE';
        if (!cx.crashes) metaW(d).dep!.tgtDone = true;
      }
    },
  },
  tgtRecvData: {
    name: 'tgtRecvData', cites: '§4.1 L190, §4.2 L202: a data batch proves the transfer; indirections installed, records inserted conditionally',
    enabled: (_cx, batches, s, out) => {
      if (!s.up[T]) return;
      for (let t = 0; t < s.data.length; t++) {
        if (s.data[t].length > 0) out.push((batches[threadAt(t, s)] ??= action(`tgtRecvData(${sourceThreadName(s.swapped, t)})`, 'tgtRecvData', { t })));
      }
    },
    effect: (cx, d, a) => {
      const batch = dataW(d, a.t!).shift()!;
      if (d.tgt.phase === 'NORMAL' || d.tgt.phase === 'T_PREPARE') enterReceive(d);
      for (let i = 0; i < batch.length; i++) {
        const it = batch[i];
        if ('k' in it) conditionalInsert(cx, d, it.k, it.v);
        else tgtW(d).log.push(it); // at the head of the entry's chain, as the prototype does
      }
      srcW(d).batchesAcked++;
    },
  },
} satisfies Record<string, StepOf<GlobalArgs>>;

export const targetSteps = (cx: Cx): Record<keyof typeof TARGET_STEPS, Global> => bindAll(cx, TARGET_STEPS);
