// The package from strict TypeScript (skipLibCheck off): the declarations of every entry
// point type-check, and a spec written against the contract compiles. (interleave/cli, whose
// zod schemas make zod's declarations part of the check, is in cli.ts.)
import { exploreSync, type ExploreResult, type Machine, type SpecDef } from 'interleave/explore';
import { checkHistorySync, type LinResult, type Model, type Operation } from 'interleave/lin';
import { importHistoryText, type ImportedHistory } from 'interleave/traces';
import { renderLinHtml } from 'interleave/report';
import { spec as template } from './my-proto.js';

interface State {
  n: number;
}

const machine: Machine<State> = {
  init: () => [{ n: 0 }],
  actions: (s) => (s.n < 3 ? [{ label: 'inc' }] : []),
  next: (s) => ({ n: s.n + 1 }),
  invariants: { small: (s) => (s.n <= 3 ? true : `n = ${s.n}`) },
};

export const spec: SpecDef<{ limit: number }> = {
  name: 'tiny',
  title: 'tiny',
  paper: '-',
  configs: [{ name: 'one', description: 'one', config: { limit: 3 }, tier: 'default' }],
  mutants: [],
  build: () => machine,
};

const explored: ExploreResult = exploreSync(spec.build({ limit: 3 }));
const register: Model = { name: 'mine', init: () => 0, step: (s: number, input: { f: string; value?: number }, out: unknown) => (input.f === 'write' ? { ok: true, state: input.value ?? s } : { ok: out === s, state: s }) };
const ops: Operation[] = [{ client: 0, input: { f: 'write', value: 1 }, call: 0, ret: 1 }];
const checked: LinResult = checkHistorySync(register, ops);
const imported: ImportedHistory = importHistoryText('{"client": 0, "input": {"f": "write", "value": 1}, "call": 0, "return": 1}', 'h.jsonl', { model: 'register' });
const html: string = renderLinHtml(checked, imported.operations, 'register');

export const results = [explored.status, checked.verdict, html.length, template.name] as const;
