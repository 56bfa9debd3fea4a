// JUnit XML (what CI systems read) and terminal progress (only on a terminal).
import { describe, expect, it } from 'vitest';
import { junitXml, xmlEscape } from './junit.ts';
import { progressLine, terminalProgress } from './progress.ts';

describe('junitXml', () => {
  it('one testcase per case, failures counted per suite and in total, every value escaped', () => {
    const xml = junitXml('interleave check', [
      { name: 'configs', cases: [{ classname: 'proto', name: 'config P2', seconds: 0.25, output: 'holds; 12 states' }] },
      { name: 'mutants', cases: [{ classname: 'proto', name: 'mutant <a&"b">', seconds: 1, failure: { message: "survived: it's 'x' < y" } }, { classname: 'proto', name: 'ok', seconds: 0 }] },
    ]);
    expect(xml).toContain('<testsuites name="interleave check" tests="3" failures="1" errors="0" time="1.250">');
    expect(xml).toContain('<testsuite name="mutants" tests="2" failures="1" errors="0" skipped="0" time="1.000">');
    expect(xml).toContain('<testcase classname="proto" name="mutant &lt;a&amp;&quot;b&quot;&gt;" time="1.000">');
    expect(xml).toContain('<failure message="survived: it&apos;s &apos;x&apos; &lt; y">');
    expect(xml).toContain('<testcase classname="proto" name="ok" time="0.000"/>');
    expect(xml).toContain('<system-out>holds; 12 states</system-out>');
    expect(xmlEscape('a\u0000b\u0007c\ud800d')).toBe('abcd');
  });
});

describe('terminalProgress', () => {
  const stream = (isTTY: boolean) => {
    const written: string[] = [];
    return { isTTY, written, write: (s: string) => written.push(s) };
  };
  const p = { states: 1234, transitions: 5678, depth: 7, queue: 90, elapsedMs: 500 };

  it('draws one line in place on a terminal, prefixed by what is being done, and erases it', () => {
    const s = stream(true);
    const progress = terminalProgress(s);
    progress.doing('[2/5] proto/blind-write');
    progress.onProgress!(p as never);
    progress.done();
    progress.done();
    expect(s.written).toEqual(['\r\x1b[K[2/5] proto/blind-write: starting', `\r\x1b[K[2/5] proto/blind-write: ${progressLine(p as never)}`, '\r\x1b[K']);
    expect(progressLine(p as never)).toBe('1,234 distinct, 5,678 transitions, depth 7, queue 90, 2,468 states/s');
  });

  it('writes nothing when the stream is not a terminal', () => {
    const s = stream(false);
    const progress = terminalProgress(s);
    expect(progress.onProgress).toBeUndefined();
    progress.doing('x');
    progress.done();
    expect(s.written).toEqual([]);
  });
});
