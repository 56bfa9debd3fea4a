// The power-set construction: a nondeterministic model becomes a deterministic one whose
// state is the set of states the nondeterministic model may be in. A step is legal when
// some member has a legal successor. The set's hash is the XOR of its members' hashes,
// which needs members without duplicates; equality is set equality.

import type { Model, NondeterministicModel } from './types.ts';

/** A set of the underlying model's states, duplicates removed, with its hash. */
export interface StateSet<S> {
  members: readonly S[];
  memberHash: Int32Array;
  hash: number;
}

export function fromNondeterministic<S, I, O>(m: NondeterministicModel<S, I, O>): Model<StateSet<S>, I, O> {
  const hash = m.hash ? m.hash.bind(m) : () => 0;
  const equal = m.equal ? m.equal.bind(m) : Object.is;

  function toSet(states: readonly S[]): StateSet<S> {
    const members: S[] = [];
    const hashes: number[] = [];
    let h = 0;
    for (const s of states) {
      const sh = hash(s);
      let dup = false;
      for (let i = 0; i < members.length; i++) {
        if (hashes[i] === sh && equal(members[i], s)) {
          dup = true;
          break;
        }
      }
      if (!dup) {
        members.push(s);
        hashes.push(sh);
        h ^= sh;
      }
    }
    return { members, memberHash: Int32Array.from(hashes), hash: h };
  }

  const model: Model<StateSet<S>, I, O> = {
    name: m.name,
    init: () => toSet(m.init()),
    step(set, input, output) {
      const successors: S[] = [];
      for (const s of set.members) for (const t of m.step(s, input, output)) successors.push(t);
      const next = toSet(successors);
      return { ok: next.members.length > 0, state: next };
    },
    hash: (set) => set.hash,
    equal(a, b) {
      if (a.hash !== b.hash || a.members.length !== b.members.length) return false;
      outer: for (let i = 0; i < a.members.length; i++) {
        for (let j = 0; j < b.members.length; j++) {
          if (a.memberHash[i] === b.memberHash[j] && equal(a.members[i], b.members[j])) continue outer;
        }
        return false;
      }
      return true;
    },
  };
  if (m.partition) model.partition = m.partition.bind(m);
  if (m.readOnly) model.readOnly = m.readOnly.bind(m);
  if (m.unobserved) model.unobserved = m.unobserved.bind(m);
  if (m.priority) model.priority = m.priority.bind(m);
  if (m.describeOperation) model.describeOperation = m.describeOperation.bind(m);
  const describe = m.describeState?.bind(m);
  model.describeState = (set) =>
    set.members.length === 1 && describe ? describe(set.members[0]) : `{${set.members.map((s) => (describe ? describe(s) : String(s))).join(' | ')}}`;
  return model;
}
