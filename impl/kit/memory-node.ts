// A memory node: a region of 64-bit words in this process's memory (so SIGKILL loses it,
// as a memory node's crash does), serving the verbs of verbs.ts. Each verb is executed
// whole within one synchronous call, so it is atomic at the node as an RDMA NIC makes it.

import { COORDINATOR, Op, REQ_HEADER, RESP_WORD, Status, monoNs } from './verbs.ts';

export class MemoryRegion {
  /** Word i is lo[2i], hi[2i+1]. */
  private readonly lanes: Uint32Array;
  /** Per word: how many times it has been changed. */
  private readonly changes: Uint32Array;
  /** Verbs with an epoch below this are refused (raised by FENCE). */
  minEpoch = 0;
  private readonly revoked = new Set<number>();
  /** The node serves nothing after this (ns on the shared monotonic clock); undefined: no lease granted yet. */
  leaseUntil: number | undefined;

  constructor(readonly words: number) {
    this.lanes = new Uint32Array(2 * words);
    this.changes = new Uint32Array(words);
  }

  private refuse(status: Status): Buffer {
    const out = Buffer.alloc(8);
    out.writeUInt8(status, 0);
    return out;
  }

  /** Executes one request payload and returns the response payload. `now` for tests. */
  execute(req: Buffer, now: () => number = monoNs): Buffer {
    if (req.length < REQ_HEADER) return this.refuse(Status.Bad);
    const op = req.readUInt8(0);
    const client = req.readUInt32LE(4);
    const epoch = req.readUInt32LE(8);
    const addr = req.readUInt32LE(12);
    const count = req.readUInt32LE(16);
    const operands = (req.length - REQ_HEADER) / 8;
    const at = now();
    if (op === Op.Lease) {
      if (client !== COORDINATOR || operands !== 1) return this.refuse(Status.Bad);
      const until = req.readUInt32LE(REQ_HEADER + 4) * 0x1_0000_0000 + req.readUInt32LE(REQ_HEADER);
      this.leaseUntil = Math.max(this.leaseUntil ?? 0, until);
      return this.respond(0, 0, at);
    }
    if (this.leaseUntil !== undefined && at > this.leaseUntil) return this.refuse(Status.Expired);
    if (op === Op.Fence || op === Op.Revoke) {
      if (client !== COORDINATOR || operands !== 1) return this.refuse(Status.Bad);
      const arg = req.readUInt32LE(REQ_HEADER);
      if (op === Op.Fence) this.minEpoch = Math.max(this.minEpoch, arg);
      else this.revoked.add(arg);
      return this.respond(0, 0, at);
    }
    if (epoch < this.minEpoch) return this.refuse(Status.Fenced);
    if (client !== COORDINATOR && this.revoked.has(client)) return this.refuse(Status.Revoked);
    if (count === 0 || addr + count > this.words) return this.refuse(Status.Bad);
    const lanes = this.lanes;
    switch (op) {
      case Op.Read:
        if (operands !== 0) break;
        return this.respond(addr, count, at);
      case Op.Write:
        if (operands !== count) break;
        for (let i = 0; i < count; i++) {
          lanes[2 * (addr + i)] = req.readUInt32LE(REQ_HEADER + 8 * i);
          lanes[2 * (addr + i) + 1] = req.readUInt32LE(REQ_HEADER + 8 * i + 4);
          this.changes[addr + i]++;
        }
        return this.respond(addr, count, at);
      case Op.Cas: {
        if (operands !== 2 || count !== 1) break;
        const out = this.respond(addr, 1, at);
        const lo = lanes[2 * addr];
        const hi = lanes[2 * addr + 1];
        if (lo === req.readUInt32LE(REQ_HEADER) && hi === req.readUInt32LE(REQ_HEADER + 4)) {
          lanes[2 * addr] = req.readUInt32LE(REQ_HEADER + 8);
          lanes[2 * addr + 1] = req.readUInt32LE(REQ_HEADER + 12);
          this.changes[addr]++;
          out.writeUInt32LE(this.changes[addr], 8 + 8);
        }
        return out;
      }
      case Op.Faa: {
        if (operands !== 1 || count !== 1) break;
        const out = this.respond(addr, 1, at);
        const lo = lanes[2 * addr] + req.readUInt32LE(REQ_HEADER);
        lanes[2 * addr] = lo >>> 0;
        lanes[2 * addr + 1] = (lanes[2 * addr + 1] + req.readUInt32LE(REQ_HEADER + 4) + (lo > 0xffffffff ? 1 : 0)) >>> 0;
        this.changes[addr]++;
        out.writeUInt32LE(this.changes[addr], 8 + 8);
        return out;
      }
    }
    return this.refuse(Status.Bad);
  }

  /** OK with the current values and counters of words [addr, addr+count), then `at`, when the verb executed. */
  private respond(addr: number, count: number, at: number): Buffer {
    const out = Buffer.allocUnsafe(8 + RESP_WORD * count + 8);
    out.writeDoubleLE(at, 8 + RESP_WORD * count);
    out.writeUInt32LE(Status.Ok, 0);
    out.writeUInt32LE(count, 4);
    for (let i = 0; i < count; i++) {
      const off = 8 + RESP_WORD * i;
      out.writeUInt32LE(this.lanes[2 * (addr + i)], off);
      out.writeUInt32LE(this.lanes[2 * (addr + i) + 1], off + 4);
      out.writeUInt32LE(this.changes[addr + i], off + 8);
    }
    return out;
  }
}
