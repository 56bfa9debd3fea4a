// The §4.3 invariants of the extraction, in the order the search checks them (the first
// violated one names a counterexample): state predicates, and step invariants a step
// recorded when it happened (`broken`). With crashes, also C3-C4 and the cancellation.

import type { Check } from '../../checkers/explore/types.ts';
import { rangeBit, rangeOf, rangesAt, serverName, describeOp, type Cx } from './context.ts';
import { blobRead, lookup } from './storage.ts';
import { R, RANGE_NAMES, S, T, type State } from './state.ts';

/** The run may end: every op answered, and the migration committed (and collected) or cancelled. */
export function done(cx: Cx, s: State): boolean {
  for (let o = 0; o < s.status.length; o++) if (s.status[o] !== 2) return false;
  if (!s.up[S] || !s.up[T] || s.deciding) return false;
  if (s.meta.dep?.cancelled) return true;
  const finished = s.src.phase === 'DONE' && s.tgt.phase === 'T_COMPLETE' && (!cx.config.roundTrip || s.migrations === 2);
  return cx.crashes ? finished && s.meta.dep === null : finished;
}

/** Whether every channel is empty. */
function allEmpty(chs: unknown[][]): boolean {
  for (let i = 0; i < chs.length; i++) if (chs[i].length > 0) return false;
  return true;
}

/** canExecute(s, r) of §4.2: would this server execute an op on range r if one arrived now? */
function canExecute(cx: Cx, s: State, srv: number, r: number): boolean {
  if (!s.up[srv]) return false;
  if (srv === S) {
    const pending = s.src.pendingIO;
    for (let i = 0; i < pending.length; i++) if ((rangeOf(cx, cx.ops[pending[i].op].k) & r) !== 0) return true;
    const threads = s.src.threads;
    for (let t = 0; t < threads.length; t++) if ((rangesAt(s, srv, threads[t].view) & r) !== 0) return true;
    return cx.mut.M1 && r === R;
  }
  if (r === R) return s.tgt.phase === 'T_RECEIVE' || s.tgt.phase === 'T_COMPLETE' || (cx.mut.M5 && s.tgt.phase === 'T_PREPARE');
  return (rangesAt(s, srv, s.tgt.view) & r) !== 0;
}

/**
 * A state invariant that reads only the parts `parts` names, worked out again only when one
 * of them is not the part of the last state checked: successors share (copy-on-write) every
 * part their step did not take, and parts never change once their state is made (state.ts).
 */
const NOTHING = {};
/** A state invariant written once for every config (context.ts, `StepOf`): the parts it reads, and its check given the context. */
interface PartsCheck {
  parts: (s: State) => [object, object, object, object];
  check: (cx: Cx, s: State) => Check;
}
function ofParts(cx: Cx, { parts, check }: PartsCheck): (s: State) => Check {
  // a list of objects from the start (as `p` is): an empty `[]` is a list of small integers
  // to V8, and each config's first check would meet code compiled for lists of objects only
  let last: object[] = [NOTHING, NOTHING, NOTHING, NOTHING];
  let verdict: Check = true;
  return (s) => {
    const p = parts(s);
    if (p[0] !== last[0] || p[1] !== last[1] || p[2] !== last[2] || p[3] !== last[3]) {
      verdict = check(cx, s);
      last = p;
    }
    return verdict;
  };
}

const stepInvariant = (name: string) => (s: State): Check => {
  const broken = s.broken;
  for (let i = 0; i < broken.length; i++) if (broken[i][0] === name) return broken[i][1];
  return true;
};

/** The state invariants that read a few parts, written once for every config. */
const STATE_CHECKS = {
  // C1, L154: no two servers serve an overlapping hash range at once
  'INV-EXCL': {
    parts: (s) => [s.up, s.src, s.tgt, s.meta],
    check: (cx, s) => {
      for (let r = 1; r <= 4; r <<= 1) {
        if (canExecute(cx, s, S, r) && canExecute(cx, s, T, r)) return `both S and T can execute operations on range ${RANGE_NAMES[r]}`;
      }
      return true;
    },
  },
  // L148, L177: one set of ranges per (server, view), in the metadata store and in every session
  'INV-VIEWID': {
    parts: (s) => [s.meta, s.clients, s.meta, s.meta],
    check: (_cx, s) => {
      const at = s.meta.rangesAt;
      for (let i = 0; i < at.length; i++) {
        const srv = at[i][0];
        const v = at[i][1];
        const r = at[i][2];
        for (let j = 0; j < at.length; j++) if (at[j][0] === srv && at[j][1] === v && at[j][2] !== r) return `view ${v} of ${serverName(s, srv)} names two range sets`;
      }
      for (let c = 0; c < s.clients.length; c++) {
        const sessions = s.clients[c].sessions;
        for (let srv = 0; srv < sessions.length; srv++) {
          const session = sessions[srv];
          let written: [number, number, number] | undefined;
          for (let i = 0; i < at.length; i++) if (at[i][0] === srv && at[i][1] === session.view) {
            written = at[i];
            break;
          }
          if (written && written[2] !== session.ranges) return `c${c + 1}'s session to ${serverName(s, srv)} pairs view ${session.view} with other ranges than that view's`;
        }
      }
      return true;
    },
  },
  'INV-VIEWMONO': {
    parts: (s) => [s.src, s.tgt, s.meta, s.meta],
    check: (_cx, s) => {
      const threads = s.src.threads;
      for (let t = 0; t < threads.length; t++) if (threads[t].view > s.meta.view[S]) return `s${t + 1} is ahead of the metadata store's view`;
      return s.tgt.view <= s.meta.view[T] ? true : 'T is ahead of the metadata store\'s view';
    },
  },
  'INV-EXACTLY-ONCE': {
    parts: (s) => [s.execs, s.execs, s.execs, s.execs],
    check: (cx, s) => {
      const execs = s.execs;
      for (let o = 0; o < execs.length; o++) if (execs[o] > 1) return `${describeOp(cx, o)} was executed ${execs[o]} times`;
      return true;
    },
  },
  // §2.9: the source log an indirection still points into is not truncated
  'INV-LOG-RETAIN': {
    parts: (s) => [s.src, s.tgt, s.src, s.src],
    check: (cx, s) => {
      for (let k = 0; k < cx.keys.length; k++) {
        const d = cx.keys[k];
        if (d.range !== R) continue;
        const at = lookup(cx, s.tgt.log, k, s.tgt.tailStart);
        if (at.kind === 'indir' && at.addr < s.src.begin) return `T's indirection for ${d.name} points at address ${at.addr}, truncated from S's log (begin ${s.src.begin})`;
      }
      return true;
    },
  },
} satisfies Record<string, PartsCheck>;

