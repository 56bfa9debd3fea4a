// What a distributed run is, as the coordinator writes it to Redis for the workers
// (`keys(run).desc`), and the batch format in which states travel between partitions.

import { endianness } from 'node:os';
import { deserialize, serialize } from 'node:v8';
import { UnsupportedOption } from '../explore/errors.ts';
import { loadMachine, normalizeTarget } from '../explore/load.ts';
import type { ExploreOptions, ExploreTarget, Machine } from '../explore/types.ts';

export type RunDescriptor =
  | {
      kind: 'bfs';
      target: ExploreTarget;
      /** The options every worker prepares the machine with (no callbacks). */
      options: ExploreOptions;
      /** The fingerprint space is split into this many partitions; a level's task takes one or several. */
      partitions: number;
      leaseMs: number;
    }
  | { kind: 'swarm'; target: ExploreTarget; options: ExploreOptions; leaseMs: number }
  | { kind: 'lin'; model: string; /** Date.now() at which searches give up (unknown). */ deadline?: number; verbose: boolean; memoLimitBytes: number; leaseMs: number };

/**
 * The target with the spec asked for its plain machine (`build: { layout: false }`), and
 * that machine. Workers rebuild states from stored ones (v8.serialize) and fingerprint them
 * in their own processes: a state on
 * the kit's word layout is words behind accessors, which serialize drops, and some such
 * words hold numbers only one process gives (a monitor's states over a layout machine, a
 * spec's values numbered as met). Every worker builds the machine from this target, so all
 * build the same plain one. A spec with no plain machine is refused, rather than a run
 * that blames it for nondeterminism or, worse, reads another process's numbers.
 */
export async function plainMachine(given: ExploreTarget): Promise<{ target: ExploreTarget; machine: Machine }> {
  const target: ExploreTarget = { ...normalizeTarget(given), build: { ...given.build, layout: false } };
  const machine = await loadMachine(target);
  if (machine.layout !== undefined) {
    throw new UnsupportedOption('this spec keeps its states on the kit\'s word layout and gives no plain machine (its build ignores { layout: false }, or it is a Machine factory): the search through Redis does not carry such states between processes (their words may hold numbers only one process knows): run it on one host (--workers)');
  }
  return { target, machine };
}

/** The options a worker needs, without the coordinator's callbacks. */
export function plainOptions(o: ExploreOptions): ExploreOptions {
  const { onProgress: _progress, workers: _workers, ...plain } = o;
  return plain;
}

/**
 * Successors sent to one partition: not the states, only how to rebuild them. Record i is
 * five 32-bit words: the successor's fingerprint (hi, lo), its parent's fingerprint (0, 0
 * for an initial state) and the index of the action that reached it among the parent's
 * enabled actions (for an initial state, -1 - its index among the initial states). The
 * owner keeps the new ones and rebuilds each from its parent, whose state the parent's
 * partition stored for one level (`keys.front`). 20 bytes a successor, whatever the state.
 */
export const RECORD_WORDS = 5;

/** Records in a growable buffer (little-endian words: every host reads them the same way). */
export class Records {
  words = new Int32Array(5 * 64);
  length = 0;

  push(hi: number, lo: number, phi: number, plo: number, via: number): void {
    if (this.length + RECORD_WORDS > this.words.length) {
      const next = new Int32Array(this.words.length * 2);
      next.set(this.words);
      this.words = next;
    }
    const w = this.words;
    let n = this.length;
    w[n++] = hi;
    w[n++] = lo;
    w[n++] = phi;
    w[n++] = plo;
    w[n++] = via;
    this.length = n;
  }

  get count(): number {
    return this.length / RECORD_WORDS;
  }

  pack(): Buffer {
    if (LITTLE_ENDIAN) return Buffer.from(this.words.buffer.slice(0, this.length * 4));
    const b = Buffer.allocUnsafe(this.length * 4);
    for (let i = 0; i < this.length; i++) b.writeInt32LE(this.words[i], 4 * i);
    return b;
  }
}

const LITTLE_ENDIAN = endianness() === 'LE';

export function unpackRecords(buf: Buffer): Int32Array {
  if (buf.length % (4 * RECORD_WORDS) !== 0) throw new Error(`distributed BFS: a batch of successor records of ${buf.length} bytes (expected a multiple of ${4 * RECORD_WORDS})`);
  if (LITTLE_ENDIAN) return new Int32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  const w = new Int32Array(buf.length / 4);
  for (let i = 0; i < w.length; i++) w[i] = buf.readInt32LE(4 * i);
  return w;
}

/**
 * A state as a partition stores it for the next level's owners to rebuild its successors:
 * V8's structured clone, which keeps Maps (with their order, on which the order of the
 * enabled actions may depend), Sets, bigints and typed arrays, as states may hold them.
 */
export function packState(s: unknown): Buffer {
  return serialize(s);
}

export function unpackState(buf: Buffer): unknown {
  return deserialize(buf);
}

/** The partition that owns a fingerprint. */
export function owner(hi: number, partitions: number): number {
  return (hi >>> 0) % partitions;
}

/** Unsigned order of 64-bit fingerprints (and of parent links: the smaller is kept). */
export function compareFp(ahi: number, alo: number, bhi: number, blo: number): number {
  return (ahi >>> 0) - (bhi >>> 0) || (alo >>> 0) - (blo >>> 0);
}

export function fpKey(hi: number, lo: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeInt32BE(hi, 0);
  b.writeInt32BE(lo, 4);
  return b;
}

export function fpHex(hi: number, lo: number): string {
  return fpKey(hi, lo).toString('hex');
}

export function fpFromHex(hex: string): [number, number] {
  const b = Buffer.from(hex, 'hex');
  return [b.readInt32BE(0), b.readInt32BE(4)];
}

/** A stored state's parent link, as the value of its field in the partition's hash. */
export function packLink(parentHi: number, parentLo: number, via: number): Buffer {
  const b = Buffer.allocUnsafe(12);
  b.writeInt32BE(parentHi, 0);
  b.writeInt32BE(parentLo, 4);
  b.writeInt32BE(via, 8);
  return b;
}

export function unpackLink(b: Buffer): { hi: number; lo: number; via: number } {
  return { hi: b.readInt32BE(0), lo: b.readInt32BE(4), via: b.readInt32BE(8) };
}

/** A violation a level task found, as stored in Redis. */
export interface FoundViolation {
  property: string;
  message: string;
  depth: number;
  /** The violating state's fingerprint (hex). */
  fp: string;
  /** Order of the property among the state's checks (invariants in declaration order, then deadlock). */
  order: number;
}

/** What a committed BFS task reports to the coordinator (`keys.report(level)`, field: its group's first partition). */
export interface TaskReport {
  /** New states it stored, and the transitions out of them. */
  states: number;
  transitions: number;
  /** Successor records it sent (after merging its own duplicates). */
  sent: number;
  /** Bytes it wrote for others: records, and the states stored for the next level. */
  bytesSent: number;
  /** Bytes of parent states it read to rebuild its new states. */
  bytesFetched: number;
  /** Whether it left states unexpanded at the depth bound. */
  depthCut: boolean;
  /** Action family -> times enabled. */
  cover: Record<string, number>;
  /** The partitions it sent records to for the next level, and how many to each. */
  to: [number, number][];
  worker: string;
}
