import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkHistorySync } from '../lin/index.ts';
import { etcdCasRegister, queue, register } from '../lin/models/index.ts';
import type { Model, NondeterministicModel } from '../lin/types.ts';
import { advance, initialMonitor, permuteMonitor, stepper, withMonitor } from './monitor.ts';
import { canonicalJson, referenceBfs } from './reference.ts';
import type { Action, Machine, ObservedEvent } from './types.ts';
import { replicatedRegister } from './fixtures/replicated-register.ts';
import { encodeValue, Words } from './encode.ts';
import { toOperations } from './histories.ts';
import { exploreSync } from './index.ts';

/** Random well-formed event sequences: a client invokes only when idle. */
function events(clients: number, inputs: fc.Arbitrary<unknown>, outputs: (input: unknown) => fc.Arbitrary<unknown>) {
  const command = fc.record({ client: fc.nat(clients - 1), kind: fc.nat(9), input: inputs, seed: fc.nat(1000) });
  return fc.array(command, { maxLength: 14 }).chain((cmds) => {
    const pending = new Map<number, unknown>();
    const out: fc.Arbitrary<ObservedEvent>[] = [];
    for (const c of cmds) {
      if (!pending.has(c.client)) {
        pending.set(c.client, c.input);
        out.push(fc.constant({ kind: 'invoke', client: c.client, input: c.input }));
      } else {
        const input = pending.get(c.client);
        pending.delete(c.client);
        if (c.kind < 7) out.push(outputs(input).map((output) => ({ kind: 'return', client: c.client, output }) as ObservedEvent));
        else out.push(fc.constant({ kind: c.kind === 7 ? 'crash' : 'fail', client: c.client } as ObservedEvent));
      }
    }
    return fc.tuple(...out);
  });
}

/** The first prefix length at which each checker says "not linearizable" (or -1). */
function firstViolation(model: Model | NondeterministicModel, clients: number, evs: readonly ObservedEvent[]) {
  const st = stepper(model);
  let m = initialMonitor(st, clients);
  let monitor = -1;
  for (let i = 0; i < evs.length && monitor < 0; i++) {
    m = advance(st, m, evs[i]);
    if (m.configs.length === 0) monitor = i + 1;
  }
  let wgl = -1;
  for (let i = 1; i <= evs.length && wgl < 0; i++) {
    if (checkHistorySync(model, toOperations(evs.slice(0, i))).verdict === 'illegal') wgl = i;
  }
  return { monitor, wgl };
}

const small = fc.constantFrom(null, 1, 2);

