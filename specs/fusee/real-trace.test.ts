// Corruptions of a REAL trace (fixtures/run-kill-client.jsonl, recorded once from
// `interleave run fusee`: see fixtures/README.md), each rejected with the right diagnosis:
// a step dropped, two dependent steps swapped, a value changed, a step attributed to the
// wrong process, a truncated or a malformed line. The uncorrupted trace validates.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError, validateFiles, validateMemory, type ValidateResult } from '../../checkers/validate/index.ts';
import { fuseeTrace } from './trace.ts';

const spec = { name: 'fusee', trace: fuseeTrace };
type Line = Record<string, any>;
const FIXTURE = new URL('./fixtures/run-kill-client.jsonl', import.meta.url);
const text = readFileSync(FIXTURE, 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'fusee-real-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The fixture as a header and events (fresh copies: each test corrupts its own). */
function load(): { header: Line; events: Line[] } {
  const [h, ...rest] = text.trimEnd().split('\n');
  return { header: JSON.parse(h) as Line, events: rest.map((l) => JSON.parse(l) as Line) };
}
const validate = (t: { header: Line; events: Line[] }): ValidateResult => validateMemory([{ name: 'trace.jsonl', lines: [t.header, ...t.events] }], spec);
/** Renumbers one process's seqs 1, 2, 3, ... in the order its events stand. */
const renumber = (events: Line[], proc: string): void => {
  let n = 0;
  for (const e of events) if (e.proc === proc) e.seq = ++n;
};
/** A completed write of a client (not a redo): its commitLog and casPrimary, adjacent in its sequence. */
function winnerWrite(events: Line[], nth = 3): { commit: Line; cas: Line } {
  const found: { commit: Line; cas: Line }[] = [];
  const byProc = new Map<string, Line[]>();
  for (const e of events) if (/^c\d+$/.test(e.proc)) byProc.set(e.proc, [...(byProc.get(e.proc) ?? []), e]);
  for (const list of byProc.values()) {
    for (let i = 0; i + 1 < list.length; i++) if (list[i].action === 'commitLog' && list[i + 1].action === 'casPrimary' && list[i + 1].args.prior === list[i + 1].args.expected) found.push({ commit: list[i], cas: list[i + 1] });
  }
  found.sort((a, b) => a.commit.time - b.commit.time);
  return found[nth];
}

describe('a real trace (interleave run fusee --nemesis kill-client)', () => {
  it('validates as recorded', () => {
    const r = validate(load());
    expect(r.verdict).toBe('valid');
    expect(r.events).toBeGreaterThan(1000);
    expect(r.processes).toBeGreaterThan(4);
  });

  it('a step dropped (commitLog, the seqs renumbered): the primary CAS is not enabled, the client has not committed', () => {
    const t = load();
    const { commit, cas } = winnerWrite(t.events);
    t.events.splice(t.events.indexOf(commit), 1);
    renumber(t.events, commit.proc);
    const r = validate(t);
    expect(r.verdict).toBe('invalid');
    expect(r.failure!.event).toMatchObject({ proc: cas.proc, seq: commit.seq, action: 'casPrimary' });
    expect(r.failure!.why).toMatchObject({ kind: 'guard', step: `casPrimary(${cas.proc})` });
    expect((r.failure!.why as { message: string }).message).toMatch(new RegExp(`^${cas.proc} is at W5 \\(to commit its log\\), not W6`));
  });

  it('two dependent steps swapped (the primary CAS before the log commit)', () => {
    const t = load();
    const { commit, cas } = winnerWrite(t.events, 5);
    const [i, j] = [t.events.indexOf(commit), t.events.indexOf(cas)];
    [t.events[i], t.events[j]] = [cas, commit];
    [commit.seq, cas.seq] = [cas.seq, commit.seq];
    const r = validate(t);
    expect(r.verdict).toBe('invalid');
    expect(r.failure!.event).toMatchObject({ proc: cas.proc, seq: cas.seq, action: 'casPrimary' });
    expect(r.failure!.why).toMatchObject({ kind: 'guard' });
    expect((r.failure!.why as { message: string }).message).toMatch(/is at W5 \(to commit its log\), not W6/);
  });

  it('a value changed (the value a primary read returned): the reported and the actual value are named', () => {
    const t = load();
    const read = t.events.filter((e) => /^c\d+$/.test(e.proc) && e.action === 'readPrimary' && typeof e.args.result === 'number')[40];
    const truth = read.args.result as number;
    read.args.result = truth + 1;
    const r = validate(t);
    expect(r.verdict).toBe('invalid');
    expect(r.failure!.event).toMatchObject({ proc: read.proc, seq: read.seq, action: 'readPrimary' });
    expect(r.failure!.why).toMatchObject({ kind: 'observed', field: 'args.result', expected: truth + 1, actual: truth, what: `${read.obj as string}'s value` });
  });

  it('a step attributed to the wrong process (a backup CAS moved to another client)', () => {
    const t = load();
    const cas = t.events.filter((e) => /^c\d+$/.test(e.proc) && e.action === 'casBackup')[60];
    const from = cas.proc as string;
    const to = t.events.find((e) => /^c\d+$/.test(e.proc) && e.proc !== from && e.time > cas.time)!.proc as string;
    t.events.splice(t.events.indexOf(cas), 1);
    renumber(t.events, from);
    cas.proc = to;
    // where the other client stood at that time, so that only the process is wrong
    const at = t.events.findIndex((e) => e.proc === to && e.time > cas.time);
    t.events.splice(at, 0, cas);
    renumber(t.events, to);
    const r = validate(t);
    expect(r.verdict).toBe('invalid');
    // the CAS is not the other client's: it was not CASing a backup then, or its own write has another v_new
    const tried = r.failure!.candidates.flatMap((c) => c.attempts).find((a) => a.event.proc === to && a.event.action === 'casBackup' && a.event.seq === cas.seq);
    const failedAt = r.failure!.event.proc === to && r.failure!.event.seq === cas.seq;
    expect(tried !== undefined || failedAt).toBe(true);
    const why = failedAt ? r.failure!.why : tried!.tries[0].why;
    if (why.kind === 'guard') expect(why.message).toMatch(new RegExp(`^${to} is at \\w+ \\(.*\\), not W2 \\(CASing the backups`));
    else expect(why).toMatchObject({ kind: 'observed', field: expect.stringMatching(/^args\.(swap|expected)$/) });
  });

  it('a truncated last line and a malformed line: bad input naming the file and the line', async () => {
    const lines = text.trimEnd().split('\n');
    const cut = join(dir, 'truncated.jsonl');
    writeFileSync(cut, `${lines.slice(0, 500).join('\n')}\n${lines[500].slice(0, 40)}`);
    let e = await validateFiles([cut], spec).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InputError);
    expect([(e as InputError).file, (e as InputError).line]).toEqual([cut, 501]);
    const bad = join(dir, 'malformed.jsonl');
    writeFileSync(bad, `${[...lines.slice(0, 300), lines[300].replace(/"result":(\d+)/, '"result":$1,,'), ...lines.slice(301)].join('\n')}\n`);
    e = await validateFiles([bad], spec).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InputError);
    expect([(e as InputError).file, (e as InputError).line]).toEqual([bad, 301]);
  });
});
