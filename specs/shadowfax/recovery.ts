// Crashes, checkpoints and recovery (§4.4, L219-227; extraction §2.5, §2.13): a crash of S
// or T loses volatile state and connections; the Complete checkpoints come before the
// completion flags (L221); the cluster manager deletes the dependency once both are set
// (L194); a recovery cancels an undecided migration, restoring both servers (L223), or
// recovers on its own; clients replay from their CPR points (L227, L388). Only configs
// with crashes (B3) enable these steps.

import { objectList } from '../kit/state.ts';
import type { GlobalStep } from '../kit/table.ts';
import { refreshFromMeta, send } from './client.ts';
import { initialValue, rangesOf, type Cx } from './context.ts';
import { action, listW, sessionsW, metaW, S, SERVER_NAMES, srcW, T, tgtW, type ShadowfaxAction, type Snapshot, type State } from './state.ts';

type Global = GlobalStep<State, ShadowfaxAction>;

/** A checkpoint: the server's log (its items are never changed in place) and the ops it executed. */
export const takeSnapshot = (s: State, srv: number): Snapshot => ({ log: (srv === S ? s.src.log : s.tgt.log).slice(), execd: s.execd[srv].slice() });

function dropConnections(s: State, srv: number): void {
  const cut = (r: unknown[][]) => {
    const x = r.slice();
    x[srv] = objectList();
    return x;
  };
  s.req = s.req.map(cut) as State['req'];
  s.resp = s.resp.map(cut) as State['resp'];
  s.ctrl = objectList();
  s.data = s.data.map(() => objectList());
  if (srv === S) srcW(s).pendingIO = objectList();
  else tgtW(s).pended = objectList();
}

/**
 * Roll a server back to a checkpoint. Executions after it leave the lineage (A follows
 * the surviving writes); clients learn the CPR point and replay the rest.
 */
function restore(cx: Cx, s: State, srv: number, snap: Snapshot, replay: Set<number>): void {
  const rolledBack = s.execd[srv].filter((o) => !snap.execd.includes(o));
  listW(s, 'execd')[srv] = snap.execd.slice();
  if (srv === S) srcW(s).log = snap.log.slice();
  else tgtW(s).log = snap.log.slice();
  for (const o of rolledBack) {
    listW(s, 'execs')[o]--;
    s.applied = s.applied.filter(([x]) => x !== o);
    replay.add(o);
  }
  s.A = objectList(); // numbers and null (not found): one elements kind whatever the values
  cx.keys.forEach((d, k) => {
    const last = s.applied.findLast(([, key]) => key === k);
    s.A.push(last ? last[2] : initialValue(d));
  });
}

/** Clients reissue what a restarted server lost or rolled back (CPR replay, L227, L388). */
function replayClients(cx: Cx, s: State, restarted: number[], replay: Set<number>): void {
  for (let c = 0; c < s.clients.length; c++) {
    const cl = sessionsW(s, c);
    const reissue: number[] = [];
    for (const srv of restarted) {
      const session = cl.sessions[srv];
      for (const o of session.inflight) {
        if (s.execd[srv].includes(o)) listW(s, 'status')[o] = 2; // inside the recovered prefix
        else reissue.push(o);
      }
      session.inflight = [];
      session.buffer = [];
      session.rejectFrom = -1;
      session.behind = [];
    }
    for (const o of replay) {
      if (cx.ops[o].c === c && !reissue.includes(o) && !cl.sessions.some((x) => x.inflight.includes(o))) reissue.push(o);
    }
    refreshFromMeta(cx, s, cl);
    for (const o of reissue.sort((x, y) => x - y)) {
      listW(s, 'status')[o] = 1;
      send(cx, s, c, o);
    }
  }
}

/** Views come from the metadata store after recovery, never from a checkpoint (§1.7). */
function resetServer(s: State, srv: number, phase: 'idle' | 'done'): void {
  if (srv === S) {
    const src = srcW(s);
    src.phase = phase === 'done' ? 'DONE' : 'NORMAL';
    src.threads = src.threads.map(() => ({ view: s.meta.view[S], phase: src.phase }));
    src.pendingIO = objectList();
  } else {
    const tgt = tgtW(s);
    tgt.phase = phase === 'done' ? 'T_COMPLETE' : 'NORMAL';
    tgt.view = s.meta.view[T];
    tgt.pended = objectList();
  }
}

