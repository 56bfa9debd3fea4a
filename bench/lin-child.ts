// One generated history checked in a process of its own, so that its peak memory (max
// RSS) is the check's and nothing else's: bench/lin-generated.ts starts one per history.
// The checker may come from another checkout (--impl DIR, e.g. main's tree) so that two
// versions are measured on the same histories; the generator is always this checkout's.
//
//   node --import tsx --expose-gc bench/lin-child.ts '{"family":"kv","ops":1000,"clients":2,"seed":1,"corrupt":0}' [--impl DIR] [--timeout S]

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { GenerateOptions } from '../checkers/lin/generate.ts';
import { measureChild, type Checker } from './lin-child-measure.ts';

const args = process.argv.slice(2);
const options = JSON.parse(args[0]) as GenerateOptions;
const flag = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const impl = resolve(flag('--impl') ?? new URL('..', import.meta.url).pathname);
const timeoutS = Number(flag('--timeout') ?? 60);

const lin = (await import(pathToFileURL(`${impl}/checkers/lin/index.ts`).href)) as Checker;
process.stdout.write(`${JSON.stringify(measureChild(lin, options, timeoutS, (globalThis as { gc?: () => void }).gc))}\n`);
