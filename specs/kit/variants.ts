// Typed variants: a spec lists its mutant (and finding) names once, as a const array, and
// its code tests flags of that type (`mut.M5`), so that a misspelled name does not compile.
// build() resolves the name it is given once; an unknown name is an error, not the
// unmutated protocol in disguise.

import type { MutantDef } from '../../checkers/explore/types.ts';

export type Flags<V extends string> = Readonly<Record<V, boolean>>;

export interface Variants<V extends string> {
  readonly names: readonly V[];
  /** One flag per variant, true for the one asked for (all false: the protocol as specified). */
  flags(variant: string | undefined): Flags<V>;
  /** A MutantDef whose name is checked against the list at compile time. */
  mutant(def: MutantDef & { name: V }): MutantDef;
}

export function variants<const V extends string>(spec: string, names: readonly V[]): Variants<V> {
  const known = new Set<string>(names);
  if (known.size !== names.length) throw new Error(`${spec}: a variant is listed twice`);
  if (known.has('__proto__')) throw new Error(`${spec}: a variant cannot be named __proto__`);
  return {
    names,
    flags(variant) {
      if (variant !== undefined && variant !== '' && !known.has(variant)) {
        throw new Error(`${spec}: unknown variant "${variant}" (known: ${names.join(', ')})`);
      }
      // A plain object with its fields in the list's order: every configuration's flags
      // share one V8 shape, and a flag reads as a field (with no prototype, V8 keeps the
      // object as a dictionary: a lookup by name at every read, and a shape per object).
      const out = {} as Record<V, boolean>;
      for (const n of names) out[n] = n === variant;
      return Object.freeze(out);
    },
    mutant: (def) => def,
  };
}
