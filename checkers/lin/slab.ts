// Typed arrays carved out of one ArrayBuffer. A typed array over 64 bytes gets a backing
// store of its own outside V8's heap, which costs 0.2-1.5 µs to allocate plus the GC's
// bookkeeping; a search sets up some 30 arrays sized to its history, which on a
// 10-operation history cost more than the search itself. Views over one buffer cost ~50 ns.
//
// A slab hands out zeroed memory and takes none back until `release`, when its owner is
// done with every array it handed out: the buffer is zeroed and kept for the next slab of
// this thread (buffers up to SPARE_MAX bytes; partitions of a history follow one another).

/** The largest buffer kept for reuse. */
const SPARE_MAX = 1 << 20;
let spare: ArrayBuffer | undefined;

export class Slab {
  private buffer: ArrayBuffer;
  private at = 0;

  /** `bytes`: what the arrays to come are expected to take; more is allocated if they take more. */
  constructor(private readonly bytes: number) {
    if (spare !== undefined && spare.byteLength >= bytes) {
      this.buffer = spare;
      spare = undefined;
    } else this.buffer = new ArrayBuffer(bytes);
  }

  /** The byte offset of `bytes` fresh zeroed bytes in this.buffer, 8-aligned. */
  private take(bytes: number): number {
    const size = (bytes + 7) & ~7;
    if (this.at + size > this.buffer.byteLength) {
      this.buffer = new ArrayBuffer(Math.max(this.bytes, size));
      this.at = 0;
    }
    const offset = this.at;
    this.at += size;
    return offset;
  }

  i32(length: number): Int32Array {
    const offset = this.take(length * 4);
    return new Int32Array(this.buffer, offset, length);
  }

  u32(length: number): Uint32Array {
    const offset = this.take(length * 4);
    return new Uint32Array(this.buffer, offset, length);
  }

  u8(length: number): Uint8Array {
    const offset = this.take(length);
    return new Uint8Array(this.buffer, offset, length);
  }

  f64(length: number): Float64Array {
    const offset = this.take(length * 8);
    return new Float64Array(this.buffer, offset, length);
  }

  /** The owner will not touch the arrays again: the buffer may serve the next slab. */
  release(): void {
    const buffer = this.buffer;
    if (buffer.byteLength > SPARE_MAX || (spare !== undefined && spare.byteLength >= buffer.byteLength)) return;
    new Uint8Array(buffer, 0, this.at).fill(0);
    this.at = buffer.byteLength; // nothing more from this one
    spare = buffer;
  }
}
