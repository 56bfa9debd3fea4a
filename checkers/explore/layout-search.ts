// Breadth-first search over a machine whose states are fixed-length words (Machine.layout,
// specs/kit/layout.ts). A level's frontier is one Int32Array of words, not JS objects; a
// state is expanded by loading its words into a reused state, and each successor is made
// by copying those words into a second reused state and applying the step in place. Its
// words are then its encoding: hashed and stored as they are. No allocation per state or
// step (the spec's actions() list aside, and a long state's copies' views: copyWords), so
// next to no garbage to collect. A batch's successors are
// stepped and hashed first (a batch at a time, so that the table reads overlap, as in
// search.ts), then the new ones checked and stored: a long state's successors are kept as
// they were stepped and copied back when new; a short one's are stepped again instead.
// Coverage is counted per enabled list (Coverage.countList), so a spec that keeps a list
// per set of enabled actions pays one lookup a state for it.
//
// Same order, counts, numbers and counterexamples as bfs() in search.ts (the states are
// expanded in the same order, successors in the order of actions()); tested against it and
// against reference.ts.

import { fingerprint } from './encode.ts';
import { Run } from './search.ts';
import { FingerprintStore } from './store.ts';
import type { Action, ExploreOptions, ExploreResult, Machine, WordLayout } from './types.ts';
import { checkEnabled } from './errors.ts';

/** The machine's layout when its fast path applies: no transformer replaced what it was made with. */
export function layoutOf<S, A extends Action>(machine: Machine<S, A>): WordLayout<S, A> | undefined {
  const L = machine.layout;
  if (L === undefined || machine.view !== L.view) return undefined;
  if (machine.next !== L.next || machine.actions !== L.actions || machine.encode !== L.encode) return undefined;
  return L;
}

/** A growable list of states as words, with each state's number. */
class Frontier {
  words: Int32Array;
  ids: Int32Array;
  size = 0;

  constructor(readonly width: number) {
    this.words = new Int32Array(Math.max(1, width) * 1024);
    this.ids = new Int32Array(1024);
  }

  push(w: Int32Array, id: number): void {
    if (this.size === this.ids.length) {
      const ids = new Int32Array(this.ids.length * 2);
      ids.set(this.ids.subarray(0, this.size));
      this.ids = ids;
      const words = new Int32Array(this.words.length * 2);
      words.set(this.words.subarray(0, this.size * this.width));
      this.words = words;
    }
    const W = this.width;
    const at = this.size * W;
    if (W < LONG) {
      const to = this.words;
      for (let j = 0; j < W; j++) to[at + j] = w[j];
    } else this.words.set(w, at);
    this.ids[this.size++] = id;
  }
}

/** States expanded together: see Batch in search.ts (their table reads overlap). */
const BATCH = 32;
/** Keeps the table reads from being optimised away. */
let touched = 0;

