import { describe, expect, it } from 'vitest';
import { exploreSync } from './index.ts';
import { counterexampleToItf, toItf } from './itf.ts';
import { racyCounter } from './fixtures/racy-counter.ts';

describe('ITF export', () => {
  it('writes a counterexample as an ITF trace', () => {
    const [c] = exploreSync(racyCounter(2, 1, { lostUpdateIsBug: true })).violations;
    const itf = counterexampleToItf(c);
    expect(itf.vars).toEqual(['x', 'step', 't', 'done', 'mbt::actionTaken']);
    expect(itf.states).toHaveLength(5);
    expect(itf.states[0]).toEqual({
      '#meta': { index: 0 },
      x: { '#bigint': '0' },
      step: [{ '#bigint': '0' }, { '#bigint': '0' }],
      t: [{ '#bigint': '0' }, { '#bigint': '0' }],
      done: [{ '#bigint': '0' }, { '#bigint': '0' }],
      'mbt::actionTaken': 'init',
    });
    expect(itf.states[4]['mbt::actionTaken']).toBe('p1.write');
    expect(itf.states[4].x).toEqual({ '#bigint': '1' });
    for (const s of itf.states) for (const v of itf.vars) expect(s).toHaveProperty([v]);
    expect(JSON.parse(JSON.stringify(itf))).toEqual(itf);
  });

  it('encodes sets, maps, tuples of any value and keeps record fields off #', () => {
    expect(toItf(new Set([1]))).toEqual({ '#set': [{ '#bigint': '1' }] });
    expect(toItf(new Map([['a', true]]))).toEqual({ '#map': [['a', true]] });
    expect(toItf(1.5)).toEqual({ '#unserializable': '1.5' });
    expect(toItf(10n ** 30n)).toEqual({ '#bigint': '1000000000000000000000000000000' });
    expect(Object.keys(toItf(JSON.parse('{"#x":1,"__proto__":2}')) as object)).toEqual(['_#x', '__proto__']);
  });
});
