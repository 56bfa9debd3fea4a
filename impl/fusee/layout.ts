// Where things live in the memory nodes' regions, and the value encoding.
//
// Every memory node's region holds one index slot per key (word k: key k's slot replica,
// meaningful on the nodes that replicate k) followed by the embedded operation logs: per
// client, a ring of RING log entries of ENTRY words, replicated on r nodes. A key's slot is
// replicated on r consecutive nodes of the ring starting at hash(key) mod n, primary
// first ([L250-252]); a client's log on the r nodes starting at its id mod n.
//
// Values written are globally unique and positive (A.2 [L545]: a KV object's address is
// never reused): v = client * 2^24 + op, op = 1, 2, ... counts the client's writes; the
// empty slot is 0 (x0). The master finds the log entry of the write that installed v from
// v alone, as FUSEE finds it behind the KV object v points to [L796].

import { fnv1a } from '../kit/rng.ts';

/** Log entries per client: the tail is all recovery needs; the ring leaves room for the master's commit of an older op. */
export const RING = 4;
/** Log entry words: v_new, key index, version, used bit, old value. */
export const ENTRY = 5;
export const E_VNEW = 0;
export const E_KEY = 1;
export const E_VER = 2;
export const E_USED = 3;
export const E_OLD = 4;
/** Client ids (fresh ones replace crashed clients, never reused). */
export const MAX_CLIENTS = 4096;
export const OP_BITS = 2 ** 24;
/** Old-value field: 0 = incomplete (the CRC of [L270] fails), 1 + v = v committed by the writer, COMMITTED = by the master. */
export const OLD_EMPTY = 0;
export const COMMITTED = 2 ** 53 - 1;

export const encodeOld = (v: number): number => v + 1;
export const decodeOld = (w: number): number => w - 1;

export const valueOf = (client: number, op: number): number => client * OP_BITS + op;
export const writerOf = (v: number): { client: number; op: number } => ({ client: Math.floor(v / OP_BITS), op: v % OP_BITS });

export class Layout {
  readonly words: number;
  readonly logBase: number;

  constructor(
    readonly keys: readonly string[],
    /** memory nodes */
    readonly n: number,
    /** replication factor */
    readonly r: number,
  ) {
    if (r < 1 || r > n) throw new RangeError(`replication factor ${r} needs 1..${n} memory nodes`);
    this.logBase = keys.length;
    this.words = this.logBase + MAX_CLIENTS * RING * ENTRY;
  }

  keyIndex(key: string): number {
    const i = this.keys.indexOf(key);
    if (i < 0) throw new RangeError(`unknown key ${key}`);
    return i;
  }

  /** Key k's replicas, primary first (before any crash). */
  replicas(k: number): number[] {
    const h = fnv1a(this.keys[k]) % this.n;
    return Array.from({ length: this.r }, (_, i) => (h + i) % this.n);
  }

  /** Key k's roles once `dead` nodes are removed (the primary kept if alive: Alg. 3 l.8). */
  roles(k: number, dead: ReadonlySet<number>): { primary: number; backups: number[] } {
    const alive = this.replicas(k).filter((i) => !dead.has(i));
    return { primary: alive[0] ?? -1, backups: alive.slice(1) };
  }

  logReplicas(client: number): number[] {
    return Array.from({ length: this.r }, (_, i) => (client + i) % this.n);
  }

  slotAddr(k: number): number {
    return k;
  }

  logAddr(client: number, op: number): number {
    if (client < 1 || client >= MAX_CLIENTS) throw new RangeError(`client id ${client} outside 1..${MAX_CLIENTS - 1}`);
    return this.logBase + (client * RING + (op % RING)) * ENTRY;
  }

  logRingAddr(client: number): number {
    return this.logBase + client * RING * ENTRY;
  }

  /** The header's params.replicas: key → replica nodes, primary first. */
  replicaMap(): Record<string, number[]> {
    return Object.fromEntries(this.keys.map((k, i) => [k, this.replicas(i)]));
  }
}

/** The trace's name of a key's slot replica on node i: "mn1/k0". */
export const objName = (mn: number, key: string): string => `mn${mn}/${key}`;
