import { describe, expect, it } from 'vitest';
import { checkHistorySync, models } from '../lin/index.ts';
import { UNKNOWN, type Operation } from '../lin/types.ts';
import { renderLinHtml } from './lin-html.ts';
import { renderLinText } from './lin-text.ts';

const op = (client: number, input: unknown, call: number, ret?: number, output?: unknown): Operation =>
  ret === undefined ? { client, input, call } : { client, input, call, ret, output };

describe('renderLinText', () => {
  it('explains an illegal history in the model words', () => {
    const history = [
      op(0, { f: 'write', value: 1 }, 0, 1, null),
      op(1, { f: 'read' }, 2, 5, 1),
      op(2, { f: 'read' }, 3, 4, 2),
    ];
    const text = renderLinText(checkHistorySync('register', history), history, 'register');
    expect(text).toContain('verdict:    NOT linearizable');
    expect(text).toContain('operations: 3 in 1 partition (1 illegal)');
    expect(text).toContain('Longest partial linearization: 2 of 3 operations.');
    expect(text).toMatch(/1\. #0 client 0: write\(1\)\s+\[0, 1\]\n\s+state: 1\n/);
    expect(text).toMatch(/2\. #1 client 1: read\(\) -> 1/);
    expect(text).toMatch(/After it, none of these leads to a linearization:\n\s+#2 client 2: read\(\) -> 2 {2}\[3, 4\]/);
  });

  it('writes a client name with a control character (C0, DEL, C1) escaped, any other as it is', () => {
    const history: Operation[] = [
      { client: 'a\u001b[31mRED', input: { f: 'write', value: 1 }, call: 0, ret: 1, output: null },
      { client: 'b\u009b2J\u007f', input: { f: 'write', value: 2 }, call: 2, ret: 3, output: null },
      { client: 'c d', input: { f: 'read' }, call: 4, ret: 5, output: 3 },
    ];
    const text = renderLinText(checkHistorySync('register', history), history, 'register');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain('#0 client "a\\u001b[31mRED": write(1)');
    expect(text).toContain('#1 client "b\\u009b2J\\u007f": write(2)');
    expect(text).toContain('#2 client c d: read() -> 3');
  });

  it('gives the model\'s proof when it has one', () => {
    const history = [
      op(0, { f: 'enqueue', value: 1 }, 0, 1, null),
      op(1, { f: 'dequeue' }, 2, 3, 1),
      op(1, { f: 'dequeue' }, 4, 5, 1),
    ];
    const text = renderLinText(checkHistorySync('queue', history), history, 'queue');
    expect(text).toContain('No linearization can include #2 client 1: dequeue() -> 1  [4, 5]: by its return 2 dequeues returned 1, which only 1 enqueue had been called to put in the queue.');
  });

  it('lists stuck indeterminate operations apart: they need not have happened', () => {
    const history = [op(0, { f: 'write', value: 1 }, 0, 1, null), op(1, { f: 'write', value: 5 }, 2), op(2, { f: 'read' }, 3, 4, 2)];
    const text = renderLinText(checkHistorySync('register', history), history, 'register');
    expect(text).toContain('Longest partial linearization: 1 of 3 operations.');
    expect(text).toMatch(/After it, none of these leads to a linearization:\n\s+#2 client 2: read\(\) -> 2/);
    expect(text).toContain('Nor does any of these indeterminate operations taking effect here (each may also never have): #1');
  });

  it('does not say a crashed write could not come next: it can, and leads nowhere (review round 2, defect 2)', () => {
    // write(1) [0, 2]; crashed write(5) called at 1; read -> 3 [3, 4]; write(2) [3, 6]: #1 fits after [#0, #3].
    const history = [op(0, { f: 'write', value: 1 }, 0, 2, null), op(1, { f: 'write', value: 5 }, 1), op(2, { f: 'read' }, 3, 4, 3), op(3, { f: 'write', value: 2 }, 3, 6, null)];
    const result = checkHistorySync('register', history);
    const p = result.partitions[0];
    expect(p.stuck).toContain(1);
    const longest = (p.longest?.[0] ?? []).map((i) => history[i]);
    // The step of #1 after the longest prefix is legal: "could not be linearized next" would be false.
    let s = models.register.init();
    for (const o of longest) s = (models.register.step(s, o.input, o.output) as { state: unknown }).state;
    expect(models.register.step(s, history[1].input, UNKNOWN).ok).toBe(true);
    const text = renderLinText(result, history, 'register');
    expect(text).not.toMatch(/could not be linearized next|None of these could/);
    expect(text).toMatch(/After it, none of these leads to a linearization:\n\s+#2 client 2: read\(\) -> 3/);
    expect(text).toContain('Nor does any of these indeterminate operations taking effect here (each may also never have): #1');
    const html = renderLinHtml(result, history, 'register');
    expect(html).not.toContain('could not be linearized next');
    expect(html).toContain('<h3>After it, none of these leads to a linearization</h3>');
    expect(html).toMatch(/#1, client 1; indeterminate: taking effect here \(or never\) does not help either/);
  });

  it('names the partition of a partitioned history', () => {
    const history = [
      op(0, { f: 'put', key: 'a', value: 'x' }, 0, 1, null),
      op(1, { f: 'put', key: 'b', value: 'y' }, 0, 1, null),
      op(1, { f: 'get', key: 'b' }, 2, 3, 'z'),
    ];
    const text = renderLinText(checkHistorySync('kv-append', history), history, 'kv-append');
    expect(text).toContain('Partition 1 (2 operations) has no linearization.');
    expect(text).toContain('#2 client 1: get("b") -> "z"');
    expect(text).toContain('state: "y"');
  });

  it('says when the time ran out, and names a failing model operation', () => {
    const history = [op(0, { f: 'frobnicate' }, 0, 1, null)];
    const text = renderLinText(checkHistorySync('register', history), history, 'register');
    expect(text).toContain('verdict:    unknown (inconclusive)');
    expect(text).toContain('The model failed on operation #0 client 0');
    expect(text).toContain('register: unknown operation "frobnicate"');
  });

  it('an ok history is a short summary', () => {
    const history = [op(0, { f: 'write', value: 1 }, 0, 1, null)];
    const text = renderLinText(checkHistorySync('register', history), history, 'register');
    expect(text.split('\n').filter(Boolean)).toHaveLength(4);
    expect(text).toContain('verdict:    linearizable');
  });
});
