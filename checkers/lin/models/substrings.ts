// Which of many values are certainly not substrings of a long text: the question kv.ts's
// `unobserved`, `abstraction` and `priority` each ask of the strings the gets returned
// (an update no get shows). One search of the text per value (String.includes) is
// appends x characters: a history of 5,000 crashed appends and one 1-MB get ran its
// hooks for 25 s (review round 2, defect 1). Here the work is bounded: exact searches
// while they are cheap, then filters whose cost is the text's length per pass, and the
// values' lengths.

import { fmix32 } from '../hash.ts';

/** Thrown by a hook when the check's deadline passed (the hook helpers then give no answer). */
export class HookTimeout extends Error {
  constructor() {
    super('the deadline passed in a model hook');
  }
}

/** Characters String.includes may scan for one length's values (values x text) whatever the budget. */
const DIRECT_SEARCH_CHARS = 1 << 18;
/** Characters a call may scan in all (exact searches and windowed passes) before the one-pass filter. */
const SCAN_BUDGET = 1 << 26;
/** The window length of the one-pass filter: a value is absent when one of its windows is. */
const GRAM = 8;
/** Characters scanned between two reads of the clock. */
const CLOCK_EVERY = 1 << 16;
const WINDOW_BASE = 0x01000193;

/** Characters scanned by absentFrom (and counted by callers' own searches) since the process began: for tests. */
export const scanned = { chars: 0 };

/** Throws HookTimeout when the deadline (Date.now()) passed. */
export function checkDeadline(deadline: number): void {
  if (deadline !== Infinity && Date.now() > deadline) throw new HookTimeout();
}

/**
 * For each value, true when it is certainly a substring of no string of `texts` (their
 * maximal ones joined by '\n': a match across two of them only makes a value present, the
 * safe answer). False: present, or possibly (a hash collision, or a filter after the scan
 * budget). Exact while the searches are cheap: values of a length are searched one by one
 * when few (under 16) or the text short, else one windowed-hash pass per length marks
 * every window of the text; past the budget, one pass marks the text's GRAM-character
 * windows and a value with an unmarked window is absent. O(text x (passes <= budget /
 * text + GRAM) + values' characters). With `verify`, a value a filter kept is then
 * searched for while the budget lasts (so exact but for histories past it). The deadline
 * is read every CLOCK_EVERY characters; `scanBudget`: the tests' way to reach the filters
 * with short texts.
 */
export function absentFrom(texts: readonly string[], values: readonly string[], deadline = Infinity, verify = false, scanBudget = SCAN_BUDGET): boolean[] {
  checkDeadline(deadline);
  const out = new Array<boolean>(values.length).fill(false);
  if (values.length === 0) return out;
  const all = maximal(texts).join('\n');
  const byLength = new Map<number, number[]>();
  for (let i = 0; i < values.length; i++) {
    const n = values[i].length;
    let ids = byLength.get(n);
    if (ids === undefined) byLength.set(n, (ids = []));
    ids.push(i);
  }
  let budget = scanBudget;
  // One table for every pass (cleared between them), made when first needed: 32 bits per
  // window, 2^10 to 2^24 (a 2 MB table for a few hundred characters cost a first check
  // more than its search: the allocation, and the garbage collections it set off).
  let bits: Uint32Array | undefined;
  const log = Math.min(24, Math.max(10, 32 - Math.clz32(32 * Math.min(all.length, 1 << 24) - 1)));
  const shift = 32 - log;
  const deferred: number[] = [];
  const kept: number[] = [];
  for (const [length, ids] of byLength) {
    const cost = ids.length * all.length;
    if (length === 0) continue; // '' is in every string
    if (length > all.length) {
      for (const i of ids) out[i] = true;
    } else if (cost <= DIRECT_SEARCH_CHARS || (ids.length < 16 && cost <= budget)) {
      if (cost > DIRECT_SEARCH_CHARS) budget -= cost;
      for (const i of ids) {
        out[i] = !all.includes(values[i]);
        scanned.chars += all.length;
        if (all.length >= CLOCK_EVERY) checkDeadline(deadline);
      }
    } else if ((ids.length >= 16 && all.length <= budget) || length <= GRAM) {
      // Many values of one length: a bit per hash of every window of that length, one
      // pass, instead of a search per value. A value whose bit is set may be in the text;
      // one whose bit is clear is in none. (Lengths up to GRAM: at most GRAM passes.)
      if (length > GRAM) budget -= all.length;
      const b = bits === undefined ? (bits = new Uint32Array(1 << (log - 5))) : bits.fill(0);
      markWindows(all, length, b, shift, deadline);
      for (const i of ids) if (!(out[i] = !hasWindow(b, shift, values[i], 0, length))) kept.push(i);
    } else deferred.push(...ids);
  }
  if (deferred.length > 0) {
    // Past the budget: a value is in the text only if each of its GRAM-character windows is.
    const b = bits === undefined ? (bits = new Uint32Array(1 << (log - 5))) : bits.fill(0);
    markWindows(all, GRAM, b, shift, deadline);
    let since = 0;
    for (const i of deferred) {
      const v = values[i];
      if (!(out[i] = !allWindows(b, shift, v))) kept.push(i);
      scanned.chars += v.length;
      if ((since += v.length) >= CLOCK_EVERY) {
        since = 0;
        checkDeadline(deadline);
      }
    }
  }
  if (verify) {
    for (const i of kept) {
      if (budget < all.length) break;
      const at = all.indexOf(values[i]);
      const cost = at < 0 ? all.length : at + values[i].length;
      budget -= cost;
      scanned.chars += cost;
      out[i] = at < 0;
      if (all.length >= CLOCK_EVERY) checkDeadline(deadline);
    }
  }
  return out;
}

