// Builds the machine an ExploreTarget names: `(await import(module))[export](...args)`, or,
// when the export is a SpecDef, its machine at the config (and variant) the args name, built
// with the target's options (`build`: the plain machine for the distributed search).
// Module paths resolve against the working directory, as a user typing one expects.

import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'node:module';
import type { ExploreTarget, Machine, SpecDef } from './types.ts';

/**
 * Whether this engine runs as TypeScript source (under tsx or vitest, whose loader then
 * also loads a user's .ts modules) or as the package's JavaScript (dist/), which needs a
 * loader of its own for them.
 */
export const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** The file extension of this engine's own modules: worker entry points are named with it. */
export const OWN_EXTENSION = FROM_SOURCE ? '.ts' : '.js';

const TYPESCRIPT = /\.m?ts$/;
let typescriptHooks = false;

/**
 * Lets `import()` load TypeScript: module hooks (typescript-hooks.ts) that strip types with
 * esbuild's transform, file by file, keeping each module at its own URL, always as an ES
 * module. Registered once, also under tsx, whose loader would read a .ts file outside a
 * `"type": "module"` package as CommonJS.
 */
export function registerTypeScript(): void {
  if (typescriptHooks) return;
  typescriptHooks = true;
  try {
    register(new URL(`./typescript-hooks${OWN_EXTENSION}`, import.meta.url));
  } catch (e) {
    // The hooks are TypeScript themselves here, under a runner whose loader is not Node's
    // (vitest): that loader then loads TypeScript modules.
    if (!FROM_SOURCE) throw e;
  }
}

/**
 * A module specifier as a URL: a file path (relative ones against the working directory)
 * becomes a file URL; a URL or a package name is kept.
 */
export function moduleUrl(specifier: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier) && !/^[a-z]:[\\/]/i.test(specifier)) return specifier;
  if (specifier.startsWith('.') || isAbsolute(specifier)) return pathToFileURL(resolve(specifier)).href;
  return specifier;
}

/** Imports a module by path, URL or package name; TypeScript files too. */
export async function importModule(specifier: string): Promise<Record<string, unknown>> {
  const url = moduleUrl(specifier);
  if (TYPESCRIPT.test(url.split(/[?#]/, 1)[0])) registerTypeScript();
  return (await import(url)) as Record<string, unknown>;
}

/** The target with its module as a URL (paths resolved against the working directory). */
export function normalizeTarget(target: ExploreTarget): ExploreTarget {
  const module = moduleUrl(target.module);
  return module === target.module ? target : { ...target, module };
}

export async function loadMachine(target: ExploreTarget): Promise<Machine> {
  return machineFrom(await importModule(target.module), target);
}

/** A SpecDef, told from a machine factory by its shape. */
export function isSpecDef(v: unknown): v is SpecDef {
  return typeof v === 'object' && v !== null && typeof (v as SpecDef).build === 'function' && Array.isArray((v as SpecDef).configs);
}

/**
 * The machine from the target's module, already imported: the export called with the
 * args, or for a SpecDef export, built at the config named by args[0] (and the variant
 * args[1]) with the target's build options.
 */
export function machineFrom(mod: Record<string, unknown>, target: ExploreTarget): Machine {
  const make = mod[target.export];
  if (isSpecDef(make)) {
    const [configName, variant] = target.args as [string, string | undefined];
    const config = make.configs.find((c) => c.name === configName);
    if (!config) throw new Error(`${target.module}: spec ${make.name} has no config ${JSON.stringify(configName)}`);
    return make.build(config.config, variant, target.build);
  }
  if (typeof make !== 'function') throw new Error(`${target.module} has no function or SpecDef export "${target.export}"`);
  return make(...target.args) as Machine;
}
