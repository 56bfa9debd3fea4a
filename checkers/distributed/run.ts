// What a distributed run is, as the coordinator writes it to Redis for the workers
// (`keys(run).desc`), and the batch format in which states travel between partitions.

import { deserialize, serialize } from 'node:v8';
import type { ExploreOptions, ExploreTarget } from '../explore/types.ts';

export type RunDescriptor =
  | {
      kind: 'bfs';
      target: ExploreTarget;
      /** The options every worker prepares the machine with (no callbacks). */
      options: ExploreOptions;
      /** The fingerprint space is split into this many partitions, each a task per level. */
      partitions: number;
      leaseMs: number;
    }
  | { kind: 'swarm'; target: ExploreTarget; options: ExploreOptions; leaseMs: number }
  | { kind: 'lin'; model: string; /** Date.now() at which searches give up (unknown). */ deadline?: number; verbose: boolean; memoLimitBytes: number; leaseMs: number };

/** The options a worker needs, without the coordinator's callbacks. */
export function plainOptions(o: ExploreOptions): ExploreOptions {
  const { onProgress: _progress, workers: _workers, ...plain } = o;
  return plain;
}

/**
 * States sent to one partition: for state i, its fingerprint (fp[2i], fp[2i+1]), the
 * fingerprint of the state it was reached from (parent[2i..]; 0, 0 for an initial state)
 * and the index of the action that reached it (via[i]; for an initial state, -1 - its
 * index among the initial states). Serialised with V8's structured clone, which keeps
 * Maps, Sets, bigints and typed arrays, as states may hold them.
 */
export interface Batch {
  fp: Int32Array;
  parent: Int32Array;
  via: Int32Array;
  states: unknown[];
}

export function packBatch(b: Batch): Buffer {
  return serialize(b);
}

export function unpackBatch(buf: Buffer): Batch {
  return deserialize(buf) as Batch;
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
