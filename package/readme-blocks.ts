// The fenced code blocks of the repository's READMEs (test support: package/readme-examples.test.ts
// runs them, package/consumer.test.ts type-checks the TypeScript ones against the packed package).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const ROOT = join(import.meta.dirname, '..');

export interface Block {
  /** The README, relative to the repository. */
  file: string;
  /** The line of the opening fence. */
  line: number;
  lang: string;
  text: string;
}

function readmes(dir = ROOT): string[] {
  const found: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.') || e.name === 'node_modules' || e.name === 'dist') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) found.push(...readmes(p));
    else if (e.name === 'README.md') found.push(p);
  }
  return found.sort();
}

function blocksOf(file: string): Block[] {
  const out: Block[] = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && !/^```\s*$/.test(lines[i]!)) body.push(lines[i]!);
    out.push({ file: relative(ROOT, file), line: start + 1, lang: open[1]!, text: body.join('\n') });
  }
  return out;
}

/** Every README's code blocks, in path order. */
export function readmeBlocks(): Block[] {
  return readmes().flatMap(blocksOf);
}
