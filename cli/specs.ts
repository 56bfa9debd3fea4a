// What a command's <spec> argument names: a bundled spec (its folder name under specs/),
// or a user's module by path (relative to the working directory), optionally `#export`.
// A module exports a SpecDef, or a Machine factory (one config, `default`, no mutants).
// Worker threads rebuild a module's machines from the module itself (load.ts machineFrom).
import { existsSync, statSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { importModule } from '../checkers/explore/load.ts';
import type { BuildOptions, ExploreTarget, Machine, SpecDef } from '../checkers/explore/types.ts';
import { findSpec, specs } from '../specs/index.ts';
import { InputError } from '../traces/index.ts';
import { SpecModuleError, userCodeSite } from './errors.ts';
import { UsageError } from './exit.ts';
import { specMachine, specTarget } from './spec-machine.ts';

export interface ResolvedSpec {
  /** The SpecDef's name. */
  name: string;
  /** The argument as given: a bundled name or a module path (with #export). */
  arg: string;
  def: SpecDef;
  /** A user's module: its file and the export used. */
  module?: { file: string; url: string; export: string };
  /** `options` as SpecDef.build takes them: `{ layout: false }` for the machine a --redis run explores. */
  machine(config: string, variant?: string, options?: BuildOptions): Machine;
  /** Where worker threads find the same machine. */
  target(config: string, variant?: string): ExploreTarget;
}

/** A spec argument that names a module rather than a bundled spec. */
export function isModulePath(arg: string): boolean {
  return /[\\/]/.test(arg) || /\.[cm]?[jt]s(#.*)?$/.test(arg) || arg.includes('#');
}

/** The bundled specs, resolved. */
export function bundledSpecs(): ResolvedSpec[] {
  return specs.map((def) => bundledSpec(def));
}

function bundledSpec(def: SpecDef): ResolvedSpec {
  return {
    name: def.name,
    arg: def.name,
    def,
    machine: (config, variant, options) => specMachine(def.name, config, variant, options),
    target: (config, variant) => specTarget(def.name, config, variant),
  };
}

export async function resolveSpec(arg: string): Promise<ResolvedSpec> {
  const known = findSpec(arg);
  if (known) return bundledSpec(known);
  if (!isModulePath(arg)) {
    throw new UsageError(`unknown spec ${JSON.stringify(arg)}; bundled: ${specs.map((s) => s.name).join(', ')}; or a path to a module exporting a SpecDef (./my-spec.ts), see \`interleave init\``);
  }
  return loadSpecModule(arg);
}

const ConfigShape = z.object({ name: z.string().min(1), tier: z.enum(['default', 'full']) }, { error: 'a config {name, description, config, tier}' });
const MutantShape = z.object({ name: z.string().min(1), kind: z.enum(['safety', 'control']), config: z.string() }, { error: 'a mutant {name, description, breaks, kind, config}' });
const FindingShape = z.object({ name: z.string().min(1), variant: z.string(), config: z.string(), expect: z.string() }, { error: 'a finding {name, description, variant, config, expect}' });
/** What the CLI relies on in a user's SpecDef (the TypeScript type says the rest). */
export const SpecDefShape = z
  .object({
    name: z.string().min(1),
    configs: z.array(ConfigShape).min(1, { error: 'at least one config' }),
    mutants: z.array(MutantShape).optional(),
    findings: z.array(FindingShape).optional(),
    build: z.custom<SpecDef['build']>((v) => typeof v === 'function', { error: 'a function build(config, variant)' }),
  })
  .superRefine((d, ctx) => {
    const names = new Set<string>();
    d.configs.forEach((c, i) => {
      if (names.has(c.name)) ctx.addIssue({ code: 'custom', path: ['configs', i, 'name'], message: `config names are unique (${JSON.stringify(c.name)} twice)` });
      names.add(c.name);
    });
    const variants = new Set<string>();
    for (const [kind, list] of [['mutants', d.mutants ?? []], ['findings', d.findings ?? []]] as const) {
      list.forEach((m, i) => {
        if (!names.has(m.config)) ctx.addIssue({ code: 'custom', path: [kind, i, 'config'], message: `one of the configs (${[...names].join(', ')}), not ${JSON.stringify(m.config)}` });
        if (variants.has(m.name)) ctx.addIssue({ code: 'custom', path: [kind, i, 'name'], message: `mutant and finding names are unique (${JSON.stringify(m.name)} twice)` });
        variants.add(m.name);
      });
    }
  });

/**
 * An export meant as a SpecDef: an object with `build` or `configs`. It is then validated
 * (SpecDefShape), so that a wrong field is named instead of the export being passed over.
 */
function isSpecDef(v: unknown): v is SpecDef {
  return typeof v === 'object' && v !== null && ('build' in v || 'configs' in v);
}

function describeExports(mod: Record<string, unknown>): string {
  const names = Object.keys(mod);
  return names.length === 0 ? 'it exports nothing' : `its exports: ${names.map((n) => `${n} (${isSpecDef(mod[n]) ? 'SpecDef' : typeof mod[n]})`).join(', ')}`;
}

async function loadSpecModule(arg: string): Promise<ResolvedSpec> {
  const hash = arg.lastIndexOf('#');
  const path = hash < 0 ? arg : arg.slice(0, hash);
  const wanted = hash < 0 ? undefined : arg.slice(hash + 1);
  const file = resolve(path);
  if (!existsSync(file)) throw new InputError(path, undefined, 'a spec module (no such file)');
  if (!statSync(file).isFile()) throw new InputError(path, undefined, 'a spec module file (it is not a regular file)');
  const url = pathToFileURL(file).href;
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(url);
  } catch (e) {
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    // a module it imports (a computed import() too) that does not parse or throws: named
    const site = userCodeSite(e);
    const where = site !== undefined && resolve(site.file) !== file ? ` (in ${site.file}${site.line === undefined ? '' : `:${site.line}`})` : '';
    throw new InputError(path, undefined, `a module that loads; loading it failed${where}: ${message.split('\n').slice(0, 3).join(' ').slice(0, 400)}`);
  }
  let exportName: string;
  if (wanted !== undefined) {
    if (!Object.hasOwn(mod, wanted)) throw new UsageError(`${path} has no export ${JSON.stringify(wanted)}; ${describeExports(mod)}`);
    exportName = wanted;
  } else {
    const usable = (n: string) => isSpecDef(mod[n]) || typeof mod[n] === 'function';
    const defs = Object.keys(mod).filter((n) => isSpecDef(mod[n]));
    const factories = Object.keys(mod).filter((n) => typeof mod[n] === 'function');
    if (Object.hasOwn(mod, 'default') && usable('default')) exportName = 'default';
    else if (defs.length === 1) exportName = defs[0];
    else if (defs.length > 1) throw new UsageError(`${path} exports several SpecDefs (${defs.join(', ')}): choose one, as ${path}#${defs[0]}`);
    else if (factories.length === 1) exportName = factories[0];
    else if (factories.length > 1) throw new UsageError(`${path} exports several functions (${factories.join(', ')}) and no SpecDef: name the Machine factory, as ${path}#${factories[0]}`);
    else throw new InputError(path, undefined, `a module exporting a SpecDef ({name, configs, mutants, build}) or a Machine factory (a function returning {init, actions, next, invariants}); ${describeExports(mod)}`);
  }
  const value = mod[exportName];
  const module = { file: path, url, export: exportName };
  if (isSpecDef(value)) {
    const parsed = SpecDefShape.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new InputError(path, undefined, `${exportName}.${issue.path.join('.')}: ${issue.message}`);
    }
    const def: SpecDef = { ...value, mutants: value.mutants ?? [] };
    return {
      name: def.name,
      arg,
      def,
      module,
      machine: (config, variant, options) => {
        const c = def.configs.find((x) => x.name === config)!;
        return checkedMachine(def.build(c.config, variant, options), path, `${exportName}.build`);
      },
      target: (config, variant) => ({ module: url, export: exportName, args: variant === undefined ? [config] : [config, variant] }),
    };
  }
  if (typeof value !== 'function') throw new InputError(path, undefined, `${exportName}: a SpecDef or a Machine factory, not ${value === null ? 'null' : typeof value}`);
  const factory = value as () => Machine;
  // A Machine factory is called with no arguments; one that declares parameters (the
  // `machine(config, variant)` `interleave init` writes, which the SpecDef's build calls)
  // is most likely not one: its error then says which export to select instead.
  const defs = Object.keys(mod).filter((n) => isSpecDef(mod[n])).sort((a, b) => Number(a === 'default') - Number(b === 'default'));
  const hint =
    factory.length === 0
      ? ''
      : ` (${exportName} declares ${factory.length} parameter(s), but a Machine factory is called with none${defs.length > 0 ? `; select the SpecDef that builds it instead, as ${path}#${defs[0]}` : ''})`;
  const build = (): Machine => {
    let m: unknown;
    try {
      m = factory();
    } catch (e) {
      throw new SpecModuleError(path, `calling ${exportName}()${hint}`, e);
    }
    return checkedMachine(m, path, `${exportName}()${hint}`);
  };
  const name = exportName === 'default' ? basename(file, extname(file)) : exportName;
  const def: SpecDef = {
    name,
    title: `${name} (${path}, a Machine factory)`,
    paper: path,
    configs: [{ name: 'default', description: `the machine ${exportName}() builds`, config: undefined, tier: 'default' }],
    mutants: [],
    build,
  };
  build();
  return { name, arg, def, module, machine: () => def.build(undefined), target: () => ({ module: url, export: exportName, args: [] }) };
}

