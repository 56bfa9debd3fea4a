// One level of a breadth-first search: its states packed into words (encode.ts's pack),
// in the order they were queued, with their numbers. Queued states become garbage as soon
// as they are packed, while they are still young, and are rebuilt one at a time when
// expanded: the frontier costs the collector nothing, and a few words per field of memory.
// A state pack cannot rebuild (a class instance, say) is kept as the object itself.

import { pack, unpack, unpacked, Words } from './encode.ts';

/** Marks a kept object in the words (a tag pack never writes first); its index follows. */
const KEPT = (6 << 3) | 1;

export class Frontier<S> {
  private readonly words = new Words();
  private ids = new Int32Array(1024);
  private kept: S[] = [];
  /** States queued. */
  count = 0;
  /** The next state shift() returns, and where its words start. */
  private next = 0;
  private at = 0;

  push(s: S, id: number): void {
    if (this.count === this.ids.length) {
      const ids = new Int32Array(this.ids.length * 2);
      ids.set(this.ids);
      this.ids = ids;
    }
    this.ids[this.count++] = id;
    if (!pack(this.words, s)) {
      this.words.push(KEPT);
      this.words.push(this.kept.length);
      this.kept.push(s);
    }
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
    if (buf[this.at] === KEPT) {
      const s = this.kept[buf[this.at + 1]];
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
