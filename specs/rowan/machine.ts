// ROWAN-KV as a state machine: a table of named steps (specs/kit/table.ts), one per atomic
// step of the paper, each with its guard, its effect and the line it cites: client.ts,
// put.ts, rowan-log.ts, failover.ts, promotion.ts, recovery.ts. Line numbers (Lnnn) cite
// /work/shared/papers/rowan.txt; § numbers the extraction /work/shared/protocols/rowan.md.
// A variant (mutants.ts) sets one typed flag, read at the step it breaks.
//
// The phases below fix the order in which a state's actions are enumerated (the order of
// the single actions() this table replaced), so that breadth-first search finds the same
// counterexamples: clients, primaries, the receivers' RNICs, DMA, the receivers' threads,
// failures and the CM, promotion, re-replication, cold start, migration.
import type { Machine } from '../../checkers/explore/types.ts';
import { clientHistory } from '../kit/history.ts';
import { phasedMachine, type Phase } from '../kit/table.ts';
import { clientSteps } from './client.ts';
import { wipeDram } from './cluster.ts';
import { bound, context, none, type Cx, type RowanAction, type RowanGlobalStep, type RowanStep, type Writes } from './context.ts';
import { failoverSteps } from './failover.ts';
import { invariants } from './invariants.ts';
import { receiveBuffer, newSeg } from './logs.ts';
import { rowanKvModel } from './model.ts';
import { VARIANTS } from './mutants.ts';
import { promotionSteps } from './promotion.ts';
import { putSteps } from './put.ts';
import { recoverySteps } from './recovery.ts';
import { rowanLogSteps } from './rowan-log.ts';
import { filled, objectList } from '../kit/state.ts';
import { chanTo, copy, noChannels, encodeState, mapped, encodeWords, rewriteFields, valueOf, type Cfg, type RowanConfig, type RowanState, type Server } from './state.ts';

export type { RowanAction } from './context.ts';

type S = RowanState;

function phases(cx: Cx): Phase<S, RowanAction>[] {
  const c = bound(cx, clientSteps);
  const p = bound(cx, putSteps);
  const r = bound(cx, rowanLogSteps);
  const f = bound(cx, failoverSteps);
  const pr = bound(cx, promotionSteps);
  const rc = bound(cx, recoverySteps);
  const servers = () => cx.conf.servers;
  const table: Phase<S, RowanAction>[] = [
    { actors: (s) => s.cl.length, steps: [c.invoke, c.clientReturn, c.refetchConfig, c.clientTimeout, c.reject, c.get, p.putStart] },
    { actors: servers, steps: [p.putFinish, p.tlogCommit, p.tlogPersist, r.readFlush, p.sendCommitVer] },
    r.rnicLand, r.allocSlot, r.rnicLandNext,
    { actors: servers, steps: [r.dmaDone, r.retry] },
    { actors: servers, steps: [r.markUsed, r.digest, r.commitSegment, r.cleanFix, r.cleanCopy] },
    { actors: () => cx.conf.failTargets.length, steps: [f.crash, f.suspect] },
    f.leaseExpire, f.cmNewConfig,
    { actors: servers, steps: [f.newConfig] },
    f.cmCommit,
    { actors: servers, steps: [f.commit] },
    { actors: servers, steps: [pr.promoCollect, pr.promoScatter, pr.promoFinish] },
    { actors: servers, steps: [pr.rerepCopy, pr.rerepDone, pr.rerepStart] },
    rc.powerFailure,
    { actors: servers, steps: [rc.coldPush, rc.coldIndex] },
    rc.cmMigrate, rc.migrateVersion, rc.migrateCopy, rc.migrateDone,
  ];
  // The steps the configuration has (`exists`), and the phases left with any.
  const has = (st: RowanStep | RowanGlobalStep) => st.exists !== false;
  return table.flatMap((ph): Phase<S, RowanAction>[] => {
    if (!('steps' in ph)) return has(ph) ? [ph] : [];
    const steps = ph.steps.filter(has);
    return steps.length ? [{ ...ph, steps }] : [];
  });
}

