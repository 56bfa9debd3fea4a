// The package from plain Node ESM: every documented entry point imports, a spec explores
// (on this thread and on worker threads), a history checks (also on worker threads).
import assert from 'node:assert/strict';
import * as main from 'interleave';
import { explore, exploreSync } from 'interleave/explore';
import { checkHistory, checkHistorySync, findModel, models } from 'interleave/lin';
import { importHistoryText, toOperationLines } from 'interleave/traces';
import { counterexampleToItf, renderExploreText, renderLinText } from 'interleave/report';
import { EnvelopeSchema } from 'interleave/cli';
import { counter } from './counter.mjs';

assert.equal(main.exploreSync, exploreSync);
assert.equal(main.checkHistory, checkHistory);

const r = exploreSync(counter());
assert.equal(r.status, 'violation');
assert.deepEqual(r.violations[0].steps.map((s) => s.action.label), ['read(p0)', 'read(p1)', 'write(p0)', 'write(p1)']);
assert.match(renderExploreText(r, 'counter'), /noLostUpdate/);
assert.equal(counterexampleToItf(r.violations[0])['#meta'].format, 'ITF');

const parallel = await explore({ module: new URL('./counter.mjs', import.meta.url).href, export: 'counter', args: [3] }, { workers: 2 });
const single = exploreSync(counter(3));
assert.equal(parallel.workers, 2);
assert.deepEqual([parallel.status, parallel.states, parallel.transitions], [single.status, single.states, single.transitions]);

const history = importHistoryText(
  ['{"client": 0, "input": {"f": "write", "value": 1}, "call": 0, "return": 1}', '{"client": 1, "input": {"f": "read"}, "output": 0, "call": 2, "return": 3}'].join('\n'),
  'stale.jsonl',
  { model: 'register' },
);
const byName = await checkHistory('register', history.operations);
const byObject = checkHistorySync(models.register, history.operations);
assert.equal(byName.verdict, 'illegal');
assert.equal(byObject.verdict, 'illegal');
assert.match(renderLinText(byName, history.operations, 'register'), /NOT linearizable/);
assert.match(toOperationLines(history.operations), /"write"/);

const keys = [0, 1, 2, 3].flatMap((k) => [
  { client: k, input: { f: 'write', key: String(k), value: k }, call: 10 * k, ret: 10 * k + 1 },
  { client: k, input: { f: 'read', key: String(k) }, output: k, call: 10 * k + 2, ret: 10 * k + 3 },
]);
const independent = await checkHistory('independent:register', keys, { workers: 2 });
assert.equal(independent.verdict, 'ok');
assert.equal(independent.partitions.length, 4);
assert.equal(findModel('independent:register'), findModel('independent:register'));

assert.equal(EnvelopeSchema.safeParse({ command: 'x', version: '1', exitCode: 0, elapsedMs: 1, result: null }).success, true);
console.log('esm consumer: ok');
