// Corruptions of a REAL trace (fixtures/run-power-strict.jsonl, recorded once from
// `interleave run minos --model strict --nemesis power`: see fixtures/README.md), each
// rejected with the right diagnosis: a step dropped, two dependent steps swapped, a value
// read changed, a message received by the wrong node, a recovery that restored another
// version, a restarted node ordered before the crash, a truncated or malformed line. The
// uncorrupted trace validates.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError, validateFiles, validateMemory, type ValidateResult } from '../../checkers/validate/index.ts';
import { minosTrace } from './trace.ts';

const spec = { name: 'minos', trace: minosTrace };
type Line = Record<string, any>;
const text = readFileSync(new URL('./fixtures/run-power-strict.jsonl', import.meta.url), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'minos-real-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function load(): { header: Line; events: Line[] } {
  const [h, ...rest] = text.trimEnd().split('\n');
  return { header: JSON.parse(h) as Line, events: rest.map((l) => JSON.parse(l) as Line) };
}
const validate = (t: { header: Line; events: Line[] }): ValidateResult => validateMemory([{ name: 'trace.jsonl', lines: [t.header, ...t.events] }], spec);
const renumber = (events: Line[], proc: string): void => {
  let n = 0;
  for (const e of events) if (e.proc === proc) e.seq = ++n;
};
/** The nth event of `action` on node n1 (before the crash). */
const nth = (events: Line[], action: string, i: number, pred: (e: Line) => boolean = () => true): Line => events.filter((e) => e.proc === 'n1' && e.action === action && pred(e))[i];
const message = (r: ValidateResult): string => {
  const w = r.failure!.why;
  return w.kind === 'observed' ? `${w.field} ${JSON.stringify(w.expected)} ${JSON.stringify(w.actual)}` : w.message;
};