function initial(cx: Cx): S {
  const conf = cx.conf;
  const members = [...new Set(conf.shards.flat().concat(conf.migrate ? [conf.migrate.tgt] : []))].sort((a, b) => a - b);
  const cfg0: Cfg = cx.configs.of({ members, dist: mapped(conf.shards, (r) => ({ p: r[0], bs: r.slice(1) })), lag: mapped(conf.shards, () => []), mig: null, rb: -1, fo: true });
  const srv = [...Array(conf.servers).keys()].map((): Server => {
    // Every field, in copyServer's order (one shape for every server); wipeDram sets the
    // volatile ones. tomb is a ghost of PM (which tombstones went), so a crash keeps it.
    const s: Server = {
      up: true, lease: true, term: 0, com: 0, idx: [], shardVersion: [], commitVer: [], commitVerArray: [], shardBlocked: [], promoVer: [], migVer: [],
      done: [], ctx: [], segs: objectList(), nextSeg: 0, cur: -1, unflushed: [], dma: [], tomb: filled(conf.keyShard.length, 0), promo: null, rerep: null, cold: 0,
      pushed: [], migSent: false, migCopied: [], clean: null,
    };
    wipeDram(s, conf);
    // L270: the control thread posts b-log segments to the MP SRQ at start-up
    for (let i = 0; i < conf.segs; i++) newSeg(s, 'b', 'using');
    return s;
  });
  const cm = { term: 0, cfgs: [cfg0], down: [], resp: [], phase: 'stable' as const, fails: conf.failures, cvLeft: conf.commitVer, gcLeft: conf.gc, pf: conf.powerFail, mig: 0 };
  const cl = conf.clients.map(() => ({ pc: 0, st: 'idle' as const, to: -1, term: 0, out: null, v: 0 }));
  return { srv, ch: noChannels(conf), dead: [], cl, cm, acked: [], bad: '' };
}

/** A client has an operation in flight (the engine's history: pending until it returns or times out). */
const pending = (s: S, c: number) => s.cl[c].st !== 'idle' && s.cl[c].st !== 'done';

export function buildMachine(conf: RowanConfig, variant?: string): Machine<S, RowanAction> {
  const cx = context(conf, VARIANTS.flags(variant));
  rewriteFields(initial(cx));
  const table = phases(cx);
  const writes = new Map<string, Writes>();
  for (const ph of table) for (const st of ('steps' in ph ? ph.steps : [ph]) as (RowanStep | RowanGlobalStep)[]) if (st.writes) writes.set(st.name, st.writes);
  // A step's servers by default: server a.a, as a list made once per server (copy() only reads it).
  const alone = cx.servers.map((i) => [i]);
  const otherwise: Writes = (_s, a) => (a.a >= 0 && a.a < conf.servers ? alone[a.a] : none());

  /**
   * A terminal state where a SEND waits for a receive buffer (RNR): the b-log's bounded
   * segment pool is used up. A bound of the model (the real control thread keeps posting
   * free segments, L270), not a deadlock.
   */
  const rnrStall = (s: S) =>
    s.ch.some((q, i) => {
      const b = s.srv[chanTo(s, i)];
      return q.length > 0 && b.up && !receiveBuffer(b, conf);
    });

  // Each client's operations as the model's inputs, made once (the monitor keys on them).
  const invocations = conf.clients.map((ops, c) =>
    ops.map((op, pc) => ({ client: c, input: op.f === 'put' ? { f: 'put', key: `k${op.k}`, value: valueOf(c, pc) } : { f: op.f, key: `k${op.k}` } })),
  );

  return {
    init: () => [initial(cx)],
    ...phasedMachine(table, (s, a) => copy(s, (writes.get(a.step) ?? otherwise)(s, a))),
    invariants: invariants(cx),
    view: encodeState,
    encode: encodeWords,
    mayStop: (s) => s.cl.every((c) => c.st === 'done') || rnrStall(s),
    history: clientHistory<S, RowanAction>({
      model: rowanKvModel,
      clients: conf.clients.length,
      invoked: (b, a) => (a.step === 'invoke' ? invocations[a.a][b.cl[a.a].pc] : null),
      crashed: (_b, a) => (a.step === 'clientTimeout' ? a.a : null),
      pending,
      output: (after, c) => after.cl[c].out,
    }),
    actor: (a) => (a.step.startsWith('client') || a.step === 'invoke' || a.step === 'refetchConfig' ? `c${a.a}` : a.step.startsWith('cm') ? 'CM' : `s${a.a}`),
  };
}
