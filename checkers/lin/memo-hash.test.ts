// The memo may use a state's hash to find candidates, never to decide that two states are
// equal: models without `hash` (every state hashes alike), with deliberately colliding
// hashes, and with none of the optional hooks at all must give the verdicts of the brute
// force enumerator. A memo that trusted the hash would merge configurations with the same
// operations linearized but different states, and call linearizable histories illegal.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bruteForce } from './brute-force.ts';
import { generateHistory, type Family, type GenerateOptions } from './generate.ts';
import { hashValue } from './hash.ts';
import { checkHistorySync, models } from './index.ts';
import type { Model } from './types.ts';
import { wglSearch } from './wgl.ts';

const families: [Family, string][] = [
  ['register', 'register'],
  ['cas-register', 'cas-register'],
  ['kv', 'kv-append-unpartitioned'],
  ['queue', 'queue'],
];

/** Small histories (checkers/lin/generate.ts): repeated values, crashes and corruptions often. */
function shape(family: Family): fc.Arbitrary<GenerateOptions> {
  return fc.record({
    family: fc.constant(family),
    seed: fc.integer(),
    ops: fc.integer({ min: 1, max: 8 }),
    clients: fc.integer({ min: 1, max: 3 }),
    tick: fc.integer({ min: 1, max: 3 }),
    crashRate: fc.constantFrom(0, 0.2),
    corrupt: fc.integer({ min: 0, max: 1 }),
    unique: fc.boolean(),
    keys: fc.integer({ min: 1, max: 3 }),
    values: fc.constant(3),
  });
}

/** The same model with its hash replaced, or with only the hooks the contract requires. */
function variants(model: Model): [string, Model][] {
  const { name, init, step } = model;
  return [
    ['no hash', { ...model, hash: undefined }],
    ['a constant hash', { ...model, hash: () => 42 }],
    ['a one-bit hash', { ...model, hash: (s: unknown) => (model.hash ? model.hash(s) : hashValue(s)) & 1 }],
    // Without equal, states are compared with Object.is: exact for the register's values,
    // never equal for the queue's objects (no pruning, still exact).
    ['only name, init and step', { name, init, step }],
  ];
}

describe('the memo never trusts a hash', () => {
  for (const [family, modelName] of families) {
    for (const [variant, model] of variants(models[modelName]!)) {
      it(`${modelName} with ${variant}: the verdicts of brute force`, () => {
        const seen = { ok: 0, illegal: 0 };
        fc.assert(
          fc.property(shape(family), (options) => {
            const { history } = generateHistory(options);
            const expected = bruteForce(models[modelName]!, history).linearizable ? 'ok' : 'illegal';
            seen[expected]++;
            for (const reductions of [true, false]) expect(wglSearch(model, history, { reductions }).verdict).toBe(expected);
            expect(checkHistorySync(model, history).verdict).toBe(expected);
          }),
          { numRuns: 200, seed: 1616 },
        );
        expect(seen.ok).toBeGreaterThan(20);
        expect(seen.illegal).toBeGreaterThan(20);
      });
    }
  }
});
