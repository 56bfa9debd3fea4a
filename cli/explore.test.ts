import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parallelBfs } from '../checkers/explore/parallel.ts';
import { exploreSync } from '../checkers/explore/index.ts';
import { importModule } from '../checkers/explore/load.ts';
import { specs } from '../specs/index.ts';
import { runInProcess } from './in-process.ts';
import { specTarget } from './spec-machine.ts';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', main, ...args], { encoding: 'utf8', timeout: 60_000 });

describe('interleave explore / list / mutants', () => {
  it('rejects unknown specs, configs and conflicting strategies with exit 64', async () => {
    const r = run('explore', 'no-such-spec');
    expect(r.status).toBe(64);
    expect(r.stderr).toMatch(/unknown spec "no-such-spec"/);
    // the other usage errors through the same command in this process (a real process costs a tsx start)
    if (specs.length > 0) {
      expect((await runInProcess('explore', specs[0].name, '--config', 'no-such-config')).code).toBe(64);
      expect((await runInProcess('explore', specs[0].name, '--bfs', '--dfs')).code).toBe(64);
    }
    expect((await runInProcess('mutants', 'no-such-spec')).code).toBe(64);
  }, 60_000);

  it('lists specs and models', () => {
    const r = run('list');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/models \(interleave lin/);
    for (const s of specs) expect(r.stdout).toContain(`${s.name}:`);
  }, 60_000);

  it.runIf(specs.length > 0)('reports a state budget as inconclusive (exit 2) in JSON', () => {
    const spec = specs[0];
    const config = spec.configs.find((c) => c.tier === 'default')!.name;
    const r = run('explore', spec.name, '--config', config, '--max-states', '5', '--json');
    expect(r.status).toBe(2);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ command: 'explore', exitCode: 2, result: { spec: spec.name, runs: [{ config, result: { status: 'incomplete', states: 5 } }] } });
  }, 60_000);
});

describe('a bundled spec\'s target', () => {
  // Worker threads and processes build their machines from the target: its export must be
  // the spec itself (a SpecDef target, so that it can carry build options).
  it('names the spec as an export of specs/index.ts, for every bundled spec', async () => {
    for (const def of specs) {
      const t = specTarget(def.name, def.configs[0].name);
      expect((await importModule(t.module))[t.export]).toBe(def);
    }
  });
});

describe('--workers over words only one process can read', () => {
  // swarm's Safe-Guess configs on words number their ghost's values as met (and the monitor
  // numbers its states): another thread's build would read those numbers as other values.
  it('runs on one thread with a note, with the counts of one thread, monitor on and off', async () => {
    const def = specs.find((d) => d.name === 'swarm')!;
    for (const linearizability of [undefined, 'off'] as const) {
      const options = linearizability === undefined ? {} : { linearizability };
      const r = await parallelBfs(specTarget('swarm', 'sg-n1'), { ...options, workers: 2 });
      const one = exploreSync(def.build(def.configs.find((c) => c.name === 'sg-n1')!.config), options);
      expect([r.status, r.states, r.transitions, r.depth]).toEqual([one.status, one.states, one.transitions, one.depth]);
      expect(r.notes?.join(' ')).toMatch(/ran on one thread/);
    }
  }, 120_000);
});

describe('--workers gives the counts of one thread for every plain-object spec', () => {
  // A spec's encoding must depend on the state's value alone: states cross threads as copies,
  // and a number a build gave a part as it met it (a pool's) means another value, or nothing,
  // in another thread (fusee's pooled encoding, reverted, threw there). Each config is big
  // enough that a level is shared out between the workers (BALANCE_MIN states a worker).
  const cases: [string, string][] = [['fusee', 'A2'], ['shadowfax', 'B0'], ['minos', 'F2-synch'], ['rowan', 'RK-MIG1']];
  it.each(cases)('%s %s', async (name, config) => {
    const def = specs.find((d) => d.name === name)!;
    const r = await parallelBfs(specTarget(name, config), { workers: 2 });
    const one = exploreSync(def.build(def.configs.find((c) => c.name === config)!.config), {});
    expect([r.status, r.states, r.transitions, r.depth, r.notes]).toEqual([one.status, one.states, one.transitions, one.depth, undefined]);
  }, 120_000);
});

describe('a long counterexample in words (round 4 D2)', () => {
  it('is bounded, its middle steps elided and said so, in a search and in a replay of its path', async () => {
    // 1,200 steps, each changing 51 fields: 1,200 x 52 lines whole
    const dir = mkdtempSync(join(tmpdir(), 'interleave-long-'));
    try {
      const file = join(dir, 'long.mjs');
      writeFileSync(
        file,
        `const machine = { init: () => [{ n: 0, arr: Array.from({ length: 50 }, (_, i) => i) }], actions: (s) => (s.n < 1200 ? [{ label: 'inc(' + s.n + ')' }] : []), next: (s) => ({ n: s.n + 1, arr: s.arr.map((x) => x + 1) }), invariants: { small: (s) => (s.n >= 1200 ? 'n = ' + s.n : true) } };\n` +
          "export const spec = { name: 'long', title: 't', paper: 'p', configs: [{ name: 'A', description: 'a', config: {}, tier: 'default' }], mutants: [], build: () => machine };\n",
      );
      const found = await runInProcess('explore', file);
      expect(found.code).toBe(1);
      const lines = found.stdout.split('\n');
      expect(lines).toContain('  … 700 steps elided (101 to 800 of 1,200): --json or --itf has every step');
      expect(lines).toContain('         … and 12 more changed fields (--json lists them all)');
      expect(lines.length).toBeLessThan(500 * 41 + 100);
      const path = /replay: --replay "([^"]*)"/.exec(found.stdout)![1];
      expect(path.split(';')).toHaveLength(1200);
      const replayed = await runInProcess('explore', file, '--replay', path);
      expect(replayed.code).toBe(1);
      const again = replayed.stdout.split('\n');
      expect(again).toContain('  … 700 steps elided (101 to 800 of 1,200): --json or --itf has every step');
      expect(again.findIndex((l) => l.startsWith('  state after step 800: {n: 800, arr: [800, 801, '))).toBeGreaterThan(0);
      expect(again.slice(-3)).toEqual(['         small violated: n = 1200', 'the path reproduces a violation', '']);
      expect(again.length).toBeLessThan(500 * 41 + 100);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