/** INV-NOLOST: at quiescence, the owner of every key resolves it to the latest write. */
function noLost(cx: Cx, s: State): Check {
  const keys = cx.keys;
  if (!done(cx, s) || s.ctrl.length || !allEmpty(s.data)) return true;
  for (let k = 0; k < keys.length; k++) {
    const d = keys[k];
    const owner = s.meta.owner[rangeBit(d.range)];
    const log = owner === S ? s.src.log : s.tgt.log;
    const at = lookup(cx, log, k, owner === T ? s.tgt.tailStart : 0);
    // at quiescence the whole source log counts as flushed
    const v = at.kind === 'rec' ? at.v : at.kind === 'indir' ? blobRead(s.src, at.addr, k, s.src.log.length) : null;
    if (v !== s.A[k]) return `${serverName(s, owner)} resolves ${d.name} to ${v ?? 'NOT_FOUND'}, but the latest write left ${s.A[k] ?? 'NOT_FOUND'}`;
  }
  return true;
}

export function invariants(cx: Cx): Record<string, (s: State) => Check> {
  const all: Record<string, (s: State) => Check> = {
    'INV-EXCL': ofParts(cx, STATE_CHECKS['INV-EXCL']),
    'INV-VIEWID': ofParts(cx, STATE_CHECKS['INV-VIEWID']),
    'INV-VIEWMONO': ofParts(cx, STATE_CHECKS['INV-VIEWMONO']),
    'INV-BATCHKEYS': stepInvariant('INV-BATCHKEYS'),
    'INV-EXACTLY-ONCE': ofParts(cx, STATE_CHECKS['INV-EXACTLY-ONCE']),
    'INV-REISSUE': stepInvariant('INV-REISSUE'),
    'INV-REJECT-ATOMIC': stepInvariant('INV-REJECT-ATOMIC'),
    'INV-TRANSFER': stepInvariant('INV-TRANSFER'),
    'INV-TGT-PEND': stepInvariant('INV-TGT-PEND'),
    'INV-COND-INSERT': stepInvariant('INV-COND-INSERT'),
    'INV-COMPLETE': stepInvariant('INV-COMPLETE'),
    'INV-INDIR': stepInvariant('INV-INDIR'),
    'INV-INDIR-SCOPE': stepInvariant('INV-INDIR-SCOPE'),
    // the refinement check that implies linearizability; after the specific ones, which name the cause
    'INV-FRESH': stepInvariant('INV-FRESH'),
    'INV-LOG-RETAIN': ofParts(cx, STATE_CHECKS['INV-LOG-RETAIN']),
    'INV-NOLOST': noLost.bind(undefined, cx),
  };
  if (!cx.crashes) return all;
  return {
    ...all,
    // C3, L223: commit and cancel exclude each other; the dependency goes only when decided
    'INV-2PC': (s) => {
      const d = s.meta.dep;
      if (d && d.cancelled && d.srcDone && d.tgtDone) return 'the migration is both committed (both flags) and cancelled';
      const g = s.gone;
      if (g && !(g.srcDone && g.tgtDone) && !g.cancelled) return `the dependency was deleted with srcDone=${g.srcDone}, tgtDone=${g.tgtDone}`;
      return true;
    },
    // C4, L221: a completion flag stands on a checkpoint that holds the migration's effects
    'INV-DURABLE-FLAG': (s) => {
      const d = s.meta.dep ?? s.gone;
      if (d?.srcDone && !s.post[S]) return 'S set srcDone before taking its Complete checkpoint';
      if (d?.tgtDone && !s.post[T]) return 'T set tgtDone before taking its Complete checkpoint';
      return true;
    },
    // L223: after a cancellation R is the source's again and the target cannot serve it
    'INV-CANCEL': (s) => {
      if (!s.meta.dep?.cancelled) return true;
      if (s.meta.owner[0] !== S) return 'the migration was cancelled but R is not owned by S';
      return s.up[T] && canExecute(cx, s, T, R) ? 'the migration was cancelled but T still serves R' : true;
    },
  };
}
