// The §4.3 invariants of the extraction, in the order the search checks them (the first
// violated one names a counterexample): state predicates, and step invariants a step
// recorded when it happened (`broken`). With crashes, also C3-C4 and the cancellation.

import type { Check } from '../../checkers/explore/types.ts';
import { rangeBit, rangeOf, serverName, describeOp, type Cx } from './context.ts';
import { blobRead, lookup } from './storage.ts';
import { R, RANGE_NAMES, S, T, type State } from './state.ts';

/** The run may end: every op answered, and the migration committed (and collected) or cancelled. */
export function done(cx: Cx, s: State): boolean {
  if (!s.status.every((x) => x === 2) || !s.up.every(Boolean) || s.deciding) return false;
  if (s.meta.dep?.cancelled) return true;
  const finished = s.src.phase === 'DONE' && s.tgt.phase === 'T_COMPLETE' && (!cx.config.roundTrip || s.migrations === 2);
  return cx.crashes ? finished && s.meta.dep === null : finished;
}

/** The ranges the metadata store gave server srv in view v (their union). */
function rangesAt(s: State, srv: number, v: number): number {
  let acc = 0;
  for (const [x, y, rs] of s.meta.rangesAt) if (x === srv && y === v) acc |= rs;
  return acc;
}

/** canExecute(s, r) of §4.2: would this server execute an op on range r if one arrived now? */
function canExecute(cx: Cx, s: State, srv: number, r: number): boolean {
  if (!s.up[srv]) return false;
  if (srv === S) {
    for (const p of s.src.pendingIO) if ((rangeOf(cx, cx.ops[p.op].k) & r) !== 0) return true;
    for (const th of s.src.threads) if ((rangesAt(s, srv, th.view) & r) !== 0) return true;
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
function ofParts(parts: (s: State) => [object, object, object, object], check: (s: State) => Check): (s: State) => Check {
  let last: object[] = [];
  let verdict: Check = true;
  return (s) => {
    const p = parts(s);
    if (p[0] !== last[0] || p[1] !== last[1] || p[2] !== last[2] || p[3] !== last[3]) {
      verdict = check(s);
      last = p;
    }
    return verdict;
  };
}

const stepInvariant = (name: string) => (s: State): Check => {
  for (const [n, message] of s.broken) if (n === name) return message;
  return true;
};

export function invariants(cx: Cx): Record<string, (s: State) => Check> {
  const { keys } = cx;
  const all: Record<string, (s: State) => Check> = {
    // C1, L154: no two servers serve an overlapping hash range at once
    'INV-EXCL': ofParts((s) => [s.up, s.src, s.tgt, s.meta], (s) => {
      for (const r of [1, 2, 4]) {
        if (canExecute(cx, s, S, r) && canExecute(cx, s, T, r)) return `both S and T can execute operations on range ${RANGE_NAMES[r]}`;
      }
      return true;
    }),
    // L148, L177: one set of ranges per (server, view), in the metadata store and in every session
    'INV-VIEWID': ofParts((s) => [s.meta, s.clients, s.meta, s.meta], (s) => {
      const at = s.meta.rangesAt;
      for (const [srv, v, r] of at) {
        for (const [x, y, q] of at) if (x === srv && y === v && q !== r) return `view ${v} of ${serverName(s, srv)} names two range sets`;
      }
      for (let c = 0; c < s.clients.length; c++) {
        const sessions = s.clients[c].sessions;
        for (let srv = 0; srv < sessions.length; srv++) {
          const session = sessions[srv];
          let written: [number, number, number] | undefined;
          for (const x of at) if (x[0] === srv && x[1] === session.view) {
            written = x;
            break;
          }
          if (written && written[2] !== session.ranges) return `c${c + 1}'s session to ${serverName(s, srv)} pairs view ${session.view} with other ranges than that view's`;
        }
      }
      return true;
    }),
    'INV-VIEWMONO': ofParts((s) => [s.src, s.tgt, s.meta, s.meta], (s) => {
      const bad = s.src.threads.findIndex((th) => th.view > s.meta.view[S]);
      if (bad >= 0) return `s${bad + 1} is ahead of the metadata store's view`;
      return s.tgt.view <= s.meta.view[T] ? true : 'T is ahead of the metadata store\'s view';
    }),
    'INV-BATCHKEYS': stepInvariant('INV-BATCHKEYS'),
    'INV-EXACTLY-ONCE': ofParts((s) => [s.execs, s.execs, s.execs, s.execs], (s) => {
      const o = s.execs.findIndex((n) => n > 1);
      return o < 0 ? true : `${describeOp(cx, o)} was executed ${s.execs[o]} times`;
    }),
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
    // §2.9: the source log an indirection still points into is not truncated
    'INV-LOG-RETAIN': ofParts((s) => [s.src, s.tgt, s.src, s.src], (s) => {
      for (const [k, d] of keys.entries()) {
        if (d.range !== R) continue;
        const at = lookup(cx, s.tgt.log, k, s.tgt.tailStart);
        if (at.kind === 'indir' && at.addr < s.src.begin) return `T's indirection for ${d.name} points at address ${at.addr}, truncated from S's log (begin ${s.src.begin})`;
      }
      return true;
    }),
    // at quiescence, the owner of every key resolves it to the latest write
    'INV-NOLOST': (s) => {
      if (!done(cx, s) || s.ctrl.length || s.data.some((ch) => ch.length)) return true;
      for (const [k, d] of keys.entries()) {
        const owner = s.meta.owner[rangeBit(d.range)];
        const log = owner === S ? s.src.log : s.tgt.log;
        const at = lookup(cx, log, k, owner === T ? s.tgt.tailStart : 0);
        // at quiescence the whole source log counts as flushed
        const v = at.kind === 'rec' ? at.v : at.kind === 'indir' ? blobRead(s.src, at.addr, k, s.src.log.length) : null;
        if (v !== s.A[k]) return `${serverName(s, owner)} resolves ${d.name} to ${v ?? 'NOT_FOUND'}, but the latest write left ${s.A[k] ?? 'NOT_FOUND'}`;
      }
      return true;
    },
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
