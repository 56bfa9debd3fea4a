// One-sided memory verbs, as an RDMA NIC serves them, over the kit's RPC: READ and WRITE
// of a run of 64-bit words, CAS and FAA of one word. Every response carries, per word, the
// word's change counter after the verb: how many times the word has been changed (a
// successful CAS, a WRITE, an FAA), which is what a protocol trace's objSeq / objSaw need;
// and when the node executed the verb, on the machine's shared monotonic clock (monoNs),
// so that a client that sends verbs to several nodes at once can log them in the order in
// which they happened (the order of their responses is not that order).
//
// Besides the data verbs, a coordinator (client id 0) can fence (raise the epoch below
// which the node refuses every verb), revoke a client (refuse its verbs from now on) and
// extend the node's lease (a node whose lease has lapsed serves nothing).
//
// Words are 64 bits at the node; this API carries them as JavaScript numbers, so values
// at or above 2^53 are refused when encoding.

import type { Failure, RpcClient } from './rpc.ts';

export const enum Op {
  Read = 1,
  Write = 2,
  Cas = 3,
  Faa = 4,
  Fence = 10,
  Revoke = 11,
  Lease = 12,
}

export const enum Status {
  Ok = 0,
  /** The request's epoch is below the node's: a coordinator fenced it out. */
  Fenced = 1,
  /** The client was revoked by a coordinator. */
  Revoked = 2,
  /** The node's lease lapsed: it serves nothing until a coordinator extends it. */
  Expired = 3,
  /** Malformed request or address out of range. */
  Bad = 4,
}

/** The coordinator's client id: the only one allowed to fence, revoke and lease. */
export const COORDINATOR = 0;

export const REQ_HEADER = 20;
export const RESP_WORD = 12;

export function putWord(buf: Buffer, off: number, v: number): void {
  if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`a memory word must be an integer in [0, 2^53), got ${v}`);
  buf.writeUInt32LE(v >>> 0, off);
  buf.writeUInt32LE(Math.floor(v / 0x1_0000_0000), off + 4);
}

export function getWord(buf: Buffer, off: number): number {
  const hi = buf.readUInt32LE(off + 4);
  // Beyond 2^53 a number would round: the API never hands such a value out silently.
  if (hi >= 0x20_0000) throw new RangeError('a memory word at or above 2^53 cannot be read as a number');
  return hi * 0x1_0000_0000 + buf.readUInt32LE(off);
}

export interface VerbRequest {
  op: Op;
  client: number;
  epoch: number;
  addr: number;
  count: number;
  words: number[];
}

export function encodeVerb(op: Op, client: number, epoch: number, addr: number, count: number, words: readonly number[]): Buffer {
  const buf = Buffer.allocUnsafe(REQ_HEADER + 8 * words.length);
  buf.writeUInt8(op, 0);
  buf.writeUInt8(0, 1);
  buf.writeUInt16LE(0, 2);
  buf.writeUInt32LE(client, 4);
  buf.writeUInt32LE(epoch, 8);
  buf.writeUInt32LE(addr, 12);
  buf.writeUInt32LE(count, 16);
  for (let i = 0; i < words.length; i++) putWord(buf, REQ_HEADER + 8 * i, words[i]);
  return buf;
}

/** What a verb came back with. `values[i]`/`counters[i]` per word (CAS and FAA: the prior value); `at`: when the node executed it (monoNs). */
export type VerbResult =
  | { status: 'ok'; values: number[]; counters: number[]; at: number }
  | { status: 'fenced' | 'revoked' | 'expired' | 'bad' }
  | { status: Failure };

const STATUS_NAMES = ['ok', 'fenced', 'revoked', 'expired', 'bad'] as const;

export function decodeResult(payload: Buffer): VerbResult {
  const status = payload.readUInt8(0);
  if (status !== Status.Ok) return { status: STATUS_NAMES[status] ?? 'bad' } as VerbResult;
  const count = payload.readUInt32LE(4);
  const values: number[] = new Array(count);
  const counters: number[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const off = 8 + RESP_WORD * i;
    values[i] = getWord(payload, off);
    counters[i] = payload.readUInt32LE(off + 8);
  }
  return { status: 'ok', values, counters, at: payload.readDoubleLE(8 + RESP_WORD * count) };
}

/** A client of one memory node: the verbs as promises that never reject. */
export class MemoryClient {
  constructor(
    readonly rpc: RpcClient,
    /** The client id the node checks against its revocations. */
    private readonly client: number,
  ) {}

  private async call(req: Buffer, timeoutMs?: number): Promise<VerbResult> {
    const out = await this.rpc.request(req, timeoutMs);
    return out.ok ? decodeResult(out.payload) : { status: out.failure };
  }

  read(epoch: number, addr: number, count = 1, timeoutMs?: number, client = this.client): Promise<VerbResult> {
    return this.call(encodeVerb(Op.Read, client, epoch, addr, count, []), timeoutMs);
  }

  write(epoch: number, addr: number, words: readonly number[], timeoutMs?: number, client = this.client): Promise<VerbResult> {
    return this.call(encodeVerb(Op.Write, client, epoch, addr, words.length, words), timeoutMs);
  }

  /** Compare-and-swap: returns the prior value; it swapped iff prior === expected. */
  cas(epoch: number, addr: number, expected: number, swap: number, timeoutMs?: number, client = this.client): Promise<VerbResult> {
    return this.call(encodeVerb(Op.Cas, client, epoch, addr, 1, [expected, swap]), timeoutMs);
  }

  faa(epoch: number, addr: number, delta: number, timeoutMs?: number, client = this.client): Promise<VerbResult> {
    return this.call(encodeVerb(Op.Faa, client, epoch, addr, 1, [delta]), timeoutMs);
  }

  fence(epoch: number, timeoutMs?: number): Promise<VerbResult> {
    return this.call(encodeVerb(Op.Fence, COORDINATOR, epoch, 0, 1, [epoch]), timeoutMs);
  }

  revoke(epoch: number, client: number, timeoutMs?: number): Promise<VerbResult> {
    return this.call(encodeVerb(Op.Revoke, COORDINATOR, epoch, 0, 1, [client]), timeoutMs);
  }

  /** Extends the node's lease to `untilNs` on the shared monotonic clock (monoNs). */
  lease(untilNs: number, timeoutMs?: number): Promise<VerbResult> {
    return this.call(encodeVerb(Op.Lease, COORDINATOR, 0, 0, 1, [untilNs]), timeoutMs);
  }
}

/**
 * The monotonic clock every process on the machine shares (CLOCK_MONOTONIC), in ns, as a
 * number: exact for 104 days of uptime. Leases compare against it across processes.
 */
export function monoNs(): number {
  return Number(process.hrtime.bigint());
}
