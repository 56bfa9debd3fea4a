// Where `--itf` writes counterexamples. The ITF format holds one trace per file
// (apalache-mc.org/docs/adr/015adr-trace.html), so several counterexamples need several
// files: a directory (`--itf out/`, files named after spec, config and property) or a name
// pattern with `{n}` (`--itf cx-{n}.itf.json`, n = 1, 2, ...). A plain file name is for a
// run that finds at most one (one config, without --all). Checked before the run; each
// file written through output.ts.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './exit.ts';
import { checkOutputPath, prepareOutputDir, type OutputGuard } from './output.ts';

export type ItfTarget = { kind: 'file'; path: string } | { kind: 'pattern'; pattern: string } | { kind: 'dir'; dir: string };

/**
 * Reads the --itf argument and checks it before any work. `several` says why the run may
 * find more than one counterexample (undefined: it cannot).
 */
export function planItf(arg: string, several: string | undefined, guard: OutputGuard): ItfTarget {
  if (arg.endsWith('/') || (existsSync(arg) && statSync(arg).isDirectory())) {
    prepareOutputDir(arg, guard);
    return { kind: 'dir', dir: arg };
  }
  if (arg.includes('{n}')) {
    checkOutputPath(arg.replaceAll('{n}', '1'), guard);
    return { kind: 'pattern', pattern: arg };
  }
  if (several !== undefined) {
    throw new UsageError(`--itf ${arg} names one file, but this run may find several counterexamples (${several}) and an ITF file holds one trace: give a directory (--itf ${arg.replace(/\.itf\.json$|\.json$/, '')}/) or a name with {n} (--itf ${arg.replace(/(\.itf)?\.json$/, '')}-{n}.itf.json)`);
  }
  checkOutputPath(arg, guard);
  return { kind: 'file', path: arg };
}

/** A file name part: letters, digits, `.`, `_` and `-` kept, anything else `_`. */
function part(s: string): string {
  return s.replace(/[^\w.-]+/g, '_').replace(/^\.+/, '_').slice(0, 80);
}

/** The file of the n-th trace (1-based), named by its spec, config, variant and property in a directory. */
export function itfPath(target: ItfTarget, n: number, name: { spec: string; config: string; variant?: string; property: string }): string {
  if (target.kind === 'file') return target.path;
  if (target.kind === 'pattern') return target.pattern.replaceAll('{n}', String(n));
  return join(target.dir, `${[name.spec, name.config, ...(name.variant ? [name.variant] : []), name.property].map(part).join('.')}.itf.json`);
}
