// For tests: does each logical client's part of a FUSEE trace have the shape of
// The operations of specs/fusee/README.md's "The trace vocabulary"? A write is `invoke`, then rounds of `readPrimary`,
// `casBackup`s, an optional `reRead`, then a winner's `fixup`s, `commitLog`, `casPrimary`,
// or a loser's `loserWait`, `loserReturn`, or `failReply` (which retries from
// `readPrimary` when the master's value is the round's v_old); a read is `read`, then, if
// the primary FAILed, `readBackups` and maybe `readReply`. The values must agree: every
// CAS of a round expects its v_old and swaps in the write's v_new, a commit records v_old.
// `crashClient` may come at any point and is the client's last event. Not a validator
// (checkers/validate is): a cheap check that the recorder logs what the protocol does.

interface Ev {
  proc: string;
  seq: number;
  action: string;
  args?: Record<string, unknown>;
}

const ROUND_PHASE: Record<string, number> = { casBackup: 1, reRead: 2, fixup: 3, commitLog: 4, loserWait: 4, casPrimary: 5, loserReturn: 6, failReply: 6 };

/** Problems found, at most `limit` (empty: every client's events have the shape). */
export function traceShapeErrors(events: readonly Ev[], bugs: readonly string[] = [], limit = 20): string[] {
  const errors: string[] = [];
  const byProc = new Map<string, Ev[]>();
  for (const e of events) {
    // the master's redo of a crashed client's write is checked as a client of its own
    const redo = e.proc.startsWith('master/') && typeof e.args?.client === 'string';
    if (!redo && !/^c\d+$/.test(e.proc)) continue;
    const key = e.proc;
    const list = byProc.get(key);
    if (list === undefined) byProc.set(key, [e]);
    else list.push(e);
  }
  const m9 = bugs.includes('M9');
  for (const [proc, list] of byProc) {
    list.sort((a, b) => a.seq - b.seq);
    let state: 'idle' | 'w1' | 'round' | 'r2' | 'rf' | 'dead' = 'idle';
    let vNew = 0;
    let vOld = 0;
    let phase = 0;
    let committed = false;
    const bad = (e: Ev, what: string) => {
      if (errors.length < limit) errors.push(`${proc} seq ${e.seq} ${e.action}: ${what}`);
    };
    for (const e of list) {
      const a = e.args ?? {};
      if (state === 'dead') {
        bad(e, 'after crashClient');
        break;
      }
      if (e.action === 'crashClient') {
        state = 'dead';
        continue;
      }
      if (e.action === 'recoverClient') {
        // a redo (c1) starts from the primary read with the logged v_new; others do nothing
        if (a.case === 'c1') {
          state = 'w1';
          vNew = NaN;
        }
        continue;
      }
      if (state === 'round' && Number.isNaN(vNew) && (e.action === 'casBackup' || e.action === 'casPrimary')) vNew = Number(a.swap);
      switch (state) {
        case 'idle':
          if (e.action === 'invoke') {
            vNew = Number(a.value);
            state = 'w1';
          } else if (e.action === 'read') {
            if (a.result === 'FAIL') state = 'r2';
          } else bad(e, 'not the start of an operation');
          break;
        case 'w1':
          if (e.action !== 'readPrimary') bad(e, 'expected readPrimary');
          vOld = Number(a.result);
          phase = 0;
          committed = false;
          state = 'round';
          break;
        case 'round': {
          const p = ROUND_PHASE[e.action];
          if (p === undefined) {
            bad(e, 'not a step of a write round');
            break;
          }
          if (p < phase && !(m9 && e.action === 'commitLog')) bad(e, 'out of order in its round');
          phase = Math.max(phase, p);
          if ((e.action === 'casBackup' || e.action === 'casPrimary') && (a.expected !== vOld || a.swap !== vNew)) bad(e, `CAS ${String(a.expected)}->${String(a.swap)} in a round of ${vOld}->${vNew}`);
          if (e.action === 'fixup' && a.swap !== vNew) bad(e, 'fix-up to another value');
          if (e.action === 'commitLog') {
            if (a.old !== vOld) bad(e, `commits ${String(a.old)}, not v_old ${vOld}`);
            committed = true;
            if (m9) state = 'idle';
          }
          if (e.action === 'casPrimary' && !committed && !m9 && !bugs.includes('M5')) bad(e, 'primary CAS before the log commit');
          if (e.action === 'casPrimary' && !m9) state = 'idle';
          if (e.action === 'loserReturn') state = 'idle';
          if (e.action === 'failReply') state = a.rpc === vOld && !bugs.includes('M13') ? 'w1' : 'idle';
          break;
        }
        case 'r2':
          if (e.action !== 'readBackups') bad(e, 'expected readBackups');
          else {
            const vals = Object.values((a.results ?? {}) as Record<string, unknown>).filter((v) => v !== 'FAIL');
            state = vals.length > 0 && vals.every((v) => v === vals[0]) ? 'idle' : bugs.includes("M4'") ? 'idle' : 'rf';
          }
          break;
        case 'rf':
          if (e.action !== 'readReply') bad(e, 'expected readReply');
          state = 'idle';
          break;
      }
    }
  }
  return errors;
}
