// THE HOOK FOR TRACE VALIDATION (issue 15, "Trace validation": checkers/validate and
// `interleave validate`). It does not exist yet, so a run reports its trace as not
// validated, and its verdict rests on the history check and the implementation's own
// assertions. When checkers/validate lands, this function calls it on the merged trace
// (DIR/trace.jsonl, interleave-trace/1) against `spec` and maps its verdict:
//   valid -> 'valid', invalid -> 'invalid' (the run exits 1), bound hit -> 'inconclusive' (2).
// Nothing here pretends to validate.

export interface TraceValidation {
  status: 'not-run' | 'valid' | 'invalid' | 'inconclusive';
  detail?: string;
}

export async function validateTrace(_spec: string, _traceFile: string): Promise<TraceValidation> {
  return { status: 'not-run', detail: 'trace validation (checkers/validate, issue 15) is not available yet' };
}
