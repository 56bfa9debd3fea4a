// The `interleave` command.
import { runCli } from './errors.ts';
import { buildProgram } from './program.ts';

process.exitCode = await runCli(await buildProgram(process.argv), process.argv);
