// EVALUATE_RULES (Alg. 2, lines 2-11 and the Rule-3 test of line 17) and what a writer does
// with its decision (Alg. 1 l.11-24 / Alg. 4 l.20-35). Fused into the step whose return
// completes the snapshot (the last backup CAS) or into the Rule-3 re-read.

import { sameMsg as sameList } from '../kit/network.ts'; // two lists of numbers, equal entry by entry
import { addSorted } from '../kit/state.ts';
import { broke, ghost, type Cx } from './context.ts';
import { CRASHED, ownClient, pair, PAIR, Win, type FuseeState, type Pc } from './state.ts';

/** Runs after the last backup CAS returned: change_list_value (Alg. 1 l.9), then Alg. 2. */
export function evaluate(cx: Cx, d: FuseeState, c: number): void {
  const { mut } = cx;
  const me = d.cl[c];
  // Alg. 1 l.9: a CAS that returned v_old succeeded, so that backup now holds v_new.
  const vl = mut.M18 ? me.vl : changeListValue(me.vl, me.vOld, me.vNew); // M18 breaks Alg. 1 l.9: successes look like v_old
  if (vl.includes(CRASHED)) return void decision(d, c, vl, Win.Fail, 'F1'); // Alg. 2 l.4
  if (!cx.kv && me.rd === d.g.rnd && !d.g.fixing && vl.length > 0) {
    // I10 (footnote [L235]): snapshots completed in a round before its first fix-up agree.
    if (d.g.snap.length === 0) ghost(cx, d).snap = vl;
    else if (!sameList(d.g.snap, vl)) broke(cx, d, `I10: c${c} takes snapshot [${vl}] in round ${me.rd}, another took [${d.g.snap}]`);
  }
  const m = vl.length;
  if (m === 0) return void decided(cx, d, c, vl, Win.R1); // X§5.1 item 5: no backups left, CAS the primary directly
  const len = mut.M22 ? m + 1 : m; // M22 counts the primary in Len(v_list) (control)
  // v_maj: the most frequent value, the first to occur among equally frequent ones
  // (a loop over the few backups: this runs on every completed snapshot)
  let vMaj = vl[0];
  let cntMaj = count(vl, vMaj);
  for (let i = 1; i < m; i++) {
    const v = vl[i];
    if (vl.indexOf(v) < i) continue;
    const n = count(vl, v);
    if (n > cntMaj) {
      vMaj = v;
      cntMaj = n;
    }
  }
  if (cntMaj === len) return void decided(cx, d, c, vl, vMaj === me.vNew ? Win.R1 : Win.Lose); // Alg. 2 l.6 Rule 1
  if (mut.M3) {
    // M3: Rule 2 as "modified a (non-strict) majority of backups" [L229], 2*cnt >= m.
    if (2 * count(vl, me.vNew) >= len) return void decided(cx, d, c, vl, Win.R2);
    if (2 * cntMaj >= len) return void decided(cx, d, c, vl, Win.Lose);
  }
  if (2 * cntMaj > len) return void decided(cx, d, c, vl, vMaj === me.vNew ? Win.R2 : Win.Lose); // Alg. 2 l.8 Rule 2
  if (!mut.M21 && !vl.includes(me.vNew)) return void decided(cx, d, c, vl, Win.Lose); // Alg. 2 l.10 (M21 drops it: control)
  if (mut.M1) return void decided(cx, d, c, vl, Win.Lose); // M1 drops Rule 3: nobody wins a split
  if (mut.M2) return void decided(cx, d, c, vl, rule3(cx, vl, me.vNew)); // M2 skips the re-read of Alg. 2 l.12-16
  decision(d, c, vl, me.win, 'W3');
}

/**
 * Alg. 1 l.9, change_list_value: each v_old in the list becomes v_new. A loop, not `map`:
 * V8's map made the 4-entry lists of r = 5 holey, unlike every other list here, and code
 * optimized for packed lists was thrown away when the first one came (config A2).
 */
function changeListValue(vl: readonly number[], vOld: number, vNew: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < vl.length; i++) out.push(vl[i] === vOld ? vNew : vl[i]);
  return out;
}

/** How many entries of vl are v. */
function count(vl: readonly number[], v: number): number {
  let n = 0;
  for (let i = 0; i < vl.length; i++) if (vl[i] === v) n++;
  return n;
}

/** Alg. 2 l.17: Rule 3 goes to the writer of the minimal value. */
export function rule3(cx: Cx, vl: number[], vNew: number): Win {
  const pick = cx.mut.M20 ? Math.max(...vl) : Math.min(...vl); // M20: max instead of min (control)
  return pick === vNew ? Win.R3 : Win.Lose;
}

/** Acts on a decision (Alg. 1 l.11-24 / Alg. 4 l.20-35). */
export function decided(cx: Cx, d: FuseeState, c: number, vl: number[], win: Win): void {
  const { mut } = cx;
  const me = d.cl[c];
  if (win === Win.R1 || win === Win.R2 || win === Win.R3) {
    if (!cx.open) {
      const key = pair(me.rd, me.vNew);
      const others = d.g.wins.filter((w) => Math.floor(w / PAIR) === me.rd && w !== key);
      // I5 (Lemma 3): at most one last writer per round (m = 0 has no snapshot to agree on).
      if (others.length > 0 && vl.length > 0 && !cx.kv) broke(cx, d, `I5: c${c} wins round ${me.rd} with ${me.vNew}, already won by ${others[0] % PAIR}`);
      ghost(cx, d).wins = addSorted(d.g.wins, key);
    }
    // Rule 1, or nothing left to fix (possible only when the thresholds are mutated): commit.
    let pc: Pc = win === Win.R1 || vl.every((v) => v === me.vNew) ? 'W5' : 'W4';
    if (mut.M19 && win !== Win.R1) pc = 'W5'; // M19: the Rule-2/3 winner skips the fix-up
    if (mut.M10 && pc === 'W4') pc = 'W5'; // M10: commit first, fix up afterwards
    if (mut.M5 && pc === 'W4') pc = 'W5'; // M5: commit and CAS the primary, then fix up
    if (mut.M9 && pc === 'W5') pc = 'W6'; // M9: the primary CAS before the log commit
    return decision(d, c, vl, win, pc);
  }
  if (win === Win.Finish) return decision(d, c, vl, win, 'L2');
  // LOSE: wait for the primary to change (Alg. 1 l.16-22); M6 returns at once.
  decision(d, c, vl, win, mut.M6 ? 'L2' : 'L1');
}

/** Client c's snapshot vl (after change_list_value), its decision and where it goes next. */
function decision(d: FuseeState, c: number, vl: number[], win: Win, pc: Pc): void {
  const me = ownClient(d, c);
  me.vl = vl;
  me.win = win;
  me.pc = pc;
}
