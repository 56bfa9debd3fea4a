// The shadowfax machine's actions as one table (specs/kit/table.ts), in the order the
// search enumerates them (part of a breadth-first search's meaning: which counterexample
// of a given length it reports). Per client thread: issue; then per session (to S, then
// to T) the batch sent, the server's receipt of it (and M18's split receipt), the answer
// back; then the view change. Then the steps of no client: faults and recovery (B3), the
// administrator's remap, the source's phases and chunks, ops the servers finish later,
// the target's receipts, the storage tiers and compaction. A step no run of the config can
// take is left out of the table, so that its guard is not asked at every state (the order
// of the others is unchanged): clientSend with batches of one (`send` cuts each op's batch
// as it is issued), recovery without crashes, evict and flush without tiers, the I/O
// completion and the indirection fetch when no record is ever on SSD (no old version and
// no tiers: nothing pends on I/O and sendChunk sends no indirection), compaction's steps
// without compaction, M18's and M20's steps without M18 and M20 (each other guard tests
// its condition first; clientSend's finds the buffer empty).

import type { ActionTable } from '../kit/table.ts';
import { clientRecvStep, clientSendStep, handleViewChangeStep, issueStep } from './client.ts';
import { bindStep, type Cx } from './context.ts';
import { sourceSteps, targetSteps } from './migration.ts';
import { recoverySteps } from './recovery.ts';
import { serverLaterSteps, serverRecvSteps } from './server.ts';
import type { ShadowfaxAction, State } from './state.ts';
import { tierSteps } from './tiers.ts';

export function table(cx: Cx): ActionTable<State, ShadowfaxAction> {
  const source = sourceSteps(cx);
  const target = targetSteps(cx);
  const later = serverLaterSteps(cx);
  const tiers = tierSteps(cx);
  const { serverRecvBatch, serverRecvBatchSplit } = serverRecvSteps(cx);
  const compaction = !!cx.config.compaction;
  // a record below head (on SSD): an old version at the start, or one evicted (tiers)
  const ssd = cx.config.tiers || cx.keys.some((d) => (d.cold?.length ?? 0) > 0);
  return {
    actors: (s) => s.clients.length,
    perActor: [
      bindStep(cx, issueStep),
      { members: (s, c) => s.clients[c].sessions.length, steps: [...when(cx.batchSize > 1, bindStep(cx, clientSendStep)), serverRecvBatch, ...when(cx.mut.M18, serverRecvBatchSplit), bindStep(cx, clientRecvStep)] },
      bindStep(cx, handleViewChangeStep),
    ],
    global: [
      ...when(cx.crashes > 0, ...recoverySteps(cx)),
      source.migrate,
      source.threadRefresh,
      source.srcAdvance,
      source.sendChunk,
      ...when(ssd, later.serverCompleteIO),
      ...when(cx.mut.M20, later.installSampleCopy),
      target.tgtRecvControl,
      target.tgtRecvData,
      later.tgtRetryPended,
      ...when(ssd, tiers.tgtFetchIndirection),
      ...when(compaction, tiers.compact, tiers.truncate, tiers.ownerRecvCompacted),
      ...when(cx.config.tiers, tiers.evict, tiers.flush),
    ],
  };
}

/** The steps, if the config (or variant) can take them at all. */
const when = <T>(can: boolean, ...steps: T[]): T[] => (can ? steps : []);
