// The `interleave` program: every subcommand, each in its own module, registered here once
// for cli/main.ts and for the tests that run the command in their own process.
import { Command } from 'commander';
import * as check from './check.ts';
import * as explore from './explore.ts';
import * as init from './init.ts';
import * as lin from './lin.ts';
import * as list from './list.ts';
import * as mutants from './mutants.ts';
import { VERSION } from './package-root.ts';
import * as run from './run.ts';
import * as serve from './serve.ts';
import * as validate from './validate.ts';
import * as worker from './worker.ts';

export function buildProgram(): Command {
  const program = new Command()
    .name('interleave')
    .description('Model-check distributed-storage protocol specs and check histories for linearizability.')
    .version(VERSION, '-V, --version', 'print the version')
    .exitOverride();
  for (const command of [check, explore, mutants, lin, list, run, validate, serve, init, worker]) command.register(program);
  return program;
}