/** Sets the bit of every window of `length` characters of `text`. */
function markWindows(text: string, length: number, bits: Uint32Array, shift: number, deadline: number): void {
  let top = 1; // B^(length - 1)
  for (let k = 1; k < length; k++) top = Math.imul(top, WINDOW_BASE);
  let h = 0;
  for (let i = 0; i < text.length; i++) {
    if (i >= length) h = (h - Math.imul(text.charCodeAt(i - length), top)) | 0;
    h = (Math.imul(h, WINDOW_BASE) + text.charCodeAt(i)) | 0;
    if (i >= length - 1) {
      const b = fmix32(h) >>> shift;
      bits[b >>> 5] |= 1 << (b & 31);
    }
    if ((i & (CLOCK_EVERY - 1)) === CLOCK_EVERY - 1) checkDeadline(deadline);
  }
  scanned.chars += text.length;
}

/** Whether the bit of v[from, from + length) is set. */
function hasWindow(bits: Uint32Array, shift: number, v: string, from: number, length: number): boolean {
  let h = 0;
  for (let i = from; i < from + length; i++) h = (Math.imul(h, WINDOW_BASE) + v.charCodeAt(i)) | 0;
  const b = fmix32(h) >>> shift;
  return (bits[b >>> 5] & (1 << (b & 31))) !== 0;
}

/** Whether the bit of every GRAM-character window of v (longer than GRAM) is set. */
function allWindows(bits: Uint32Array, shift: number, v: string): boolean {
  let top = 1;
  for (let k = 1; k < GRAM; k++) top = Math.imul(top, WINDOW_BASE);
  let h = 0;
  for (let i = 0; i < v.length; i++) {
    if (i >= GRAM) h = (h - Math.imul(v.charCodeAt(i - GRAM), top)) | 0;
    h = (Math.imul(h, WINDOW_BASE) + v.charCodeAt(i)) | 0;
    if (i >= GRAM - 1) {
      const b = fmix32(h) >>> shift;
      if ((bits[b >>> 5] & (1 << (b & 31))) === 0) return false;
    }
  }
  return true;
}

/**
 * The distinct strings that are not a prefix of another. Sorted, a string that is a prefix
 * of another is a prefix of the one right after it (any string between them starts with
 * it too), so one comparison each.
 */
export function maximal(strings: readonly string[]): string[] {
  const sorted = [...new Set(strings)].sort();
  return sorted.filter((s, i) => i === sorted.length - 1 || !sorted[i + 1].startsWith(s));
}
