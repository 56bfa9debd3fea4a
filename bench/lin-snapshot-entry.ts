// The bench's startup snapshot of this tree's checker (bench/lin-generated.ts): built by
// bin/lin-snapshot.js's buildSnapshot, as `interleave lin`'s is, with the same node
// arguments and cli/lin-snapshot.ts's warm-up; a process started from it with
// `--bench-child OPTIONS --timeout S` runs bench/lin-child.ts's measure on the checker in
// the snapshot (anything else runs `interleave lin`, as the CLI's blob does).
import { setFlagsFromString, startupSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as lin from '../checkers/lin/index.ts';
import type { GenerateOptions } from '../checkers/lin/generate.ts';
import { main, warmUp } from '../cli/lin-snapshot.ts';
import { measureChild, type Checker } from './lin-child-measure.ts';

function benchChild(args: string[]): void {
  const timeoutS = Number(args.includes('--timeout') ? args[args.indexOf('--timeout') + 1] : 60);
  // lin-child.ts runs under --expose-gc; a V8 flag at start would have to be the build's too.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  process.stdout.write(`${JSON.stringify(measureChild(lin as Checker, JSON.parse(args[0]!) as GenerateOptions, timeoutS, gc))}\n`);
}

startupSnapshot.setDeserializeMainFunction(() => (process.argv[2] === '--bench-child' ? benchChild(process.argv.slice(3)) : void main()));
void warmUp();
