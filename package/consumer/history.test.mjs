// interleave/vitest and interleave/fast-check in a consumer's own vitest run: the matcher,
// and the fast-check bridge finding a lost update in a store whose append is not atomic.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { linearizable, NotLinearizable, operation } from 'interleave/fast-check';
import { matchers } from 'interleave/vitest';

expect.extend(matchers);

it('toBeLinearizable', () => {
  const write = { client: 0, input: { f: 'write', value: 1 }, call: 0, ret: 1 };
  expect([write, { client: 1, input: { f: 'read' }, output: 1, call: 2, ret: 3 }]).toBeLinearizable('register');
  expect([write, { client: 1, input: { f: 'read' }, output: 0, call: 2, ret: 3 }]).not.toBeLinearizable('register');
});

class Store {
  constructor(step) {
    this.step = step;
    this.data = new Map();
  }
  async get(key) {
    await this.step();
    return this.data.get(key) ?? '';
  }
  async append(key, value) {
    const current = await this.get(key);
    await this.step();
    this.data.set(key, current + value);
  }
}

it('the fast-check bridge finds the lost update', async () => {
  const property = linearizable({
    model: 'kv-append',
    setup: (s) => new Store(() => s.schedule(Promise.resolve())),
    commands: [
      fc.constantFrom('a', 'b').map((v) => operation({ f: 'append', key: 'x', value: v }, (store) => store.append('x', v))),
      fc.constant(operation({ f: 'get', key: 'x' }, (store) => store.get('x'))),
    ],
  });
  const out = await fc.check(property, { seed: 7, numRuns: 200 });
  expect(out.failed).toBe(true);
  expect(out.errorInstance).toBeInstanceOf(NotLinearizable);
  expect(out.errorInstance.result.verdict).toBe('illegal');
});
