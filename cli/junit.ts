// JUnit XML, the report CI systems read (Jenkins, GitLab, GitHub Actions reporters): one
// <testsuite> per group, one <testcase> per config, mutant or history, with a <failure>
// when it did not give its expected outcome. Every value is escaped.

export interface JunitCase {
  /** Shown as the case's class (the spec). */
  classname: string;
  name: string;
  seconds: number;
  /** Absent when the case passed. */
  failure?: { message: string; details?: string };
  /** Shown with the case (counts, the property that killed a mutant). */
  output?: string;
}

export interface JunitSuite {
  name: string;
  cases: readonly JunitCase[];
}

/** Text as XML character data or attribute value; characters XML 1.0 cannot hold are dropped. */
export function xmlEscape(s: string): string {
  return s
    .replace(/[^\t\n\r\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function junitXml(name: string, suites: readonly JunitSuite[]): string {
  const a = xmlEscape;
  const time = (s: number) => s.toFixed(3);
  const total = (f: (s: JunitSuite) => number) => suites.reduce((n, s) => n + f(s), 0);
  const failures = (s: JunitSuite) => s.cases.filter((c) => c.failure).length;
  const seconds = (s: JunitSuite) => s.cases.reduce((n, c) => n + c.seconds, 0);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${a(name)}" tests="${total((s) => s.cases.length)}" failures="${total(failures)}" errors="0" time="${time(total(seconds))}">`];
  for (const s of suites) {
    lines.push(`  <testsuite name="${a(s.name)}" tests="${s.cases.length}" failures="${failures(s)}" errors="0" skipped="0" time="${time(seconds(s))}">`);
    for (const c of s.cases) {
      const head = `    <testcase classname="${a(c.classname)}" name="${a(c.name)}" time="${time(c.seconds)}"`;
      if (!c.failure && c.output === undefined) {
        lines.push(`${head}/>`);
        continue;
      }
      lines.push(`${head}>`);
      if (c.failure) lines.push(`      <failure message="${a(c.failure.message)}">${a(c.failure.details ?? c.failure.message)}</failure>`);
      if (c.output !== undefined) lines.push(`      <system-out>${a(c.output)}</system-out>`);
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
