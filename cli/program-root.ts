// The `interleave` program with the given commands and nothing else: program.ts gives it
// the commands a command line names; `interleave lin`'s startup snapshot (lin-snapshot.ts)
// gives it `lin` alone, without a reference to the other commands' modules.
import { Command } from 'commander';
import { VERSION } from './package-root.ts';

export interface CommandModule {
  register(program: Command): void;
}

export function programOf(modules: readonly CommandModule[]): Command {
  const program = new Command()
    .name('interleave')
    .description('Model-check distributed-storage protocol specs and check histories for linearizability.')
    .version(VERSION, '-V, --version', 'print the version')
    .exitOverride();
  for (const command of modules) command.register(program);
  return program;
}