export function bfsLayout<S, A extends Action>(machine: Machine<S, A>, L: WordLayout<S, A>, options: ExploreOptions): ExploreResult {
  const run = new Run(machine, options);
  if (L.replayed !== undefined) run.replayed = new Set(L.replayed);
  const store = run.store instanceof FingerprintStore ? run.store : undefined;
  const W = L.words;
  // Two frontiers, swapped at each level: a level is written over memory an earlier one
  // used, not fresh pages (which in a virtual machine cost more to touch than to write).
  let current = new Frontier(W);
  let next = new Frontier(W);
  const inits = machine.init();
  for (let k = 0; k < inits.length && run.stopped === undefined; k++) {
    const id = run.add(inits[k], -1, k, 0);
    if (id >= 0) current.push(L.wordsOf(inits[k]).subarray(0, W), id);
  }
  const s = L.make();
  const d = L.make();
  // Exactly W words each (copyWords copies whole arrays).
  const sw = L.wordsOf(s).subarray(0, W);
  const dw = L.wordsOf(d).subarray(0, W);
  const fp = run.fp;
  const coverage = run.coverage;
  // One batch's successors' fingerprints and words, and each state's enabled actions.
  let his: Int32Array<ArrayBuffer> = new Int32Array(256);
  let los: Int32Array<ArrayBuffer> = new Int32Array(256);
  // Long states' successors are kept (swarm's, 40-148 words, whose steps go through the
  // monitor's, cost more to step again than to keep); a short state's successor (the racy
  // counter's 4 words) is stepped again when new, which costs less than keeping them all.
  const keep = W >= LONG;
  let succ: Int32Array<ArrayBuffer> = new Int32Array(keep ? 256 * W : 0);
  const enabledOf: A[][] = [];
  const ends: number[] = [];
  for (let depth = 0; current.size > 0 && run.stopped === undefined; depth++) {
    next.size = 0;
    const from = current.words;
    const ids = current.ids;
    if (depth >= run.maxDepth) {
      for (let i = 0; i < current.size && run.stopped === undefined; i++) {
        copyWords(sw, from, i * W, W);
        const enabled = machine.actions(s);
        if (!Array.isArray(enabled)) checkEnabled(enabled);
        if (enabled.length > 0) run.depthCut = true;
        else run.expand(s, ids[i], enabled);
      }
      break;
    }
    for (let i0 = 0; i0 < current.size && run.stopped === undefined; ) {
      // The successors of states i0..i1, stepped and hashed. Should a step throw, the batch
      // ends before that state, which the next batch then meets first (as in search.ts).
      let n = 0;
      let i1 = i0;
      for (; i1 < current.size && i1 - i0 < BATCH; i1++) {
        copyWords(sw, from, i1 * W, W);
        try {
          const enabled = machine.actions(s);
          if (!Array.isArray(enabled)) checkEnabled(enabled);
          if (n + enabled.length > his.length) {
            const size = 2 * (n + enabled.length);
            his = grown(his, size);
            los = grown(los, size);
            if (keep) succ = grown(succ, size * W);
          }
          for (let k = 0; k < enabled.length; k++, n++) {
            copyWords(dw, sw, 0, W);
            L.step(d, enabled[k], s);
            fingerprint(dw, W, fp);
            his[n] = fp[0];
            los[n] = fp[1];
            if (keep) succ.set(dw, n * W);
          }
          enabledOf[i1 - i0] = enabled;
          ends[i1 - i0] = n;
        } catch (e) {
          if (i1 === i0) throw e;
          break;
        }
      }
      if (store) touched ^= store.touch(his, n);
      for (let i = i0; i < i1 && run.stopped === undefined; i++) {
        const enabled = enabledOf[i - i0];
        const id = ids[i];
        // The state's words are loaded again only when needed: for the deadlock check, or
        // to step to a new successor again (most states have one, but a state has many known).
        let loaded = enabled.length === 0;
        if (loaded) {
          copyWords(sw, from, i * W, W);
          run.expand(s, id, enabled);
        } else coverage.countList(enabled);
        run.tick(current.size - i + next.size);
        let m = i === i0 ? 0 : ends[i - i0 - 1];
        for (let k = 0; k < enabled.length; k++, m++) {
          run.transitions++;
          fp[0] = his[m];
          fp[1] = los[m];
          // Most successors are known (and the fingerprint store needs no words to say so);
          // a new one is made again in d, for its invariants and the store.
          if (store && store.has(dw, W, fp)) continue;
          if (keep) copyWords(dw, succ, m * W, W);
          else {
            if (!loaded) {
              copyWords(sw, from, i * W, W);
              loaded = true;
            }
            copyWords(dw, sw, 0, W);
            L.step(d, enabled[k], s);
          }
          const t = run.insert(d, id, k, depth + 1, dw, W);
          if (t >= 0) next.push(dw, t);
          if (run.stopped !== undefined) break;
        }
      }
      enabledOf.fill(undefined as unknown as A[], 0, i1 - i0);
      i0 = i1;
    }
    const done = current;
    current = next;
    next = done;
  }
  return run.result('bfs');
}

/** States of at least this many words are copied by TypedArray.set. */
const LONG = 24;

/**
 * to[0..W) = from[at..at+W), to being W words long. A long state is copied by
 * TypedArray.set, a memory copy: a loop of element copies cost swarm (40-148 words a state)
 * 3-8x as much. A short one by the loop: set's call, and the view it needs when `at` is not
 * 0, cost 20-60 ns whatever the length, more than a few words' loop (the racy counter's 4).
 */
function copyWords(to: Int32Array, from: Int32Array, at: number, W: number): void {
  if (W < LONG) for (let j = 0; j < W; j++) to[j] = from[at + j];
  else to.set(at === 0 && from.length === W ? from : from.subarray(at, at + W));
}

function grown(a: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(size);
  b.set(a);
  return b;
}
