// The `interleave` command. Each subcommand lives in its own module and registers itself.
import { Command, CommanderError } from 'commander';
import { EXIT } from './exit.ts';
import * as check from './check.ts';
import * as explore from './explore.ts';
import * as lin from './lin.ts';
import * as list from './list.ts';
import * as mutants from './mutants.ts';
import * as validate from './validate.ts';

const program = new Command()
  .name('interleave')
  .description('Model-check distributed-storage protocol specs and check histories for linearizability.')
  .exitOverride();

for (const command of [check, explore, mutants, lin, list, validate]) command.register(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    process.exit(e.exitCode === 0 ? 0 : EXIT.usage);
  }
  throw e;
}