/** L223: cancel the migration: R back to S, both views bumped, both servers restored. */
function cancelMigration(cx: Cx, s: State, crashed: number, restartCrashed: boolean): void {
  metaW(s).dep!.cancelled = true;
  s.meta.owner[0] = S;
  s.meta.view[S]++;
  s.meta.view[T]++;
  s.meta.rangesAt.push([S, s.meta.view[S], rangesOf(s.meta.owner, S)], [T, s.meta.view[T], rangesOf(s.meta.owner, T)]);
  // M23: only the crashed server is restored; M24: the "crashed" target is alive and unreachable
  const restored = cx.mut.M23 ? [crashed] : [S, T];
  const replay = new Set<number>();
  for (const srv of restored) {
    if (srv === T && !restartCrashed) continue;
    dropConnections(s, srv);
    restore(cx, s, srv, s.pre[srv]!, replay);
    resetServer(s, srv, srv === S ? 'done' : 'idle');
  }
  if (!restored.includes(S)) srcW(s).phase = 'DONE';
  if (restartCrashed) listW(s, 'up')[crashed] = true;
  replayClients(cx, s, restored.filter((x) => x !== T || restartCrashed), replay);
}

/** L221: after both flags, a server recovers on its own from its latest checkpoint. */
function recoverIndependently(cx: Cx, s: State, srv: number): void {
  const replay = new Set<number>();
  dropConnections(s, srv); // what clients sent while it was down went nowhere
  restore(cx, s, srv, (s.post[srv] ?? s.pre[srv])!, replay);
  const d = s.meta.dep;
  const committed = s.migrations > 0 && (d ? d.srcDone && d.tgtDone : !s.gone?.cancelled);
  resetServer(s, srv, committed || (d?.cancelled && srv === S) ? 'done' : 'idle');
  listW(s, 'up')[srv] = true;
  replayClients(cx, s, [srv], replay);
}

/** Whether a recovery must cancel: the dependency exists, undecided. */
const mustCancel = (s: State) => {
  const d = s.meta.dep;
  return d !== null && !d.cancelled && !(d.srcDone && d.tgtDone);
};

/** A recovery: cancel an undecided migration, else recover independently. */
const recover = (cx: Cx, d: State, srv: number, cancel: boolean) => (cancel ? cancelMigration(cx, d, srv, true) : recoverIndependently(cx, d, srv));

/** The source leaves COMPLETE once its checkpoint and flag are both in place. */
function finishComplete(d: State): void {
  if (d.src.phase === 'COMPLETE' && d.post[S] && d.meta.dep?.srcDone) srcW(d).phase = 'DONE';
}

/** For each server s, an action `step(name)` where `when(s, srv)` holds. */
function perServer(step: 'crash' | 'recover' | 'recoverReadFlags' | 'recoverAct', when: (s: State, srv: number) => boolean) {
  const made = [S, T].map((srv) => action(`${step}(${SERVER_NAMES[srv]})`, step, { s: srv }));
  return (s: State, out: ShadowfaxAction[]) => {
    for (const srv of [S, T]) if (when(s, srv)) out.push(made[srv]);
  };
}

