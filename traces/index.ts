// Reading histories (traces/README.md): the library's entry. The importers live in
// import.ts; this entry also provides zod's schemas at once (lazy-schemas.ts), so that
// importHistoryText, which cannot wait for them, always has them.
import { provideSchemas } from './lazy-schemas.ts';
import * as schemas from './schemas.ts';

provideSchemas(schemas);

export * from './import.ts';
export { toEventLines, toOperationLines } from './export.ts';
