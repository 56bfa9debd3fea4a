// Networks over plain data. A message is a tuple of small integers (a labelled tuple type
// in the spec names its fields: `type ReadReq = readonly [p: number, mn: number, ...]`),
// treated as immutable, so copying a state copies the network's outer array only and the
// engine encodes it as words without field names.
//
// - A bag (the default network of the papers: any order, no loss): a multiset kept sorted,
//   so that equal bags are equal arrays. Delivering any element is reordering.
// - FIFO channels: one queue per channel id; only the head is deliverable.
// - Loss and duplication are options of the delivery choices (`deliveries`).
// - A request and its response: `answer` either delivers the response in the step that
//   applies the request (fused) or sends it, to be delivered as a step of its own.
// Functions named with a verb change the array they are given (a draft's copy) in place.

export type Msg = readonly number[];

export function compareMsg(a: Msg, b: Msg): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

export const sameMsg = (a: Msg, b: Msg): boolean => compareMsg(a, b) === 0;

// ---- the bag ----

/** Where m goes in the sorted bag: after every message not greater (stable among equals). */
function insertionPoint(bag: readonly Msg[], m: Msg): number {
  let lo = 0;
  let hi = bag.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareMsg(bag[mid], m) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Where one copy of m lies in the bag; an error if there is none (a delivery of a message not in flight). */
function indexOf(bag: readonly Msg[], m: Msg): number {
  // Most deliveries pass the very tuple that is in the bag (distinct's): found by identity.
  const at = bag.indexOf(m);
  if (at >= 0) return at;
  for (let i = 0; i < bag.length; i++) if (compareMsg(bag[i], m) === 0) return i;
  throw new Error(`network: no message [${m.join(',')}] in flight`);
}

/** Adds m, keeping the bag sorted (stable among equal messages: duplicates are allowed). */
export function send<M extends Msg>(bag: M[], m: M): void {
  const at = insertionPoint(bag, m);
  bag.push(m);
  for (let i = bag.length - 1; i > at; i--) bag[i] = bag[i - 1];
  bag[at] = m;
}

/** Removes one copy of m; an error if there is none. */
export function take<M extends Msg>(bag: M[], m: Msg): void {
  bag.splice(indexOf(bag, m), 1);
}

/**
 * The same bag as a new array, m added (the bag given is left as it was): for a spec whose
 * copy shares the network between a state and its successors, so that a step that does
 * not send or deliver copies nothing.
 */
export function sent<M extends Msg>(bag: readonly M[], m: M): M[] {
  const lo = insertionPoint(bag, m);
  const out = bag.slice(0, lo);
  out.push(m);
  for (let i = lo; i < bag.length; i++) out.push(bag[i]);
  return out;
}

/** The same bag as a new array, one copy of m taken out (the bag given is left as it was); an error if there is none. */
export function taken<M extends Msg>(bag: readonly M[], m: Msg): M[] {
  const at = indexOf(bag, m);
  const out = bag.slice(0, at);
  for (let i = at + 1; i < bag.length; i++) out.push(bag[i]);
  return out;
}

/** Whether bag[i] is the first copy of its message: `distinct` without making a list (a guard's loop). */
export const firstCopy = <M extends Msg>(bag: readonly M[], i: number): boolean => i === 0 || compareMsg(bag[i - 1], bag[i]) !== 0;

/** Each distinct message once, in order: the delivery choices of a bag. */
export function distinct<M extends Msg>(bag: readonly M[]): M[] {
  const out: M[] = [];
  for (let i = 0; i < bag.length; i++) if (i === 0 || compareMsg(bag[i - 1], bag[i]) !== 0) out.push(bag[i]);
  return out;
}

/** A new sorted bag of the messages kept (filtering keeps the order). */
export const keep = <M extends Msg>(bag: readonly M[], pred: (m: M) => boolean): M[] => bag.filter(pred);

/** A new sorted bag with f applied to every message (f may change the sort key). */
export function remap<M extends Msg>(bag: readonly M[], f: (m: M) => M): M[] {
  return bag.map(f).sort(compareMsg);
}

// ---- FIFO channels ----

/** Channels indexed by a channel id (e.g. from * n + to); each a queue, oldest first. */
export type Channels<M extends Msg = Msg> = M[][];

export const channels = <M extends Msg>(count: number): Channels<M> => Array.from({ length: count }, () => []);
export const copyChannels = <M extends Msg>(ch: Channels<M>): Channels<M> => ch.map((q) => q.slice());
export const enqueue = <M extends Msg>(ch: Channels<M>, c: number, m: M): void => void ch[c].push(m);
/** Removes and returns the head of channel c. */
export function dequeue<M extends Msg>(ch: Channels<M>, c: number): M {
  const m = ch[c].shift();
  if (m === undefined) throw new Error(`network: channel ${c} is empty`);
  return m;
}

// ---- what the network may do next ----

export interface NetworkOptions {
  /** 'bag': any message in flight may be delivered next (reordering); 'fifo': per channel, in order. */
  order: 'bag' | 'fifo';
  /** A message in flight may be lost (a step of its own). */
  loss?: boolean;
  /** A message in flight may be delivered while a copy stays in flight (bounding the copies is the spec's business). */
  duplication?: boolean;
}

export type Delivery<M extends Msg> =
  | { kind: 'deliver'; msg: M; channel: number }
  | { kind: 'duplicate'; msg: M; channel: number }
  | { kind: 'lose'; msg: M; channel: number };

/**
 * Every choice the network offers: for a bag, each distinct message (channel -1); for FIFO
 * channels, each non-empty channel's head. With loss, each may instead be lost; with
 * duplication, delivered while a copy stays in flight.
 */
export function deliveries<M extends Msg>(net: readonly M[] | Channels<M>, opts: NetworkOptions): Delivery<M>[] {
  const heads: [M, number][] = opts.order === 'bag'
    ? distinct(net as readonly M[]).map((m) => [m, -1])
    : (net as Channels<M>).flatMap((q, c) => (q.length ? [[q[0], c] as [M, number]] : []));
  const out: Delivery<M>[] = [];
  for (const [msg, channel] of heads) {
    out.push({ kind: 'deliver', msg, channel });
    if (opts.duplication) out.push({ kind: 'duplicate', msg, channel });
    if (opts.loss) out.push({ kind: 'lose', msg, channel });
  }
  return out;
}

/** Takes a delivery's message out of the network (a duplicate stays). */
export function consume<M extends Msg>(net: M[] | Channels<M>, d: Delivery<M>): M {
  if (d.kind === 'duplicate') return d.msg;
  if (d.channel < 0) take(net as M[], d.msg);
  else dequeue(net as Channels<M>, d.channel);
  return d.msg;
}

// ---- requests and responses ----

/**
 * The response of an applied request: delivered at once (`fused`: request and response
 * are one step, the model where no response overtakes another) or sent into `bag`, to be
 * delivered by a step of its own (message reordering between requests and responses).
 */
export function answer<M extends Msg>(fused: boolean, rsp: M, bag: M[], deliver: (rsp: M) => void): void {
  if (fused) deliver(rsp);
  else send(bag, rsp);
}

// ---- one tuple per message ----

/**
 * Messages interned by content: `of(m)` returns the first tuple met with m's fields, so
 * that equal messages sent on different paths are one object, and whatever a spec keys by
 * a message's identity (the action that delivers it, its label, its words) is made once
 * per message rather than once per send. An open-addressed table over the fields' hash;
 * it only grows, by the distinct messages a config sends (a few hundred to thousands).
 */
export class Interned<M extends Msg> {
  private slots: (M | undefined)[] = new Array(256);
  private count = 0;

  of(m: M): M {
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = hashMsg(m) & mask; ; i = (i + 1) & mask) {
      const x = slots[i];
      if (x === undefined) break;
      if (x === m || compareMsg(x, m) === 0) return x;
    }
    if (2 * (this.count + 1) > slots.length) this.grow();
    const s = this.slots;
    const k = s.length - 1;
    let i = hashMsg(m) & k;
    while (s[i] !== undefined) i = (i + 1) & k;
    s[i] = m;
    this.count++;
    return m;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Array(old.length * 2);
    const k = this.slots.length - 1;
    for (const x of old) {
      if (x === undefined) continue;
      let i = hashMsg(x) & k;
      while (this.slots[i] !== undefined) i = (i + 1) & k;
      this.slots[i] = x;
    }
  }
}

function hashMsg(m: Msg): number {
  let h = m.length;
  for (let i = 0; i < m.length; i++) h = Math.imul(h ^ m[i], 0x9e3779b1) + i;
  return (h ^ (h >>> 15)) >>> 0;
}