/** Checkpoint and flag steps of one side: L221, checkpoint then flag (M22: the other way round). */
function completionSteps(cx: Cx, srv: number): [Global, Global] {
  const side = srv === S ? 'src' : 'tgt';
  const complete = (s: State) => s.up[srv] && (srv === S ? s.src.phase === 'COMPLETE' : s.tgt.phase === 'T_COMPLETE') && s.meta.dep !== null && !s.meta.dep.cancelled;
  const flag = (d: NonNullable<State['meta']['dep']>) => (srv === S ? d.srcDone : d.tgtDone);
  const checkpoint = action(`${side}Checkpoint()`, `${side}Checkpoint`);
  const setFlag = action(`${side}SetFlag()`, `${side}SetFlag`);
  return [
    {
      name: `${side}Checkpoint`, cites: '§4.4 L221: the Complete checkpoint, before the completion flag',
      enabled: (s, out) => {
        if (cx.crashes && complete(s) && !s.post[srv] && (!cx.mut.M22 || flag(s.meta.dep!))) out.push(checkpoint);
      },
      effect: (d) => {
        listW(d, 'post')[srv] = takeSnapshot(d, srv);
        finishComplete(d);
      },
    },
    {
      name: `${side}SetFlag`, cites: '§4.4 L221, L185/L192: the completion flag in the dependency',
      enabled: (s, out) => {
        if (cx.crashes && complete(s) && !flag(s.meta.dep!) && (s.post[srv] || cx.mut.M22)) out.push(setFlag);
      },
      effect: (d) => {
        if (srv === S) metaW(d).dep!.srcDone = true;
        else metaW(d).dep!.tgtDone = true;
        finishComplete(d);
      },
    },
  ];
}

export function recoverySteps(cx: Cx): Global[] {
  const on = cx.crashes > 0;
  const [srcCheckpoint, srcSetFlag] = completionSteps(cx, S);
  const [tgtCheckpoint, tgtSetFlag] = completionSteps(cx, T);
  const suspect = action('suspectCrashed(T)', 'suspectCrashed');
  const collect = action('clusterGC()', 'clusterGC');
  return [
    {
      name: 'crash', cites: '§1.8: a crash loses volatile state and every connection of the server',
      enabled: perServer('crash', (s, srv) => on && s.up[srv] && s.crashesLeft > 0),
      effect: (d, a) => {
        listW(d, 'up')[a.s!] = false;
        d.crashesLeft--;
        dropConnections(d, a.s!);
      },
    },
    {
      name: 'recover', cites: '§4.4 L221-227: cancel an undecided migration (restoring both servers), else recover independently',
      enabled: perServer('recover', (s, srv) => on && !s.up[srv] && !cx.mut.M21b),
      effect: (d, a) => recover(cx, d, a.s!, mustCancel(d)),
    },
    {
      name: 'recoverReadFlags', cites: 'M21b against §4.4 L223: the recovery reads the flags ...',
      enabled: perServer('recoverReadFlags', (s, srv) => on && !s.up[srv] && cx.mut.M21b && !s.deciding),
      effect: (d, a) => void (d.deciding = { server: a.s!, cancel: mustCancel(d) }),
    },
    {
      name: 'recoverAct', cites: 'M21b against §4.4 L223: ... and acts on them in a later step',
      enabled: perServer('recoverAct', (s, srv) => on && !s.up[srv] && cx.mut.M21b && s.deciding !== null),
      effect: (d, a) => {
        const { cancel } = d.deciding!;
        d.deciding = null;
        recover(cx, d, a.s!, cancel && d.meta.dep !== null);
      },
    },
    {
      name: 'suspectCrashed', cites: 'M24 against §4.4 L225: the recovery driver takes a partitioned, live target for crashed',
      enabled: (s, out) => {
        if (on && cx.mut.M24 && s.up[T] && s.crashesLeft > 0 && mustCancel(s)) out.push(suspect);
      },
      effect: (d) => {
        d.crashesLeft--;
        cancelMigration(cx, d, T, false);
      },
    },
    srcCheckpoint,
    srcSetFlag,
    tgtCheckpoint,
    tgtSetFlag,
    {
      name: 'clusterGC', cites: '§4.4 L194: the cluster manager deletes the dependency once both flags are set',
      enabled: (s, out) => {
        const d = s.meta.dep;
        // M21: once either flag is set
        if (on && d && !d.cancelled && (cx.mut.M21 ? d.srcDone || d.tgtDone : d.srcDone && d.tgtDone)) out.push(collect);
      },
      effect: (d) => {
        const dep = d.meta.dep!;
        d.gone = { srcDone: dep.srcDone, tgtDone: dep.tgtDone, cancelled: dep.cancelled };
        metaW(d).dep = null;
      },
    },
  ];
}
