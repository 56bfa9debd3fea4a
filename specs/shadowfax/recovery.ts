// Crashes, checkpoints and recovery (§4.4, L219-227; extraction §2.5, §2.13): a crash of S
// or T loses volatile state and connections; the Complete checkpoints come before the
// completion flags (L221); the cluster manager deletes the dependency once both are set
// (L194); a recovery cancels an undecided migration, restoring both servers (L223), or
// recovers on its own; clients replay from their CPR points (L227, L388). Only configs
// with crashes (B3) enable these steps.

import { objectList, sortShort } from '../kit/state.ts';
import type { GlobalStep } from '../kit/table.ts';
import { refreshFromMeta, send } from './client.ts';
import { initialValue, rangesOf, type Cx } from './context.ts';
import { action, listW, sessionsW, metaW, S, SERVER_NAMES, srcW, T, tgtW, type Client, type ShadowfaxAction, type Snapshot, type State } from './state.ts';

type Global = GlobalStep<State, ShadowfaxAction>;

/** A checkpoint: the server's log (its items are never changed in place) and the ops it executed. */
export const takeSnapshot = (s: State, srv: number): Snapshot => ({ log: (srv === S ? s.src.log : s.tgt.log).slice(), execd: s.execd[srv].slice() });

function dropConnections(s: State, srv: number): void {
  // loops rather than map and closures: this runs only after a crash (B3), where V8
  // compiles it late and, with closures, large (see README, "compile cost")
  const req = s.req.slice();
  const resp = s.resp.slice();
  for (let c = 0; c < req.length; c++) {
    req[c] = req[c].slice();
    req[c][srv] = objectList();
    resp[c] = resp[c].slice();
    resp[c][srv] = objectList();
  }
  s.req = req;
  s.resp = resp;
  s.ctrl = objectList();
  const data = s.data.slice();
  for (let t = 0; t < data.length; t++) data[t] = objectList();
  s.data = data;
  if (srv === S) srcW(s).pendingIO = objectList();
  else tgtW(s).pended = objectList();
}

/**
 * Roll a server back to a checkpoint. Executions after it leave the lineage (A follows
 * the surviving writes); clients learn the CPR point and replay the rest.
 */
function restore(cx: Cx, s: State, srv: number, snap: Snapshot, replay: Set<number>): void {
  const execd = s.execd[srv];
  listW(s, 'execd')[srv] = snap.execd.slice();
  if (srv === S) srcW(s).log = snap.log.slice();
  else tgtW(s).log = snap.log.slice();
  for (let i = 0; i < execd.length; i++) {
    const o = execd[i];
    if (snap.execd.includes(o)) continue; // inside the checkpoint
    listW(s, 'execs')[o]--;
    const applied: State['applied'] = objectList();
    for (let j = 0; j < s.applied.length; j++) if (s.applied[j][0] !== o) applied.push(s.applied[j]);
    s.applied = applied;
    replay.add(o);
  }
  s.A = objectList(); // numbers and null (not found): one elements kind whatever the values
  for (let k = 0; k < cx.keys.length; k++) {
    // the key's last surviving write, else its initial value
    let j = s.applied.length - 1;
    while (j >= 0 && s.applied[j][1] !== k) j--;
    s.A.push(j >= 0 ? s.applied[j][2] : initialValue(cx.keys[k]));
  }
}

/** Clients reissue what a restarted server lost or rolled back (CPR replay, L227, L388). */
function replayClients(cx: Cx, s: State, restarted: number[], replay: Set<number>): void {
  for (let c = 0; c < s.clients.length; c++) {
    const cl = sessionsW(s, c);
    const reissue: number[] = [];
    for (let i = 0; i < restarted.length; i++) {
      const srv = restarted[i];
      const session = cl.sessions[srv];
      for (let j = 0; j < session.inflight.length; j++) {
        const o = session.inflight[j];
        if (s.execd[srv].includes(o)) listW(s, 'status')[o] = 2; // inside the recovered prefix
        else reissue.push(o);
      }
      session.inflight = [];
      session.buffer = [];
      session.rejectFrom = -1;
      session.behind = [];
    }
    for (const o of replay) {
      if (cx.ops[o].c === c && !reissue.includes(o) && !inflightOn(cl, o)) reissue.push(o);
    }
    refreshFromMeta(cx, s, cl);
    for (const o of sortShort(reissue, byNumber)) {
      listW(s, 'status')[o] = 1;
      send(cx, s, c, o);
    }
  }
}

/** Whether op o is in flight on one of the client's sessions. */
function inflightOn(cl: Client, o: number): boolean {
  for (let srv = 0; srv < cl.sessions.length; srv++) if (cl.sessions[srv].inflight.includes(o)) return true;
  return false;
}

const byNumber = (x: number, y: number) => x - y;

/** Views come from the metadata store after recovery, never from a checkpoint (§1.7). */
function resetServer(s: State, srv: number, phase: 'idle' | 'done'): void {
  if (srv === S) {
    const src = srcW(s);
    src.phase = phase === 'done' ? 'DONE' : 'NORMAL';
    const threads = src.threads.slice();
    for (let t = 0; t < threads.length; t++) threads[t] = { view: s.meta.view[S], phase: src.phase };
    src.threads = threads;
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
  const restarted: number[] = []; // M24's live target is not restarted
  for (let i = 0; i < restored.length; i++) {
    const srv = restored[i];
    if (srv === T && !restartCrashed) continue;
    restarted.push(srv);
    dropConnections(s, srv);
    restore(cx, s, srv, s.pre[srv]!, replay);
    resetServer(s, srv, srv === S ? 'done' : 'idle');
  }
  if (!restored.includes(S)) srcW(s).phase = 'DONE';
  if (restartCrashed) listW(s, 'up')[crashed] = true;
  replayClients(cx, s, restarted, replay);
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
    for (let srv = S; srv <= T; srv++) if (when(s, srv)) out.push(made[srv]); // no array or iterator per state
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
