// The `interleave` command. Each subcommand lives in its own module and registers itself.
import { Command, CommanderError } from 'commander';
import { EXIT } from './exit.ts';

const program = new Command()
  .name('interleave')
  .description('Model-check distributed-storage protocol specs and check histories for linearizability.')
  .exitOverride();

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    process.exit(e.exitCode === 0 ? 0 : EXIT.usage);
  }
  throw e;
}
