import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { specs } from '../specs/index.ts';
import { runInProcess } from './in-process.ts';

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
