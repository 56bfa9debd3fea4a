// zod's schemas (schemas.ts), loaded only when an import needs them: a record the
// hand-written checks refuse (zod then says what is wrong), or a format read through zod
// (EDN, Jepsen's JSON). A native JSON-lines history that is well formed never loads zod,
// which was ~80 ms of `interleave lin`'s start-up (issue 21).
//
// The sinks are synchronous, so a sink that needs the schemas before they are loaded
// throws SchemasNeeded; importHistoryFile (traces/import.ts) then loads them and reads the
// file again from the start, so that every verdict and message is the one the schemas
// give. The library's entry (traces/index.ts) provides them at once.
import type * as Schemas from './schemas.ts';

export type SchemasModule = typeof Schemas;

let loaded: SchemasModule | undefined;

/** A sink needed zod's schemas before they were loaded (never escapes importHistoryFile). */
export class SchemasNeeded extends Error {
  override name = 'SchemasNeeded';
}

/** The schemas, or SchemasNeeded. */
export function schemas(): SchemasModule {
  if (loaded === undefined) throw new SchemasNeeded('zod schemas not loaded yet');
  return loaded;
}

export function provideSchemas(module: SchemasModule): void {
  loaded = module;
}

export function schemasLoaded(): boolean {
  return loaded !== undefined;
}

export async function loadSchemas(): Promise<void> {
  loaded ??= await import('./schemas.ts');
}
