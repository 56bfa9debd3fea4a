// `interleave run <impl>`: start the cluster, drive the workload under the nemesis, stop
// everything, write what happened (history.edn, history.jsonl, trace.jsonl, report.html)
// and check it: the history for linearizability per key, the trace against the spec (by
// the caller's `validateTrace`: implementations and their harness never import specs, the
// CLI does). Exit codes as the checkers: 0 linearizable and valid, 1 a violation (not
// linearizable, an invalid trace, an implementation assertion, operations stuck after the
// faults healed), 2 unknown (the check ran out of time, the validation was inconclusive).

import { lstatSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkHistory } from '../../checkers/lin/index.ts';
import type { LinResult } from '../../checkers/lin/types.ts';
import { renderLinReport } from '../../checkers/report/lin-html.ts';
import { findModel } from '../../checkers/lin/models/index.ts';
import { checkDurability, type DurabilityModel, type DurabilityResult, type DurOp } from '../../checkers/durability/index.ts';
import { TRACE_FORMAT } from '../../traces/protocol-trace.ts';
import { importHistoryText } from '../../traces/index.ts';
import { historyEdn, historyJsonl, historyLine, readRawHistories, type FaultEvent, type RunOp } from '../kit/history.ts';
import { SpawnError, Supervisor } from '../kit/supervisor.ts';
import { monoNs } from '../kit/verbs.ts';
import { Nemesis, notInjected, planFaults } from './nemesis.ts';
import type { Cluster, CrashMarker, FaultRecord, Implementation, RunOptions, TraceValidation, TraceValidator } from './types.ts';

export interface RunIo {
  out(s: string): void;
  err(s: string): void;
  /** Show live progress (stderr is a terminal). */
  progress: boolean;
}

export interface RunOutput {
  dir: string;
  /** The processes' own directory (makeWorkDir); made here when not given. */
  workDir?: string;
  /** Write the files through this (cli/output.ts's writeOutput with the run's guard). */
  write(path: string, data: string | Uint8Array): void;
  /** Validates DIR/trace.jsonl against the implementation's spec; without it the trace is reported as not validated. */
  validateTrace?: TraceValidator;
}

export interface RunSummary {
  exitCode: number;
  verdict: 'linearizable' | 'violation' | 'unknown';
  /** Why the verdict is a violation, or why it is unknown (no operations, no answer, an inconclusive validation). */
  reasons: string[];
  operations: number;
  completed: number;
  indeterminate: number;
  opsPerSecond: number;
  faults: FaultRecord[];
  /** The processes' directory: their logs (makeWorkDir). */
  logs: string;
  /** The requested nemeses of which no fault was injected (the schedule had no room, or no target was left). */
  notInjected: string[];
  stuck: { proc: string; client: number; ms: number }[];
  assertions: string[];
  /** The history check; undefined when no operation was recorded (nothing to check). */
  lin: { verdict: LinResult['verdict']; checkMs: number; partitions: number } | undefined;
  /** The durability check over the crash history (implementations that declare a durability model). */
  durability: Omit<DurabilityResult, 'violations'> & { violations: string[] } | undefined;
  trace: { events: number; validation: TraceValidation };
  elapsedMs: { workload: number; total: number };
}

/** A problem with the run's setup (a process died at start, a port in use): exit 70-ish, not a verdict. */
export class RunError extends Error {}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * The files a run writes into its output directory, and its report's window pages (in
 * report.windows/). With --force the directory may hold an earlier run's: those this run
 * does not write again are removed at its end, so that no file of the directory's run
 * files is another run's; nothing else in it is touched.
 */
export const RUN_FILES = ['history.jsonl', 'history.edn', 'crash-history.jsonl', 'durability.jsonl', 'trace.jsonl', 'validation.html', 'report.html'] as const;
const WINDOWS_DIR = 'report.windows';
const WINDOW_PAGE = /^p\d+-w\d+\.html$/;

/**
 * A directory of the run's own for its processes (their logs, traces and histories): DIR/procs,
 * or DIR/procs-2, -3, ... when that exists (an earlier run's, or the user's: never reused,
 * never emptied).
 */