/**
 * The files a run of these specs reads besides the package's own (cli/output.ts guards
 * those): each user's module and every local module it imports, as esbuild's bundler
 * resolves them (npm packages left out). An output never replaces one of them, --force
 * or not. A module esbuild cannot bundle counts alone.
 */
export async function specInputs(list: readonly ResolvedSpec[]): Promise<string[]> {
  const files = list.flatMap((s) => (s.module ? [resolve(s.module.file)] : []));
  if (files.length === 0) return [];
  const { build } = await import('esbuild');
  const inputs = await Promise.all(
    files.map(async (file) => {
      try {
        const r = await build({ entryPoints: [file], bundle: true, write: false, metafile: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'silent' });
        return [file, ...Object.keys(r.metafile.inputs).map((p) => resolve(p))];
      } catch {
        return [file];
      }
    }),
  );
  return [...new Set(inputs.flat())];
}

/** A machine a user's code built, checked for the members the engine calls. */
function checkedMachine(m: unknown, file: string, what: string): Machine {
  const missing: string[] = [];
  const o = (typeof m === 'object' && m !== null ? m : {}) as Record<string, unknown>;
  for (const f of ['init', 'actions', 'next']) if (typeof o[f] !== 'function') missing.push(`${f}()`);
  if (typeof o.invariants !== 'object' || o.invariants === null) missing.push('invariants');
  if (missing.length > 0) throw new InputError(file, undefined, `${what} to return a Machine {init, actions, next, invariants}; missing: ${missing.join(', ')}`);
  return m as Machine;
}

/**
 * The variant a `--mutant` name selects (a mutant's name, or a finding's variant) and the
 * config it runs at; an unknown name is a usage error that lists the known ones.
 */
export function mutantOf(spec: ResolvedSpec, name: string): { variant: string; config: string } {
  const finding = (spec.def.findings ?? []).find((f) => f.name === name);
  if (finding) return { variant: finding.variant, config: finding.config };
  const mutant = spec.def.mutants.find((m) => m.name === name);
  if (mutant) return { variant: mutant.name, config: mutant.config };
  const known = [...spec.def.mutants.map((m) => m.name), ...(spec.def.findings ?? []).map((f) => f.name)];
  throw new UsageError(`spec ${spec.name} has no mutant or finding ${JSON.stringify(name)}; ${known.length ? `known: ${known.join(', ')}` : 'it declares none'}`);
}

/** A config by name; an unknown one is a usage error that lists the known ones. */
export function configOf(spec: ResolvedSpec, name: string): string {
  if (!spec.def.configs.some((c) => c.name === name)) throw new UsageError(`spec ${spec.name} has no config ${JSON.stringify(name)}; known: ${spec.def.configs.map((c) => c.name).join(', ')}`);
  return name;
}
