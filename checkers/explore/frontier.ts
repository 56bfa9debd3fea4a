// One level of a breadth-first search: its states packed into words (encode.ts's
// packState), in the order they were queued, with their numbers. Queued states become
// garbage while they are still young, and are rebuilt one at a time when expanded: the
// frontier costs the collector nothing, and about a word per number or string in a state.
// A state that cannot be rebuilt (a class instance, say) is kept as the object itself.

import { NOT_PACKED, pack, unpack, unpacked, Words } from './encode.ts';

export class Frontier<S> {
  // Small at first: the first search of a process (a small one, in `interleave check`) then runs its growth while this code is still interpreted, so V8's optimised search loop, which inlines it, has seen it: a first growth inside the optimised loop threw the loop's code away (fill, insertAll and insert each compiled again, minos README "Speed, tenth pass").
  private readonly words = new Words(16);
  private ids = new Int32Array(16);
  private kept: (S | undefined)[] = [];
  /** States queued. */
  count = 0;
  /** The next state shift() returns, and where its words start. */
  private next = 0;
  private at = 0;

  private queued(id: number): void {
    if (this.count === this.ids.length) {
      const ids = new Int32Array(this.ids.length * 2);
      ids.set(this.ids);
      this.ids = ids;
    }
    this.ids[this.count++] = id;
  }

  /** Queues s, packing it. */
  push(s: S, id: number): void {
    this.queued(id);
    if (!pack(this.words, s)) this.keep(s);
  }

  /** Queues s as the object itself. */
  keep(s: S): void {
    this.words.push(NOT_PACKED);
    this.words.push(this.kept.length);
    this.kept.push(s);
  }

  /**
   * Queues the state packState wrote to words[from..to), with the headers it recorded
   * (headers[hfrom..hto): offset, shape word) put in place.
   */
  pushPacked(id: number, words: Int32Array, from: number, to: number, headers: Int32Array, hfrom: number, hto: number): void {
    this.queued(id);
    const w = this.words;
    const at = w.length;
    if (at + to - from > w.buf.length) w.grow(at + to - from);
    const buf = w.buf;
    for (let i = from, j = at; i < to; i++, j++) buf[j] = words[i];
    for (let i = hfrom; i < hto; i += 2) buf[at + headers[i]] = headers[i + 1];
    w.length = at + to - from;
  }

  /** Queues s kept as itself (it cannot be packed). */
  pushKept(s: S, id: number): void {
    this.queued(id);
    this.keep(s);
  }

  /** States not yet shifted. */
  get left(): number {
    return this.count - this.next;
  }

  /** The number of the state the next shift() returns. */
  get id(): number {
    return this.ids[this.next];
  }

  /** The next state, rebuilt (a new object each time). */
  shift(): S {
    const buf = this.words.buf;
    this.next++;
    if (buf[this.at] === NOT_PACKED) {
      const k = buf[this.at + 1];
      const s = this.kept[k] as S;
      // Let go of it here, not at clear(): an expanded state is garbage unless the search
      // keeps it, and held to the level's end it would be marked and moved by every
      // collection until then.
      this.kept[k] = undefined;
      this.at += 2;
      return s;
    }
    const s = unpack(buf, this.at) as S;
    this.at = unpacked.end;
    return s;
  }

  /** Empties the frontier, keeping its buffers for the next level. */
  clear(): void {
    this.words.reset();
    this.kept = [];
    this.count = 0;
    this.next = 0;
    this.at = 0;
  }
}