describe('a real trace (interleave run minos --model strict --nemesis power)', () => {
  it('validates as recorded: every key, across the power failure', () => {
    const r = validate(load());
    expect(r.verdict).toBe('valid');
    expect(r.events).toBeGreaterThan(1000);
    expect(r.partitions).toBe(2);
    expect(r.processes).toBe(7);
  });

  it('a step dropped (a coordinator snatchRDLock_L8): its local write finds the thread still at Line 8', () => {
    const t = load();
    const snatch = nth(t.events, 'snatchRDLock_L8', 12);
    const next = t.events.find((e) => e.proc === 'n1' && e.seq > snatch.seq && e.action === 'localWrite_L9_16' && e.args.ts === snatch.args.ts)!;
    t.events.splice(t.events.indexOf(snatch), 1);
    renumber(t.events, 'n1');
    const r = validate(t);
    expect(r.verdict).toBe('invalid');
    expect(r.failure!.event).toMatchObject({ proc: 'n1', action: 'localWrite_L9_16', seq: next.seq });
    expect(r.failure!.why).toMatchObject({ kind: 'guard' });
    expect(message(r)).toMatch(/the thread is at snatch, not local/);
  });

  it("two dependent steps swapped (the coordinator's persist_L18 before its local write)", () => {
    const t = load();
    const local = nth(t.events, 'localWrite_L9_16', 8, (e) => e.args.obsolete === false);
    const persist = t.events.find((e) => e.proc === 'n1' && e.seq > local.seq && e.action === 'persist_L18' && e.args.ts === local.args.ts)!;
    // the persist line takes the local write's place; the local write (with its INV sends) follows it
    const i = t.events.indexOf(local);
    t.events.splice(t.events.indexOf(persist), 1);
    t.events.splice(i, 0, persist);
    renumber(t.events, 'n1');
    const r = validate(t);
    expect(r.verdict).toBe('invalid');
    expect(r.failure!.event).toMatchObject({ proc: 'n1', action: 'persist_L18', seq: persist.seq });
    expect(message(r)).toMatch(/the thread is at local, not persist/);
  });

  it('a value read changed: the reported and the spec value are named', () => {
    const t = load();
    const reads = t.events.filter((e) => e.proc === 'n1' && e.action === 'read' && e.args.v !== null);
    const read = reads[6];
    const other = t.events.find((e) => e.action === 'clientWrite_L4' && e.args.key === read.args.key && e.args.v !== read.args.v)!.args.v as string;
    read.args.v = other;
    const r = validate(t);
    expect(r.verdict).toBe('invalid');
    expect(r.failure!.event).toMatchObject({ proc: 'n1', seq: read.seq, action: 'read' });
    expect(r.failure!.why).toMatchObject({ kind: 'observed', field: 'args.v', raw: other, what: `${read.args.key as string}'s value at B` });
  });

  it('a message received by the wrong node (an INV to n1 logged by n2): no such INV is in flight', () => {
    const t = load();
    const inv = nth(t.events, 'recvINV', 12, (e) => e.args.from === 0);
    const at = t.events.findIndex((e) => e.proc === 'n2' && e.time > inv.time);
    // n1's whole follower thread for that INV moves to n2
    const thread = t.events.filter((e) => e.proc === 'n1' && e.seq >= inv.seq && e.args?.key === inv.args.key && e.args?.ts === inv.args.ts);
    for (const e of thread) t.events.splice(t.events.indexOf(e), 1);
    renumber(t.events, 'n1');
    for (const e of thread) e.proc = 'n2';
    t.events.splice(at, 0, ...thread);
    renumber(t.events, 'n2');
    const r = validate(t);
    expect(r.verdict).toBe('invalid');
    const attempts = [r.failure!, ...r.failure!.candidates.flatMap((c) => c.attempts.map((a) => ({ event: a.event, why: a.tries[0].why })))];
    const hit = attempts.find((a) => a.event.proc === 'n2' && a.event.action === 'recvINV' && a.event.args?.ts === inv.args.ts);
    expect(hit, JSON.stringify(r.failure!.why)).toBeDefined();
    expect(hit!.why).toMatchObject({ kind: 'denote' });
    expect((hit!.why as { message: string }).message).toMatch(/^no INV k\d <\d+,A> from A to C is in flight in the spec/);
  });

  it('a recovery that restored another version than the logs hold', () => {
    const t = load();
    const rec = t.events.find((e) => e.proc === 'n1.2' && e.action === 'recover')!;
    const truth = rec.args.table.k0 as number;
    rec.args.table.k0 = truth - 8;
    const r = validate(t);
    expect(r.verdict).toBe('invalid');
    expect(r.failure!.partition).toBe('k0');
    expect(r.failure!.event).toMatchObject({ proc: 'n1.2', action: 'recover' });
    expect(r.failure!.why).toMatchObject({ kind: 'observed', field: 'args.table.k0', expected: truth - 8, actual: truth });
  });

  it("a recovery table naming a key the run does not have: bad input naming the line, not ignored (review3 defect 9)", () => {
    for (const stranger of ['k9', 'bogus', 'k01', 'constructor']) {
      const t = load();
      const at = t.events.findIndex((e) => e.proc === 'n1.2' && e.action === 'recover');
      t.events[at].args.table[stranger] = 17;
      const e = (() => {
        try {
          validate(t);
        } catch (x) {
          return x;
        }
        return undefined;
      })();
      expect(e, stranger).toBeInstanceOf(InputError);
      expect((e as InputError).line).toBe(at + 2);
      expect((e as InputError).message).toContain(`args.table: keys k0..k${t.header.params.keys - 1}, not ${JSON.stringify(stranger)} (recover)`);
    }
  });

  it('a truncated last line and a malformed line: bad input naming the file and the line', async () => {
    const lines = text.trimEnd().split('\n');
    const cut = join(dir, 'truncated.jsonl');
    writeFileSync(cut, `${lines.slice(0, 400).join('\n')}\n${lines[400].slice(0, 40)}`);
    let e = await validateFiles([cut], spec).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InputError);
    expect([(e as InputError).file, (e as InputError).line]).toEqual([cut, 401]);
    const bad = join(dir, 'malformed.jsonl');
    const at = lines.findIndex((l, i) => i > 200 && l.includes('"recvINV"'));
    writeFileSync(bad, `${[...lines.slice(0, at), lines[at].replace('"from":', '"from_":'), ...lines.slice(at + 1)].join('\n')}\n`);
    e = await validateFiles([bad], spec).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InputError);
    expect([(e as InputError).file, (e as InputError).line]).toEqual([bad, at + 1]);
    expect((e as InputError).message).toMatch(/args\.from: the sending node/);
  });
});
