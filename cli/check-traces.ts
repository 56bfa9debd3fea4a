// The bundled histories of traces/bundled/: each is checked against its model and its
// verdict compared with the one the manifest expects. `interleave check` runs them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { checkHistory, models } from '../checkers/lin/index.ts';
import type { Verdict } from '../checkers/lin/types.ts';
import { FORMATS, importHistoryFile, InputError, type Format } from '../traces/import.ts';
import { PACKAGE_ROOT } from './package-root.ts';

export const BUNDLED_DIR = join(PACKAGE_ROOT, 'traces', 'bundled');

const ManifestRow = z.object({
  path: z.string().regex(/^[\w.-]+$/, { error: 'a file name inside traces/bundled/' }),
  format: z.enum(FORMATS),
  model: z.string().refine((m) => Object.hasOwn(models, m), { error: 'a registered model' }),
  expected: z.enum(['ok', 'illegal']),
});
export type ManifestRow = z.infer<typeof ManifestRow>;

export interface TraceRow extends ManifestRow {
  operations: number;
  /** The checker's verdict, or 'error' when the file could not be read. */
  got: Verdict | 'error';
  ms: number;
  pass: boolean;
  error?: string;
}

/** The manifest's rows; a malformed manifest is an InputError naming its line. */
export function readManifest(dir = BUNDLED_DIR): ManifestRow[] {
  const file = join(dir, 'manifest.tsv');
  const lines = readFileSync(file, 'utf8').split('\n');
  const header = lines[0]!.split('\t');
  const rows: ManifestRow[] = [];
  lines.forEach((line, i) => {
    if (i === 0 || line.trim() === '') return;
    const cells = line.split('\t');
    const raw = Object.fromEntries(header.map((h, k) => [h, cells[k]]));
    const parsed = ManifestRow.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new InputError(file, i + 1, `${issue.path.join('.')}: ${issue.message}`);
    }
    rows.push(parsed.data);
  });
  return rows;
}

/** Checks every bundled history; a timeout gives 'unknown', which fails the row. */
export async function checkBundledTraces(options: { timeoutMs?: number; dir?: string } = {}): Promise<TraceRow[]> {
  const dir = options.dir ?? BUNDLED_DIR;
  const out: TraceRow[] = [];
  for (const row of readManifest(dir)) {
    const start = performance.now();
    try {
      const history = await importHistoryFile(join(dir, row.path), { model: models[row.model]!, format: row.format as Format });
      const result = await checkHistory(row.model, history.operations, { timeoutMs: options.timeoutMs ?? 10_000 });
      out.push({ ...row, operations: history.operations.length, got: result.verdict, ms: performance.now() - start, pass: result.verdict === row.expected });
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      out.push({ ...row, operations: 0, got: 'error', ms: performance.now() - start, pass: false, error: e.message });
    }
  }
  return out;
}

/** The rows as an aligned text table, one history per line. */
export function renderTraceTable(rows: readonly TraceRow[]): string {
  const table = [
    ['trace', 'model', 'ops', 'expected', 'got', 'time', ''],
    ...rows.map((r) => [r.path, r.model, String(r.operations), r.expected, r.got, `${r.ms.toFixed(0)} ms`, r.pass ? 'pass' : 'FAIL']),
  ];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
  const lines = table.map((r) => r.map((cell, c) => (c === 2 || c === 5 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ').trimEnd());
  for (const r of rows) if (r.error) lines.push(`  ${r.path}: ${r.error}`);
  return lines.join('\n');
}