export function makeWorkDir(dir: string): string {
  for (let i = 1; ; i++) {
    const d = join(dir, i === 1 ? 'procs' : `procs-${i}`);
    try {
      mkdirSync(d);
      return d;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || i >= 10_000) throw new RunError(`cannot create the processes' directory ${d}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
}

const isFile = (path: string): boolean => {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
};

/** Removes the run files (RUN_FILES, window pages) in `dir` that this run did not write: an earlier run's. */
export function removeEarlierRunFiles(dir: string, written: ReadonlySet<string>): string[] {
  const removed: string[] = [];
  const drop = (path: string) => {
    if (written.has(resolve(path)) || !isFile(path)) return;
    unlinkSync(path);
    removed.push(path);
  };
  for (const f of RUN_FILES) drop(join(dir, f));
  const windows = join(dir, WINDOWS_DIR);
  let pages: string[] = [];
  try {
    if (lstatSync(windows).isDirectory()) pages = readdirSync(windows);
  } catch {
    // none
  }
  for (const p of pages) if (WINDOW_PAGE.test(p)) drop(join(windows, p));
  if (pages.length > 0) {
    try {
      rmdirSync(windows); // only when nothing else is in it
    } catch {
      // a file of the user's is there: kept
    }
  }
  return removed;
}

/** A trace's header line (no newline): the format, the spec it is validated against, the run's spec parameters. */
export function traceHeader(spec: string, params: Record<string, unknown>): string {
  return JSON.stringify({ format: TRACE_FORMAT, spec, params });
}

/** How a header line starts (traceHeader: the format first); an event line starts with "proc". */
const HEADER_START = Buffer.from(`{"format":`);

export async function runImplementation(impl: Implementation, options: RunOptions, output: RunOutput, io: RunIo): Promise<RunSummary> {
  const started = Date.now();
  // The processes append to their files: a directory of this run's own, so that nothing an
  // earlier run (or the user: the directory was accepted with --force) left mixes in or is lost.
  const workDir = output.workDir ?? makeWorkDir(output.dir);
  const written = new Set<string>();
  const write = (path: string, data: string | Uint8Array) => {
    output.write(path, data);
    written.add(resolve(path));
  };
  const t0 = monoNs();
  const now = () => Math.max(0, monoNs() - t0);
  const supervisor = new Supervisor();
  let cluster: Cluster | undefined;
  let nemesis: Nemesis | undefined;
  let ticker: NodeJS.Timeout | undefined;
  let stuck: { proc: string; client: number; ms: number }[] = [];
  let workloadMs = 0;
  try {
    try {
      cluster = await impl.start({ options, workDir, t0, supervisor, traceHeader: (params) => traceHeader(impl.spec, params) });
    } catch (e) {
      if (e instanceof SpawnError) throw new RunError(`cannot start the cluster: ${e.message}`);
      throw e;
    }
    const plan = planFaults(options.nemesis, options.duration * 1000, cluster.targets, cluster.serverFaultBudget, options.seed);
    nemesis = new Nemesis(cluster, plan, now);
    const workStart = Date.now();
    nemesis.start();
    if (io.progress) {
      let last = { t: workStart, ok: 0 };
      ticker = setInterval(() => {
        const p = cluster!.progress();
        const t = Date.now();
        const rate = ((p.ok - last.ok) * 1000) / Math.max(1, t - last.t);
        last = { t, ok: p.ok };
        io.err(`\r\x1b[K  ${((t - workStart) / 1000).toFixed(1)}s  ops ${fmt(p.ok)} (${fmt(Math.round(rate))}/s)  faults ${nemesis!.injected}  client crashes ${p.crashes}  indeterminate ${p.info}  assertions ${p.asserts}`);
      }, 1000);
    }
    await new Promise((r) => setTimeout(r, options.duration * 1000));
    if (ticker) clearInterval(ticker);
    if (io.progress) io.err('\r\x1b[K');
    // Faults end, then operations in flight get `drain` seconds to finish.
    await nemesis.stop();
    workloadMs = Date.now() - workStart;
    ({ stuck } = await cluster.drain(options.drain * 1000));
  } finally {
    if (ticker) clearInterval(ticker);
    if (cluster) await cluster.stop();
    await supervisor.stopAll();
  }

  // ---- what happened -----------------------------------------------------------------------
  const files = cluster.files();
  const faults = [...(nemesis?.records ?? []), ...cluster.faults()].sort((a, b) => a.start - b.start);
  const missing = notInjected(options.nemesis, faults);
  if (missing.length > 0) io.err(`interleave: warning: no fault of the nemesis ${missing.join(', ')} was injected in this run (the schedule had no room for one, or no target was left: a longer --duration or another --seed)\n`);
  const allOps = readRawHistories(files.histories, t0);
  const markers: CrashMarker[] = cluster.markers?.() ?? [];
  const firstCrash = markers.find((m) => m.event === 'crash')?.time;
  // Linearizability is checked up to the first full-system crash (what survives it is the
  // durability check's); an operation in flight at the crash is indeterminate.
  const ops = (firstCrash === undefined ? allOps.filter((o) => o.f !== 'persist') : preCrash(allOps, firstCrash)).map(noUpdateOutput);
  const jsonl = historyJsonl(ops);
  const faultEvents: FaultEvent[] = faults.map((f) => ({ start: f.start, end: f.end, f: f.kind, target: f.target }));
  write(join(output.dir, 'history.jsonl'), jsonl);
  write(join(output.dir, 'history.edn'), historyEdn(ops, faultEvents));
  let durability: RunSummary['durability'];
  if (impl.durability !== undefined) {
    const crash = crashFiles(allOps, markers);
    write(join(output.dir, 'crash-history.jsonl'), crash.history);
    // what the check judges, and nothing else, is what durability.jsonl holds: its evidence
    write(join(output.dir, 'durability.jsonl'), crash.durability);
    const d = checkDurability(impl.durability(options) as DurabilityModel, crash.judged, markers);
    durability = { ...d, violations: d.violations.map((v) => v.why) };
  }
  const parts: Buffer[] = [Buffer.from(`${traceHeader(impl.spec, cluster.traceParams())}\n`)];
  let events = 0;
  for (const f of files.traces) {
    let b: Buffer;
    try {
      b = readFileSync(f);
    } catch {
      continue;
    }
    // each file starts with the run's header (ClusterContext.traceHeader), which the merged
    // file has once; a line cut short by SIGKILL is dropped: the step it recorded is lost with the process
    const start = b.subarray(0, HEADER_START.length).equals(HEADER_START) ? b.indexOf(10) + 1 : 0;
    const end = Math.max(start, b.lastIndexOf(10) + 1);
    parts.push(b.subarray(start, end));
    for (let i = start; i < end; i++) if (b[i] === 10) events++;
  }
  const traceFile = join(output.dir, 'trace.jsonl');
  write(traceFile, Buffer.concat(parts));
  // the merged files hold everything the per-process ones did (the logs stay)
  for (const f of [...files.traces, ...files.histories]) rmSync(f, { force: true });

  // ---- checks ------------------------------------------------------------------------------
  const model = findModel(impl.model);
  if (model === undefined) throw new RunError(`${impl.name}: unknown checkers/lin model ${impl.model}`);
  // A run that recorded no operation (a low --rate, a short --duration) has no history to
  // check: no verdict (unknown, exit 2), not bad input naming the run's own file.
  const imported = ops.length === 0 ? undefined : importHistoryText(jsonl, join(output.dir, 'history.jsonl'), { model, format: 'jsonl' });
  const result = imported === undefined ? undefined : await checkHistory(impl.model, imported.operations, { timeoutMs: options.checkTimeout > 0 ? options.checkTimeout * 1000 : undefined });
  let validation: TraceValidation = { status: 'not-run', detail: 'no trace validator given' };
  if (output.validateTrace) {
    const v = await output.validateTrace(impl.spec, traceFile);
    validation = v.validation;
    if (v.html !== undefined) write(join(output.dir, 'validation.html'), v.html);
  }
  if (result !== undefined && imported !== undefined) {
    // A long run's partitions hold more operations than one page: the rest are window pages.
    const report = renderLinReport(result, imported.operations, impl.model, {
      windows: { dir: 'report.windows', main: 'report.html' },
      file: `${impl.name} run, seed ${options.seed}`,
      annotations: faults.map((f) => ({ from: f.start, to: f.end, label: `${f.kind} ${f.target}`, detail: `${f.kind} ${f.target}: ${(f.start / 1e9).toFixed(3)} s${f.end !== undefined ? ` to ${(f.end / 1e9).toFixed(3)} s` : ''}${f.note ? `\n${f.note}` : ''}` })),
    });
    if (report.windows.length > 0) mkdirSync(join(output.dir, 'report.windows'), { recursive: true });
    for (const w of report.windows) write(join(output.dir, 'report.windows', w.name), w.html);
    write(join(output.dir, 'report.html'), report.html);
  }

  removeEarlierRunFiles(output.dir, written);

  const completed = ops.filter((o) => o.ret !== undefined).length;
  const assertions = cluster.assertions();
  const reasons: string[] = [];
  if (result?.verdict === 'illegal') reasons.push('the history is not linearizable');
  if (durability?.verdict === 'violation') reasons.push(`${durability.violations.length} write(s) lost in a crash that the ${durability.model} model promises to keep`);
  if (assertions.length > 0) reasons.push(`${assertions.length} implementation assertion(s) failed`);
  if (stuck.length > 0) reasons.push(`${stuck.length} operation(s) still in flight ${options.drain} s after the faults ended (no progress: a deadlock?)`);
  if (validation.status === 'invalid') reasons.push('the trace does not match the spec');
  // why there is no verdict, when there is none
  const unknown: string[] = [];
  if (result === undefined) unknown.push('no operations were recorded: nothing to check');
  else if (result.verdict === 'unknown') unknown.push('the history check gave no answer');
  if (validation.status === 'inconclusive') unknown.push('the trace validation was inconclusive');
  const verdict = reasons.length > 0 ? 'violation' : unknown.length > 0 ? 'unknown' : 'linearizable';
  const summary: RunSummary = {
    exitCode: verdict === 'violation' ? 1 : verdict === 'unknown' ? 2 : 0,
    verdict,
    reasons: verdict === 'unknown' ? unknown : reasons,
    operations: ops.length,
    completed,
    indeterminate: ops.length - completed,
    opsPerSecond: workloadMs > 0 ? (completed * 1000) / workloadMs : 0,
    faults,
    logs: workDir,
    notInjected: missing,
    stuck,
    assertions,
    lin: result === undefined ? undefined : { verdict: result.verdict, checkMs: result.elapsedMs, partitions: result.partitions.length },
    durability,
    trace: { events, validation },
    elapsedMs: { workload: workloadMs, total: Date.now() - started },
  };
  io.out(describe(impl, options, output.dir, summary));
  return summary;
}

function describe(impl: Implementation, o: RunOptions, dir: string, s: RunSummary): string {
  const size = (f: string) => {
    try {
      return `${(statSync(join(dir, f)).size / 1e6).toFixed(1)} MB`;
    } catch {
      return '?';
    }
  };
  const lines = [
    `run:         ${impl.name}${o.persistency !== undefined ? ` <Lin, ${o.persistency}>${o.offload ? ' offload' : ''}` : ''}, ${o.clients} clients${o.persistency !== undefined ? '' : ` in ${o.clientProcs} processes`}, ${o.nodes} ${o.persistency !== undefined ? 'nodes' : `memory nodes (r=${o.replicas})`}, ${o.keys} keys, ${o.duration} s, rate ${o.rate > 0 ? `${o.rate}/s` : 'unlimited'}, nemesis ${o.nemesis.join(',')}, bug ${o.bug ?? 'none'}, seed ${o.seed}`,
    `operations:  ${s.operations === 0 ? 'none recorded' : `${fmt(s.completed)} completed (${fmt(Math.round(s.opsPerSecond))}/s), ${fmt(s.indeterminate)} indeterminate`}`,
    `faults:      ${s.faults.length === 0 ? 'none' : s.faults.map((f) => `${f.kind} ${f.target} @${(f.start / 1e9).toFixed(1)}s${f.end !== undefined ? `-${(f.end / 1e9).toFixed(1)}s` : ''}`).join(', ')}${s.notInjected.length > 0 ? ` (requested but never injected: ${s.notInjected.join(', ')})` : ''}`,
  ];
  if (s.assertions.length > 0) lines.push(`assertions:  ${s.assertions.slice(0, 5).join('\n             ')}${s.assertions.length > 5 ? `\n             ... ${s.assertions.length - 5} more` : ''}`);
  lines.push(`stuck:       ${s.stuck.length === 0 ? 'none' : s.stuck.slice(0, 8).map((x) => `c${x.client} (${x.proc}, ${(x.ms / 1000).toFixed(1)} s)`).join(', ')}`);
  lines.push(`history:     ${join(dir, 'history.edn')}, ${join(dir, 'history.jsonl')} (${fmt(s.operations)} operations, ${size('history.jsonl')})`);
  lines.push(`trace:       ${join(dir, 'trace.jsonl')} (${fmt(s.trace.events)} events, ${size('trace.jsonl')})`);
  lines.push(`validation:  ${s.trace.validation.status === 'valid' ? 'valid' : s.trace.validation.status === 'invalid' ? 'INVALID' : s.trace.validation.status}${s.trace.validation.detail ? ` (${s.trace.validation.detail})` : ''}${s.trace.validation.status !== 'not-run' ? `, ${join(dir, 'validation.html')}` : ''}`);
  if (!s.lin) lines.push('check:       not run (no operations were recorded)');
  if (s.lin) lines.push(`check:       ${s.lin.verdict === 'ok' ? 'linearizable' : s.lin.verdict === 'illegal' ? 'NOT linearizable' : 'unknown'} (${impl.model} per key, ${s.lin.partitions} partitions, ${(s.lin.checkMs / 1000).toFixed(1)} s)`);
  if (s.durability) {
    const d = s.durability;
    lines.push(`durability:  ${d.verdict === 'durable' ? 'durable' : 'VIOLATION'} (${d.model}: ${d.crashes} crash(es), ${d.recoveryReads} recovery reads against ${d.floorWrites} writes that must survive)${d.violations.length > 0 ? `\n             ${d.violations.slice(0, 3).join('\n             ')}` : ''}`);
  }
  lines.push(`logs:        ${s.logs}`);
  lines.push(`report:      ${s.lin ? join(dir, 'report.html') : 'none (no operations)'}`);
  lines.push(`verdict:     ${s.verdict}${s.reasons.length > 0 ? `: ${s.reasons.join('; ')}` : ''}`);
  return `${lines.join('\n')}\n`;
}

/** The operations invoked before a full-system crash; those in flight at it are indeterminate; register operations only. */
function preCrash(ops: readonly RunOp[], crash: number): RunOp[] {
  const out: RunOp[] = [];
  for (const o of ops) {
    if (o.call >= crash || o.f === 'persist') continue;
    if (o.ret !== undefined && o.ret > crash) out.push({ ...o, ret: undefined, output: undefined, infoAt: crash, why: 'the crash' });
    else out.push(o);
  }
  return out;
}

const isUpdate = (o: RunOp) => o.f === 'put' || o.f === 'write';

/** An update's output is its version (the implementation's write order), not part of the register history. */
function noUpdateOutput(o: RunOp): RunOp {
  if (!isUpdate(o) || o.output === undefined) return o;
  const { output: _, ...rest } = o;
  return rest;
}

function durOp(o: RunOp): DurOp {
  const d: DurOp = { client: o.client, f: o.f, key: o.key, value: o.value, call: o.call, ret: o.ret };
  if (isUpdate(o)) {
    if (typeof o.output === 'number') d.version = o.output;
  } else d.output = o.output;
  return d;
}

/**
 * The files of a run with full-system crashes. `crash-history.jsonl`: the whole run as the
 * native JSON lines `interleave lin` reads (the writes' versions, `persist` and the markers
 * are no model's vocabulary, so they are left out; an operation in flight at a crash is
 * indeterminate). `durability.jsonl`: what checkers/durability judges (`judged`, with the
 * markers; traces/README.md, "Crash histories"): the operations with the writes' versions
 * and the persists, and the crash and recovery markers; the evidence behind the run's
 * `durability:` line, for people and scripts (no command reads it back).
 */
export function crashFiles(ops: readonly RunOp[], markers: readonly CrashMarker[]): { history: string; durability: string; judged: DurOp[] } {
  const history = historyJsonl(ops.filter((o) => o.f !== 'persist').map(noUpdateOutput));
  const judged = ops.map(durOp);
  const lines = ops.map((o, i) => {
    const line = historyLine(noUpdateOutput(o));
    if (judged[i].version !== undefined) line.version = judged[i].version;
    return JSON.stringify(line);
  });
  for (const m of markers) lines.push(JSON.stringify({ event: m.event, time: m.time }));
  return { history, durability: lines.length === 0 ? '' : `${lines.join('\n')}\n`, judged };
}
