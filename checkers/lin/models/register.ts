// Registers as Knossos models them (knossos.model: register, cas-register), and the etcd
// register of the Jepsen logs (../shared/corpora/README.md). The register starts as null
// (nil: never written).

import { hashValue, show, valueEqual } from '../hash.ts';
import { UNKNOWN, type Model, type Unknown } from '../types.ts';

export interface RegisterInput {
  f: 'read' | 'write' | 'cas';
  value?: unknown;
}

function step(name: string, allowCas: boolean) {
  return (state: unknown, input: RegisterInput, output: unknown): { ok: boolean; state: unknown } => {
    switch (input.f) {
      case 'read':
        return { ok: output === UNKNOWN || valueEqual(state, output), state };
      case 'write':
        return { ok: true, state: input.value };
      case 'cas': {
        if (!allowCas) break;
        const pair = input.value;
        if (!Array.isArray(pair) || pair.length !== 2) {
          throw new Error(`${name}: cas expects value [from, to], got ${show(pair)}`);
        }
        const holds = valueEqual(state, pair[0]);
        // output false: the cas definitely failed, so the register did not hold `from`.
        if (output === false) return { ok: !holds, state };
        return { ok: holds, state: holds ? pair[1] : state };
      }
    }
    throw new Error(`${name}: unknown operation ${show(input.f)}`);
  };
}

function describeOperation(input: RegisterInput, output: unknown | Unknown): string {
  const out = output === UNKNOWN ? ' -> ?' : '';
  switch (input.f) {
    case 'read':
      return `read() -> ${output === UNKNOWN ? '?' : show(output)}`;
    case 'write':
      return `write(${show(input.value)})${out}`;
    case 'cas': {
      const [from, to] = Array.isArray(input.value) ? input.value : [undefined, undefined];
      const res = output === UNKNOWN ? '?' : output === false ? 'failed' : 'ok';
      return `cas(${show(from)}, ${show(to)}) -> ${res}`;
    }
    default:
      return `${String((input as { f: unknown }).f)}(${show(input.value)})`;
  }
}

function base(name: string, allowCas: boolean): Model<unknown, RegisterInput, unknown> {
  return {
    name,
    init: () => null,
    step: step(name, allowCas),
    hash: hashValue,
    equal: valueEqual,
    describeOperation,
    describeState: (s) => show(s),
    readOnly: (input, output) => input.f === 'read' || (allowCas && input.f === 'cas' && output === false),
  };
}

/** read / write; a read returns the last value written, or null. */
export const register = base('register', false);

/** Knossos's cas-register: read / write / cas; failed operations did not happen. */
export const casRegister = base('cas-register', true);

/**
 * The etcd register of the Jepsen logs: as cas-register, but a failed cas is a definite
 * outcome (the register did not hold `from`), recorded with output false.
 */
export const etcdCasRegister: Model<unknown, RegisterInput, unknown> = {
  ...base('etcd-cas-register', true),
  failedOutput: (input) => (input.f === 'cas' ? false : undefined),
};
