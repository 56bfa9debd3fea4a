// `interleave init <name>`: writes <name>.ts, a small spec to start from (a counter
// incremented by compare-and-swap, with a mutant and a symmetry), and <name>.test.ts, its
// vitest test. Never over an existing file without --force; both are checked before either
// is written. Exit 0 written, 64 a name that is not one, 73 a file exists or cannot be written.
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { Command } from 'commander';
import { EXIT, UsageError } from './exit.ts';
import { withHelp } from './help.ts';
import { checkOutputPath, writeOutput } from './output.ts';

export function specTemplate(name: string): string {
  return `// ${name}: a starting point for a spec of your own protocol (written by \`interleave init\`).
// N processes each add 1 to a shared counter: read it into a local, then compare-and-swap
// it from that value to value + 1, reading again when the swap fails.
//   npx interleave explore ./${name}.ts     every default config must hold
//   npx interleave mutants ./${name}.ts     every mutant must be killed
//   npx interleave check ./${name}.ts --full
// The contract (Machine, SpecDef) is documented in interleave's checkers/explore/README.md.
import type { Action, Machine, SpecDef } from 'interleave';

export interface Config {
  processes: number;
}

interface State {
  counter: number;
  pc: ('read' | 'cas' | 'done')[];
  local: number[];
}

interface Step extends Action {
  p: number;
}

/** Renames process i to perm[i]. */
function permute(s: State, perm: readonly number[]): State {
  const pc = s.pc.slice();
  const local = s.local.slice();
  perm.forEach((to, from) => {
    pc[to] = s.pc[from]!;
    local[to] = s.local[from]!;
  });
  return { counter: s.counter, pc, local };
}

export function machine(config: Config, variant?: string): Machine<State, Step> {
  const n = config.processes;
  return {
    init: () => [{ counter: 0, pc: Array(n).fill('read'), local: Array(n).fill(0) }],
    actionNames: ['read', 'cas'],
    actions: (s) => s.pc.flatMap((pc, p): Step[] => (pc === 'done' ? [] : [{ label: \`\${pc}(p\${p})\`, p }])),
    next(s, { p }) {
      const pc = s.pc.slice();
      const local = s.local.slice();
      let counter = s.counter;
      if (pc[p] === 'read') {
        local[p] = counter;
        pc[p] = 'cas';
      } else if (variant === 'blind-write' || counter === local[p]) {
        counter = local[p]! + 1;
        pc[p] = 'done';
      } else {
        pc[p] = 'read'; // the swap failed: read again
      }
      return { counter, pc, local };
    },
    invariants: {
      allCounted: (s) => (s.pc.every((pc) => pc === 'done') && s.counter !== n ? \`counter = \${s.counter} after \${n} increments\` : true),
    },
    mayStop: (s) => s.pc.every((pc) => pc === 'done'),
    symmetry: [{ name: 'processes', size: n, permute }],
  };
}

export const spec: SpecDef<Config> = {
  name: '${name}',
  title: 'A counter incremented by compare-and-swap',
  paper: 'your protocol: cite the section each action follows',
  configs: [
    { name: 'P2', description: '2 processes', config: { processes: 2 }, tier: 'default' },
    { name: 'P3', description: '3 processes', config: { processes: 3 }, tier: 'full' },
  ],
  mutants: [
    { name: 'blind-write', description: 'writes value + 1 without comparing', breaks: 'the compare of compare-and-swap', kind: 'safety', config: 'P2', expect: 'allCounted' },
  ],
  build: (config, variant) => machine(config, variant),
};

export default spec;
`;
}

export function testTemplate(name: string): string {
  return `// The spec's test (vitest): every default config holds, every safety mutant is killed.
import { describe, expect, it } from 'vitest';
import { exploreSync } from 'interleave/explore';
import { spec } from './${name}.js';

describe(spec.name, () => {
  for (const c of spec.configs.filter((c) => c.tier === 'default')) {
    it(\`holds at \${c.name}\`, () => {
      expect(exploreSync(spec.build(c.config), { symmetry: true }).status).toBe('holds');
    });
  }
  for (const m of spec.mutants.filter((m) => m.kind === 'safety')) {
    it(\`kills \${m.name}\`, () => {
      const config = spec.configs.find((c) => c.name === m.config)!;
      const r = exploreSync(spec.build(config.config, m.name));
      expect(r.violations.map((v) => v.property)).toContain(m.expect);
    });
  }
});
`;
}

/** Writes the two files; nothing is written unless both can be. */
export function runInit(target: string, out: (s: string) => void, force = false): number {
  const name = basename(target).replace(/\.ts$/, '');
  if (!/^[A-Za-z][\w-]*$/.test(name)) throw new UsageError(`a spec name is a letter then letters, digits, - or _ (it names the files ${'<name>'}.ts and ${'<name>'}.test.ts), not ${JSON.stringify(name)}`);
  const dir = dirname(target);
  const files = [
    { path: join(dir, `${name}.ts`), text: specTemplate(name) },
    { path: join(dir, `${name}.test.ts`), text: testTemplate(name) },
  ];
  const guard = { inputs: [], force };
  for (const f of files) checkOutputPath(f.path, guard);
  for (const f of files) {
    writeOutput(f.path, f.text, guard);
    out(`wrote ${f.path}\n`);
  }
  const spec = join(dir, `${name}.ts`);
  out(`next: npx interleave explore ${isAbsolute(spec) ? spec : `./${spec}`} (it needs the package installed: npm install interleave)\n`);
  return EXIT.holds;
}

export function register(program: Command): void {
  const command = program
    .command('init <name>')
    .description('write <name>.ts, a small spec to start from, and <name>.test.ts, its vitest test (never over existing files without --force)')
    .option('--force', 'replace existing <name>.ts and <name>.test.ts')
    .action((name: string, o: { force?: boolean }) => {
      process.exitCode = runInit(name, (s) => process.stdout.write(s), o.force === true);
    });
  withHelp(command, {
    examples: [
      ['interleave init my-protocol', 'writes my-protocol.ts and my-protocol.test.ts here'],
      ['interleave init specs/raft-log', 'the same, in specs/ (which must exist)'],
    ],
    exitCodes: { 0: 'both files written', 73: 'a file exists already and --force was not given (nothing is written), or cannot be written' },
  });
}
