// The kit's wire framing: every message on every connection (memory verbs, message
// passing, the master's RPCs) is one frame, so the fault proxy can drop, delay and
// duplicate whole messages without knowing what they say.
//
//   u32 BE  payload length
//   u8      kind (REQ, RESP, PUSH, HELLO)
//   u32 BE  request id (0 for PUSH and HELLO)
//   ...     payload
//
// Hand-written over node:net rather than a library: the format is nine bytes of header,
// and the proxy needs to parse it anyway.

export const HEADER = 9;
/** Frames above this are refused (the connection is closed): bounded memory per peer. */
export const MAX_PAYLOAD = 16 * 1024 * 1024;

export const enum Kind {
  Req = 1,
  Resp = 2,
  Push = 3,
  /** Sent by a server when it accepts a connection: proves the path end to end. */
  Hello = 4,
}

export function frame(kind: Kind, reqId: number, payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(HEADER + payload.length);
  out.writeUInt32BE(payload.length, 0);
  out.writeUInt8(kind, 4);
  out.writeUInt32BE(reqId >>> 0, 5);
  out.set(payload, HEADER);
  return out;
}

export class FrameError extends Error {}

/**
 * Incremental parser: feed it chunks as they arrive, in any sizes; it calls `onFrame`
 * once per complete frame with the whole frame (header included) and its fields.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly onFrame: (kind: number, reqId: number, payload: Buffer, whole: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (this.buffered >= HEADER) {
      const head = this.chunks[0].length >= HEADER ? this.chunks[0] : this.flatten();
      const len = head.readUInt32BE(0);
      if (len > MAX_PAYLOAD) throw new FrameError(`frame of ${len} bytes exceeds the limit of ${MAX_PAYLOAD}`);
      const total = HEADER + len;
      if (this.buffered < total) return;
      const first = this.chunks[0].length >= total ? this.chunks[0] : this.flatten();
      const whole = first.subarray(0, total);
      if (first.length === total) {
        this.chunks.shift();
      } else {
        this.chunks[0] = first.subarray(total);
      }
      this.buffered -= total;
      this.onFrame(whole.readUInt8(4), whole.readUInt32BE(5), whole.subarray(HEADER), whole);
    }
  }

  private flatten(): Buffer {
    const all = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [all];
    return all;
  }
}
