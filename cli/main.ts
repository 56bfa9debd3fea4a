// The `interleave` command. Each subcommand lives in its own module and registers itself.
import { Command } from 'commander';
import * as check from './check.ts';
import { runCli } from './errors.ts';
import * as explore from './explore.ts';
import * as lin from './lin.ts';
import * as list from './list.ts';
import * as mutants from './mutants.ts';

const program = new Command()
  .name('interleave')
  .description('Model-check distributed-storage protocol specs and check histories for linearizability.')
  .exitOverride();

for (const command of [check, explore, mutants, lin, list]) command.register(program);

process.exitCode = await runCli(program, process.argv);