describe('incremental linearizability monitor', () => {
  // The properties must see illegal histories too, or agreement would prove little.
  let illegal = 0;
  beforeEach(() => {
    illegal = 0;
  });

  it('agrees with the WGL checker on every prefix (register)', () => {
    const inputs = fc.oneof(fc.constant({ f: 'read' }), fc.record({ f: fc.constant('write'), value: fc.constantFrom(1, 2) }));
    const outputs = (i: unknown) => ((i as { f: string }).f === 'read' ? small : fc.constant(null));
    fc.assert(
      fc.property(events(3, inputs, outputs), (evs) => {
        const r = firstViolation(register, 3, evs);
        expect(r.monitor).toBe(r.wgl);
        if (r.wgl > 0) illegal++;
      }),
      { numRuns: 300 },
    );
    expect(illegal).toBeGreaterThan(20);
  });

  it('agrees with the WGL checker on every prefix (etcd cas register: failed cas without effect)', () => {
    const inputs = fc.oneof(
      fc.constant({ f: 'read' }),
      fc.record({ f: fc.constant('write'), value: fc.constantFrom(1, 2) }),
      fc.record({ f: fc.constant('cas'), value: fc.tuple(small, fc.constantFrom(1, 2)) }),
    );
    const outputs = (i: unknown) => {
      const f = (i as { f: string }).f;
      return f === 'read' ? small : f === 'cas' ? fc.boolean() : fc.constant(null);
    };
    fc.assert(
      fc.property(events(3, inputs, outputs), (evs) => {
        const r = firstViolation(etcdCasRegister, 3, evs);
        expect(r.monitor).toBe(r.wgl);
        if (r.wgl > 0) illegal++;
      }),
      { numRuns: 300 },
    );
    expect(illegal).toBeGreaterThan(20);
  });

  it('agrees with the WGL checker on every prefix (queue)', () => {
    const inputs = fc.oneof(fc.constant({ f: 'dequeue' }), fc.record({ f: fc.constant('enqueue'), value: fc.constantFrom(1, 2) }));
    const outputs = (i: unknown) => ((i as { f: string }).f === 'dequeue' ? small : fc.constant(null));
    fc.assert(
      fc.property(events(2, inputs, outputs), (evs) => {
        const r = firstViolation(queue, 2, evs);
        expect(r.monitor).toBe(r.wgl);
        if (r.wgl > 0) illegal++;
      }),
      { numRuns: 300 },
    );
    expect(illegal).toBeGreaterThan(20);
  });

  it('handles a nondeterministic model (a register that may lose a write)', () => {
    const lossy: NondeterministicModel = {
      name: 'lossy-register',
      nondeterministic: true,
      init: () => [null],
      step: (s, i: { f: string; value?: unknown }, o) => (i.f === 'write' ? [s, i.value] : i.f === 'read' && (typeof o === 'symbol' || o === s) ? [s] : []),
    };
    const w = { f: 'write', value: 1 };
    const read = (client: number, output: unknown): ObservedEvent[] => [
      { kind: 'invoke', client, input: { f: 'read' } },
      { kind: 'return', client, output },
    ];
    const base: ObservedEvent[] = [{ kind: 'invoke', client: 0, input: w }, { kind: 'return', client: 0, output: null }];
    expect(firstViolation(lossy, 2, [...base, ...read(1, 1), ...read(1, 1)])).toEqual({ monitor: -1, wgl: -1 });
    expect(firstViolation(lossy, 2, [...base, ...read(1, null), ...read(1, null)])).toEqual({ monitor: -1, wgl: -1 });
    const r = firstViolation(lossy, 2, [...base, ...read(1, 1), ...read(1, null)]);
    expect(r).toEqual({ monitor: 6, wgl: 6 });
  });

  it('advances each (monitor state, event) once, keyed so that only equal events share a successor', () => {
    // One machine (one memo) meets many histories; the monitor state after every event
    // must be the plain advance()'s. Inputs and outputs are fresh copies each time, of
    // values that JSON, Map keys or a careless key would confuse.
    const tricky = [1, '1', 0, -0, NaN, null, undefined, true, 'true', [1], { a: 1 }, { a: '1' }];
    const input = fc.oneof(
      fc.constant({ f: 'read' }),
      // A flat object that is a prefix of others (the trie of flat objects ends inside a path).
      fc.constant({ f: 'write' }),
      fc.constantFrom(...tricky).map((value) => ({ f: 'write', value })),
      fc.constantFrom(...tricky).map((value) => ({ value, f: 'write' })),
    );
    const output = (i: unknown) => ((i as { f: string }).f === 'read' ? fc.constantFrom(...tricky) : fc.constant(null));
    // The register, but writing undefined too (the register refuses a write without a
    // value): the keying is under test, with every tricky value written.
    const lenient: Model = { ...register, next: undefined, step: (s, input, out) => (input.f === 'write' ? { ok: true, state: input.value } : register.step(s, input, out)) };
    let script: readonly ObservedEvent[] = [];
    const scripted: Machine<number, Action> = {
      init: () => [0],
      actions: (i) => (i < script.length ? [{ label: 'next' }] : []),
      next: (i) => i + 1,
      invariants: {},
      history: { model: lenient, clients: 3, observe: (i) => [structuredClone(script[i])] },
    };
    const monitored = withMonitor(scripted);
    const st = stepper(lenient);
    const check = (evs: readonly ObservedEvent[]) => {
      script = evs;
      let w = monitored.init()[0];
      let m = initialMonitor(st, 3);
      for (let i = 0; i < evs.length; i++) {
        w = monitored.next(w, { label: 'next' });
        m = advance(st, m, evs[i]);
        expect(canonicalJson(w.m)).toBe(canonicalJson(m));
      }
    };
    // Every pair of values meets the same monitor state: as the value written, and as a read's output.
    for (const x of tricky) {
      for (const y of tricky) {
        check([
          { kind: 'invoke', client: 0, input: { f: 'write', value: x } },
          { kind: 'return', client: 0, output: null },
          { kind: 'invoke', client: 1, input: { f: 'read' } },
          { kind: 'return', client: 1, output: y },
        ]);
      }
    }
    fc.assert(fc.property(events(3, input, output), check), { numRuns: 300 });
  });

  it('reports the history in the model words, on the shortest path', () => {
    const m = withMonitor(replicatedRegister({ clients: 2, replicas: 2, variant: 'read-one', reads: 2 }));
    const r = referenceBfs(m);
    expect(r.violation?.property).toBe('linearizability');
    expect(r.violation?.message).toMatch(/not linearizable against the register model: 1\. c\d calls write\(1\)/);
    expect(r.violation?.message).toMatch(/returns read\(\) -> null/);
    expect(referenceBfs(withMonitor(replicatedRegister({ clients: 2, replicas: 2, variant: 'read-last', reads: 2 }))).violation).toBeUndefined();
  });

  it('keeps the monitor state canonical: equal histories up to order of concurrent calls give equal states', () => {
    const st = stepper(register);
    const a = [
      { kind: 'invoke', client: 0, input: { f: 'write', value: 1 } },
      { kind: 'invoke', client: 1, input: { f: 'write', value: 2 } },
    ] as ObservedEvent[];
    const run = (evs: ObservedEvent[]) => evs.reduce((m, e) => advance(st, m, e), initialMonitor(st, 2));
    expect(run(a)).toEqual(run([a[1], a[0]]));
  });

  it('renames clients: the monitor of a renamed history is the renamed monitor', () => {
    const st = stepper(register);
    const inputs = fc.oneof(fc.constant({ f: 'read' }), fc.record({ f: fc.constant('write'), value: fc.constantFrom(1, 2) }));
    const outputs = (i: unknown) => ((i as { f: string }).f === 'read' ? small : fc.constant(null));
    const run = (evs: readonly ObservedEvent[]) => evs.reduce((m, e) => advance(st, m, e), initialMonitor(st, 3));
    fc.assert(
      fc.property(events(3, inputs, outputs), fc.constantFrom([1, 0], [0, 1]), fc.constantFrom(0, 1), (evs, p, first) => {
        const rename = (c: number) => (c >= first && c < first + 2 ? first + p[c - first] : c);
        const renamed = evs.map((e) => ({ ...e, client: rename(e.client) }));
        expect(permuteMonitor(run(evs), p, first)).toEqual(run(renamed));
      }),
      { numRuns: 200 },
    );
  });

  it("keeps the spec's fast encoding under the monitor, with the same counts", () => {
    for (const variant of ['read-one', 'read-last'] as const) {
      const base = replicatedRegister({ clients: 3, replicas: 2, variant, writes: [1, 2] });
      const words = new Words();
      const fast = {
        ...base,
        encode(s: unknown, out: Int32Array) {
          words.reset();
          encodeValue(words, s);
          if (words.length > out.length) return -1;
          out.set(words.buf.subarray(0, words.length));
          return words.length;
        },
      };
      for (const store of ['exact', 'fingerprint'] as const) {
        const a = exploreSync(base, { store, all: true, livelock: false });
        const b = exploreSync(fast, { store, all: true, livelock: false });
        expect([b.status, b.states, b.transitions]).toEqual([a.status, a.states, a.transitions]);
      }
    }
  });
});
