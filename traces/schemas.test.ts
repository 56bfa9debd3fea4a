// The hand-written checks of the native records say yes exactly when their zod schemas
// do, on JSON values near the boundary (each field valid, invalid, missing or extra).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isNativeEvent, isNativeOperation, NativeEvent, NativeOperation } from './schemas.ts';

const json = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const near = fc.oneof(
  fc.constantFrom(0, 1, -1, 1.5, 2 ** 53, -0, '', 'a', 'ok', 'info', 'fail', 'call', 'return', 'x', null, true, false, [], {}, [1, 2]),
  json,
);
/** A field: absent (undefined), a likely-valid value, or anything near the boundary. */
const field = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> => fc.oneof(fc.constant(undefined), valid, near);
const client = fc.oneof(fc.nat(), fc.string({ minLength: 1, maxLength: 3 }));
const time = fc.oneof(fc.nat(), fc.double({ min: 0, max: 1e6, noNaN: true }));
const input = fc.oneof(
  fc.record({ f: field(fc.constantFrom('read', 'write', 'get')), key: field(fc.string({ maxLength: 2 })), value: field(json), extra: fc.constant(undefined) }, { requiredKeys: [] }),
  fc.record({ f: fc.constantFrom('read'), zz: near }),
  near,
);

/** Drops the undefined fields, as a JSON line never has them. */
function asJson(o: Record<string, unknown>): unknown {
  return JSON.parse(JSON.stringify(o));
}

describe('hand-written record checks agree with the zod schemas', () => {
  it('operations', () => {
    fc.assert(
      fc.property(
        fc.record({ client: field(client), input: field(input), call: field(time), return: field(time), output: field(json), status: field(fc.constantFrom('ok', 'info', 'fail')), zz: fc.oneof(fc.constant(undefined), near) }),
        (o) => {
          const v = asJson(o);
          expect(isNativeOperation(v)).toBe(NativeOperation.safeParse(v).success);
        },
      ),
      { numRuns: 800, seed: 21 },
    );
  });

  it('events', () => {
    fc.assert(
      fc.property(
        fc.record({ type: field(fc.constantFrom('call', 'return')), id: field(client), client: field(client), input: field(input), output: field(json), status: field(fc.constantFrom('ok', 'info', 'fail')), zz: fc.oneof(fc.constant(undefined), near) }),
        (o) => {
          const v = asJson(o);
          expect(isNativeEvent(v)).toBe(NativeEvent.safeParse(v).success);
        },
      ),
      { numRuns: 800, seed: 21 },
    );
  });

  it('say yes to valid records often enough to test something', () => {
    let yes = 0;
    fc.assert(
      fc.property(fc.record({ client, input: fc.record({ f: fc.constant('read') }), call: time }), (o) => {
        if (isNativeOperation(asJson(o))) yes++;
      }),
      { numRuns: 100, seed: 1 },
    );
    expect(yes).toBe(100);
  });
});
