// What the importers need to know of an operation's function name `f` to build the
// shared history values (see the conventions in checkers/lin/types.ts): whether its
// output is a read result, ignored, or a cas outcome; and which names a model accepts.
import type { Model } from '../checkers/lin/types.ts';

/**
 * read: the output is what the operation observed (kept).
 * update: the output is ignored (null); the input's value is what was written, and is
 * required (null is a value: a write of nil writes nil, as in Knossos).
 * cas: the input's value is a [from, to] pair; the output is true when it succeeded.
 * action: neither input value nor output (a mutex's acquire and release).
 */
export type OpKind = 'read' | 'update' | 'cas' | 'action';

/** The functions a model accepts, and what its inputs and outputs must look like. */
export interface Vocabulary {
  functions: Readonly<Record<string, OpKind>>;
  /** Every operation names a key (the model partitions by it). */
  keyed?: boolean;
  /**
   * No operation names a key (the model has none: a key would be dropped, and operations
   * on different keys judged as one object's). Such a history is checked with --independent.
   */
  unkeyed?: boolean;
  /** Written values and read results are strings (kv: '' when never written). */
  strings?: boolean;
  /** A read returns the members of a set (an EDN set read as the array of its members). */
  setReads?: boolean;
  /** An update's value cannot be nil (queue: nil is what a dequeue of an empty queue returns). */
  valued?: boolean;
}

const REGISTER: Vocabulary = { functions: { read: 'read', write: 'update' }, unkeyed: true };
const CAS_REGISTER: Vocabulary = { functions: { read: 'read', write: 'update', cas: 'cas' }, unkeyed: true };
const KV: Vocabulary = { functions: { get: 'read', put: 'update', append: 'update' }, keyed: true, strings: true };
const SET: Vocabulary = { functions: { add: 'update', read: 'read' }, setReads: true, unkeyed: true };
const QUEUE: Vocabulary = { functions: { enqueue: 'update', dequeue: 'read' }, valued: true, unkeyed: true };
const MUTEX: Vocabulary = { functions: { acquire: 'action', release: 'action' }, unkeyed: true };

/** Every function name the importers know, for a model they do not. */
const ALL: Vocabulary = {
  functions: { ...CAS_REGISTER.functions, ...KV.functions, ...SET.functions, ...QUEUE.functions, ...MUTEX.functions },
};

/** The subset of a model the importers use. */
export type ImportModel = Pick<Model, 'name'> & Partial<Pick<Model, 'failedOutput'>>;

/** The prefix of Jepsen's independent-keys variant of a model (checkers/lin/models/independent.ts). */
export const INDEPENDENT = 'independent:';

/** Whether values are jepsen.independent `[key value]` tuples: the model is `independent:<name>`. */
export function isIndependent(model: ImportModel): boolean {
  return model.name.startsWith(INDEPENDENT);
}

/** The vocabulary of a model, from its name (the models registry's names). */
export function vocabularyOf(model: ImportModel): Vocabulary {
  const name = isIndependent(model) ? model.name.slice(INDEPENDENT.length) : model.name;
  if (name.startsWith('kv')) return KV;
  if (name.includes('cas')) return CAS_REGISTER;
  if (name.includes('register')) return REGISTER;
  if (name.includes('set')) return SET;
  if (name.includes('queue')) return QUEUE;
  if (name.includes('mutex')) return MUTEX;
  return ALL;
}

export function describeVocabulary(v: Vocabulary): string {
  return Object.keys(v.functions).join(', ');
}
