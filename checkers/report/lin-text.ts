// The human summary of a linearizability check: verdict, size, partitions and time, and
// for an illegal history the diagnosis: the partition, its longest partial
// linearization in the model's words with the state after each step, and the operations
// that could not come next.

import { resolveModel, type ModelArg } from '../lin/check.ts';
import { UNKNOWN, type LinResult, type Model, type Operation, type PartitionReport } from '../lin/types.ts';

export interface LinTextOptions {
  /** Steps of the longest partial linearization to show (its last ones). Default 20. */
  steps?: number;
}

const VERDICT_WORDS = {
  ok: 'linearizable',
  illegal: 'NOT linearizable',
  unknown: 'unknown (inconclusive)',
} as const;

/**
 * A client as the terminal shows it: a name with a control character (an escape sequence
 * that would recolour or move the terminal's text) written as a JSON string, as the
 * models write values; any other name as it is.
 */
function clientText(client: number | string): string {
  if (typeof client !== 'string' || !CONTROL.test(client)) return String(client);
  // JSON.stringify escapes C0 controls; C1 (U+0080-U+009F, CSI among them) and DEL too.
  return JSON.stringify(client).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function describeOp(model: Model, history: readonly Operation[], i: number): string {
  const op = history[i];
  const output = op.ret === undefined ? UNKNOWN : op.output;
  const text = model.describeOperation ? model.describeOperation(op.input, output) : `${JSON.stringify(op.input)} -> ${op.ret === undefined ? '?' : JSON.stringify(output)}`;
  const when = `[${op.call}, ${op.ret === undefined ? 'indeterminate' : op.ret}]`;
  const where = op.origin?.line !== undefined ? ` line ${op.origin.line}` : '';
  return `#${i} client ${clientText(op.client)}: ${text}  ${when}${where}`;
}

function count(partitions: readonly PartitionReport[]): string {
  const tally = new Map<string, number>();
  for (const p of partitions) {
    const k = p.verdict === 'unknown' ? (p.reason ?? 'unknown') : p.verdict;
    tally.set(k, (tally.get(k) ?? 0) + 1);
  }
  return [...tally].map(([k, n]) => `${n} ${k}`).join(', ');
}

/**
 * Why an unknown result is unknown, in a sentence (the text and the HTML report): the time
 * budget, the memory bound reached (memoryWords), a cancel. Undefined for a decided result
 * and for a model error, which its own message explains.
 */
export function unknownWords(result: LinResult): string | undefined {
  if (result.verdict !== 'unknown' || result.modelError) return undefined;
  const why = new Set(result.partitions.map((p) => p.reason));
  if (why.has('timeout')) return 'The time budget ran out before the search could decide.';
  if (why.has('memory')) return memoryWords(result.partitions);
  if (why.has('cancelled')) return 'The search was cancelled before it could decide.';
  return 'The search could not decide.';
}

/** The memory bound the searches reached (PartitionReport.memoryLimit), in a sentence. */
function memoryWords(partitions: readonly PartitionReport[]): string {
  const limits = partitions.filter((p) => p.reason === 'memory').map((p) => p.memoryLimit);
  const heap = limits.find((l) => l?.of === 'heap');
  if (heap !== undefined) return `The search filled the heap it may use (${mb(heap.bytes)} MB still in use after a full collection) before it could decide.`;
  const memo = limits.find((l) => l !== undefined);
  return `The search's memo reached its memory budget${memo ? ` (${mb(memo.bytes)} MB)` : ''} before the search could decide.`;
}

function mb(bytes: number): number {
  return Math.round(bytes / 2 ** 20);
}

export function renderLinText(result: LinResult, history: readonly Operation[], modelArg: ModelArg, options: LinTextOptions = {}): string {
  const { model } = resolveModel(modelArg);
  const lines: string[] = [];
  const parts = result.partitions.length;
  lines.push(`verdict:    ${VERDICT_WORDS[result.verdict]}`);
  lines.push(`model:      ${model.name}`);
  lines.push(`operations: ${result.operations}${parts > 0 ? ` in ${parts} partition${parts === 1 ? '' : 's'} (${count(result.partitions)})` : ''}`);
  lines.push(`time:       ${result.elapsedMs.toFixed(0)} ms`);

  if (result.modelError) {
    const e = result.modelError;
    lines.push('', e.operation >= 0 ? `The model failed on operation ${describeOp(model, history, e.operation)}:` : 'The model failed:', `  ${e.message}`);
  }
  const why = unknownWords(result);
  if (why !== undefined) lines.push('', why);

  const failed = result.partitions.find((p) => p.verdict === 'illegal');
  if (failed) lines.push('', ...diagnosis(failed, parts, model, history, options.steps ?? 20));
  return lines.join('\n') + '\n';
}

function diagnosis(p: PartitionReport, parts: number, model: Model, history: readonly Operation[], steps: number): string[] {
  const lines: string[] = [];
  const which = parts > 1 ? `Partition ${p.index} (${p.operations.length} operations)` : `The history (${p.operations.length} operations)`;
  lines.push(`${which} has no linearization.`);
  if (p.proof !== undefined) {
    const { operation, and, why } = p.proof;
    if (and === undefined) lines.push(`No linearization can include ${describeOp(model, history, operation)}: ${why}.`);
    else lines.push(`No linearization can include both ${describeOp(model, history, operation)} and ${describeOp(model, history, and)}: ${why}.`);
  }
  const longest = p.longest?.[0] ?? [];
  lines.push(`Longest partial linearization: ${longest.length} of ${p.operations.length} operations.`);
  const first = Math.max(0, longest.length - steps);
  if (first > 0) lines.push(`  ... ${first} earlier steps`);
  for (let k = first; k < longest.length; k++) {
    const state = p.states?.[k];
    lines.push(`  ${String(k + 1).padStart(4)}. ${describeOp(model, history, longest[k])}`);
    if (state !== undefined) lines.push(`        state: ${state}`);
  }
  if (longest.length === 0 && model.describeState) lines.push(`  (initial state: ${model.describeState(model.init())})`);
  const stuck = p.stuck ?? [];
  const required = stuck.filter((i) => history[i].ret !== undefined);
  const optional = stuck.filter((i) => history[i].ret === undefined);
  if (required.length > 0) {
    // Callable after the prefix: a step may fit there (the search tried each) and still lead nowhere.
    lines.push(`After it, none of these leads to a linearization:`);
    for (const i of required) lines.push(`        ${describeOp(model, history, i)}`);
  }
  if (optional.length > 0) {
    // A crashed write fits in every state: taking effect here is possible, and does not help.
    lines.push(`Nor does any of these indeterminate operations taking effect here (each may also never have): ${optional.map((i) => `#${i}`).join(', ')}`);
  }
  const others = (p.longest?.length ?? 1) - 1;
  if (others > 0) lines.push(`(${others} other longest partial linearization${others === 1 ? '' : 's'} in the JSON report.)`);
  return lines;
}
